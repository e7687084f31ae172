"""Private files and folders, ownership and binary reads: what POSIX and Windows do differently.

POSIX: a file or folder is private by its mode (0600 / 0700, no bit for group or others) and ours by
its owner uid. Windows: the mode MediaDesk reads is made up (0o666 for any file, 0o777 for any folder)
and says nothing of who may read it; a folder under the user's profile is private by the ACL it passes
on to what is created in it. So on Windows every mode and owner check here is skipped (a private file
is "private", no folder is "open to all", every file is "ours"), and setting a mode only sets what
chmod can set there (the read-only flag). The ``mode_bits`` parameters name that choice; the default
is this machine's.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

import platformdirs

__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "MODE_BITS",
    "O_BINARY",
    "current_uid",
    "fchmod",
    "is_private",
    "mode_text",
    "open_binary_readonly",
    "open_to_all",
    "owned_by_us",
    "read_only_fs",
    "user_name",
    "user_runtime_dir",
]

FILE_MODE = 0o600
DIR_MODE = 0o700
#: True where privacy is a matter of mode bits (POSIX), False where it is the inherited ACL (Windows).
MODE_BITS: bool = sys.platform != "win32"
#: Windows opens descriptors in text mode (CRLF translation, Ctrl+Z as end of file) unless told otherwise.
O_BINARY: int = getattr(os, "O_BINARY", 0)
_O_CLOEXEC: int = getattr(os, "O_CLOEXEC", 0)


def is_private(st: os.stat_result, *, mode_bits: bool = MODE_BITS) -> bool:
    """No permission bit for group or others. Always true on Windows (see the module doc: the ACL, not
    the made-up mode, decides there)."""
    return not mode_bits or not st.st_mode & 0o077


def open_to_all(st: os.stat_result, *, mode_bits: bool = MODE_BITS) -> bool:
    """Every user of the machine may write it (a shared ``/tmp``-like folder). Never on Windows, where
    every folder reads as 0o777 whatever its ACL says."""
    return mode_bits and bool(st.st_mode & stat.S_IWOTH)


def mode_text(st: os.stat_result) -> str:
    """The permission bits as an operator reads them (``0644``), for messages."""
    return f"{stat.S_IMODE(st.st_mode):04o}"


def fchmod(fd: int, mode: int, path: str | os.PathLike[str] | None = None) -> None:
    """Set the mode of the open ``fd``. Windows has no ``os.fchmod`` before Python 3.13: there ``path``
    (the same file) is chmod-ed instead, which only sets or clears its read-only flag; without a path
    nothing is done."""
    if sys.platform == "win32":
        if path is not None:
            os.chmod(path, mode)
        return
    os.fchmod(fd, mode)


def current_uid() -> int | None:
    """The effective user id; None on Windows, where files have no owner uid."""
    if sys.platform == "win32":
        return None
    return os.geteuid()


def owned_by_us(st: os.stat_result) -> bool:
    """The file belongs to the user MediaDesk runs as (always true on Windows: no owner uid)."""
    uid = current_uid()
    return uid is None or st.st_uid == uid


def user_name(uid: int) -> str | None:
    """The login name of ``uid``; None when unknown (or on Windows)."""
    if sys.platform == "win32":
        return None
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return None


def open_binary_readonly(path: str | os.PathLike[str], flags: int = 0) -> int:
    """A read-only descriptor on ``path`` that reads bytes as they are (``O_BINARY`` where it exists),
    not inherited by children; ``flags`` adds others (``O_NOFOLLOW``, ``O_NONBLOCK``)."""
    return os.open(path, os.O_RDONLY | O_BINARY | _O_CLOEXEC | flags)


def read_only_fs(path: str | os.PathLike[str]) -> bool:
    """True when the file system holding ``path`` is mounted read-only (POSIX ``statvfs``); False when
    that cannot be told (Windows, or ``path`` unreadable)."""
    if sys.platform == "win32":
        return False
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def user_runtime_dir(app: str) -> Path:
    """The user's runtime dir for ``app`` (not created): ``$XDG_RUNTIME_DIR/<app>`` on Linux, else
    ``<tmp>/<app>-<uid>`` there (platformdirs would warn and pick ``/tmp/runtime-<uid>``: we name our own
    fallback instead); what platformdirs names on macOS and Windows (under the user's own folders)."""
    if sys.platform == "linux" and not os.environ.get("XDG_RUNTIME_DIR"):
        return Path(tempfile.gettempdir()) / f"{app}-{os.getuid()}"
    return Path(platformdirs.user_runtime_dir(app, appauthor=False))
