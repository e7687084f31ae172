"""The chat simulator's other answer transports: SSE (``POST /api/generate/sse``), WebSocket JSON frames
(``GET /api/ws``) and WebSocket binary frames (``GET /api/wsb``), as real chat sites use them
(``WebSimConfig.transport``), and the site personas' streams (``deepseek``, ``claude``...: each site's own
route and format, see :mod:`mediadesk.sim._site_streams`).

All of them relay the NDJSON generation of ``POST /api/generate`` over loopback with the caller's session
cookie, so admission, the one-generation rule, faults and stats have one code path. Socket frames carry the
run's ``rid`` and end a run with ``eof``; a refusal (401, 409, 429...) arrives as ``http_error``. A browser
that goes away closes the relayed request, which the generation sees as a disconnect.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import struct
from collections.abc import Callable
from typing import Any

import aiohttp
from aiohttp import web

from mediadesk.sim._site_streams import SSE, SiteStream

__all__ = ["BINARY_OPS", "Transports", "decode_frame", "encode_frame"]

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

        return await self._relay_stream(request, await request.read(), event, SSE)

    async def _relay_stream(
        self, request: web.Request, body: bytes, event: Callable[[str], bytes | None], content_type: str
    ) -> web.StreamResponse:
        """The upstream's NDJSON answer to ``body`` relayed as a stream of ``content_type`` (SSE, Connect
        frames...): ``event`` turns each line into the bytes to write (None or b"": nothing); an upstream
        refusal is passed on as it came."""
        session, up = await self._upstream(request, body)
        try:
            if up.status != 200:
                return web.Response(body=await up.read(), status=up.status, content_type="application/json")
            resp = web.StreamResponse(headers={"Content-Type": content_type, "Cache-Control": "no-store"})
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

    async def site_stream(self, site: SiteStream, request: web.Request) -> web.StreamResponse:
        """A site persona's route (:data:`~mediadesk.sim._site_streams.SITE_STREAMS`): the site's request
        answered in the site's own stream."""
        body = site.generate_body(await request.read(), request.match_info)
        if body is None:
            return web.json_response({"error": "bad_request", "message": "not a request of this site"}, status=400)
        events = site.converter(self._personas(), body)
        return await self._relay_stream(request, json.dumps(body).encode(),
                                        lambda line: events.convert(json.loads(line)), site.content_type)

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
