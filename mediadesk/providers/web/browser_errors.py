"""Errors of the process-level web lane (finding, launching, locking browsers).

Each carries the ``ErrorKind`` the lane should record, so a backend can turn any of them into a
``TaskFailure`` without a lookup table: a missing browser is a config problem, a profile held by someone
else is ``profile_in_use`` (not retried blindly), a browser that died while starting is a crash (retryable).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mediadesk import locking
from mediadesk.core.errors import ErrorKind
from mediadesk.providers.web._proctree import ProcInfo


class WebLaneError(Exception):
    """Base class; ``kind`` is what the task row should say."""

    kind: ErrorKind = ErrorKind.INTERNAL


class BrowserNotFoundError(WebLaneError):
    """No usable Chromium: the message says which paths were tried and how to install one."""

    kind = ErrorKind.CONFIG


class BrowserStartError(WebLaneError):
    """Chromium did not come up (exited early, never wrote DevToolsActivePort, CDP connect failed)."""

    kind = ErrorKind.BROWSER_CRASH


class ProfileInUseError(WebLaneError):
    """Another process holds the profile directory. ``holders`` names it when it could be found."""

    kind = ErrorKind.PROFILE_IN_USE

    def __init__(
        self,
        profile_dir: Path,
        holders: Sequence[ProcInfo] = (),
        *,
        exit_code: int | None = None,
        detail: str = "",
    ) -> None:
        self.profile_dir = profile_dir
        self.holders = list(holders)
        self.exit_code = exit_code
        if self.holders:
            who = ", ".join(h.describe() for h in self.holders)
            msg = f"profile {profile_dir} is in use by {who}; close it or wait"
        else:
            msg = f"profile {profile_dir} is in use by another browser process (holder not found)"
        if exit_code is not None:
            msg += f" [chromium exit code {exit_code}]"
        if detail:
            msg += f"; {detail}"
        super().__init__(msg)

    @property
    def holder(self) -> ProcInfo | None:
        return self.holders[0] if self.holders else None


class LockHeldError(WebLaneError, locking.LockHeldError):
    """An on-disk lock (account or instance) is held by another process or lock object."""

    kind = ErrorKind.PROFILE_IN_USE


class AccountLockedError(LockHeldError):
    """The account's lock file is held: another lane, process or MediaDesk drives that profile."""


class InstanceLockedError(LockHeldError):
    """Another MediaDesk already runs on this data directory."""

    kind = ErrorKind.CONFIG
