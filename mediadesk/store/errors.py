"""Storage faults while running: the database file lost, the disk full, the disk failing.

The faces catch :class:`StorageError` by type (the CLI exits 2, the console shows it); ``kind`` is
what they switch on ("lost", "full", "error") and ``str(error)`` is the English message for a log
or a terminal: what happened, to which file, and what to do next.

Why these are not plain ``sqlite3.OperationalError``: an error of the disk is fatal for a run
(stop dispatching, keep what is stored, say so), while "database is locked" and friends are not;
and a deleted database raises nothing at all in SQLite (the open file lives on, unlinked), so that
one is found by comparing the file at the path with the file we opened.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

__all__ = ["StorageError", "StorageFullError", "StoreLostError", "file_identity", "storage_error_of"]

# SQLite primary result codes (the low byte of sqlite_errorcode, Python >= 3.11).
_SQLITE_PERM, _SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_CORRUPT = 3, 8, 10, 11
_SQLITE_FULL, _SQLITE_CANTOPEN, _SQLITE_NOTADB = 13, 14, 26
_FAULT_CODES = frozenset({_SQLITE_PERM, _SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_CORRUPT, _SQLITE_CANTOPEN,
                          _SQLITE_NOTADB})
#: Below this many free bytes an I/O error of the disk is reported as "disk full".
_NEARLY_FULL_BYTES = 64 * 1024


class StorageError(Exception):
    """The database could not be written or read for a reason of the disk or the file."""

    kind = "error"

    def __init__(self, path: Path | str, detail: str) -> None:
        self.path = Path(path)
        self.detail = detail
        super().__init__(self._message())

    def _message(self) -> str:
        return (
            f"the database {self.path} could not be written ({self.detail}). Dispatching stopped; what was "
            "already stored is kept. Check the disk and the file's permissions, then run again: "
            "unfinished tasks resume."
        )


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


def file_identity(path: Path) -> tuple[int, int] | None:
    """(st_dev, st_ino) of the file at ``path`` now, or None when there is none."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def storage_error_of(exc: sqlite3.Error, path: Path) -> StorageError | None:
    """The typed fault behind an sqlite3 error, or None when it is not a fault of the disk or file
    (busy, locked, a bad statement: those stay what they are)."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(exc)
    if primary == _SQLITE_FULL or "database or disk is full" in text:
        return StorageFullError(path, text)
    if primary in _FAULT_CODES or "disk I/O error" in text or "readonly database" in text:
        if primary == _SQLITE_IOERR and _nearly_full(path):
            return StorageFullError(path, text)
        return StorageError(path, text)
    return None


def _nearly_full(path: Path) -> bool:
    try:
        st = os.statvfs(path.parent)
    except (OSError, AttributeError):  # AttributeError: no statvfs on Windows
        return False
    return st.f_bavail * st.f_frsize < _NEARLY_FULL_BYTES
