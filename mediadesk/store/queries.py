"""The task store's reads on the scheduler's connection (loop thread): what the lanes look at before
they claim (due work, backlog, stale runs) and the small reads of the faces. Long reads for the console
and exports go through :class:`~mediadesk.store.reader.TaskReader` instead, off the loop thread.

Also the SQL the claim shares between the back-ends (:func:`claim_predicate`)."""

from __future__ import annotations

from collections.abc import Sequence

from mediadesk.core.picker import Channel
from mediadesk.store.connection import StoreBase, faults_typed
from mediadesk.store.record import TASK_COLUMNS_SQL, TaskRecord, record_of

__all__ = ["CHANNEL_SQL", "TaskQueries", "claim_predicate"]

#: The WHERE of a priority channel (None: every channel).
CHANNEL_SQL: dict[Channel | None, str] = {
    None: "",
    Channel.HIGH: " AND priority > 0",
    Channel.NORMAL: " AND priority = 0",
    Channel.LOW: " AND priority < 0",
}


#: ``economy``: True = only what the economy channel takes (non-urgent single turns); False = all but that.
ECONOMY_SQL: dict[bool | None, str] = {
    None: "",
    True: " AND priority <= 0 AND route_key IS NULL",
    False: " AND (priority > 0 OR route_key IS NOT NULL)",
}


def claim_predicate(channel: Channel | None, is_not: str, economy: bool | None = None) -> str:
    """The claim's WHERE after ``state='pending' AND profile IN (...)`` (params: now, account), shared by
    both back-ends. Conversations (``route_key``): no earlier turn still pending or running, and no
    earlier turn run by another account. ``economy``: see :data:`ECONOMY_SQL`."""
    return (
        f" AND not_before <= ? AND cancel_requested=FALSE{CHANNEL_SQL[channel]}{ECONOMY_SQL[economy]}"
        " AND (route_key IS NULL OR NOT EXISTS (SELECT 1 FROM task AS e WHERE e.route_key = task.route_key"
        " AND e.seq < task.seq AND (e.state IN ('pending','running')"
        f" OR (e.account IS NOT NULL AND e.account {is_not} ?))))"
    )


@faults_typed
class TaskQueries(StoreBase):
    """Reads only; part of :class:`~mediadesk.store.taskstore.TaskStore`."""

    def priority_span(self, profiles: Sequence[str], now: float) -> set[Channel]:
        """The priority channels that have a due pending task (three index seeks)."""
        marks = ",".join("?" * len(profiles))
        out: set[Channel] = set()
        for ch in Channel:
            row = self._conn.execute(
                f"SELECT 1 FROM task WHERE state='pending' AND profile IN ({marks}){CHANNEL_SQL[ch]}"
                " AND not_before <= ? AND cancel_requested=FALSE LIMIT 1",
                (*profiles, now),
            ).fetchone()
            if row is not None:
                out.add(ch)
        return out

    def backlog(self, profiles: Sequence[str]) -> dict[Channel, int]:
        """Pending tasks per priority channel (for the lane panels)."""
        marks = ",".join("?" * len(profiles))
        rows = self._conn.execute(
            f"SELECT CASE WHEN priority > 0 THEN 'high' WHEN priority < 0 THEN 'low' ELSE 'normal' END, count(*)"
            f" FROM task WHERE state='pending' AND profile IN ({marks}) GROUP BY 1",
            tuple(profiles),
        ).fetchall()
        return {Channel(r[0]): int(r[1]) for r in rows}

    def overdue(self, profiles: Sequence[str], cutoff: float, limit: int = 500) -> list[TaskRecord]:
        """Pending tasks queued before ``cutoff`` (their max_wait_s budget is spent)."""
        marks = ",".join("?" * len(profiles))
        rows = self._conn.execute(
            f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE state='pending' AND profile IN ({marks})"
            " AND COALESCE(queued_at, created_at) < ? ORDER BY seq LIMIT ?",
            (*profiles, cutoff, limit),
        ).fetchall()
        return [record_of(r) for r in rows]

    def history(self, route_key: str, before_seq: int) -> tuple[tuple[str, str], ...]:
        """Earlier successful turns of a conversation as (prompt, answer), oldest first."""
        rows = self._conn.execute(
            "SELECT prompt, result FROM task WHERE route_key=? AND seq < ? AND state='success' ORDER BY seq",
            (route_key, before_seq),
        ).fetchall()
        return tuple((r[0], r[1] or "") for r in rows)

    def exceptions(self, kinds: Sequence[str], include_resolved: bool = False) -> list[TaskRecord]:
        """Failed tasks a person must judge (needs login, quarantined, expired, ...)."""
        marks = ",".join("?" * len(kinds))
        sql = f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE state='failed' AND error_kind IN ({marks})"
        if not include_resolved:
            sql += " AND resolution IS NULL"
        rows = self._conn.execute(sql + " ORDER BY seq", tuple(kinds)).fetchall()
        return [record_of(r) for r in rows]

    def select_stale(self, profiles: Sequence[str] | None, cutoff: float) -> list[TaskRecord]:
        """Running tasks whose heartbeat is older than ``cutoff`` (the caller fails/retries them)."""
        if profiles is None:
            rows = self._conn.execute(
                f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE state='running' AND heartbeat_at < ?", (cutoff,)
            ).fetchall()
        else:
            marks = ",".join("?" * len(profiles))
            # a task in a provider batch (lane "batch:...") is the economy channel's, not a stale attempt
            rows = self._conn.execute(
                f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE state='running' AND heartbeat_at < ?"
                f" AND profile IN ({marks}) AND (lane IS NULL OR lane NOT LIKE 'batch:%')",
                (cutoff, *profiles),
            ).fetchall()
        return [record_of(r) for r in rows]

    def running(self) -> list[TaskRecord]:
        rows = self._conn.execute(f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE state='running'").fetchall()
        return [record_of(r) for r in rows]

    def next_due(self, profiles: Sequence[str]) -> float | None:
        """Earliest not-before of pending tasks of ``profiles`` (deferred retries)."""
        marks = ",".join("?" * len(profiles))
        row = self._conn.execute(
            f"SELECT MIN(not_before) FROM task WHERE state='pending' AND profile IN ({marks})"
            " AND cancel_requested=FALSE",
            tuple(profiles),
        ).fetchone()
        return row[0] if row and row[0] is not None else None

    def has_pending(self, profiles: Sequence[str]) -> bool:
        marks = ",".join("?" * len(profiles))
        row = self._conn.execute(
            f"SELECT 1 FROM task WHERE state='pending' AND profile IN ({marks}) LIMIT 1", tuple(profiles)
        ).fetchone()
        return row is not None

    def get(self, task_id: str) -> TaskRecord | None:
        return self._one(task_id)

    def _one(self, task_id: str) -> TaskRecord | None:
        row = self._conn.execute(f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE task_id=?", (task_id,)).fetchone()
        return record_of(row) if row else None

    def counts(self) -> dict[tuple[str, str], int]:
        """{(profile, state): n}."""
        rows = self._conn.execute("SELECT profile, state, count(*) FROM task GROUP BY profile, state")
        return {(r[0], r[1]): r[2] for r in rows}

    def states_of(self, task_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """{task_id: (state, profile)} for the given ids (chunked to stay under SQLite's limits)."""
        out: dict[str, tuple[str, str]] = {}
        ids = list(task_ids)
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for tid, state, profile in self._conn.execute(
                f"SELECT task_id, state, profile FROM task WHERE task_id IN ({marks})", chunk
            ):
                out[tid] = (state, profile)
        return out

    def pending_count(self, profiles: Sequence[str]) -> int:
        marks = ",".join("?" * len(profiles))
        (n,) = self._conn.execute(
            f"SELECT count(*) FROM task WHERE state='pending' AND profile IN ({marks})", tuple(profiles)
        ).fetchone()
        return int(n)

    def unfinished_count(self, profiles: Sequence[str] | None = None) -> int:
        if profiles is None:
            (n,) = self._conn.execute(
                "SELECT count(*) FROM task WHERE state IN ('pending','running')"
            ).fetchone()
        else:
            marks = ",".join("?" * len(profiles))
            (n,) = self._conn.execute(
                f"SELECT count(*) FROM task WHERE state IN ('pending','running') AND profile IN ({marks})",
                tuple(profiles),
            ).fetchone()
        return int(n)
