"""Hostile answers of the API simulator: endless, huge, cut, length-limited or trickling answers.

Why a module of its own: these answers test the client's limits (size caps, stall timers, a stream
that ends without ``[DONE]``), not the scheduler's capacity; their writer loop and its stats read
best apart from the normal answer path in :mod:`mediadesk.sim.api_server`.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from aiohttp import web

from mediadesk.sim._admin_json import (
    JSON_HEADERS,
    Checker,
    admin_error,
    admin_ok,
    json_body,
    opt_int,
    opt_number,
    parse_fields,
)

__all__ = [
    "CONTROL_TEXT",
    "CRAFTED_MODES",
    "HOSTILE_HUGE_CHARS",
    "HOSTILE_MODES",
    "HOSTILE_STEADY_S",
    "HTML_ERROR",
    "Hostile",
    "HostileAnswerMixin",
    "HostileMode",
    "HostileStats",
    "crafted_answer",
    "hostile_marker",
    "parse_hostile_body",
]

#: What a hostile (or broken) provider sends instead of a normal answer, for every chat request
#: (``--hostile MODE`` / ``POST /admin/hostile``) or for one request (a prompt marker, see
#: :func:`hostile_marker`). Quota and outages apply as usual; the answer is what differs.
#:
#: ``endless``: an answer that never ends (SSE chunks, or a JSON body that keeps growing) until the
#: client closes the connection or the server stops. ``huge``: a complete, well-formed answer of
#: ``chars`` characters (default 50,000,000), sent in pieces. ``cut``: a stream that ends cleanly
#: after part of the answer, without ``finish_reason`` and without ``[DONE]`` (non-stream: the JSON
#: body cut in half). ``length``: part of the answer with ``finish_reason: "length"`` (the model's
#: output limit). ``steady``: the normal answer sent as a steady trickle, one chunk every 0.1 s for
#: ``seconds`` (never silent for long, but long in all). The crafted modes (hostile *text*, see
#: :data:`CRAFTED_MODES`) follow.
HostileMode = Literal["endless", "huge", "cut", "length", "steady",
                      "echo_auth", "controls", "surrogate", "html_400"]
HOSTILE_MODES: Final[tuple[str, ...]] = get_args(HostileMode)
#: Characters of a ``huge`` answer unless said otherwise.
HOSTILE_HUGE_CHARS: Final = 50_000_000
#: Seconds of a ``steady`` answer unless said otherwise.
HOSTILE_STEADY_S: Final = 10.0
_STEADY_TICK_S: Final = 0.1
_HOSTILE_PIECE: Final = "hostile answer " * 256  # 3,840 characters per chunk


@dataclass(frozen=True)
class Hostile:
    """One hostile behaviour and its size (``huge``) or duration (``steady``)."""

    mode: HostileMode
    chars: int = HOSTILE_HUGE_CHARS
    seconds: float = HOSTILE_STEADY_S

    def __post_init__(self) -> None:
        if self.mode not in HOSTILE_MODES:
            raise ValueError(f"hostile mode must be one of {', '.join(HOSTILE_MODES)}, got {self.mode!r}")
        if not (isinstance(self.chars, int) and not isinstance(self.chars, bool) and self.chars >= 1):
            raise ValueError(f"chars must be an integer >= 1, got {self.chars!r}")
        if not (isinstance(self.seconds, int | float) and self.seconds > 0 and math.isfinite(self.seconds)):
            raise ValueError(f"seconds must be > 0, got {self.seconds!r}")


def hostile_marker(token: str) -> Hostile | None:
    """A prompt marker's hostile behaviour: ``endless``, ``cut``, ``length``, ``huge`` or
    ``huge=CHARS``, ``steady`` or ``steady=SECONDS`` (inside ``[[sim:...]]``); None otherwise."""
    name, _, arg = token.partition("=")
    if name not in HOSTILE_MODES:
        return None
    try:
        if name == "huge" and arg:
            return Hostile("huge", chars=int(arg))
        if name == "steady" and arg:
            return Hostile("steady", seconds=float(arg))
        return Hostile(name) if not arg else None  # type: ignore[arg-type]
    except ValueError:
        return None


def parse_hostile_body(body: object) -> Hostile | None:
    """``POST /admin/hostile`` body ``{"mode": ..., "chars": ..., "seconds": ...}`` -> the behaviour
    (``mode`` null ends it). Raises ValueError with a message fit for the HTTP answer."""
    kwargs = parse_fields(body, _HOSTILE_FIELDS)
    if "mode" not in kwargs:
        raise ValueError("'mode' is required (null ends the hostile behaviour)")
    mode = kwargs.pop("mode")
    if mode is None:
        if kwargs:
            raise ValueError("chars/seconds need a mode")
        return None
    return Hostile(mode, **{k: v for k, v in kwargs.items() if v is not None})


def _hostile_mode(name: str, value: object) -> str | None:
    if value is None or (isinstance(value, str) and value in HOSTILE_MODES):
        return value
    raise ValueError(f"{name} must be one of {', '.join(HOSTILE_MODES)} or null, got {value!r}")


_HOSTILE_FIELDS: Final[Mapping[str, Checker]] = {
    "mode": _hostile_mode,
    "chars": opt_int,
    "seconds": opt_number,
}


class HostileStats:
    """What hostile answers did: how many of each mode, bytes sent, and how many the client closed
    before the end (an ``endless`` answer ends only that way)."""

    __slots__ = ("answers", "bytes_sent", "closed_by_client")

    def __init__(self) -> None:
        self.answers: dict[str, int] = {}
        self.bytes_sent = 0
        self.closed_by_client = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "hostile_answers": dict(self.answers),
            "hostile_bytes_sent": self.bytes_sent,
            "hostile_closed_by_client": self.closed_by_client,
        }


class _ClientGone(Exception):
    """The client closed the connection (or the server is stopping) in the middle of an answer."""


class HostileAnswerMixin:
    """Hostile answers of :class:`ApiSimServer` and ``/admin/hostile``. The server owns ``hostile``
    (the behaviour for every chat request, None for normal answers), ``_hostile_stats``,
    ``_stopping`` and ``_pause``."""

    hostile: Hostile | None
    _hostile_stats: HostileStats
    _stopping: bool

    #: Sleep; False if the server is stopping meanwhile (the server's own method, see ApiSimServer).
    _pause: Callable[[float | None], Awaitable[bool]]

    def set_hostile(self, hostile: Hostile | None) -> None:
        """Answer every chat request that way from now on (None: normal answers again)."""
        if hostile is not None and not isinstance(hostile, Hostile):
            raise ValueError(f"expected a Hostile or None, got {hostile!r}")
        self.hostile = hostile

    def _hostile_routes(self) -> list[web.RouteDef]:
        return [web.get("/admin/hostile", self._admin_hostile), web.post("/admin/hostile", self._admin_hostile)]

    async def _admin_hostile(self, request: web.Request) -> web.Response:
        if request.method == "POST":
            try:
                self.set_hostile(parse_hostile_body(await json_body(request)))
            except ValueError as exc:
                return admin_error(str(exc))
        h = self.hostile
        current = None if h is None else {"mode": h.mode, "chars": h.chars, "seconds": h.seconds}
        return admin_ok(hostile=current, **self._hostile_stats.as_dict())

    async def _send_hostile(
        self, request: web.Request, hostile: Hostile, *, stream: bool, model: str, cid: str, answer: str
    ) -> web.StreamResponse:
        """Answer ``request`` the hostile way; returns the (prepared) response."""
        st = self._hostile_stats
        st.answers[hostile.mode] = st.answers.get(hostile.mode, 0) + 1
        if hostile.mode in CRAFTED_MODES:
            return await _send_crafted(request, hostile.mode, stream=stream, model=model, cid=cid)
        created = int(time.time())
        if stream:
            headers = {"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache"}
        else:
            headers = dict(JSON_HEADERS)
        resp = web.StreamResponse(headers=headers)
        await resp.prepare(request)

        async def write(text: str) -> None:
            if self._stopping:
                raise _ClientGone
            data = text.encode()
            try:
                await resp.write(data)
            except ConnectionError:
                raise _ClientGone from None
            st.bytes_sent += len(data)

        def event(delta: dict[str, str], finish: str | None) -> str:
            chunk = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            return "data: " + json.dumps(chunk, ensure_ascii=False) + "\n\n"

        head = json.dumps({"id": cid, "object": "chat.completion", "created": created, "model": model})[:-1]
        open_body = head + ', "choices": [{"index": 0, "message": {"role": "assistant", "content": "'

        def close_body(finish: str) -> str:
            return f'"}}, "finish_reason": "{finish}"}}]}}'

        def esc(text: str) -> str:
            return json.dumps(text, ensure_ascii=False)[1:-1]

        finished = False
        try:
            mode = hostile.mode
            if mode == "endless":
                await write(open_body if not stream else ": hostile endless\n\n")
                piece = event({"content": _HOSTILE_PIECE}, None) if stream else _HOSTILE_PIECE
                batch = piece * 16
                while True:
                    await write(batch)
                    await asyncio.sleep(0)  # a fast client never makes write() wait: let others run
            elif mode == "huge":
                await write(open_body if not stream else "")
                left = hostile.chars
                while left > 0:
                    n = min(left, len(_HOSTILE_PIECE) * 16)
                    text = (_HOSTILE_PIECE * 16)[:n]
                    await write(event({"content": text}, None) if stream else text)
                    left -= n
                    await asyncio.sleep(0)
                await write((event({}, "stop") + "data: [DONE]\n\n") if stream else close_body("stop"))
            elif mode == "cut":
                half = answer[: max(1, len(answer) // 2)]
                await write(event({"role": "assistant", "content": half}, None) if stream else open_body + esc(half))
            elif mode == "length":
                half = answer[: max(1, len(answer) // 2)]
                if stream:
                    await write(event({"role": "assistant", "content": half}, None) + event({}, "length")
                                + "data: [DONE]\n\n")
                else:
                    await write(open_body + esc(half) + close_body("length"))
            else:  # steady
                # Stream: the answer spread over the ticks (empty deltas once it runs out). JSON: a
                # space per tick before the body (leading whitespace is valid JSON; real gateways
                # keep slow non-streamed answers alive this way), then the whole body.
                ticks = max(1, round(hostile.seconds / _STEADY_TICK_S))
                for piece in _pieces(answer, ticks):
                    if not await self._pause(hostile.seconds / ticks):
                        raise _ClientGone
                    await write(event({"content": piece}, None) if stream else " ")
                await write((event({}, "stop") + "data: [DONE]\n\n") if stream
                            else open_body + esc(answer) + close_body("stop"))
            await resp.write_eof()
            finished = True
        except _ClientGone:
            transport = request.transport
            if transport is not None:
                transport.abort()
        finally:
            # also when aiohttp cancels the handler because the client went away
            if not finished and not self._stopping:
                st.closed_by_client += 1
        return resp


def _pieces(text: str, n: int) -> list[str]:
    """``text`` in exactly ``n`` pieces (empty ones when it is shorter than ``n``), in order."""
    size = max(1, -(-len(text) // n))
    out = [text[i * size:(i + 1) * size] for i in range(n)]
    return out


# --------------------------------------------------------------------------- hostile text
#: Answers whose *text* is the attack, each a complete, well-formed answer (or error):
#: ``echo_auth``: the answer quotes the request's Authorization header (the API key) back;
#: ``controls``: the answer holds terminal control sequences (OSC title, clear screen, C1 CSI, a
#: right-to-left override, a lone CR); ``surrogate``: the answer holds a lone surrogate and a NUL
#: (``\\ud800``, ``\\u0000`` in the JSON, which a JSON parser turns into such a string);
#: ``html_400``: HTTP 400 whose error message is HTML (a heading, an ``<img src=file://...>``) with
#: terminal escapes in it.
CRAFTED_MODES: Final[frozenset[str]] = frozenset({"echo_auth", "controls", "surrogate", "html_400"})
#: The control sequences of ``controls`` and ``html_400`` answers.
CONTROL_TEXT: Final = "\x1b]0;pwned\x07\x1b[2J\x9b31m red \u202eevil\r overwritten"
#: The error message of an ``html_400`` answer.
HTML_ERROR: Final = f'<h1>Bad request</h1><img src="file:///etc/passwd"> {CONTROL_TEXT}'


def crafted_answer(mode: str, authorization: str | None) -> str:
    """The answer text of a crafted mode (``html_400`` has none: it is an error)."""
    if mode == "echo_auth":
        return f"You sent Authorization: {authorization or '(none)'}; here is your answer."
    if mode == "controls":
        return f"an answer {CONTROL_TEXT} ends here"
    return "half \ud800 a pair, a NUL \x00 here"


async def _send_crafted(
    request: web.Request, mode: str, *, stream: bool, model: str, cid: str
) -> web.StreamResponse:
    if mode == "html_400":
        body = {"error": {"message": HTML_ERROR, "type": "invalid_request_error", "code": None}}
        return web.Response(status=400, text=json.dumps(body), headers=JSON_HEADERS)
    text = crafted_answer(mode, request.headers.get("Authorization"))
    created = int(time.time())
    if not stream:
        # ensure_ascii: the lone surrogate goes out as the JSON escape \ud800 (it cannot be encoded)
        return web.Response(text=json.dumps({
            "id": cid, "object": "chat.completion", "created": created, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        }), headers=JSON_HEADERS)
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache"})
    await resp.prepare(request)
    for delta, finish in (({"role": "assistant", "content": text}, None), ({}, "stop")):
        chunk = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                 "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        await resp.write(("data: " + json.dumps(chunk) + "\n\n").encode())
    await resp.write(b"data: [DONE]\n\n")
    await resp.write_eof()
    return resp
