"""Endpoint slots across real processes on one PostgreSQL database: N desktops together never hold
more live slots than the limit (a smaller-limit desktop only takes slots below its own limit), and a
SIGKILLed holder's slots come back only after they expire."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from mediadesk.store.team import TeamCoordinator
from tests.support import until
from tests.team.conftest import Fleet
from tests.team.worker import NOW

WORKERS = {"w1": 3, "w2": 3, "w3": 3, "w4": 2}  # name -> its configured limit


def _no_crash(fleet: Fleet) -> None:
    crash = fleet.crashed()
    assert crash is None, crash


def max_concurrency(intervals: list[tuple[float, float]]) -> int:
    """The most intervals open at one instant (closed intervals: a start at another's end overlaps)."""
    edges = sorted([(t0, 0) for t0, _ in intervals] + [(t1, 1) for _, t1 in intervals])  # starts before ends
    open_, most = 0, 0
    for _, kind in edges:
        open_ += 1 if kind == 0 else -1
        most = max(most, open_)
    return most


def test_max_concurrency_counts_overlaps() -> None:
    assert max_concurrency([(0, 1), (2, 3)]) == 1
    assert max_concurrency([(0, 2), (1, 3), (1.5, 1.6)]) == 3
    assert max_concurrency([(0, 1), (1, 2)]) == 2


async def test_processes_together_never_exceed_the_endpoint_limit(fleet: Fleet) -> None:
    for name, limit in WORKERS.items():
        fleet.start("slots", name, endpoint="ep", limit=limit, per=2)
    t_start = fleet.now()

    def enough() -> bool:
        _no_crash(fleet)
        counts = Counter(w for (w,) in fleet.q("SELECT worker FROM t_hold WHERE kind = 'slot'"))
        return fleet.now() >= t_start + 3.0 and all(counts[w] >= 20 for w in WORKERS)

    await until(enough, "every worker to hold a slot 20 times, over 3 s", limit_s=90, step_s=0.1)
    await fleet.stop()

    holds = fleet.q("SELECT worker, key, t0, t1, released FROM t_hold WHERE kind = 'slot' ORDER BY t0")
    by_slot: dict[str, list[tuple[str, float, float]]] = {}
    for w, key, t0, t1, _ in holds:
        by_slot.setdefault(key, []).append((w, t0, t1))
    for key, intervals in by_slot.items():  # one holder per slot at a time
        last_worker, last_end = None, float("-inf")
        for w, t0, t1 in intervals:
            assert t0 > last_end, f"slot {key}: {w} from {t0:.6f} while {last_worker} held it until {last_end:.6f}"
            last_worker, last_end = w, max(last_end, t1)
    most = max_concurrency([(t0, t1) for _, _, t0, t1, _ in holds])
    assert 2 <= most <= 3, most  # contended (each worker wants 2 slots) but never over the limit
    assert sorted(by_slot) == ["0", "1", "2"]
    assert {key for w, key, _, _, _ in holds if w == "w4"} <= {"0", "1"}  # the limit-2 desktop's own limit
    assert all(released for *_, released in holds)  # every slot was still ours when we freed it
    assert fleet.q("SELECT count(*) FROM endpoint_slot WHERE owner IS NOT NULL") == [(0,)]


async def test_a_sigkilled_processes_slots_come_back_only_after_they_expire(
        fleet: Fleet, coordinators: Callable[..., TeamCoordinator]) -> None:
    stale = 1.5
    fleet.start("hold_slots", "holder", endpoint="ep", limit=3, stale=stale)
    await until(lambda: bool(fleet.events("held", "holder")), "the holder to take all 3 slots", limit_s=60)
    fleet.kill("holder")
    expiry = dict(fleet.q("SELECT slot, expires_at FROM endpoint_slot "
                          "WHERE endpoint = 'ep' AND owner LIKE 'holder:%%'"))
    assert sorted(expiry) == [0, 1, 2]

    me = coordinators("me", stale_after_s=stale)
    got: list[int] = []

    def all_back() -> bool:
        slot = me.acquire_slot("ep", 3, f"t{len(got)}")
        if slot is not None:
            [(expires_at,)] = fleet.q("SELECT expires_at FROM endpoint_slot WHERE endpoint = 'ep' AND slot = %s",
                                      (slot,))
            taken_at = expires_at - stale  # our acquisition, by the database clock
            assert taken_at > expiry[slot], f"slot {slot} taken {expiry[slot] - taken_at:.3f} s before it expired"
            got.append(slot)
        return len(got) == 3

    await until(all_back, "the dead holder's 3 slots to come back", limit_s=60, step_s=0.02)
    assert sorted(got) == [0, 1, 2]
    assert me.acquire_slot("ep", 3) is None  # all three are ours now: no fourth
    assert fleet.q(f"SELECT count(*) FROM endpoint_slot WHERE owner = 'me' AND expires_at > {NOW}") == [(3,)]
