"""Team timing policy (pure): beat cadence, how long a desktop may trust its leases, re-poll delays."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mediadesk.core.team_policy import (
    MIN_BEATS_PER_LEASE,
    beat_interval_s,
    lease_margin_s,
    lease_retry_delay,
    lease_valid_for,
    slot_retry_delay,
)

stales = st.floats(0.01, 86400.0)
times = st.floats(0.0, 1e7)


@given(stales, st.one_of(st.none(), st.floats(0.001, 3600.0)))
def test_beats_fit_in_a_lease(stale: float, configured: float | None) -> None:
    interval = beat_interval_s(stale, configured)
    assert 0 < interval * MIN_BEATS_PER_LEASE <= stale * (1 + 1e-12)
    if configured is not None:
        assert interval <= configured
        if configured * MIN_BEATS_PER_LEASE <= stale:
            assert interval == configured  # a cadence that already fits is kept


@given(stales, times, st.floats(0.0, 1e4), st.floats(0.0, 1e5))
def test_a_lease_is_trusted_only_while_the_database_still_has_it(
        stale: float, sent_at: float, db_delay: float, later: float) -> None:
    # the database ran the renewal db_delay after it was sent: its expiry is at least sent_at + stale
    db_expiry = sent_at + db_delay + stale
    now = sent_at + later
    if lease_valid_for(sent_at, now, stale) > 0:
        assert now < db_expiry
        assert db_expiry - now >= lease_margin_s(stale) * (1 - 1e-9) - 1e-6  # with the margin to spare


@settings(deadline=None)  # a pure function: a per-example time limit only measures the machine's load
@given(stales, times)
def test_trust_starts_at_the_lease_minus_its_margin_and_runs_down(stale: float, sent_at: float) -> None:
    margin = lease_margin_s(stale)
    assert 0 < margin <= min(stale / 10, 5.0)
    assert lease_valid_for(sent_at, sent_at, stale) == pytest.approx(stale - margin, abs=1e-6)
    assert lease_valid_for(sent_at, sent_at + stale - margin + 1e-3, stale) < 0


@given(st.one_of(st.none(), st.just(math.nan), st.floats(-1e4, 1e6)), stales)
def test_lease_polls_wait_for_the_expiry_within_bounds(expires_in: float | None, stale: float) -> None:
    delay = lease_retry_delay(expires_in, stale)
    assert stale / 10 <= delay <= stale
    if expires_in is not None and stale / 10 <= expires_in <= stale:
        assert delay == expires_in


@given(st.integers(1, 200), st.integers(1, 200), st.floats(0.0, 0.999999))
def test_slot_polls_back_off_with_jitter(a1: int, a2: int, u: float) -> None:
    lo, hi = sorted((a1, a2))
    d_lo, d_hi = slot_retry_delay(lo, u), slot_retry_delay(hi, u)
    assert 0.025 <= d_lo <= d_hi < 2.0


def test_policy_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match=r"^stale_after_s must be finite and > 0"):
        beat_interval_s(0.0)
    with pytest.raises(ValueError, match=r"^stale_after_s must be finite and > 0"):
        lease_retry_delay(1.0, math.inf)
    with pytest.raises(ValueError, match=r"^the beat interval must be finite and > 0"):
        beat_interval_s(10.0, 0.0)
    with pytest.raises(ValueError, match=r"^attempt must be >= 1"):
        slot_retry_delay(0, 0.5)
    with pytest.raises(ValueError, match=r"^u must be within \[0, 1\)"):
        slot_retry_delay(1, 1.0)
    assert beat_interval_s(90.0) == 30.0 and beat_interval_s(90.0, 15.0) == 15.0
    assert slot_retry_delay(1, 0.0) == 0.025 and slot_retry_delay(100, 0.0) == 1.0
