"""Read-only aggregates for the console's charts and Batches tab, straight from the task table, so
they survive a restart: finished tasks per lane and time bucket, successful run times per lane,
and per-batch counts with what stands ahead of each batch in its queues.

Open one :class:`MetricsReader` per thread, never on the GUI thread (queries over a big table are
too slow for it). :func:`ensure_metrics_indexes` adds the two indexes these queries need
(``CREATE INDEX IF NOT EXISTS``, safe on every start and schema version); without them each refresh
reads every row of the table, prompts and results included.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mediadesk.config.location import PgLocation, StoreLocation, as_location
from mediadesk.store.spend import SpendBy, SpendRow, spend_rows
from mediadesk.store.usage import UsageBy, UsageSum, usage_sums

__all__ = [
    "METRICS_INDEXES",
    "NOT_LANE_WORK",
    "BatchCounts",
    "FinishedBuckets",
    "MetricsReader",
    "ensure_metrics_indexes",
]

#: ``served_by`` values of successes that no lane produced (a person's answer, a fallback chain's
#: canned reply): they are not lane throughput and have no run time.
NOT_LANE_WORK = ("operator", "rule_reply")

#: (name, SQL). Both cover their queries (no table row is read):
#: - finishes in a time range, by lane (charts): finished_at first, for the range seek;
#: - per-batch counts (Batches tab): an index-only GROUP BY instead of a scan of the whole table.
METRICS_INDEXES = (
    ("ix_task_finished", "CREATE INDEX IF NOT EXISTS ix_task_finished"
                         " ON task (finished_at, lane, state, started_at, served_by)"
                         " WHERE finished_at IS NOT NULL"),
    ("ix_task_batch", "CREATE INDEX IF NOT EXISTS ix_task_batch"
                      " ON task (batch, profile, state, created_at, finished_at)"),
)

_TERMINAL_LANE = "('success', 'failed')"
_NOT_LANE = "(" + ",".join(f"'{s}'" for s in NOT_LANE_WORK) + ")"


def ensure_metrics_indexes(path: StoreLocation | Path | str) -> list[str]:
    """Create the metrics indexes when missing; return the names created now. A write, once per
    database: on a big table it takes a while, during which other writers (the scheduler) wait on
    the lock. A database that cannot be written is left as it is and the queries still work, only
    slower. (Creating them in a schema migration, before any scheduler runs, would remove that wait.)"""
    loc = as_location(path)
    if isinstance(loc, PgLocation):
        return _ensure_pg_indexes(loc)
    conn = sqlite3.connect(loc.path, timeout=10)
    created: list[str] = []
    try:
        have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        for name, sql in METRICS_INDEXES:
            if name in have:
                continue
            try:
                conn.execute(sql)
                conn.commit()
            except sqlite3.OperationalError:  # read-only database or file: stay without it
                conn.rollback()
                continue
            created.append(name)
    finally:
        conn.close()
    return created


def _ensure_pg_indexes(loc: PgLocation) -> list[str]:
    import psycopg

    from mediadesk.store.pgconn import connect

    conn = connect(loc)
    created: list[str] = []
    try:
        have = {r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'task'")}
        for name, sql in METRICS_INDEXES:
            if name in have:
                continue
            try:
                conn.execute(sql)
            except psycopg.errors.InsufficientPrivilege:  # a read-only user: stay without it
                continue
            except (psycopg.errors.UniqueViolation, psycopg.errors.DuplicateTable):
                # another console (or job) built it at the same moment: IF NOT EXISTS does not cover
                # two concurrent CREATEs on PostgreSQL; the index is there, and not ours to report
                continue
            created.append(name)
    finally:
        conn.close()
    return created


@dataclass(frozen=True)
class _Sql:
    """The few spellings that differ between SQLite and PostgreSQL in these queries."""

    #: SQLite's unary "+" keeps its planner off an index; PostgreSQL has no such operator on text
    plus: str = "+"
    is_: str = "IS"
    greatest: str = "max"
    #: bucket number (SQLite's CAST truncates; PostgreSQL's rounds, hence floor)
    bucket: str = "CAST(finished_at / ? AS INTEGER)"
    round1: str = "round(d, 1)"


_SQLITE = _Sql()
_PG = _Sql(plus="", is_="IS NOT DISTINCT FROM", greatest="GREATEST",
           bucket="CAST(floor(finished_at / ?) AS BIGINT)", round1="round(CAST(d AS numeric), 1)")


@dataclass(frozen=True)
class FinishedBuckets:
    """Lane work finished in ``[since, until)``, counted per ``bucket_s`` bucket aligned to
    multiples of ``bucket_s`` (so buckets stay put between refreshes), and the run times of the
    successes in that range."""

    since: float
    until: float
    bucket_s: float
    #: lane -> bucket start (epoch s) -> (succeeded, failed)
    counts: dict[str, dict[float, tuple[int, int]]] = field(default_factory=dict)
    #: lane -> bucket start -> [(run time in seconds, how many)]: finished_at - started_at of the
    #: successes, rounded to 0.1 s below 100 s and to 1 s above
    durations: dict[str, dict[float, list[tuple[float, int]]]] = field(default_factory=dict)

    def lanes(self) -> list[str]:
        return sorted(set(self.counts) | set(self.durations))


@dataclass(frozen=True)
class BatchCounts:
    """One batch (``batch`` None: tasks submitted without a batch name)."""

    batch: str | None
    #: state -> tasks
    states: dict[str, int]
    #: profile -> (pending, running) of this batch
    open_by_profile: dict[str, tuple[int, int]]
    submitted_at: float
    #: Last finish of any of its tasks (the done time once nothing is open).
    last_finished_at: float | None
    #: profile -> pending tasks of that profile's queue at or ahead of this batch's last pending
    #: one (queue order: priority high first, then submission order); what must run before the
    #: batch's share of that queue is done. Filled only for batches with pending tasks.
    ahead: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.states.values())

    @property
    def open(self) -> int:
        return self.states.get("pending", 0) + self.states.get("running", 0)

    @property
    def done_at(self) -> float | None:
        """When its last task finished, once every task is terminal."""
        return self.last_finished_at if self.open == 0 and self.total else None


@dataclass
class _BatchAcc:
    submitted_at: float
    last_finished_at: float | None = None
    states: dict[str, int] = field(default_factory=dict)
    open: dict[str, tuple[int, int]] = field(default_factory=dict)


class MetricsReader:
    """Read-only aggregate queries; open one per thread (not the GUI thread)."""

    def __init__(self, path: StoreLocation | Path | str) -> None:
        loc = as_location(path)
        self._sql = _SQLITE
        self._conn: Any
        if isinstance(loc, PgLocation):
            from mediadesk.store.pgconn import connect

            self.path = Path()
            self._conn = connect(loc)
            self._sql = _PG
            return
        self.path = loc.path
        self._conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=10, check_same_thread=False)
        self._conn.execute("PRAGMA busy_timeout=10000")

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> MetricsReader:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # ------------------------------------------------------------------ charts
    def finished(self, since: float, until: float, bucket_s: float) -> FinishedBuckets:
        """Successes and failures per lane and bucket, and the successes' run times, for tasks that
        finished in ``[since, until)``, bucketed at multiples of ``bucket_s`` (pass a ``since`` on a
        bucket boundary, or the first bucket is read in part). Canceled tasks, tasks that never reached a lane and
        successes no lane produced (``NOT_LANE_WORK``) are left out."""
        if bucket_s <= 0:
            raise ValueError("bucket_s must be > 0")
        bucket_s = float(bucket_s)
        out = FinishedBuckets(since, until, bucket_s)
        # "+state": keep the planner off the claim index (state first), which would visit every
        # finished row of the table instead of the time range.
        q = self._sql
        where = (f"finished_at >= ? AND finished_at < ? AND {q.plus}state IN {_TERMINAL_LANE} AND lane IS NOT NULL"
                 f" AND (served_by IS NULL OR served_by NOT IN {_NOT_LANE})")
        for lane, bucket, state, n in self._conn.execute(
            f"SELECT lane, {q.bucket}, state, count(*) FROM task WHERE {where}"
            " GROUP BY 1, 2, 3",
            (bucket_s, since, until),
        ):
            per_lane = out.counts.setdefault(lane, {})
            start = bucket * bucket_s
            ok, bad = per_lane.get(start, (0, 0))
            per_lane[start] = (ok + n, bad) if state == "success" else (ok, bad + n)
        # Run times per bucket, rounded to 0.1 s (1 s from 100 s on): a few hundred distinct values
        # per lane instead of one row per task, quantiles still exact to that resolution, and a
        # bucket's run times can be replaced alone (the console refreshes the newest buckets only).
        for lane, bucket, seconds, n in self._conn.execute(
            f"SELECT lane, b, CASE WHEN d < 100 THEN {q.round1} ELSE round(d) END, count(*) FROM"
            f" (SELECT lane, {q.bucket} AS b, {q.greatest}(0.0, finished_at - started_at) AS d"
            f" FROM task WHERE {where} AND {q.plus}state = 'success' AND started_at IS NOT NULL) AS r"
            " GROUP BY 1, 2, 3",
            (bucket_s, since, until),
        ):
            out.durations.setdefault(lane, {}).setdefault(bucket * bucket_s, []).append((float(seconds), int(n)))
        return out

    # ------------------------------------------------------------------ batches
    def batches(self, *, with_ahead: bool = True) -> list[BatchCounts]:
        """Every batch, oldest first, with its counts; for batches with pending tasks also what
        stands ahead of them in each queue (``BatchCounts.ahead``)."""
        acc: dict[str | None, _BatchAcc] = {}
        rows = self._conn.execute(
            "SELECT batch, profile, state, count(*), min(created_at), max(finished_at) FROM task"
            " GROUP BY batch, profile, state"
        )
        for batch, profile, state, n, created, finished in rows:
            b = acc.get(batch)
            if b is None:
                b = acc[batch] = _BatchAcc(submitted_at=created)
            b.states[state] = b.states.get(state, 0) + n
            b.submitted_at = min(b.submitted_at, created)
            if finished is not None:
                b.last_finished_at = finished if b.last_finished_at is None else max(b.last_finished_at, finished)
            if state in ("pending", "running"):
                p, r = b.open.get(profile, (0, 0))
                b.open[profile] = (p + n, r) if state == "pending" else (p, r + n)
        out = []
        for batch, b in acc.items():
            ahead = {}
            if with_ahead:
                ahead = {profile: self.ahead_of(batch, profile)
                         for profile, (pending, _running) in b.open.items() if pending}
            out.append(BatchCounts(batch=batch, states=b.states, open_by_profile=b.open,
                                   submitted_at=b.submitted_at, last_finished_at=b.last_finished_at, ahead=ahead))
        out.sort(key=lambda c: (c.submitted_at, c.batch or ""))
        return out

    def ahead_of(self, batch: str | None, profile: str) -> int:
        """Pending tasks of ``profile``'s queue up to and including the last pending task of
        ``batch`` in claim order (priority high first, then submission order). Two seeks on the
        claim index."""
        last = self._conn.execute(
            f"SELECT priority, seq FROM task WHERE state='pending' AND profile=? AND batch {self._sql.is_} ?"
            " ORDER BY priority ASC, seq DESC LIMIT 1",
            (profile, batch),
        ).fetchone()
        if last is None:
            return 0
        prio, seq = last
        (n,) = self._conn.execute(
            "SELECT count(*) FROM task WHERE state='pending' AND profile=?"
            " AND (priority > ? OR (priority = ? AND seq <= ?))",
            (profile, prio, prio, seq),
        ).fetchone()
        return int(n)

    def recent_run_times(self, lanes: Sequence[str], limit: int = 200) -> dict[str, list[float]]:
        """The run times of each lane's last ``limit`` successes, newest first (an ETA right after
        a restart, before the lanes have finished anything). Walks ix_task_finished backwards."""
        out: dict[str, list[float]] = {}
        for lane in lanes:
            rows = self._conn.execute(
                f"SELECT {self._sql.greatest}(0.0, finished_at - started_at) FROM task WHERE finished_at IS NOT NULL"
                f" AND lane = ? AND {self._sql.plus}state = 'success' AND started_at IS NOT NULL"
                f" AND (served_by IS NULL OR served_by NOT IN {_NOT_LANE}) ORDER BY finished_at DESC LIMIT ?",
                (lane, limit),
            ).fetchall()
            if rows:
                out[lane] = [float(r[0]) for r in rows]
        return out

    # ------------------------------------------------------------------ usage
    def usage(self, by: UsageBy, *, since: float | None = None, utc_offset_s: float = 0.0) -> dict[Any, UsageSum]:
        """Tokens summed per batch, profile or day (see :func:`mediadesk.store.usage.usage_sums`)."""
        return usage_sums(self._conn, by, since=since, utc_offset_s=utc_offset_s, pg=self._sql is _PG)

    def spend(self, by: SpendBy, *, since: float | None = None, utc_offset_s: float = 0.0) -> list[SpendRow]:
        """Cost per batch, profile or day, per currency (see :func:`mediadesk.store.spend.spend_rows`)."""
        return spend_rows(self._conn, by, since=since, utc_offset_s=utc_offset_s, pg=self._sql is _PG)
