"""Web lane: owned Chromium processes (finder, launcher), account/instance locks, the pre-launch self-check,
and (in ``adapter``/``driver``) the page driving. One browser per account, one task per account at a time.
Every error it raises is a :class:`WebLaneError` (``errors``) whose kind decides the retry.
"""

from __future__ import annotations

from mediadesk.providers.web._proctree import EndReport, ProcInfo
from mediadesk.providers.web.errors import (
    AccountLockedError,
    AdapterMismatch,
    BadPrompt,
    BrowserNotFoundError,
    BrowserStartError,
    InstanceLockedError,
    LockHeldError,
    NeedsLogin,
    PageGone,
    ProfileInUseError,
    RunCanceled,
    RunTimeout,
    SiteError,
    WebLaneError,
)
from mediadesk.providers.web.finder import (
    BrowserInfo,
    browser_version,
    chromium_flags,
    find_browser,
    playwright_chromium_path,
)
from mediadesk.providers.web.launcher import (
    CloseReport,
    OwnedBrowser,
    read_devtools_port,
    spawn_chromium,
)
from mediadesk.providers.web.profile_lock import (
    AccountLock,
    InstanceLock,
    account_lock_path,
    default_lock_dir,
    is_account_lock_free,
)
from mediadesk.providers.web.selfcheck import (
    BrowserRecord,
    SelfCheckResult,
    find_our_residue,
    find_profile_processes,
    read_browser_record,
    read_singleton_lock,
    self_check,
    singleton_holder,
)

__all__ = [
    "AccountLock",
    "AccountLockedError",
    "AdapterMismatch",
    "BadPrompt",
    "BrowserInfo",
    "BrowserNotFoundError",
    "BrowserRecord",
    "BrowserStartError",
    "CloseReport",
    "EndReport",
    "InstanceLock",
    "InstanceLockedError",
    "LockHeldError",
    "NeedsLogin",
    "OwnedBrowser",
    "PageGone",
    "ProcInfo",
    "ProfileInUseError",
    "RunCanceled",
    "RunTimeout",
    "SelfCheckResult",
    "SiteError",
    "WebLaneError",
    "account_lock_path",
    "browser_version",
    "chromium_flags",
    "default_lock_dir",
    "find_browser",
    "find_our_residue",
    "find_profile_processes",
    "is_account_lock_free",
    "playwright_chromium_path",
    "read_browser_record",
    "read_devtools_port",
    "read_singleton_lock",
    "self_check",
    "singleton_holder",
    "spawn_chromium",
]
