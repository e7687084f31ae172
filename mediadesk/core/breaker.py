"""Circuit breaker for one API endpoint or one web account: closed -> open -> half_open -> closed.

Opens on a high failure rate over ``min_calls`` or on ``trip``. An open breaker never half-opens
on a timer: only a successful probe (cheap, costs no attempt) or ``reset`` ends it, retried every
``probe_interval_s``. Half-open lets exactly one trial task through (``begin_trial``; one that ends
without an outcome must ``cancel_trial``), and any outcome recorded then decides. Outcomes recorded
while open are stragglers and ignored. ``cooldown_s`` is how long refusals with no success are
tolerated before the scheduler trips it (``trip_if_stalled``).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from enum import Enum

from mediadesk.core.log_lines import LOG, LogValue, english

__all__ = ["BreakerConfig", "BreakerState", "CircuitBreaker"]


@dataclass(frozen=True)
class BreakerConfig:
    window: int = 20                # outcomes kept (sliding window)
    failure_rate: float = 0.5       # open when failures / outcomes >= this ...
    min_calls: int = 10             # ... over at least this many outcomes
    cooldown_s: float = 120.0       # refusals with no success for this long -> trip
    probe_interval_s: float = 10.0  # between probes while open

    def __post_init__(self) -> None:
        if self.window < 1:
            raise ValueError(f"window must be >= 1, got {self.window}")
        if not 1 <= self.min_calls <= self.window:
            raise ValueError(f"min_calls must be within 1..window, got {self.min_calls}")
        if not 0.0 < self.failure_rate <= 1.0:
            raise ValueError(f"failure_rate must be within (0, 1], got {self.failure_rate}")
        if self.cooldown_s < 0 or self.probe_interval_s < 0:
            raise ValueError("cooldown_s and probe_interval_s must be >= 0")


class BreakerState(str, Enum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class CircuitBreaker:
    """Sliding-window failure-rate breaker with probe-driven recovery and a single half-open trial."""

    def __init__(self, config: BreakerConfig | None = None) -> None:
        self.config = config or BreakerConfig()
        self.state = BreakerState.CLOSED
        #: Why it opened (shown to the operator, words of ours as a LogText); None while closed.
        self.reason_text: LogValue | None = None
        #: When the current outage began (kept through half-open); None while closed.
        self.opened_at: float | None = None
        #: When the next probe is due; set only while open.
        self.next_probe_at: float | None = None
        self.trial_in_flight = False
        self.probe_in_flight = False
        self._outcomes: deque[bool] = deque(maxlen=self.config.window)

    @property
    def reason(self) -> str | None:
        """Why it opened, in English; None while closed."""
        return None if self.reason_text is None else english(self.reason_text)

    def __repr__(self) -> str:
        return f"CircuitBreaker({self.state.value}, reason={self.reason!r}, next_probe_at={self.next_probe_at})"

    # -- queries -------------------------------------------------------------------------------

    @property
    def outcomes(self) -> tuple[bool, ...]:
        """The sliding window, oldest first (True = success)."""
        return tuple(self._outcomes)

    def failure_fraction(self) -> float:
        n = len(self._outcomes)
        return 0.0 if n == 0 else self._outcomes.count(False) / n

    def allow_dispatch(self, now: float) -> bool:
        """May a task be dispatched? In half-open, only while the single trial slot is free."""
        if self.state is BreakerState.CLOSED:
            return True
        if self.state is BreakerState.HALF_OPEN:
            return not self.trial_in_flight
        return False

    def probe_due(self, now: float) -> bool:
        return (
            self.state is BreakerState.OPEN
            and not self.probe_in_flight
            and self.next_probe_at is not None
            and now >= self.next_probe_at
        )

    # -- events --------------------------------------------------------------------------------

    def record(self, success: bool, now: float) -> None:
        """A task finished with an outcome that says something about the endpoint (or account)."""
        if self.state is BreakerState.OPEN:
            return  # a straggler from before the breaker opened: probes decide
        if self.state is BreakerState.HALF_OPEN:
            if success:
                self._close()
            else:
                self._open(now, LOG.trial_failed())
            return
        self._outcomes.append(success)
        if len(self._outcomes) >= self.config.min_calls and self.failure_fraction() >= self.config.failure_rate:
            failed = self._outcomes.count(False)
            self._open(now, LOG.calls_failed(failed=failed, n=len(self._outcomes)))

    def trip(self, now: float, reason: LogValue) -> None:
        """Open at once (out of credit, refusals for too long, ...). Already open: only the reason changes."""
        if self.state is BreakerState.OPEN:
            self.reason_text = reason
            return
        self._open(now, reason)

    def trip_if_stalled(self, refusing_since: float | None, now: float) -> bool:
        """Trip when refusals have gone on with no success for ``cooldown_s``; True if it tripped now.

        ``refusing_since`` is ``AdaptiveGate.refusals_without_success_since``.
        """
        if refusing_since is None or self.state is BreakerState.OPEN:
            return False
        if now - refusing_since < self.config.cooldown_s:
            return False
        self._open(now, LOG.refused_too_long(seconds=f"{now - refusing_since:.0f}"))
        return True

    def begin_trial(self) -> None:
        """Take the half-open trial slot for the task about to be dispatched."""
        if self.state is not BreakerState.HALF_OPEN or self.trial_in_flight:
            raise RuntimeError(f"no trial slot: breaker {self.state.value}, trial in flight {self.trial_in_flight}")
        self.trial_in_flight = True

    def try_dispatch(self, now: float) -> bool:
        """``allow_dispatch`` and, when half-open, ``begin_trial`` in one step."""
        if not self.allow_dispatch(now):
            return False
        if self.state is BreakerState.HALF_OPEN:
            self.begin_trial()
        return True

    def cancel_trial(self) -> None:
        """The trial ended without an outcome (canceled, not started): free the slot, stay half-open."""
        self.trial_in_flight = False

    def begin_probe(self, now: float) -> None:
        """A probe was sent: ``probe_due`` stays False until ``on_probe``."""
        if self.state is BreakerState.OPEN:
            self.probe_in_flight = True

    def on_probe(self, ok: bool, now: float) -> None:
        """A probe answered. Ignored unless open (the operator may have reset the breaker meanwhile)."""
        self.probe_in_flight = False
        if self.state is not BreakerState.OPEN:
            return
        if ok:
            self.state = BreakerState.HALF_OPEN
            self.next_probe_at = None
            self.trial_in_flight = False
        else:
            self.next_probe_at = now + self.config.probe_interval_s

    def reset(self) -> None:
        """The operator closed the breaker by hand: forget the window and the outage."""
        self._close()

    # -- transitions ---------------------------------------------------------------------------

    def _open(self, now: float, reason: LogValue) -> None:
        if self.opened_at is None:
            self.opened_at = now
        self.state = BreakerState.OPEN
        self.reason_text = reason
        self.next_probe_at = now + self.config.probe_interval_s
        self.trial_in_flight = False
        self.probe_in_flight = False
        self._outcomes.clear()  # the window describes the closed spell; ``reason`` keeps the summary

    def _close(self) -> None:
        self.state = BreakerState.CLOSED
        self.reason_text = None
        self.opened_at = None
        self.next_probe_at = None
        self.trial_in_flight = False
        self.probe_in_flight = False
        self._outcomes.clear()
