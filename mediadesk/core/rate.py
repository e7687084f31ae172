"""Request-rate limits: a token bucket, and the global + per-domain buckets of the dispatcher.

Burst default: 1 token. Providers enforce "requests per minute" over windows much shorter than a
minute, and a console that sends its whole minute's quota in the first second collects 429s for
the rest of it. With ``burst = 1`` requests are spread evenly, one every ``60 / rate`` seconds;
pass a larger ``burst`` where a provider is known to tolerate bursts.

A rate of 0 means unlimited (no bucket at all), matching "0 = no limit" in the settings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

__all__ = ["DEFAULT_BURST", "RateGates", "TokenBucket"]

DEFAULT_BURST = 1.0

#: Float slack on token counts, so that taking after exactly ``wait_time`` succeeds despite rounding
#: of ``now + wait`` on a large clock. It lets through at most a millionth of a token per take more
#: than the exact budget.
_EPS = 1e-6


class TokenBucket:
    """``rate_per_min`` tokens a minute, at most ``burst`` banked; full at the first use."""

    def __init__(self, rate_per_min: float, burst: float | None = None) -> None:
        if not rate_per_min >= 0 or math.isinf(rate_per_min):
            raise ValueError(f"rate_per_min must be finite and >= 0, got {rate_per_min}")
        burst = DEFAULT_BURST if burst is None else burst
        if not 1 <= burst < math.inf:
            raise ValueError(f"burst must be finite and >= 1, got {burst}")
        self.rate_per_min = rate_per_min
        self.burst = burst
        self._tokens = burst
        self._last: float | None = None

    def __repr__(self) -> str:
        return f"TokenBucket(rate_per_min={self.rate_per_min}, burst={self.burst}, tokens={self._tokens:.3f})"

    @property
    def unlimited(self) -> bool:
        return self.rate_per_min == 0

    def tokens(self, now: float) -> float:
        """Tokens available at ``now`` (``burst`` when unlimited)."""
        self._refill(now)
        return self._tokens

    def wait_time(self, now: float, n: float = 1) -> float:
        """Seconds from ``now`` until ``n`` tokens are available (0 if they are)."""
        self._check_n(n)
        if self.unlimited:
            return 0.0
        self._refill(now)
        missing = n - self._tokens
        return 0.0 if missing <= _EPS else missing * 60.0 / self.rate_per_min

    def try_take(self, now: float, n: float = 1) -> bool:
        """Take ``n`` tokens if they are there; False (and nothing taken) otherwise."""
        self._check_n(n)
        if self.unlimited:
            return True
        self._refill(now)
        if self._tokens + _EPS < n:
            return False
        self._tokens = max(0.0, self._tokens - n)
        return True

    def _check_n(self, n: float) -> None:
        if not 0 < n <= self.burst:
            raise ValueError(f"n must be within (0, burst={self.burst}], got {n}")

    def _refill(self, now: float) -> None:
        """Add the tokens earned since the last call. A clock going back earns nothing."""
        if self._last is not None and now > self._last:
            earned = (now - self._last) * self.rate_per_min / 60.0
            self._tokens = min(self.burst, self._tokens + earned)
        if self._last is None or now > self._last:
            self._last = now


def _domain_key(domain: str | None) -> str | None:
    return None if domain is None else domain.strip().lower()


class RateGates:
    """A global requests-per-minute bucket plus one bucket per listed domain; rate 0 = unlimited.

    A request to ``domain`` needs a token from both the global bucket and that domain's bucket (if
    the domain is listed; domains match exactly, case-insensitively, no subdomain matching).
    """

    def __init__(self, global_rpm: float, per_domain: Mapping[str, float], *, burst: float | None = None) -> None:
        self.global_bucket = TokenBucket(global_rpm, burst)
        self.domain_buckets: dict[str, TokenBucket] = {
            key: TokenBucket(rpm, burst)
            for name, rpm in per_domain.items()
            if (key := _domain_key(name))
        }

    def __repr__(self) -> str:
        return f"RateGates(global={self.global_bucket!r}, domains={sorted(self.domain_buckets)})"

    def _buckets(self, domain: str | None) -> list[TokenBucket]:
        key = _domain_key(domain)
        extra = self.domain_buckets.get(key) if key else None
        return [self.global_bucket] if extra is None else [self.global_bucket, extra]

    def limits(self, domain: str | None) -> bool:
        """True when some bucket (global or this domain's) actually limits requests to ``domain``."""
        return any(not bucket.unlimited for bucket in self._buckets(domain))

    def wait_time(self, domain: str | None, now: float) -> float:
        """Seconds until a request to ``domain`` (None: no domain) may go."""
        return max(bucket.wait_time(now) for bucket in self._buckets(domain))

    def take(self, domain: str | None, now: float) -> bool:
        """Take one token from every bucket concerned, or from none (False) if one is empty."""
        buckets = self._buckets(domain)
        if any(bucket.wait_time(now) > 0 for bucket in buckets):
            return False
        for bucket in buckets:
            taken = bucket.try_take(now)
            assert taken, "a bucket with wait_time 0 refused a token"
        return True
