"""One way in: :func:`open_store` gives the task store of a location on its back-end.

The PostgreSQL store is imported only for a ``postgresql://`` location (the SQLite path never pays
psycopg's import), and only here: the SQLite store does not know the PostgreSQL one, which builds on it.
"""

from __future__ import annotations

from pathlib import Path

from mediadesk.config.location import PgLocation, StoreLocation, as_location
from mediadesk.store.taskstore import TaskStore

__all__ = ["open_store"]


def open_store(location: StoreLocation | Path | str) -> TaskStore:
    """The store at ``location`` (a :class:`~mediadesk.config.location.StoreLocation`, a ``postgresql://``
    URL or a path of an SQLite file), created or upgraded to the current schema: a
    :class:`~mediadesk.store.taskstore.TaskStore`, or its PostgreSQL subclass
    :class:`~mediadesk.store.pgstore.PgTaskStore`. Both implement :class:`~mediadesk.store.protocol.Store`.
    Raises :class:`~mediadesk.store.open_errors.StoreOpenError`\\ s saying what keeps it from being used."""
    loc = as_location(location)
    if isinstance(loc, PgLocation):
        from mediadesk.store.pgstore import PgTaskStore

        return PgTaskStore(loc)
    return TaskStore(loc.path)
