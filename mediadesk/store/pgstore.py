"""The task store on PostgreSQL (team mode: several desktops on one queue).

Same SQL as :class:`~mediadesk.store.taskstore.TaskStore` (written in the subset both dialects share;
``?`` placeholders are translated by :class:`~mediadesk.store.pgconn.PgConn`); only these differ:

- opening: connect (typed errors naming ``host:port``), Alembic upgrade under an advisory lock;
- the claim: ONE round trip per batch, ``WITH c AS MATERIALIZED (SELECT ... FOR UPDATE SKIP LOCKED)
  UPDATE ... FROM c``: the
  state and version move in the same statement, so it is still a compare-and-set, and a row another
  desktop is taking is skipped instead of waited for;
- submit: ``pg_advisory_xact_lock`` around the ``MAX(seq)`` read, so desktops submitting at once get
  unique, increasing ``seq`` (SQLite's ``BEGIN IMMEDIATE`` gives that for free);
- faults: a lost connection is a :class:`~mediadesk.store.errors.DatabaseServerLostError`;
  :meth:`verify` and :meth:`checkpoint` (SQLite file concerns) do nothing.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import psycopg

from mediadesk.config.location import PgLocation, StoreLocation
from mediadesk.core.picker import Channel
from mediadesk.store.connection import faults_typed
from mediadesk.store.errors import StorageError
from mediadesk.store.pgconn import PgConn, connect, lost_connection, open_error, raw_connect
from mediadesk.store.queries import claim_predicate
from mediadesk.store.record import TASK_COLUMNS, TaskRecord, record_of
from mediadesk.store.schema import migrate_pg
from mediadesk.store.taskstore import TaskStore

__all__ = ["PgTaskStore"]

#: ``pg_advisory_xact_lock`` key serialising submitters around ``MAX(seq)`` ("MDk1").
_SEQ_LOCK = 0x4D446B31
_RETURNING = ", ".join(f"task.{c}" for c in TASK_COLUMNS)


@faults_typed
class PgTaskStore(TaskStore):
    dialect: ClassVar[str] = "postgresql"
    _db_errors: ClassVar[tuple[type[Exception], ...]] = (psycopg.Error,)
    _IS_NOT: ClassVar[str] = "IS DISTINCT FROM"
    _BEGIN: ClassVar[str] = "BEGIN"
    _is_pg = True

    def __init__(self, location: PgLocation) -> None:
        self.loc = location
        #: no file: messages name :attr:`loc` (``display`` masks a password)
        self.path = Path()
        conn = connect(location)
        try:
            migrate_pg(conn)
        except psycopg.Error as exc:
            conn.close()
            raise open_error(exc, location) from None
        except BaseException:
            conn.close()
            raise
        self._conn: Any = conn
        self._identity = None
        self._closed = False
        self._log_buf: list[tuple[str, float, str, str]] = []

    @property
    def location(self) -> StoreLocation:
        return self.loc

    def connect_shared(self) -> psycopg.Connection[Any]:
        return raw_connect(self.loc)

    def verify(self) -> None:
        """Nothing to check: there is no file to lose (a lost server surfaces as a fault)."""

    def checkpoint(self) -> None:
        """Nothing to do: the server checkpoints by itself."""

    def team_fault(self, exc: Exception) -> StorageError | None:
        """The store's error for a driver error on the team coordinator's connection (its own, see
        :meth:`connect_shared`): a lost server is the same fault wherever it is met."""
        return lost_connection(exc, self.loc, None)

    def _fault(self, exc: Exception) -> StorageError | None:
        conn: PgConn = self._conn
        return lost_connection(exc, self.loc, conn.raw)

    def _lock_seq(self) -> None:
        self._conn.execute("SELECT pg_advisory_xact_lock(?)", (_SEQ_LOCK,))

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
        """See :meth:`TaskStore.claim`: the same rows in the same order, in one statement."""
        if limit <= 0 or not profiles:
            return []
        now = time.time() if now is None else now
        marks = ",".join("?" * len(profiles))
        # The picked rows are a MATERIALIZED CTE, not a sub-select in FROM: the planner may rescan a
        # sub-select (the inner side of a nested loop), and each rescan of "LIMIT n FOR UPDATE SKIP
        # LOCKED" picks further rows (measured: claim(limit=1) took 2 rows). A CTE runs once.
        rows = self._conn.execute(
            f"WITH c AS MATERIALIZED (SELECT task_id FROM task WHERE state='pending' AND profile IN ({marks})"
            f"{claim_predicate(channel, self._IS_NOT, economy)} ORDER BY priority DESC, seq LIMIT ?"
            " FOR UPDATE SKIP LOCKED)"
            " UPDATE task SET state='running', version=task.version+1, updated_at=?, attempt=task.attempt+1,"
            " started_at=?, heartbeat_at=?, lane=?, account=?, owner=?, finished_at=NULL"
            f" FROM c WHERE task.task_id = c.task_id AND task.state='pending' RETURNING {_RETURNING}",
            (*profiles, now, account, limit, now, now, now, lane, account, owner),
        ).fetchall()
        claimed = sorted((record_of(r) for r in rows), key=lambda r: (-r.priority, r.seq))
        for rec in claimed:
            self._log(rec.task_id, lane, f"attempt {rec.attempt} started", now)
        return claimed
