"""Read-only queries for the console and exports, off the scheduler's connection: open one
:class:`TaskReader` per thread (never on the GUI thread for long reads)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from mediadesk.store.taskstore import _TASK_COLUMNS, LogLine, TaskRecord, _rec


class TaskReader:
    """Read-only queries for the console and exports: open one per thread (not the GUI thread)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=10, check_same_thread=False)
        self._conn.execute("PRAGMA busy_timeout=10000")

    def close(self) -> None:
        self._conn.close()

    def iter_tasks(self, batch_size: int = 2000, states: Sequence[str] | None = None) -> Iterable[TaskRecord]:
        sql = f"SELECT {_TASK_COLUMNS} FROM task"
        params: tuple[Any, ...] = ()
        if states:
            sql += f" WHERE state IN ({','.join('?' * len(states))})"
            params = tuple(states)
        cur = self._conn.execute(sql + " ORDER BY seq", params)
        while True:
            rows = cur.fetchmany(batch_size)
            if not rows:
                return
            for r in rows:
                yield _rec(r)

    def get(self, task_id: str) -> TaskRecord | None:
        row = self._conn.execute(f"SELECT {_TASK_COLUMNS} FROM task WHERE task_id=?", (task_id,)).fetchone()
        return _rec(row) if row else None

    def get_many(self, task_ids: Sequence[str]) -> list[TaskRecord]:
        """Records for ``task_ids`` in the given order (missing ids skipped), 500 per query."""
        found: dict[str, TaskRecord] = {}
        ids = list(task_ids)
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for row in self._conn.execute(f"SELECT {_TASK_COLUMNS} FROM task WHERE task_id IN ({marks})", chunk):
                rec = _rec(row)
                found[rec.task_id] = rec
        return [found[t] for t in ids if t in found]

    def logs(self, task_id: str) -> list[LogLine]:
        rows = self._conn.execute(
            "SELECT task_id, ts, lane, message FROM task_log WHERE task_id=? ORDER BY id", (task_id,)
        ).fetchall()
        return [LogLine(*r) for r in rows]

    def counts(self) -> dict[tuple[str, str], int]:
        rows = self._conn.execute("SELECT profile, state, count(*) FROM task GROUP BY profile, state")
        return {(r[0], r[1]): r[2] for r in rows}
