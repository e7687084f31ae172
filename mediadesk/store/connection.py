"""The task store's connection: ONE DB-API connection owned by the scheduler's loop thread, its
transactions, and the task-log lines waiting for the next one (group commit).

:class:`StoreConnection` is built by its back-end (``TaskStore`` on SQLite, ``PgTaskStore`` on
PostgreSQL) with what differs between them: how a transaction begins and which errors the driver
raises. It knows nothing of tasks beyond the ``task_log`` row.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

__all__ = ["DbApiConnection", "LogRow", "StoreConnection", "connect_sqlite"]

#: A ``task_log`` row: task_id, ts, lane, message (English), message_id, message_params (JSON).
LogRow = tuple[str, float, str, str, str, str]


def connect_sqlite(path: Path) -> sqlite3.Connection:
    """The store's kind of connection to the SQLite file at ``path``: autocommit, WAL, synchronous=NORMAL."""
    conn = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
    try:
        _set_wal(conn)
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA busy_timeout=10000")
        # Checkpoints (the only writes that fsync in WAL + NORMAL) run in a background thread via
        # TaskStore.checkpoint(); the automatic one stays only as a far fallback.
        conn.execute("PRAGMA wal_autocheckpoint=20000")
    except BaseException:
        conn.close()
        raise
    return conn


def _set_wal(conn: sqlite3.Connection, wait_s: float = 10.0) -> None:
    """``PRAGMA journal_mode=WAL``. Switching a database to WAL needs it to itself, and SQLite answers
    "database is locked" AT ONCE (no busy handler) while another connection reads it, as when two
    processes open a new database together. Once the file is WAL the pragma needs no lock: retried
    like a busy timeout."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


class DbApiConnection(Protocol):
    """What the store uses of its driver's connection: sqlite3's, or :class:`~mediadesk.store.pgconn.PgConn`
    (psycopg with sqlite3's calling shape). In autocommit mode: one statement is its own transaction."""

    def execute(self, sql: str, params: Sequence[Any] = ..., /) -> Any: ...
    def executemany(self, sql: str, rows: Iterable[Sequence[Any]], /) -> Any: ...
    @property
    def in_transaction(self) -> bool: ...
    def close(self) -> None: ...


class StoreConnection:
    """The store's one connection, its transactions and its buffered task-log lines. Not thread-safe
    by design: the scheduler's loop thread only."""

    def __init__(self, conn: DbApiConnection, *, begin: str, errors: tuple[type[Exception], ...]) -> None:
        #: the driver's connection (sqlite3, or PgConn)
        self.driver = conn
        #: how a multi-statement transaction starts (SQLite: ``BEGIN IMMEDIATE``, the write lock at once)
        self.begin = begin
        #: the driver's errors
        self.errors = errors
        #: Task-log lines waiting for the next transaction (group commit): a line costs one INSERT inside
        #: a transaction that happens anyway, instead of a transaction of its own.
        self.log_buf: list[LogRow] = []

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.driver.execute(sql, params)

    @contextlib.contextmanager
    def tx(self) -> Iterator[None]:
        """BEGIN ... COMMIT (ROLLBACK on error). Buffered log lines are written in it; those buffered
        inside a transaction that rolls back are dropped with it."""
        conn = self.driver
        conn.execute(self.begin)
        mark = len(self.log_buf)
        try:
            yield
        except BaseException:
            # SQLite may have rolled back already (SQLITE_FULL, I/O errors): a second ROLLBACK would raise
            # "no transaction is active" and hide the real error
            if conn.in_transaction:
                with contextlib.suppress(*self.errors):  # (a lost server: the real error follows)
                    conn.execute("ROLLBACK")
            del self.log_buf[mark:]
            raise
        if self.log_buf:
            buf, self.log_buf = self.log_buf, []
            conn.executemany("INSERT INTO task_log(task_id, ts, lane, message, message_id, message_params)"
                             " VALUES (?,?,?,?,?,?)", buf)
        try:
            conn.execute("COMMIT")
        except self.errors:
            # A failed COMMIT (disk full) may leave the transaction open: end it, or every later
            # statement of this connection would join a transaction that can never commit.
            if conn.in_transaction:
                with contextlib.suppress(*self.errors):
                    conn.execute("ROLLBACK")
            raise

    def buffer_log(self, row: LogRow) -> None:
        """A task-log line for the next transaction (or :meth:`write_log`)."""
        self.log_buf.append(row)

    def write_log(self) -> None:
        """Write the buffered log lines now, in a transaction of their own (none when nothing waits)."""
        if self.log_buf:
            with self.tx():
                pass

    def close(self) -> None:
        self.driver.close()
