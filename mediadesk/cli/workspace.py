"""The workspace a command works on, and the database it names when a storage error names no file."""

from __future__ import annotations

from pathlib import Path

from mediadesk.config.model import AppConfig
from mediadesk.config.workspace import Workspace

#: The database the running command works on (named when a storage error does not name a file).
_current_db: Path | None = None


def workspace_for(config: AppConfig | None, data_dir: Path | None, db: str | Path | None) -> Workspace:
    """``db``: ``--db`` as given (a file, or a ``postgresql://`` URL), else the config's ``db_url``."""
    global _current_db
    base = data_dir or (config.data_dir if config is not None else None)
    ws = Workspace.resolve(data_dir=base, db=db, db_url=config.db_url if config is not None else None)
    _current_db = ws.db_path if ws.db_url is None else None
    return ws


def db_name(ws: Workspace) -> str:
    return ws.db_path.name if ws.db_url is None else ws.db_url.display


def current_db() -> Path | None:
    """The SQLite file of the last workspace resolved (None for PostgreSQL or before any)."""
    return _current_db
