"""Why a database cannot be opened, as typed errors whose message names the file and says what to do.

The store's open path (:class:`~mediadesk.store.TaskStore`, :class:`~mediadesk.store.TaskReader`,
:func:`~mediadesk.store.migrate`) raises these; the CLI and the console print the message and exit 2, never
a traceback. :func:`storage_error` turns the raw ``sqlite3`` error or ``OSError`` of a storage fault (disk
full, read-only file system, permission denied, I/O error) into one of them wherever it surfaced, and
returns ``None`` for anything else (a bug keeps its traceback).
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from pathlib import Path

from mediadesk.platform.files import owned_by_us, read_only_fs, user_name

__all__ = [
    "DatabaseNotFoundError",
    "DatabasePathError",
    "DatabaseServerError",
    "ForeignDatabaseError",
    "NewerSchemaError",
    "NotADatabaseError",
    "OlderSchemaError",
    "SchemaError",
    "StorageUnavailableError",
    "StoreOpenError",
    "storage_error",
]

# SQLite primary result codes (an extended code carries the primary one in its low byte)
_SQLITE_PERM, _SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_CORRUPT = 3, 8, 10, 11
_SQLITE_FULL, _SQLITE_CANTOPEN, _SQLITE_NOTADB = 13, 14, 26
#: Less than this free is "full" when SQLite reports only a generic I/O error (it writes whole pages).
_NEARLY_FULL_BYTES = 64 * 1024


class StoreOpenError(Exception):
    """A database (or a file beside it) cannot be used; the message says which and what to do next."""

    def __init__(self, message: str, path: Path | None = None) -> None:
        super().__init__(message)
        self.path = path


class DatabaseNotFoundError(StoreOpenError):
    def __init__(self, path: Path) -> None:
        super().__init__(f"database not found: {path} (pass --db or --data-dir of an existing workspace)", path)


class DatabasePathError(StoreOpenError):
    """The database path is a directory, a symbolic link, or not a regular file."""

    @classmethod
    def directory(cls, path: Path) -> DatabasePathError:
        return cls(
            f"{path} is a directory, not a database file: pass --db with a file name "
            f"(e.g. --db {path / 'mediadesk.db'}), or --data-dir {path} to use it as the workspace folder",
            path,
        )

    @classmethod
    def symlink(cls, path: Path) -> DatabasePathError:
        try:
            target = f" (to {os.readlink(path)})"
        except OSError:
            target = ""
        return cls(
            f"{path} is a symbolic link{target}; MediaDesk never opens its database through a link (one planted "
            "in a shared folder would make it write another file). Pass the real file with --db, or remove the "
            f"link if you did not make it (rm {str(path)!r})",
            path,
        )

    @classmethod
    def foreign(cls, path: Path, uid: int) -> DatabasePathError:
        name = user_name(uid)
        who = f"{name}, uid {uid}" if name is not None else f"uid {uid}"
        return cls(
            f"{path} belongs to another user ({who}), who could read and change every prompt and result "
            "MediaDesk keeps in it; MediaDesk uses only a database file of your own. Pass --db with a file "
            "of yours (a new name creates one), or have its owner hand it over (chown)",
            path,
        )

    @classmethod
    def not_a_file(cls, path: Path) -> DatabasePathError:
        return cls(f"{path} is not a regular file (a device, socket or pipe): pass another --db", path)


class NotADatabaseError(StoreOpenError):
    """Garbage, a file too short to be SQLite, or a damaged (truncated, corrupt) database. Never changed."""

    @classmethod
    def garbage(cls, path: Path | None, detail: str = "") -> NotADatabaseError:
        what = f" ({detail})" if detail else ""
        return cls(
            f"{path or 'the database'} is not an SQLite database{what}; MediaDesk did not change it. "
            "Pass another --db, or move the file away to start a new database there",
            path,
        )

    @classmethod
    def damaged(cls, path: Path | None, detail: str) -> NotADatabaseError:
        where = path or "the database"
        backup = f" ({path.name}.bak-v* beside it, if there is one)" if path is not None else ""
        return cls(
            f"{where} is damaged ({detail}); MediaDesk did not change it. Restore it from a backup{backup}, "
            "or move it away to start a new database",
            path,
        )


class SchemaError(StoreOpenError):
    """The database cannot be used by this version of MediaDesk (a newer schema, not ours at all)."""


class ForeignDatabaseError(SchemaError):
    def __init__(self, path: Path, tables: list[str]) -> None:
        shown = ", ".join(tables[:8]) + (", ..." if len(tables) > 8 else "")
        what = f" (tables: {shown})" if tables else ""
        super().__init__(
            f"{path}: not a MediaDesk database: an SQLite database of another program{what}. MediaDesk did "
            "not change it; pass another --db",
            path,
        )


class NewerSchemaError(SchemaError):
    def __init__(self, path: Path | str, found: int | str, known: int | str) -> None:
        super().__init__(
            f"{path}: written by a newer MediaDesk (schema {found}, this version knows {known}); "
            "upgrade MediaDesk or use another --db",
            path if isinstance(path, Path) else None,
        )


class DatabaseServerError(StoreOpenError):
    """A PostgreSQL database cannot be opened: the server is down or unreachable, the database or the
    user does not exist, the password is refused. ``kind``: ``unreachable``, ``no_database``, ``auth``,
    ``foreign`` or ``error``. The message names ``host:port`` and the database, never a password."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message, None)
        self.kind = kind


class OlderSchemaError(SchemaError):
    """A reader met a database of an older MediaDesk: it needs one upgrade (a write) before reading."""

    def __init__(self, path: Path, found: int, known: int) -> None:
        super().__init__(
            f"{path}: written by an older MediaDesk (schema {found}, this version uses {known}); open it "
            "once with `mediadesk run` or the console to upgrade it (a backup is kept), then read it again",
            path,
        )


class StorageUnavailableError(StoreOpenError):
    """The disk cannot take what MediaDesk must write, or refuses us: ``kind`` is ``disk_full``,
    ``read_only``, ``permission``, ``io`` or ``path``."""

    def __init__(self, message: str, path: Path | None, kind: str) -> None:
        super().__init__(message, path)
        self.kind = kind

    @classmethod
    def disk_full(cls, path: Path | None, sqlite: bool) -> StorageUnavailableError:
        where = f"the disk holding {path}" if path is not None else "the disk"
        free = _free_bytes(path) if path is not None else None
        left = f" ({_size(free)} left)" if free is not None else ""
        kept = " SQLite keeps the database whole: what was saved before is intact." if sqlite else ""
        return cls(
            f"{where} is full{left}: free some space there, or move the data dir (--data-dir) / database "
            f"(--db) to a bigger disk, and run again.{kept}",
            path, "disk_full",
        )

    @classmethod
    def read_only(cls, path: Path | None) -> StorageUnavailableError:
        return cls(
            f"cannot write {path or 'the database'}: its file system is read-only. Remount it read-write, or "
            "choose a place on a writable disk (for the workspace: --data-dir or --db; `mediadesk export` can "
            "still read a database on a read-only disk)",
            path, "read_only",
        )

    @classmethod
    def permission(cls, path: Path | None) -> StorageUnavailableError:
        owner = _owner_of(path) if path is not None else ""
        whose = f" (it belongs to {owner})" if owner else ""
        return cls(
            f"permission denied on {path or 'the database'}{whose}: run MediaDesk as the user who owns it, "
            "or use a data dir (--data-dir) or database (--db) of your own",
            path, "permission",
        )

    @classmethod
    def io(cls, path: Path | None, detail: str) -> StorageUnavailableError:
        return cls(
            f"input/output error on {path or 'the database'} ({detail}): the disk may be failing or gone; "
            "check it, then run again",
            path, "io",
        )


def storage_error(exc: BaseException, path: Path | None = None) -> StoreOpenError | None:
    """The user-level error for a storage fault surfaced as ``exc`` while using ``path`` (the database,
    when the error itself names no file); ``None`` when ``exc`` is not a storage fault."""
    if isinstance(exc, StoreOpenError):
        return exc
    if isinstance(exc, sqlite3.Error):
        return _from_sqlite(exc, path)
    if isinstance(exc, OSError):
        where = Path(os.fsdecode(exc.filename)) if exc.filename is not None else path
        return _from_errno(exc.errno, where, str(exc.strerror or exc))
    detail = " ".join(str(exc).split())
    if type(exc).__module__.split(".")[0] == "psycopg" and (
            type(exc).__name__ in ("AdminShutdown", "CannotConnectNow") or (
            type(exc).__name__ in ("OperationalError", "InterfaceError")
            and ("connection" in detail.lower() or "server" in detail.lower()))):
        # a PostgreSQL server gone (psycopg is imported only in team mode: recognised by name here)
        return DatabaseServerError(f"the database server is unreachable: {detail}; check it is running and "
                                   "reachable, then run again", "unreachable")
    return None


def _from_sqlite(exc: sqlite3.Error, path: Path | None) -> StoreOpenError | None:
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    text = str(exc)
    if code == _SQLITE_FULL or "database or disk is full" in text:
        return StorageUnavailableError.disk_full(path, sqlite=True)
    if code == _SQLITE_NOTADB or "file is not a database" in text:
        return NotADatabaseError.garbage(path)
    if code == _SQLITE_CORRUPT or "malformed" in text:
        return NotADatabaseError.damaged(path, text)
    if code in (_SQLITE_READONLY, _SQLITE_CANTOPEN, _SQLITE_PERM, _SQLITE_IOERR) or text in (
        "unable to open database file", "disk I/O error", "attempt to write a readonly database",
    ):
        if path is None:
            return StorageUnavailableError.io(None, text)
        if _read_only_fs(path):
            return StorageUnavailableError.read_only(path)
        free = _free_bytes(path)
        if free is not None and free < _NEARLY_FULL_BYTES:
            return StorageUnavailableError.disk_full(path, sqlite=True)
        if not _accessible(path) or code in (_SQLITE_READONLY, _SQLITE_PERM):
            return StorageUnavailableError.permission(path)
        return StorageUnavailableError.io(path, text)
    return None


def _from_errno(num: int | None, where: Path | None, text: str) -> StoreOpenError | None:
    if num in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return StorageUnavailableError.disk_full(where, sqlite=False)
    if num == errno.EROFS:
        return StorageUnavailableError.read_only(where)
    if num in (errno.EACCES, errno.EPERM):
        return StorageUnavailableError.permission(where)
    if num == errno.EIO:
        return StorageUnavailableError.io(where, text)
    if num == errno.ELOOP:
        return StorageUnavailableError(
            f"{where} is a symbolic link and MediaDesk does not follow it there: remove the link (if you did "
            "not make it) or choose another path", where, "path",
        )
    if num == errno.EISDIR:
        return StorageUnavailableError(
            f"{where} is a directory where MediaDesk needs a file: choose a file name", where, "path",
        )
    if num == errno.ENOTDIR:
        return StorageUnavailableError(
            f"{where}: a part of this path is a file, not a folder: choose another path", where, "path",
        )
    return None


# ------------------------------------------------------------------------------------------ probes
def _existing(path: Path) -> Path | None:
    """``path`` or its nearest existing parent."""
    probe = Path(os.path.abspath(path))
    while not os.path.lexists(probe):
        if probe.parent == probe:
            return None
        probe = probe.parent
    return probe


def _read_only_fs(path: Path) -> bool:
    probe = _existing(path)
    return probe is not None and read_only_fs(probe)


def _free_bytes(path: Path) -> int | None:
    probe = _existing(path)
    if probe is None:
        return None
    try:
        return shutil.disk_usage(probe).free  # what this user may fill (statvfs f_bavail; Windows too)
    except OSError:
        return None


def _accessible(path: Path) -> bool:
    """Can we read and write ``path`` (or create it in its folder)?"""
    if os.path.lexists(path):
        return os.access(path, os.R_OK | os.W_OK)
    parent = _existing(path)
    return parent is not None and os.access(parent, os.W_OK | os.X_OK)


def _owner_of(path: Path) -> str:
    probe = _existing(path)
    if probe is None:
        return ""
    try:
        st = os.lstat(probe)
    except OSError:
        return ""
    if owned_by_us(st):
        return ""
    name = user_name(st.st_uid)
    return f"user {name}" if name is not None else f"uid {st.st_uid}"


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    value, unit = n / 1024, "KB"
    for bigger in ("MB", "GB"):
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    return f"{value:.1f} {unit}"
