"""Watch a chat page's network for the stream that carries THIS run's answer (the completion's second signal).

A text plateau is a weak "done"; the end of the site's own answer stream (SSE, chunked fetch, WebSocket) is
a strong one. Only OUR stream counts: one started after :meth:`StreamWatch.arm` that goes to the adapter's
``stream_url``, carries our prompt in its body, or is a WebSocket the page sent our prompt on. States:
``"none"`` (the page rule decides), ``"open"`` (never done, whatever the DOM shows), ``"ended"`` (done after
a short settle), ``"cut"`` (a stream of ours broke: the run is cut, uncharged). HTTP streams of ours still
open when a run ends linger, and the next run waits for them (:meth:`StreamWatch.wait_idle`).

With ``capture`` on, what our stream carried is kept for the driver to read the answer out of it
(:meth:`StreamWatch.capture`): an HTTP stream's body once its request finished, a WebSocket's messages
received since arm; up to :data:`CAPTURE_LIMIT` bytes a run.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any
from urllib.parse import quote, quote_plus, urlsplit

__all__ = ["CAPTURE_LIMIT", "Capture", "StreamWatch", "is_stream_response", "prompt_needles", "ws_frame_kind"]

log = logging.getLogger(__name__)

#: Content types of a streamed answer; a chunked text or binary body counts too.
#: Connect RPC's and gRPC-web's streaming types (``application/connect+json``, ``application/grpc-web+proto``)
#: are streams of length-prefixed frames (Kimi answers on one).
_STREAM_TYPES = ("text/event-stream", "ndjson", "jsonl", "json-seq", "jsonlines", "application/connect+",
                 "application/grpc-web")
_CHUNKED_TYPES = ("text/plain", "application/octet-stream")
_RESOURCE_TYPES = frozenset({"fetch", "xhr", "eventsource", "other"})
_WS_QUIET_S = 5.0
_WS_AFTER_END_QUIET_S = 0.5
#: The most a run's capture keeps (bytes of bodies, or of messages); beyond it, nothing is kept.
CAPTURE_LIMIT = 8 * 1024 * 1024
_BODY_WAIT_S = 2.0  # reading one finished stream's body (one round trip to the browser)


class _Received:
    """The bytes of one streaming response as Chromium received them (CDP ``Network.streamResourceContent``):
    a stream the page closes itself (``ERR_ABORTED``) keeps no body in Chromium, so it is gathered as it comes."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.head = b""  # what Chromium had buffered when streaming was turned on
        self.chunks: list[bytes] = []
        self.streaming = False  # streaming is on (else the request had finished first: its body is there)
        self.used = False

    def body(self) -> bytes:
        return self.head + b"".join(self.chunks)


_CDP_TYPES = {"Fetch": "fetch", "XHR": "xhr", "EventSource": "eventsource", "Other": "other"}


@dataclass(frozen=True)
class Capture:
    """What our stream carried in one run: the bodies of our HTTP streams (whole, in the order they
    started) or the messages received on our WebSocket (in order). Empty when nothing could be kept."""

    bodies: tuple[bytes, ...] = ()
    messages: tuple[str | bytes, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.bodies and not self.messages

_KEEPALIVE_TEXT = re.compile(r"^\s*(?:[23]|[23]probe|ping|pong|heartbeat|keepalive)\s*$", re.I)  # socket.io: 2/3
_KEEPALIVE_WORDS = frozenset({"ping", "pong", "heartbeat", "keepalive", "keep-alive"})
_TERMINAL_WORDS = frozenset({"done", "end", "finish", "finished", "complete", "completed", "stopped", "stop",
                             "error", "eof", "message_stop", "response.completed", "response.done", "stream_end",
                             "task_end", "message_end", "response_end", "generation_end", "all_done"})


def is_stream_response(resource_type: str, headers: dict[str, str], *, declared: bool = False) -> bool:
    """True for a response whose body is an answer stream (by its content type; chunked text counts).
    ``declared``: the request is the adapter's ``stream_url``; then a chunked body of any type counts (Gemini
    streams chunked ``application/json``, which elsewhere is a save or a title, not a stream)."""
    if resource_type not in _RESOURCE_TYPES:
        return False
    ctype = headers.get("content-type", "").lower()
    if resource_type == "eventsource" or any(t in ctype for t in _STREAM_TYPES):
        return True
    chunked = "chunked" in headers.get("transfer-encoding", "").lower() or "content-length" not in headers
    return chunked and (declared or any(t in ctype for t in _CHUNKED_TYPES))


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
    """``"keepalive"``, ``"terminal"`` (the answer's stream ended), ``"content"`` (a JSON event we can read)
    or ``"unknown"`` (binary or plain text: a format whose end we cannot see)."""
    if isinstance(payload, bytes):
        try:
            text = payload.decode("utf-8")
        except UnicodeDecodeError:
            return "unknown" if payload else "keepalive"
    else:
        text = payload
    if not text.strip() or _KEEPALIVE_TEXT.match(text):
        return "keepalive"
    if "[DONE]" in text:
        return "terminal"
    body = text.strip()
    if body.startswith("data:"):  # SSE framing inside a frame
        body = body[5:].strip()
    m = re.match(r"^\d+(\[.*)$", body, re.S)  # socket.io: 42["event", {...}]
    if m:
        body = m.group(1)
    try:
        obj = json.loads(body)
    except ValueError:
        return "unknown"
    if not isinstance(obj, dict | list):
        return "unknown"
    items = obj if isinstance(obj, list) else [obj]
    # socket.io's event frames name their event first: 42["task_end", {...}]
    event = items[0].lower() if m and items and isinstance(items[0], str) else None
    if event in _KEEPALIVE_WORDS:
        return "keepalive"
    if event in _TERMINAL_WORDS:
        return "terminal"
    dicts = [o for o in items if isinstance(o, dict)]
    if dicts and all(_kind_word(o) in _KEEPALIVE_WORDS for o in dicts):
        return "keepalive"
    return "terminal" if any(_is_terminal(o) for o in items) else "content"


#: The longest piece of the prompt looked for in a request body or a sent frame (characters).
_NEEDLE_CHARS = 48


def prompt_needles(prompt: str) -> tuple[bytes, ...]:
    """How the prompt shows in what the page sends: a piece of its longest line, as UTF-8, JSON-escaped
    (with and without ASCII escapes) and URL-encoded. A body or frame holding any of them carries our prompt."""
    lines = [ln.strip() for ln in prompt.splitlines() if ln.strip()] or [prompt.strip()]
    piece = max(lines, key=len)[:_NEEDLE_CHARS]
    if not piece:
        return ()
    forms = [piece, json.dumps(piece, ensure_ascii=False)[1:-1], json.dumps(piece)[1:-1],
             quote(piece, safe=""), quote_plus(piece, safe="")]
    return tuple(dict.fromkeys(f.encode("utf-8") for f in forms))


def _carries(body: bytes | str | None, needles: tuple[bytes, ...]) -> bool:
    if not body or not needles:
        return False
    data = body.encode("utf-8", "replace") if isinstance(body, str) else bytes(body)
    return any(n in data for n in needles)


def _url_matches(url: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatchcase(url, p) if any(c in p for c in "*?[") else p in url for p in patterns)


class _Socket:
    """One WebSocket of the page, as this run sees it."""

    def __init__(self, url: str, *, opened_in_run: bool) -> None:
        self.url = url
        #: Opened while a run was armed (a socket per answer: its close is the answer's end); else the
        #: page's long-lived socket (its close mid-answer is a cut).
        self.opened_in_run = opened_in_run
        self.ours = False  # the page sent our prompt on it (or it is the adapter's stream_url) in this run
        self.active = False  # carried content since arm, no terminal frame yet
        self.ended = False
        self.ended_once = False  # an end frame was seen in this run
        self.unknown = False  # frames of a format we cannot read came in this run (the page rule decides)
        #: Its JSON frames never carried an end we recognise (a run went quiet without one): its later runs
        #: go by the page rule at once, with no quiet window.
        self.no_end = False
        self.quiet: asyncio.TimerHandle | None = None


class StreamWatch:
    """Follows the streams of one page. ``on_change(state)`` is called on the event loop each time
    the aggregate state changes while armed."""

    def __init__(
        self, page: Any, *, ws_quiet_s: float = _WS_QUIET_S, stream_urls: tuple[str, ...] = (), capture: bool = False
    ) -> None:
        # No reference to the page is kept: the page's listeners hold this watcher, not the reverse,
        # so a driver's weak map of watchers lets closed pages go.
        self.ws_quiet_s = ws_quiet_s
        #: The adapter's ``stream_url`` patterns: a request or socket to one of them is ours.
        self.stream_urls = stream_urls
        #: Keep what our stream carries (see :meth:`capture`).
        self.capturing = capture
        self._responses: list[Any] = []  # responses of our HTTP streams since arm, in order
        self._finished: set[Any] = set()  # ... whose request finished (not failed)
        self._messages: list[str | bytes] = []  # messages received on our WebSocket since arm
        self._message_bytes = 0
        self._overflow = False  # the run's messages went past CAPTURE_LIMIT: none are kept
        self._cdp: Any = None  # a CDP session of the page (see attach_cdp)
        self._received: dict[str, _Received] = {}  # streaming responses since arm, by CDP request id
        self._received_bytes = 0
        self.on_change: Callable[[str], None] | None = None
        self._armed = False
        self._needles: tuple[bytes, ...] = ()
        self._pending: set[Any] = set()  # requests of ours started since arm, not yet known as streams
        self._open: set[Any] = set()  # HTTP streams of ours running
        self._http_ended = 0
        self._started: dict[str, int] = {}  # requests of ours started since arm, by URL (see news())
        self._sockets: dict[Any, _Socket] = {}
        self._state = "none"
        self._news: dict[str, Any] = self.news()
        self._ignored: set[str] = set()
        #: HTTP streams of an earlier run still open (see wait_idle) and the event set when none is.
        self._lingering: set[Any] = set()
        self._idle = asyncio.Event()
        self._idle.set()
        self._settled: asyncio.Event | None = None  # see network_settled
        #: Why the stream was cut (state "cut"), for the run's error.
        self.cut: str | None = None
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

    def arm(self, on_change: Callable[[str], None] | None = None, *, prompt: str = "") -> None:
        """Start counting: streams of ours (see the module docstring) that start from now on are this
        run's. ``prompt``: what the run sends, to tell its request or socket from the page's others."""
        self.disarm()
        self.on_change = on_change
        self._needles = prompt_needles(prompt)
        self._armed = True

    def disarm(self, *, decided_past: bool = False) -> None:
        """Stop counting. HTTP streams of ours still open linger until they end (see :meth:`wait_idle`),
        unless the run was decided past them (``decided_past``: a push channel the site keeps open)."""
        self.generation += 1
        self._armed = False
        self.on_change = None
        if not decided_past:
            self._lingering |= self._open
        self._idle.clear() if self._lingering else self._idle.set()
        self._pending.clear()
        self._open.clear()
        self._http_ended = 0
        self._started = {}
        for sock in self._sockets.values():
            sock.ours = sock.active = sock.ended = sock.ended_once = sock.unknown = False
            if sock.quiet is not None:
                sock.quiet.cancel()
                sock.quiet = None
        self._state = "none"
        self.cut = None
        self._news = self.news()
        self._ignored = set()
        self.events = []
        self._responses = []
        self._finished = set()
        self._messages = []
        self._message_bytes = 0
        self._overflow = False
        self._received = {}
        self._received_bytes = 0

    @property
    def lingering(self) -> tuple[str, ...]:
        """The URLs of an earlier run's streams of ours that are still open."""
        return tuple(sorted({_path(r.url) for r in self._lingering}))

    async def wait_idle(self, timeout_s: float) -> bool:
        """Wait until no stream of an earlier run of ours is open (the site no longer generates it);
        False when one still is after ``timeout_s``."""
        if self._idle.is_set():
            return True
        try:
            async with asyncio.timeout(timeout_s):
                await self._idle.wait()
        except TimeoutError:
            return False
        return True

    async def network_settled(self, timeout_s: float) -> bool:
        """Wait until the network's news has every HTTP stream of ours ended (up to ``timeout_s``). The page
        can see a stream end first, in its Resource Timing, but a broken stream gets an entry there too:
        only this news says whether it finished or broke (:attr:`cut`)."""
        if not self._open:
            return True
        self._settled = asyncio.Event()
        try:
            async with asyncio.timeout(timeout_s):
                await self._settled.wait()
        except TimeoutError:
            return False
        finally:
            self._settled = None
        return True

    async def attach_cdp(self, cdp: Any) -> None:
        """Gather streaming bodies through ``cdp`` (a CDP session of the page) as they arrive: Chromium keeps
        no body of a stream the page closed itself, though it read it to the end (many sites close their
        stream once its end event came). Once per watcher; a failure leaves ``response.body()`` alone."""
        if self._cdp is not None or not self.capturing:
            return
        self._cdp = cdp
        cdp.on("Network.responseReceived", self._on_cdp_response)
        cdp.on("Network.dataReceived", self._on_cdp_data)
        try:
            await cdp.send("Network.enable")
        except Exception as exc:  # a session of a page that went: body() is all there is
            log.debug("no CDP stream capture: %s", exc)

    def _on_cdp_response(self, params: dict[str, Any]) -> None:
        try:
            if not self._armed or self._cdp is None:
                return
            kind = _CDP_TYPES.get(str(params.get("type")))
            response = params.get("response") or {}
            headers = {str(k).lower(): str(v) for k, v in (response.get("headers") or {}).items()}
            url = str(response.get("url", ""))
            if kind is None or not is_stream_response(kind, headers, declared=_url_matches(url, self.stream_urls)):
                return
            request_id = str(params.get("requestId"))
            self._received[request_id] = _Received(url)
            task = asyncio.ensure_future(self._stream_content(request_id))
            task.add_done_callback(lambda t: t.cancelled() or t.exception())
        except Exception:  # a listener must never break the session's event dispatch
            log.debug("CDP response event", exc_info=True)

    async def _stream_content(self, request_id: str) -> None:
        received = self._received.get(request_id)
        if received is None:
            return
        try:
            reply = await self._cdp.send("Network.streamResourceContent", {"requestId": request_id})
            received.head = base64.b64decode(reply.get("bufferedData") or "")
            received.streaming = True
        except Exception as exc:  # it finished before (its body can be read) or the page went
            log.debug("no streaming of %s: %s", received.url, exc)
        self._received_bytes += len(received.head)

    def _on_cdp_data(self, params: dict[str, Any]) -> None:
        received = self._received.get(str(params.get("requestId")))
        data = params.get("data")
        if received is None or not isinstance(data, str) or self._received_bytes > CAPTURE_LIMIT:
            return  # past the limit: _bodies keeps nothing
        try:
            chunk = base64.b64decode(data)
        except (binascii.Error, ValueError):
            return
        self._received_bytes += len(chunk)
        received.chunks.append(chunk)

    def _gathered(self, url: str) -> bytes | None:
        """The body gathered through CDP for the next response to ``url`` (in order), or None."""
        for received in self._received.values():
            if received.url == url and not received.used:
                received.used = True
                return received.body() if received.streaming else None
        return None

    async def capture(self) -> Capture:
        """What our stream carried in this run (call it after completion, before :meth:`disarm`): the
        body of each HTTP stream of ours whose request finished (Playwright's ``response.body()``), else
        the messages received on our WebSocket since :meth:`arm`. Never raises; what could not be kept
        is said in :attr:`events`. Over :data:`CAPTURE_LIMIT` bytes in all: nothing.

        Measured in this Chromium (156): the body of a streamed ``fetch`` and of an XHR can be read once the
        request finished. A stream the page closed itself (``ERR_ABORTED``, also when it had read it to the
        end) and an ``EventSource`` closed by the page keep no body ("No data found for resource"): their
        bytes are those gathered through CDP as they came (:meth:`attach_cdp`; tested for all three in
        tests/providers/web/test_stream_answers.py). A stream that ended before streaming could be turned
        on and was then closed by the page is lost (said in :attr:`events`; the page's answer is used). A
        stream still open (a channel the site keeps open) is not waited for."""
        if not self.capturing:
            return Capture()
        if self._responses:
            return await self._bodies()
        if self._overflow:
            self.events.append(f"the stream's messages passed {CAPTURE_LIMIT // (1024 * 1024)} MB: none kept")
            return Capture()
        return Capture(messages=tuple(self._messages))

    async def _bodies(self) -> Capture:
        if self._received_bytes > CAPTURE_LIMIT:  # what was gathered is cut: none of it is an answer
            self.events.append(f"the streams' bytes passed {CAPTURE_LIMIT // (1024 * 1024)} MB: none kept")
            return Capture()
        bodies: list[bytes] = []
        total = 0
        for response in list(self._responses):
            request = response.request
            where = _path(request.url)
            gathered = self._gathered(request.url)
            if request not in self._finished:
                self.events.append(f"stream {where}: still open or broken, its body not read")
                continue
            try:
                body = await asyncio.wait_for(response.body(), _BODY_WAIT_S)
            except Exception as exc:  # a stream the page closed, an EventSource, a page that went
                if gathered is None:
                    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                    self.events.append(f"stream {where}: its body could not be read ({first})")
                    continue
                body = gathered
                self.events.append(f"stream {where}: its body as gathered while it came ({len(body)} bytes)")
            total += len(body)
            if total > CAPTURE_LIMIT:
                self.events.append(f"the stream's bodies passed {CAPTURE_LIMIT // (1024 * 1024)} MB: none kept")
                return Capture()
            bodies.append(body)
        return Capture(bodies=tuple(bodies))

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
        if self.cut is not None:
            state = "cut"
        elif self._open or ws_active:
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

    def _ignore(self, what: str) -> None:
        if what not in self._ignored and len(self._ignored) < 5:
            self._ignored.add(what)
            self.events.append(f"ignored {what} (not our prompt's)")

    # --- HTTP -------------------------------------------------------------------------------------

    def _ours(self, request: Any) -> bool:
        if _url_matches(request.url, self.stream_urls):
            return True
        try:
            body = request.post_data_buffer
        except Exception:  # a request whose body cannot be read (a closed page)
            return False
        return _carries(body, self._needles)

    def _on_request(self, request: Any) -> None:
        if not self._armed or request.resource_type not in _RESOURCE_TYPES:
            return
        if not self._ours(request):
            self._ignore(f"{request.method} {_path(request.url)}")
            return
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
        if is_stream_response(request.resource_type, headers, declared=_url_matches(request.url, self.stream_urls)):
            self._open.add(request)
            if self.capturing:
                self._responses.append(response)
            self.events.append(f"stream {request.method} {_path(request.url)} ({headers.get('content-type', '?')})")
            self._update()

    def _on_request_end(self, request: Any) -> None:
        self._pending.discard(request)
        if request in self._lingering:
            self._lingering.discard(request)
            if not self._lingering:
                self._idle.set()
        if request in self._open:
            self._open.discard(request)
            self._http_ended += 1
            failure = getattr(request, "failure", None)
            self.events.append(f"stream {_path(request.url)} " + (f"failed ({failure})" if failure else "finished"))
            if failure and "ERR_ABORTED" not in failure:  # the page closing its own stream is an end
                self.cut = f"the answer's stream {_path(request.url)} broke ({failure})"
            else:  # an end: its body can be read (what arrived before the page closed it)
                self._finished.add(request)
            self._update()
            if not self._open and self._settled is not None:
                self._settled.set()

    # --- WebSocket --------------------------------------------------------------------------------

    def _on_websocket(self, ws: Any) -> None:
        sock = _Socket(ws.url, opened_in_run=self._armed)
        self._sockets[ws] = sock
        ws.on("framereceived", lambda payload: self._on_frame(ws, payload))
        ws.on("framesent", lambda payload: self._on_sent(ws, payload))
        ws.on("close", lambda _ws: self._on_ws_close(ws))

    def _on_sent(self, ws: Any, payload: str | bytes) -> None:
        sock = self._sockets.get(ws)
        if sock is not None and self._armed and not sock.ours and _carries(payload, self._needles):
            sock.ours = True
            self.events.append(f"websocket {_path(ws.url)}: our prompt sent on it")

    def _on_frame(self, ws: Any, payload: str | bytes) -> None:
        sock = self._sockets.get(ws)
        if sock is None or not self._armed:
            return
        if not (sock.ours or _url_matches(ws.url, self.stream_urls)):
            self._ignore(f"websocket {_path(ws.url)}")
            return
        if self.capturing:
            self._keep(payload)
        kind = ws_frame_kind(payload)
        if kind == "keepalive":
            return
        if kind == "unknown" or (kind == "content" and sock.no_end):
            # An unknown transport: its end cannot be read, so it neither holds nor ends the run; the page
            # rule decides (busy gone, the answer unchanged for settle_ms), with no fixed wait.
            if not sock.unknown:
                sock.unknown = True
                what = "frames of a format whose end we cannot read" if kind == "unknown" else \
                    "frames with no end we recognise (seen before)"
                self.events.append(f"websocket {_path(ws.url)}: {what}; the page rule decides")
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

    def _keep(self, payload: str | bytes) -> None:
        """One message of our WebSocket, kept for :meth:`capture` (until the run's messages pass the limit)."""
        if self._overflow:
            return
        self._message_bytes += len(payload) if isinstance(payload, bytes) else len(payload.encode("utf-8", "replace"))
        if self._message_bytes > CAPTURE_LIMIT:
            self._overflow = True
            self._messages = []
            return
        self._messages.append(payload)

    def _on_ws_quiet(self, ws: Any) -> None:
        sock = self._sockets.get(ws)
        if sock is not None and sock.active:
            sock.active, sock.quiet = False, None
            if sock.ended_once:  # follow-ups after the end frame have stopped: ended again
                sock.ended = True
                self.events.append(f"websocket {_path(ws.url)}: frames after the end frame stopped")
            else:
                sock.no_end = True
                self.events.append(f"websocket {_path(ws.url)}: no content for {self.ws_quiet_s:g} s, no end frame "
                                   "(its later answers go by the page rule)")
            self._update()

    def _on_ws_close(self, ws: Any) -> None:
        sock = self._sockets.pop(ws, None)
        if sock is None:
            return
        if sock.quiet is not None:
            sock.quiet.cancel()
        if self._armed and sock.ours and (sock.active or sock.unknown) and not sock.ended:
            if sock.opened_in_run:  # a socket per answer: its close is the answer's end
                self.events.append(f"websocket {_path(ws.url)}: closed")
                self._http_ended += 1
            else:  # the page's own socket went away mid-answer (the site or the network): a cut
                self.events.append(f"websocket {_path(ws.url)}: closed mid-answer")
                self.cut = f"the site closed its socket {_path(ws.url)} mid-answer"
        self._update()


def _path(url: str) -> str:
    return urlsplit(url).path or "/"
