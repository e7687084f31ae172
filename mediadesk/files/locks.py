"""One kernel file lock that names its holder: the primitive behind "one scheduler per database",
"one MediaDesk per data directory" and "one driver per browser profile".

A kernel lock (``flock`` via filelock) dies with its holder, even on SIGKILL, so a free lock proves no
live holder. A sidecar ``<lock>.owner`` (pid, start time, host, label) only names the holder, trusted
when that pid is alive and started at the recorded time (pids are reused). Lock files may sit in
shared directories: symlinks are refused, and everything created is private (0600 / 0700). Lock
objects are not thread-bound: one thread may acquire, another release.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import socket
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import filelock
import psutil

from mediadesk.files.safe import FILE_MODE, O_NOFOLLOW, create_private_file, ensure_private_dir
from mediadesk.platform.processes import process_started

__all__ = [
    "LockError",
    "LockHeldError",
    "OwnedFileLock",
    "UnsafeLockPathError",
    "describe_holder",
]

_O_NOFOLLOW = O_NOFOLLOW
#: A recorded start time within this of the live process's is the same process (float rounding only).
_SAME_START_S = 0.5


class LockError(Exception):
    """A lock could not be taken. Entry points catch this one type to report any lock problem plainly."""


class LockHeldError(LockError):
    """Another live process, or another lock object in this process, holds the lock.

    Users subclass it for their own wording and type (``DatabaseBusyError``, ``AccountLockedError``...).
    """

    def __init__(self, message: str, *, lock_path: Path, holder_pid: int | None) -> None:
        super().__init__(message)
        self.lock_path = lock_path
        self.holder_pid = holder_pid


class UnsafeLockPathError(LockError):
    """A symlink sits where a lock or owner file belongs. Following it would let whoever planted it make us
    truncate or overwrite the file it points to, so we stop instead."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"{path} is a symbolic link, and lock files are never used through links. "
            f"If you did not create it, someone else may have: remove it (rm {str(path)!r}) and start again."
        )
        self.path = path


def describe_holder(holder: tuple[int, str] | None) -> str:
    """``pid 1234 (python3)``, or a phrase saying the holder is unknown (no record, or a stale one)."""
    if holder is None:
        return "another process (pid unknown)"
    pid, name = holder
    return f"pid {pid} ({name})" if name else f"pid {pid}"


def _process_name(pid: int) -> str:
    try:
        return psutil.Process(pid).name()
    except psutil.Error:
        return ""


class OwnedFileLock:
    """A non-blocking kernel lock on ``path`` plus the owner record ``<path>.owner``.

    ``label`` says what the lock guards (``database /x/mediadesk.db``); it goes in the record and in the
    default error message. Subclasses override :meth:`_held_error` to raise their own ``LockHeldError``.
    """

    def __init__(self, path: Path, label: str) -> None:
        self.path = Path(path)
        self.owner_path = self.path.with_name(self.path.name + ".owner")
        self.label = label
        self._lock = filelock.FileLock(str(self.path), timeout=0, thread_local=False, mode=FILE_MODE)
        self._guard = threading.Lock()
        self._held = False

    @property
    def held(self) -> bool:
        """True while THIS object holds the lock."""
        return self._held

    def try_acquire(self) -> bool:
        """Take the lock now or return False; never waits. Idempotent for the holding object.

        Raises :class:`UnsafeLockPathError` when a symlink sits at the lock or owner path.
        """
        with self._guard:
            if self._held:
                return True
            _refuse_symlink(self.path)
            _refuse_symlink(self.owner_path)
            ensure_private_dir(self.path.parent, ours=False)  # what we create of it is 0700
            try:
                self._lock.acquire(timeout=0)
            except filelock.Timeout:
                return False
            except OSError as exc:
                if exc.errno == errno.ELOOP:  # a link planted after our check: O_NOFOLLOW refused it
                    raise UnsafeLockPathError(self.path) from None
                raise
            self._held = True
            try:
                self._write_owner()
            except UnsafeLockPathError:
                self._release_locked()
                raise
            except OSError:
                pass  # the kernel lock is what excludes; the record only names us
            return True

    def acquire(self) -> None:
        """Take the lock or raise the ``LockHeldError`` of :meth:`_held_error`, naming the holder."""
        if not self.try_acquire():
            raise self._held_error(self.holder())

    def release(self) -> None:
        """Drop the lock (and our owner record); a no-op when this object does not hold it."""
        with self._guard:
            if self._held:
                self._release_locked()

    def holder(self) -> tuple[int, str] | None:
        """``(pid, process name)`` of the holder, when the owner record names a live process on this host that
        started at the recorded time; ``None`` otherwise (no record, dead pid, reused pid, another host)."""
        if self._held:
            return os.getpid(), _process_name(os.getpid())
        record = self._read_owner()
        if record is None:
            return None
        try:
            pid = int(record["pid"])
            created = float(record["create_time"])
            host = str(record.get("host", ""))
        except (KeyError, TypeError, ValueError):
            return None
        if host and host != socket.gethostname():
            return None
        started = process_started(pid)  # None once it has exited: the kernel already dropped its lock
        if started is None or abs(started - created) > _SAME_START_S:
            return None
        return pid, _process_name(pid)

    def holder_pid(self) -> int | None:
        """The holder's pid per :meth:`holder` (ours while we hold it)."""
        found = self.holder()
        return found[0] if found is not None else None

    def _held_error(self, holder: tuple[int, str] | None) -> LockHeldError:
        """The error :meth:`acquire` raises when the lock is taken; subclasses give their own type and words."""
        return LockHeldError(
            f"{self.label} is in use by {describe_holder(holder)} (lock {self.path})",
            lock_path=self.path,
            holder_pid=holder[0] if holder is not None else None,
        )

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.label!r}, held={self._held}, path={str(self.path)!r})"

    # ------------------------------------------------------------------ owner record
    def _release_locked(self) -> None:
        # The record goes first: once the kernel lock is free, the record may already be the next holder's.
        with contextlib.suppress(OSError):
            record = self._read_owner()
            if record is not None and record.get("pid") == os.getpid():
                self.owner_path.unlink()
        self._lock.release(force=True)
        self._held = False

    def _read_owner(self) -> dict[str, Any] | None:
        try:
            fd = os.open(self.owner_path, os.O_RDONLY | _O_NOFOLLOW)
            with os.fdopen(fd, "r", encoding="utf-8") as fh:
                data = json.loads(fh.read(4096))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def _write_owner(self) -> None:
        """Write the record to a fresh private temp file beside it, then rename it into place: readers never
        see half a record, and a rename replaces a path without following what is there."""
        _refuse_symlink(self.owner_path)
        record = {
            "pid": os.getpid(),
            "create_time": process_started(os.getpid()),
            "host": socket.gethostname(),
            "label": self.label,
            "acquired_at": time.time(),
        }
        tmp = self.owner_path.with_name(f".{self.owner_path.name}.{secrets.token_hex(6)}.tmp")
        fd = create_private_file(tmp)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(record, fh)
            os.replace(tmp, self.owner_path)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise


def _refuse_symlink(path: Path) -> None:
    if path.is_symlink():
        raise UnsafeLockPathError(path)
