"""The chat simulator's other answer transports: SSE (``POST /api/generate/sse``), WebSocket JSON frames
(``GET /api/ws``) and WebSocket binary frames (``GET /api/wsb``), as real chat sites use them
(``WebSimConfig.transport``), and DeepSeek's SSE (``POST /api/v0/chat/completion``, the ``deepseek``
persona's, see :class:`DeepSeekEvents`).

All three relay the NDJSON generation of ``POST /api/generate`` over loopback with the caller's session
cookie, so admission, the one-generation rule, faults and stats have one code path. Socket frames carry the
run's ``rid`` and end a run with ``eof``; a refusal (401, 409, 429...) arrives as ``http_error``. A browser
that goes away closes the relayed request, which the generation sees as a disconnect.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import struct
import time
from collections.abc import Callable
from typing import Any

import aiohttp
from aiohttp import web

__all__ = ["BINARY_OPS", "DeepSeekEvents", "Transports", "decode_frame", "encode_frame"]

_PING_LINE = '{"t": "ping"}'

#: The binary transport's opcodes, by event name. Fields: ``generate``: request id, conversation id,
#: prompt; ``token``: request id, text; ``error``: request id, code, message; ``http_error``: request id,
#: status (decimal text), JSON body; the others: request id.
BINARY_OPS = {"generate": 0x01, "start": 0x02, "token": 0x03, "done": 0x04, "stopped": 0x05, "error": 0x06,
              "http_error": 0x07, "eof": 0x08, "ping": 0x09}  # fmt: skip
_OP_NAMES = {v: k for k, v in BINARY_OPS.items()}
_LEN = struct.Struct(">I")


def encode_frame(op: int, *fields: str) -> bytes:
    """One binary frame: the opcode byte, then each field as a big-endian u32 length and UTF-8 bytes."""
    out = bytearray([op])
    for f in fields:
        data = f.encode("utf-8")
        out += _LEN.pack(len(data)) + data
    return bytes(out)


def decode_frame(data: bytes) -> tuple[int, list[str]]:
    """(opcode, fields) of a binary frame; ValueError if it is malformed."""
    if not data:
        raise ValueError("empty frame")
    fields, at = [], 1
    while at < len(data):
        if at + 4 > len(data):
            raise ValueError("truncated field length")
        (n,) = _LEN.unpack_from(data, at)
        at += 4
        if at + n > len(data):
            raise ValueError("truncated field")
        fields.append(data[at : at + n].decode("utf-8"))
        at += n
    return data[0], fields


def _binary_event(rid: str, event: dict[str, Any]) -> bytes:
    """An NDJSON event (or ``http_error`` / ``eof``) as a binary frame."""
    kind = str(event.get("t"))
    if kind == "token":
        return encode_frame(BINARY_OPS["token"], rid, str(event.get("d", "")))
    if kind == "error":
        return encode_frame(BINARY_OPS["error"], rid, str(event.get("code", "")), str(event.get("message", "")))
    if kind == "http_error":
        body = json.dumps(event.get("body", {}), ensure_ascii=False)
        return encode_frame(BINARY_OPS["http_error"], rid, str(event.get("status", 0)), body)
    return encode_frame(BINARY_OPS.get(kind, BINARY_OPS["ping"]), rid)


def _json_event(rid: str, event: dict[str, Any]) -> str:
    return json.dumps({**event, "rid": rid}, ensure_ascii=False)


def _sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n".encode()


class DeepSeekEvents:
    """One run's NDJSON generation events as DeepSeek's chat SSE (as chat.deepseek.com streams it).

    ``event: ready`` first; the answer is a document ``{"response": {...}}`` changed by patch events: the
    first ``{"v": {"response": ...}}`` is the whole document with a THINK fragment holding the first piece
    of thinking; ``{"p": "response/fragments/-1/content", "o": "APPEND", "v": "..."}`` appends to the last
    fragment and a bare ``{"v": "..."}`` continues the last path; a RESPONSE fragment is appended to
    ``response/fragments`` with the first piece of the answer; the end is a BATCH on ``response`` setting
    ``status`` to FINISHED (INCOMPLETE when stopped), then ``event: finish``, ``update_session``, ``title``
    and ``event: close``. ``new_format``: the same run in a format of another shape (``{"choice": {"delta":
    {"kind": "reasoning" | "answer", "chunk": "..."}}}``, then ``{"choice": {"finished": true}}``), as a site
    that changed its stream."""

    def __init__(self, *, new_format: bool = False) -> None:
        self.new_format = new_format
        self._kind: str | None = None  # the last fragment's type: "THINK" | "RESPONSE"
        self._path: str | None = None  # the path the last patch event named
        self._tokens = 0

    def convert(self, event: dict[str, Any]) -> bytes:
        """The SSE bytes for one generation event (b"" for none)."""
        kind = event.get("t")
        if kind == "start":
            return (_sse({"request_message_id": 1, "response_message_id": 2}, "ready")
                    + _sse({"updated_at": time.time()}, "update_session"))
        if kind == "ping":
            return b": keep-alive\n\n"
        if kind in ("think", "token"):
            self._tokens += 1
            text = str(event.get("d", ""))
            if self.new_format:
                delta = {"kind": "reasoning" if kind == "think" else "answer", "chunk": text}
                return _sse({"choice": {"delta": delta}})
            return self._piece("THINK" if kind == "think" else "RESPONSE", text)
        if kind in ("done", "stopped"):
            if self.new_format:
                return _sse({"choice": {"finished": kind == "done"}}) + _sse({}, "close")
            status = "FINISHED" if kind == "done" else "INCOMPLETE"
            batch = {"p": "response", "o": "BATCH",
                     "v": [{"p": "accumulated_token_usage", "v": self._tokens}, {"p": "status", "v": status}]}
            return (_sse(batch) + _sse({}, "finish") + _sse({"updated_at": time.time()}, "update_session")
                    + _sse({"content": "SimChat"}, "title")
                    + _sse({"click_behavior": "none", "auto_resume": False}, "close"))
        if kind == "error":
            return _sse({"code": event.get("code"), "message": event.get("message")}, "error")
        return b""

    def _piece(self, kind: str, text: str) -> bytes:
        content = "response/fragments/-1/content"
        fragment: dict[str, Any] = {"id": 1 if kind == "THINK" else 2, "type": kind, "content": text,
                                    "references": [], "stage_id": 1}
        if kind == "THINK":
            fragment["elapsed_secs"] = None
        if self._kind is None:  # the first piece: the whole document
            self._kind, self._path = kind, None
            return _sse({"v": {"response": {
                "message_id": 2, "parent_id": 1, "model": "", "role": "ASSISTANT", "thinking_enabled": True,
                "ban_edit": False, "ban_regenerate": False, "status": "WIP", "accumulated_token_usage": 0,
                "files": [], "tips": [], "inserted_at": time.time(), "search_enabled": False,
                "search_status": None, "search_results": None, "fragments": [fragment]}}})
        if kind != self._kind:  # the thinking is over: its time, then the answer's fragment
            self._kind, self._path = kind, "response/fragments"
            return (_sse({"p": "response/fragments/-1/elapsed_secs", "o": "SET", "v": 1.5})
                    + _sse({"p": "response/fragments", "o": "APPEND", "v": [fragment]}))
        if self._path != content:
            self._path = content
            return _sse({"p": content, "o": "APPEND", "v": text})
        return _sse({"v": text})


def _client_gone(request: web.Request) -> bool:
    transport = request.transport
    return transport is None or transport.is_closing()


class Transports:
    """Request handlers of the SSE and WebSocket transports of one simulator."""

    def __init__(
        self, generate_url: Callable[[], str], cookie_name: str, personas: Callable[[], tuple[str, ...]] = tuple
    ) -> None:
        self._generate_url = generate_url
        self._cookie = cookie_name
        self._personas = personas
        self._sockets: set[web.WebSocketResponse] = set()

    async def close(self) -> None:
        """End open sockets (before the server stops: a socket handler would hold its shutdown)."""
        await asyncio.gather(*(ws.close() for ws in list(self._sockets)), return_exceptions=True)

    async def _upstream(
        self, request: web.Request, body: bytes
    ) -> tuple[aiohttp.ClientSession, aiohttp.ClientResponse]:
        token = request.cookies.get(self._cookie, "")
        headers = {"Content-Type": "application/json", "Cookie": f"{self._cookie}={token}"}
        session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None))
        try:
            up = await session.post(self._generate_url(), data=body, headers=headers)
        except BaseException:
            await session.close()
            raise
        return session, up

    async def generate_sse(self, request: web.Request) -> web.StreamResponse:
        def event(line: str) -> bytes:
            return b": ping\n\n" if line == _PING_LINE else f"data: {line}\n\n".encode()

        return await self._relay_sse(request, await request.read(), event)

    async def _relay_sse(
        self, request: web.Request, body: bytes, event: Callable[[str], bytes | None]
    ) -> web.StreamResponse:
        """The upstream's NDJSON answer to ``body`` relayed as SSE: ``event`` turns each line into the
        bytes to write (None: nothing); an upstream refusal is passed on as it came."""
        session, up = await self._upstream(request, body)
        try:
            if up.status != 200:
                return web.Response(body=await up.read(), status=up.status, content_type="application/json")
            resp = web.StreamResponse(headers={"Content-Type": "text/event-stream; charset=utf-8",
                                               "Cache-Control": "no-store"})  # fmt: skip
            await resp.prepare(request)
            with contextlib.suppress(ConnectionError, RuntimeError):
                async for raw in up.content:
                    line = raw.decode("utf-8").strip()
                    if _client_gone(request):
                        break
                    if line and (out := event(line)):
                        await resp.write(out)
                await resp.write_eof()
            return resp
        finally:
            up.close()
            await session.close()

    async def generate_deepseek(self, request: web.Request) -> web.StreamResponse:
        """``POST /api/v0/chat/completion``: DeepSeek's request (``chat_session_id``, ``prompt``, ...; the
        page adds ``client_stream_id``, the run's id its stop names) answered in DeepSeek's SSE."""
        try:
            asked = json.loads(await request.read())
        except ValueError:
            asked = None
        if not isinstance(asked, dict):
            return web.json_response({"error": "bad_request", "message": "a JSON object is required"}, status=400)
        body = {"prompt": asked.get("prompt"), "conversation_id": str(asked.get("chat_session_id") or ""),
                "request_id": str(asked.get("client_stream_id") or "")}
        events = DeepSeekEvents(new_format="ds_new_format" in self._personas())
        return await self._relay_sse(request, json.dumps(body).encode(), lambda line: events.convert(json.loads(line)))

    async def websocket(self, request: web.Request) -> web.WebSocketResponse:
        """``GET /api/ws``: JSON text frames."""
        return await self._socket(request, binary=False)

    async def websocket_binary(self, request: web.Request) -> web.WebSocketResponse:
        """``GET /api/wsb``: binary frames (see :data:`BINARY_OPS`, :func:`encode_frame`)."""
        return await self._socket(request, binary=True)

    async def _socket(self, request: web.Request, *, binary: bool) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(timeout=2.0)  # a close (at stop) waits this long for the client's answer
        await ws.prepare(request)
        self._sockets.add(ws)
        relays: set[asyncio.Task[None]] = set()
        try:
            async for msg in ws:
                body = self._generate_body(msg, binary)
                if body is not None:
                    task = asyncio.ensure_future(self._relay(request, ws, body, binary))
                    relays.add(task)
                    task.add_done_callback(relays.discard)
        finally:
            self._sockets.discard(ws)
            for task in list(relays):
                task.cancel()
        return ws

    @staticmethod
    def _generate_body(msg: aiohttp.WSMessage, binary: bool) -> dict[str, Any] | None:
        """The ``/api/generate`` body a ``generate`` frame asks for; None for any other frame."""
        if binary and msg.type == aiohttp.WSMsgType.BINARY:
            try:
                op, fields = decode_frame(msg.data)
            except ValueError:
                return None
            if op != BINARY_OPS["generate"] or len(fields) != 3:
                return None
            return {"request_id": fields[0], "conversation_id": fields[1], "prompt": fields[2]}
        if not binary and msg.type == aiohttp.WSMsgType.TEXT:
            try:
                body = json.loads(msg.data)
            except ValueError:
                return None
            if isinstance(body, dict) and body.get("t") == "generate":
                return {k: v for k, v in body.items() if k != "t"}
        return None

    async def _relay(
        self, request: web.Request, ws: web.WebSocketResponse, body: dict[str, Any], binary: bool
    ) -> None:
        rid = str(body.get("request_id") or "")

        async def send(event: dict[str, Any]) -> None:
            if binary:
                await ws.send_bytes(_binary_event(rid, event))
            else:
                await ws.send_str(_json_event(rid, event))

        session, up = await self._upstream(request, json.dumps(body).encode())
        try:
            with contextlib.suppress(ConnectionError, RuntimeError):
                if up.status != 200:
                    try:
                        err = await up.json(content_type=None)
                    except ValueError:
                        err = {}
                    await send({"t": "http_error", "status": up.status, "body": err})
                    return
                async for raw in up.content:
                    line = raw.decode("utf-8").strip()
                    if line:
                        await send(json.loads(line))
                await send({"t": "eof"})
        finally:
            up.close()
            await session.close()
