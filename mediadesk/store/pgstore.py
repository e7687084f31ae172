"""The task store on PostgreSQL (team mode: several desktops on one queue).

Same SQL as :class:`~mediadesk.store.taskstore.TaskStore` (``?`` translated by
:class:`~mediadesk.store.pgconn.PgConn`). What differs: opening upgrades under an advisory lock; the
claim is a compare-and-set with ``FOR UPDATE SKIP LOCKED`` (rows another desktop is taking are
skipped, not waited for); submit locks around ``MAX(seq)`` so ``seq`` stays unique and increasing;
a lost connection is :class:`~mediadesk.store.errors.DatabaseServerLostError`; :meth:`verify` and
:meth:`checkpoint` do nothing.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import psycopg

from mediadesk.config.location import PgLocation, StoreLocation
from mediadesk.core.log_lines import LOG
from mediadesk.core.picker import Channel
from mediadesk.store.connection import StoreConnection
from mediadesk.store.errors import StorageError
from mediadesk.store.pgconn import connect, lost_connection, open_error, raw_connect
from mediadesk.store.record import TASK_COLUMNS, TaskRecord, record_of
from mediadesk.store.schema import migrate_pg
from mediadesk.store.taskstore import TaskStore, claim_predicate, faults_typed

__all__ = ["PgTaskStore"]

#: ``pg_advisory_xact_lock`` key serialising submitters around ``MAX(seq)`` ("MDk1").
_SEQ_LOCK = 0x4D446B31
_RETURNING = ", ".join(f"task.{c}" for c in TASK_COLUMNS)


@faults_typed
class PgTaskStore(TaskStore):
    """The task store on PostgreSQL: :class:`TaskStore` with what differs (see the module doc)."""

    dialect: ClassVar[str] = "postgresql"
    _IS_NOT: ClassVar[str] = "IS DISTINCT FROM"

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
        self._db = StoreConnection(conn, begin="BEGIN", errors=(psycopg.Error,))
        #: psycopg's own connection: a fault is a lost server when it is closed or broken
        self._raw = conn.raw
        self._identity = None
        self._closed = False

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
        return lost_connection(exc, self.loc, self._raw)

    def _lock_seq(self) -> None:
        self._db.execute("SELECT pg_advisory_xact_lock(?)", (_SEQ_LOCK,))

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
        rows = self._db.execute(
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
            self._log(rec.task_id, lane, LOG.attempt_started(attempt=rec.attempt), now)
        return claimed
