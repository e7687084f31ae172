"""Batch rows (counts, ETA, done time) and the status bar totals (pure)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from mediadesk.core.eta import Eta, KindEta
from mediadesk.store.metrics import BatchCounts
from mediadesk.viewmodel.batches import batch_rows, totals

T0 = 1_700_000_040.0


@dataclass(frozen=True)
class Run:
    started_at: float


@dataclass(frozen=True)
class Stats:
    durations: tuple[float, ...] = (10.0,) * 5
    running: tuple[Run, ...] = ()
    capacity: int = 2
    paused: bool = False
    health: str = "ready"


@dataclass
class Lane:
    name: str
    profiles: tuple[str, ...] = field(default=())


LANES = [Lane("api:writer", ("writer",)), Lane("web:acct-a", ("chat",)), Lane("web:acct-b", ("chat",))]


def counts(batch: str | None, states: dict[str, int], open_by_profile: dict[str, tuple[int, int]],
           ahead: dict[str, int], *, submitted: float = T0, finished: float | None = None) -> BatchCounts:
    return BatchCounts(batch, states, open_by_profile, submitted, finished, ahead)


def test_a_finished_batch_has_its_done_time_and_no_eta() -> None:
    done = counts("b1", {"success": 9, "failed": 1}, {}, {}, finished=T0 + 100)
    (row,) = batch_rows([done], LANES, {}, T0 + 200)
    assert row.is_done and row.done_at == T0 + 100 and row.eta is None and not row.blocked
    assert (row.total, row.finished, row.fraction) == (10, 10, 1.0)


def test_the_eta_counts_what_is_ahead_in_each_queue_and_the_slowest_queue_wins() -> None:
    # writer: 6 ahead on capacity 2 at 10 s -> 30 s; chat: 4 ahead on two accounts (1 each) at 10 s -> 20 s
    c = counts("b2", {"pending": 5, "success": 3}, {"writer": (3, 0), "chat": (2, 0)}, {"writer": 6, "chat": 4})
    stats = {"api:writer": Stats(), "web:acct-a": Stats(capacity=1), "web:acct-b": Stats(capacity=1)}
    (row,) = batch_rows([c], LANES, stats, T0)
    assert row.eta == Eta(30.0, 30.0) and not row.is_done
    # the writer lane paused: its queue cannot move, no honest number
    stats["api:writer"] = Stats(paused=True)
    (row,) = batch_rows([c], LANES, stats, T0)
    assert row.eta is None and row.blocked


def test_no_run_time_yet_gives_no_eta_but_is_not_blocked() -> None:
    c = counts("b3", {"pending": 2}, {"writer": (2, 0)}, {"writer": 2})
    (row,) = batch_rows([c], LANES, {"api:writer": Stats(durations=())}, T0)
    assert row.eta is None and not row.blocked


def test_rows_are_newest_first() -> None:
    rows = batch_rows([counts("old", {"success": 1}, {}, {}, submitted=T0, finished=T0 + 1),
                       counts("new", {"success": 1}, {}, {}, submitted=T0 + 5, finished=T0 + 6)], LANES, {}, T0 + 9)
    assert [r.batch for r in rows] == ["new", "old"]


def test_totals_add_throughput_and_take_the_slowest_kind() -> None:
    t = totals([(KindEta(Eta(20.0, 40.0), False, 5), 12.5), (KindEta(Eta(60.0, 70.0), False, 5), 3.0)])
    assert t.per_min == pytest.approx(15.5) and t.eta == Eta(60.0, 70.0) and not t.blocked
    unknown = totals([(KindEta(Eta(20.0, 40.0), False, 5), 1.0), (KindEta(None, True, 0), 0.0)])
    assert unknown.eta is None and unknown.blocked
    assert totals([]).eta == Eta(0.0, 0.0)


def test_after_a_restart_the_eta_uses_the_run_times_in_the_store() -> None:
    c = counts("b4", {"pending": 4}, {"writer": (4, 0)}, {"writer": 4})
    fresh = {"api:writer": Stats(durations=())}  # the lane has finished nothing since start
    (no_eta,) = batch_rows([c], LANES, fresh, T0)
    assert no_eta.eta is None and not no_eta.blocked
    (row,) = batch_rows([c], LANES, fresh, T0, {"api:writer": [20.0] * 10})
    assert row.eta == Eta(40.0, 40.0)  # 4 tasks on 2 slots at 20 s
    # a lane with enough runs of its own keeps them
    (own,) = batch_rows([c], LANES, {"api:writer": Stats()}, T0, {"api:writer": [20.0] * 10})
    assert own.eta == Eta(20.0, 20.0)
