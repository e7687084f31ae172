"""CircuitBreaker: failure-rate window, trips, probes, the single half-open trial; any event sequence."""

from __future__ import annotations

from collections import deque

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from mediadesk.core.breaker import BreakerConfig, BreakerState, CircuitBreaker

CFG = BreakerConfig(window=20, failure_rate=0.5, min_calls=10, cooldown_s=120.0, probe_interval_s=10.0)


def opened(now: float = 0.0) -> CircuitBreaker:
    b = CircuitBreaker(CFG)
    b.trip(now, "test")
    return b


def half_open(now: float = 0.0) -> CircuitBreaker:
    b = opened(now)
    b.on_probe(True, now + 10.0)
    return b


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"window": 0}, r"^window must be >= 1"),
     ({"min_calls": 0}, r"^min_calls must be within 1\.\.window"),
     ({"min_calls": 21}, r"^min_calls must be within 1\.\.window"),
     ({"failure_rate": 0.0}, r"^failure_rate must be within \(0, 1\]"),
     ({"failure_rate": 1.5}, r"^failure_rate must be within \(0, 1\]"),
     ({"cooldown_s": -1.0}, r"^cooldown_s and probe_interval_s must be >= 0"),
     ({"probe_interval_s": -1.0}, r"^cooldown_s and probe_interval_s must be >= 0")],
)
def test_config_is_validated(kwargs: dict[str, float], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        BreakerConfig(**kwargs)  # type: ignore[arg-type]


def test_defaults_and_state_values() -> None:
    assert BreakerConfig() == CFG
    assert [s.value for s in BreakerState] == ["closed", "open", "half_open"]
    assert BreakerState("half_open") is BreakerState.HALF_OPEN and BreakerState.OPEN == "open"


def test_no_opening_before_min_calls() -> None:
    b = CircuitBreaker(CFG)
    for i in range(9):
        b.record(False, float(i))
    assert b.state is BreakerState.CLOSED and b.allow_dispatch(9.0)
    b.record(False, 9.0)
    assert b.state is BreakerState.OPEN and b.opened_at == 9.0 and b.next_probe_at == 19.0
    assert b.reason == "10 of the last 10 calls failed"


def test_opens_at_the_failure_rate_not_below() -> None:
    b = CircuitBreaker(CFG)
    for ok in [True] * 6 + [False] * 4:
        b.record(ok, 0.0)
    assert b.state is BreakerState.CLOSED and b.failure_fraction() == 0.4
    b.record(False, 1.0)  # 5 of 11
    assert b.state is BreakerState.CLOSED
    b.record(False, 2.0)  # 6 of 12 = 0.5
    assert b.state is BreakerState.OPEN


def test_old_failures_slide_out_of_the_window() -> None:
    b = CircuitBreaker(BreakerConfig(window=10, min_calls=10, failure_rate=0.5))
    for ok in [False] * 4 + [True] * 6:
        b.record(ok, 0.0)
    for _ in range(4):
        b.record(False, 1.0)  # the 4 old failures slide out as 4 new ones come in
    assert b.state is BreakerState.CLOSED and b.outcomes.count(False) == 4
    b.record(False, 2.0)
    assert b.state is BreakerState.OPEN


def test_open_refuses_dispatch_and_never_half_opens_by_itself() -> None:
    b = opened(100.0)
    assert b.state is BreakerState.OPEN and b.reason == "test"
    assert not b.allow_dispatch(100.0) and not b.try_dispatch(100.0)
    assert not b.probe_due(109.9) and b.probe_due(110.0)
    far = 100.0 + 50 * CFG.cooldown_s
    assert b.state is BreakerState.OPEN and not b.allow_dispatch(far)  # only probes end an outage


def test_failed_probe_waits_an_interval_successful_probe_half_opens() -> None:
    b = opened(0.0)
    b.begin_probe(10.0)
    assert not b.probe_due(15.0)  # one probe at a time
    b.on_probe(False, 12.0)
    assert b.state is BreakerState.OPEN and b.next_probe_at == 22.0
    assert not b.probe_due(21.0) and b.probe_due(22.0)
    b.on_probe(True, 23.0)
    assert b.state is BreakerState.HALF_OPEN and b.next_probe_at is None and b.opened_at == 0.0


def test_half_open_lets_exactly_one_trial_through() -> None:
    b = half_open()
    assert b.allow_dispatch(20.0) and b.try_dispatch(20.0)
    assert not b.allow_dispatch(20.0) and not b.try_dispatch(21.0)
    with pytest.raises(RuntimeError):
        b.begin_trial()
    b.cancel_trial()  # the trial was canceled: the slot is free again
    assert b.try_dispatch(22.0) and not b.allow_dispatch(22.0)


def test_successful_trial_closes_and_clears_the_window() -> None:
    b = CircuitBreaker(CFG)
    for _ in range(10):
        b.record(False, 0.0)
    b.on_probe(True, 10.0)
    b.begin_trial()
    b.record(True, 15.0)
    assert b.state is BreakerState.CLOSED and b.outcomes == () and b.reason is None and b.opened_at is None
    assert b.allow_dispatch(15.0) and b.allow_dispatch(15.0)  # closed: no trial bookkeeping


def test_failed_trial_opens_again() -> None:
    b = half_open(0.0)
    b.begin_trial()
    b.record(False, 30.0)
    assert b.state is BreakerState.OPEN and b.next_probe_at == 40.0 and not b.trial_in_flight
    assert b.opened_at == 0.0  # the same outage


def test_outcomes_while_open_are_ignored() -> None:
    b = opened(0.0)
    b.record(True, 1.0)
    b.record(True, 2.0)
    assert b.state is BreakerState.OPEN and b.outcomes == ()


def test_trip_while_open_only_changes_the_reason() -> None:
    b = opened(0.0)
    b.trip(5.0, "out of credit")
    assert b.reason == "out of credit" and b.opened_at == 0.0 and b.next_probe_at == 10.0


def test_trip_if_stalled_after_cooldown() -> None:
    b = CircuitBreaker(CFG)
    assert not b.trip_if_stalled(None, 1000.0)
    assert not b.trip_if_stalled(0.0, 119.9) and b.state is BreakerState.CLOSED
    assert b.trip_if_stalled(0.0, 120.0) and b.state is BreakerState.OPEN
    assert not b.trip_if_stalled(0.0, 500.0)  # already open


def test_probe_answer_after_reset_is_ignored() -> None:
    b = opened(0.0)
    b.begin_probe(10.0)
    b.reset()
    b.on_probe(True, 11.0)
    assert b.state is BreakerState.CLOSED and not b.probe_in_flight


class BreakerMachine(RuleBasedStateMachine):
    """Random events: legal states only, the window rule matches a model, one trial per half-open spell."""

    def __init__(self) -> None:
        super().__init__()
        self.cfg = BreakerConfig(window=6, failure_rate=0.5, min_calls=4, cooldown_s=30.0, probe_interval_s=5.0)
        self.b = CircuitBreaker(self.cfg)
        self.now = 0.0
        self.model: deque[bool] = deque(maxlen=self.cfg.window)
        self.trials_this_spell = 0

    def _after(self, before: BreakerState) -> None:
        if self.b.state is not BreakerState.HALF_OPEN or before is not BreakerState.HALF_OPEN:
            self.trials_this_spell = 0
        if self.b.state is not BreakerState.CLOSED:
            self.model.clear()

    @rule(dt=st.floats(0, 20))
    def tick(self, dt: float) -> None:
        self.now += dt

    @rule(success=st.booleans())
    def record(self, success: bool) -> None:
        before = self.b.state
        self.b.record(success, self.now)
        if before is BreakerState.CLOSED:
            self.model.append(success)
            fails = self.model.count(False)
            should_open = len(self.model) >= self.cfg.min_calls and fails / len(self.model) >= self.cfg.failure_rate
            assert (self.b.state is BreakerState.OPEN) == should_open
        elif before is BreakerState.HALF_OPEN:
            assert self.b.state is (BreakerState.CLOSED if success else BreakerState.OPEN)
        else:
            assert self.b.state is BreakerState.OPEN
        if self.b.state is BreakerState.CLOSED and before is not BreakerState.CLOSED:
            self.model.clear()
        self._after(before)

    @rule()
    def trip(self) -> None:
        before = self.b.state
        self.b.trip(self.now, "tripped")
        assert self.b.state is BreakerState.OPEN and self.b.reason == "tripped"
        self._after(before)

    @rule(ok=st.booleans(), begin=st.booleans())
    def probe(self, ok: bool, begin: bool) -> None:
        before = self.b.state
        if begin:
            self.b.begin_probe(self.now)
        self.b.on_probe(ok, self.now)
        if before is BreakerState.OPEN:
            assert self.b.state is (BreakerState.HALF_OPEN if ok else BreakerState.OPEN)
        else:
            assert self.b.state is before
        self._after(before)

    @rule()
    def dispatch(self) -> None:
        before = self.b.state
        allowed = self.b.try_dispatch(self.now)
        trial_free = before is BreakerState.HALF_OPEN and self.trials_this_spell == 0
        assert allowed == (before is BreakerState.CLOSED or trial_free)
        if allowed and before is BreakerState.HALF_OPEN:
            self.trials_this_spell += 1

    @precondition(lambda self: self.b.trial_in_flight)
    @rule()
    def cancel_trial(self) -> None:
        self.b.cancel_trial()
        self.trials_this_spell -= 1

    @rule()
    def reset(self) -> None:
        before = self.b.state
        self.b.reset()
        self.model.clear()
        self._after(before)

    @invariant()
    def legal(self) -> None:
        b = self.b
        assert b.state in set(BreakerState)
        assert (b.next_probe_at is not None) == (b.state is BreakerState.OPEN)
        assert (b.reason is None) == (b.state is BreakerState.CLOSED)
        assert (b.opened_at is None) == (b.state is BreakerState.CLOSED)
        assert not b.trial_in_flight or b.state is BreakerState.HALF_OPEN
        assert not b.probe_in_flight or b.state is BreakerState.OPEN
        assert b.state is BreakerState.CLOSED or b.outcomes == ()
        assert self.trials_this_spell <= 1
        assert b.trial_in_flight == (self.trials_this_spell == 1)


TestBreakerMachine = BreakerMachine.TestCase
TestBreakerMachine.settings = settings(max_examples=200, stateful_step_count=50, deadline=None)
