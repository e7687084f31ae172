"""The database file before SQLite touches it, and its permissions after.

SQLite follows a symbolic link at the database path (and at ``-wal``, ``-shm``, ``-journal``), creates the
file with the umask's permissions, and writes into anything that is an empty file. So before any
``sqlite3.connect`` we check the path ourselves: links, directories and devices are refused; a missing
database is created empty and private (``O_EXCL | O_NOFOLLOW``, 0600); a file that is not SQLite, or is
shorter than its own header says (truncated), is refused before SQLite reads it, so nothing is written to
it. SQLite then gives ``-wal`` / ``-shm`` the database file's own permissions; :func:`tighten` fixes files
that older versions left 0644.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from mediadesk.files.safe import O_NOFOLLOW, create_private_file, ensure_private_dir, tighten_file
from mediadesk.platform.files import open_binary_readonly, owned_by_us, read_only_fs
from mediadesk.store.open_errors import DatabaseNotFoundError, DatabasePathError, NotADatabaseError

__all__ = ["SIDECARS", "check_database_file", "read_only_fs", "sidecar", "tighten"]

SQLITE_HEADER = b"SQLite format 3\x00"
SIDECARS = ("-wal", "-shm", "-journal")


def sidecar(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def check_database_file(path: Path, *, create: bool) -> bool:
    """Make sure SQLite may open ``path`` as a database of ours; return True when we just created it.

    Raises :class:`DatabasePathError` (a link at the database or a sidecar, a directory, a device),
    :class:`DatabaseNotFoundError` (missing and ``create`` is false) or :class:`NotADatabaseError` (not
    SQLite, or truncated). A missing folder is created 0700.
    """
    path = Path(path)
    for suffix in SIDECARS:
        side = sidecar(path, suffix)
        if os.path.islink(side):
            raise DatabasePathError.symlink(side)
        _refuse_foreign(side)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if not create:
            raise DatabaseNotFoundError(path) from None
        ensure_private_dir(path.parent, ours=False)
        try:
            os.close(create_private_file(path))
            return True
        except FileExistsError:  # made meanwhile (or a link planted meanwhile): look at it like any other
            st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise DatabasePathError.symlink(path)
    if stat.S_ISDIR(st.st_mode):
        raise DatabasePathError.directory(path)
    if not stat.S_ISREG(st.st_mode):
        raise DatabasePathError.not_a_file(path)
    _refuse_foreign(path, st)
    if st.st_size:
        _check_header(path, st.st_size)
    return False


def _refuse_foreign(path: Path, st: os.stat_result | None = None) -> None:
    """Refuse a database file (or sidecar) of another user that we could open: its owner reads every
    prompt and result we would keep in it (a 0666 file in a shared folder). One we cannot open at all
    is left to the open, which says "permission denied". Never on Windows, where files have no owner uid
    (:func:`mediadesk.platform.files.owned_by_us`)."""
    if st is None:
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return
    if owned_by_us(st) or not stat.S_ISREG(st.st_mode):
        return
    if os.access(path, os.R_OK, effective_ids=os.access in os.supports_effective_ids):
        raise DatabasePathError.foreign(path, st.st_uid)


def _check_header(path: Path, size: int) -> None:
    fd = open_binary_readonly(path, O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    try:
        head = os.read(fd, 100)
    finally:
        os.close(fd)
    if not head.startswith(SQLITE_HEADER) and not (len(head) < 16 and SQLITE_HEADER.startswith(head)):
        raise NotADatabaseError.garbage(path)
    if len(head) < 100:
        raise NotADatabaseError.damaged(path, f"truncated: only {size} bytes")
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        raise NotADatabaseError.damaged(path, f"its header gives an impossible page size {page_size}")
    pages = int.from_bytes(head[28:32], "big")
    # The page count in the header is valid when the change counter matches "version-valid-for"; a
    # non-empty WAL or a hot journal may legitimately hold what the main file lacks: then SQLite judges.
    if pages and head[24:28] == head[92:96] and size < pages * page_size and not _pending(path):
        raise NotADatabaseError.damaged(
            path, f"truncated: {size} bytes where its header says {pages * page_size}"
        )


def _pending(path: Path) -> bool:
    try:
        return os.path.getsize(sidecar(path, "-wal")) > 0 or os.path.lexists(sidecar(path, "-journal"))
    except OSError:
        return os.path.lexists(sidecar(path, "-journal"))


def tighten(path: Path) -> None:
    """Make the database and its sidecars 0600 when they are ours (files of older versions were 0644)."""
    tighten_file(path, "database")
    for suffix in SIDECARS:
        tighten_file(sidecar(path, suffix), "database file")
