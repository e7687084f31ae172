"""The chat simulator's personas: switchable behaviours that make the chat page act like chat UIs we did not
write (chat frameworks, Open WebUI, Chainlit, LibreChat-like pages, DeepSeek's public chat), set by
``WebSimConfig.personas``, ``POST /admin/persona`` or the CLI's ``--persona``.

``deepseek`` (with ``answer_style = "markdown"``): the page behaves like chat.deepseek.com. It POSTs to
``/api/v0/chat/completion`` and reads DeepSeek's SSE (patch events on a ``response`` document: a THINK
fragment, then a RESPONSE fragment, a BATCH setting the status FINISHED, ``event: finish``, ``event: close``),
shows the thinking in a collapsible block above the answer and renders the answer's Markdown (a table,
nested lists, a code block with its language) as HTML. Its answers are :func:`web_server.deepseek_answer`
with a thinking text before them (both recorded per generation). With it: ``ds_new_format`` (the stream
comes in another format, one a DeepSeek decoder does not know; the page still reads it),
``ds_page_differs`` (the page shows a sentence the stream never carried) and ``ds_plain`` (its answers are
:func:`web_server.markdown_answer`, which the page's HTML converts back to exactly).

``claude``, ``kimi``, ``chatgpt`` (with ``answer_style = "markdown"``): the page behaves like claude.ai,
kimi.com, chatgpt.com in the same way: each site's request, route and stream format
(:mod:`mediadesk.sim._site_streams`), its DOM landmarks (``web_assets/sites.js``), the same answers and
thinking as ``deepseek``. A site persona's usage-limit banner (``set_limit``) carries the site's landmark.

``paste_limit``: the page has a file input (``input.attach[type=file]``, hidden, as sites hide theirs behind
a paperclip) beside the prompt box, as sites that take a long prompt only as a file do. The text of the file
chosen there goes with the next send (``attachment`` in the generate body; the ndjson, sse and websocket
transports of the plain page) and the model answers that text: the generation's ``prompt`` is the file's
text, received in full, and its ``typed`` the text typed in the box.

Most are page-side (``web_assets/personas.js``, ``chat.js``, ``markdown.js``, commented where each acts). The
server side is :class:`PersonaSite`: the switches (checked by :func:`check_personas`) and the ``noise``
endpoints (a long poll, telemetry beacons, a presence socket; counted on ``/stats``), which never create a
generation.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any, Protocol

import aiohttp
from aiohttp import web

from mediadesk.sim._site_streams import SITE_STREAMS

__all__ = ["PERSONAS", "SITE_PERSONAS", "PersonaSettings", "PersonaSite", "check_personas"]

#: ``WebSimConfig.personas`` values.
PERSONAS = ("footer", "icon_avatar", "status_widget", "late_render", "noise", "code_header", "css_bold", "paste_limit")
#: Personas that change the ``deepseek`` persona (they need it).
DEEPSEEK_MODIFIERS = ("ds_new_format", "ds_page_differs", "ds_plain")
#: Personas that make the page one real site (``WebSimConfig.personas`` takes them too): the sites of
#: :data:`~mediadesk.sim._site_streams.SITE_STREAMS` (at most one at a time) and ``deepseek``'s modifiers.
SITES = tuple(SITE_STREAMS)
SITE_PERSONAS = (*SITES, *DEEPSEEK_MODIFIERS)
#: Personas that change how the page renders Markdown (they need ``answer_style = "markdown"``).
MARKDOWN_PERSONAS = ("code_header", "css_bold", *SITES)
#: Upper bound of ``start_delay_ms`` / ``render_delay_ms``.
MAX_DELAY_MS = 60_000

#: ``noise``: how long the server holds a long poll, the presence frames' period and a presence
#: socket's life (real seconds).
POLL_HOLD_S = 0.4
PRESENCE_EVERY_S = 0.2
PRESENCE_LIFE_S = 0.7
POLL_EVENT = b'data: {"type":"done","updates":[]}\n\n'
PRESENCE_FRAME = '{"type":"presence","online":3}'
_CLOSED = (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSING, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR)


def _delay(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_DELAY_MS:
        raise ValueError(f"{name} must be an integer in 0..{MAX_DELAY_MS}, got {value!r}")
    return value


def check_personas(
    personas: object, start_delay_ms: object, render_delay_ms: object, answer_style: str
) -> tuple[str, ...]:
    """Validate the persona settings; the personas as a tuple in the order given, without repeats.

    ``personas``: a sequence of names of :data:`PERSONAS` or :data:`SITE_PERSONAS`, or one string of names
    separated by commas."""
    if isinstance(personas, str):
        names = [p.strip() for p in personas.split(",") if p.strip()]
    elif isinstance(personas, list | tuple) and all(isinstance(p, str) for p in personas):
        names = list(personas)
    else:
        raise ValueError(f"personas must be a list of names, got {personas!r}")
    if unknown := [p for p in names if p not in PERSONAS + SITE_PERSONAS]:
        raise ValueError(f"unknown persona(s) {', '.join(map(repr, unknown))}; "
                         f"known: {', '.join(PERSONAS + SITE_PERSONAS)}")
    out = tuple(dict.fromkeys(names))
    _delay("start_delay_ms", start_delay_ms)
    _delay("render_delay_ms", render_delay_ms)
    if (md := [p for p in out if p in MARKDOWN_PERSONAS]) and answer_style != "markdown":
        raise ValueError(f"persona(s) {', '.join(md)} need answer_style='markdown'")
    if (mods := [p for p in out if p in DEEPSEEK_MODIFIERS]) and "deepseek" not in out:
        raise ValueError(f"persona(s) {', '.join(mods)} need the persona 'deepseek'")
    if len(sites := [p for p in out if p in SITES]) > 1:
        raise ValueError(f"one site persona at a time, got {', '.join(sites)}")
    return out


class PersonaSettings(Protocol):
    """The persona fields of the server's config (``WebSimConfig``), where the switches live."""

    personas: tuple[str, ...]
    start_delay_ms: int
    render_delay_ms: int
    transport: str
    answer_style: str


class PersonaSite:
    """The server side of the personas: switches, page attributes, the ``noise`` endpoints, their counts.

    ``config`` gives the server's current config (the switches live there);
    ``stopping`` tells whether the server is stopping (held requests then end at once);
    ``transports`` are the valid ``WebSimConfig.transport`` values (switchable here too)."""

    def __init__(
        self, config: Callable[[], PersonaSettings], stopping: Callable[[], bool], transports: tuple[str, ...]
    ) -> None:
        self._config = config
        self._stopping = stopping
        self._transports = transports
        self._sockets: set[web.WebSocketResponse] = set()
        self._wake = asyncio.Event()  # set when the server stops: held polls answer at once
        self.counts: dict[str, int] = {}
        self.reset_counts()

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get("/api/poll", self._h_poll),
            web.post("/api/telemetry", self._h_telemetry),
            web.get("/api/presence", self._h_presence),
            web.get("/admin/persona", self._h_admin),
            web.post("/admin/persona", self._h_admin),
        ]

    # ----------------------------------------------------------------------------- switches
    def set(
        self,
        personas: object = (),
        *,
        start_delay_ms: int | None = None,
        render_delay_ms: int | None = None,
        transport: str | None = None,
    ) -> None:
        """Replace the persona set (later page loads; ``start_delay_ms`` and ``transport``: later runs
        and page loads). A None delay or transport is left as it is. Nothing changes on a bad value."""
        c = self._config()
        start = c.start_delay_ms if start_delay_ms is None else start_delay_ms
        render = c.render_delay_ms if render_delay_ms is None else render_delay_ms
        if transport is not None and transport not in self._transports:
            raise ValueError(f"transport must be one of {', '.join(self._transports)}, got {transport!r}")
        names = check_personas(personas, start, render, c.answer_style)
        c.personas, c.start_delay_ms, c.render_delay_ms = names, start, render
        if transport is not None:
            c.transport = transport

    def state(self) -> dict[str, Any]:
        c = self._config()
        return {"personas": list(c.personas), "start_delay_ms": c.start_delay_ms,
                "render_delay_ms": c.render_delay_ms, "transport": c.transport}  # fmt: skip

    def page_values(self) -> dict[str, str]:
        """The chat page's template values: ``data-personas`` (space-separated) and the render delay."""
        c = self._config()
        return {"personas": " ".join(c.personas), "render_delay_ms": str(c.render_delay_ms)}

    async def _h_admin(self, request: web.Request) -> web.Response:
        """``POST {"personas", "start_delay_ms", "render_delay_ms", "transport"}``: :meth:`set` (a field
        left out is unchanged, ``personas`` included); both: the settings in force."""
        if request.method == "POST":
            try:
                body = await request.json()
                known = {"personas", "start_delay_ms", "render_delay_ms", "transport"}
                if not isinstance(body, dict) or set(body) - known:
                    raise ValueError(f"known fields: {', '.join(sorted(known))}")
                personas = body.pop("personas", self._config().personas)
                self.set(personas, **body)
            except (ValueError, TypeError) as exc:
                return web.json_response({"error": str(exc)}, status=400)
        return web.json_response(self.state())

    # ----------------------------------------------------------------------------- noise
    def reset_counts(self) -> None:
        self.counts = {"polls": 0, "beacons": 0, "presence_sockets": 0}

    async def close(self) -> None:
        """Answer the held polls and close the open presence sockets (before the server stops: their
        handlers would hold it). Requests after it are served as before (a restart)."""
        wake, self._wake = self._wake, asyncio.Event()
        wake.set()
        await asyncio.gather(*(ws.close() for ws in list(self._sockets)), return_exceptions=True)

    async def _h_poll(self, request: web.Request) -> web.StreamResponse:
        """A long poll: held :data:`POLL_HOLD_S`, then one ``done`` event of ``text/event-stream``."""
        self.counts["polls"] += 1
        if not self._stopping():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), POLL_HOLD_S)
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream; charset=utf-8",
                                           "Cache-Control": "no-store"})  # fmt: skip
        with contextlib.suppress(ConnectionError, RuntimeError):
            await resp.prepare(request)
            await resp.write(POLL_EVENT)
            await resp.write_eof()
        return resp

    async def _h_telemetry(self, request: web.Request) -> web.StreamResponse:
        """A beacon (``sendBeacon`` or a keepalive fetch): read, counted, answered in small chunks."""
        await request.read()
        self.counts["beacons"] += 1
        resp = web.StreamResponse(headers={"Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"})
        resp.enable_chunked_encoding()
        with contextlib.suppress(ConnectionError, RuntimeError):
            await resp.prepare(request)
            await resp.write(b"ok")
            await resp.write(b"\n")
            await resp.write_eof()
        return resp

    async def _h_presence(self, request: web.Request) -> web.WebSocketResponse:
        """A presence socket: a JSON text frame every :data:`PRESENCE_EVERY_S`, closed by the server
        after :data:`PRESENCE_LIFE_S` (the page reconnects)."""
        ws = web.WebSocketResponse(timeout=2.0)
        await ws.prepare(request)
        self.counts["presence_sockets"] += 1
        self._sockets.add(ws)
        loop = asyncio.get_running_loop()
        end = loop.time() + PRESENCE_LIFE_S
        next_frame = loop.time()
        try:
            while not ws.closed and not self._stopping() and loop.time() < end:
                if loop.time() >= next_frame:
                    await ws.send_str(PRESENCE_FRAME)
                    next_frame += PRESENCE_EVERY_S
                wait = min(next_frame, end) - loop.time()
                if wait <= 0:
                    continue
                try:
                    msg = await ws.receive(timeout=wait)
                except TimeoutError:
                    continue
                if msg.type in _CLOSED:
                    break
        except (ConnectionError, RuntimeError):
            pass
        finally:
            self._sockets.discard(ws)
            with contextlib.suppress(Exception):
                await ws.close()
        return ws
