"""ETAs from run-time quantiles: known data, capacity, long-running tasks, priors."""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mediadesk.core.eta import (
    Eta,
    EtaGroup,
    RunTimeStats,
    _makespan,
    kind_eta,
    lane_eta,
    queue_groups,
    throughput_per_min,
)


def stats_of(values: list[float], window: int = 500) -> RunTimeStats:
    s = RunTimeStats(window=window)
    for v in values:
        s.add(v)
    return s


def test_quantiles_on_known_data() -> None:
    s = stats_of([float(x) for x in range(1, 11)])  # 1..10
    assert s.count == 10
    assert s.quantile(0.0) == 1.0
    assert s.quantile(1.0) == 10.0
    assert s.quantile(0.5) == pytest.approx(5.5)
    assert s.quantile(0.9) == pytest.approx(9.1)
    assert stats_of([7.0]).quantile(0.9) == 7.0
    with pytest.raises(ValueError, match=r"^q must be within 0\.\.1, got 1\.5$"):
        s.quantile(1.5)


def test_quantile_ignores_insertion_order_and_bad_values() -> None:
    s = stats_of([30.0, 10.0, math.nan, 20.0, math.inf, -5.0])
    assert s.count == 4  # nan and inf dropped; -5 counted as 0
    assert s.quantile(0.0) == 0.0
    assert s.quantile(1.0) == 30.0


def test_window_keeps_only_recent_samples() -> None:
    s = stats_of([1000.0] * 5 + [1.0, 2.0, 3.0], window=3)
    assert s.count == 3
    assert s.quantile(1.0) == 3.0 and s.quantile(0.5) == 2.0
    with pytest.raises(ValueError, match=r"^window must be >= 1$"):
        RunTimeStats(window=0)


def test_no_samples_no_prior_gives_none() -> None:
    s = RunTimeStats()
    assert s.quantile(0.5) is None
    assert s.remaining_quantile(0.5, 3.0) is None
    assert lane_eta(s, pending=4, running_elapsed=[], capacity=2) is None
    assert lane_eta(s, pending=0, running_elapsed=[5.0], capacity=2) is None


def test_no_work_is_zero_eta() -> None:
    assert lane_eta(RunTimeStats(), pending=0, running_elapsed=[], capacity=1) == Eta(0.0, 0.0)


def test_prior_is_used_until_three_samples() -> None:
    s = RunTimeStats(prior=(60.0, 180.0))
    assert s.quantile(0.5) == pytest.approx(60.0)
    assert s.quantile(0.9) == pytest.approx(180.0)
    eta = lane_eta(s, pending=2, running_elapsed=[], capacity=1)
    assert eta is not None
    assert eta.p50_s == pytest.approx(120.0) and eta.p90_s == pytest.approx(360.0)
    s.add(10.0)
    s.add(10.0)
    assert s.quantile(0.5) == pytest.approx(60.0)  # 2 samples: still the prior
    s.add(10.0)
    assert s.quantile(0.5) == 10.0 and s.quantile(0.9) == 10.0


def test_prior_conditional_remaining_time_grows_with_the_tail() -> None:
    s = RunTimeStats(prior=(60.0, 180.0))
    fresh = s.remaining_quantile(0.5, 0.0)
    assert fresh == pytest.approx(60.0)
    late = s.remaining_quantile(0.5, 120.0)
    assert late is not None and late > 0
    # a run already at 120 s (past the median) is a slow one: its expected end is beyond 120 s
    assert 120.0 + late > 150.0


def test_invalid_prior_is_rejected() -> None:
    for bad in [(0.0, 10.0), (10.0, 5.0), (math.nan, 10.0)]:
        with pytest.raises(ValueError, match=r"^prior must be finite with 0 < p50 <= p90"):
            RunTimeStats(prior=bad)
    flat = RunTimeStats(prior=(10.0, 10.0))
    assert flat.quantile(0.9) == 10.0 and flat.remaining_quantile(0.5, 4.0) == 6.0


def test_eta_for_capacity_one_vs_three() -> None:
    s = stats_of([10.0] * 9 + [100.0])  # p50 10, p90 19
    one = lane_eta(s, pending=6, running_elapsed=[], capacity=1)
    three = lane_eta(s, pending=6, running_elapsed=[], capacity=3)
    assert one == Eta(pytest.approx(60.0), pytest.approx(6 * 19.0))  # type: ignore[arg-type]
    assert three == Eta(pytest.approx(20.0), pytest.approx(2 * 19.0))  # type: ignore[arg-type]
    four = lane_eta(s, pending=4, running_elapsed=[], capacity=3)
    assert four is not None and four.p50_s == pytest.approx(20.0)  # the 4th task waits for a slot


def test_running_tasks_beyond_p50_use_the_conditional_quantile() -> None:
    s = stats_of([10.0] * 5 + [100.0] * 5)
    assert s.quantile(0.5) == pytest.approx(55.0)
    # 50 s in: only the 100 s runs are longer, so 50 s are left (not max(0, 55 - 50) = 5 s)
    assert s.remaining_quantile(0.5, 50.0) == pytest.approx(50.0)
    eta = lane_eta(s, pending=0, running_elapsed=[50.0], capacity=1)
    assert eta is not None and eta.p50_s == pytest.approx(50.0)
    # beyond every sample: nothing to condition on, max(0, q - elapsed)
    assert s.remaining_quantile(0.9, 500.0) == 0.0
    # a task 5 s in: the conditional quantile over samples > 5 (all of them) minus 5
    assert s.remaining_quantile(0.5, 5.0) == pytest.approx(50.0)


def test_running_and_pending_share_the_servers() -> None:
    s = stats_of([10.0] * 5)
    # capacity 2: one slot busy for 4 more seconds, one free; 3 pending of 10 s each
    eta = lane_eta(s, pending=3, running_elapsed=[6.0], capacity=2)
    assert eta is not None
    assert eta.p50_s == pytest.approx(20.0)  # free slot: 0->10->20; busy slot: 4->14
    # more running than slots (capacity lowered): a pending task starts when one finishes
    eta = lane_eta(s, pending=1, running_elapsed=[9.0, 8.0, 1.0], capacity=2)
    assert eta is not None and eta.p50_s == pytest.approx(2.0 + 10.0)


def test_zero_capacity_with_work_has_no_eta() -> None:
    s = stats_of([10.0] * 5)
    assert lane_eta(s, pending=3, running_elapsed=[], capacity=0) is None
    eta = lane_eta(s, pending=0, running_elapsed=[4.0], capacity=0)
    assert eta is not None and eta.p50_s == pytest.approx(6.0)


def test_many_pending_is_exact_and_cheap() -> None:
    s = stats_of([3.0] * 10)
    eta = lane_eta(s, pending=100_000, running_elapsed=[1.0], capacity=3)
    assert eta is not None
    assert eta.p50_s == pytest.approx(math.ceil(100_001 / 3) * 3.0 - 1.0, abs=3.0)


def _naive(free_at: list[float], n: int, d: float) -> float:
    heap = list(free_at)
    heapq.heapify(heap)
    top = max(heap)
    for _ in range(n):
        t = heapq.heappop(heap) + d
        heapq.heappush(heap, t)
        top = max(top, t)
    return top


@settings(max_examples=200, deadline=None)
@given(free_at=st.lists(st.floats(0, 1000), min_size=1, max_size=6), n=st.integers(0, 300),
       d=st.floats(0.01, 200))
def test_makespan_shortcut_matches_greedy_simulation(free_at: list[float], n: int, d: float) -> None:
    assert _makespan(free_at, n, d) == pytest.approx(_naive(free_at, n, d), rel=1e-9, abs=1e-6)


def test_throughput_per_min() -> None:
    finishes = [100.0, 200.0, 250.0, 290.0, 299.0, 400.0]  # 400 is "in the future"
    assert throughput_per_min(finishes, now=300.0, window_s=60) == pytest.approx(3.0)
    assert throughput_per_min(finishes, now=300.0) == pytest.approx(5 * 60 / 300)
    assert throughput_per_min([], now=300.0) == 0.0
    # early in a run, the window shrinks to the time since the start
    assert throughput_per_min([30.0, 40.0, 50.0, 55.0, 59.0], now=60.0, since=0.0) == pytest.approx(5.0)
    with pytest.raises(ValueError, match=r"^window_s must be > 0$"):
        throughput_per_min([], now=0.0, window_s=0)


# --------------------------------------------------------------------------- a lane kind's ETA

@dataclass(frozen=True)
class Running:
    started_at: float


@dataclass(frozen=True)
class Load:
    """Stands in for a lane's stats event (the fields kind_eta reads)."""

    durations: tuple[float, ...] = ()
    running: tuple[Running, ...] = ()
    capacity: int = 1
    paused: bool = False
    health: str = "ready"


@dataclass(frozen=True)
class QLane:
    name: str
    profiles: tuple[str, ...] = field(default=())


def test_queue_groups_api_lanes_alone_web_accounts_by_profile() -> None:
    web = [QLane("web:a", ("chat",)), QLane("web:b", ("chat",)), QLane("web:c", ("draw",))]
    assert queue_groups("web", web) == {"chat": web[:2], "draw": web[2:]}
    api = [QLane("api:writer", ("writer",)), QLane("api:reasoner", ("reasoner",))]
    assert queue_groups("api", api) == {"api:writer": api[:1], "api:reasoner": api[1:]}


def test_kind_eta_no_work_is_zero_and_idle() -> None:
    ke = kind_eta([EtaGroup(0, [Load()])], now=100.0)
    assert ke.eta == Eta(0.0, 0.0) and not ke.blocked and ke.samples == 0
    assert kind_eta([], now=0.0).eta == Eta(0.0, 0.0)


def test_kind_eta_is_the_slowest_group() -> None:
    fast = EtaGroup(4, [Load(durations=(10.0,) * 5, capacity=2)])  # 2 rounds of 10 s
    slow = EtaGroup(3, [Load(durations=(30.0,) * 5)])                # 3 x 30 s on one server
    ke = kind_eta([fast, slow], now=0.0)
    assert ke.eta == Eta(90.0, 90.0)
    assert ke.samples == 10 and not ke.blocked
    assert kind_eta([fast], now=0.0).eta == Eta(20.0, 20.0)


def test_kind_eta_pools_the_accounts_of_one_group() -> None:
    # two accounts of one web profile share 4 pending tasks: 2 rounds, not 4
    group = EtaGroup(4, [Load(durations=(10.0,) * 3), Load(durations=(10.0,) * 3)])
    ke = kind_eta([group], now=0.0)
    assert ke.eta == Eta(20.0, 20.0) and ke.samples == 6


def test_kind_eta_counts_running_tasks_from_their_start() -> None:
    group = EtaGroup(0, [Load(durations=(10.0,) * 5, running=(Running(started_at=94.0),))])
    assert kind_eta([group], now=100.0).eta == Eta(4.0, 4.0)


@pytest.mark.parametrize("load", [Load(durations=(5.0,) * 3, paused=True),
                                  Load(durations=(5.0,) * 3, health="needs_login"),
                                  Load(durations=(5.0,) * 3, health="disabled"),
                                  Load(durations=(5.0,) * 3, health="error")])
def test_kind_eta_is_blocked_when_no_lane_of_a_group_can_take_work(load: Load) -> None:
    ke = kind_eta([EtaGroup(2, [load]), EtaGroup(1, [Load(durations=(5.0,) * 3)])], now=0.0)
    assert ke.eta is None and ke.blocked
    # a busy lane still counts: it takes the next task when its run ends
    assert kind_eta([EtaGroup(2, [Load(durations=(5.0,) * 3, health="busy")])], now=0.0).eta == Eta(10.0, 10.0)


def test_kind_eta_without_samples_has_no_number_but_is_not_blocked() -> None:
    ke = kind_eta([EtaGroup(3, [Load()])], now=0.0)
    assert ke.eta is None and not ke.blocked
    # a group without work and without samples does not spoil the others
    ke = kind_eta([EtaGroup(0, []), EtaGroup(1, [Load(durations=(7.0,) * 3)])], now=0.0)
    assert ke.eta == Eta(7.0, 7.0)
    # a lane that has not reported yet gives no capacity: work waits, blocked
    assert kind_eta([EtaGroup(1, [])], now=0.0).blocked


def test_kind_eta_waits_for_three_runs_of_a_queue_and_names_it() -> None:
    """18 runs of one profile, 1 of another with work: no number yet, and the answer says which
    queue waits and how many runs it has (not "no finished run")."""
    many = EtaGroup(2, [Load(durations=(5.0,) * 18)], name="writer")
    few = EtaGroup(3, [Load(durations=(7.0,))], name="reasoner")
    ke = kind_eta([many, few], now=0.0)
    assert ke.eta is None and not ke.blocked
    assert (ke.waiting_for, ke.waiting_samples) == ("reasoner", 1)
    assert ke.samples == 19
    # with its third run the number comes
    ke = kind_eta([many, EtaGroup(3, [Load(durations=(7.0,) * 3)], name="reasoner")], now=0.0)
    assert ke.eta == Eta(21.0, 21.0) and ke.waiting_for is None
    # a queue without work never holds the others back
    assert kind_eta([many, EtaGroup(0, [Load()], name="idle")], now=0.0).eta == Eta(10.0, 10.0)
