"""Keeping one web account logged in: the warm browser checked logged in (prewarm), the operator's
visible login, a bot check solved by a person, and the automatic login with stored credentials (at
most once per cooldown, also in the background)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mediadesk.core.backend import HealthStatus
from mediadesk.core.log_lines import LOG, LogText, LogValue, english
from mediadesk.providers.web.autologin import (
    CredentialError,
    CredentialSource,
    LoginCooldown,
    fill_login_form,
    read_credentials,
    scrub,
)
from mediadesk.providers.web.backend_browser import AccountSite
from mediadesk.providers.web.backend_state import clock_time
from mediadesk.providers.web.errors import (
    ChallengeShown,
    NeedsLogin,
    WebLaneError,
)
from mediadesk.providers.web.login import visible_login

#: The backend's log: its parts report under the one name operators filter on.
log = logging.getLogger("mediadesk.providers.web.backend")


class AccountLogin:
    """The account's login and bot-check flows, on its browser, under the account's run lock.

    ``page_moved`` is told whenever the page leaves the chat thread it showed (a reload, a login)."""

    def __init__(
        self,
        site: AccountSite,
        *,
        run_lock: asyncio.Lock,
        page_moved: Callable[[], None],
        credentials: CredentialSource | None,
        cooldown_s: float,
        evidence_dir: Path | None,
    ) -> None:
        self.site = site
        self.account, self.state = site.account, site.state
        self.adapter, self.driver, self.browser = site.adapter, site.driver, site.browser
        self.run_lock = run_lock
        self.page_moved = page_moved
        #: Stored credentials (names only) and the once-per-cooldown rule of automatic logins.
        self.credentials = credentials if credentials is not None and site.adapter.has_login_form else None
        self.cooldown = LoginCooldown(cooldown_s)
        #: The account's own evidence folder (the screenshot of a bot check it waits on); None: none kept.
        self.evidence_dir = evidence_dir
        #: The background automatic login in progress, if any.
        self.relogin: asyncio.Task[None] | None = None

    async def prewarm(self) -> None:
        """(Under the run lock.) Start the browser and check the chat page is logged in; the outcome
        becomes the account's health."""
        state = self.state
        try:
            await self.browser.ensure(state.note)
            page = await self.browser.ensure_page()
            self.page_moved()
            try:
                await self.driver.prepare(page)
            except NeedsLogin as exc:
                if not await self.log_in_again(page, exc, state.note):
                    raise
            state.set_ready()
            await self.browser.keep_cookies(force=True)  # a successful login check
        except NeedsLogin as exc:
            self.set_needs_login(str(exc))
        except ChallengeShown as exc:
            await self.challenge_seen(str(exc), self.browser.page)
        except WebLaneError as exc:
            state.set_error(str(exc))

    # ------------------------------------------------------------------ operator login
    async def login(self, *, timeout_s: float = 900.0, on_status: Callable[[str], None] | None = None) -> bool:
        """Close the warm headless browser, open a VISIBLE one on this profile at the login page and
        wait until the operator is logged in (or closes the window). Then prewarm again. An account
        waiting for a person after a bot check opens at the chat page instead, to solve the check
        (:meth:`resolve_challenge`): the console's and the CLI's "Log in" resolve it."""
        if self.state.health == HealthStatus.CHALLENGE:
            return await self.resolve_challenge(timeout_s=timeout_s, on_status=on_status)
        say = on_status or log.info
        self.state.logging_in = True
        try:
            async with self.run_lock:
                await self.browser.close()
                try:
                    return await visible_login(
                        self.browser.pw, account=self.account, adapter=self.adapter,
                        browser_config=self.browser.config, profile_dir=self.browser.profile_dir,
                        kill_grace_s=self.browser.kill_grace_s, say=say, timeout_s=timeout_s,
                    )
                finally:  # back to a warm headless browser whatever happened in the window
                    await self.prewarm()
        finally:
            self.state.logging_in = False

    # ------------------------------------------------------------------ challenges
    async def challenge_seen(self, message: str, page: Any) -> None:
        """The account waits for a person: say so, and keep a screenshot of the check for them."""
        self.state.set_challenge(message)
        await self.shoot_challenge(page)

    async def shoot_challenge(self, page: Any) -> None:
        """``challenge.png`` (and the page's HTML) in the account's evidence folder, replacing an older
        one (so a failed shot never shows the previous check). Never raises."""
        self.state.challenge_shot = None
        folder = self.evidence_dir
        if folder is None or page is None or page.is_closed():
            return
        with contextlib.suppress(OSError):
            (folder / "challenge.png").unlink(missing_ok=True)
        try:
            written = await asyncio.wait_for(self.driver.evidence(page, folder, "challenge"), 15)
        except Exception as exc:  # evidence never masks the check itself
            log.warning("%s: screenshot of the bot check failed: %s", self.account, exc)
            return
        self.state.challenge_shot = next((p for p in written if p.suffix == ".png"), None)

    async def resolve_challenge(
        self, *, timeout_s: float = 900.0, on_status: Callable[[str], None] | None = None
    ) -> bool:
        """Open the account's browser VISIBLY on its own profile at the chat page, for a person to solve
        the bot check; done once the page shows no check and is ready (True), or the window closed /
        ``timeout_s`` passed (False). Then the warm headless browser comes back and the lane resumes.
        Nothing is clicked or solved automatically."""
        say = on_status or log.info
        state = self.state
        state.logging_in = True
        try:
            async with self.run_lock:
                await self.browser.close()
                try:
                    ok = await visible_login(
                        self.browser.pw, account=self.account, adapter=self.adapter,
                        browser_config=self.browser.config, profile_dir=self.browser.profile_dir,
                        kill_grace_s=self.browser.kill_grace_s, say=say, timeout_s=timeout_s,
                        start_url=self.adapter.url, done=self._challenge_gone,
                        what=f"solve the check on {self.adapter.name or 'the site'} for {self.account}",
                    )
                finally:
                    if state.health == HealthStatus.CHALLENGE:
                        state.health, state.challenge = HealthStatus.STARTING, None
                    await self.prewarm()  # a check still there sets ``challenge`` again
                return ok and state.health != HealthStatus.CHALLENGE
        finally:
            state.logging_in = False

    async def _challenge_gone(self, page: Any) -> bool:
        return await self.driver.challenge(page) is None and await self.driver.is_logged_in(page)

    # ------------------------------------------------------------------ logged out
    def set_needs_login(self, message: str) -> None:
        state = self.state
        if state.health != HealthStatus.NEEDS_LOGIN or state.needs_login_since is None:
            state.needs_login_since = time.time()
        state.health, state.last_error = HealthStatus.NEEDS_LOGIN, message
        cooldown = self.cooldown
        if self.credentials is not None and cooldown.last_attempt is not None:
            nxt = f"next try at {clock_time(cooldown.next_try_wall())}"
            state.last_error = (f"{message}; automatic login failed: {cooldown.last_error} ({nxt})"
                                if cooldown.last_error else f"{message}; automatic login: {nxt}")

    async def log_in_again(self, page: Any, exc: NeedsLogin, say: Callable[[LogText], None]) -> bool:
        """The account found itself logged out (``exc``): with stored credentials, fill the site's
        login form and check the chat page is logged in, at most once per cooldown. True when it is
        logged in again (``page`` is on the chat page, ready). Every message names sources only."""
        if self.credentials is None or page is None:
            return False
        cooldown = self.cooldown
        if not cooldown.may_try():
            nxt = cooldown.next_try_wall()
            times = {"time": clock_time(nxt), "seconds": f"{cooldown.cooldown_s:g}",
                     "last": clock_time(cooldown.last_attempt_wall)}
            say(LOG.autologin_not_before_failed(**times, error=cooldown.last_error) if cooldown.last_error
                else LOG.autologin_not_before_succeeded(**times))
            return False
        cooldown.begin()
        say(LOG.autologin_trying(error=str(exc), account=self.account, source=self.credentials.describe()))
        user = password = ""
        try:
            user, password = await read_credentials(self.credentials)
            await fill_login_form(page, self.adapter, user, password)
            await self.driver.open(page, self.adapter.url, reload=True)
        except (CredentialError, RuntimeError, WebLaneError) as err:
            why: LogValue = scrub(str(err), user, password)
            if isinstance(err, NeedsLogin):
                why = LOG.still_logged_out(error=why)
            cooldown.failed(english(why))
            say(LOG.autologin_failed(why=why, time=clock_time(cooldown.next_try_wall())))
            return False
        say(LOG.autologin_done(account=self.account))
        self.page_moved()
        self.browser.logged_in_here = True
        await self.browser.keep_cookies(force=True)
        return True

    def maybe_relogin(self) -> None:
        """Logged out with stored credentials: once the cooldown has passed, try again in the
        background (the lane asks ``available`` every round; it stays False meanwhile)."""
        if (self.credentials is None or self.state.stopped or not self.cooldown.may_try()
                or (self.relogin is not None and not self.relogin.done())):
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # asked outside the event loop (a test, a snapshot): nothing to start
            return
        self.relogin = asyncio.ensure_future(self._relogin_now())

    async def stop_relogin(self) -> None:
        """Cancel a background login in progress and wait for it to end."""
        relogin, self.relogin = self.relogin, None
        if relogin is not None and not relogin.done():
            relogin.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await relogin

    async def reload_home(self) -> None:
        """(Under the run lock.) The account's page reloaded on the site's chat URL and checked logged
        in; a logged-out account with stored credentials logs in again (once per cooldown), else
        :class:`NeedsLogin` is raised."""
        await self.browser.ensure(self.state.note)
        page = await self.browser.ensure_page()
        self.page_moved()
        try:
            await self.driver.open(page, self.adapter.url, reload=True)
        except NeedsLogin as exc:
            if not await self.log_in_again(page, exc, self.state.note):
                raise

    async def _relogin_now(self) -> None:
        async with self.run_lock:
            if self.state.stopped or self.state.health != HealthStatus.NEEDS_LOGIN:
                return
            try:
                await self.reload_home()
            except NeedsLogin as exc:
                self.set_needs_login(str(exc))
                return
            except Exception as exc:  # the browser, not the login: the account cannot run now
                self.state.set_error(f"automatic login: {exc}")
                return
            self.state.set_ready()
