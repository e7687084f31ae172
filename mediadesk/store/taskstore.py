"""The durable task table. Every state change is a compare-and-set on (state, version).

Why one module of ~650 lines: every write the scheduler makes goes through this one class on one
connection, so the compare-and-set rule, the group-committed log lines and the transition table
are applied in exactly one place; splitting the writes would split that guarantee. Reads for the
console and exports live in ``reader.py``.

Writes go through ONE sqlite3 connection owned by the scheduler's event-loop thread: each is a
short transaction (tens of microseconds in WAL mode with synchronous=NORMAL), measured to keep the
durable path close to a bare HTTP loop. The ORM costs ~14x on this hot path (measured: ~3,000 vs ~40,000 tx/s), so
the schema is SQLModel and the transitions are plain SQL. Long reads for the console go through
:class:`TaskReader`, one connection per thread, never on the GUI thread.
"""

from __future__ import annotations

import contextlib
import functools
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from mediadesk.config.location import PgLocation, SqliteLocation, StoreLocation, as_location
from mediadesk.core.picker import Channel
from mediadesk.core.states import HeartbeatResult, TaskState, can_transition
from mediadesk.core.text import storable
from mediadesk.store import dbfile
from mediadesk.store.errors import StorageError, StoreLostError, file_identity, storage_error_of
from mediadesk.store.open_errors import storage_error
from mediadesk.store.schema import migrate

_TASK_COLUMNS = (
    "task_id, model_kind, state, attempt, started_at, heartbeat_at, profile, account, lane, prompt, "
    "system, priority, route_key, batch, result, error_kind, error_message, created_at, updated_at, "
    "finished_at, cancel_requested, version, not_before, seq, attempt_base, owner, queued_at, crash_count, "
    "served_by, origin_profile, resolution, resolution_note, resolved_at, truncated"
)


_CHANNEL_SQL: dict[Channel | None, str] = {
    None: "",
    Channel.HIGH: " AND priority > 0",
    Channel.NORMAL: " AND priority = 0",
    Channel.LOW: " AND priority < 0",
}


@dataclass(frozen=True)
class TaskRecord:
    task_id: str
    model_kind: str
    state: str
    attempt: int
    started_at: float | None
    heartbeat_at: float | None
    profile: str
    account: str | None
    lane: str | None
    prompt: str
    system: str | None
    priority: int
    route_key: str | None
    batch: str | None
    result: str | None
    error_kind: str | None
    error_message: str | None
    created_at: float
    updated_at: float
    finished_at: float | None
    cancel_requested: bool
    version: int
    not_before: float
    seq: int
    attempt_base: int
    owner: str | None
    # schema 2 (defaults: records built by hand in tests and tools need not name them)
    queued_at: float | None = None
    crash_count: int = 0
    served_by: str | None = None
    origin_profile: str | None = None
    resolution: str | None = None
    resolution_note: str | None = None
    resolved_at: float | None = None
    # schema 3: a success whose answer the provider cut at its length limit
    truncated: bool = False

    @property
    def attempts_in_budget(self) -> int:
        """Attempts made since the task was (re)queued by the operator."""
        return self.attempt - self.attempt_base


assert tuple(f.name for f in fields(TaskRecord)) == tuple(c.strip() for c in _TASK_COLUMNS.split(","))


def _rec(row: tuple[Any, ...]) -> TaskRecord:
    r = list(row)
    r[20] = bool(r[20])
    r[33] = bool(r[33])  # truncated
    return TaskRecord(*r)


@dataclass(frozen=True, slots=True)
class NewTask:
    task_id: str
    profile: str
    model_kind: str
    prompt: str
    system: str | None = None
    priority: int = 0
    route_key: str | None = None
    batch: str | None = None


@dataclass(frozen=True)
class AddResult:
    added: tuple[str, ...]
    existing: tuple[str, ...]


@dataclass(frozen=True)
class LogLine:
    task_id: str
    ts: float
    lane: str
    message: str


def _connect(path: Path) -> sqlite3.Connection:
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


_C = TypeVar("_C")


#: Writes whose success an operator is told about at once (a batch submitted, tasks canceled or queued
#: again, an exception resolved): after them the file is checked to still be the one we wrote, so a
#: deleted database never yields "submitted" (the lanes' own writes are checked on every flush).
_REPORTED_WRITES = frozenset({"add_tasks", "request_cancel", "requeue", "resolve", "reroute"})


def _faults_typed(cls: type[_C]) -> type[_C]:
    """Every public method of ``cls`` raises a typed :class:`StorageError` (lost file, disk full,
    I/O error) instead of a bare ``sqlite3`` error of the disk; other sqlite3 errors pass unchanged.
    One wrapper instead of a try in each of ~35 methods (cost: one call, ~0.1 us, when nothing fails)."""
    for name, fn in list(vars(cls).items()):
        if not name.startswith("_") and name not in ("close", "verify", "open") and callable(fn):
            setattr(cls, name, _typed_faults(fn, verify_after=name in _REPORTED_WRITES))
    return cls


def _typed_faults(fn: Callable[..., Any], verify_after: bool = False) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(self: TaskStore, *args: Any, **kwargs: Any) -> Any:
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


@_faults_typed
class TaskStore:
    """All writes of the scheduler. Not thread-safe by design: use it from the loop thread only.

    This class is the SQLite store and holds the SQL of both back-ends: it is written in the subset
    SQLite and PostgreSQL share (``INSERT ... ON CONFLICT``, ``TRUE``/``FALSE``, ``RETURNING``, ``?``
    placeholders that the PostgreSQL connection wrapper translates). :class:`~mediadesk.store.pgstore.
    PgTaskStore` overrides only what differs: opening, transactions, the claim (one ``UPDATE ... FROM``
    a ``SELECT ... FOR UPDATE SKIP LOCKED``), the submit sequence lock, and what a fault means.
    :meth:`open` picks the class for a location."""

    #: "sqlite" or "postgresql"
    dialect: ClassVar[str] = "sqlite"
    #: The driver errors the typed-fault wrapper looks at (see :func:`_faults_typed`).
    _db_errors: ClassVar[tuple[type[Exception], ...]] = (sqlite3.Error,)
    #: "a IS NOT b" (NULL-safe) in this dialect's SQL.
    _IS_NOT: ClassVar[str] = "IS NOT"
    #: How a multi-statement transaction starts (SQLite: take the write lock at once).
    _BEGIN: ClassVar[str] = "BEGIN IMMEDIATE"

    @staticmethod
    def open(location: StoreLocation | Path | str) -> TaskStore:
        """The store at ``location`` (a :class:`~mediadesk.config.location.StoreLocation`, or a path of an
        SQLite file), on its back-end. Raises :class:`~mediadesk.store.open_errors.StoreOpenError`s."""
        loc = as_location(location)
        if isinstance(loc, PgLocation):
            from mediadesk.store.pgstore import PgTaskStore

            return PgTaskStore(loc)
        return TaskStore(loc.path)

    @property
    def location(self) -> StoreLocation:
        return SqliteLocation(self.path)

    def connect_shared(self) -> Any:
        """A NEW DB-API connection in autocommit mode to the same database (sqlite3 here, psycopg on
        PostgreSQL), for a component that must not share the store's connection (team coordinator).
        The caller closes it."""
        self.verify()
        return _connect(self.path)

    def __init__(self, path: Path | str) -> None:
        """Open (creating or upgrading) the database at ``path``. Whatever keeps it from being used (a
        directory, a link, not SQLite, another program's, a newer schema, a full or read-only disk, no
        permission) raises a :class:`~mediadesk.store.open_errors.StoreOpenError` saying so."""
        self.path = Path(path)
        try:
            migrate(self.path)  # checks the file first; creates it private
            dbfile.tighten(self.path)  # files of older versions were 0644 (only once known to be ours)
            conn = _connect(self.path)
            try:
                dbfile.tighten(self.path)  # -wal / -shm it may have created
            except BaseException:
                conn.close()
                raise
        except (sqlite3.Error, OSError) as exc:
            err = storage_error(exc, self.path)
            if err is None:
                raise
            raise err from exc
        self._conn = conn
        #: (st_dev, st_ino) of the file we opened: a file deleted or replaced under us is noticed by
        #: :meth:`verify` (SQLite itself keeps writing to the unlinked file without an error).
        self._identity = file_identity(self.path)
        self._closed = False
        #: Task-log lines waiting for the next transaction (group commit): a log line costs one
        #: INSERT inside a transaction that happens anyway, instead of a transaction of its own.
        self._log_buf: list[tuple[str, float, str, str]] = []

    def close(self) -> None:
        """Write buffered log lines and close. A :class:`StorageError` of that last write is raised
        after the connection is closed (the store is closed either way)."""
        if not self._closed:
            self._closed = True
            try:
                self.flush()
            finally:
                self._conn.close()

    # ------------------------------------------------------------------ helpers
    def _tx(self) -> _Tx:
        return _Tx(self)

    def _lock_seq(self) -> None:
        """Serialise submitters around the MAX(seq) read (SQLite: BEGIN IMMEDIATE already does)."""

    def _flush_in_tx(self) -> None:
        if self._log_buf:
            buf, self._log_buf = self._log_buf, []
            self._conn.executemany("INSERT INTO task_log(task_id, ts, lane, message) VALUES (?,?,?,?)", buf)

    def verify(self) -> None:
        """Raise :class:`StoreLostError` when the file at our path is missing or is another file
        than the one we opened (one ``stat``, ~2 us: called on every flush and checkpoint, and by the
        CLI before it reports anything). Thread-safe; still works after :meth:`close`."""
        now = file_identity(self.path)
        if now != self._identity:
            raise StoreLostError(self.path, "deleted" if now is None else "replaced by another file")

    def _fault(self, exc: Exception) -> StorageError | None:
        """The typed fault behind ``exc`` (a lost file first: its errors are only symptoms)."""
        try:
            self.verify()
        except StoreLostError as lost:
            return lost
        return storage_error_of(exc, self.path) if isinstance(exc, sqlite3.Error) else None

    def checkpoint(self) -> None:
        """Copy the WAL back into the database (PASSIVE: never blocks writers). Thread-safe: uses its
        own connection, so call it from a worker thread and the event loop never waits on fsync.
        Never creates a file: a database deleted under us is reported (:meth:`verify`), not replaced
        by an empty one."""
        self.verify()
        conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=rw", uri=True, timeout=10,
                               check_same_thread=False)
        try:
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        finally:
            conn.close()

    def flush(self) -> None:
        """Write buffered log lines now (the scheduler calls this a few times a second), after
        checking that the database file is still ours (:meth:`verify`)."""
        self.verify()
        if self._log_buf:
            with self._tx():
                pass

    def _one(self, task_id: str) -> TaskRecord | None:
        row = self._conn.execute(f"SELECT {_TASK_COLUMNS} FROM task WHERE task_id=?", (task_id,)).fetchone()
        return _rec(row) if row else None

    def _log(self, task_id: str, lane: str, message: str, ts: float) -> None:
        """Buffered: inserted by the next transaction or :meth:`flush` (group commit, <= ~0.25 s). A
        character no database holds (lone surrogate, NUL) would fail the whole group: replaced."""
        self._log_buf.append((task_id, ts, lane, storable(message)[0]))

    def _cas(
        self, rec: TaskRecord, dst: TaskState, now: float, **values: Any
    ) -> TaskRecord | None:
        """Move ``rec`` to ``dst`` iff its (state, version) are still what ``rec`` says."""
        src = TaskState(rec.state)
        if not can_transition(src, dst):
            raise ValueError(f"illegal transition {src.value} -> {dst.value} for {rec.task_id}")
        values = {"state": dst.value, "version": rec.version + 1, "updated_at": now, **values}
        sets = ", ".join(f"{k}=?" for k in values)
        cur = self._conn.execute(
            f"UPDATE task SET {sets} WHERE task_id=? AND state=? AND version=?",
            (*values.values(), rec.task_id, rec.state, rec.version),
        )
        if cur.rowcount != 1:
            return None
        merged = {f.name: getattr(rec, f.name) for f in fields(TaskRecord)}
        merged.update(values)
        merged["cancel_requested"] = bool(merged["cancel_requested"])
        return TaskRecord(**merged)

    # ------------------------------------------------------------------ submit
    def add_tasks(self, tasks: Sequence[NewTask], now: float | None = None) -> AddResult:
        """Insert new tasks; an id already present is left untouched (idempotent re-submit)."""
        now = time.time() if now is None else now
        added: list[str] = []
        existing: list[str] = []
        with self._tx():
            self._lock_seq()
            (seq,) = self._conn.execute("SELECT COALESCE(MAX(seq), 0) FROM task").fetchone()
            for t in tasks:
                seq += 1
                cur = self._conn.execute(
                    "INSERT INTO task(task_id, model_kind, state, attempt, profile, prompt, system,"
                    " priority, route_key, batch, created_at, updated_at, cancel_requested, version,"
                    " not_before, seq, attempt_base, queued_at, crash_count, origin_profile)"
                    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,FALSE,0,0,?,0,?,0,?) ON CONFLICT DO NOTHING",
                    (t.task_id, t.model_kind, TaskState.PENDING.value, 0, t.profile, t.prompt, t.system,
                     t.priority, t.route_key, t.batch, now, now, seq, now, t.profile),
                )
                (added if cur.rowcount == 1 else existing).append(t.task_id)
        return AddResult(tuple(added), tuple(existing))

    # ------------------------------------------------------------------ lane ops
    def claim(
        self,
        profiles: Sequence[str],
        limit: int,
        *,
        lane: str,
        account: str | None,
        owner: str,
        now: float | None = None,
        channel: Channel | None = None,
    ) -> list[TaskRecord]:
        """CAS up to ``limit`` due pending tasks of ``profiles`` to running (head first), optionally
        from one priority channel only.

        Conversations (``route_key``): a turn is claimable only when no earlier turn of its
        conversation is still pending or running, and (web) only by the account that ran the
        earlier turns, so the turns of one conversation run one at a time, in order, in one thread.
        """
        if limit <= 0 or not profiles:
            return []
        now = time.time() if now is None else now
        marks = ",".join("?" * len(profiles))
        claimed: list[TaskRecord] = []
        # No explicit transaction: each CAS UPDATE is atomic by itself (autocommit), and a row taken
        # by someone else between the SELECT and the UPDATE simply fails its CAS and is skipped.
        rows = self._conn.execute(
            f"SELECT {_TASK_COLUMNS} FROM task WHERE state='pending' AND profile IN ({marks})"
            f"{_claim_predicate(channel, self._IS_NOT)} ORDER BY priority DESC, seq LIMIT ?",
            (*profiles, now, account, limit),
        ).fetchall()
        for row in rows:
            rec = _rec(row)
            new = self._cas(
                rec, TaskState.RUNNING, now,
                attempt=rec.attempt + 1, started_at=now, heartbeat_at=now, lane=lane,
                account=account, owner=owner, finished_at=None,
            )
            if new is not None:
                self._log(rec.task_id, lane, f"attempt {new.attempt} started", now)
                claimed.append(new)
        return claimed

    def priority_span(self, profiles: Sequence[str], now: float) -> set[Channel]:
        """The priority channels that have a due pending task (three index seeks)."""
        marks = ",".join("?" * len(profiles))
        out: set[Channel] = set()
        for ch in Channel:
            row = self._conn.execute(
                f"SELECT 1 FROM task WHERE state='pending' AND profile IN ({marks}){_CHANNEL_SQL[ch]}"
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
            f"SELECT {_TASK_COLUMNS} FROM task WHERE state='pending' AND profile IN ({marks})"
            " AND COALESCE(queued_at, created_at) < ? ORDER BY seq LIMIT ?",
            (*profiles, cutoff, limit),
        ).fetchall()
        return [_rec(r) for r in rows]

    def history(self, route_key: str, before_seq: int) -> tuple[tuple[str, str], ...]:
        """Earlier successful turns of a conversation as (prompt, answer), oldest first."""
        rows = self._conn.execute(
            "SELECT prompt, result FROM task WHERE route_key=? AND seq < ? AND state='success' ORDER BY seq",
            (route_key, before_seq),
        ).fetchall()
        return tuple((r[0], r[1] or "") for r in rows)

    def break_conversation(self, rec: TaskRecord, now: float | None = None) -> list[TaskRecord]:
        """A turn failed for good: its later pending turns cannot be answered in context, so they
        end ``failed`` (kind ``conversation_broken``) instead of running without their history."""
        if rec.route_key is None:
            return []
        now = time.time() if now is None else now
        rows = self._conn.execute(
            f"SELECT {_TASK_COLUMNS} FROM task WHERE route_key=? AND seq > ? AND state='pending' ORDER BY seq",
            (rec.route_key, rec.seq),
        ).fetchall()
        out: list[TaskRecord] = []
        with self._tx():
            for row in rows:
                later = _rec(row)
                msg = f"an earlier turn ({rec.task_id}) of conversation {rec.route_key!r} ended {rec.state}"
                new = self._cas(later, TaskState.FAILED, now, finished_at=now,
                                error_kind="conversation_broken", error_message=msg)
                if new is not None:
                    self._log(later.task_id, rec.lane or "-", f"not run: {msg}", now)
                    out.append(new)
        return out

    def reroute(
        self, rec: TaskRecord, profile: str, model_kind: str, *, log: str, now: float | None = None
    ) -> TaskRecord | None:
        """Move a pending or failed task to another profile (fallback chain, or a person's re-route):
        pending again at the head of its new queue, with a fresh retry budget."""
        now = time.time() if now is None else now
        new = self._cas(
            rec, TaskState.PENDING, now, profile=profile, model_kind=model_kind, attempt_base=rec.attempt,
            not_before=0.0, finished_at=None, queued_at=now, crash_count=0, lane=None, account=None,
        )
        if new is not None:
            self._log(rec.task_id, rec.lane or "-", log, now)
        return new

    def set_error(
        self, rec: TaskRecord, kind: str, message: str, *, log: str, now: float | None = None
    ) -> TaskRecord | None:
        """Change the recorded error of a finished task (same state; CAS on version)."""
        now = time.time() if now is None else now
        cur = self._conn.execute(
            "UPDATE task SET error_kind=?, error_message=?, version=version+1, updated_at=?"
            " WHERE task_id=? AND state=? AND version=?",
            (kind, message, now, rec.task_id, rec.state, rec.version),
        )
        if cur.rowcount != 1:
            return None
        self._log(rec.task_id, rec.lane or "-", log, now)
        return _rec_replace(rec, error_kind=kind, error_message=message, version=rec.version + 1, updated_at=now)

    def resolve(
        self, task_id: str, action: str, note: str, *, answer: str | None = None, now: float | None = None
    ) -> TaskRecord | None:
        """Record a person's resolution of a failed task. ``answer`` -> success served by the
        operator; ``drop`` keeps it failed; ``retry``/``reroute`` are done by the caller first (they
        leave the task pending) and this only records the note."""
        now = time.time() if now is None else now
        rec = self._one(task_id)
        if rec is None:
            return None
        extra: dict[str, Any] = {"resolution": action, "resolution_note": note, "resolved_at": now}
        if action == "answer":
            if rec.state != TaskState.FAILED.value or answer is None:
                return None
            new = self._cas(rec, TaskState.SUCCESS, now, result=answer, served_by="operator", finished_at=now, **extra)
        else:
            cur = self._conn.execute(
                "UPDATE task SET resolution=?, resolution_note=?, resolved_at=?, version=version+1, updated_at=?"
                " WHERE task_id=? AND version=?",
                (action, note, now, now, task_id, rec.version),
            )
            new = _rec_replace(rec, version=rec.version + 1, updated_at=now, **extra) if cur.rowcount == 1 else None
        if new is not None:
            self._log(task_id, rec.lane or "-", f"resolved by operator: {action}" + (f" ({note})" if note else ""), now)
        return new

    def exceptions(self, kinds: Sequence[str], include_resolved: bool = False) -> list[TaskRecord]:
        """Failed tasks a person must judge (needs login, quarantined, expired, ...)."""
        marks = ",".join("?" * len(kinds))
        sql = f"SELECT {_TASK_COLUMNS} FROM task WHERE state='failed' AND error_kind IN ({marks})"
        if not include_resolved:
            sql += " AND resolution IS NULL"
        rows = self._conn.execute(sql + " ORDER BY seq", tuple(kinds)).fetchall()
        return [_rec(r) for r in rows]

    def heartbeat(self, rec: TaskRecord, now: float | None = None) -> HeartbeatResult:
        """Write heartbeat_at, and read the cancel flag in the same statement."""
        now = time.time() if now is None else now
        row = self._conn.execute(
            "UPDATE task SET heartbeat_at=? WHERE task_id=? AND state='running' AND version=?"
            " RETURNING cancel_requested",
            (now, rec.task_id, rec.version),
        ).fetchone()
        if row is None:
            return HeartbeatResult.LOST
        return HeartbeatResult.CANCEL_REQUESTED if row[0] else HeartbeatResult.ALIVE

    def finish(
        self,
        rec: TaskRecord,
        dst: TaskState,
        *,
        result: str | None = None,
        error_kind: str | None = None,
        error_message: str | None = None,
        not_before: float = 0.0,
        log: str | None = None,
        refund_attempt: bool = False,
        now: float | None = None,
        served_by: str | None = None,
        crashed: bool = False,
        truncated: bool = False,
    ) -> TaskRecord | None:
        """End an attempt: success / failed / canceled, or pending again for a deferred retry.
        ``crashed`` counts the attempt toward quarantine (it crashed the browser or timed out);
        ``truncated`` marks a success whose answer the provider cut at its length limit."""
        now = time.time() if now is None else now
        # An answer (or a server's error text) may hold what no database stores as text: a lone
        # surrogate from a JSON "\ud800", a NUL. Kept with U+FFFD in their place, and the log says so.
        replaced: list[str] = []
        if result is not None:
            result, n = storable(result)
            if n:
                replaced.append(f"{n} character(s) of the answer")
        if error_message is not None:
            error_message, n = storable(error_message)
            if n:
                replaced.append(f"{n} character(s) of the error message")
        if replaced:
            note = (f"stored with U+FFFD in place of {' and '.join(replaced)} that no database can hold "
                    "as text (a lone surrogate or NUL the provider sent)")
            log = f"{log}; {note}" if log else note
        values: dict[str, Any] = {"error_kind": error_kind, "error_message": error_message}
        if crashed:
            values["crash_count"] = rec.crash_count + 1
        if dst is TaskState.SUCCESS:
            values.update(result=result, finished_at=now, error_kind=None, error_message=None,
                          served_by=served_by or rec.profile, truncated=bool(truncated))
        elif dst is TaskState.PENDING:
            values.update(not_before=not_before, finished_at=None)
            if refund_attempt:
                values.update(attempt=max(0, rec.attempt - 1))
        else:
            values.update(finished_at=now)
        # One autocommit UPDATE (the CAS); its log line joins the next group commit.
        new = self._cas(rec, dst, now, **values)
        if new is not None and log:
            self._log(rec.task_id, rec.lane or "-", log, now)
        return new

    def select_stale(self, profiles: Sequence[str] | None, cutoff: float) -> list[TaskRecord]:
        """Running tasks whose heartbeat is older than ``cutoff`` (the caller fails/retries them)."""
        if profiles is None:
            rows = self._conn.execute(
                f"SELECT {_TASK_COLUMNS} FROM task WHERE state='running' AND heartbeat_at < ?", (cutoff,)
            ).fetchall()
        else:
            marks = ",".join("?" * len(profiles))
            rows = self._conn.execute(
                f"SELECT {_TASK_COLUMNS} FROM task WHERE state='running' AND heartbeat_at < ?"
                f" AND profile IN ({marks})",
                (cutoff, *profiles),
            ).fetchall()
        return [_rec(r) for r in rows]

    def running(self) -> list[TaskRecord]:
        rows = self._conn.execute(f"SELECT {_TASK_COLUMNS} FROM task WHERE state='running'").fetchall()
        return [_rec(r) for r in rows]

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

    # ------------------------------------------------------------------ operator ops
    def request_cancel(self, task_ids: Iterable[str], now: float | None = None) -> list[TaskRecord]:
        """Pending -> canceled at once; running -> cancel flag set (the lane finishes the job).

        Returns the records after the change (state ``canceled`` or ``running`` with the flag)."""
        now = time.time() if now is None else now
        out: list[TaskRecord] = []
        with self._tx():
            for tid in task_ids:
                rec = self._one(tid)
                if rec is None:
                    continue
                if rec.state == TaskState.PENDING.value:
                    new = self._cas(
                        rec, TaskState.CANCELED, now, finished_at=now,
                        error_kind="canceled", error_message="canceled by operator while pending",
                    )
                    if new is not None:
                        self._log(tid, rec.lane or "-", "canceled while pending", now)
                        out.append(new)
                elif rec.state == TaskState.RUNNING.value and not rec.cancel_requested:
                    self._conn.execute(
                        "UPDATE task SET cancel_requested=TRUE, updated_at=? WHERE task_id=? AND state='running'",
                        (now, tid),
                    )
                    self._log(tid, rec.lane or "-", "cancel requested by operator", now)
                    out.append(_rec_replace(rec, cancel_requested=True, updated_at=now))
        return out

    def requeue(self, task_ids: Iterable[str], now: float | None = None) -> list[TaskRecord]:
        """Operator retry: failed/canceled -> pending on the same row, with a fresh retry budget."""
        now = time.time() if now is None else now
        out: list[TaskRecord] = []
        with self._tx():
            for tid in task_ids:
                rec = self._one(tid)
                if rec is None or rec.state not in (TaskState.FAILED.value, TaskState.CANCELED.value):
                    continue
                new = self._cas(
                    rec, TaskState.PENDING, now, attempt_base=rec.attempt, not_before=0.0,
                    cancel_requested=False, finished_at=None, queued_at=now, crash_count=0,
                )
                if new is not None:
                    self._log(tid, rec.lane or "-", "re-queued by operator", now)
                    out.append(_rec_replace(new, cancel_requested=False))
        return out

    def append_log(self, task_id: str, lane: str, message: str, now: float | None = None) -> LogLine:
        """Buffered: written with the next transaction, or by :meth:`flush` (at most ~0.25 s later)."""
        now = time.time() if now is None else now
        message = storable(message)[0]
        self._log_buf.append((task_id, now, lane, message))
        return LogLine(task_id, now, lane, message)

    # ------------------------------------------------------------------ settings
    def account_states(self) -> dict[str, tuple[bool, str, str | None]]:
        rows = self._conn.execute("SELECT name, enabled, health, last_error FROM account_state").fetchall()
        return {r[0]: (bool(r[1]), r[2], r[3]) for r in rows}

    def set_account_enabled(self, name: str, enabled: bool, now: float | None = None) -> None:
        now = time.time() if now is None else now
        with self._tx():
            self._conn.execute(
                "INSERT INTO account_state(name, enabled, health, updated_at) VALUES (?,?, 'ready', ?)"
                " ON CONFLICT(name) DO UPDATE SET enabled=excluded.enabled, updated_at=excluded.updated_at",
                (name, bool(enabled), now),
            )

    def set_account_health(self, name: str, health: str, last_error: str | None, enabled_default: bool) -> None:
        with self._tx():
            self._conn.execute(
                "INSERT INTO account_state(name, enabled, health, last_error, updated_at) VALUES (?,?,?,?,?)"
                " ON CONFLICT(name) DO UPDATE SET health=excluded.health, last_error=excluded.last_error,"
                " updated_at=excluded.updated_at",
                (name, bool(enabled_default), health, last_error, time.time()),
            )

    def profile_settings(self) -> dict[str, tuple[bool | None, int | None]]:
        rows = self._conn.execute("SELECT name, need_empty_prompt, concurrency FROM profile_setting").fetchall()
        return {r[0]: (None if r[1] is None else bool(r[1]), r[2]) for r in rows}

    def set_profile_setting(
        self, name: str, *, need_empty_prompt: bool | None = None, concurrency: int | None = None
    ) -> None:
        cur = self.profile_settings().get(name, (None, None))
        nep = cur[0] if need_empty_prompt is None else need_empty_prompt
        conc = cur[1] if concurrency is None else concurrency
        with self._tx():
            self._conn.execute(
                "INSERT INTO profile_setting(name, need_empty_prompt, concurrency, updated_at) VALUES (?,?,?,?)"
                " ON CONFLICT(name) DO UPDATE SET need_empty_prompt=excluded.need_empty_prompt,"
                " concurrency=excluded.concurrency, updated_at=excluded.updated_at",
                (name, None if nep is None else bool(nep), conc, time.time()),
            )

    # ------------------------------------------------------------------ small reads (loop thread)
    def get(self, task_id: str) -> TaskRecord | None:
        return self._one(task_id)

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


def _claim_predicate(channel: Channel | None, is_not: str) -> str:
    """The claim's WHERE after ``state='pending' AND profile IN (...)`` (params: now, account), shared by
    both back-ends. Conversations (``route_key``): no earlier turn still pending or running, and no
    earlier turn run by another account."""
    return (
        f" AND not_before <= ? AND cancel_requested=FALSE{_CHANNEL_SQL[channel]}"
        " AND (route_key IS NULL OR NOT EXISTS (SELECT 1 FROM task AS e WHERE e.route_key = task.route_key"
        " AND e.seq < task.seq AND (e.state IN ('pending','running')"
        f" OR (e.account IS NOT NULL AND e.account {is_not} ?))))"
    )


def _rec_replace(rec: TaskRecord, **changes: Any) -> TaskRecord:
    d = {f.name: getattr(rec, f.name) for f in fields(TaskRecord)}
    d.update(changes)
    return TaskRecord(**d)


class _Tx:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error) on an autocommit sqlite3 connection; buffered
    log lines ride along in the same transaction."""

    def __init__(self, store: TaskStore) -> None:
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


