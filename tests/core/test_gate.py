"""AdaptiveGate: AIMD limit, pauses after refusals, operator limit; invariants under any sequence."""

from __future__ import annotations

import heapq
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from mediadesk.core.gate import MAX_LIMIT, AdaptiveGate, refusal_pause

BACKOFF = {"backoff_base_s": 1.0, "backoff_max_s": 60.0}


def filled(limit: int, n: int | None = None, *, adaptive: bool = True) -> AdaptiveGate:
    """A gate with ``n`` (default: ``limit``) requests in flight."""
    gate = AdaptiveGate(limit, adaptive=adaptive)
    for _ in range(limit if n is None else n):
        gate.acquire()
    return gate


def refuse(gate: AdaptiveGate, now: float = 0.0, retry_after_s: float | None = 0.0, u: float = 0.5) -> float:
    return gate.on_refusal(now, retry_after_s, u=u, **BACKOFF)


def test_limits_are_validated() -> None:
    for bad in (0, -1, MAX_LIMIT + 1):
        with pytest.raises(ValueError, match=rf"^limit must be within 1\.\.{MAX_LIMIT}, got {bad}$"):
            AdaptiveGate(bad)
    with pytest.raises(ValueError, match=r"^increase_after must be >= 1, got 0$"):
        AdaptiveGate(2, increase_after=0)
    gate = AdaptiveGate(3)
    with pytest.raises(ValueError, match=rf"^limit must be within 1\.\.{MAX_LIMIT}, got 0$"):
        gate.set_limit(0)
    assert gate.limit == 3 and gate.current_limit == 3


def test_acquire_up_to_the_limit_then_refuse_a_slot() -> None:
    gate = AdaptiveGate(2)
    assert gate.try_acquire(0.0) and gate.try_acquire(0.0)
    assert not gate.can_acquire(0.0) and not gate.try_acquire(0.0)
    with pytest.raises(RuntimeError):
        gate.acquire()
    gate.release()
    assert gate.in_flight == 1 and gate.can_acquire(0.0)
    gate.release()
    with pytest.raises(RuntimeError):
        gate.release()


def test_refusal_drops_to_the_refused_concurrency_minus_one() -> None:
    gate = filled(5, 4)
    refuse(gate)  # refused with 4 in flight: the provider takes at most 3
    assert gate.current_limit == 3


def test_refusal_above_a_lowered_limit_keeps_it_and_never_reaches_zero() -> None:
    gate = filled(3)
    gate.set_limit(2)  # 3 still in flight at limit 2
    refuse(gate)
    assert 1 <= gate.current_limit <= 2
    gate = filled(1)
    refuse(gate)
    assert gate.current_limit == 1


def test_a_correlated_burst_of_refusals_lands_on_the_provider_limit() -> None:
    gate = filled(5)  # provider limit 2: three of the five are refused together
    for _ in range(3):
        refuse(gate)
        gate.release()
    assert gate.current_limit == 2 and gate.in_flight == 2


def test_refusal_with_nothing_in_flight_keeps_the_limit_but_pauses() -> None:
    gate = AdaptiveGate(4)
    assert refuse(gate, now=10.0, retry_after_s=3.0) == 3.0
    assert gate.current_limit == 4 and not gate.can_acquire(12.0) and gate.can_acquire(13.0)


def test_retry_after_pauses_the_whole_gate_capped() -> None:
    gate = filled(3, 1)
    assert refuse(gate, now=100.0, retry_after_s=7.5) == 7.5
    assert gate.paused_until == 107.5
    gate.release()
    assert not gate.can_acquire(107.4) and gate.can_acquire(107.5)
    assert refuse(gate, now=200.0, retry_after_s=3600.0) == 60.0  # capped at backoff_max_s


def test_backoff_without_retry_after_is_full_jitter_exponential() -> None:
    gate = AdaptiveGate(3, adaptive=False)
    waits = [gate.on_refusal(0.0, None, backoff_base_s=2.0, backoff_max_s=20.0, u=0.5) for _ in range(5)]
    # n-th refusal: 0.5 * min(20, 2 * 2**(n-1)); the pause never shortens, so later waits are maxima.
    assert waits == [1.0, 2.0, 4.0, 8.0, 10.0]
    assert refusal_pause(3, None, backoff_base_s=2.0, backoff_max_s=20.0, u=0.0) == 0.0
    assert refusal_pause(10_000, None, backoff_base_s=2.0, backoff_max_s=20.0, u=0.99) == pytest.approx(19.8)


def test_bad_retry_after_falls_back_to_backoff_and_bad_u_is_refused() -> None:
    for bad in (-1.0, math.nan):
        assert refusal_pause(1, bad, backoff_base_s=4.0, backoff_max_s=60.0, u=0.5) == 2.0
    with pytest.raises(ValueError, match=r"^u must be within \[0, 1\], got 1\.5$"):
        refusal_pause(1, None, backoff_base_s=1.0, backoff_max_s=2.0, u=1.5)


def test_a_shorter_pause_never_shortens_a_running_one() -> None:
    gate = AdaptiveGate(2)
    refuse(gate, now=0.0, retry_after_s=30.0)
    assert refuse(gate, now=10.0, retry_after_s=1.0) == 20.0
    assert gate.paused_until == 30.0


def test_success_streak_grows_the_limit_by_one_up_to_the_configured_limit() -> None:
    gate = filled(3)
    refuse(gate)  # 3 in flight -> 2
    for _ in range(3):
        gate.release()
    for i in range(4):
        gate.on_success(float(i))
    assert gate.current_limit == 2
    refuse(gate)  # nothing in flight: the limit stays, but the success streak starts over
    for i in range(4):
        gate.on_success(10.0 + i)
    assert gate.current_limit == 2
    gate.on_success(14.0)
    assert gate.current_limit == 3
    for i in range(20):
        gate.on_success(20.0 + i)
    assert gate.current_limit == 3 and gate.last_success_at == 39.0


def test_refusal_streak_bookkeeping() -> None:
    gate = AdaptiveGate(2)
    assert gate.refusals_without_success_since is None and gate.refusing_for(5.0) == 0.0
    refuse(gate, now=5.0)
    refuse(gate, now=9.0)
    assert gate.consecutive_refusals == 2
    assert gate.refusals_without_success_since == 5.0 and gate.refusing_for(30.0) == 25.0
    gate.on_success(31.0)
    assert gate.consecutive_refusals == 0 and gate.refusals_without_success_since is None
    assert gate.last_success_at == 31.0


def test_not_adaptive_pauses_but_never_shrinks() -> None:
    gate = filled(4, adaptive=False)
    for _ in range(3):
        assert refuse(gate, now=1.0, retry_after_s=2.0) == 2.0
        gate.release()
    assert gate.current_limit == 4 and not gate.can_acquire(2.9) and gate.can_acquire(3.0)


def test_set_limit_lowers_at_once_and_raising_follows_only_without_learning() -> None:
    gate = filled(4)
    gate.set_limit(2)
    assert gate.current_limit == 2 and not gate.can_acquire(0.0)  # 4 in flight until they finish
    gate.set_limit(5)
    assert gate.current_limit == 5  # nothing learned: follow the operator
    gate = filled(5, 3)
    refuse(gate)  # learned: 2
    gate.set_limit(4)
    assert gate.limit == 4 and gate.current_limit == 2
    gate.set_limit(1)
    assert gate.current_limit == 1


class GateMachine(RuleBasedStateMachine):
    """Any interleaving of operations keeps 1 <= current_limit <= limit and never over-admits."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = AdaptiveGate(3, increase_after=2)
        self.now = 0.0
        self.max_ever = self.gate.limit

    @rule(dt=st.floats(0, 30))
    def tick(self, dt: float) -> None:
        self.now += dt

    @rule()
    def acquire(self) -> None:
        before = self.gate.in_flight
        if self.gate.try_acquire(self.now):
            assert before < self.gate.current_limit and self.now >= self.gate.paused_until
            assert self.gate.in_flight <= self.gate.current_limit

    @precondition(lambda self: self.gate.in_flight > 0)
    @rule()
    def release(self) -> None:
        self.gate.release()

    @rule()
    def success(self) -> None:
        self.gate.on_success(self.now)

    @rule(
        retry_after=st.one_of(st.none(), st.just(math.nan), st.floats(-5, 500)),
        u=st.floats(0, 1, exclude_max=True),
    )
    def refusal(self, retry_after: float | None, u: float) -> None:
        wait = self.gate.on_refusal(self.now, retry_after, backoff_base_s=0.5, backoff_max_s=120.0, u=u)
        assert 0.0 <= wait <= 120.0 + 1e-9  # remaining pause: float rounding of (now + w) - now
        assert self.gate.paused_until == pytest.approx(self.now + wait)

    @rule(n=st.integers(1, MAX_LIMIT))
    def set_limit(self, n: int) -> None:
        self.gate.set_limit(n)
        self.max_ever = n

    @invariant()
    def limits_hold(self) -> None:
        g = self.gate
        assert 1 <= g.current_limit <= g.limit <= MAX_LIMIT
        assert g.limit == self.max_ever
        assert g.in_flight >= 0
        assert g.consecutive_refusals == 0 or g.refusals_without_success_since is not None


TestGateMachine = GateMachine.TestCase
TestGateMachine.settings = settings(max_examples=150, stateful_step_count=60, deadline=None)


def simulate(limit: int, provider_limit: int, seed: int, successes_wanted: int = 150) -> tuple[int, int]:
    """A provider taking ``provider_limit`` concurrent requests of 8-20 s; 429s come back at once.

    Checks on the way that once refused, the gate sits at the provider's limit or one probe above.
    Returns (successes, refusals).
    """
    rng = random.Random(seed)
    gate = AdaptiveGate(limit)
    now, active, successes, refusals = 0.0, list[float](), 0, 0
    while successes < successes_wanted:
        while gate.try_acquire(now):
            if len(active) < provider_limit:
                heapq.heappush(active, now + rng.uniform(8.0, 20.0))
                continue
            gate.on_refusal(now, None, backoff_base_s=1.0, backoff_max_s=5.0, u=rng.random())
            gate.release()
            refusals += 1
        if refusals:
            assert provider_limit <= gate.current_limit <= provider_limit + 1
        if active and (active[0] <= gate.paused_until or not gate.paused(now)):
            now = heapq.heappop(active)
            gate.on_success(now)
            gate.release()
            successes += 1
        else:
            now = gate.paused_until
    return successes, refusals


@settings(max_examples=60, deadline=None)
@given(limit=st.integers(1, MAX_LIMIT), data=st.data(), seed=st.integers(0, 2**32))
def test_gate_converges_to_a_provider_limit(limit: int, data: st.DataObject, seed: int) -> None:
    provider_limit = data.draw(st.integers(1, limit))
    successes, refusals = simulate(limit, provider_limit, seed)
    if provider_limit == limit:
        assert refusals == 0
    else:
        # One refusal to find the limit, then one per probe above it (one probe per success streak).
        assert 1 <= refusals <= 1 + successes // 5


def test_a_refused_step_up_doubles_the_successes_needed_for_the_next() -> None:
    g = AdaptiveGate(3, increase_after=2)
    for _ in range(2):  # refused at 3 in flight: learned 2
        g.acquire()
    g.acquire()
    g.on_refusal(0.0, 0.0, backoff_base_s=0.1, backoff_max_s=1.0, u=0.5)
    for _ in range(3):
        g.release()
    assert g.current_limit == 2 and g.increase_after == 2
    for _ in range(2):
        g.on_success(1.0)
    assert g.current_limit == 3  # stepped up ...
    for _ in range(3):
        g.acquire()
    g.on_refusal(2.0, 0.0, backoff_base_s=0.1, backoff_max_s=1.0, u=0.5)  # ... and refused
    for _ in range(3):
        g.release()
    assert g.current_limit == 2 and g.increase_after == 4
