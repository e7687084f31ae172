"""Storage faults while running: the database file lost, the disk full, the disk failing.

Faces catch :class:`StorageError` by type and switch on ``kind`` ("lost", "full", "error");
``str(error)`` says what happened, to which file, and what to do. They are also
:class:`~mediadesk.store.open_errors.StoreOpenError`, so they are reported like open-time faults.
Why not plain ``sqlite3.OperationalError``: a disk error is fatal for a run, "database is locked" is
not; and SQLite raises nothing for a deleted database (found by comparing files). Which sqlite3
error is a disk fault is decided once, in :func:`~mediadesk.store.open_errors.storage_error`.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from mediadesk.store.open_errors import StorageUnavailableError, StoreOpenError, storage_error

__all__ = ["DatabaseServerLostError", "StorageError", "StorageFullError", "StoreLostError", "file_identity",
           "storage_error_of"]

_AFTER = "Dispatching stopped; what was stored before is kept, and unfinished tasks resume on the next run."


class StorageError(StoreOpenError):
    """The database could not be written or read any more while running, for a reason of the disk
    or the file. ``detail``: the cause as the system said it; ``advice``: what to do, when known."""

    kind = "error"

    def __init__(self, path: Path | str, detail: str, advice: str | None = None) -> None:
        self.path = Path(path)
        #: what to name in a message: the file, or a PostgreSQL database as ``host:port/db`` (no password)
        self.where = str(path)
        self.detail = detail
        self.advice = advice
        super().__init__(self._message(), self.path)

    def _message(self) -> str:
        what = self.advice or (
            f"the database {self.path} could not be written ({self.detail}): check the disk and the file's "
            "permissions, then run again"
        )
        return f"{what.rstrip('.')}. {_AFTER}"


class StoreLostError(StorageError):
    """The file at the database path is no longer the file this process opened (deleted or replaced)."""

    kind = "lost"

    def _message(self) -> str:
        return (
            f"the database file {self.path} was {self.detail} while MediaDesk was running: results written "
            "since then are not in any file at that path and were not saved. Dispatching stopped. Restore "
            "the file (from a backup) or start again with another --db; nothing of this run is reported "
            "as done."
        )


class StorageFullError(StorageError):
    """SQLite said "database or disk is full" (or the disk failed with no space left)."""

    kind = "full"

    def _message(self) -> str:
        return (
            f"the disk holding the database {self.path} is full ({self.detail}). Dispatching stopped; every "
            "result stored before is kept. Free some space on that disk, then run again: unfinished tasks "
            "resume."
        )


class DatabaseServerLostError(StorageError):
    """PostgreSQL: the connection to the database server was lost while running (the server stopped,
    the network went away). ``detail`` is the driver's message (it never holds a password)."""

    kind = "unreachable"

    def __init__(self, where: str, host_port: str, detail: str) -> None:
        self.host_port = host_port
        self.path = Path()
        self.where = where
        self.detail = detail
        self.advice = None
        StoreOpenError.__init__(self, self._message(), None)

    def _message(self) -> str:
        return (
            f"the database server at {self.host_port} is unreachable: {self.detail.strip()}; check it is running "
            f"and reachable (database {self.where}). {_AFTER}"
        )


def file_identity(path: Path) -> tuple[int, int] | None:
    """(st_dev, st_ino) of the file at ``path`` now, or None when there is none."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def storage_error_of(exc: sqlite3.Error, path: Path) -> StorageError | None:
    """The running-time fault behind an sqlite3 error, or None when it is not a fault of the disk or
    the file (busy, locked, a bad statement: those stay what they are)."""
    err = storage_error(exc, path)
    if err is None:
        return None
    if isinstance(err, StorageUnavailableError) and err.kind == "disk_full":
        return StorageFullError(path, str(exc))
    return StorageError(path, str(exc), advice=str(err))
