"""The OpenAI-style Batch API over one endpoint (:class:`mediadesk.core.economy.BatchApi`): upload a
JSONL file (``POST /files``, ``purpose=batch``), create a batch (``POST /batches``), read its status
(``GET /batches/{id}``) and its output and error files (``GET /files/{id}/content``).

It rides on the profile's :class:`~mediadesk.providers.api.backend.ApiBackend`: the same client, key
(read at request time, scrubbed from every message) and messages as a direct request. Every read is
capped like the backend's (a result file of a batch is bounded by its tasks' ``max_answer_chars``).
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from mediadesk.core.backend import Answer, TaskSpec
from mediadesk.core.economy import BatchLine, BatchStatus
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.providers.api.backend import ApiBackend, thought_out
from mediadesk.providers.api.failures import Scrubber, excerpt_of, http_failure
from mediadesk.providers.api.reading import error_text, parse_completion, read_capped

__all__ = ["ApiBatchClient"]

_CHAT = "/v1/chat/completions"


class ApiBatchClient:
    """The Batch API of ``backend``'s endpoint."""

    def __init__(self, backend: ApiBackend) -> None:
        self.backend = backend
        #: The ``max_tokens`` each task's request line asked for (by ``custom_id``), for ``answer_cut``'s
        #: message; a batch read back by a later process falls back on the profile's.
        self._max_tokens: dict[str, int | None] = {}

    def jsonl(self, tasks: list[TaskSpec]) -> bytes:
        """One request line per task (``custom_id`` = the task id), as the direct request would send it."""
        out = []
        for t in tasks:
            body: dict[str, Any] = {"model": self.backend.model, "messages": self.backend._messages(t)}
            max_tokens = t.max_tokens if t.max_tokens is not None else self.backend.max_tokens
            if max_tokens is not None:
                body["max_tokens"] = max_tokens
            self._max_tokens[t.task_id] = max_tokens
            out.append(json.dumps({"custom_id": t.task_id, "method": "POST", "url": _CHAT, "body": body},
                                  ensure_ascii=False))
        return ("\n".join(out) + "\n").encode("utf-8")

    async def _call(self, method: str, path: str, **kwargs: Any) -> tuple[bytes, Scrubber]:
        client = self.backend._client
        if client is None:
            raise RuntimeError(f"ApiBackend {self.backend.name!r} is not started")
        key = await self.backend._api_key()
        scrub = Scrubber(key)
        headers = dict(self.backend.extra_headers)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        async with client.stream(method, self.backend.base_url + path, headers=headers, **kwargs) as resp:
            if not resp.is_success:
                raise http_failure(resp.status_code, await error_text(resp), resp.headers, scrub)
            raw = await read_capped(resp, self.backend._byte_cap * 64)
        if raw is None:
            raise TaskFailure(ErrorKind.ANSWER_TOO_LARGE, f"{method} {path}: the body passed its cap")
        return raw, scrub

    async def _json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        raw, scrub = await self._call(method, path, **kwargs)
        try:
            obj = json.loads(raw)
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            raise TaskFailure(ErrorKind.SERVER_ERROR, f"{method} {path}: not a JSON object: "
                                                      f"{excerpt_of(raw.decode('utf-8', 'replace'), scrub)}")
        return obj

    async def submit(self, tasks: list[TaskSpec], ref: str, window: str) -> str:
        upload = await self._json("POST", "/files", data={"purpose": "batch"},
                                  files={"file": (f"{ref}.jsonl", self.jsonl(tasks), "application/jsonl")})
        batch = await self._json("POST", "/batches", json={
            "input_file_id": upload.get("id"), "endpoint": _CHAT, "completion_window": window,
            "metadata": {"mediadesk_ref": ref}})
        return str(batch["id"])

    async def find(self, ref: str) -> str | None:
        listing = await self._json("GET", "/batches", params={"limit": 100})
        for b in listing.get("data") or []:
            meta = b.get("metadata") if isinstance(b, dict) else None
            if isinstance(meta, dict) and meta.get("mediadesk_ref") == ref:
                return str(b["id"])
        return None

    async def status(self, batch_id: str) -> BatchStatus:
        b = await self._json("GET", f"/batches/{batch_id}")
        return BatchStatus(batch_id, str(b.get("status")), b.get("output_file_id"), b.get("error_file_id"))

    async def results(self, status: BatchStatus) -> list[BatchLine]:
        lines: list[BatchLine] = []
        for fid in (status.output_file_id, status.error_file_id):
            if not fid:
                continue
            raw, scrub = await self._call("GET", f"/files/{fid}/content")
            for text in raw.decode("utf-8", "replace").splitlines():
                if text.strip():
                    lines.append(self._line(text, scrub))
        return lines

    def _line(self, text: str, scrub: Scrubber) -> BatchLine:
        try:
            obj = json.loads(text)
        except ValueError:
            obj = None
        cid = obj.get("custom_id") if isinstance(obj, dict) else None
        if not isinstance(obj, dict) or not isinstance(cid, str):
            return BatchLine("", failure=TaskFailure(ErrorKind.SERVER_ERROR, f"malformed result line: "
                                                                                f"{excerpt_of(text, scrub)}"))
        err, resp = obj.get("error"), obj.get("response")
        if isinstance(err, dict) and err.get("code") == "batch_expired":
            return BatchLine(cid, failure=TaskFailure(
                ErrorKind.TIMEOUT, "the provider's batch expired before this request ran", not_started=True))
        if not isinstance(resp, dict):
            return BatchLine(cid, failure=TaskFailure(ErrorKind.SERVER_ERROR,
                                                      f"no response: {excerpt_of(text, scrub)}"))
        status, body = resp.get("status_code"), json.dumps(resp.get("body"), ensure_ascii=False)
        if status != 200:
            code = status if isinstance(status, int) else 500
            return BatchLine(cid, failure=http_failure(code, body, httpx.Headers(), scrub))
        try:
            done = parse_completion(body.encode("utf-8"), scrub)
        except TaskFailure as exc:
            return BatchLine(cid, failure=exc)
        thought = None if done.reasoning is None else scrub(done.reasoning)
        answer = Answer(scrub(done.content), truncated=done.finish_reason == "length", usage=done.usage,
                        reasoning=thought)
        cut = thought_out(answer, self._max_tokens.get(cid, self.backend.max_tokens))
        if cut is not None:
            return BatchLine(cid, failure=cut)
        return BatchLine(cid, answer=answer)
