"""PostgreSQL connections for the store (psycopg 3, sync API), and what their failures mean to a user.

Only imported when a ``postgresql://`` location is used: the SQLite path never pays psycopg's import.

:class:`PgConn` is a thin wrapper giving a psycopg connection the sqlite3 shape the store's SQL is
written for: ``execute(sql, params)`` returning a cursor, ``executemany``, and ``?`` placeholders
(translated once per statement text to ``%s`` and cached). The connection is in autocommit mode: a
single statement is its own transaction (the compare-and-set UPDATEs), and multi-statement
transactions are explicit ``BEGIN`` ... ``COMMIT``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import psycopg

from mediadesk.config.location import PgLocation
from mediadesk.store.errors import DatabaseServerLostError
from mediadesk.store.open_errors import DatabaseServerError

__all__ = ["PgConn", "connect", "lost_connection", "open_error", "raw_connect"]

#: Seconds to wait for the server at open (an unreachable host must not hang a CLI command).
CONNECT_TIMEOUT_S = 10


def raw_connect(loc: PgLocation, *, autocommit: bool = True) -> psycopg.Connection[Any]:
    """A new psycopg connection (autocommit), or :class:`DatabaseServerError` saying what to do."""
    try:
        return psycopg.connect(loc.url, autocommit=autocommit, connect_timeout=CONNECT_TIMEOUT_S,
                               application_name="mediadesk")
    except psycopg.Error as exc:
        raise open_error(exc, loc) from None


def connect(loc: PgLocation) -> PgConn:
    return PgConn(raw_connect(loc), loc)


class PgConn:
    """A psycopg connection with sqlite3's calling shape (see the module doc)."""

    def __init__(self, conn: psycopg.Connection[Any], loc: PgLocation) -> None:
        self.raw = conn
        self.loc = loc
        self._sql: dict[str, str] = {}

    def _q(self, sql: str) -> str:
        q = self._sql.get(sql)
        if q is None:
            q = self._sql[sql] = sql.replace("%", "%%").replace("?", "%s")
        return q

    def execute(self, sql: str, params: Sequence[Any] = ()) -> psycopg.Cursor[Any]:
        return self.raw.execute(self._q(sql), params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self.raw.cursor() as cur:
            cur.executemany(self._q(sql), rows)

    @property
    def in_transaction(self) -> bool:
        return self.raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE

    def close(self) -> None:
        self.raw.close()


_CLEAN = re.compile(r"\s+")


def _detail(exc: BaseException, loc: PgLocation) -> str:
    text = _CLEAN.sub(" ", str(exc)).strip()
    pw = loc.password
    if pw:  # libpq does not echo passwords; be sure anyway
        text = text.replace(pw, "***")
    return text.replace(loc.url, loc.display)


def open_error(exc: psycopg.Error, loc: PgLocation) -> DatabaseServerError:
    """What keeps ``loc`` from being opened, in words: unreachable server, missing database or user,
    refused password."""
    detail = _detail(exc, loc)
    sqlstate = getattr(exc, "sqlstate", None) or ""
    low = detail.lower()
    db = loc.dbname
    if sqlstate == "3D000" or ("database" in low and "does not exist" in low):
        return DatabaseServerError(
            f"the database {db!r} does not exist on the server at {loc.host_port} ({loc.display}): create it "
            f"(createdb -h {loc.host_port.rsplit(':', 1)[0]} {db}) or fix --db / db_url", "no_database")
    if sqlstate in ("28000", "28P01") or "authentication failed" in low or (
            "role" in low and "does not exist" in low) or "no password supplied" in low:
        return DatabaseServerError(
            f"the server at {loc.host_port} refused the connection to {loc.display}: {detail}; check the user "
            "name and its password (PGPASSWORD or ~/.pgpass; never written in the config)", "auth")
    if isinstance(exc, psycopg.OperationalError):
        return DatabaseServerError(
            f"the database server at {loc.host_port} is unreachable: {detail}; check it is running and "
            f"reachable, and the URL ({loc.display})", "unreachable")
    return DatabaseServerError(f"cannot use the database {loc.display}: {detail}", "error")


def lost_connection(exc: BaseException, loc: PgLocation, conn: psycopg.Connection[Any] | None) -> \
        DatabaseServerLostError | None:
    """The running-time fault behind a psycopg error: the connection is gone (server stopped or
    unreachable). ``None`` for anything else (a bad statement keeps its traceback: a bug)."""
    broken = conn is not None and (conn.closed or conn.broken)
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError) and (
            broken or isinstance(exc, psycopg.errors.AdminShutdown | psycopg.errors.CannotConnectNow)
            or "connection" in str(exc).lower() or "server closed" in str(exc).lower()):
        return DatabaseServerLostError(loc.display, loc.host_port, _detail(exc, loc))
    return None
