"""Retry policy: how long to wait before the next attempt, and whether there is one."""

from __future__ import annotations

import random
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

from mediadesk.core.errors import TaskFailure


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 2            # retries after the first attempt: 3 attempts in all
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0     # also caps a provider's Retry-After
    jitter: float = 0.5             # fraction of the delay that is randomised

    def should_retry(self, failure: TaskFailure, attempt: int) -> bool:
        """``attempt`` is the number of the attempt that just failed (1-based)."""
        return failure.retryable and attempt <= self.max_retries

    def delay(self, attempt: int, retry_after_s: float | None = None, rng: random.Random | None = None) -> float:
        """Exponential backoff with jitter; never shorter than the server's Retry-After, never over the cap."""
        r = rng or random
        expo = self.backoff_base_s * (2 ** max(0, attempt - 1))
        expo = min(expo, self.backoff_max_s)
        d = expo * (1 - self.jitter) + expo * self.jitter * r.random()
        if retry_after_s is not None and retry_after_s > 0:
            d = max(d, retry_after_s)
        return min(d, self.backoff_max_s)


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
