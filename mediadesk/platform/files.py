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
from collections.abc import Mapping
from pathlib import Path

import platformdirs

__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "MODE_BITS",
    "O_BINARY",
    "being_written",
    "current_uid",
    "fchmod",
    "is_private",
    "mode_text",
    "open_binary_readonly",
    "open_to_all",
    "outside_user_profile",
    "owned_by_us",
    "private_acl_command",
    "read_only_fs",
    "restrict_folder",
    "user_name",
    "user_runtime_dir",
]

FILE_MODE = 0o600
DIR_MODE = 0o700
#: True where privacy is a matter of mode bits (POSIX), False where it is the inherited ACL (Windows): with
#: False, modes and owners are not checked and ``fchmod`` takes Windows' way. Read at each call (a test
#: layer sets it to run Windows' way here).
MODE_BITS: bool = sys.platform != "win32"
#: Windows opens descriptors in text mode (CRLF translation, Ctrl+Z as end of file) unless told otherwise.
O_BINARY: int = getattr(os, "O_BINARY", 0)
_O_CLOEXEC: int = getattr(os, "O_CLOEXEC", 0)


def is_private(st: os.stat_result, *, mode_bits: bool | None = None) -> bool:
    """No permission bit for group or others. Always true on Windows (see the module doc: the ACL, not
    the made-up mode, decides there)."""
    return not (MODE_BITS if mode_bits is None else mode_bits) or not st.st_mode & 0o077


def open_to_all(st: os.stat_result, *, mode_bits: bool | None = None) -> bool:
    """Every user of the machine may write it (a shared ``/tmp``-like folder). Never on Windows, where
    every folder reads as 0o777 whatever its ACL says."""
    return (MODE_BITS if mode_bits is None else mode_bits) and bool(st.st_mode & stat.S_IWOTH)


def outside_user_profile(path: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> bool:
    """Windows: ``path`` is not under the user's profile folder (``%USERPROFILE%``), so what is created
    there inherits another folder's ACL (a shared drive's, say) instead of the profile's private one."""
    profile = (os.environ if env is None else env).get("USERPROFILE", "")
    if not profile:
        return True
    here = os.path.normcase(os.path.abspath(os.fspath(path)))
    home = os.path.normcase(os.path.abspath(profile))
    return here != home and not here.startswith(home.rstrip("\\/") + os.sep)


def private_acl_command(path: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> list[str]:
    """The ``icacls`` call that makes a folder this user's alone on Windows: inheritance cut, full control
    for the user and for SYSTEM (``*S-1-5-18``), both inherited by what is created inside."""
    env = os.environ if env is None else env
    user = env.get("USERNAME", "")
    who = f"{env['USERDOMAIN']}\\{user}" if env.get("USERDOMAIN") else user
    return ["icacls", os.fspath(path), "/inheritance:r", "/grant:r", f"{who}:(OI)(CI)F",
            "/grant:r", "*S-1-5-18:(OI)(CI)F"]


def restrict_folder(path: str | os.PathLike[str]) -> None:
    """Make a folder MediaDesk just created private where its mode cannot: on Windows, one outside the
    user's profile gets an ACL of the user's alone (:func:`private_acl_command`); under the profile, the
    inherited ACL already is. Nothing to do on POSIX, where the mode (0700) does it."""
    if sys.platform == "win32" and outside_user_profile(path):
        import subprocess

        done = subprocess.run(private_acl_command(path), capture_output=True, text=True, check=False,
                              creationflags=subprocess.CREATE_NO_WINDOW)
        if done.returncode != 0:
            raise PermissionError(f"could not make {os.fspath(path)} private (icacls: "
                                  f"{(done.stderr or done.stdout).strip()[:200]})")


def mode_text(st: os.stat_result) -> str:
    """The permission bits as an operator reads them (``0644``), for messages."""
    return f"{stat.S_IMODE(st.st_mode):04o}"


def fchmod(fd: int, mode: int, path: str | os.PathLike[str] | None = None) -> None:
    """Set the mode of the open ``fd``. Windows has no ``os.fchmod`` before Python 3.13: there ``path``
    (the same file) is chmod-ed instead, which only sets or clears its read-only flag; without a path
    nothing is done."""
    if sys.platform == "win32" or not MODE_BITS:
        if path is not None:
            os.chmod(path, mode)
        return
    os.fchmod(fd, mode)


def current_uid() -> int | None:
    """The effective user id; None on Windows, where files have no owner uid."""
    if sys.platform == "win32" or not MODE_BITS:
        return None
    return os.geteuid()


def owned_by_us(st: os.stat_result) -> bool:
    """The file belongs to the user MediaDesk runs as (always true on Windows: no owner uid)."""
    uid = current_uid()
    return uid is None or st.st_uid == uid


def user_name(uid: int) -> str | None:
    """The login name of ``uid``; None when unknown (or on Windows)."""
    if sys.platform == "win32" or not MODE_BITS:
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


def being_written(path: str | os.PathLike[str]) -> bool:
    """True while a program (this one included) may still be writing ``path``. Windows: a read open that
    denies others the right to write fails (a sharing violation) while any handle has it open for
    writing. POSIX has no such lock: an exclusive ``flock`` held by a writer that takes one, or a
    descriptor open for writing in a process we may look at (psutil; where the system does not say a
    descriptor's mode, as on macOS, any descriptor open on it counts). A file that cannot be looked at
    (gone, no permission) reads as not written: opening it then says why."""
    if sys.platform == "win32":
        return _share_mode_refused(os.fspath(path))
    else:
        return _flock_held(os.fspath(path)) or _open_for_writing(os.path.realpath(path))


if sys.platform == "win32":
    def _share_mode_refused(path: str) -> bool:
        import ctypes
        from ctypes import wintypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        create = kernel32.CreateFileW
        create.argtypes = (wintypes.LPCWSTR, wintypes.DWORD, wintypes.DWORD, ctypes.c_void_p, wintypes.DWORD,
                           wintypes.DWORD, wintypes.HANDLE)
        create.restype = wintypes.HANDLE
        generic_read, file_share_read, open_existing = 0x80000000, 0x1, 3
        handle = create(path, generic_read, file_share_read, None, open_existing, 0, None)
        if handle is None or handle == ctypes.c_void_p(-1).value:  # INVALID_HANDLE_VALUE
            return ctypes.get_last_error() in (32, 33)  # ERROR_SHARING_VIOLATION, ERROR_LOCK_VIOLATION
        kernel32.CloseHandle(handle)
        return False
else:
    def _flock_held(path: str) -> bool:
        import fcntl

        try:
            fd = os.open(path, os.O_RDONLY | _O_CLOEXEC | getattr(os, "O_NONBLOCK", 0))
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:  # a file system without flock
            return False
        finally:
            os.close(fd)  # also drops our own lock
        return False

    def _open_for_writing(real: str) -> bool:
        import psutil

        for proc in psutil.process_iter():
            try:
                files = proc.open_files()
            except (psutil.Error, OSError):  # another user's process, or gone meanwhile
                continue
            for f in files:
                if f.path == real and getattr(f, "mode", "w") != "r":
                    return True
        return False


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
