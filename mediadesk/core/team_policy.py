"""Team mode timing: when a desktop beats, when it must stop trusting its leases, when to re-poll.

Leases expire ``stale_after_s`` after their last renewal by the DATABASE's clock; every heartbeat
renews them. Local judgements use only this desktop's monotonic clock: beat at least
:data:`MIN_BEATS_PER_LEASE` times per lease, and since the database runs a renewal after we send it,
a lease is surely ours until ``sent_at + stale_after_s``; stop using it a margin before that
(:func:`lease_valid_for`). Account polls wait for the holder's expiry; slot polls back off
exponentially with jitter.
"""

from __future__ import annotations

import math

__all__ = [
    "MIN_BEATS_PER_LEASE",
    "beat_interval_s",
    "lease_margin_s",
    "lease_retry_delay",
    "lease_valid_for",
    "slot_retry_delay",
]

#: Beats per ``stale_after_s``: two beats may be lost or late and the lease still holds.
MIN_BEATS_PER_LEASE = 3

#: Slot polls: the first retry after this long, doubling up to ``_SLOT_MAX_S``.
_SLOT_BASE_S = 0.05
_SLOT_MAX_S = 2.0


def _check_stale(stale_after_s: float) -> float:
    if not 0 < stale_after_s < math.inf:
        raise ValueError(f"stale_after_s must be finite and > 0, got {stale_after_s}")
    return stale_after_s


def beat_interval_s(stale_after_s: float, configured_s: float | None = None) -> float:
    """Seconds between beats: the configured interval, shortened to keep 3 beats per lease."""
    cap = _check_stale(stale_after_s) / MIN_BEATS_PER_LEASE
    if configured_s is None:
        return cap
    if not 0 < configured_s < math.inf:
        raise ValueError(f"the beat interval must be finite and > 0, got {configured_s}")
    return min(configured_s, cap)


def lease_margin_s(stale_after_s: float) -> float:
    """Safety margin before a lease's certain end: a tenth of the lease, at most 5 s."""
    return min(_check_stale(stale_after_s) / 10.0, 5.0)


def lease_valid_for(last_renewal_sent_at: float, now: float, stale_after_s: float) -> float:
    """Seconds (local monotonic clock) this desktop may still use what its last renewal covered.

    ``last_renewal_sent_at``: local time just BEFORE the last successful renewal (join, acquire or
    beat) was sent. 0 or less: stop using the leases now (they may already belong to another desktop).
    """
    return last_renewal_sent_at + stale_after_s - lease_margin_s(stale_after_s) - now


def lease_retry_delay(expires_in_s: float | None, stale_after_s: float) -> float:
    """Wait before asking again for an account another desktop holds.

    At the holder's expiry (the earliest moment it could become free), but never sooner than a tenth
    of a lease nor later than one lease (a released account is free at once).
    """
    lo = _check_stale(stale_after_s) / 10.0
    if expires_in_s is None or math.isnan(expires_in_s):
        return lo
    return min(stale_after_s, max(lo, expires_in_s))


def slot_retry_delay(attempt: int, u: float) -> float:
    """Wait before the ``attempt``-th (1-based) retry for a slot of a full endpoint.

    ``base * 2**(attempt-1)`` capped at 2 s, times a jitter factor in [0.5, 1) from ``u`` in [0, 1),
    so that desktops refused together do not retry together.
    """
    if attempt < 1:
        raise ValueError(f"attempt must be >= 1, got {attempt}")
    if not 0.0 <= u < 1.0:
        raise ValueError(f"u must be within [0, 1), got {u}")
    step = _SLOT_BASE_S * 2.0 ** min(attempt - 1, 30)
    return min(_SLOT_MAX_S, step) * (0.5 + u / 2.0)
