"""Schema versioning without losing an operator's data.

The schema version lives in SQLite's ``PRAGMA user_version``. ``MIGRATIONS[i]`` brings a database
from version ``i`` to ``i + 1``; they run in order inside one transaction each, after a copy of the
file is kept as ``<db>.bak-v<old>``. A database written by a newer MediaDesk is refused, never
"fixed". To change the schema: append a function to ``MIGRATIONS`` (ALTER TABLE / copy), never edit
an old one. This is the documented equivalent of Alembic for a single embedded file.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path


class SchemaError(Exception):
    """The database cannot be used by this version of MediaDesk."""


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


def migrate(path: Path) -> int:
    """Create or upgrade the database at ``path``; return the version it had before."""
    conn = sqlite3.connect(path, timeout=10)
    try:
        (current,) = conn.execute("PRAGMA user_version").fetchone()
        if current > SCHEMA_VERSION:
            raise SchemaError(
                f"{path}: written by a newer MediaDesk (schema {current}, this version knows "
                f"{SCHEMA_VERSION}); upgrade MediaDesk or use another --db"
            )
        if current == SCHEMA_VERSION:
            return current
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        has_tables = bool(tables)
        if current == 0 and has_tables and "task" not in tables:
            raise SchemaError(f"{path}: not a MediaDesk database (it has other tables); use another --db")
        if current > 0 or has_tables:
            conn.close()
            shutil.copy2(path, path.with_name(f"{path.name}.bak-v{current}"))
            conn = sqlite3.connect(path, timeout=10)
        for version in range(current, SCHEMA_VERSION):
            MIGRATIONS[version](conn, path)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.commit()
        return current
    finally:
        conn.close()
