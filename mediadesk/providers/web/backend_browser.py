"""The account's own browser for :class:`~mediadesk.providers.web.backend.WebAccountBackend`: its state
(set up here), the owned Chromium and its page (started, replaced, killed, closed), the profile's
cookies kept, evidence of a failed attempt, and small wording helpers for the operator's messages."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from mediadesk.config.model import BrowserConfig
from mediadesk.core.backend import HealthStatus, RunContext, TaskSpec
from mediadesk.files.safe import ensure_private_dir
from mediadesk.providers.web.adapter import SiteAdapter
from mediadesk.providers.web.autologin import (
    CredentialSource,
    LoginCooldown,
)
from mediadesk.providers.web.driver import PageDriver
from mediadesk.providers.web.errors import (
    PROFILE_IN_USE_RETRY_S,
    ProfileInUseError,
)
from mediadesk.providers.web.finder import find_browser
from mediadesk.providers.web.launcher import OwnedBrowser
from mediadesk.providers.web.profile_lock import AccountLock
from mediadesk.providers.web.selfcheck import self_check
from mediadesk.providers.web.threads import ThreadBook

#: The backend's log: its parts report under the one name operators filter on.
log = logging.getLogger("mediadesk.providers.web.backend")


class _AccountBrowser:
    """The backend's state and its browser's lifecycle (the lower layer of ``WebAccountBackend``)."""

    def __init__(
        self,
        *,
        account: str,
        adapter: SiteAdapter,
        browser: BrowserConfig,
        profile_dir: Path,
        lock_dir: Path | None = None,
        kill_grace_s: float = 3.0,
        credentials: CredentialSource | None = None,
        login_cooldown_s: float = 600.0,
        evidence_dir: Path | None = None,
    ) -> None:
        self.account = account
        #: The account's own evidence folder (the screenshot of a bot check it waits on); None: none kept.
        self.account_evidence_dir = evidence_dir
        self._busy_answers: dict[str, int] = {}  # task id -> busy notices given as its whole answer
        self._not_found: dict[str, int] = {}  # task id -> runs whose answer was not found (uncharged)
        self.adapter = adapter
        self.browser_config = browser
        self.profile_dir = profile_dir
        self.kill_grace_s = kill_grace_s
        self.driver = PageDriver(adapter)
        self.driver.cdp_port = self._debug_port  # the driver's own CDP connection to our pages
        self.lock = AccountLock(account, profile_dir, lock_dir)
        #: Backstop for the lane; the driver enforces max_run_s itself.
        self.attempt_deadline_s = adapter.max_run_s + adapter.page_load_timeout_s + adapter.start_timeout_s + 60
        self._run_lock = asyncio.Lock()
        self._pw: Any = None
        self._browser: OwnedBrowser | None = None
        self._page: Any = None
        self._tasks_on_browser = 0
        self._health = HealthStatus.STARTING
        self._last_error: str | None = None
        self._rest_until = 0.0
        #: A usage limit's reset (wall clock): the account rests (takes nothing) until then.
        self._resting_until: float | None = None
        #: What the last bot check said (the account waits for a person while ``challenge``).
        self._challenge: str | None = None
        #: The screenshot of that check, for the person (``challenge.png`` in ``account_evidence_dir``).
        self._challenge_shot: Path | None = None
        self._logging_in = False
        self._stopped = False
        self.browser_pids: list[int] = []  # every browser this backend started (tests, evidence)
        #: What the prewarm's self-check and launch said; written into the next task's log.
        self._notes: list[str] = []
        self._threads = ThreadBook(adapter.url)
        #: The site's host name: its ``[rates.per_domain]`` bucket counts this account's runs.
        self.domain = urlsplit(adapter.url).hostname
        #: Stored credentials (names only) and the once-per-cooldown rule of automatic logins.
        self.credentials = credentials if credentials is not None and adapter.has_login_form else None
        self.login_cooldown = LoginCooldown(login_cooldown_s)
        self._needs_login_since: float | None = None
        self._relogin: asyncio.Task[None] | None = None
    def _note(self, message: str) -> None:
        log.info("%s: %s", self.account, message)
        self._notes.append(message)
    # ------------------------------------------------------------------ browser lifecycle
    def _debug_port(self, _page: Any) -> int | None:
        """The debug port of this account's browser (its pages are the only ones the driver sees)."""
        browser = self._browser
        return browser.port if browser is not None and browser.is_alive() else None

    def _browser_alive(self) -> bool:
        return self._browser is not None and self._browser.is_alive()

    async def _ensure_browser(self, say: Callable[[str], None]) -> None:
        if self._browser_alive():
            return
        if self._browser is not None:  # crashed or killed: reap what is left first
            say("browser: previous chromium is gone; relaunching on a fresh process")
            await self._close_browser()
        lock_was_free = False
        if not self.lock.held:
            lock_was_free = self.lock.try_acquire()
            if not lock_was_free:
                pid = self.lock.holder_pid()
                raise ProfileInUseError(
                    self.profile_dir, detail=f"account {self.account} is locked by MediaDesk pid {pid}"
                )
        ensure_private_dir(self.profile_dir, what="browser profile", user_chosen=True)
        result = await asyncio.to_thread(
            self_check, self.profile_dir, self.lock, say, self.kill_grace_s, lock_was_free=lock_was_free
        )
        if not result.ok:
            raise ProfileInUseError(self.profile_dir, result.holders)
        info = await asyncio.to_thread(find_browser, self.browser_config.executable, probe_version=False)
        browser = OwnedBrowser(
            self._pw, info.path, self.profile_dir, headless=self.browser_config.headless,
            extra_args=list(self.browser_config.extra_args), log=say,
        )
        await browser.start()
        self._browser = browser
        self.browser_pids.append(browser.pid)
        self._tasks_on_browser = 0
        self._page = None

    async def _ensure_page(self) -> Any:
        """One page per account, reused: ``prepare`` brings it back to a new conversation (measured
        ~35 ms per task vs ~260 ms for a new page + navigation). Replaced after any failure
        (:meth:`_replace_page`), so the browser always keeps a tab."""
        assert self._browser is not None
        if self._page is None or self._page.is_closed():
            ctx = self._browser.context
            self._page = ctx.pages[0] if ctx.pages else await ctx.new_page()
        return self._page

    async def _replace_page(self) -> Literal["none", "replaced", "killed"]:
        """Swap the page for a fresh tab, opening the new tab BEFORE closing the old one: a headless
        Chromium drops its session cookies when its last tab closes, which would log out a site whose
        login is a session cookie. A browser that does not answer within ``kill_grace_s`` is killed."""
        old, self._page = self._page, None
        if old is None or not self._browser_alive():
            return "none"
        assert self._browser is not None
        context = self._browser.context
        try:
            # shielded: on cancel this runs while the task is being cancelled; the timeouts bound it
            fresh = await asyncio.wait_for(asyncio.shield(context.new_page()), self.kill_grace_s)
            await asyncio.wait_for(asyncio.shield(old.close()), self.kill_grace_s)
        except Exception:
            await self._kill_browser()
            return "killed"
        self._page = fresh
        return "replaced"

    async def _after_failure(self, ctx: RunContext) -> None:
        """A failed run leaves the page in an unknown state: replace it by a fresh tab."""
        if await self._replace_page() == "killed":
            ctx.log("browser: the page could not be replaced; browser ended")

    async def _abandon_page(self, ctx: RunContext) -> None:
        """On cancel (the driver has clicked stop): a fresh tab, or a killed browser, never a wait."""
        try:
            outcome = await self._replace_page()
        except BaseException:  # cancelled again while waiting: wait no longer
            await self._kill_browser()
            outcome = "killed"
        if outcome == "replaced":
            ctx.log("canceled: generation stopped and page replaced")
        elif outcome == "killed":
            ctx.log(f"canceled: browser did not answer within {self.kill_grace_s:g} s; killed it")

    async def _keep_cookies(self, *, force: bool = False) -> None:
        """Save the account's session cookies to its jar (only when they changed; see ``cookies.py``)."""
        if self._browser is not None:
            await self._browser.save_session_cookies(force=force)

    async def _kill_browser(self) -> None:
        browser, self._browser = self._browser, None
        self._page = None
        if browser is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(browser.kill())

    async def _close_browser(self) -> None:
        browser, self._browser = self._browser, None
        self._page = None
        if browser is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(browser.close(self.kill_grace_s))

    async def _evidence(self, page: Any, ctx: RunContext, task: TaskSpec) -> None:
        if page is None or page.is_closed():
            return
        try:
            paths = await asyncio.wait_for(
                self.driver.evidence(page, ctx.evidence_dir, f"attempt{task.attempt}"), 10
            )
        except Exception:
            return
        if paths:
            ctx.log("evidence: " + ", ".join(str(p) for p in paths))

    def _set_error(self, message: str, *, rest: bool = False) -> None:
        self._health, self._last_error = HealthStatus.ERROR, message
        if rest:
            self._rest_until = time.monotonic() + PROFILE_IN_USE_RETRY_S

def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme, parts.netloc


def _short(text: str, limit: int = 160) -> str:
    shown = " ".join(text.split())
    return shown if len(shown) <= limit else shown[:limit] + "…"


def _clock_time(ts: float | None) -> str:
    """A wall-clock time for the operator: HH:MM:SS today, with the date otherwise."""
    if ts is None:
        return "?"
    today = time.strftime("%Y-%m-%d", time.localtime(ts)) == time.strftime("%Y-%m-%d")
    return time.strftime("%H:%M:%S" if today else "%Y-%m-%d %H:%M:%S", time.localtime(ts))
