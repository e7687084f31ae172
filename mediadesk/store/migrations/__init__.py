"""Schema migrations of the store, on SQLite and PostgreSQL alike (Alembic).

Revisions live in ``versions/``; :data:`REVISIONS` lists them in order (a test checks it against
Alembic's own view). Opening a database reads its revision with plain SQL (:func:`read_revision`)
and imports Alembic (and SQLAlchemy, ~0.3 s) only when there is something to upgrade
(:func:`upgrade`). A revision not in :data:`REVISIONS` is a newer MediaDesk's: refused, never
"fixed".

To change the schema: add ``versions/000N_name.py`` (``down_revision`` = the last one) and append
its id to :data:`REVISIONS`; never edit a revision that was released.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["BASELINE", "HEAD", "REVISIONS", "upgrade"]

#: Every revision this MediaDesk knows, oldest first.
REVISIONS: tuple[str, ...] = ("0001_baseline", "0002_team")
BASELINE = REVISIONS[0]
HEAD = REVISIONS[-1]


def upgrade(
    dialect: str,
    creator: Callable[[], Any],
    *,
    stamp_if_unversioned: str | None = None,
    then: Callable[[Any], None] | None = None,
) -> None:
    """Bring the database to :data:`HEAD` in ONE transaction. ``stamp_if_unversioned``: a database with
    no revision recorded is first marked at that one (one of the ``user_version`` era, already at the
    baseline); decided inside the transaction, so a process that upgraded it meanwhile is seen.
    ``then(connection)`` runs last in the same transaction (SQLite: ``PRAGMA user_version``).
    ``creator`` makes a new DB-API connection (not in autocommit mode)."""
    from alembic import command
    from alembic.config import Config
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import create_engine, event

    if dialect == "sqlite":
        engine = create_engine("sqlite://", creator=creator)

        # pysqlite does not BEGIN before DDL: do it ourselves, so the whole upgrade is one transaction
        @event.listens_for(engine, "connect")
        def _connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None

        @event.listens_for(engine, "begin")
        def _begin(conn: Any) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
    else:
        engine = create_engine("postgresql+psycopg://", creator=creator)
    cfg = Config()
    cfg.set_main_option("script_location", "mediadesk.store:migrations")
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            if stamp_if_unversioned is not None and MigrationContext.configure(conn).get_current_revision() is None:
                command.stamp(cfg, stamp_if_unversioned)
            command.upgrade(cfg, "head")
            if then is not None:
                then(conn)
    finally:
        engine.dispose()
