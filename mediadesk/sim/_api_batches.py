"""The API simulator's Batch API (``/v1/files``, ``/v1/batches``), as OpenAI's: the economy channel's provider.

A batch goes ``validating``, ``in_progress``, then after ``batch_delay_s`` (times ``time_scale``) ``completed``
with an output file (``custom_id`` and ``response.body`` per line) and an error file. Faults:
``batch_fail_every`` (every k-th line errors), ``batch_expire`` (ends ``expired`` half done, the rest
``batch_expired``), ``batch_api = False`` (404). Stats: ``batches_created``, ``batch_lines`` and
``batch_lines_per_id`` (``custom_id`` -> how many batches carried it: a task sent twice shows as 2).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from mediadesk.sim._admin_json import JSON_HEADERS
from mediadesk.sim._api_tokens import count_tokens, prompt_usage, usage_body

__all__ = ["BatchApiMixin", "BatchState"]


class BatchState:
    """Files, batches and counters of the Batch API (kept across ``reset_stats``)."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.seq = 0
        self.lines_per_id: dict[str, int] = {}

    def stats(self) -> dict[str, Any]:
        return {"batches_created": len(self.batches), "batch_lines": sum(self.lines_per_id.values()),
                "batch_lines_per_id": dict(self.lines_per_id)}


def _not_found(what: str) -> web.Response:
    return web.Response(status=404, headers=JSON_HEADERS, text=json.dumps(
        {"error": {"message": f"No such {what}", "type": "invalid_request_error", "code": None}}))


class BatchApiMixin:
    """Routes of the Batch API. The server gives ``config`` (``batch_delay_s``, ``batch_fail_every``,
    ``batch_expire``, ``time_scale``), ``_pause`` and ``_answer`` (its answer to a prompt)."""

    config: Any
    _pause: Callable[[float | None], Awaitable[bool]]
    _answer: Callable[[str], str]
    _batch_state: BatchState

    def _batch_routes(self) -> list[web.RouteDef]:
        return [
            web.post("/v1/files", self._file_upload),
            web.get("/v1/files/{id}/content", self._file_content),
            web.post("/v1/batches", self._batch_create),
            web.get("/v1/batches", self._batch_list),
            web.get("/v1/batches/{id}", self._batch_get),
        ]

    def _new_id(self, prefix: str) -> str:
        self._batch_state.seq += 1
        return f"{prefix}-sim-{self._batch_state.seq}"

    async def _file_upload(self, request: web.Request) -> web.Response:
        if not self.config.batch_api:  # a server without the Batch API
            return _not_found("route: POST /v1/files")
        form = await request.post()
        upload = form.get("file")
        if not isinstance(upload, web.FileField) or form.get("purpose") != "batch":
            return web.Response(status=400, headers=JSON_HEADERS, text=json.dumps(
                {"error": {"message": "need purpose=batch and a file", "type": "invalid_request_error"}}))
        data = upload.file.read()
        fid = self._new_id("file")
        self._batch_state.files[fid] = data
        return web.json_response({"id": fid, "object": "file", "bytes": len(data), "purpose": "batch",
                                  "filename": upload.filename, "created_at": int(time.time())})

    async def _file_content(self, request: web.Request) -> web.StreamResponse:
        data = self._batch_state.files.get(request.match_info["id"])
        if data is None:
            return _not_found("file")
        return web.Response(body=data, content_type="application/jsonl")

    async def _batch_create(self, request: web.Request) -> web.Response:
        body = json.loads(await request.read())
        fid = body.get("input_file_id") if isinstance(body, dict) else None
        if fid not in self._batch_state.files:
            return _not_found("file")
        bid = self._new_id("batch")
        lines = [json.loads(ln) for ln in self._batch_state.files[fid].decode("utf-8").splitlines() if ln.strip()]
        for ln in lines:
            cid = str(ln.get("custom_id"))
            self._batch_state.lines_per_id[cid] = self._batch_state.lines_per_id.get(cid, 0) + 1
        batch = {"id": bid, "object": "batch", "endpoint": body.get("endpoint"), "input_file_id": fid,
                 "completion_window": body.get("completion_window"), "status": "validating",
                 "output_file_id": None, "error_file_id": None, "created_at": int(time.time()),
                 "metadata": body.get("metadata"), "request_counts": {"total": len(lines), "completed": 0, "failed": 0}}
        self._batch_state.batches[bid] = batch
        task = asyncio.get_running_loop().create_task(self._batch_run(batch, lines))
        self._batch_state.tasks.add(task)
        task.add_done_callback(self._batch_state.tasks.discard)
        return web.json_response(batch)

    async def _batch_get(self, request: web.Request) -> web.Response:
        batch = self._batch_state.batches.get(request.match_info["id"])
        return _not_found("batch") if batch is None else web.json_response(batch)

    async def _batch_list(self, request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": list(self._batch_state.batches.values()),
                                  "has_more": False})

    async def _batch_run(self, batch: dict[str, Any], lines: list[dict[str, Any]]) -> None:
        cfg = self.config
        batch["status"] = "in_progress"
        if not await self._pause(cfg.batch_delay_s * cfg.time_scale):
            return
        done = lines[: len(lines) // 2] if cfg.batch_expire else lines
        out, err = [], []
        for i, ln in enumerate(done, start=1):
            cid = ln.get("custom_id")
            if cfg.batch_fail_every and i % cfg.batch_fail_every == 0:
                failed = {"error": {"message": "simulated server error", "type": "server_error"}}
                err.append({"id": self._new_id("req"), "custom_id": cid, "error": None,
                            "response": {"status_code": 500, "body": failed}})
                continue
            out.append({"id": self._new_id("req"), "custom_id": cid, "error": None,
                        "response": {"status_code": 200, "body": self._completion(ln.get("body") or {})}})
        for ln in lines[len(done):]:
            err.append({"id": self._new_id("req"), "custom_id": ln.get("custom_id"), "response": None,
                        "error": {"code": "batch_expired", "message": "This request could not be executed before "
                                  "the completion window expired."}})
        for key, rows in (("output_file_id", out), ("error_file_id", err)):
            if rows:
                fid = self._new_id("file")
                self._batch_state.files[fid] = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()
                batch[key] = fid
        batch["request_counts"] = {"total": len(lines), "completed": len(out), "failed": len(err)}
        batch["status"] = "expired" if cfg.batch_expire else "completed"

    def _completion(self, body: dict[str, Any]) -> dict[str, Any]:
        found = body.get("messages")
        messages: list[Any] = found if isinstance(found, list) else []
        prompt = next((str(m.get("content")) for m in reversed(messages) if isinstance(m, dict)
                       and m.get("role") == "user" and isinstance(m.get("content"), str)), "")
        answer = self._answer(prompt)
        prompt_tokens, cached = prompt_usage(messages, set())
        return {"id": self._new_id("chatcmpl"), "object": "chat.completion", "created": int(time.time()),
                "model": body.get("model"), "choices": [{"index": 0, "finish_reason": "stop",
                                                         "message": {"role": "assistant", "content": answer}}],
                "usage": usage_body(prompt_tokens, count_tokens(answer), cached)}
