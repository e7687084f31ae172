"""Pure unit tests: the state machine and the retry policy."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from email.utils import format_datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.core.policy import RetryPolicy, parse_retry_after
from mediadesk.core.states import TERMINAL_STATES, TaskState, can_transition


def test_state_machine_edges() -> None:
    assert can_transition(TaskState.PENDING, TaskState.RUNNING)
    assert can_transition(TaskState.PENDING, TaskState.CANCELED)
    assert not can_transition(TaskState.PENDING, TaskState.SUCCESS)  # never a success that did not run
    assert can_transition(TaskState.RUNNING, TaskState.PENDING)  # deferred retry, same row
    assert not any(can_transition(TaskState.SUCCESS, s) for s in TaskState)  # a result is final
    assert {s for s in TaskState if s.terminal} == set(TERMINAL_STATES)


def test_retryable_kinds() -> None:
    for kind in (ErrorKind.TIMEOUT, ErrorKind.RATE_LIMITED, ErrorKind.SERVER_ERROR, ErrorKind.CONNECTION,
                 ErrorKind.HEARTBEAT_TIMEOUT, ErrorKind.BROWSER_CRASH):
        assert kind.retryable
    for kind in (ErrorKind.BAD_REQUEST, ErrorKind.AUTH, ErrorKind.NEEDS_LOGIN, ErrorKind.CANCELED,
                 ErrorKind.PROFILE_IN_USE):
        assert not kind.retryable


def test_should_retry_counts_attempts() -> None:
    p = RetryPolicy(max_retries=2)
    f = TaskFailure(ErrorKind.SERVER_ERROR, "500")
    assert p.should_retry(f, 1) and p.should_retry(f, 2) and not p.should_retry(f, 3)
    assert not p.should_retry(TaskFailure(ErrorKind.BAD_REQUEST, "400"), 1)


@given(attempt=st.integers(1, 30), retry_after=st.one_of(st.none(), st.floats(0, 1000)), seed=st.integers())
def test_delay_is_bounded_and_honours_retry_after(attempt: int, retry_after: float | None, seed: int) -> None:
    p = RetryPolicy(backoff_base_s=1.0, backoff_max_s=60.0, jitter=0.5)
    d = p.delay(attempt, retry_after, rng=random.Random(seed))
    assert 0 < d <= 60.0
    expo = min(60.0, 2 ** (attempt - 1))
    assert d >= min(expo * 0.5, 60.0) - 1e-9
    if retry_after is not None:
        assert d >= min(retry_after, 60.0) - 1e-9


def test_backoff_grows_exponentially_with_jitter() -> None:
    p = RetryPolicy(backoff_base_s=1.0, backoff_max_s=60.0, jitter=0.5)
    rng = random.Random(1)
    firsts = [p.delay(1, rng=rng) for _ in range(200)]
    thirds = [p.delay(3, rng=rng) for _ in range(200)]
    assert min(firsts) >= 0.5 and max(firsts) <= 1.0 and len(set(firsts)) > 100  # jittered
    assert min(thirds) >= 2.0 and max(thirds) <= 4.0


@pytest.mark.parametrize(("value", "expected"), [("5", 5.0), (" 0.5 ", 0.5), ("-3", None), ("soon", None),
                                                 ("", None), (None, None), ("inf", None)])
def test_parse_retry_after_seconds(value: str | None, expected: float | None) -> None:
    assert parse_retry_after(value) == expected


def test_parse_retry_after_http_date() -> None:
    now = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
    later = datetime(2026, 11, 30, 12, 0, 30, tzinfo=UTC)
    assert parse_retry_after(format_datetime(later, usegmt=True), now=now.timestamp()) == pytest.approx(30.0)
    assert parse_retry_after(format_datetime(now, usegmt=True), now=later.timestamp()) == 0.0
