"""Where the callee's capacity meets the lanes: one :class:`Capacity` per API endpoint (shared by
every profile on it) and one per web account.

Applies the pure policies of ``mediadesk.core`` (gate, breaker, token buckets) with the loop's clock,
runs the breaker's probes and wakes waiting lanes. Only a failed task costs an attempt. A refusal
pauses the whole endpoint and shrinks the gate; unavailable or out of credit opens the breaker at
once; misconfigured (TLS error, key rejected) stops the callee unprobed until :meth:`Capacity.resume`
or the next start. Web accounts map their site's signals the same way; a bot check sends the task
back uncharged and waits for a person.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable
from enum import Enum
from typing import Protocol

from mediadesk.core.backend import Probe
from mediadesk.core.breaker import BreakerConfig, BreakerState, CircuitBreaker
from mediadesk.core.errors import STOPPING_KINDS, ErrorKind, TaskFailure
from mediadesk.core.gate import AdaptiveGate
from mediadesk.core.log_lines import LOG, LogText, LogValue, breaker_word, callee_word
from mediadesk.core.rate import RateGates, TokenBucket
from mediadesk.core.token_rate import RateHints, TokenGate
from mediadesk.core.usage import Usage
from mediadesk.scheduler.events import CapacityView

log = logging.getLogger(__name__)


#: Successes in a row before an adaptive gate tries one more concurrent request. Each try above a
#: provider's real limit costs about one refusal, so 20 keeps refusals near 1 per 20 answers.
INCREASE_AFTER = 20


class Signal(str, Enum):
    SUCCESS = "success"
    FAILURE = "failure"
    REFUSAL = "refusal"
    UNAVAILABLE = "unavailable"
    OUT_OF_CREDIT = "out_of_credit"
    MISCONFIGURED = "misconfigured"  # cannot answer as configured (TLS, key rejected): stopped, never probed
    NONE = "none"            # canceled, shut down, not started: says nothing about the callee


def signal_of(failure: TaskFailure | None) -> Signal:
    if failure is None:
        return Signal.SUCCESS
    if failure.kind is ErrorKind.OUT_OF_CREDIT:
        return Signal.OUT_OF_CREDIT
    if failure.refusal:
        return Signal.REFUSAL
    if failure.unavailable and failure.kind in STOPPING_KINDS:
        return Signal.MISCONFIGURED
    if failure.unavailable:
        return Signal.UNAVAILABLE
    if failure.not_started or failure.kind in (ErrorKind.CANCELED, ErrorKind.CONFIG, ErrorKind.BAD_REQUEST,
                                               ErrorKind.PROMPT_TOO_LONG_FOR_SITE):  # the task's, not the account's
        return Signal.NONE
    return Signal.FAILURE


class _Wakeable(Protocol):
    def wake(self) -> None: ...


class Capacity:
    """The gate, breaker and rate buckets of one callee (an endpoint or a web account)."""

    def __init__(
        self,
        name: str,
        *,
        kind: str,
        limit: int,
        adaptive: bool,
        breaker: BreakerConfig,
        rates: RateGates | None,
        domain: str | None,
        backoff_base_s: float,
        backoff_max_s: float,
        clock: Callable[[], float],
        probe: Probe | None = None,
        own_rpm: float = 0.0,
        on_event: Callable[[LogText], None] | None = None,
        rng: random.Random | None = None,
        tpm: float = 0.0,
        rate_headers: bool = True,
    ) -> None:
        self.name = name
        self.kind = kind
        self.gate = AdaptiveGate(limit, adaptive=adaptive, increase_after=INCREASE_AFTER)
        #: Refusals since start (the remote API's metrics count them).
        self.refusals = 0
        self.breaker = CircuitBreaker(breaker)
        self._rates = rates
        #: This callee's own requests-per-minute bucket (an endpoint's ``rpm``), besides the shared ones.
        self._own = TokenBucket(own_rpm) if own_rpm > 0 else None
        #: Some bucket limits this callee: dispatch one at a time, as tokens come.
        self._rate_limited = self._own is not None or (rates is not None and rates.limits(domain))
        #: Tokens per minute: the endpoint's ``tpm`` (or the provider's, learned from its headers),
        #: reservations before a request and their true-up after it.
        self.tokens = TokenGate(tpm, honour_headers=rate_headers)
        self._domain = domain
        self._backoff = (backoff_base_s, backoff_max_s)
        self._clock = clock
        self.probe = probe
        self._on_event = on_event or (lambda _msg: None)
        self._rng = rng or random.Random()
        self._lanes: list[_Wakeable] = []
        self._probe_task: asyncio.Task[None] | None = None
        self._closed = False
        self.last_signal: str | None = None
        #: Requests the probes sent (for the bench and the task log).
        self.probes_sent = 0
        #: Why this callee is stopped (a TLS error, its key rejected): no probe, no dispatch until
        #: the operator resumes it. None: it is not.
        self.stopped: str | None = None
        #: The error kind that stopped it (``config``, ``auth``) and since when (wall clock).
        self.stopped_kind: str | None = None
        self.stopped_since: float | None = None
        #: Wall-clock time the current outage began (for "waiting since"); None while closed.
        self._open_since_wall: float | None = None

    # ------------------------------------------------------------------ lanes
    def attach(self, lane: _Wakeable) -> None:
        self._lanes.append(lane)

    def _wake_all(self) -> None:
        for lane in self._lanes:
            lane.wake()

    @property
    def limit(self) -> int:
        """The callee's concurrency, owned here (held by its gate): read by Wiring.endpoint_limit and view()."""
        return self.gate.limit

    def set_limit(self, limit: int) -> None:
        self.gate.set_limit(limit)
        self._wake_all()

    # ------------------------------------------------------------------ admission
    def free_slots(self, now: float, need: float = 0.0) -> int:
        """How many attempts may start now on this callee (0 while paused, open or rate-limited).
        ``need``: the tokens the next task is expected to use (a TPM limit lets one task through at a
        time, when its tokens are there)."""
        if not self.breaker.allow_dispatch(now):
            return 0
        if now < self.gate.paused_until:
            return 0
        free = self.gate.current_limit - self.gate.in_flight
        if self.breaker.state is BreakerState.HALF_OPEN:
            free = min(free, 1)  # one trial task decides
        if free > 0 and self._rate_limited:
            # a token per dispatch: one at a time, the next when the buckets allow it
            free = 0 if self._rate_wait(now) > 0 else 1
        if free > 0 and self.tokens.limits:
            free = 0 if self.tokens.wait_time(now, need) > 0 else 1
        return max(0, free)

    def _rate_wait(self, now: float, need: float = 0.0) -> float:
        waits = [self.tokens.wait_time(now, need)]
        if self._rates is not None:
            waits.append(self._rates.wait_time(self._domain, now))
        if self._own is not None:
            waits.append(self._own.wait_time(now))
        return max(waits)

    def next_change(self, now: float, need: float = 0.0) -> float | None:
        """Seconds until ``free_slots`` may grow by time alone (pause end, rate tokens), if known."""
        waits: list[float] = []
        if now < self.gate.paused_until:
            waits.append(self.gate.paused_until - now)
        w = self._rate_wait(now, need)
        if w > 0:
            waits.append(w)
        return min(waits) if waits else None

    def acquire(self, now: float, need: float = 0.0) -> float:
        """Take a slot (and the rate tokens) for one attempt; returns the tokens reserved for it."""
        self.gate.acquire()
        if self.breaker.state is BreakerState.HALF_OPEN:
            self.breaker.begin_trial()
        if self._rates is not None:
            self._rates.take(self._domain, now)
        if self._own is not None:
            self._own.try_take(now)
        return self.tokens.reserve(now, need)

    def settle_tokens(self, signal: Signal, reserved: float, *, profile: str | None = None,
                      usage: Usage | None = None, hints: RateHints | None = None,
                      next_need: float = 0.0) -> LogValue | None:
        """True up an attempt's token reservation: with its usage after an answer; given back after a
        refusal (the provider charged nothing); kept otherwise (it may have been charged). Then the
        provider's ``x-ratelimit-*`` hints. Returns a note for the task log when a hint changed something."""
        used: float | None = None
        if usage is not None and usage.prompt_tokens is not None:
            used = usage.total
        elif signal is Signal.REFUSAL:
            used = 0.0
        completion = None if usage is None else usage.completion_tokens
        note = self.tokens.settle(self._clock(), reserved, used, profile=profile, completion=completion,
                                  hints=hints, next_need=next_need, refused=signal is Signal.REFUSAL)
        if note is not None:
            self._wake_all()
        return note

    def release(self, signal: Signal, *, retry_after_s: float | None = None, detail: str = "",
                kind: str | None = None) -> float | None:
        """End one attempt's hold on the gate and learn from how it ended (``kind``: the failure's
        error kind). Returns the endpoint's pause in seconds after a refusal (for the task log), else None."""
        now = self._clock()
        self.last_signal = signal.value
        pause: float | None = None
        was: BreakerState | None = self.breaker.state
        if signal is Signal.SUCCESS:
            self.gate.on_success(now)
            self.breaker.record(True, now)
        elif signal is Signal.FAILURE:
            self.breaker.record(False, now)
        elif signal is Signal.REFUSAL:
            self.refusals += 1
            base, cap = self._backoff
            pause = self.gate.on_refusal(
                now, retry_after_s, backoff_base_s=base, backoff_max_s=cap, u=self._rng.random()
            )
            if was is BreakerState.HALF_OPEN:
                self.breaker.record(False, now)
            else:
                self.breaker.trip_if_stalled(self.gate.refusals_without_success_since, now)
        elif signal is Signal.UNAVAILABLE:
            self.breaker.trip(now, LOG.unavailable(error=detail))
        elif signal is Signal.OUT_OF_CREDIT:
            self.breaker.trip(now, LOG.out_of_credit(error=detail))
        elif signal is Signal.MISCONFIGURED:
            if self.stopped is None:
                self.stopped, self.stopped_kind, self.stopped_since = detail, kind, time.time()
                was = None  # always tell: being stopped is news even when the breaker was open already
            self.breaker.trip(now, LOG.stopped(error=self.stopped))
        else:
            self.breaker.cancel_trial()
        self.gate.release()  # after on_refusal: it reads how many were in flight when refused
        if self.breaker.state is not was:
            self._changed(was)
        self._wake_all()
        return pause

    def notice(self, message: LogText) -> None:
        """Tell the operator something about this callee (a bot check waiting for a person, ...)."""
        self._on_event(message)

    def trip(self, reason: LogValue) -> None:
        was = self.breaker.state
        self.breaker.trip(self._clock(), reason)
        if self.breaker.state is not was:
            self._changed(was)

    def _changed(self, was: BreakerState | None) -> None:
        b = self.breaker
        if b.state is BreakerState.CLOSED:
            self._open_since_wall = None
        elif self._open_since_wall is None:
            self._open_since_wall = time.time()
        callee, reason = callee_word(self.kind), b.reason_text if b.reason_text is not None else "None"
        if was is None:  # stopped by its configuration: no prober, nothing to wait for
            stopped = (LOG.stopped_until_key_fixed if self.stopped_kind == ErrorKind.AUTH.value
                       else LOG.stopped_until_config_fixed)
            self._on_event(stopped(callee=callee, name=self.name, reason=reason))
            return
        states = {"callee": callee, "name": self.name, "was": breaker_word(was.value),
                  "breaker": breaker_word(b.state.value)}
        if b.state is not BreakerState.OPEN:
            self._on_event(LOG.breaker_changed(**states))
        else:
            reason = b.reason_text or "failures"
            since = self._waiting_since()
            self._on_event(
                LOG.breaker_changed_reason(**states, reason=reason, more=self._waiting_for()) if since is None
                else LOG.breaker_opened_waiting(**states, reason=reason, **since))
        if b.state is BreakerState.OPEN:
            self._ensure_prober()

    def resume(self) -> bool:
        """The operator fixed what stopped this callee: dispatch again (the breaker closed, the
        lanes woken). False when it was not stopped."""
        if self.stopped is None:
            return False
        reason = self.stopped
        self.stopped = self.stopped_kind = self.stopped_since = None
        self.breaker.reset()
        self._open_since_wall = None
        self._on_event(LOG.resumed_by_operator(callee=callee_word(self.kind), name=self.name, reason=reason))
        self._wake_all()
        return True

    def _waiting_since(self) -> dict[str, LogValue] | None:
        """Since when dispatch to this callee waits for a probe, and how often one goes (for notices);
        None when the outage's start is not known."""
        since = self._open_since_wall
        if since is None:
            return None
        return {"since": time.strftime("%H:%M:%S", time.localtime(since)), "seconds": f"{time.time() - since:.0f}",
                "interval": f"{self.breaker.config.probe_interval_s:g}"}

    def _waiting_for(self) -> str:
        """The same without its start (shown as is: no phrase of its own)."""
        return (f"; waiting for it to answer a probe (every {self.breaker.config.probe_interval_s:g} s); "
                "its tasks stay pending, nothing is charged")

    # ------------------------------------------------------------------ probes
    def _ensure_prober(self) -> None:
        if self.stopped is not None:
            return  # a probe cannot fix a configuration
        if self._closed or (self._probe_task is not None and not self._probe_task.done()):
            return
        try:
            self._probe_task = asyncio.get_running_loop().create_task(self._probe_loop(), name=f"probe:{self.name}")
        except RuntimeError:  # no loop (pure unit use): probes start with the next open
            self._probe_task = None

    async def _probe_loop(self) -> None:
        """While the breaker is open: one health probe every ``probe_interval_s``. A good probe
        half-opens it (one trial task goes through); a bad one keeps it open."""
        while not self._closed and self.stopped is None and self.breaker.state is BreakerState.OPEN:
            now = self._clock()
            due = self.breaker.next_probe_at
            if due is not None and now < due:
                await asyncio.sleep(due - now)
                continue
            ok, what = True, LOG.no_probe()
            self.breaker.begin_probe(now)
            if self.probe is not None:
                self.probes_sent += 1
                try:
                    ok, what = await self.probe()
                except Exception as exc:  # a probe must never kill the loop
                    ok, what = False, LOG.probe_error(error=repr(exc))
            was = self.breaker.state
            self.breaker.on_probe(ok, self._clock())
            if self.stopped is not None:
                return  # a task's TLS error stopped it while the probe was out
            callee = callee_word(self.kind)
            since = self._waiting_since()
            if ok:
                self._on_event(LOG.probe_ok(callee=callee, name=self.name, what=what))
            elif since is None:
                self._on_event(LOG.probe_failed(callee=callee, name=self.name, what=what, more=self._waiting_for()))
            else:
                self._on_event(LOG.probe_failed_waiting(callee=callee, name=self.name, what=what, **since))
            if self.breaker.state is not was:
                self._changed(was)
                self._wake_all()

    async def close(self) -> None:
        self._closed = True
        if self._probe_task is not None:
            self._probe_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._probe_task

    def view(self) -> CapacityView:
        b = self.breaker
        return CapacityView(
            name=self.name, kind=self.kind, limit=self.limit, current_limit=self.gate.current_limit,
            in_flight=self.gate.in_flight, paused_until=self.gate.paused_until, breaker=b.state.value,
            breaker_reason=b.reason, next_probe_at=None if self.stopped is not None else b.next_probe_at,
            last_signal=self.last_signal, refusals=self.refusals, stopped=self.stopped,
            stopped_kind=self.stopped_kind, stopped_since=self.stopped_since,
        )
