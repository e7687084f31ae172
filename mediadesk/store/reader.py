"""Read-only queries for the console and exports, off the scheduler's connection: open one
:class:`TaskReader` per thread (never on the GUI thread for long reads)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from mediadesk.config.location import PgLocation, StoreLocation, as_location
from mediadesk.core.log_lines import LogText
from mediadesk.store import dbfile
from mediadesk.store.open_errors import OlderSchemaError, StoreOpenError, storage_error
from mediadesk.store.record import TASK_COLUMNS_SQL, LogLine, TaskRecord, record_of
from mediadesk.store.schema import LEGACY_VERSION, check_ours

#: (profile, system, prompt, batch, finished_at) of a task that succeeded: what a re-submitted row may repeat.
DoneRow = tuple[str, str | None, str, str | None, float | None]


def rows_by_ids(execute: Any, columns: str, task_ids: Sequence[str]) -> list[tuple[Any, ...]]:
    """``SELECT columns`` of the tasks ``task_ids`` by primary key, through a connection's ``execute`` (500 ids a
    query, under SQLite's limits)."""
    out: list[tuple[Any, ...]] = []
    ids = list(task_ids)
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        marks = ",".join("?" * len(chunk))
        out.extend(execute(f"SELECT {columns} FROM task WHERE task_id IN ({marks})", chunk))
    return out


def done_rows(execute: Any, task_ids: Sequence[str]) -> dict[str, DoneRow]:
    """{task_id: :data:`DoneRow`} of those of ``task_ids`` that succeeded. The state is tested here, not in the
    WHERE: there a planner may take the state index instead of the key (measured: 40 times slower)."""
    return {r[0]: (r[1], r[2], r[3], r[4], r[5]) for r in rows_by_ids(
        execute, "task_id, profile, system, prompt, batch, finished_at, state", task_ids) if r[6] == "success"}


class TaskReader:
    """Read-only queries for the console and exports: open one per thread (not the GUI thread).

    Opening checks what :class:`~mediadesk.store.TaskStore` checks (a link, a directory, not SQLite,
    another program's database, a newer schema...) and raises the same typed errors, without writing
    anything. On a read-only disk the database is opened as immutable (nobody can change it there).
    ``where``: a path of an SQLite file or a :class:`~mediadesk.config.location.StoreLocation`
    (PostgreSQL: the same queries, through :class:`~mediadesk.store.pgconn.PgConn`).
    """

    def __init__(self, where: StoreLocation | Path | str) -> None:
        self._has_log_ids: bool | None = None
        self.location = loc = as_location(where)
        if isinstance(loc, PgLocation):
            self.path = Path()
            self._conn: Any = _open_pg(loc)
            return
        self.path = loc.path
        try:
            self._conn = self._open()
        except (sqlite3.Error, OSError) as exc:
            err = storage_error(exc, self.path)
            if err is None:
                raise
            raise err from exc

    def _open(self) -> sqlite3.Connection:
        dbfile.check_database_file(self.path, create=False)
        uri = self.path.absolute().as_uri() + "?mode=ro"
        try:
            return self._connect(uri)
        except sqlite3.OperationalError:
            # A WAL database needs its -shm, which SQLite cannot create on a read-only disk; there nothing
            # can change the file, so reading it as immutable is exact (unless a WAL is left to replay).
            if not dbfile.read_only_fs(self.path) or _has_wal(self.path):
                raise
            return self._connect(uri + "&immutable=1")

    def _connect(self, uri: str) -> sqlite3.Connection:
        conn = sqlite3.connect(uri, uri=True, timeout=10, check_same_thread=False)
        try:
            conn.execute("PRAGMA busy_timeout=10000")
            info = check_ours(conn, self.path)
            if info.version == 0:
                raise StoreOpenError(f"{self.path} is an empty database: nothing to read yet (a run or the "
                                     "console creates its tables)", self.path)
            if info.version < LEGACY_VERSION:  # (version 3 has every column read here)
                raise OlderSchemaError(self.path, info.version, LEGACY_VERSION)
        except BaseException:
            conn.close()
            raise
        return conn

    def close(self) -> None:
        self._conn.close()

    def iter_tasks(self, batch_size: int = 2000, states: Sequence[str] | None = None, *,
                   batch: str | None = None) -> Iterable[TaskRecord]:
        """Every task in submit order; ``states``: only tasks in these; ``batch``: only this batch's."""
        where: list[str] = []
        params: tuple[Any, ...] = ()
        if states:
            where.append(f"state IN ({','.join('?' * len(states))})")
            params = tuple(states)
        if batch is not None:
            where.append("batch = ?")
            params += (batch,)
        sql = f"SELECT {TASK_COLUMNS_SQL} FROM task" + (f" WHERE {' AND '.join(where)}" if where else "")
        cur = self._conn.execute(sql + " ORDER BY seq", params)
        while True:
            rows = cur.fetchmany(batch_size)
            if not rows:
                return
            for r in rows:
                yield record_of(r)

    def query(
        self,
        *,
        states: Sequence[str] = (),
        profiles: Sequence[str] = (),
        batch: str | None = None,
        lane: str | None = None,
        after_seq: int = 0,
        limit: int = 100,
    ) -> list[TaskRecord]:
        """One page of tasks in submit order, filtered (each filter optional; the values of one are
        OR-ed, the filters AND-ed), after the cursor ``after_seq`` (the last page's last ``seq``)."""
        where: list[str] = ["seq > ?"]
        params: list[Any] = [after_seq]
        for col, values in (("state", states), ("profile", profiles)):
            if values:
                where.append(f"{col} IN ({','.join('?' * len(values))})")
                params.extend(values)
        for col, value in (("batch", batch), ("lane", lane)):
            if value is not None:
                where.append(f"{col} = ?")
                params.append(value)
        sql = f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE {' AND '.join(where)} ORDER BY seq LIMIT ?"
        rows = self._conn.execute(sql, (*params, limit)).fetchall()
        return [record_of(r) for r in rows]

    def batch_counts(self, batch: str) -> dict[str, int]:
        """{state: tasks} of one batch."""
        rows = self._conn.execute("SELECT state, count(*) FROM task WHERE batch = ? GROUP BY state", (batch,))
        return {r[0]: r[1] for r in rows}

    def changed_since(self, ts: float) -> list[TaskRecord]:
        """Tasks written at or after ``ts`` (``updated_at``: every write bumps it), in submit order: the
        console of a team follows the other desktops' work with it."""
        rows = self._conn.execute(f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE updated_at >= ? ORDER BY seq",
                                  (ts,)).fetchall()
        return [record_of(r) for r in rows]

    def get(self, task_id: str) -> TaskRecord | None:
        row = self._conn.execute(f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE task_id=?", (task_id,)).fetchone()
        return record_of(row) if row else None

    def get_many(self, task_ids: Sequence[str]) -> list[TaskRecord]:
        """Records for ``task_ids`` in the given order (missing ids skipped), 500 per query."""
        found: dict[str, TaskRecord] = {}
        ids = list(task_ids)
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for row in self._conn.execute(f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE task_id IN ({marks})", chunk):
                rec = record_of(row)
                found[rec.task_id] = rec
        return [found[t] for t in ids if t in found]

    def done_of(self, task_ids: Sequence[str]) -> dict[str, DoneRow]:
        """See :func:`done_rows` (the staging preview's lookup, off the GUI thread)."""
        return done_rows(self._conn.execute, task_ids)

    def logs(self, task_id: str) -> list[LogLine]:
        """The task's log, oldest first; each line with its phrase when it was stored with one."""
        if not self._log_ids():  # a database not upgraded yet (read-only: never upgraded here)
            rows = self._conn.execute(
                "SELECT task_id, ts, lane, message FROM task_log WHERE task_id=? ORDER BY id", (task_id,)
            ).fetchall()
            return [LogLine(*r) for r in rows]
        rows = self._conn.execute(
            "SELECT task_id, ts, lane, message, message_id, message_params FROM task_log WHERE task_id=? ORDER BY id",
            (task_id,),
        ).fetchall()
        return [LogLine(t, ts, lane, msg, None if mid is None else _log_text(mid, params))
                for t, ts, lane, msg, mid, params in rows]

    def _log_ids(self) -> bool:
        """The task log has the phrase columns (revision 0006 and later)."""
        if self._has_log_ids is None:
            cur = self._conn.execute("SELECT * FROM task_log WHERE 1=0")
            self._has_log_ids = "message_id" in {d[0] for d in cur.description}
        return self._has_log_ids

    def counts(self) -> dict[tuple[str, str], int]:
        rows = self._conn.execute("SELECT profile, state, count(*) FROM task GROUP BY profile, state")
        return {(r[0], r[1]): r[2] for r in rows}


def _open_pg(loc: PgLocation) -> Any:
    """A PostgreSQL connection for reading (autocommit: each query sees what is committed), after the
    checks :class:`TaskStore` makes (a newer MediaDesk's, someone else's, not created yet)."""
    import psycopg

    from mediadesk.store.pgconn import connect, open_error
    from mediadesk.store.schema import pg_revision

    conn = connect(loc)
    try:
        revision, _has_task = pg_revision(conn)
        if revision is None:
            raise StoreOpenError(f"{loc.display} has no MediaDesk tables: nothing to read yet (a run or the "
                                 "console creates them)")
    except psycopg.Error as exc:
        conn.close()
        raise open_error(exc, loc) from None
    except BaseException:
        conn.close()
        raise
    return conn


def _log_text(message_id: str, params: str | None) -> LogText | None:
    """The phrase of a stored line; None when its values cannot be read (shown as its English)."""
    try:
        return LogText.from_stored(message_id, params)
    except (ValueError, TypeError, KeyError):
        return None


def _has_wal(path: Path) -> bool:
    try:
        return dbfile.sidecar(path, "-wal").stat().st_size > 0
    except OSError:
        return False
