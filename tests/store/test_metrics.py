"""Chart and batch aggregates read from a real store (SQLite file, PostgreSQL database) written by the
real TaskStore."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mediadesk.config.location import StoreLocation
from mediadesk.core.states import TaskState
from mediadesk.store import NewTask, TaskStore, open_store
from mediadesk.store.metrics import METRICS_INDEXES, MetricsReader, ensure_metrics_indexes

T0 = 1_700_000_040.0  # a multiple of 60 (and of 10): bucket starts


def run(s: TaskStore, profile: str, lane: str, start: float, end: float, *, ok: bool = True) -> str:
    (rec,) = s.claim([profile], 1, lane=lane, account=None, owner="me", now=start)
    s.finish(rec, TaskState.SUCCESS if ok else TaskState.FAILED, result="r" if ok else None,
             error_kind=None if ok else "bad_request", now=end)
    return rec.task_id


@pytest.fixture
def db(store_location: StoreLocation) -> StoreLocation:
    return store_location


def test_finished_counts_lane_work_per_bucket_and_run_times(db: StoreLocation) -> None:
    s = open_store(db)
    s.add_tasks([NewTask(f"w{i}", "writer", "api", "p", batch="b1") for i in range(5)])
    s.add_tasks([NewTask(f"c{i}", "chat", "web", "p", batch="b1") for i in range(3)])
    run(s, "writer", "api:writer", T0 + 1, T0 + 9)          # bucket T0, 8 s
    run(s, "writer", "api:writer", T0 + 2, T0 + 14.04)      # bucket T0+10, 12.04 s -> 12.0
    run(s, "writer", "api:writer", T0 + 3, T0 + 15, ok=False)  # failed: counted, no run time
    run(s, "chat", "web:acct-a", T0, T0 + 125.4)            # bucket T0+120, 125.4 s -> 125 (1 s above 100 s)
    run(s, "chat", "web:acct-a", T0 + 130, T0 + 400)        # outside [T0, T0+300)
    s.request_cancel(["w3"], now=T0 + 5)                     # canceled while pending: never lane work
    (rec,) = s.claim(["chat"], 1, lane="web:acct-b", account=None, owner="me", now=T0 + 1)
    failed = s.finish(rec, TaskState.FAILED, error_kind="site_error", now=T0 + 2)
    assert failed is not None
    s.resolve(rec.task_id, "answer", "typed it", answer="by hand", now=T0 + 50)  # success by a person
    s.close()

    with MetricsReader(db) as r:
        fb = r.finished(T0, T0 + 300, 10)
    assert fb.counts == {
        "api:writer": {T0: (1, 0), T0 + 10: (1, 1)},
        "web:acct-a": {T0 + 120: (1, 0)},
    }
    assert fb.durations == {
        "api:writer": {T0: [(8.0, 1)], T0 + 10: [(12.0, 1)]},
        "web:acct-a": {T0 + 120: [(125.0, 1)]},
    }
    assert fb.lanes() == ["api:writer", "web:acct-a"]
    with MetricsReader(db) as r:  # [since, until): the end is exclusive; buckets are aligned to their width
        edge = r.finished(T0 + 9, T0 + 15, 60)
    assert edge.counts == {"api:writer": {T0: (2, 0)}}


def test_indexes_are_created_once_and_used(tmp_path: Path) -> None:
    db = tmp_path / "m.db"  # (the query plans are SQLite's)
    TaskStore(db).close()
    names = [n for n, _ in METRICS_INDEXES]
    assert ensure_metrics_indexes(db) == names
    assert ensure_metrics_indexes(db) == []  # idempotent
    con = sqlite3.connect(db)
    try:
        plan = " ".join(str(r) for r in con.execute(
            "EXPLAIN QUERY PLAN SELECT lane, count(*) FROM task WHERE finished_at >= 1 AND finished_at < 2"
            " AND +state IN ('success', 'failed') AND lane IS NOT NULL GROUP BY lane"))
        batch_plan = " ".join(str(r) for r in con.execute(
            "EXPLAIN QUERY PLAN SELECT batch, profile, state, count(*), min(created_at), max(finished_at)"
            " FROM task GROUP BY batch, profile, state"))
    finally:
        con.close()
    assert "ix_task_finished" in plan
    assert "COVERING INDEX ix_task_batch" in batch_plan


def test_queries_give_the_same_answers_without_the_indexes(db: StoreLocation) -> None:
    s = open_store(db)
    s.add_tasks([NewTask("a", "writer", "api", "p", batch="b")])
    run(s, "writer", "api:writer", T0, T0 + 3)
    s.close()
    with MetricsReader(db) as r:
        before = (r.finished(T0, T0 + 60, 60), r.batches())
    assert ensure_metrics_indexes(db)
    with MetricsReader(db) as r:
        after = (r.finished(T0, T0 + 60, 60), r.batches())
    assert before == after
    assert after[0].counts == {"api:writer": {T0: (1, 0)}} and after[1][0].done_at == T0 + 3


def test_batches_counts_done_time_and_what_is_ahead(db: StoreLocation) -> None:
    s = open_store(db)
    s.add_tasks([NewTask(f"a{i}", "writer", "api", "p", batch="first") for i in range(3)], now=T0)
    s.add_tasks([NewTask(f"b{i}", "writer", "api", "p", batch="second") for i in range(4)], now=T0 + 1)
    s.add_tasks([NewTask("b-chat", "chat", "web", "p", batch="second")], now=T0 + 1)
    s.add_tasks([NewTask("urgent", "writer", "api", "p", batch="third", priority=5)], now=T0 + 2)
    s.add_tasks([NewTask("loose", "writer", "api", "p")], now=T0 + 3)
    # "urgent" goes first (priority), then the three of "first"
    for end in (10.0, 11.0, 12.0, 13.0):
        run(s, "writer", "api:writer", T0 + end - 1, T0 + end)
    (rec,) = s.claim(["writer"], 1, lane="api:writer", account=None, owner="me", now=T0 + 14)  # b0 running
    assert rec.task_id == "b0"
    s.close()
    with MetricsReader(db) as r:
        rows = {b.batch: b for b in r.batches()}
    assert [b.batch for b in sorted(rows.values(), key=lambda b: b.submitted_at)] == ["first", "second", "third", None]
    first, second, third, loose = rows["first"], rows["second"], rows["third"], rows[None]
    assert first.states == {"success": 3} and first.done_at == T0 + 13 and first.open == 0
    assert third.states == {"success": 1} and third.done_at == T0 + 10
    assert second.states == {"running": 1, "pending": 4} and second.done_at is None and second.total == 5
    assert second.open_by_profile == {"writer": (3, 1), "chat": (1, 0)}
    # writer queue: b1, b2, b3 pending (b0 runs); the web queue has only b-chat
    assert second.ahead == {"writer": 3, "chat": 1}
    # the loose task (no batch) is behind the second batch's three
    assert loose.ahead == {"writer": 4} and loose.batch is None and loose.submitted_at == T0 + 3


def test_a_high_priority_batch_has_only_itself_ahead(db: StoreLocation) -> None:
    s = open_store(db)
    s.add_tasks([NewTask(f"n{i}", "writer", "api", "p", batch="normal") for i in range(50)], now=T0)
    s.add_tasks([NewTask(f"h{i}", "writer", "api", "p", batch="hot", priority=1) for i in range(2)], now=T0 + 1)
    s.add_tasks([NewTask(f"l{i}", "writer", "api", "p", batch="cold", priority=-1) for i in range(2)], now=T0 + 2)
    s.close()
    with MetricsReader(db) as r:
        ahead = {b.batch: b.ahead["writer"] for b in r.batches()}
    assert ahead == {"hot": 2, "normal": 52, "cold": 54}


def test_recent_run_times_are_the_newest_successes_of_each_lane(db: StoreLocation) -> None:
    s = open_store(db)
    s.add_tasks([NewTask(f"w{i}", "writer", "api", "p") for i in range(5)])
    for i in range(4):
        run(s, "writer", "api:writer", T0 + 100 * i, T0 + 100 * i + 10 + i)
    run(s, "writer", "api:writer", T0 + 500, T0 + 530, ok=False)  # a failure has no run time
    s.close()
    ensure_metrics_indexes(db)
    with MetricsReader(db) as r:
        assert r.recent_run_times(["api:writer", "web:acct-a"], limit=3) == {"api:writer": [13.0, 12.0, 11.0]}


def test_consoles_building_the_indexes_at_once_all_go_on(db: StoreLocation) -> None:
    """Several consoles (or chart jobs) opening one database at the same moment: no one fails
    (PostgreSQL's IF NOT EXISTS does not cover two concurrent CREATEs: one of them can meet a unique
    violation in the catalogue) and every index is there afterwards."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    open_store(db).close()
    names = [n for n, _ in METRICS_INDEXES]
    for _ in range(20):  # the race is the kernel's to schedule: rounds, each on fresh indexes
        _drop_metrics_indexes(db)
        start = threading.Barrier(6)

        def build(barrier: threading.Barrier) -> list[str]:
            barrier.wait()
            return ensure_metrics_indexes(db)

        with ThreadPoolExecutor(6) as pool:
            created = {n for got in pool.map(build, [start] * 6) for n in got}
        assert created == set(names)
        assert ensure_metrics_indexes(db) == []  # all there


def _drop_metrics_indexes(db: StoreLocation) -> None:
    from mediadesk.config.location import PgLocation

    if isinstance(db, PgLocation):
        import psycopg

        with psycopg.connect(db.url, autocommit=True) as conn:
            for name in (n for n, _ in METRICS_INDEXES):
                conn.execute(f"DROP INDEX IF EXISTS {name}")
    else:
        con = sqlite3.connect(db.path)
        try:
            for name in (n for n, _ in METRICS_INDEXES):
                con.execute(f"DROP INDEX IF EXISTS {name}")
            con.commit()
        finally:
            con.close()
