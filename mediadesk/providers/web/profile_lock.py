"""On-disk exclusivity: one driver per account profile, one MediaDesk per data directory.

Why on disk: an in-process ``asyncio.Lock`` cannot see a second window, a ``mediadesk run`` in a terminal,
or a stale process from a crash. Both are :class:`mediadesk.files.locks.OwnedFileLock`: a kernel lock the
kernel drops when its holder dies (even by SIGKILL), plus an owner record that names a live holder.
"""

from __future__ import annotations

import getpass
import hashlib
import re
from pathlib import Path

from mediadesk.files.locks import OwnedFileLock, describe_holder
from mediadesk.files.safe import ensure_private_dir
from mediadesk.platform.files import user_runtime_dir
from mediadesk.providers.web.errors import AccountLockedError, InstanceLockedError

_SLUG_RE = re.compile(r"[^A-Za-z0-9._-]+")


def default_lock_dir() -> Path:
    """The per-user runtime dir (:func:`mediadesk.platform.files.user_runtime_dir`), mode 0700.

    Note that two processes only exclude each other when they resolve the same directory: pass ``lock_dir``
    explicitly when environments may differ (e.g. a GUI session and a cron job).
    """
    path = user_runtime_dir("mediadesk")
    _ensure_private_dir(path)
    return path


def _ensure_private_dir(path: Path) -> None:
    """0700 (created or tightened) whatever the umask; a link or another user's directory is refused."""
    ensure_private_dir(path, what="lock directory")


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


class AccountLock(OwnedFileLock):
    """The on-disk half of "one running task per account". The in-process asyncio lock is the lane's."""

    def __init__(self, account_id: str, profile_dir: Path, lock_dir: Path | None = None) -> None:
        self.account_id = account_id
        self.profile_dir = Path(profile_dir)
        super().__init__(account_lock_path(account_id, self.profile_dir, lock_dir), f"account {account_id}")

    def _held_error(self, holder: tuple[int, str] | None) -> AccountLockedError:
        return AccountLockedError(
            f"account {self.account_id} is in use by {describe_holder(holder)} (lock {self.path})",
            lock_path=self.path,
            holder_pid=holder[0] if holder is not None else None,
        )


def is_account_lock_free(account_id: str, profile_dir: Path, lock_dir: Path | None = None) -> bool:
    """Probe: acquire and release at once. A concurrent acquirer may lose its race against the probe."""
    probe = AccountLock(account_id, profile_dir, lock_dir)
    if probe.try_acquire():
        probe.release()
        return True
    return False


class InstanceLock(OwnedFileLock):
    """One MediaDesk process per data directory: its browser profiles can have one driver only, whichever
    database each process uses.

    The lock lives in the data dir itself, so it holds whatever the environment says about runtime dirs.
    """

    FILE_NAME = "mediadesk.instance.lock"

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        super().__init__(self.data_dir / self.FILE_NAME, f"data dir {self.data_dir}")

    def _held_error(self, holder: tuple[int, str] | None) -> InstanceLockedError:
        return InstanceLockedError(
            f"MediaDesk is already running on data directory {self.data_dir} ({describe_holder(holder)}). "
            "The browser profiles under it can be driven by one MediaDesk at a time, whichever database it uses: "
            "close that instance first, or start with another --data-dir.",
            lock_path=self.path,
            holder_pid=holder[0] if holder is not None else None,
        )
