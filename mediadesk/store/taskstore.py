"""The durable task table's writes. Every state change is a compare-and-set on (state, version).

Every transition the scheduler makes goes through :class:`TaskStore` on one connection, so the
compare-and-set rule, the group-committed log lines and the transition table are applied in exactly
one place. Its other parts live beside it: the record (:mod:`~mediadesk.store.record`, the one
definition of the columns), reads on the same connection (:mod:`~mediadesk.store.queries`), the
operator's settings (:mod:`~mediadesk.store.settings`) and the plumbing (:mod:`~mediadesk.store.
connection`). Long reads for the console and exports live in ``reader.py``; which back-end a location
gets is decided by :func:`~mediadesk.store.open.open_store`.

Writes go through ONE sqlite3 connection owned by the scheduler's event-loop thread: each is a
short transaction (tens of microseconds in WAL mode with synchronous=NORMAL), measured to keep the
durable path close to a bare HTTP loop. The ORM costs ~14x on this hot path (measured: ~3,000 vs
~40,000 tx/s), so the transitions are plain SQL. Long reads for the console go through
:class:`TaskReader`, one connection per thread, never on the GUI thread.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from mediadesk.config.location import SqliteLocation, StoreLocation
from mediadesk.core.picker import Channel
from mediadesk.core.spend import Price
from mediadesk.core.states import HeartbeatResult, TaskState, can_transition
from mediadesk.core.text import storable
from mediadesk.core.usage import Usage
from mediadesk.store import dbfile
from mediadesk.store.connection import connect_sqlite, faults_typed
from mediadesk.store.economy import EconomyStore
from mediadesk.store.errors import StorageError, StoreLostError, file_identity, storage_error_of
from mediadesk.store.open_errors import storage_error
from mediadesk.store.queries import TaskQueries, claim_predicate
from mediadesk.store.record import TASK_COLUMNS_SQL, AddResult, LogLine, NewTask, TaskRecord, record_of, replace_record
from mediadesk.store.schema import migrate
from mediadesk.store.settings import StoreSettings

__all__ = ["AddResult", "LogLine", "NewTask", "TaskRecord", "TaskStore"]


def _add(a: int | None, b: int | None) -> int | None:
    return a if b is None else (b if a is None else a + b)


def usage_values(rec: TaskRecord, usage: Usage) -> dict[str, Any]:
    """The usage columns after an attempt that used ``usage``: summed over the task's attempts (every
    attempt that reported usage was paid for), estimated when any part is an estimate."""
    return {"prompt_tokens": _add(rec.prompt_tokens, usage.prompt_tokens),
            "completion_tokens": _add(rec.completion_tokens, usage.completion_tokens),
            "cached_tokens": _add(rec.cached_tokens, usage.cached_tokens),
            "usage_estimated": bool(rec.usage_estimated or usage.estimated)}


def cost_values(rec: TaskRecord, values: Mapping[str, Any], price: Price | None) -> dict[str, Any]:
    """The cost columns after the usage columns became ``values``: the summed usage at ``price``
    (nothing when the profile has no price)."""
    if price is None:
        return {}
    cost = price.cost(values["prompt_tokens"] or 0, values["completion_tokens"] or 0, values["cached_tokens"] or 0)
    return {"cost": cost, "currency": price.currency}


@faults_typed
class TaskStore(TaskQueries, StoreSettings, EconomyStore):
    """All writes of the scheduler. Not thread-safe by design: use it from the loop thread only.

    This class is the SQLite store and holds the SQL of both back-ends: it is written in the subset
    SQLite and PostgreSQL share (``INSERT ... ON CONFLICT``, ``TRUE``/``FALSE``, ``RETURNING``, ``?``
    placeholders that the PostgreSQL connection wrapper translates). :class:`~mediadesk.store.pgstore.
    PgTaskStore` overrides only what differs: opening, transactions, the claim (one ``UPDATE ... FROM``
    a ``SELECT ... FOR UPDATE SKIP LOCKED``), the submit sequence lock, and what a fault means.
    :func:`~mediadesk.store.open.open_store` picks the class for a location."""

    #: Profile -> the price of its tasks (set by the scheduler from the config): a task's cost is
    #: computed whenever its usage is stored. Empty: no costs.
    prices: Mapping[str, Price] = MappingProxyType({})
    #: Told of each stored cost (the record after the write, the cost and tokens it added): the
    #: scheduler's budgets keep their sums from it.
    on_spent: Callable[[TaskRecord, float, Usage], None] | None = None

    def set_pricing(self, prices: Mapping[str, Price],
                    on_spent: Callable[[TaskRecord, float, Usage], None] | None) -> None:
        """Profile -> price (a task's cost is computed whenever its usage is stored), and who is told
        of each stored cost (the scheduler's budgets keep their sums from it)."""
        self.prices = prices
        self.on_spent = on_spent

    @property
    def location(self) -> StoreLocation:
        return SqliteLocation(self.path)

    def connect_shared(self) -> Any:
        """A NEW DB-API connection in autocommit mode to the same database (sqlite3 here, psycopg on
        PostgreSQL), for a component that must not share the store's connection (team coordinator).
        The caller closes it."""
        self.verify()
        return connect_sqlite(self.path)

    def __init__(self, path: Path | str) -> None:
        """Open (creating or upgrading) the database at ``path``. Whatever keeps it from being used (a
        directory, a link, not SQLite, another program's, a newer schema, a full or read-only disk, no
        permission) raises a :class:`~mediadesk.store.open_errors.StoreOpenError` saying so."""
        self.path = Path(path)
        try:
            migrate(self.path)  # checks the file first; creates it private
            dbfile.tighten(self.path)  # files of older versions were 0644 (only once known to be ours)
            conn = connect_sqlite(self.path)
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
        self._log_buf = []

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
    def _lock_seq(self) -> None:
        """Serialise submitters around the MAX(seq) read (SQLite: BEGIN IMMEDIATE already does)."""

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

    def _cas(
        self, rec: TaskRecord, dst: TaskState, now: float, **values: Any
    ) -> TaskRecord | None:
        """Move ``rec`` to ``dst`` iff its (state, version) are still what ``rec`` says."""
        src = TaskState(rec.state)  # (a record built by hand may carry the plain string)
        if not can_transition(src, dst):
            raise ValueError(f"illegal transition {src.value} -> {dst.value} for {rec.task_id}")
        values = {"state": dst.value, "version": rec.version + 1, "updated_at": now, **values}
        sets = ", ".join(f"{k}=?" for k in values)
        cur = self._conn.execute(
            f"UPDATE task SET {sets} WHERE task_id=? AND state=? AND version=?",
            (*values.values(), rec.task_id, src.value, rec.version),
        )
        if cur.rowcount != 1:
            return None
        return replace_record(rec, **values)

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
    def head_pending(self, profiles: Sequence[str], *, account: str | None, now: float,
                     economy: bool | None = None) -> TaskRecord | None:
        """The task :meth:`claim` would take next (read only): a token gate sizes its reservation on it."""
        if not profiles:
            return None
        marks = ",".join("?" * len(profiles))
        row = self._conn.execute(
            f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE state='pending' AND profile IN ({marks})"
            f"{claim_predicate(None, self._IS_NOT, economy)} ORDER BY priority DESC, seq LIMIT 1",
            (*profiles, now, account),
        ).fetchone()
        return None if row is None else record_of(row)

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
        economy: bool | None = None,
    ) -> list[TaskRecord]:
        """CAS up to ``limit`` due pending tasks of ``profiles`` to running (head first), optionally
        from one priority channel only (``economy``: only / all but the economy channel's tasks).

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
            f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE state='pending' AND profile IN ({marks})"
            f"{claim_predicate(channel, self._IS_NOT, economy)} ORDER BY priority DESC, seq LIMIT ?",
            (*profiles, now, account, limit),
        ).fetchall()
        for row in rows:
            rec = record_of(row)
            new = self._cas(
                rec, TaskState.RUNNING, now,
                attempt=rec.attempt + 1, started_at=now, heartbeat_at=now, lane=lane,
                account=account, owner=owner, finished_at=None,
            )
            if new is not None:
                self._log(rec.task_id, lane, f"attempt {new.attempt} started", now)
                claimed.append(new)
        return claimed

    def break_conversation(self, rec: TaskRecord, now: float | None = None) -> list[TaskRecord]:
        """A turn failed for good: its later pending turns cannot be answered in context, so they
        end ``failed`` (kind ``conversation_broken``) instead of running without their history."""
        if rec.route_key is None:
            return []
        now = time.time() if now is None else now
        rows = self._conn.execute(
            f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE route_key=? AND seq > ? AND state='pending' ORDER BY seq",
            (rec.route_key, rec.seq),
        ).fetchall()
        out: list[TaskRecord] = []
        with self._tx():
            for row in rows:
                later = record_of(row)
                msg = f"an earlier turn ({rec.task_id}) of conversation {rec.route_key!r} ended {rec.state.value}"
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
            (kind, message, now, rec.task_id, TaskState(rec.state).value, rec.version),
        )
        if cur.rowcount != 1:
            return None
        self._log(rec.task_id, rec.lane or "-", log, now)
        return replace_record(rec, error_kind=kind, error_message=message, version=rec.version + 1, updated_at=now)

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
            new = replace_record(rec, version=rec.version + 1, updated_at=now, **extra) if cur.rowcount == 1 else None
        if new is not None:
            self._log(task_id, rec.lane or "-", f"resolved by operator: {action}" + (f" ({note})" if note else ""), now)
        return new

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
        usage: Usage | None = None,
    ) -> TaskRecord | None:
        """End an attempt: success / failed / canceled, or pending again for a deferred retry.
        ``crashed`` counts the attempt toward quarantine (it crashed the browser or timed out);
        ``truncated`` marks a success whose answer the provider cut at its length limit; ``usage``:
        the tokens the attempt used, added to what earlier attempts of the task used (see
        :func:`usage_values`)."""
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
        if usage is not None:
            values.update(usage_values(rec, usage))
            values.update(cost_values(rec, values, self.prices.get(rec.profile)))
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
        if new is not None and usage is not None and self.on_spent is not None:
            self.on_spent(new, (new.cost or 0.0) - (rec.cost or 0.0), usage)
        return new

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
                    out.append(replace_record(rec, cancel_requested=True, updated_at=now))
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
                    out.append(replace_record(new, cancel_requested=False))
        return out

    def append_log(self, task_id: str, lane: str, message: str, now: float | None = None) -> LogLine:
        """Buffered: written with the next transaction, or by :meth:`flush` (at most ~0.25 s later)."""
        now = time.time() if now is None else now
        message = storable(message)[0]
        self._log_buf.append((task_id, now, lane, message))
        return LogLine(task_id, now, lane, message)
