"""Quarantine: which failures count, and the threshold."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mediadesk.core.errors import ErrorKind
from mediadesk.core.quarantine import QUARANTINE_KINDS, counts_toward_quarantine, should_quarantine


def test_only_crashes_and_whole_run_timeouts_count() -> None:
    counted = {k for k in ErrorKind if counts_toward_quarantine(k)}
    assert counted == {ErrorKind.BROWSER_CRASH, ErrorKind.TIMEOUT, ErrorKind.HEARTBEAT_TIMEOUT} == QUARANTINE_KINDS
    for kind in (ErrorKind.RATE_LIMITED, ErrorKind.SERVER_ERROR, ErrorKind.BAD_REQUEST, ErrorKind.SITE_ERROR):
        assert not counts_toward_quarantine(kind)


def test_threshold() -> None:
    assert not should_quarantine(1, 2)
    assert should_quarantine(2, 2) and should_quarantine(3, 2)
    assert not should_quarantine(100, 0)  # 0 disables quarantine


@given(attempts=st.integers(0, 50), threshold=st.integers(-5, 50))
def test_threshold_is_monotonic(attempts: int, threshold: int) -> None:
    q = should_quarantine(attempts, threshold)
    assert q == (threshold > 0 and attempts >= threshold)
    if q:
        assert should_quarantine(attempts + 1, threshold)
