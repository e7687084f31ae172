"""The task store: every read and write the scheduler makes on its one connection.

Every state change is a compare-and-set on (state, version), checked against the transition table,
so two schedulers (or two desktops) can never both run one task. The columns have one definition
(:mod:`~mediadesk.store.record`); the connection, its transactions and the group-committed log lines
are :class:`~mediadesk.store.connection.StoreConnection`. Long reads for the console and exports go
through :class:`~mediadesk.store.reader.TaskReader` on connections of their own. The hot
transitions are plain SQL: the ORM costs too much on this path (docs/benchmarks.md).
"""

from __future__ import annotations

import functools
import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

from mediadesk.config.location import SqliteLocation, StoreLocation
from mediadesk.core.log_lines import LOG, LogText
from mediadesk.core.picker import Channel
from mediadesk.core.spend import Price
from mediadesk.core.states import HeartbeatResult, TaskState, can_transition
from mediadesk.core.text import storable
from mediadesk.core.usage import Usage
from mediadesk.store import dbfile
from mediadesk.store.connection import StoreConnection, connect_sqlite
from mediadesk.store.economy import OPEN_STATES, EconomyBatch
from mediadesk.store.errors import StorageError, StoreLostError, file_identity, storage_error_of
from mediadesk.store.open_errors import storage_error
from mediadesk.store.reader import DoneRow, done_rows, rows_by_ids
from mediadesk.store.record import TASK_COLUMNS_SQL, AddResult, LogLine, NewTask, TaskRecord, record_of, replace_record
from mediadesk.store.schema import migrate
from mediadesk.store.spend import SpendBy, SpendRow, spend_rows

__all__ = ["AddResult", "LogLine", "NewTask", "TaskRecord", "TaskStore", "claim_predicate", "faults_typed"]


def _add(a: int | None, b: int | None) -> int | None:
    return a if b is None else (b if a is None else a + b)


def usage_values(rec: TaskRecord, usage: Usage) -> dict[str, Any]:
    """The usage columns after an attempt that used ``usage``: summed over the task's attempts (every
    attempt that reported usage was paid for), estimated when any part is an estimate."""
    return {"prompt_tokens": _add(rec.prompt_tokens, usage.prompt_tokens),
            "completion_tokens": _add(rec.completion_tokens, usage.completion_tokens),
            "cached_tokens": _add(rec.cached_tokens, usage.cached_tokens),
            "reasoning_tokens": _add(rec.reasoning_tokens, usage.reasoning_tokens),
            "usage_estimated": bool(rec.usage_estimated or usage.estimated)}


def cost_values(rec: TaskRecord, values: Mapping[str, Any], price: Price | None) -> dict[str, Any]:
    """The cost columns after the usage columns became ``values``: the summed usage at ``price``
    (nothing when the profile has no price)."""
    if price is None:
        return {}
    cost = price.cost(values["prompt_tokens"] or 0, values["completion_tokens"] or 0, values["cached_tokens"] or 0)
    return {"cost": cost, "currency": price.currency}


#: A task's final state in a log line, as words of ours.
_STATE_WORDS: dict[str, LogText] = {"failed": LOG.state_failed(), "canceled": LOG.state_canceled()}


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


_C = TypeVar("_C")

#: Writes whose success an operator is told about at once (a batch submitted, tasks canceled or queued
#: again, an exception resolved): after them the file is checked to still be the one we wrote, so a
#: deleted database never yields "submitted" (the lanes' own writes are checked on every flush).
_REPORTED_WRITES = frozenset({"add_tasks", "request_cancel", "requeue", "resolve", "reroute", "set_kept"})


def faults_typed(cls: type[_C]) -> type[_C]:
    """Every public method defined in ``cls`` raises a typed :class:`StorageError` (lost file, disk full,
    I/O error, lost server) instead of a bare driver error; other driver errors pass unchanged. One
    wrapper instead of a try in each method; a subclass applies it to the methods it defines."""
    for name, fn in list(vars(cls).items()):
        if not name.startswith("_") and name not in ("close", "verify") and callable(fn):
            setattr(cls, name, _typed_faults(fn, verify_after=name in _REPORTED_WRITES))
    return cls


def _typed_faults(fn: Callable[..., Any], verify_after: bool = False) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(self: TaskStore, *args: Any, **kwargs: Any) -> Any:
        try:
            result = fn(self, *args, **kwargs)
        except self._db.errors as exc:
            fault = self._fault(exc)
            if fault is None:
                raise
            raise fault from exc
        if verify_after:
            self.verify()
        return result

    return wrapper


@faults_typed
class TaskStore:
    """The task store on SQLite, implementing :class:`~mediadesk.store.protocol.Store`. Not thread-safe
    by design: use it from the scheduler's loop thread only.

    Large because it is one concept: the whole :class:`~mediadesk.store.protocol.Store` on one
    connection. Its users hold one store, and parts cut out of it would only forward to each other.
    Its SQL is written in the subset SQLite and PostgreSQL share (``INSERT ... ON CONFLICT``,
    ``TRUE``/``FALSE``, ``RETURNING``, ``?`` placeholders), so :class:`~mediadesk.store.pgstore.
    PgTaskStore` overrides only what differs: opening, the claim, the submit sequence lock and faults."""

    #: "sqlite" or "postgresql"
    dialect: ClassVar[str] = "sqlite"
    #: "a IS NOT b" (NULL-safe) in this dialect's SQL.
    _IS_NOT: ClassVar[str] = "IS NOT"
    #: Profile -> the price of its tasks (set by the scheduler from the config): a task's cost is
    #: computed whenever its usage is stored. Empty: no costs.
    prices: Mapping[str, Price] = MappingProxyType({})
    #: Told of each stored cost (the record after the write, the cost and tokens it added): the
    #: scheduler's budgets keep their sums from it.
    on_spent: Callable[[TaskRecord, float, Usage], None] | None = None

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
        self._db = StoreConnection(conn, begin="BEGIN IMMEDIATE", errors=(sqlite3.Error,))
        #: (st_dev, st_ino) of the file we opened: a file deleted or replaced under us is noticed by
        #: :meth:`verify` (SQLite itself keeps writing to the unlinked file without an error).
        self._identity = file_identity(self.path)
        self._closed = False

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

    # ------------------------------------------------------------------ life
    def close(self) -> None:
        """Write buffered log lines and close. A :class:`StorageError` of that last write is raised
        after the connection is closed (the store is closed either way)."""
        if not self._closed:
            self._closed = True
            try:
                self.flush()
            finally:
                self._db.close()

    def verify(self) -> None:
        """Raise :class:`StoreLostError` when the file at our path is missing or is another file than
        the one we opened (one ``stat``: called on every flush and checkpoint, and by the CLI before it
        reports anything). Thread-safe; still works after :meth:`close`."""
        now = file_identity(self.path)
        if now != self._identity:
            raise StoreLostError(self.path, "deleted" if now is None else "replaced by another file")

    def _fault(self, exc: Exception) -> StorageError | None:
        """The typed fault behind ``exc`` (a lost file first: its errors are only symptoms), or None when
        it is not one (a bad statement: a bug)."""
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
        self._db.write_log()

    # ------------------------------------------------------------------ helpers
    def _lock_seq(self) -> None:
        """Serialise submitters around the MAX(seq) read (SQLite: BEGIN IMMEDIATE already does)."""

    def _log(self, task_id: str, lane: str, text: LogText, ts: float) -> str:
        """Buffered: inserted by the next transaction or ``flush`` (group commit), as its English text,
        its phrase id and its values. A character no database holds (lone surrogate, NUL) would fail
        the whole group: replaced in the text (the JSON of the values is ASCII). Returns the English
        text as stored."""
        message = storable(text.english())[0]
        self._db.buffer_log((task_id, ts, lane, message, text.id, text.params_json()))
        return message

    def _cas(
        self, rec: TaskRecord, dst: TaskState, now: float, **values: Any
    ) -> TaskRecord | None:
        """Move ``rec`` to ``dst`` iff its (state, version) are still what ``rec`` says."""
        src = TaskState(rec.state)  # (a record built by hand may carry the plain string)
        if not can_transition(src, dst):
            raise ValueError(f"illegal transition {src.value} -> {dst.value} for {rec.task_id}")
        values = {"state": dst.value, "version": rec.version + 1, "updated_at": now, **values}
        sets = ", ".join(f"{k}=?" for k in values)
        cur = self._db.execute(
            f"UPDATE task SET {sets} WHERE task_id=? AND state=? AND version=?",
            (*values.values(), rec.task_id, src.value, rec.version),
        )
        if cur.rowcount != 1:
            return None
        return replace_record(rec, **values)

    # ------------------------------------------------------------------ submit
    def add_tasks(self, tasks: Sequence[NewTask], now: float | None = None,
                  reuse: Mapping[str, str] | None = None) -> AddResult:
        """Insert new tasks; an id already present is left untouched (idempotent re-submit). ``reuse``: new
        task id -> a finished task whose answer it takes: stored as a success at once, with that task's
        answer, at no cost and no tokens, ``reused_from`` naming it (nothing is sent)."""
        now = time.time() if now is None else now
        reuse = reuse or {}
        added: list[str] = []
        existing: list[str] = []
        with self._db.tx():
            self._lock_seq()
            (seq,) = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM task").fetchone()
            for t in tasks:
                seq += 1
                cur = self._db.execute(
                    "INSERT INTO task(task_id, model_kind, state, attempt, profile, prompt, system,"
                    " priority, route_key, batch, created_at, updated_at, cancel_requested, version,"
                    " not_before, seq, attempt_base, queued_at, crash_count, origin_profile,"
                    " group_id, template, template_vars, sample, reused_from)"
                    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,FALSE,0,0,?,0,?,0,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
                    (t.task_id, t.model_kind,
                     (TaskState.SUCCESS if t.task_id in reuse else TaskState.PENDING).value, 0, t.profile, t.prompt,
                     t.system, t.priority, t.route_key, t.batch, now, now, seq, now, t.profile,
                     t.group_id, t.template, t.template_vars, t.sample, reuse.get(t.task_id)),
                )
                (added if cur.rowcount == 1 else existing).append(t.task_id)
            self._reuse_answers([tid for tid in added if tid in reuse], reuse, now)
        return AddResult(tuple(added), tuple(existing))

    def _reuse_answers(self, task_ids: Sequence[str], reuse: Mapping[str, str], now: float) -> None:
        """The just-inserted ``task_ids`` (a success already, ``reused_from`` set) take their earlier task's
        answer, uncharged: one UPDATE per 500 (in the insert's transaction: no lane ever sees them)."""
        copied = ", ".join(f"{c}=e.{c}" for c in ("result", "reasoning", "truncated", "served_by", "currency"))
        for i in range(0, len(task_ids), 500):
            chunk = task_ids[i:i + 500]
            self._db.execute(
                "UPDATE task SET finished_at=?, cost=0, prompt_tokens=0, completion_tokens=0, cached_tokens=0,"
                f" reasoning_tokens=0, {copied} FROM task AS e WHERE e.task_id = task.reused_from"
                f" AND task.task_id IN ({','.join('?' * len(chunk))})", (now, *chunk))
        for tid in task_ids:
            self._log(tid, "-", LOG.reused_answer(task=reuse[tid]), now)

    def done_of(self, task_ids: Sequence[str]) -> dict[str, DoneRow]:
        """{task_id: (profile, system, prompt, batch, finished_at)} of those of ``task_ids`` that succeeded (by
        primary key, 500 a query): what a re-submitted row may repeat (:func:`~mediadesk.store.reader.done_rows`)."""
        return done_rows(self._db.execute, task_ids)

    # ------------------------------------------------------------------ lane ops
    def head_pending(self, profiles: Sequence[str], *, account: str | None, now: float,
                     economy: bool | None = None) -> TaskRecord | None:
        """The task :meth:`claim` would take next (read only): a token gate sizes its reservation on it."""
        if not profiles:
            return None
        marks = ",".join("?" * len(profiles))
        row = self._db.execute(
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
        rows = self._db.execute(
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
                self._log(rec.task_id, lane, LOG.attempt_started(attempt=new.attempt), now)
                claimed.append(new)
        return claimed

    def break_conversation(self, rec: TaskRecord, now: float | None = None) -> list[TaskRecord]:
        """A turn failed for good: its later pending turns cannot be answered in context, so they
        end ``failed`` (kind ``conversation_broken``) instead of running without their history."""
        if rec.route_key is None:
            return []
        now = time.time() if now is None else now
        rows = self._db.execute(
            f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE route_key=? AND seq > ? AND state='pending' ORDER BY seq",
            (rec.route_key, rec.seq),
        ).fetchall()
        out: list[TaskRecord] = []
        with self._db.tx():
            for row in rows:
                later = record_of(row)
                why = LOG.earlier_turn_ended(task=rec.task_id, conversation=repr(rec.route_key),
                                             state=_STATE_WORDS.get(rec.state.value, rec.state.value))
                new = self._cas(later, TaskState.FAILED, now, finished_at=now,
                                error_kind="conversation_broken", error_message=why.english())
                if new is not None:
                    self._log(later.task_id, rec.lane or "-", LOG.not_run(why=why), now)
                    out.append(new)
        return out

    def reroute(
        self, rec: TaskRecord, profile: str, model_kind: str, *, log: LogText, now: float | None = None
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
        self, rec: TaskRecord, kind: str, message: str, *, log: LogText, now: float | None = None
    ) -> TaskRecord | None:
        """Change the recorded error of a finished task (same state; CAS on version)."""
        now = time.time() if now is None else now
        cur = self._db.execute(
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
            cur = self._db.execute(
                "UPDATE task SET resolution=?, resolution_note=?, resolved_at=?, version=version+1, updated_at=?"
                " WHERE task_id=? AND version=?",
                (action, note, now, now, task_id, rec.version),
            )
            new = replace_record(rec, version=rec.version + 1, updated_at=now, **extra) if cur.rowcount == 1 else None
        if new is not None:
            said = LOG.resolved_with_note(action=action, note=note) if note else LOG.resolved(action=action)
            self._log(task_id, rec.lane or "-", said, now)
        return new

    def heartbeat(self, rec: TaskRecord, now: float | None = None) -> HeartbeatResult:
        """Write heartbeat_at, and read the cancel flag in the same statement."""
        now = time.time() if now is None else now
        row = self._db.execute(
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
        log: LogText | None = None,
        refund_attempt: bool = False,
        now: float | None = None,
        served_by: str | None = None,
        crashed: bool = False,
        truncated: bool = False,
        usage: Usage | None = None,
        reasoning: str | None = None,
    ) -> TaskRecord | None:
        """End an attempt: success / failed / canceled, or pending again for a deferred retry.
        ``crashed`` counts the attempt toward quarantine (it crashed the browser or timed out);
        ``truncated`` marks a success whose answer the provider cut at its length limit; ``usage``:
        the tokens the attempt used (its reasoning tokens too), added to what earlier attempts of the
        task used (see :func:`usage_values`); ``reasoning``: a success's thinking, kept apart from
        ``result``."""
        now = time.time() if now is None else now
        # An answer (or a server's error text) may hold what no database stores as text: a lone
        # surrogate from a JSON "\ud800", a NUL. Kept with U+FFFD in their place, and the log says so.
        replaced: list[str] = []
        if result is not None:
            result, n = storable(result)
            if n:
                replaced.append(f"{n} character(s) of the answer")
        if reasoning is not None:
            reasoning, n = storable(reasoning)
            if n:
                replaced.append(f"{n} character(s) of the thinking")
        if error_message is not None:
            error_message, n = storable(error_message)
            if n:
                replaced.append(f"{n} character(s) of the error message")
        if replaced:
            note = LOG.replaced_unstorable(what=" and ".join(replaced))
            log = LOG.with_note(line=log, note=note) if log else note
        values: dict[str, Any] = {"error_kind": error_kind, "error_message": error_message}
        if crashed:
            values["crash_count"] = rec.crash_count + 1
        if usage is not None:
            values.update(usage_values(rec, usage))
            values.update(cost_values(rec, values, self.prices.get(rec.profile)))
        if dst is TaskState.SUCCESS:
            values.update(result=result, finished_at=now, error_kind=None, error_message=None,
                          served_by=served_by or rec.profile, truncated=bool(truncated), reasoning=reasoning)
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
        with self._db.tx():
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
                        self._log(tid, rec.lane or "-", LOG.canceled_while_pending(), now)
                        out.append(new)
                elif rec.state == TaskState.RUNNING.value and not rec.cancel_requested:
                    self._db.execute(
                        "UPDATE task SET cancel_requested=TRUE, updated_at=? WHERE task_id=? AND state='running'",
                        (now, tid),
                    )
                    self._log(tid, rec.lane or "-", LOG.cancel_requested(), now)
                    out.append(replace_record(rec, cancel_requested=True, updated_at=now))
        return out

    def requeue(self, task_ids: Iterable[str], now: float | None = None) -> list[TaskRecord]:
        """Operator retry: failed/canceled -> pending on the same row, with a fresh retry budget."""
        now = time.time() if now is None else now
        out: list[TaskRecord] = []
        with self._db.tx():
            for tid in task_ids:
                rec = self._one(tid)
                if rec is None or rec.state not in (TaskState.FAILED.value, TaskState.CANCELED.value):
                    continue
                new = self._cas(
                    rec, TaskState.PENDING, now, attempt_base=rec.attempt, not_before=0.0,
                    cancel_requested=False, finished_at=None, queued_at=now, crash_count=0,
                )
                if new is not None:
                    self._log(tid, rec.lane or "-", LOG.requeued_by_operator(), now)
                    out.append(replace_record(new, cancel_requested=False))
        return out

    def set_kept(self, task_id: str, kept: bool = True, now: float | None = None) -> list[TaskRecord]:
        """The operator's keep mark: ``task_id`` kept (and the other tasks of its group not: one kept per
        group), or not kept; returns the records whose mark changed, after the change."""
        now = time.time() if now is None else now
        with self._db.tx():
            rec = self._one(task_id)
            if rec is None:
                return []
            changed = [rec] if rec.kept != kept else []
            if kept and rec.group_id is not None:
                changed += [record_of(r) for r in self._db.execute(
                    f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE group_id=? AND kept=TRUE AND task_id<>?",
                    (rec.group_id, task_id)).fetchall()]
            for old in changed:
                self._db.execute("UPDATE task SET kept=?, updated_at=? WHERE task_id=?",
                                 (old.task_id == task_id and kept, now, old.task_id))
        return [replace_record(old, kept=old.task_id == task_id and kept, updated_at=now) for old in changed]

    def append_log(self, task_id: str, lane: str, text: LogText, now: float | None = None) -> LogLine:
        """Buffered: written with the next transaction, or by :meth:`flush` (the upkeep's group commit)."""
        now = time.time() if now is None else now
        return LogLine(task_id, now, lane, self._log(task_id, lane, text, now), text)

    # ------------------------------------------------------------------ reads
    def priority_span(self, profiles: Sequence[str], now: float) -> set[Channel]:
        """The priority channels that have a due pending task (three index seeks)."""
        marks = ",".join("?" * len(profiles))
        out: set[Channel] = set()
        for ch in Channel:
            row = self._db.execute(
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
        rows = self._db.execute(
            f"SELECT CASE WHEN priority > 0 THEN 'high' WHEN priority < 0 THEN 'low' ELSE 'normal' END, count(*)"
            f" FROM task WHERE state='pending' AND profile IN ({marks}) GROUP BY 1",
            tuple(profiles),
        ).fetchall()
        return {Channel(r[0]): int(r[1]) for r in rows}

    def overdue(self, profiles: Sequence[str], cutoff: float, limit: int = 500) -> list[TaskRecord]:
        """Pending tasks queued before ``cutoff`` (their max_wait_s budget is spent)."""
        marks = ",".join("?" * len(profiles))
        rows = self._db.execute(
            f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE state='pending' AND profile IN ({marks})"
            " AND COALESCE(queued_at, created_at) < ? ORDER BY seq LIMIT ?",
            (*profiles, cutoff, limit),
        ).fetchall()
        return [record_of(r) for r in rows]

    def history(self, route_key: str, before_seq: int) -> tuple[tuple[str, str], ...]:
        """Earlier successful turns of a conversation as (prompt, answer), oldest first."""
        rows = self._db.execute(
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
        rows = self._db.execute(sql + " ORDER BY seq", tuple(kinds)).fetchall()
        return [record_of(r) for r in rows]

    def stopped_pending(self, kinds: Sequence[str]) -> list[TaskRecord]:
        """Pending API tasks whose last attempt stopped their endpoint (its key rejected, a TLS error:
        the error kinds ``kinds``): they wait for the operator, uncharged."""
        marks = ",".join("?" * len(kinds))
        rows = self._db.execute(
            f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE state='pending' AND model_kind='api'"
            f" AND error_kind IN ({marks}) ORDER BY seq", tuple(kinds),
        ).fetchall()
        return [record_of(r) for r in rows]

    def select_stale(self, profiles: Sequence[str] | None, cutoff: float) -> list[TaskRecord]:
        """Running tasks whose heartbeat is older than ``cutoff`` (the caller fails/retries them)."""
        if profiles is None:
            rows = self._db.execute(
                f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE state='running' AND heartbeat_at < ?", (cutoff,)
            ).fetchall()
        else:
            marks = ",".join("?" * len(profiles))
            # a task in a provider batch (lane "batch:...") is the economy channel's, not a stale attempt
            rows = self._db.execute(
                f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE state='running' AND heartbeat_at < ?"
                f" AND profile IN ({marks}) AND (lane IS NULL OR lane NOT LIKE 'batch:%')",
                (cutoff, *profiles),
            ).fetchall()
        return [record_of(r) for r in rows]

    def running(self) -> list[TaskRecord]:
        rows = self._db.execute(f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE state='running'").fetchall()
        return [record_of(r) for r in rows]

    def next_due(self, profiles: Sequence[str]) -> float | None:
        """Earliest not-before of pending tasks of ``profiles`` (deferred retries)."""
        marks = ",".join("?" * len(profiles))
        row = self._db.execute(
            f"SELECT MIN(not_before) FROM task WHERE state='pending' AND profile IN ({marks})"
            " AND cancel_requested=FALSE",
            tuple(profiles),
        ).fetchone()
        return row[0] if row and row[0] is not None else None

    def has_pending(self, profiles: Sequence[str]) -> bool:
        marks = ",".join("?" * len(profiles))
        row = self._db.execute(
            f"SELECT 1 FROM task WHERE state='pending' AND profile IN ({marks}) LIMIT 1", tuple(profiles)
        ).fetchone()
        return row is not None

    def get(self, task_id: str) -> TaskRecord | None:
        return self._one(task_id)

    def _one(self, task_id: str) -> TaskRecord | None:
        row = self._db.execute(f"SELECT {TASK_COLUMNS_SQL} FROM task WHERE task_id=?", (task_id,)).fetchone()
        return record_of(row) if row else None

    def counts(self) -> dict[tuple[str, str], int]:
        """{(profile, state): n}."""
        rows = self._db.execute("SELECT profile, state, count(*) FROM task GROUP BY profile, state")
        return {(r[0], r[1]): r[2] for r in rows}

    def states_of(self, task_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """{task_id: (state, profile)} for the given ids (chunked to stay under SQLite's limits)."""
        rows = rows_by_ids(self._db.execute, "task_id, state, profile", task_ids)
        return {tid: (state, profile) for tid, state, profile in rows}

    def pending_count(self, profiles: Sequence[str]) -> int:
        marks = ",".join("?" * len(profiles))
        (n,) = self._db.execute(
            f"SELECT count(*) FROM task WHERE state='pending' AND profile IN ({marks})", tuple(profiles)
        ).fetchone()
        return int(n)

    def unfinished_count(self, profiles: Sequence[str] | None = None) -> int:
        if profiles is None:
            (n,) = self._db.execute(
                "SELECT count(*) FROM task WHERE state IN ('pending','running')"
            ).fetchone()
        else:
            marks = ",".join("?" * len(profiles))
            (n,) = self._db.execute(
                f"SELECT count(*) FROM task WHERE state IN ('pending','running') AND profile IN ({marks})",
                tuple(profiles),
            ).fetchone()
        return int(n)

    # ------------------------------------------------------------------ economy_batch (provider batches)
    def add_economy_batch(self, ref: str, profile: str, task_ids: list[str], now: float) -> None:
        self._db.execute(
            "INSERT INTO economy_batch (ref, profile, batch_id, state, task_ids, provider_status, created_at,"
            " updated_at) VALUES (?, ?, NULL, 'sending', ?, NULL, ?, ?)",
            (ref, profile, json.dumps(task_ids), now, now))

    def set_economy_batch(self, ref: str, now: float, *, state: str, batch_id: str | None = None,
                          provider_status: str | None = None) -> None:
        self._db.execute(
            "UPDATE economy_batch SET state = ?, batch_id = COALESCE(?, batch_id),"
            " provider_status = COALESCE(?, provider_status), updated_at = ? WHERE ref = ?",
            (state, batch_id, provider_status, now, ref))

    def open_economy_batches(self, profile: str) -> list[EconomyBatch]:
        rows = self._db.execute(
            "SELECT ref, profile, batch_id, state, task_ids, provider_status, created_at FROM economy_batch"
            " WHERE profile = ? AND state IN (?, ?) ORDER BY created_at", (profile, *OPEN_STATES)).fetchall()
        return [EconomyBatch(r[0], r[1], r[2], r[3], tuple(json.loads(r[4])), r[5], float(r[6])) for r in rows]

    def economy_heartbeat(self, task_ids: list[str], now: float) -> None:
        """The channel is alive and its tasks are in a provider batch (the console's "heartbeat")."""
        for i in range(0, len(task_ids), 500):
            part = task_ids[i:i + 500]
            marks = ",".join("?" * len(part))
            self._db.execute(f"UPDATE task SET heartbeat_at = ? WHERE state = 'running' AND task_id IN ({marks})",
                               (now, *part))

    # ------------------------------------------------------------------ the operator's settings
    def account_states(self) -> dict[str, tuple[bool, str, str | None]]:
        rows = self._db.execute("SELECT name, enabled, health, last_error FROM account_state").fetchall()
        return {r[0]: (bool(r[1]), r[2], r[3]) for r in rows}

    def set_account_enabled(self, name: str, enabled: bool, now: float | None = None) -> None:
        now = time.time() if now is None else now
        with self._db.tx():
            self._db.execute(
                "INSERT INTO account_state(name, enabled, health, updated_at) VALUES (?,?, 'ready', ?)"
                " ON CONFLICT(name) DO UPDATE SET enabled=excluded.enabled, updated_at=excluded.updated_at",
                (name, bool(enabled), now),
            )

    def set_account_health(self, name: str, health: str, last_error: str | None, enabled_default: bool) -> None:
        with self._db.tx():
            self._db.execute(
                "INSERT INTO account_state(name, enabled, health, last_error, updated_at) VALUES (?,?,?,?,?)"
                " ON CONFLICT(name) DO UPDATE SET health=excluded.health, last_error=excluded.last_error,"
                " updated_at=excluded.updated_at",
                (name, bool(enabled_default), health, last_error, time.time()),
            )

    def profile_settings(self) -> dict[str, tuple[bool | None, int | None]]:
        rows = self._db.execute("SELECT name, need_empty_prompt, concurrency FROM profile_setting").fetchall()
        return {r[0]: (None if r[1] is None else bool(r[1]), r[2]) for r in rows}

    def set_profile_setting(
        self, name: str, *, need_empty_prompt: bool | None = None, concurrency: int | None = None
    ) -> None:
        cur = self.profile_settings().get(name, (None, None))
        nep = cur[0] if need_empty_prompt is None else need_empty_prompt
        conc = cur[1] if concurrency is None else concurrency
        with self._db.tx():
            self._db.execute(
                "INSERT INTO profile_setting(name, need_empty_prompt, concurrency, updated_at) VALUES (?,?,?,?)"
                " ON CONFLICT(name) DO UPDATE SET need_empty_prompt=excluded.need_empty_prompt,"
                " concurrency=excluded.concurrency, updated_at=excluded.updated_at",
                (name, None if nep is None else bool(nep), conc, time.time()),
            )

    # ------------------------------------------------------------------ budget caps
    def budget_caps(self) -> dict[str, float]:
        """Caps set at submit (a batch's budget) or raised by the operator, by budget key."""
        return {r[0]: float(r[1]) for r in self._db.execute("SELECT key, cap FROM budget_cap").fetchall()}

    def set_budget_cap(self, key: str, cap: float) -> None:
        with self._db.tx():
            self._db.execute(
                "INSERT INTO budget_cap(key, cap, updated_at) VALUES (?,?,?)"
                " ON CONFLICT(key) DO UPDATE SET cap=excluded.cap, updated_at=excluded.updated_at",
                (key, float(cap), time.time()),
            )

    def spend_rows(self, by: SpendBy, *, since: float | None = None, utc_offset_s: float = 0.0) -> list[SpendRow]:
        """Spend per group and currency (see :func:`mediadesk.store.spend.spend_rows`)."""
        return spend_rows(self._db, by, since=since, utc_offset_s=utc_offset_s, pg=self.dialect == "postgresql")
