"""Watch a chat page's network for the stream that carries the answer (the completion's second signal).

Why: a text plateau is a weak completion signal. A model that pauses longer than ``settle_ms`` is cut,
and a short ``settle_ms`` cannot be chosen safely. Chat sites stream their answer over the network (SSE
``text/event-stream``, a chunked NDJSON/text fetch, or WebSocket frames), and the end of that stream is
the site's own "done". While a run is armed this watcher follows every such stream the page starts and
reports one aggregate state:

* ``"none"``: no stream seen (the DOM rule decides, as before);
* ``"open"``: at least one stream is running: the answer is NEVER done, whatever the DOM shows;
* ``"ended"``: every stream seen has ended: the page may call it done after a short settle window.

HTTP streams end on ``requestfinished`` or ``requestfailed`` (a page that closes its EventSource
before the last chunk ends it as ``net::ERR_ABORTED``, and ``Response.finished()`` would never
resolve). A WebSocket has no end of its own per answer: its stream ends on a terminal frame
(``{"done": true}``, ``{"type": "done"}``, ``[DONE]``, a ``finish_reason``...) or when it closes;
keep-alive frames (ping/pong, socket.io's ``2``/``3``) are not activity, and a socket that carried no
frame of content for ``ws_quiet_s`` without a terminal frame no longer counts (an unknown protocol
must not hold the run until ``max_run_s``). Frames after an end frame (a site's title or tag events)
reopen the stream only while they keep coming (0.5 s); a finish reason of ``tool_calls`` is no end.

Listeners are attached once per page (a socket opened at page load must be seen), and the watcher
only counts what starts after :meth:`StreamWatch.arm`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

__all__ = ["StreamWatch", "is_stream_response", "ws_frame_kind"]

log = logging.getLogger(__name__)

#: Content types of a streamed answer; a chunked text or binary body counts too.
_STREAM_TYPES = ("text/event-stream", "ndjson", "jsonl", "json-seq", "jsonlines")
_CHUNKED_TYPES = ("text/plain", "application/octet-stream")
_RESOURCE_TYPES = frozenset({"fetch", "xhr", "eventsource", "other"})
_WS_QUIET_S = 5.0
_WS_AFTER_END_QUIET_S = 0.5

_KEEPALIVE_TEXT = re.compile(r"^\s*(?:[23]|[23]probe|ping|pong|heartbeat|keepalive)\s*$", re.I)  # socket.io: 2/3
_KEEPALIVE_WORDS = frozenset({"ping", "pong", "heartbeat", "keepalive", "keep-alive"})
_TERMINAL_WORDS = frozenset({"done", "end", "finish", "finished", "complete", "completed", "stopped", "stop",
                             "error", "eof", "message_stop", "response.completed", "response.done", "stream_end"})


def is_stream_response(resource_type: str, headers: dict[str, str]) -> bool:
    """True for a response whose body is an answer stream (by its content type; chunked text counts)."""
    if resource_type not in _RESOURCE_TYPES:
        return False
    ctype = headers.get("content-type", "").lower()
    if resource_type == "eventsource" or any(t in ctype for t in _STREAM_TYPES):
        return True
    chunked = "chunked" in headers.get("transfer-encoding", "").lower() or "content-length" not in headers
    return chunked and any(t in ctype for t in _CHUNKED_TYPES)


def _is_terminal(obj: Any) -> bool:
    if not isinstance(obj, dict):
        return False
    if obj.get("done") is True or obj.get("is_final") is True or obj.get("final") is True:
        return True
    for key in ("t", "type", "event", "status", "op"):
        v = obj.get(key)
        if isinstance(v, str) and v.lower() in _TERMINAL_WORDS:
            return True
    if _finished(obj.get("finish_reason")):
        return True
    choices = obj.get("choices")
    if isinstance(choices, list) and any(isinstance(c, dict) and _finished(c.get("finish_reason")) for c in choices):
        return True
    return any(_is_terminal(obj.get(k)) for k in ("data", "payload", "message") if isinstance(obj.get(k), dict))


def _finished(reason: Any) -> bool:
    """A finish reason that ends the answer (a tool call goes on with more of it)."""
    return bool(reason) and reason not in ("tool_calls", "function_call")


def _kind_word(obj: Any) -> str | None:
    for key in ("t", "type", "event", "op"):
        v = obj.get(key)
        if isinstance(v, str):
            return v.lower()
    return None


def ws_frame_kind(payload: str | bytes) -> str:
    """``"keepalive"``, ``"terminal"`` (the answer's stream ended) or ``"content"``."""
    text = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else payload
    if not text.strip() or _KEEPALIVE_TEXT.match(text):
        return "keepalive"
    if "[DONE]" in text:
        return "terminal"
    body = text.strip()
    m = re.match(r"^\d+(\[.*)$", body, re.S)  # socket.io: 42["event", {...}]
    if m:
        body = m.group(1)
    try:
        obj = json.loads(body)
    except ValueError:
        return "content"
    items = obj if isinstance(obj, list) else [obj]
    dicts = [o for o in items if isinstance(o, dict)]
    if dicts and all(_kind_word(o) in _KEEPALIVE_WORDS for o in dicts):
        return "keepalive"
    return "terminal" if any(_is_terminal(o) for o in items) else "content"


class _Socket:
    """One WebSocket of the page, as this run sees it."""

    def __init__(self) -> None:
        self.active = False  # carried content since arm, no terminal frame yet
        self.ended = False
        self.ended_once = False  # an end frame was seen in this run
        self.quiet: asyncio.TimerHandle | None = None


class StreamWatch:
    """Follows the streams of one page. ``on_change(state)`` is called on the event loop each time
    the aggregate state changes while armed."""

    def __init__(self, page: Any, *, ws_quiet_s: float = _WS_QUIET_S) -> None:
        # No reference to the page is kept: the page's listeners hold this watcher, not the reverse,
        # so a driver's weak map of watchers lets closed pages go.
        self.ws_quiet_s = ws_quiet_s
        self.on_change: Callable[[str], None] | None = None
        self._armed = False
        self._pending: set[Any] = set()  # requests started since arm, not yet known as streams
        self._open: set[Any] = set()  # HTTP streams running
        self._http_ended = 0
        self._started: dict[str, int] = {}  # requests started since arm, by URL (see news())
        self._sockets: dict[Any, _Socket] = {}
        self._state = "none"
        self._news: dict[str, Any] = self.news()
        #: Bumped by every arm/disarm: a state change queued for an earlier run is not delivered.
        self.generation = 0
        #: What the streams did, for the task log ("sse /api/x finished", ...).
        self.events: list[str] = []
        page.on("request", self._on_request)
        page.on("response", self._on_response)
        page.on("requestfinished", self._on_request_end)
        page.on("requestfailed", self._on_request_end)
        page.on("websocket", self._on_websocket)

    # --- control ----------------------------------------------------------------------------------

    @property
    def state(self) -> str:
        return self._state

    def arm(self, on_change: Callable[[str], None] | None = None) -> None:
        """Start counting: streams that start from now on are this run's."""
        self.disarm()
        self.on_change = on_change
        self._armed = True

    def disarm(self) -> None:
        self.generation += 1
        self._armed = False
        self.on_change = None
        self._pending.clear()
        self._open.clear()
        self._http_ended = 0
        self._started = {}
        for sock in self._sockets.values():
            sock.active = sock.ended = sock.ended_once = False
            if sock.quiet is not None:
                sock.quiet.cancel()
                sock.quiet = None
        self._state = "none"
        self._news = self.news()
        self.events = []

    def news(self) -> dict[str, Any]:
        """What the page is told with each change: the state, the open HTTP streams' URLs each with
        the number of requests to it started since arm (the page counts the Resource Timing entries
        of as many requests and may see their end before this watcher's news reaches it), and
        whether a WebSocket streams (its end only this watcher sees)."""
        urls = {r.url: self._started.get(r.url, 1) for r in self._open}
        return {"state": self._state, "urls": urls, "ws": any(s.active for s in self._sockets.values())}

    def _update(self) -> None:
        if not self._armed:
            return
        ws_active = any(s.active for s in self._sockets.values())
        ws_ended = any(s.ended for s in self._sockets.values())
        if self._open or ws_active:
            state = "open"
        elif self._http_ended or ws_ended:
            state = "ended"
        else:
            state = "none"
        self._state = state
        news = self.news()
        # A change of the state, or of which streams are open (a second one starting while the first
        # runs): the page must never count the end of the first as the end of both.
        if news != self._news:
            self._news = news
            log.debug("stream news: %s", news)
            if self.on_change is not None:
                self.on_change(state)

    # --- HTTP -------------------------------------------------------------------------------------

    def _on_request(self, request: Any) -> None:
        if self._armed and request.resource_type in _RESOURCE_TYPES:
            self._pending.add(request)
            self._started[request.url] = self._started.get(request.url, 0) + 1

    def _on_response(self, response: Any) -> None:
        request = response.request
        if request not in self._pending:
            return
        self._pending.discard(request)
        try:
            headers = response.headers
        except Exception:  # a response of a closed page
            return
        if is_stream_response(request.resource_type, headers):
            self._open.add(request)
            self.events.append(f"stream {request.method} {_path(request.url)} ({headers.get('content-type', '?')})")
            self._update()

    def _on_request_end(self, request: Any) -> None:
        self._pending.discard(request)
        if request in self._open:
            self._open.discard(request)
            self._http_ended += 1
            failure = request.failure if hasattr(request, "failure") else None
            self.events.append(f"stream {_path(request.url)} " + (f"failed ({failure})" if failure else "finished"))
            self._update()

    # --- WebSocket --------------------------------------------------------------------------------

    def _on_websocket(self, ws: Any) -> None:
        sock = _Socket()
        self._sockets[ws] = sock
        ws.on("framereceived", lambda payload: self._on_frame(ws, payload))
        ws.on("framesent", lambda payload: self._on_frame(ws, payload, sent=True))
        ws.on("close", lambda _ws: self._on_ws_close(ws))

    def _on_frame(self, ws: Any, payload: str | bytes, *, sent: bool = False) -> None:
        sock = self._sockets.get(ws)
        if sock is None or not self._armed or sent:
            return
        kind = ws_frame_kind(payload)
        if kind == "keepalive":
            return
        if kind == "terminal":
            if sock.active or not sock.ended:
                self.events.append(f"websocket {_path(ws.url)}: end frame")
            sock.active, sock.ended, sock.ended_once = False, True, True
            if sock.quiet is not None:
                sock.quiet.cancel()
                sock.quiet = None
        else:
            if not sock.active:
                self.events.append(f"websocket {_path(ws.url)}: streaming")
            sock.active, sock.ended = True, False
            if sock.quiet is not None:
                sock.quiet.cancel()
            # After an end frame, more frames are usually the site's follow-ups (a title, tags): they
            # hold the run only while they keep coming quickly; a continued answer streams faster.
            quiet = min(self.ws_quiet_s, _WS_AFTER_END_QUIET_S) if sock.ended_once else self.ws_quiet_s
            sock.quiet = asyncio.get_running_loop().call_later(quiet, self._on_ws_quiet, ws)
        self._update()

    def _on_ws_quiet(self, ws: Any) -> None:
        sock = self._sockets.get(ws)
        if sock is not None and sock.active:
            sock.active, sock.quiet = False, None
            if sock.ended_once:  # follow-ups after the end frame have stopped: ended again
                sock.ended = True
                self.events.append(f"websocket {_path(ws.url)}: frames after the end frame stopped")
            else:
                self.events.append(f"websocket {_path(ws.url)}: no content for {self.ws_quiet_s:g} s, no end frame")
            self._update()

    def _on_ws_close(self, ws: Any) -> None:
        sock = self._sockets.pop(ws, None)
        if sock is None:
            return
        if sock.quiet is not None:
            sock.quiet.cancel()
        if sock.active and self._armed:
            self.events.append(f"websocket {_path(ws.url)}: closed")
            self._http_ended += 1  # a closed socket is an ended stream
        self._update()


def _path(url: str) -> str:
    return urlsplit(url).path or "/"
