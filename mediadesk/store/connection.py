"""The store's plumbing, shared by its parts: the SQLite connection (WAL), transactions that carry the
buffered log lines, and the wrapper that turns a fault of the disk into a typed error.

:class:`StoreBase` declares what the parts of :class:`~mediadesk.store.taskstore.TaskStore` (its
queries, settings and transitions) share: ONE connection owned by the scheduler's event-loop thread,
the buffer of log lines waiting for the next transaction (group commit), and the dialect's few SQL
differences. The back-end classes fill it in (``TaskStore.__init__``, ``PgTaskStore.__init__``).
"""

from __future__ import annotations

import contextlib
import functools
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from mediadesk.store.errors import StorageError

__all__ = ["StoreBase", "Tx", "connect_sqlite", "faults_typed"]


def connect_sqlite(path: Path) -> sqlite3.Connection:
    """The store's kind of connection to the SQLite file at ``path``: autocommit, WAL, synchronous=NORMAL."""
    conn = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
    try:
        _set_wal(conn)
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA busy_timeout=10000")
        # Checkpoints (the only writes that fsync in WAL + NORMAL) run in a background thread via
        # TaskStore.checkpoint(); the automatic one stays only as a far fallback (~80 MB of WAL).
        conn.execute("PRAGMA wal_autocheckpoint=20000")
    except BaseException:
        conn.close()
        raise
    return conn


def _set_wal(conn: sqlite3.Connection, wait_s: float = 10.0) -> None:
    """``PRAGMA journal_mode=WAL``. Switching a database to WAL needs it to itself, and SQLite answers
    "database is locked" AT ONCE (no busy handler) while another connection reads it: two processes
    opening a new database together met that (28 of 40 tries before Alembic, 2 of 40 after). Once the
    file is WAL, the pragma changes nothing and needs no lock: retried like a busy timeout."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


class StoreBase:
    """What the parts of the task store share (see the module doc). Not thread-safe by design."""

    #: "sqlite" or "postgresql"
    dialect: ClassVar[str] = "sqlite"
    #: The driver errors the typed-fault wrapper looks at (see :func:`faults_typed`).
    _db_errors: ClassVar[tuple[type[Exception], ...]] = (sqlite3.Error,)
    #: "a IS NOT b" (NULL-safe) in this dialect's SQL.
    _IS_NOT: ClassVar[str] = "IS NOT"
    #: How a multi-statement transaction starts (SQLite: take the write lock at once).
    _BEGIN: ClassVar[str] = "BEGIN IMMEDIATE"

    #: the one connection (sqlite3, or :class:`~mediadesk.store.pgconn.PgConn`)
    _conn: Any
    #: Task-log lines waiting for the next transaction (group commit): a log line costs one
    #: INSERT inside a transaction that happens anyway, instead of a transaction of its own.
    _log_buf: list[tuple[str, float, str, str]]

    def _tx(self) -> Tx:
        return Tx(self)

    def _flush_in_tx(self) -> None:
        if self._log_buf:
            buf, self._log_buf = self._log_buf, []
            self._conn.executemany("INSERT INTO task_log(task_id, ts, lane, message) VALUES (?,?,?,?)", buf)

    def _log(self, task_id: str, lane: str, message: str, ts: float) -> None:
        """Buffered: inserted by the next transaction or ``flush`` (group commit, <= ~0.25 s)."""
        self._log_buf.append((task_id, ts, lane, message))

    def verify(self) -> None:
        """Raise when the database is no longer the one we opened (see ``TaskStore.verify``)."""

    def _fault(self, exc: Exception) -> StorageError | None:
        """The typed fault behind ``exc``, or None when it is not one (a bad statement: a bug)."""
        return None


class Tx:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error) on an autocommit connection; buffered log lines
    ride along in the same transaction."""

    def __init__(self, store: StoreBase) -> None:
        self._store = store
        self._conn = store._conn

    def __enter__(self) -> None:
        self._conn.execute(self._store._BEGIN)
        self._mark = len(self._store._log_buf)

    def __exit__(self, exc_type: object, *_: object) -> None:
        if exc_type:
            # SQLite may have rolled back already (SQLITE_FULL, I/O errors): a second ROLLBACK would raise
            # "no transaction is active" and hide the real error
            if self._conn.in_transaction:
                with contextlib.suppress(*self._store._db_errors):  # (a lost server: the real error follows)
                    self._conn.execute("ROLLBACK")
            del self._store._log_buf[self._mark :]  # lines of the rolled-back transaction
            return
        self._store._flush_in_tx()
        try:
            self._conn.execute("COMMIT")
        except self._store._db_errors:
            # A failed COMMIT (disk full) may leave the transaction open: end it, or every later
            # statement of this connection would join a transaction that can never commit.
            if self._conn.in_transaction:
                with contextlib.suppress(*self._store._db_errors):
                    self._conn.execute("ROLLBACK")
            raise


_C = TypeVar("_C")

#: Writes whose success an operator is told about at once (a batch submitted, tasks canceled or queued
#: again, an exception resolved): after them the file is checked to still be the one we wrote, so a
#: deleted database never yields "submitted" (the lanes' own writes are checked on every flush).
_REPORTED_WRITES = frozenset({"add_tasks", "request_cancel", "requeue", "resolve", "reroute"})


def faults_typed(cls: type[_C]) -> type[_C]:
    """Every public method defined in ``cls`` raises a typed :class:`StorageError` (lost file, disk full,
    I/O error, lost server) instead of a bare driver error; other driver errors pass unchanged. One
    wrapper instead of a try in each method (cost: one call, ~0.1 us, when nothing fails).
    Applied to each part of the store (methods it inherits are wrapped where they are defined)."""
    for name, fn in list(vars(cls).items()):
        if not name.startswith("_") and name not in ("close", "verify") and callable(fn):
            setattr(cls, name, _typed_faults(fn, verify_after=name in _REPORTED_WRITES))
    return cls


def _typed_faults(fn: Callable[..., Any], verify_after: bool = False) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(self: StoreBase, *args: Any, **kwargs: Any) -> Any:
        try:
            result = fn(self, *args, **kwargs)
        except self._db_errors as exc:
            fault = self._fault(exc)
            if fault is None:
                raise
            raise fault from exc
        if verify_after:
            self.verify()
        return result

    return wrapper
