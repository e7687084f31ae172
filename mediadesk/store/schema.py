"""Schema versioning without losing an operator's data.

**A schema change is a new Alembic revision** (:mod:`mediadesk.store.migrations`), never an edit
here: :data:`MIGRATIONS` is frozen history for pre-Alembic SQLite files (``user_version`` 1..3). Such a
file is backed up (``<db>.bak-v<old>``), brought to :data:`LEGACY_VERSION`, stamped ``0001_baseline``,
upgraded to head and marked :data:`SCHEMA_VERSION` so old MediaDesks refuse it as newer. Unknown
revisions are refused, never "fixed". Ours carry ``PRAGMA application_id`` = :data:`APPLICATION_ID`;
any other non-empty SQLite file is refused untouched (:func:`check_ours`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mediadesk.files.safe import UnsafePathError, create_private_file
from mediadesk.store.dbfile import check_database_file
from mediadesk.store.migrations import BASELINE, HEAD, REVISIONS
from mediadesk.store.open_errors import ForeignDatabaseError, NewerSchemaError, SchemaError

if TYPE_CHECKING:
    from mediadesk.store.pgconn import PgConn

__all__ = ["APPLICATION_ID", "LEGACY_VERSION", "MIGRATIONS", "SCHEMA_VERSION", "DatabaseInfo", "SchemaError",
           "check_ours", "migrate", "migrate_pg"]

#: ``PRAGMA application_id`` of a MediaDesk database: "MDk1".
APPLICATION_ID = 0x4D446B31
#: What a MediaDesk database of any version has (schema 1 already had all of these).
_OUR_TABLES = frozenset({"task", "task_log"})
_OUR_TASK_COLUMNS = frozenset({"task_id", "model_kind", "state", "attempt", "profile", "prompt", "version", "seq"})


#: What ``_v1_initial`` creates: the tables as MediaDesk created them when Alembic took over (the SQL
#: that SQLAlchemy's ``create_all`` made of the models then). Frozen: history, not the current model.
_V1_DDL = (
    """CREATE TABLE IF NOT EXISTS task (
\ttask_id VARCHAR NOT NULL, model_kind VARCHAR NOT NULL, state VARCHAR NOT NULL, attempt INTEGER NOT NULL,
\tstarted_at FLOAT, heartbeat_at FLOAT, profile VARCHAR NOT NULL, account VARCHAR, lane VARCHAR,
\tprompt VARCHAR NOT NULL, system VARCHAR, priority INTEGER NOT NULL, route_key VARCHAR, batch VARCHAR,
\tresult VARCHAR, error_kind VARCHAR, error_message VARCHAR, created_at FLOAT NOT NULL,
\tupdated_at FLOAT NOT NULL, finished_at FLOAT, cancel_requested BOOLEAN NOT NULL, version INTEGER NOT NULL,
\tnot_before FLOAT NOT NULL, seq INTEGER NOT NULL, attempt_base INTEGER NOT NULL, owner VARCHAR,
\tqueued_at FLOAT, crash_count INTEGER NOT NULL, served_by VARCHAR, origin_profile VARCHAR,
\tresolution VARCHAR, resolution_note VARCHAR, resolved_at FLOAT, truncated BOOLEAN DEFAULT '0' NOT NULL,
\tPRIMARY KEY (task_id)
)""",
    "CREATE INDEX IF NOT EXISTS ix_task_state_hb ON task (state, heartbeat_at)",
    """CREATE TABLE IF NOT EXISTS task_log (
\tid INTEGER NOT NULL, task_id VARCHAR NOT NULL, ts FLOAT NOT NULL, lane VARCHAR NOT NULL,
\tmessage VARCHAR NOT NULL, PRIMARY KEY (id)
)""",
    "CREATE INDEX IF NOT EXISTS ix_task_log_task_id ON task_log (task_id)",
    """CREATE TABLE IF NOT EXISTS account_state (
\tname VARCHAR NOT NULL, enabled BOOLEAN NOT NULL, health VARCHAR NOT NULL, last_error VARCHAR,
\tupdated_at FLOAT NOT NULL, PRIMARY KEY (name)
)""",
    """CREATE TABLE IF NOT EXISTS profile_setting (
\tname VARCHAR NOT NULL, need_empty_prompt BOOLEAN, concurrency INTEGER, updated_at FLOAT NOT NULL,
\tPRIMARY KEY (name)
)""",
    # claim: head pending task of a profile, by priority (high first) then submission order. The
    # DESC must be in the index or SQLite sorts every pending row on each claim.
    "CREATE INDEX IF NOT EXISTS ix_task_claim ON task (state, profile, priority DESC, seq)",
)


def _v1_initial(conn: sqlite3.Connection, path: Path) -> None:
    """The tables that are missing (a file of ours with some of them only)."""
    for ddl in _V1_DDL:
        conn.execute(ddl)


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
    A database that ``_v1_initial`` created already has the columns, so add only what is missing."""
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


#: The migrations of the ``user_version`` era, frozen (a new schema change is an Alembic revision).
MIGRATIONS: tuple[Callable[[sqlite3.Connection, Path], None], ...] = (_v1_initial, _v2_capacity, _v3_truncated)
#: The last ``user_version`` of the era before Alembic (what ``0001_baseline`` is, exactly). A literal:
#: it names released files, and must not move if someone appends to :data:`MIGRATIONS`.
LEGACY_VERSION = 3
#: ``user_version`` of a database whose schema Alembic manages (its revision is in ``alembic_version``).
SCHEMA_VERSION = LEGACY_VERSION + 1


@dataclass(frozen=True)
class DatabaseInfo:
    version: int
    #: carries our application_id (False: an empty database, or one of a version before the mark)
    marked: bool
    #: anything in it at all (tables, indexes...)
    has_objects: bool
    #: its Alembic revision (None: none recorded, a database of the ``user_version`` era or a new one)
    revision: str | None = None


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
    revision = None
    if "alembic_version" in tables:
        revision = _known_revision(
            [r[0] for r in conn.execute("SELECT version_num FROM alembic_version")], path)
    return DatabaseInfo(version=version, marked=app_id == APPLICATION_ID, has_objects=bool(objects),
                        revision=revision)


def _known_revision(found: list[str], where: Path | str) -> str | None:
    """The one revision recorded, or None; a revision this MediaDesk does not know -> newer."""
    for rev in found:
        if rev not in REVISIONS:
            raise NewerSchemaError(where, rev, HEAD)
    return max(found, key=REVISIONS.index) if found else None


def _looks_like_ours(conn: sqlite3.Connection, tables: list[str]) -> bool:
    if not set(tables) >= _OUR_TABLES:
        return False
    columns = {r[1] for r in conn.execute("PRAGMA table_info(task)")}
    return columns >= _OUR_TASK_COLUMNS


def _mark(conn: sqlite3.Connection) -> None:
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.commit()


def _backup(conn: sqlite3.Connection, path: Path, version: int | str) -> Path:
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
    """Create or upgrade the database at ``path``; return the ``user_version`` it had before.

    Refuses (typed errors of :mod:`mediadesk.store.open_errors`) a path that is a link or a directory, a
    file that is not SQLite or is truncated, another program's database and a newer MediaDesk's, before
    writing anything to it. A database with tables is copied to ``<db>.bak-v<version>`` before it is
    changed (``<db>.bak-v<revision>`` once Alembic manages it).
    """
    path = Path(path)
    check_database_file(path, create=True)
    conn = sqlite3.connect(path, timeout=10)
    try:
        info = check_ours(conn, path)
        current = info.version
        if current == SCHEMA_VERSION and info.revision == HEAD:
            if not info.marked:
                _mark(conn)
            return current
        if current > 0 or info.has_objects:
            _backup(conn, path, current if current < SCHEMA_VERSION else info.revision or current)
        _mark(conn)
        legacy = current > 0 or info.has_objects
        if current < LEGACY_VERSION and legacy:
            for version in range(current, LEGACY_VERSION):
                MIGRATIONS[version](conn, path)
                conn.execute(f"PRAGMA user_version = {version + 1}")
                conn.commit()
    finally:
        conn.close()

    def _set_version(sa_conn: Any) -> None:
        sa_conn.exec_driver_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")

    from mediadesk.store import migrations

    migrations.upgrade(
        "sqlite", lambda: sqlite3.connect(path, timeout=10, check_same_thread=False),
        stamp_if_unversioned=BASELINE if legacy else None, then=_set_version,
    )
    return current


#: ``pg_advisory_lock`` key held while a PostgreSQL database is upgraded (desktops opening at once).
_PG_MIGRATE_LOCK = 0x4D446B32


def pg_revision(conn: PgConn) -> tuple[str | None, bool]:
    """(the Alembic revision, whether a ``task`` table exists) of the PostgreSQL database; raises
    :class:`NewerSchemaError` for a revision we do not know. Reads only."""
    row = conn.execute(
        "SELECT to_regclass('task') IS NOT NULL, to_regclass('alembic_version') IS NOT NULL").fetchone()
    has_task, has_versions = row if row is not None else (False, False)
    revision = None
    if has_versions:
        revision = _known_revision([r[0] for r in conn.execute("SELECT version_num FROM alembic_version")],
                                   conn.loc.display)
    return revision, bool(has_task)


def migrate_pg(conn: PgConn) -> str | None:
    """Create or upgrade the PostgreSQL database on ``conn`` (one transaction, under an advisory lock so
    desktops opening a new database at once do not race); return the revision it had before. A
    database that has a ``task`` table but no revision of ours is someone else's: refused untouched."""
    revision, has_task = pg_revision(conn)
    if revision == HEAD:
        return revision
    loc = conn.loc
    if revision is None and has_task:
        raise SchemaError(
            f"{loc.display}: this PostgreSQL database already has a table 'task' that MediaDesk did not make "
            "(no MediaDesk schema revision in it). MediaDesk did not change it: use a database of its own "
            "(createdb mediadesk) in --db / db_url")
    conn.execute("SELECT pg_advisory_lock(?)", (_PG_MIGRATE_LOCK,))
    try:
        revision, has_task = pg_revision(conn)  # another desktop may have done it meanwhile
        if revision != HEAD:
            from mediadesk.store import migrations
            from mediadesk.store.pgconn import raw_connect

            migrations.upgrade("postgresql", lambda: raw_connect(loc, autocommit=False))
    finally:
        conn.execute("SELECT pg_advisory_unlock(?)", (_PG_MIGRATE_LOCK,))
    return revision
