"""On-disk exclusivity: one driver per account profile, one MediaDesk per data directory.

Why on disk: an in-process ``asyncio.Lock`` cannot see a second window, a ``mediadesk run`` in a terminal,
or a stale process from a crash. ``flock`` (via filelock) is released by the kernel when its holder dies,
even by SIGKILL, so a crash never leaves an account locked. The holder's pid is written to a sidecar
``<lock>.owner`` file after acquiring: the lock file itself is filelock's business, and its content is not
ours to rely on. The sidecar is only advisory (it can be stale): whether a lock is held is decided by the
lock, and a pid from the sidecar is only reported when that process is still alive.

Lock objects are not thread-bound (``thread_local=False``): the lead may acquire on the event loop and
release from a worker thread, or the other way round.
"""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import json
import os
import re
import socket
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

import filelock
import platformdirs
import psutil

from mediadesk.providers.web.errors import AccountLockedError, InstanceLockedError

_SLUG_RE = re.compile(r"[^A-Za-z0-9._-]+")


def default_lock_dir() -> Path:
    """The per-user runtime dir (``$XDG_RUNTIME_DIR/mediadesk``), else ``<tmp>/mediadesk-<uid>``, mode 0700.

    Without ``XDG_RUNTIME_DIR`` platformdirs would warn and pick ``/tmp/runtime-<uid>``; we choose our own
    fallback explicitly instead. Note that two processes only exclude each other when they resolve the same
    directory: pass ``lock_dir`` explicitly when environments may differ (e.g. a GUI session and a cron job).
    """
    if sys.platform.startswith("linux") and not os.environ.get("XDG_RUNTIME_DIR"):
        uid = os.getuid()
        path = Path(tempfile.gettempdir()) / f"mediadesk-{uid}"
    else:
        path = Path(platformdirs.user_runtime_dir("mediadesk", appauthor=False))
    _ensure_private_dir(path)
    return path


def _ensure_private_dir(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if hasattr(os, "getuid"):
        st = path.lstat()
        if path.is_symlink() or st.st_uid != os.getuid():
            raise PermissionError(f"lock directory {path} is not a directory owned by this user; refusing it")


def _slug(text: str, limit: int = 40) -> str:
    slug = _SLUG_RE.sub("-", text).strip("-.")[:limit]
    return slug or "account"


def account_lock_path(account_id: str, profile_dir: Path, lock_dir: Path | None = None) -> Path:
    """Lock file of one account: the hash binds OS user, account id and the resolved profile directory, so
    two accounts never share a lock and two users never collide in a shared temp dir."""
    resolved = str(Path(profile_dir).expanduser().resolve())
    digest = hashlib.sha256(
        "\0".join((getpass.getuser(), account_id, resolved)).encode("utf-8")
    ).hexdigest()[:16]
    directory = lock_dir if lock_dir is not None else default_lock_dir()
    if lock_dir is not None:
        _ensure_private_dir(directory)
    return directory / f"mediadesk-acct-{_slug(account_id)}-{digest}.lock"


def _pid_alive(pid: int, create_time: float | None) -> bool:
    """Alive, and (when we know its start time) still the same process, not a reused pid."""
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return False
        return create_time is None or abs(proc.create_time() - create_time) < 0.5
    except psutil.Error:
        return False


class _PidFileLock:
    """filelock (``flock``) with a sidecar naming the holder; never blocks."""

    def __init__(self, path: Path, label: str) -> None:
        self._path = Path(path)
        self._label = label
        self._lock = filelock.FileLock(str(self._path), timeout=0, thread_local=False, mode=0o600)
        self._held = False

    @property
    def path(self) -> Path:
        return self._path

    @property
    def owner_path(self) -> Path:
        return self._path.with_name(self._path.name + ".owner")

    @property
    def held(self) -> bool:
        """True while THIS object holds the lock."""
        return self._held

    def try_acquire(self) -> bool:
        """Take the lock now or return False; never waits. Idempotent for the holding object."""
        if self._held:
            return True
        try:
            self._lock.acquire(timeout=0)
        except filelock.Timeout:
            return False
        self._held = True
        try:
            self._write_owner()
        except OSError:
            pass  # the lock itself is what excludes; the sidecar only names us
        return True

    def release(self) -> None:
        if not self._held:
            return
        with contextlib.suppress(OSError):
            if self._read_owner_pid() == os.getpid():
                self.owner_path.unlink()
        self._lock.release(force=True)
        self._held = False

    def holder_pid(self) -> int | None:
        """Pid named by the sidecar when that process still lives (ours when we hold it), else None."""
        if self._held:
            return os.getpid()
        try:
            data = json.loads(self.owner_path.read_text(encoding="utf-8"))
            pid = int(data["pid"])
            created = data.get("create_time")
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return pid if _pid_alive(pid, float(created) if created is not None else None) else None

    def _read_owner_pid(self) -> int | None:
        try:
            return int(json.loads(self.owner_path.read_text(encoding="utf-8"))["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _write_owner(self) -> None:
        try:
            created: float | None = psutil.Process().create_time()
        except psutil.Error:
            created = None
        record = {
            "pid": os.getpid(),
            "create_time": created,
            "host": socket.gethostname(),
            "label": self._label,
            "acquired_at": time.time(),
        }
        tmp = self.owner_path.with_name(f"{self.owner_path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(record, fh)
        os.replace(tmp, self.owner_path)


class AccountLock(_PidFileLock):
    """The on-disk half of "one running task per account". The in-process asyncio lock is the lane's."""

    def __init__(self, account_id: str, profile_dir: Path, lock_dir: Path | None = None) -> None:
        self.account_id = account_id
        self.profile_dir = Path(profile_dir)
        super().__init__(account_lock_path(account_id, self.profile_dir, lock_dir), f"account {account_id}")

    def __enter__(self) -> AccountLock:
        if not self.try_acquire():
            pid = self.holder_pid()
            who = f"pid {pid}" if pid is not None else "another process (pid unknown)"
            raise AccountLockedError(
                f"account {self.account_id} is in use by {who} (lock {self.path})",
                lock_path=self.path,
                holder_pid=pid,
            )
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"AccountLock({self.account_id!r}, held={self.held}, path={str(self.path)!r})"


def is_account_lock_free(account_id: str, profile_dir: Path, lock_dir: Path | None = None) -> bool:
    """Probe: acquire and release at once. A concurrent acquirer may lose its race against the probe."""
    probe = AccountLock(account_id, profile_dir, lock_dir)
    if probe.try_acquire():
        probe.release()
        return True
    return False


class InstanceLock(_PidFileLock):
    """One MediaDesk process per data directory (guards the DB, the profiles and the logs).

    The lock lives in the data dir itself, so it holds whatever the environment says about runtime dirs.
    """

    FILE_NAME = "mediadesk.instance.lock"

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        super().__init__(self.data_dir / self.FILE_NAME, f"data dir {self.data_dir}")

    def acquire(self) -> None:
        """Take the lock or raise ``InstanceLockedError`` naming the other process and the data dir."""
        self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        if self.try_acquire():
            return
        pid = self.holder_pid()
        who = f"pid {pid}" if pid is not None else "another process (pid unknown)"
        raise InstanceLockedError(
            f"MediaDesk is already running on data directory {self.data_dir} ({who}). "
            "Close that instance first, or start with another data directory.",
            lock_path=self.path,
            holder_pid=pid,
        )

    def __enter__(self) -> InstanceLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
