"""The chat simulator's other answer transports: SSE (``POST /api/generate/sse``) and WebSocket
frames (``GET /api/ws``), as real chat sites use them (``WebSimConfig.transport``).

Both relay the NDJSON generation of ``POST /api/generate`` over loopback with the caller's session
cookie, so admission, the one-generation rule, faults and stats have one code path: the SSE endpoint
re-frames each line as a ``data:`` event (keep-alives as ``: ping`` comments); the socket sends each
line as a frame tagged with its ``rid`` (the run's request id) and ends a run with ``{"t": "eof"}``;
a refusal (401, 409, 429...) arrives as ``{"t": "http_error", "status", "body"}``. A browser that goes
away closes the relayed request, which the generation sees as a disconnect.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

import aiohttp
from aiohttp import web

__all__ = ["Transports"]

_PING_LINE = '{"t": "ping"}'


def _client_gone(request: web.Request) -> bool:
    transport = request.transport
    return transport is None or transport.is_closing()


class Transports:
    """Request handlers of the SSE and WebSocket transports of one simulator."""

    def __init__(self, generate_url: Callable[[], str], cookie_name: str) -> None:
        self._generate_url = generate_url
        self._cookie = cookie_name
        self._sockets: set[web.WebSocketResponse] = set()

    async def close(self) -> None:
        """End open sockets (before the server stops: a socket handler would hold its shutdown)."""
        for ws in list(self._sockets):
            with contextlib.suppress(Exception):
                await ws.close()

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
        session, up = await self._upstream(request, await request.read())
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
                    if line:
                        await resp.write(b": ping\n\n" if line == _PING_LINE else f"data: {line}\n\n".encode())
                await resp.write_eof()
            return resp
        finally:
            up.close()
            await session.close()

    async def websocket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._sockets.add(ws)
        relays: set[asyncio.Task[None]] = set()
        try:
            async for msg in ws:
                if msg.type != aiohttp.WSMsgType.TEXT:
                    continue
                with contextlib.suppress(ValueError):
                    body = json.loads(msg.data)
                    if isinstance(body, dict) and body.get("t") == "generate":
                        task = asyncio.ensure_future(self._relay(request, ws, body))
                        relays.add(task)
                        task.add_done_callback(relays.discard)
        finally:
            self._sockets.discard(ws)
            for task in list(relays):
                task.cancel()
        return ws

    async def _relay(self, request: web.Request, ws: web.WebSocketResponse, body: dict[str, Any]) -> None:
        rid = str(body.get("request_id") or "")
        payload = json.dumps({k: v for k, v in body.items() if k != "t"}).encode()
        session, up = await self._upstream(request, payload)
        try:
            with contextlib.suppress(ConnectionError, RuntimeError):
                if up.status != 200:
                    try:
                        err = await up.json(content_type=None)
                    except ValueError:
                        err = {}
                    await ws.send_str(json.dumps({"rid": rid, "t": "http_error", "status": up.status, "body": err}))
                    return
                async for raw in up.content:
                    line = raw.decode("utf-8").strip()
                    if not line:
                        continue
                    event = json.loads(line)
                    event["rid"] = rid
                    await ws.send_str(json.dumps(event, ensure_ascii=False))
                await ws.send_str(json.dumps({"rid": rid, "t": "eof"}))
        finally:
            up.close()
            await session.close()
