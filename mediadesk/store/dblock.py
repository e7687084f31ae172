"""One scheduler per database: an OS file lock next to the database file.

The lock is released by the kernel when its holder dies (even on SIGKILL), so a free lock at
start-up *proves* that tasks left ``running`` have no live owner and can be recovered at once.
"""

from __future__ import annotations

import os
from pathlib import Path

import filelock
import psutil


class DatabaseBusyError(Exception):
    """Another live process runs a scheduler on this database."""


class DatabaseLock:
    def __init__(self, db_path: Path) -> None:
        self.db_path = Path(db_path)
        self.lock_path = self.db_path.with_name(self.db_path.name + ".lock")
        self.owner_path = self.db_path.with_name(self.db_path.name + ".owner")
        self._lock = filelock.FileLock(str(self.lock_path))

    @property
    def held(self) -> bool:
        return self._lock.is_locked

    def acquire(self) -> None:
        try:
            self._lock.acquire(timeout=0)
        except filelock.Timeout:
            raise DatabaseBusyError(self._busy_message()) from None
        # filelock may truncate its own file: the owner's pid goes in a sidecar.
        self.owner_path.write_text(f"{os.getpid()}\n", encoding="utf-8")

    def release(self) -> None:
        if self._lock.is_locked:
            try:
                self.owner_path.unlink(missing_ok=True)
            except OSError:
                pass
            self._lock.release()

    def _busy_message(self) -> str:
        pid: int | None = None
        try:
            pid = int(self.owner_path.read_text(encoding="utf-8").split()[0])
        except (OSError, ValueError, IndexError):
            pass
        who = "another MediaDesk process"
        if pid is not None:
            try:
                who = f"MediaDesk process {pid} ({psutil.Process(pid).name()})"
            except psutil.Error:
                who = f"MediaDesk process {pid}"
        return (
            f"{self.db_path} is in use by {who}. Only one scheduler may run on a database at a time: "
            f"close the other window or run, or pass another --db."
        )
