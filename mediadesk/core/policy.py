"""Retry policy: how long to wait before the next attempt, and whether there is one."""

from __future__ import annotations

import random
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from enum import Enum
from typing import Protocol

from mediadesk.core.errors import STOPPING_KINDS, ErrorKind, TaskFailure
from mediadesk.core.log_lines import LOG, LogText
from mediadesk.core.quarantine import counts_toward_quarantine, should_quarantine


class _Draw(Protocol):
    def random(self) -> float: ...


class Verdict(str, Enum):
    """What happens to a task after a failed attempt."""

    RETRY = "retry"              # back to pending after ``delay_s``; the attempt counts
    REQUEUE = "requeue"          # back to pending after ``delay_s``; the attempt is refunded
    FAIL = "fail"                # final (the fallback chain may still take it)


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    delay_s: float = 0.0
    #: The error kind to record (may differ from the failure's: e.g. ``quarantined``).
    kind: ErrorKind | None = None
    #: Why, in words for the task log.
    why: LogText | None = None

    @property
    def charged(self) -> bool:
        return self.verdict is not Verdict.REQUEUE


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 2            # retries after the first attempt: 3 attempts in all
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0     # also caps a provider's Retry-After
    jitter: float = 0.5             # fraction of the delay that is randomised

    #: A task that crashed a browser/page or timed out its whole run on this many attempts is set
    #: aside (quarantined) instead of being retried: it is probably what breaks the site.
    quarantine_after: int = 2

    def decide(
        self,
        failure: TaskFailure,
        attempts_in_budget: int,
        *,
        crash_count: int = 0,
        u: float | None = None,
    ) -> Outcome:
        """The whole retry decision, pure. ``attempts_in_budget`` counts the attempt that just
        failed; ``crash_count`` the attempts (this one included) that crashed or timed out the run;
        ``u`` in [0, 1) draws the jitter (random when None)."""
        if failure.not_started:
            wait = failure.retry_after_s or self.backoff_base_s
            return Outcome(Verdict.REQUEUE, wait, failure.kind, LOG.not_started_not_charged())
        if failure.refusal or failure.unavailable:
            # the endpoint's gate/breaker decide when dispatch resumes; the task keeps its place
            if failure.refusal:
                why = LOG.refused_not_charged()
            elif failure.kind in STOPPING_KINDS:
                why = LOG.stopped_callee_not_charged()
            else:
                why = LOG.unreachable_not_charged()
            return Outcome(Verdict.REQUEUE, 0.0, failure.kind, why)
        if counts_toward_quarantine(failure.kind) and should_quarantine(crash_count, self.quarantine_after):
            return Outcome(
                Verdict.FAIL, 0.0, ErrorKind.QUARANTINED,
                LOG.quarantined(n=crash_count),
            )
        if self.should_retry(failure, attempts_in_budget):
            rng = None if u is None else _Fixed(u)
            delay = self.delay(attempts_in_budget, failure.retry_after_s, rng)
            return Outcome(
                Verdict.RETRY, delay, failure.kind,
                LOG.retry_in(n=attempts_in_budget, max=self.max_retries, seconds=f"{delay:.1f}"),
            )
        why = LOG.not_retryable() if not failure.retryable else LOG.no_retries_left()
        return Outcome(Verdict.FAIL, 0.0, failure.kind, why)

    def should_retry(self, failure: TaskFailure, attempt: int) -> bool:
        """``attempt`` is the number of the attempt that just failed (1-based)."""
        return failure.retryable and attempt <= self.max_retries

    def delay(self, attempt: int, retry_after_s: float | None = None, rng: _Draw | None = None) -> float:
        """Exponential backoff with jitter; never shorter than the server's Retry-After, never over the cap."""
        r = rng or random
        expo = self.backoff_base_s * (2 ** max(0, attempt - 1))
        expo = min(expo, self.backoff_max_s)
        d = expo * (1 - self.jitter) + expo * self.jitter * r.random()
        if retry_after_s is not None and retry_after_s > 0:
            d = max(d, retry_after_s)
        return min(d, self.backoff_max_s)


class _Fixed:
    """A ``random.Random`` stand-in that always draws ``u`` (deterministic decisions in tests)."""

    def __init__(self, u: float) -> None:
        self._u = u

    def random(self) -> float:
        return self._u


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Parse an HTTP Retry-After header (delta-seconds or HTTP-date) into seconds from now."""
    if not value:
        return None
    value = value.strip()
    try:
        secs = float(value)
        return secs if secs >= 0 and secs == secs and secs != float("inf") else None
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    import time

    ref = time.time() if now is None else now
    return max(0.0, when.timestamp() - ref)
