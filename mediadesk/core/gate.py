"""Adaptive concurrency gate for one API endpoint (AIMD), shared by every profile on it.

Providers rarely state their limit; they refuse (429) past it. The gate learns ``current_limit``
(up to the operator's ``limit``) and pauses the endpoint after a refusal. Decrease, with
``on_refusal`` called *before* ``release``: ``current_limit = max(1, min(current_limit, in_flight - 1))``
(a refusal at ``k`` in flight proves the limit is below ``k``; a burst steps down one at a time;
nothing in flight carries no information). Increase: ``+1`` after ``increase_after`` successes in
a row. ``adaptive=False``: refusals still pause, never shrink.
"""

from __future__ import annotations

import math

__all__ = ["MAX_LIMIT", "AdaptiveGate", "refusal_pause"]

#: The largest concurrency an operator may configure for one endpoint (the config's bound too).
MAX_LIMIT = 5

#: Exponent cap for the backoff: 2**60 seconds is beyond any sane ``backoff_max_s`` already.
_MAX_EXPONENT = 60


def _check_limit(n: int) -> int:
    if not 1 <= n <= MAX_LIMIT:
        raise ValueError(f"limit must be within 1..{MAX_LIMIT}, got {n}")
    return n


def refusal_pause(
    refusals: int, retry_after_s: float | None, *, backoff_base_s: float, backoff_max_s: float, u: float
) -> float:
    """How long to pause after the ``refusals``-th consecutive refusal.

    The provider's Retry-After wins when it gives one (capped at ``backoff_max_s``: a provider asking
    for an hour must not stall the console for an hour). Otherwise exponential backoff with FULL
    jitter, ``u * min(max, base * 2**(n-1))``, so that profiles refused together do not retry together.
    A negative or NaN Retry-After is treated as absent.
    """
    if not 0.0 <= u <= 1.0:
        raise ValueError(f"u must be within [0, 1], got {u}")
    if backoff_base_s < 0 or backoff_max_s < 0:
        raise ValueError("backoff durations must be >= 0")
    if retry_after_s is not None and retry_after_s >= 0:  # False for NaN
        return min(retry_after_s, backoff_max_s)
    exponent = min(max(refusals, 1) - 1, _MAX_EXPONENT)
    return u * min(backoff_max_s, backoff_base_s * 2.0**exponent)


class AdaptiveGate:
    """Concurrency gate of one endpoint: learned limit, in-flight count, pause after refusals.

    Pure state: the scheduler passes ``now`` (seconds, any monotonic clock) and the jitter draw ``u``.
    """

    def __init__(self, limit: int, *, adaptive: bool = True, increase_after: int = 5) -> None:
        if increase_after < 1:
            raise ValueError(f"increase_after must be >= 1, got {increase_after}")
        #: The operator's limit, which ``current_limit`` grows back to; the callee's ``Capacity``
        #: (scheduler/capacity.py) owns it and is the one that sets it.
        self.limit = _check_limit(limit)
        #: Start at the configured limit: the operator's number is the best guess until refused.
        self.current_limit = self.limit
        self.adaptive = adaptive
        self.increase_after = increase_after
        self.in_flight = 0
        #: No dispatch before this time. ``-inf`` so that any clock (even negative) is past it.
        self.paused_until = -math.inf
        self.consecutive_refusals = 0
        self.consecutive_successes = 0
        self.last_success_at: float | None = None
        #: Time of the first refusal since the last success (None after a success). The scheduler
        #: trips the endpoint's breaker once this is ``cooldown_s`` old.
        self.refusals_without_success_since: float | None = None
        #: The limit was raised since the last refusal: a refusal now means that step was too far.
        self._raised = False
        #: Ceiling of the probe back-off (successes needed before trying one more).
        self.max_increase_after = increase_after * 64

    def __repr__(self) -> str:
        return (
            f"AdaptiveGate(limit={self.limit}, current_limit={self.current_limit}, in_flight={self.in_flight}, "
            f"paused_until={self.paused_until}, consecutive_refusals={self.consecutive_refusals})"
        )

    # -- dispatch ------------------------------------------------------------------------------

    def paused(self, now: float) -> bool:
        return now < self.paused_until

    def can_acquire(self, now: float) -> bool:
        return self.in_flight < self.current_limit and not self.paused(now)

    def acquire(self) -> None:
        """Take a slot. Call only after ``can_acquire(now)``; a slot beyond the limit is a bug."""
        if self.in_flight >= self.current_limit:
            raise RuntimeError(f"gate full: {self.in_flight} in flight, limit {self.current_limit}")
        self.in_flight += 1

    def try_acquire(self, now: float) -> bool:
        """``can_acquire`` and ``acquire`` in one step, for callers that need both."""
        if not self.can_acquire(now):
            return False
        self.acquire()
        return True

    def release(self) -> None:
        """Give a slot back once a request ended, whatever its outcome (after ``on_refusal``)."""
        if self.in_flight <= 0:
            raise RuntimeError("release without acquire")
        self.in_flight -= 1

    # -- outcomes ------------------------------------------------------------------------------

    def on_success(self, now: float) -> None:
        """A request was served: end the refusal streak; grow the limit by one after a success streak."""
        self.consecutive_refusals = 0
        self.refusals_without_success_since = None
        self.last_success_at = now
        self.consecutive_successes += 1
        if self.consecutive_successes >= self.increase_after:
            self.consecutive_successes = 0
            if self.adaptive and self.current_limit < self.limit:
                self.current_limit += 1
                self._raised = True

    def on_refusal(
        self,
        now: float,
        retry_after_s: float | None,
        *,
        backoff_base_s: float,
        backoff_max_s: float,
        u: float,
    ) -> float:
        """The provider refused a request (429): shrink the limit, pause the gate; return the pause.

        Call before ``release`` of the refused request (see the module docstring). The pause never
        shortens one already running; the return value is how long the gate stays paused from ``now``.
        """
        self.consecutive_successes = 0
        if self._raised and self.adaptive:
            # The step up was refused: the provider's limit is where we were. Try that step again
            # only after twice as many successes, so a steady provider costs ever fewer refusals.
            self.increase_after = min(self.max_increase_after, self.increase_after * 2)
        self._raised = False
        self.consecutive_refusals += 1
        if self.refusals_without_success_since is None:
            self.refusals_without_success_since = now
        if self.adaptive and self.in_flight > 0:
            self.current_limit = max(1, min(self.current_limit, self.in_flight - 1))
        wait = refusal_pause(
            self.consecutive_refusals,
            retry_after_s,
            backoff_base_s=backoff_base_s,
            backoff_max_s=backoff_max_s,
            u=u,
        )
        if now + wait >= self.paused_until:
            self.paused_until = now + wait
            return wait
        return self.paused_until - now

    def refusing_for(self, now: float) -> float:
        """Seconds of refusals with no success in between (0 when the last outcome was a success)."""
        since = self.refusals_without_success_since
        return 0.0 if since is None else max(0.0, now - since)

    # -- operator ------------------------------------------------------------------------------

    def set_limit(self, n: int) -> None:
        """The operator changed the concurrency.

        Lowering clamps the learned limit at once (requests already in flight finish; no new one
        starts until ``in_flight`` is below the new limit). Raising follows the operator when nothing
        was learned (``current_limit`` was at the old limit, or the gate is not adaptive); otherwise
        the learned limit stays and grows back by the usual success streaks.
        """
        n = _check_limit(n)
        followed = self.current_limit >= self.limit or not self.adaptive
        self.limit = n
        self.current_limit = n if followed else max(1, min(self.current_limit, n))
