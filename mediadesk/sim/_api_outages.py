"""Outages of the API simulator: an endpoint that goes down (or refuses, or is out of credit) and comes back.

Why a module of its own: capacity-aware dispatch tests change the callee's behaviour *while a batch
runs*, and this state machine (one outage in force, one scheduled, the ended ones for stats) is easier
to read and test apart from the request handlers.

Outages end lazily: the state is settled whenever a request arrives or stats are read, by comparing
the monotonic clock with the planned end. The one exception is ``refuse``, which closes the listening
socket: no request can arrive to settle it, so the server arms a timer for the planned start and end
(:meth:`OutageControl.next_change`) and opens or closes its port when it fires.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from mediadesk.sim._admin_json import Checker, opt_number, parse_fields

__all__ = ["OUTAGE_MODES", "Outage", "OutageControl", "OutageMode", "check_outage_args", "parse_outage_body"]

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


def _mode(name: str, value: object) -> str | None:
    check_outage_args(value, None)
    return value if isinstance(value, str) else None


_OUTAGE_FIELDS: Final[Mapping[str, Checker]] = {
    "mode": _mode,
    "duration_s": opt_number,
    "retry_after_s": opt_number,
}


def parse_outage_body(body: object) -> dict[str, Any]:
    """``POST /admin/outage`` body -> keyword arguments of ``set_outage``; ``mode`` is required."""
    kwargs = parse_fields(body, _OUTAGE_FIELDS)
    if "mode" not in kwargs:
        raise ValueError("'mode' is required (null ends the outage)")
    if kwargs["mode"] == "refuse" and kwargs.get("duration_s") is None:
        raise ValueError(
            "a 'refuse' outage closes the port, this admin endpoint included: give 'duration_s' so it ends by itself"
        )
    return kwargs

