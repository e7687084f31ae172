"""Every file and directory MediaDesk creates is private and is never reached through a planted link.

Workspaces hold prompts, results and cookies, and may sit in directories others can write, where a
planted symlink would redirect our writes. So, whatever the umask: new files are ``O_EXCL |
O_NOFOLLOW`` and 0600; rewrites go to a private temp file renamed over the target (a link there is
refused); our directories are 0700, and a symlink or another user's directory in their place is
refused. On Windows the modes are left to the ACL a folder under the user's profile passes on
(:mod:`mediadesk.platform.files`). Imports only :mod:`mediadesk.platform`, so every layer can use it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

from mediadesk.platform.files import (
    DIR_MODE,
    FILE_MODE,
    O_BINARY,
    fchmod,
    is_private,
    mode_text,
    open_to_all,
    owned_by_us,
    restrict_folder,
)

__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "O_NOFOLLOW",
    "UnsafePathError",
    "create_private_file",
    "ensure_private_dir",
    "open_private_for_writing",
    "refuse_symlink",
    "tighten_file",
    "write_private_file",
]

O_NOFOLLOW: int = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC: int = getattr(os, "O_CLOEXEC", 0)
_O_DIRECTORY: int = getattr(os, "O_DIRECTORY", 0)
_O_NONBLOCK: int = getattr(os, "O_NONBLOCK", 0)


class UnsafePathError(Exception):
    """A path where MediaDesk keeps a file or directory is a symbolic link, not what it should be, or
    belongs to another user. The message names the path and what to do."""

    def __init__(self, path: Path, why: str, hint: str = "") -> None:
        self.path = Path(path)
        super().__init__(f"{path} {why}" + (f". {hint}" if hint else ""))

    @classmethod
    def symlink(cls, path: Path, what: str = "file") -> UnsafePathError:
        try:
            target = f" (to {os.readlink(path)})"
        except OSError:
            target = ""
        return cls(
            path, f"is a symbolic link{target}, and MediaDesk never uses a {what} of its own through a link",
            f"If you did not create it, someone else may have: remove it (rm {str(path)!r}) or choose another path",
        )


def refuse_symlink(path: Path, what: str = "file") -> None:
    """Raise :class:`UnsafePathError` when ``path`` is a symbolic link (dangling or not)."""
    if os.path.islink(path):
        raise UnsafePathError.symlink(Path(path), what)


def create_private_file(path: Path) -> int:
    """Create ``path``, which must not exist (nor be a link), mode 0600; return a write-only fd.

    Raises ``FileExistsError`` when anything (a file, a link, a dangling link) is already there.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_NOFOLLOW | _O_CLOEXEC | O_BINARY, FILE_MODE)
    try:
        fchmod(fd, FILE_MODE, path)  # the umask may have removed bits (or a mode-0 umask added none)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_private_for_writing(path: Path, what: str = "file") -> int:
    """Open ``path`` for writing from its start (created 0600 if missing, truncated if there); a symlink
    there is refused, never followed. For files we rewrite in place (a browser's log)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | O_NOFOLLOW | _O_CLOEXEC | O_BINARY, FILE_MODE)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePathError.symlink(Path(path), what) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafePathError(Path(path), "is not a regular file")
        fchmod(fd, FILE_MODE, path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_private_file(path: Path, data: bytes | str, what: str = "file") -> None:
    """Replace the content of ``path`` atomically with a private (0600) file.

    A symlink at ``path`` is refused (:class:`UnsafePathError`); one planted between the check and the
    rename is replaced, never followed.
    """
    path = Path(path)
    refuse_symlink(path, what)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = create_private_file(tmp)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def tighten_file(path: Path, what: str = "file") -> None:
    """Make an existing file of ours 0600 (files written by older versions were 0644). Missing: no-op.
    A link is refused; a file of another user or on a read-only file system is left as it is."""
    try:
        fd = os.open(path, os.O_RDONLY | O_NOFOLLOW | _O_CLOEXEC | _O_NONBLOCK)
    except FileNotFoundError:
        return
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePathError.symlink(Path(path), what) from None
        if exc.errno in (errno.EACCES, errno.EPERM):
            return
        raise
    try:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode) and not is_private(st) and owned_by_us(st):
            with contextlib.suppress(PermissionError):
                try:
                    fchmod(fd, FILE_MODE, path)
                except OSError as exc:
                    if exc.errno != errno.EROFS:
                        raise
    finally:
        os.close(fd)


def ensure_private_dir(
    path: Path, *, ours: bool = True, tighten: bool = True, what: str = "directory", user_chosen: bool = False
) -> Path:
    """Create ``path`` and any missing parents, each 0700 whatever the umask; return ``path``.

    ``ours`` (a directory MediaDesk keeps: the data dir, ``profiles/``, ``evidence/``, a profile): it must
    be a real directory (not a link) owned by this user, else :class:`UnsafePathError`; an existing one is
    tightened to 0700 unless ``tighten`` is false. ``ours=False`` (the folder a ``--db`` goes to): an
    existing one is used as it is. ``user_chosen`` (a path from the config, e.g. an account's
    ``profile_dir``, which may name any folder): only what this call creates is made 0700; an existing
    folder is never chmod-ed, and one every user may write (a shared ``/tmp``-like folder, mode 1777) is
    refused, as MediaDesk would fill it with private files. On Windows no mode is checked: every folder
    reads as 0777 there, and one under the user's profile is private by its inherited ACL.
    """
    path = Path(path)
    missing: list[Path] = []
    probe = path
    while not os.path.lexists(probe) and probe.parent != probe:
        missing.append(probe)
        probe = probe.parent
    created = False
    for d in reversed(missing):
        try:
            os.mkdir(d, DIR_MODE)
        except FileExistsError:
            continue  # made meanwhile by another thread or process: checked below like any existing one
        _chmod_dir(d)
        created = created or d == path
    if not ours:
        if not path.is_dir():
            raise UnsafePathError(path, "is not a directory", "Choose a folder path")
        return path
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise UnsafePathError(path, "disappeared while MediaDesk was creating it") from None
    if stat.S_ISLNK(st.st_mode):
        raise UnsafePathError.symlink(path, what)
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafePathError(path, f"is not a directory, and MediaDesk keeps a {what} there",
                              "Move it away or choose another path")
    if not owned_by_us(st):
        raise UnsafePathError(
            path, f"belongs to another user (uid {st.st_uid}), and MediaDesk keeps private files there",
            "Use a folder of your own",
        )
    if user_chosen and not created and open_to_all(st):
        raise UnsafePathError(
            path, f"is a folder every user of this machine may write (mode {mode_text(st)}), and "
            f"MediaDesk keeps a private {what} there (cookies, sessions): it is left as it is",
            "Name a folder of your own that does not exist yet (MediaDesk creates it 0700), e.g. one inside "
            "the data dir",
        )
    if user_chosen and not created:
        return path  # the user's folder: checked, never chmod-ed
    if tighten and not is_private(st):
        try:
            _chmod_dir(path)
        except OSError as exc:
            if exc.errno != errno.EROFS:  # a read-only disk: nothing will be written there anyway
                raise
    return path


def _chmod_dir(path: Path) -> None:
    """chmod 0700 through a descriptor opened without following links (by path where there is no
    ``O_DIRECTORY``: Windows)."""
    if not _O_DIRECTORY:
        os.chmod(path, DIR_MODE)
        restrict_folder(path)  # Windows: the ACL a mode cannot set, for a folder outside the user's profile
        return
    try:
        fd = os.open(path, os.O_RDONLY | _O_DIRECTORY | O_NOFOLLOW | _O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePathError.symlink(Path(path), "directory") from None
        raise
    try:
        fchmod(fd, DIR_MODE, path)
    finally:
        os.close(fd)
