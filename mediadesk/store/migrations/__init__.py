"""Schema migrations of the store, on SQLite and PostgreSQL alike (Alembic).

Revisions live in ``versions/`` and :data:`REVISIONS` lists them in order (read from the folder).
Opening reads the revision with plain SQL (:func:`read_revision`) and imports Alembic only when
there is something to upgrade (:func:`upgrade`). An unknown revision is a newer MediaDesk's: refused.
To change the schema, add ``versions/000N_name.py`` (``down_revision`` = the last one). Never edit
a released revision; revisions never derive anything from the current model.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["BASELINE", "HEAD", "REVISIONS", "read_revisions", "upgrade"]

_REVISION = re.compile(r"^revision\s*=\s*[\"']([^\"']+)[\"']", re.M)
_DOWN = re.compile(r"^down_revision\s*=\s*(?:None|[\"']([^\"']+)[\"'])", re.M)


def read_revisions(folder: Path) -> tuple[str, ...]:
    """The revisions of the scripts in ``folder``, oldest first (the ``down_revision`` chain), read as
    text: opening a database must not import Alembic. A fork or a gap in the chain is an error."""
    down: dict[str, str | None] = {}
    for script in sorted(folder.glob("*.py")):
        text = script.read_text(encoding="utf-8")
        found, parent = _REVISION.search(text), _DOWN.search(text)
        if found is None:
            continue
        if parent is None:
            raise RuntimeError(f"{script}: a revision without down_revision")
        down[found[1]] = parent[1]
    chain: list[str] = []
    after = {prev: rev for rev, prev in down.items()}
    if len(after) != len(down):
        raise RuntimeError(f"{folder}: two revisions follow the same one: {sorted(down.items())}")
    nxt = after.get(None)
    while nxt is not None:
        chain.append(nxt)
        nxt = after.get(nxt)
    if len(chain) != len(down):
        raise RuntimeError(f"{folder}: revisions off the chain: {sorted(set(down) - set(chain))}")
    if not chain:
        raise RuntimeError(f"{folder}: no schema revisions (an installation without its migrations folder)")
    return tuple(chain)


#: Every revision this MediaDesk knows, oldest first.
REVISIONS: tuple[str, ...] = read_revisions(Path(__file__).with_name("versions"))
BASELINE = REVISIONS[0]
HEAD = REVISIONS[-1]


def upgrade(
    dialect: str,
    creator: Callable[[], Any],
    *,
    stamp_if_unversioned: str | None = None,
    then: Callable[[Any], None] | None = None,
    script_location: str = "mediadesk.store:migrations",
) -> None:
    """Bring the database to :data:`HEAD` in ONE transaction. ``stamp_if_unversioned``: a database with
    no revision recorded is first marked at that one (one of the ``user_version`` era, already at the
    baseline); decided inside the transaction, so a process that upgraded it meanwhile is seen.
    ``then(connection)`` runs last in the same transaction (SQLite: ``PRAGMA user_version``).
    ``creator`` makes a new DB-API connection (not in autocommit mode). ``script_location``: another
    copy of the revisions (a test's)."""
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
    cfg.set_main_option("script_location", script_location)
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
