"""Team mode: coordination of several scheduler processes ("desktops") through one shared database.

The database is the only coordination point (tables ``desktop``, ``account_lease``, ``endpoint_slot``,
``rate_bucket`` in :mod:`mediadesk.store.team_schema`), and every time is the DATABASE SERVER's clock,
never a desktop's. Leases and slots are renewed by each beat and fenced before a run, so a late or
dead desktop never overlaps the next holder. One own autocommit connection behind one lock: calls
block (async callers use a worker thread); a lost connection raises the store's ``fault``
(:class:`~mediadesk.store.errors.StorageError`), never a driver exception.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar

from mediadesk.store.errors import StorageError

__all__ = [
    "BeatResult",
    "DbConnection",
    "DesktopInfo",
    "Dialect",
    "LeaseResult",
    "ReapResult",
    "TeamCoordinator",
]

Dialect = Literal["postgresql", "sqlite"]

#: The database server's clock, in epoch seconds (the same expressions as in team_schema).
_NOW: dict[str, str] = {
    "postgresql": "CAST(extract(epoch from clock_timestamp()) AS DOUBLE PRECISION)",
    "sqlite": "((julianday('now') - 2440587.5) * 86400.0)",
}

#: PostgreSQL aborts one transaction of a deadlock (40P01) or a serialization failure (40001): run it again.
_RETRY_SQLSTATES = frozenset({"40P01", "40001"})
_TX_ATTEMPTS = 3
_RETRY_PAUSE_S = 0.05

_T = TypeVar("_T")

#: Float slack on token counts.
_EPS = 1e-6

#: How far two readings of the server clock may be off from the true interval between them: PostgreSQL
#: has microseconds (and epoch doubles ~0.24 us apart), SQLite's 'now' has milliseconds and its
#: julianday conversion ~40 us of rounding. An announced wait is padded by it, so a take after the
#: wait finds its token (padding the wait, not the token count, keeps the budget exact).
_CLOCK_SLACK_S: dict[str, float] = {"postgresql": 1e-5, "sqlite": 2e-3}


class DbConnection(Protocol):
    """What we use of a DB-API connection (psycopg 3 and sqlite3 both have ``execute``)."""

    def execute(self, query: Any, params: Any = ..., /) -> Any: ...


class _Faults:
    """The connection, with a lost-connection error of the driver raised as the store's error."""

    def __init__(self, conn: DbConnection, fault: Callable[[Exception], StorageError | None]) -> None:
        self._conn = conn
        self._fault = fault

    def execute(self, query: Any, params: Any = (), /) -> Any:
        try:
            return self._conn.execute(query, params)
        except StorageError:
            raise
        except Exception as exc:
            err = self._fault(exc)
            if err is None:
                raise
            raise err from exc


@dataclass(frozen=True)
class LeaseResult:
    """The outcome of :meth:`TeamCoordinator.acquire_account`.

    When not acquired, the holder as it was a moment later (None if it released in between) and the
    seconds until its lease expires unless renewed (the holder renews it while it lives).
    """

    acquired: bool
    holder_owner: str | None
    holder_host: str | None
    expires_in_s: float | None


@dataclass(frozen=True)
class BeatResult:
    """What this desktop still holds after a beat renewed it, and what it had lost (stop using it)."""

    accounts: frozenset[str]
    slots: frozenset[tuple[str, int]]
    lost_accounts: frozenset[str]
    lost_slots: frozenset[tuple[str, int]]


@dataclass(frozen=True)
class DesktopInfo:
    """One desktop as the console shows it (``accounts``: those it declared when it joined)."""

    owner: str
    host: str
    operator: str
    pid: int
    accounts: tuple[str, ...]
    heartbeat_age_s: float
    alive: bool
    running_tasks: int
    held_accounts: tuple[str, ...] = ()
    stopped: bool = False


@dataclass(frozen=True)
class ReapResult:
    leases: int
    slots: int


def _split_accounts(text: str | None) -> tuple[str, ...]:
    return tuple(a for a in (text or "").split(",") if a)


class TeamCoordinator:
    """This desktop's side of team mode: heartbeat, account leases, endpoint slots, rate buckets."""

    def __init__(
        self,
        conn: DbConnection,
        *,
        owner: str,
        host: str,
        operator: str,
        pid: int,
        stale_after_s: float = 90.0,
        dialect: Dialect,
        fault: Callable[[Exception], StorageError | None] | None = None,
    ) -> None:
        if dialect not in _NOW:
            raise ValueError(f"dialect must be 'postgresql' or 'sqlite', got {dialect!r}")
        if not 0 < stale_after_s < math.inf:
            raise ValueError(f"stale_after_s must be finite and > 0, got {stale_after_s}")
        if not owner:
            raise ValueError("owner must not be empty")
        # our transactions are explicit BEGIN ... COMMIT: a driver-managed transaction would swallow them
        if dialect == "postgresql" and getattr(conn, "autocommit", True) is not True:
            raise ValueError("the coordinator's PostgreSQL connection must be in autocommit mode")
        if dialect == "sqlite" and getattr(conn, "isolation_level", None) is not None:
            raise ValueError("the coordinator's SQLite connection must have isolation_level=None")
        self._conn: DbConnection = conn if fault is None else _Faults(conn, fault)
        self.owner = owner
        self.host = host
        self.operator = operator
        self.pid = pid
        self.stale_after_s = float(stale_after_s)
        self.dialect: Dialect = dialect
        self._accounts: tuple[str, ...] = ()
        self._held_accounts: set[str] = set()
        self._held_slots: set[tuple[str, int]] = set()
        #: account -> acquired_at of the lease we took (its epoch: a lease taken over gets a new one)
        self._epochs: dict[str, float] = {}
        self._slot_rows: dict[str, int] = {}  # endpoint -> slot rows 0..n-1 known to exist
        self._buckets: set[str] = set()  # rate_bucket rows known to exist
        self._lock = threading.Lock()
        self.tx_retries = 0  # transactions run again after a deadlock (diagnostics)

    def __repr__(self) -> str:
        return f"TeamCoordinator(owner={self.owner!r}, dialect={self.dialect!r}, stale_after_s={self.stale_after_s})"

    # -- plumbing -------------------------------------------------------------------------------

    def _sql(self, template: str) -> str:
        """``{now}`` -> the server clock; ``%s`` placeholders -> ``?``, ``GREATEST`` and ``LEAST`` -> the
        scalar ``MAX`` and ``MIN`` on SQLite."""
        sql = template.replace("{now}", _NOW[self.dialect])
        if self.dialect != "sqlite":
            return sql
        return sql.replace("%s", "?").replace("GREATEST(", "MAX(").replace("LEAST(", "MIN(")

    def _run(self, template: str, params: Sequence[Any] = ()) -> Any:
        return self._conn.execute(self._sql(template), tuple(params))

    @contextmanager
    def _tx(self) -> Iterator[None]:
        """One short transaction (SQLite: taking the write lock at once, so it cannot deadlock)."""
        self._conn.execute("BEGIN IMMEDIATE" if self.dialect == "sqlite" else "BEGIN")
        try:
            yield
        except BaseException:
            with suppress(Exception):
                self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def _in_tx(self, body: Callable[[], _T]) -> _T:
        """``body`` in one transaction, run again (up to 3 times) when PostgreSQL aborted it as a deadlock
        victim or serialization failure: a multi-row transaction (beat, leave, reap) can lock rows in
        another order than a concurrent one (a desktop reaping the leases of one it thinks dead)."""
        for attempt in range(_TX_ATTEMPTS):
            try:
                with self._tx():
                    return body()
            except Exception as exc:
                if getattr(exc, "sqlstate", None) not in _RETRY_SQLSTATES or attempt + 1 == _TX_ATTEMPTS:
                    raise
                self.tx_retries += 1
                # Not at once: the other transaction is about to take the row our abort freed; a retry
                # that took it first would close the same cycle again.
                time.sleep(_RETRY_PAUSE_S * (2 ** attempt) * (0.5 + random.random()))
        raise AssertionError("unreachable")

    def _has_task_table(self) -> bool:
        if self.dialect == "postgresql":
            row = self._conn.execute("SELECT to_regclass('task') IS NOT NULL").fetchone()
        else:
            row = self._conn.execute("SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'task'"
                                     ).fetchone()
        return bool(row[0])

    def server_time(self) -> float:
        """The database server's clock now, in epoch seconds (a query, not a local read)."""
        with self._lock:
            return float(self._run("SELECT {now}").fetchone()[0])

    # -- desktop --------------------------------------------------------------------------------

    _UPSERT_DESKTOP = (
        "INSERT INTO desktop (owner, host, operator, pid, accounts, started_at, heartbeat_at, stopped_at) "
        "VALUES (%s, %s, %s, %s, %s, {now}, {now}, NULL) "
        "ON CONFLICT (owner) DO UPDATE SET host = excluded.host, operator = excluded.operator, "
        "pid = excluded.pid, accounts = excluded.accounts, heartbeat_at = excluded.heartbeat_at, stopped_at = NULL"
    )

    def _upsert_desktop(self) -> None:
        self._run(self._UPSERT_DESKTOP, (self.owner, self.host, self.operator, self.pid, ",".join(self._accounts)))

    def join(self, accounts: Sequence[str] = ()) -> None:
        """Announce this desktop (again: a new account list); it stays alive while it calls beat()."""
        bad = [a for a in accounts if not a or "," in a]
        if bad:
            raise ValueError(f"account names must be non-empty and without ',': {bad!r}")
        with self._lock:
            self._accounts = tuple(sorted(set(accounts)))
            self._upsert_desktop()

    def beat(self) -> BeatResult:
        """Refresh the heartbeat and renew every lease and slot this desktop holds, in one transaction.

        Returns what it still holds. A lease or slot it acquired that is no longer its own (it let
        it lapse and another desktop took it) is reported as lost: stop using that account or slot.
        """
        def renew() -> tuple[frozenset[str], frozenset[tuple[str, int]]]:
            self._upsert_desktop()
            accounts = frozenset(
                r[0] for r in self._run(
                    "UPDATE account_lease SET expires_at = GREATEST(expires_at, {now} + %s) WHERE owner = %s "
                    "RETURNING account",
                    (self.stale_after_s, self.owner)).fetchall())
            slots = frozenset(
                (r[0], int(r[1])) for r in self._run(
                    "UPDATE endpoint_slot SET expires_at = GREATEST(expires_at, {now} + %s) WHERE owner = %s "
                    "RETURNING endpoint, slot",
                    (self.stale_after_s, self.owner)).fetchall())
            return accounts, slots

        with self._lock:
            accounts, slots = self._in_tx(renew)
            lost_accounts = frozenset(self._held_accounts - accounts)
            lost_slots = frozenset(self._held_slots - slots)
            for account in lost_accounts:
                self._epochs.pop(account, None)
            self._held_accounts = set(accounts)
            self._held_slots = set(slots)
        return BeatResult(accounts, slots, lost_accounts, lost_slots)

    def leave(self) -> None:
        """Give back every lease and slot and mark this desktop stopped (a clean exit)."""
        def give_back() -> None:
            self._run("DELETE FROM account_lease WHERE owner = %s", (self.owner,))
            self._epochs.clear()
            self._run("UPDATE endpoint_slot SET owner = NULL, task_id = NULL, expires_at = 0 WHERE owner = %s",
                      (self.owner,))
            self._run("UPDATE desktop SET heartbeat_at = {now}, stopped_at = {now} WHERE owner = %s", (self.owner,))

        with self._lock:
            self._in_tx(give_back)
            self._held_accounts.clear()
            self._held_slots.clear()

    # -- account leases -------------------------------------------------------------------------

    def acquire_account(self, name: str) -> LeaseResult:
        """Take (or renew) the lease of web account ``name``; never from a holder whose lease is live.

        One atomic upsert: the existing row is overwritten only when it has expired (by the database
        clock) or is already ours. An expired lease of a dead desktop goes to the next acquirer.
        """
        with self._lock:
            row = self._run(
                "INSERT INTO account_lease (account, owner, host, acquired_at, expires_at) "
                "VALUES (%s, %s, %s, {now}, {now} + %s) "
                "ON CONFLICT (account) DO UPDATE SET owner = excluded.owner, host = excluded.host, "
                "acquired_at = CASE WHEN account_lease.owner = excluded.owner "
                "THEN account_lease.acquired_at ELSE excluded.acquired_at END, "
                "expires_at = CASE WHEN account_lease.owner = excluded.owner "
                "THEN GREATEST(account_lease.expires_at, excluded.expires_at) ELSE excluded.expires_at END "
                "WHERE account_lease.expires_at < excluded.acquired_at OR account_lease.owner = excluded.owner "
                "RETURNING owner, acquired_at",
                (name, self.owner, self.host, self.stale_after_s)).fetchone()
            if row is not None and row[0] == self.owner:
                self._held_accounts.add(name)
                self._epochs[name] = float(row[1])
                return LeaseResult(True, self.owner, self.host, self.stale_after_s)
            self._epochs.pop(name, None)
            self._held_accounts.discard(name)
            holder = self._run("SELECT owner, host, expires_at - {now} FROM account_lease WHERE account = %s",
                               (name,)).fetchone()
        if holder is None:
            return LeaseResult(False, None, None, None)
        return LeaseResult(False, holder[0], holder[1], float(holder[2]))

    def release_account(self, name: str) -> bool:
        """Give the lease of ``name`` back; False when it was not ours (nothing is deleted then)."""
        with self._lock:
            self._held_accounts.discard(name)
            self._epochs.pop(name, None)
            cur = self._run("DELETE FROM account_lease WHERE account = %s AND owner = %s", (name, self.owner))
            return bool(cur.rowcount)

    def fence_account(self, name: str, hold_s: float) -> bool:
        """Check on the database, just before starting a run on ``name``, that its lease is still the
        one this desktop took (same owner, same ``acquired_at``: the lease's epoch, a fencing token),
        and make it cover the run: it cannot expire before ``hold_s`` from now (the run's longest
        time), so no other desktop takes the account while a run started under it may still go on,
        even if this desktop freezes. False: the lease was lost (another desktop holds it, or it was
        taken and given back in between): start nothing on the account.
        """
        if not 0 <= hold_s < math.inf:
            raise ValueError(f"hold_s must be finite and >= 0, got {hold_s}")
        with self._lock:
            epoch = self._epochs.get(name)
            if epoch is None:
                self._held_accounts.discard(name)
                return False
            row = self._run(
                "UPDATE account_lease SET expires_at = GREATEST(expires_at, {now} + %s, {now} + %s) "
                "WHERE account = %s AND owner = %s AND acquired_at = %s RETURNING owner",
                (self.stale_after_s, float(hold_s), name, self.owner, epoch)).fetchone()
            if row is None:
                self._held_accounts.discard(name)
                self._epochs.pop(name, None)
                return False
            return True

    def unhold_account(self, name: str) -> bool:
        """The run on ``name`` ended: the lease goes back to its ordinary length (``stale_after_s``
        from now), so a crash from here on blocks the account for one lease only."""
        with self._lock:
            epoch = self._epochs.get(name)
            if epoch is None:
                return False
            cur = self._run("UPDATE account_lease SET expires_at = {now} + %s "
                            "WHERE account = %s AND owner = %s AND acquired_at = %s",
                            (self.stale_after_s, name, self.owner, epoch))
            return bool(cur.rowcount)

    # -- endpoint slots -------------------------------------------------------------------------

    def _ensure_slot_rows(self, endpoint: str, limit: int) -> None:
        if self._slot_rows.get(endpoint, 0) >= limit:
            return
        values = ", ".join(["(%s, %s, NULL, NULL, 0)"] * limit)
        params: list[Any] = []
        for slot in range(limit):
            params += [endpoint, slot]
        self._run(f"INSERT INTO endpoint_slot (endpoint, slot, owner, task_id, expires_at) VALUES {values} "
                  "ON CONFLICT (endpoint, slot) DO NOTHING", params)
        self._slot_rows[endpoint] = limit

    def acquire_slot(self, endpoint: str, limit: int, task_id: str | None = None,
                     hold_s: float = 0.0) -> int | None:
        """Take a free (or expired) slot numbered below ``limit`` of ``endpoint``; None when all are taken.

        The slot is ours until :meth:`release_slot`, renewed by every :meth:`beat`; it expires
        ``stale_after_s`` after the last renewal (a dead desktop's slots come back that way), and
        never before ``hold_s`` after it was taken: the request it was taken for may go on that long
        even if this desktop freezes, so no other desktop sends over it before then.
        """
        if not 1 <= limit <= 10_000:
            raise ValueError(f"limit must be within 1..10000, got {limit}")
        if not 0 <= hold_s < math.inf:
            raise ValueError(f"hold_s must be finite and >= 0, got {hold_s}")
        hold = max(self.stale_after_s, float(hold_s))
        with self._lock:
            self._ensure_slot_rows(endpoint, limit)
            if self.dialect == "postgresql":
                row = self._run(
                    "WITH pick AS (SELECT endpoint, slot FROM endpoint_slot "
                    "WHERE endpoint = %s AND slot < %s AND (owner IS NULL OR expires_at < {now}) "
                    "ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED) "
                    "UPDATE endpoint_slot s SET owner = %s, task_id = %s, expires_at = {now} + %s "
                    "FROM pick WHERE s.endpoint = pick.endpoint AND s.slot = pick.slot RETURNING s.slot",
                    (endpoint, limit, self.owner, task_id, hold)).fetchone()
            else:  # one writer at a time: the sub-select and the update are one atomic statement
                row = self._run(
                    "UPDATE endpoint_slot SET owner = %s, task_id = %s, expires_at = {now} + %s "
                    "WHERE endpoint = %s AND slot = (SELECT slot FROM endpoint_slot WHERE endpoint = %s "
                    "AND slot < %s AND (owner IS NULL OR expires_at < {now}) ORDER BY slot LIMIT 1) "
                    "RETURNING slot",
                    (self.owner, task_id, hold, endpoint, endpoint, limit)).fetchone()
            if row is None:
                return None
            slot = int(row[0])
            self._held_slots.add((endpoint, slot))
            return slot

    def reclaim_slots(self, endpoint: str, gone: Callable[[str, int], bool]) -> int:
        """Free the slots of ``endpoint`` still held (within their hold) by desktops that stopped
        beating and whose process ``gone(host, pid)`` knows to be gone: a dead process's requests died
        with its connections, only a live one (frozen, late) may still have one in flight. Returns
        how many were freed."""
        with self._lock:
            rows = self._run(
                "SELECT DISTINCT d.owner, d.host, d.pid FROM endpoint_slot s JOIN desktop d ON d.owner = s.owner "
                "WHERE s.endpoint = %s AND s.expires_at >= {now} "
                "AND (d.stopped_at IS NOT NULL OR d.heartbeat_at < {now} - %s)",
                (endpoint, self.stale_after_s)).fetchall()
            freed = 0
            for owner, host, pid in rows:
                if owner != self.owner and gone(str(host), int(pid)):
                    freed += int(self._run(
                        "UPDATE endpoint_slot SET owner = NULL, task_id = NULL, expires_at = 0 "
                        "WHERE endpoint = %s AND owner = %s", (endpoint, owner)).rowcount)
            return freed

    def release_slot(self, endpoint: str, slot: int) -> bool:
        """Free a slot we hold; False when it was not ours (it lapsed and another desktop took it)."""
        with self._lock:
            self._held_slots.discard((endpoint, slot))
            cur = self._run("UPDATE endpoint_slot SET owner = NULL, task_id = NULL, expires_at = 0 "
                            "WHERE endpoint = %s AND slot = %s AND owner = %s", (endpoint, slot, self.owner))
            return bool(cur.rowcount)

    # -- shared token buckets -------------------------------------------------------------------

    def take_token(self, bucket: str, rpm: float, burst: float = 1.0, n: float = 1.0) -> float:
        """Take ``n`` tokens (one by default) from the shared bucket ``bucket``: 0.0 when taken, else
        seconds to wait.

        ``rpm`` tokens a minute, at most ``burst`` banked (full when the bucket is first used);
        rpm 0 = unlimited. Refilled from the database clock; a clock going back earns nothing. A take
        larger than ``burst`` waits for a full bucket (the tokens-per-minute bucket: one long prompt).
        """
        if not 0 <= rpm < math.inf:
            raise ValueError(f"rpm must be finite and >= 0, got {rpm}")
        if not 1 <= burst < math.inf:
            raise ValueError(f"burst must be finite and >= 1, got {burst}")
        if not 0 < n < math.inf:
            raise ValueError(f"n must be finite and > 0, got {n}")
        if rpm == 0:
            return 0.0
        rate = rpm / 60.0
        n = min(float(n), float(burst))
        with self._lock:
            self._ensure_bucket(bucket, burst)
            level = self._refill_and_take(bucket, rate, float(burst), n)
        return 0.0 if level + _EPS >= n else (n - level) / rate + _CLOCK_SLACK_S[self.dialect]

    def give_back_tokens(self, bucket: str, rpm: float, burst: float, n: float) -> None:
        """Put ``n`` tokens back into a shared bucket (a reservation larger than what was used), at most
        up to ``burst``; a negative ``n`` takes more (a request that used more than it reserved: the
        level may go below zero, and the next take waits until it is earned back)."""
        if rpm <= 0 or n == 0 or not math.isfinite(n):
            return
        with self._lock:
            self._ensure_bucket(bucket, burst)
            self._run("UPDATE rate_bucket SET tokens = LEAST(%s, tokens + %s) WHERE name = %s",
                      (float(burst), float(n), bucket))

    def cap_tokens(self, bucket: str, rpm: float, burst: float, level: float) -> None:
        """Lower the shared bucket to at most ``level`` now (never raise it): the provider refused a
        request and said how long to wait, so its own bucket is that low, whatever ours believed. Every
        desktop then waits for the refill, not only the one that was refused."""
        if rpm <= 0 or not math.isfinite(level):
            return
        with self._lock:
            self._ensure_bucket(bucket, burst)
            self._run(
                "UPDATE rate_bucket SET tokens = LEAST(%s, %s, tokens + GREATEST(0, {now} - updated_at) * %s), "
                "updated_at = GREATEST(updated_at, {now}) WHERE name = %s",
                (float(burst), float(level), rpm / 60.0, bucket))

    def _ensure_bucket(self, bucket: str, burst: float) -> None:
        if bucket not in self._buckets:
            self._run("INSERT INTO rate_bucket (name, tokens, updated_at) VALUES (%s, %s, {now}) "
                      "ON CONFLICT (name) DO NOTHING", (bucket, float(burst)))
            self._buckets.add(bucket)

    def _refill_and_take(self, bucket: str, rate: float, burst: float, n: float = 1.0) -> float:
        """The bucket's refilled level before this take (``n`` tokens were taken iff it is >= n)."""
        if self.dialect == "postgresql":
            # one statement: the row lock is held for the statement only
            row = self._run(
                "WITH cur AS (SELECT b.name, n.t, b.updated_at, "
                "LEAST(%s, b.tokens + GREATEST(0, n.t - b.updated_at) * %s) AS r "
                "FROM rate_bucket b, (SELECT {now} AS t) n WHERE b.name = %s FOR UPDATE OF b) "
                "UPDATE rate_bucket b SET "
                "tokens = CASE WHEN cur.r + %s >= %s THEN cur.r - %s ELSE cur.r END, "
                "updated_at = GREATEST(cur.updated_at, cur.t) "
                "FROM cur WHERE b.name = cur.name RETURNING cur.r",
                (burst, rate, bucket, _EPS, n, n)).fetchone()
            if row is None:  # the row vanished (someone deleted it): make it again next time
                self._buckets.discard(bucket)
                return 0.0
            return float(row[0])
        with self._tx():
            row = self._run("SELECT tokens, updated_at, {now} FROM rate_bucket WHERE name = %s", (bucket,)).fetchone()
            if row is None:
                self._buckets.discard(bucket)
                return 0.0
            tokens, updated_at, now = float(row[0]), float(row[1]), float(row[2])
            level = min(burst, tokens + max(0.0, now - updated_at) * rate)
            left = level - n if level + _EPS >= n else level
            self._run("UPDATE rate_bucket SET tokens = %s, updated_at = %s WHERE name = %s",
                      (left, max(updated_at, now), bucket))
            return level

    # -- the console's view, and recovery -------------------------------------------------------

    def desktops(self) -> list[DesktopInfo]:
        """Every desktop that ever joined this database, live ones first (alive by this desktop's
        ``stale_after_s``), with its live account leases and running tasks (when a ``task`` table exists)."""
        with self._lock:
            rows = self._run(
                "SELECT owner, host, operator, pid, accounts, {now} - heartbeat_at, "
                "CASE WHEN stopped_at IS NULL AND heartbeat_at >= {now} - %s THEN 1 ELSE 0 END, "
                "CASE WHEN stopped_at IS NULL THEN 0 ELSE 1 END FROM desktop",
                (self.stale_after_s,)).fetchall()
            held: dict[str, list[str]] = {}
            for owner, account in self._run(
                    "SELECT owner, account FROM account_lease WHERE expires_at >= {now} ORDER BY account").fetchall():
                held.setdefault(owner, []).append(account)
            running: dict[str, int] = {}
            if self._has_task_table():
                running = {owner: int(n) for owner, n in self._conn.execute(
                    "SELECT owner, count(*) FROM task WHERE state = 'running' AND owner IS NOT NULL "
                    "GROUP BY owner").fetchall()}
        out = [
            DesktopInfo(owner=r[0], host=r[1], operator=r[2], pid=int(r[3]), accounts=_split_accounts(r[4]),
                        heartbeat_age_s=float(r[5]), alive=bool(r[6]), running_tasks=running.get(r[0], 0),
                        held_accounts=tuple(held.get(r[0], ())), stopped=bool(r[7]))
            for r in rows
        ]
        out.sort(key=lambda d: (not d.alive, d.heartbeat_age_s, d.owner))
        return out

    _DEAD_DESKTOPS = "SELECT owner FROM desktop WHERE stopped_at IS NOT NULL OR heartbeat_at < {now} - %s"

    def dead_owners(self, *, with_running_tasks: bool = False) -> list[str]:
        """Owners whose tasks the living must recover: desktops that left or whose heartbeat is older
        than ``stale_after_s``, and owners of running tasks that never joined (no desktop row).

        ``with_running_tasks``: only those that still own a running task (the list of every dead
        desktop grows with each process start). Only meaningful once every scheduler joins before it
        claims a task: a process that runs tasks without joining looks dead.
        """
        with self._lock:
            has_tasks = self._has_task_table()
            if with_running_tasks and not has_tasks:
                return []
            if with_running_tasks:
                sql = ("SELECT DISTINCT owner FROM task WHERE state = 'running' AND owner IS NOT NULL AND "
                       f"(owner IN ({self._DEAD_DESKTOPS}) OR owner NOT IN (SELECT owner FROM desktop))")
            elif has_tasks:
                sql = (f"{self._DEAD_DESKTOPS} UNION SELECT owner FROM task WHERE state = 'running' "
                       "AND owner IS NOT NULL AND owner NOT IN (SELECT owner FROM desktop)")
            else:
                sql = self._DEAD_DESKTOPS
            rows = self._run(sql, (self.stale_after_s,)).fetchall()
        # never this desktop: it is alive enough to ask (a stall since its last beat, on a loaded machine,
        # must not make it recover its own running tasks, nor reap its own leases, under its feet)
        return sorted(r[0] for r in rows if r[0] != self.owner)

    def reap_dead(self) -> ReapResult:
        """Delete expired account leases and free expired slots of dead owners (their rows would be
        taken over by the next acquirer anyway; this keeps the tables and the console truthful)."""
        dead = (f"owner <> %s AND (owner IN ({self._DEAD_DESKTOPS}) OR owner NOT IN (SELECT owner FROM desktop))")

        def reap() -> ReapResult:
            leases = self._run(f"DELETE FROM account_lease WHERE expires_at < {{now}} AND {dead}",
                               (self.owner, self.stale_after_s)).rowcount
            slots = self._run("UPDATE endpoint_slot SET owner = NULL, task_id = NULL, expires_at = 0 "
                              f"WHERE owner IS NOT NULL AND expires_at < {{now}} AND {dead}",
                              (self.owner, self.stale_after_s)).rowcount
            return ReapResult(leases=int(leases), slots=int(slots))

        with self._lock:
            return self._in_tx(reap)

    def forget_desktops(self, older_than_s: float) -> int:
        """Delete the rows of desktops dead for longer than ``older_than_s`` that hold nothing any more
        (no lease, no slot, no running task), so the console's list does not grow with every restart.
        Returns how many were forgotten."""
        if not older_than_s >= self.stale_after_s:
            raise ValueError(f"older_than_s must be >= stale_after_s ({self.stale_after_s}), got {older_than_s}")
        with self._lock:
            tasks = ("AND NOT EXISTS (SELECT 1 FROM task t WHERE t.owner = d.owner AND t.state = 'running') "
                     if self._has_task_table() else "")
            return int(self._run(
                "DELETE FROM desktop WHERE owner IN (SELECT d.owner FROM desktop d "
                "WHERE d.heartbeat_at < {now} - %s "  # a leave() sets heartbeat_at too
                "AND NOT EXISTS (SELECT 1 FROM account_lease l WHERE l.owner = d.owner) "
                "AND NOT EXISTS (SELECT 1 FROM endpoint_slot s WHERE s.owner = d.owner) " + tasks + ")",
                (older_than_s,)).rowcount)
