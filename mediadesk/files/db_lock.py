"""One scheduler per database: a kernel file lock next to the database file (``<db>.lock``).

The lock is released by the kernel when its holder dies (even on SIGKILL), so a free lock at start-up
*proves* that tasks left ``running`` have no live owner and can be recovered at once.
"""

from __future__ import annotations

from pathlib import Path

from mediadesk.files.locks import LockHeldError, OwnedFileLock


class DatabaseBusyError(LockHeldError):
    """Another live process runs a scheduler on this database."""


class DatabaseLock(OwnedFileLock):
    def __init__(self, db_path: Path) -> None:
        self.db_path = Path(db_path)
        super().__init__(self.db_path.with_name(self.db_path.name + ".lock"), f"database {self.db_path}")

    @property
    def lock_path(self) -> Path:
        return self.path

    def _held_error(self, holder: tuple[int, str] | None) -> DatabaseBusyError:
        who = f"MediaDesk process {holder[0]} ({holder[1]})" if holder is not None else "another MediaDesk process"
        return DatabaseBusyError(
            f"{self.db_path} is in use by {who}. Only one scheduler may run on a database at a time: "
            f"close the other window or run, or pass another --db.",
            lock_path=self.path,
            holder_pid=holder[0] if holder is not None else None,
        )
