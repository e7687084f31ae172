"""Run-time fault control of the API simulator: outages, API-key labels and the admin request bodies.

Why a module of its own: capacity-aware dispatch tests change the callee's behaviour *while a batch
runs* (a quota that shrinks, a key that is out of credit, an endpoint that goes down and comes back),
and that state machine is easier to read and test apart from the request handlers.

Outages end lazily: the state is settled whenever a request arrives or stats are read, by comparing
the monotonic clock with the planned end. The one exception is ``refuse``, which closes the listening
socket: no request can arrive to settle it, so the server arms a timer for the planned start and end
(:meth:`OutageControl.next_change`) and opens or closes its port when it fires.
"""

from __future__ import annotations

import asyncio
import enum
import hashlib
import json
import math
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final, Literal, get_args

from aiohttp import web

if TYPE_CHECKING:
    from mediadesk.sim.api_server import ApiSimConfig

__all__ = [
    "ANONYMOUS_KEY",
    "CONTROL_TEXT",
    "CRAFTED_MODES",
    "HOSTILE_MODES",
    "HTML_ERROR",
    "OUTAGE_MODES",
    "UNSET",
    "FaultControlMixin",
    "Hostile",
    "HostileAnswerMixin",
    "HostileMode",
    "HostileStats",
    "Outage",
    "OutageControl",
    "OutageMode",
    "Unset",
    "auth_key_label",
    "check_outage_args",
    "crafted_answer",
    "hostile_marker",
    "key_hash",
    "parse_hostile_body",
    "parse_outage_body",
    "parse_quota_body",
]

#: ``refuse``: the endpoint is down: its listening socket is closed for the outage, so a connect gets
#: ECONNREFUSED (httpx raises ConnectError: nothing was sent, which a client can tell apart from a
#: request that broke). Requests already under way finish; a request that still comes on a keep-alive
#: connection opened before gets 503 with no Retry-After and ``Connection: close`` (a gateway's
#: "unavailable": closing idle connections at the start instead would race with a client sending on
#: one, and the reset it gets looks like a request that broke). The port is re-opened (the same
#: number) when the outage ends. Consequences: a refused connect never reaches the server, so it is
#: not counted (``requests_during_outage`` counts only requests on connections opened before);
#: ``/stats`` and
#: ``/admin/*`` share the port, so over HTTP they are unreachable too -- in-process
#: ``stats()``/``set_outage()`` still work, and ``POST /admin/outage`` requires a ``duration_s`` for a
#: ``refuse`` outage so it ends by itself (a timer re-opens the port). Re-opening could in theory find
#: the port taken by another process meanwhile; the server then retries and reports ``listening``.
#: ``503``: every request answers 503; ``429``: every chat request answers 429 (rate limited);
#: ``insufficient_quota``: every chat request answers OpenAI's out-of-credit 429.
OutageMode = Literal["refuse", "503", "429", "insufficient_quota"]
OUTAGE_MODES: Final[tuple[str, ...]] = get_args(OutageMode)

#: Label of requests that carry no ``Authorization`` header (not a hex digest, so never a clash).
ANONYMOUS_KEY: Final = "anonymous"


class Unset(enum.Enum):
    """Type of :data:`UNSET`: "leave this setting as it is" (``None`` already means "none")."""

    UNSET = enum.auto()


UNSET: Final = Unset.UNSET


def key_hash(key: str) -> str:
    """Stats label of an API key: a short sha256 prefix, so the raw key is never stored or printed."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


def auth_key_label(authorization: str | None) -> str:
    """Label of an ``Authorization`` header value: the hash of its bearer token (of the whole value
    if it is not a bearer token), or :data:`ANONYMOUS_KEY` without the header."""
    if authorization is None:
        return ANONYMOUS_KEY
    scheme, _, token = authorization.partition(" ")
    return key_hash(token.strip() if scheme.lower() == "bearer" else authorization)


def check_outage_args(mode: object, duration_s: object) -> None:
    """Raise ValueError for an unknown mode or a duration that is not a positive finite number."""
    if mode is not None and mode not in OUTAGE_MODES:
        raise ValueError(f"outage mode must be one of {', '.join(OUTAGE_MODES)} or None, got {mode!r}")
    if duration_s is not None:
        if mode is None:
            raise ValueError("duration_s needs an outage mode (None ends the outage now)")
        if not (isinstance(duration_s, int | float) and duration_s > 0 and math.isfinite(duration_s)):
            raise ValueError(f"duration_s must be > 0 seconds, got {duration_s!r}")


@dataclass
class Outage:
    """One outage: when it started (monotonic and wall clock), when it is planned to end, what it saw."""

    mode: OutageMode
    #: The ``Retry-After`` header value of its 503/429 answers; None sends none.
    retry_after: str | None
    started_mono: float
    started_wall: float
    ends_mono: float | None
    requests: int = 0
    ended_wall: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "started_at": self.started_wall,
            "ended_at": self.ended_wall,
            "requests": self.requests,
        }


@dataclass(frozen=True)
class _Pending:
    start_mono: float
    mode: OutageMode
    duration_s: float | None
    retry_after: str | None


class OutageControl:
    """At most one outage at a time, plus at most one scheduled for later (the CLI's ``--outage-after``).

    Times in stats are wall-clock seconds (``time.time()``), so a bench can line them up with its own
    log; decisions use the monotonic clock, so a clock step never starts or ends an outage.
    """

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, wall: Callable[[], float] = time.time
    ) -> None:
        self._clock = clock
        self._wall = wall
        self._active: Outage | None = None
        self._pending: _Pending | None = None
        self._ended: list[Outage] = []
        self.requests_during_outage = 0

    def current(self) -> Outage | None:
        """The outage in force now, after ending an expired one and starting a scheduled one."""
        now = self._clock()
        active = self._active
        if active is not None and active.ends_mono is not None and now >= active.ends_mono:
            self._finish(active.ends_mono)
        pending = self._pending
        if self._active is None and pending is not None and now >= pending.start_mono:
            self._pending = None
            self._begin(pending.mode, pending.start_mono, pending.duration_s, pending.retry_after)
            return self.current()  # a scheduled outage may already be over as well
        return self._active

    def set(self, mode: OutageMode | None, duration_s: float | None, retry_after: str | None) -> None:
        """End the outage in force (and forget a scheduled one); start ``mode`` now unless it is None."""
        check_outage_args(mode, duration_s)
        self.current()
        self._pending = None
        now = self._clock()
        if self._active is not None:
            self._finish(now)
        if mode is not None:
            self._begin(mode, now, duration_s, retry_after)

    def schedule(self, mode: OutageMode, after_s: float, duration_s: float | None, retry_after: str | None) -> None:
        """Start ``mode`` ``after_s`` seconds from now (replacing an earlier schedule)."""
        check_outage_args(mode, duration_s)
        self._pending = _Pending(self._clock() + after_s, mode, duration_s, retry_after)

    def next_change(self) -> float | None:
        """Seconds until the next planned change (the end of the outage in force, else the start of a
        scheduled one), or None when nothing is planned."""
        active = self.current()
        at = active.ends_mono if active is not None else (self._pending.start_mono if self._pending else None)
        return None if at is None else max(0.0, at - self._clock())

    def note_request(self) -> Outage | None:
        """Count a request (or connection attempt) against the outage in force, and return it."""
        outage = self.current()
        if outage is not None:
            outage.requests += 1
            self.requests_during_outage += 1
        return outage

    def reset_counts(self) -> None:
        """Forget ended outages and zero the counters; an outage in force stays in force."""
        self.current()
        self._ended.clear()
        self.requests_during_outage = 0
        if self._active is not None:
            self._active.requests = 0

    def stats(self) -> dict[str, Any]:
        active = self.current()
        outages = [*self._ended, *([active] if active is not None else [])]
        return {
            "outage": active.mode if active is not None else None,
            "requests_during_outage": self.requests_during_outage,
            "outages": [o.as_dict() for o in outages],
        }

    def _begin(self, mode: OutageMode, at: float, duration_s: float | None, retry_after: str | None) -> None:
        wall = self._wall() - (self._clock() - at)
        ends = at + duration_s if duration_s is not None else None
        self._active = Outage(mode, retry_after, at, wall, ends)

    def _finish(self, at: float) -> None:
        active = self._active
        if active is None:
            return
        active.ended_wall = active.started_wall + (at - active.started_mono)
        self._ended.append(active)
        self._active = None


# --------------------------------------------------------------------------- admin request bodies
def _opt_int(name: str, value: object) -> int | None:
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise ValueError(f"{name} must be an integer or null, got {value!r}")


def _opt_number(name: str, value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise ValueError(f"{name} must be a number or null, got {value!r}")


def _flag(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    raise ValueError(f"{name} must be true or false, got {value!r}")


def _mode(name: str, value: object) -> str | None:
    check_outage_args(value, None)
    return value if isinstance(value, str) else None


_Checker = Callable[[str, object], object]
_QUOTA_FIELDS: Final[Mapping[str, _Checker]] = {
    "quota": _opt_int,
    "per_key_quota": _opt_int,
    "retry_after_s": _opt_number,
    "send_retry_after": _flag,
}
_OUTAGE_FIELDS: Final[Mapping[str, _Checker]] = {
    "mode": _mode,
    "duration_s": _opt_number,
    "retry_after_s": _opt_number,
}


def _parse(body: object, fields: Mapping[str, _Checker]) -> dict[str, Any]:
    """Check a JSON body's shape (a typo'd field is an error, not silently ignored)."""
    if not isinstance(body, dict):
        raise ValueError("request body must be a JSON object")
    unknown = sorted(set(body) - set(fields))
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(map(repr, unknown))}; known: {', '.join(fields)}")
    return {name: check(name, body[name]) for name, check in fields.items() if name in body}


def parse_quota_body(body: object) -> dict[str, Any]:
    """``POST /admin/quota`` body -> keyword arguments of ``set_quota`` (absent fields stay as they are).
    Raises ValueError with a message fit for the HTTP answer."""
    return _parse(body, _QUOTA_FIELDS)


def parse_outage_body(body: object) -> dict[str, Any]:
    """``POST /admin/outage`` body -> keyword arguments of ``set_outage``; ``mode`` is required."""
    kwargs = _parse(body, _OUTAGE_FIELDS)
    if "mode" not in kwargs:
        raise ValueError("'mode' is required (null ends the outage)")
    if kwargs["mode"] == "refuse" and kwargs.get("duration_s") is None:
        raise ValueError(
            "a 'refuse' outage closes the port, this admin endpoint included: give 'duration_s' so it ends by itself"
        )
    return kwargs


# --------------------------------------------------------------------------- the server's controls
class FaultControlMixin:
    """``set_quota``/``set_outage`` and the ``/admin/*`` endpoints of :class:`ApiSimServer`.

    The server owns ``config`` (replaced, never mutated, so a bad value changes nothing) and
    ``_outages``; the request handlers read both on every request, so changes apply at once. Call
    these from the thread that runs the server's event loop (nothing here is locked).
    """

    config: ApiSimConfig
    _outages: OutageControl

    if TYPE_CHECKING:

        def _outage_changed(self) -> None:
            """The server's hook: open or close its port to match the outage in force."""

    def set_quota(
        self,
        quota: int | None,
        *,
        per_key_quota: int | Unset | None = UNSET,
        retry_after_s: float | Unset | None = UNSET,
        send_retry_after: bool | Unset = UNSET,
    ) -> None:
        """Change the limits while requests run (None: no limit); omitted settings stay as they are.

        New requests see the new limits at once; requests already admitted are never cut, so after
        lowering a quota the in-flight count drains down to it. Invalid values raise ValueError and
        change nothing.
        """
        changes: dict[str, Any] = {"quota": quota}
        if not isinstance(per_key_quota, Unset):
            changes["per_key_quota"] = per_key_quota
        if not isinstance(retry_after_s, Unset):
            changes["retry_after_s"] = retry_after_s
        if not isinstance(send_retry_after, Unset):
            changes["send_retry_after"] = send_retry_after
        self.config = replace(self.config, **changes)  # replace() validates through __post_init__

    def set_outage(
        self,
        mode: OutageMode | None,
        duration_s: float | None = None,
        *,
        retry_after_s: float | Unset | None = UNSET,
    ) -> None:
        """Start an outage now (ending one in force and any scheduled one), or end it with None.

        ``duration_s`` ends it by itself (None: until ``set_outage(None)`` or stop). ``retry_after_s``
        is the ``Retry-After`` of its 503/429 answers, None for none; by default the config's (as a
        quota 429), except ``insufficient_quota`` which, as OpenAI's, has none. ``refuse`` closes the
        port before this returns (and re-opens it when the outage ends); call it from the server's loop.
        """
        check_outage_args(mode, duration_s)
        if isinstance(retry_after_s, Unset):
            header = self._outage_retry_after(mode)
        elif retry_after_s is None:
            header = None
        elif retry_after_s >= 0 and math.isfinite(retry_after_s):
            header = f"{retry_after_s:g}"
        else:
            raise ValueError(f"retry_after_s must be >= 0, got {retry_after_s!r}")
        self._outages.set(mode, duration_s, header)
        self._outage_changed()

    def _outage_retry_after(self, mode: OutageMode | None) -> str | None:
        return None if mode == "insufficient_quota" else self.config.retry_after_header

    def _admin_routes(self) -> list[web.RouteDef]:
        """Control endpoints: never counted in stats, never affected by an outage."""
        return [
            web.get("/admin/quota", self._admin_quota),
            web.post("/admin/quota", self._admin_quota),
            web.get("/admin/outage", self._admin_outage),
            web.post("/admin/outage", self._admin_outage),
        ]

    async def _admin_quota(self, request: web.Request) -> web.Response:
        """``POST``: ``set_quota`` from a JSON object (absent fields stay); both: the current limits."""
        if request.method == "POST":
            try:
                kwargs = parse_quota_body(await _json_body(request))
                self.set_quota(kwargs.pop("quota", self.config.quota), **kwargs)
            except ValueError as exc:
                return _admin_error(str(exc))
        cfg = self.config
        return _admin_ok(
            quota=cfg.quota,
            per_key_quota=cfg.per_key_quota,
            retry_after_s=cfg.retry_after_s,
            send_retry_after=cfg.send_retry_after,
        )

    async def _admin_outage(self, request: web.Request) -> web.Response:
        """``POST``: ``set_outage`` from ``{"mode": ..., "duration_s": ..., "retry_after_s": ...}``;
        both: the outage stats (``outage``, ``requests_during_outage``, ``outages``)."""
        if request.method == "POST":
            try:
                kwargs = parse_outage_body(await _json_body(request))
                self.set_outage(kwargs.pop("mode"), **kwargs)
            except ValueError as exc:
                return _admin_error(str(exc))
        return _admin_ok(**self._outages.stats())


_JSON_HEADERS: Final = {"Content-Type": "application/json; charset=utf-8"}


async def _json_body(request: web.Request) -> Any:
    try:
        return json.loads(await request.read())
    except (ValueError, UnicodeDecodeError):
        raise ValueError("request body is not valid JSON") from None


def _admin_ok(**fields: Any) -> web.Response:
    return web.Response(text=json.dumps({"ok": True, **fields}), headers=_JSON_HEADERS)


def _admin_error(message: str) -> web.Response:
    body = {"ok": False, "error": {"message": message, "type": "invalid_request_error"}}
    return web.Response(status=400, text=json.dumps(body), headers=_JSON_HEADERS)


# --------------------------------------------------------------------------- hostile answers
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
#: Characters of a ``huge`` answer unless said otherwise (the 50 MB answer of the issue).
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
    kwargs = _parse(body, _HOSTILE_FIELDS)
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


_HOSTILE_FIELDS: Final[Mapping[str, _Checker]] = {
    "mode": _hostile_mode,
    "chars": _opt_int,
    "seconds": _opt_number,
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
                self.set_hostile(parse_hostile_body(await _json_body(request)))
            except ValueError as exc:
                return _admin_error(str(exc))
        h = self.hostile
        current = None if h is None else {"mode": h.mode, "chars": h.chars, "seconds": h.seconds}
        return _admin_ok(hostile=current, **self._hostile_stats.as_dict())

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
            headers = dict(_JSON_HEADERS)
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
        return web.Response(status=400, text=json.dumps(body), headers=_JSON_HEADERS)
    text = crafted_answer(mode, request.headers.get("Authorization"))
    created = int(time.time())
    if not stream:
        # ensure_ascii: the lone surrogate goes out as the JSON escape \ud800 (it cannot be encoded)
        return web.Response(text=json.dumps({
            "id": cid, "object": "chat.completion", "created": created, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        }), headers=_JSON_HEADERS)
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache"})
    await resp.prepare(request)
    for delta, finish in (({"role": "assistant", "content": text}, None), ({}, "stop")):
        chunk = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                 "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        await resp.write(("data: " + json.dumps(chunk) + "\n\n").encode())
    await resp.write(b"data: [DONE]\n\n")
    await resp.write_eof()
    return resp
