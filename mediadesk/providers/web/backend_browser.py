"""One web account's own Chromium: the profile's lock, the browser started (after the profile's
self-check), its one page reused and replaced, killed or closed, and its session cookies kept."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from mediadesk.config.model import BrowserConfig
from mediadesk.core.backend import RunContext
from mediadesk.core.log_lines import LOG, LogText
from mediadesk.files.safe import ensure_private_dir
from mediadesk.providers.web.adapter import SiteAdapter
from mediadesk.providers.web.backend_state import AccountState
from mediadesk.providers.web.driver import PageDriver
from mediadesk.providers.web.errors import ProfileInUseError
from mediadesk.providers.web.finder import find_browser
from mediadesk.providers.web.launcher import LOGGED_IN_CLOSE_GRACE_S, OwnedBrowser
from mediadesk.providers.web.profile_lock import AccountLock
from mediadesk.providers.web.selfcheck import self_check


class AccountBrowser:
    """The account's browser and page. ``pw`` (the Playwright handle) is set by the owner while it runs."""

    def __init__(
        self, *, account: str, profile_dir: Path, lock: AccountLock, config: BrowserConfig, kill_grace_s: float
    ) -> None:
        self.account = account
        self.profile_dir = profile_dir
        #: The on-disk account lock, held for as long as this browser drives the profile.
        self.lock = lock
        self.config = config
        self.kill_grace_s = kill_grace_s
        self.pw: Any = None
        self.browser: OwnedBrowser | None = None
        self.page: Any = None
        #: Tasks run on the current browser (it is recycled after ``config.recycle_after``).
        self.tasks = 0
        self.pids: list[int] = []  # every browser started for this account (tests, evidence)
        #: A login was made in the current browser (it closes with the longer grace, see close()).
        self.logged_in_here = False

    def debug_port(self, _page: Any) -> int | None:
        """The debug port of this account's browser (its pages are the only ones the driver sees)."""
        browser = self.browser
        return browser.port if browser is not None and browser.is_alive() else None

    def alive(self) -> bool:
        return self.browser is not None and self.browser.is_alive()

    async def ensure(self, say: Callable[[LogText], None]) -> None:
        """A running browser on the profile: the lock taken, the profile self-checked, Chromium started."""
        if self.alive():
            return
        if self.browser is not None:  # crashed or killed: reap what is left first
            say(LOG.browser_relaunching())
            await self.close()
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
        info = await asyncio.to_thread(find_browser, self.config.executable, probe_version=False)
        browser = OwnedBrowser(
            self.pw, info.path, self.profile_dir, headless=self.config.headless,
            extra_args=list(self.config.extra_args), log=say,
        )
        await browser.start()
        self.browser = browser
        self.pids.append(browser.pid)
        self.tasks = 0
        self.page = None
        self.logged_in_here = False

    async def ensure_page(self) -> Any:
        """One page per account, reused: ``prepare`` brings it back to a new conversation. Replaced
        after any failure (:meth:`replace_page`), so the browser always keeps a tab."""
        assert self.browser is not None
        if self.page is None or self.page.is_closed():
            ctx = self.browser.context
            self.page = ctx.pages[0] if ctx.pages else await ctx.new_page()
        return self.page

    async def replace_page(self) -> Literal["none", "replaced", "killed"]:
        """Swap the page for a fresh tab, opening the new tab BEFORE closing the old one: a headless
        Chromium drops its session cookies when its last tab closes, which would log out a site whose
        login is a session cookie. A browser that does not answer within ``kill_grace_s`` is killed."""
        old, self.page = self.page, None
        if old is None or not self.alive():
            return "none"
        assert self.browser is not None
        context = self.browser.context
        try:
            # shielded: on cancel this runs while the task is being cancelled; the timeouts bound it
            fresh = await asyncio.wait_for(asyncio.shield(context.new_page()), self.kill_grace_s)
            await asyncio.wait_for(asyncio.shield(old.close()), self.kill_grace_s)
        except Exception:
            await self.kill()
            return "killed"
        self.page = fresh
        return "replaced"

    async def after_failure(self, ctx: RunContext) -> None:
        """A failed run leaves the page in an unknown state: replace it by a fresh tab."""
        if await self.replace_page() == "killed":
            ctx.log(LOG.browser_page_not_replaced())

    async def abandon_page(self, ctx: RunContext) -> None:
        """On cancel (the driver has clicked stop): a fresh tab, or a killed browser, never a wait."""
        try:
            outcome = await self.replace_page()
        except BaseException:  # cancelled again while waiting: wait no longer
            await self.kill()
            outcome = "killed"
        if outcome == "replaced":
            ctx.log(LOG.canceled_page_replaced())
        elif outcome == "killed":
            ctx.log(LOG.canceled_browser_killed(seconds=f"{self.kill_grace_s:g}"))

    async def keep_cookies(self, *, force: bool = False) -> None:
        """Save the account's session cookies to its jar (only when they changed; see ``cookies.py``)."""
        if self.browser is not None:
            await self.browser.save_session_cookies(force=force)

    async def kill(self) -> None:
        browser, self.browser = self.browser, None
        self.page = None
        if browser is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(browser.kill())

    async def close(self) -> None:
        browser, self.browser = self.browser, None
        self.page = None
        # a login made in this browser is on disk only once Chromium has shut down cleanly
        grace = max(self.kill_grace_s, LOGGED_IN_CLOSE_GRACE_S) if self.logged_in_here else self.kill_grace_s
        self.logged_in_here = False
        if browser is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(browser.close(grace))


@dataclass(frozen=True)
class AccountSite:
    """What the account's login and failure parts both work on: its state, its site adapter, the
    page driver and the browser (one of each per account, built by the backend)."""

    state: AccountState
    adapter: SiteAdapter
    driver: PageDriver
    browser: AccountBrowser

    @property
    def account(self) -> str:
        return self.state.account
