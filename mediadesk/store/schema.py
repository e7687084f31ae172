"""Schema versioning without losing an operator's data.

The schema version lives in SQLite's ``PRAGMA user_version``. ``MIGRATIONS[i]`` brings a database
from version ``i`` to ``i + 1``; they run in order inside one transaction each, after a copy of the
file is kept as ``<db>.bak-v<old>`` (private, never written through a link). A database written by a
newer MediaDesk is refused, never "fixed". To change the schema: append a function to ``MIGRATIONS``
(ALTER TABLE / copy), never edit an old one. This is the documented equivalent of Alembic for a single
embedded file.

Whose database: ours carry ``PRAGMA application_id`` = :data:`APPLICATION_ID` (databases of older
versions, which lack it, are recognised by their ``task`` and ``task_log`` tables and marked when next
opened for writing). Any other non-empty SQLite file is another program's and is refused untouched
(:func:`check_ours`), whatever its tables are called.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mediadesk.safefiles import UnsafePathError, create_private_file
from mediadesk.store.dbfile import check_database_file
from mediadesk.store.open_errors import ForeignDatabaseError, NewerSchemaError, SchemaError

__all__ = ["APPLICATION_ID", "MIGRATIONS", "SCHEMA_VERSION", "DatabaseInfo", "SchemaError", "check_ours", "migrate"]

#: ``PRAGMA application_id`` of a MediaDesk database: "MDk1".
APPLICATION_ID = 0x4D446B31
#: What a MediaDesk database of any version has (schema 1 already had all of these).
_OUR_TABLES = frozenset({"task", "task_log"})
_OUR_TASK_COLUMNS = frozenset({"task_id", "model_kind", "state", "attempt", "profile", "prompt", "version", "seq"})


def _v1_initial(conn: sqlite3.Connection, path: Path) -> None:
    # imported here: SQLModel/SQLAlchemy cost ~1 s of start-up and are only needed to create tables
    from sqlalchemy import create_engine
    from sqlmodel import SQLModel

    from mediadesk.store import models  # noqa: F401  (registers the tables)

    engine = create_engine(f"sqlite:///{path}")
    try:
        SQLModel.metadata.create_all(engine)
    finally:
        engine.dispose()
    # claim: head pending task of a profile, by priority (high first) then submission order. The
    # DESC must be in the index or SQLite sorts every pending row on each claim.
    conn.execute("CREATE INDEX IF NOT EXISTS ix_task_claim ON task (state, profile, priority DESC, seq)")


_V2_COLUMNS = (
    ("queued_at", "REAL"),
    ("crash_count", "INTEGER NOT NULL DEFAULT 0"),
    ("served_by", "VARCHAR"),
    ("origin_profile", "VARCHAR"),
    ("resolution", "VARCHAR"),
    ("resolution_note", "VARCHAR"),
    ("resolved_at", "REAL"),
)


def _v2_capacity(conn: sqlite3.Connection, path: Path) -> None:
    """Columns for wait budgets, quarantine, fallbacks and the exception queue; conversation index.
    A database created fresh already has the columns (v1 creates the current model), so add only
    what is missing."""
    have = {r[1] for r in conn.execute("PRAGMA table_info(task)")}
    for name, decl in _V2_COLUMNS:
        if name not in have:
            conn.execute(f"ALTER TABLE task ADD COLUMN {name} {decl}")
    conn.execute("UPDATE task SET queued_at = created_at WHERE queued_at IS NULL")
    conn.execute("UPDATE task SET origin_profile = profile WHERE origin_profile IS NULL")
    conn.execute("UPDATE task SET served_by = profile WHERE state = 'success' AND served_by IS NULL")
    # conversations: earlier turns of a route_key, in submit order
    conn.execute("CREATE INDEX IF NOT EXISTS ix_task_route ON task (route_key, seq) WHERE route_key IS NOT NULL")


_V3_COLUMNS = (("truncated", "INTEGER NOT NULL DEFAULT 0"),)


def _v3_truncated(conn: sqlite3.Connection, path: Path) -> None:
    """``truncated``: a success whose answer the provider cut at its length limit
    (``finish_reason: "length"``). Existing rows are whole answers (0)."""
    have = {r[1] for r in conn.execute("PRAGMA table_info(task)")}
    for name, decl in _V3_COLUMNS:
        if name not in have:
            conn.execute(f"ALTER TABLE task ADD COLUMN {name} {decl}")


MIGRATIONS: list[Callable[[sqlite3.Connection, Path], None]] = [_v1_initial, _v2_capacity, _v3_truncated]
SCHEMA_VERSION = len(MIGRATIONS)


@dataclass(frozen=True)
class DatabaseInfo:
    version: int
    #: carries our application_id (False: an empty database, or one of a version before the mark)
    marked: bool
    #: anything in it at all (tables, indexes...)
    has_objects: bool


def check_ours(conn: sqlite3.Connection, path: Path) -> DatabaseInfo:
    """What the database on ``conn`` is; raises :class:`ForeignDatabaseError` for another program's and
    :class:`NewerSchemaError` for a newer MediaDesk's. Reads only."""
    (app_id,) = conn.execute("PRAGMA application_id").fetchone()
    (version,) = conn.execute("PRAGMA user_version").fetchone()
    objects = conn.execute("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").fetchall()
    tables = sorted(name for kind, name in objects if kind == "table")
    if app_id not in (0, APPLICATION_ID):
        raise ForeignDatabaseError(path, tables)
    if app_id == 0 and (objects or version) and not _looks_like_ours(conn, tables):
        raise ForeignDatabaseError(path, tables)
    if version > SCHEMA_VERSION:
        raise NewerSchemaError(path, version, SCHEMA_VERSION)
    return DatabaseInfo(version=version, marked=app_id == APPLICATION_ID, has_objects=bool(objects))


def _looks_like_ours(conn: sqlite3.Connection, tables: list[str]) -> bool:
    if not set(tables) >= _OUR_TABLES:
        return False
    columns = {r[1] for r in conn.execute("PRAGMA table_info(task)")}
    return columns >= _OUR_TASK_COLUMNS


def _mark(conn: sqlite3.Connection) -> None:
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.commit()


def _backup(conn: sqlite3.Connection, path: Path, version: int) -> Path:
    """A consistent copy (WAL included) of the database into a new private file ``<db>.bak-v<version>``
    (``.2``, ``.3``... when one exists); a link at that name is refused, never written through."""
    name = f"{path.name}.bak-v{version}"
    n = 1
    while True:
        dst = path.with_name(name if n == 1 else f"{name}.{n}")
        try:
            fd = create_private_file(dst)
            break
        except FileExistsError:
            if os.path.islink(dst):
                raise UnsafePathError.symlink(dst, "backup") from None
            n += 1
    os.close(fd)
    target = sqlite3.connect(dst)
    try:
        conn.backup(target)
    finally:
        target.close()
    return dst


def migrate(path: Path) -> int:
    """Create or upgrade the database at ``path``; return the version it had before.

    Refuses (typed errors of :mod:`mediadesk.store.open_errors`) a path that is a link or a directory, a
    file that is not SQLite or is truncated, another program's database and a newer MediaDesk's, before
    writing anything to it.
    """
    path = Path(path)
    check_database_file(path, create=True)
    conn = sqlite3.connect(path, timeout=10)
    try:
        info = check_ours(conn, path)
        current = info.version
        if current == SCHEMA_VERSION:
            if not info.marked:
                _mark(conn)
            return current
        if current > 0 or info.has_objects:
            _backup(conn, path, current)
        _mark(conn)
        for version in range(current, SCHEMA_VERSION):
            MIGRATIONS[version](conn, path)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.commit()
        return current
    finally:
        conn.close()
