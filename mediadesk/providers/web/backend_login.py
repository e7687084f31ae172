"""Logging in for :class:`~mediadesk.providers.web.backend.WebAccountBackend`: the warm browser checked
logged in (prewarm), the operator's visible login, a bot check solved by a person, and the automatic
login with stored credentials (at most once per cooldown, also in the background)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mediadesk.core.backend import HealthStatus
from mediadesk.providers.web.autologin import (
    CredentialError,
    fill_login_form,
    read_credentials,
    scrub,
)
from mediadesk.providers.web.backend_browser import _AccountBrowser, _clock_time
from mediadesk.providers.web.errors import (
    ChallengeShown,
    NeedsLogin,
    WebLaneError,
)
from mediadesk.providers.web.login import visible_login

#: The backend's log: its parts report under the one name operators filter on.
log = logging.getLogger("mediadesk.providers.web.backend")


class _AccountLogin(_AccountBrowser):
    """Login and challenge state of the account, over its browser."""

    async def _prewarm(self) -> None:
        try:
            await self._ensure_browser(self._note)
            page = await self._ensure_page()
            self._threads.page_moved()
            try:
                await self.driver.prepare(page)
            except NeedsLogin as exc:
                if not await self._log_in_again(page, exc, self._note):
                    raise
            self._health, self._last_error = HealthStatus.READY, None
            self._needs_login_since = None
            await self._keep_cookies(force=True)  # a successful login check
        except NeedsLogin as exc:
            self._set_needs_login(str(exc))
        except ChallengeShown as exc:
            await self._challenge_seen(str(exc), self._page)
        except WebLaneError as exc:
            self._set_error(str(exc))

    # ------------------------------------------------------------------ operator login
    async def login(self, *, timeout_s: float = 900.0, on_status: Callable[[str], None] | None = None) -> bool:
        """Close the warm headless browser, open a VISIBLE one on this profile at the login page and
        wait until the operator is logged in (or closes the window). Then prewarm again. An account
        waiting for a person after a bot check opens at the chat page instead, to solve the check
        (:meth:`resolve_challenge`): the console's and the CLI's "Log in" resolve it."""
        if self._health == HealthStatus.CHALLENGE:
            return await self.resolve_challenge(timeout_s=timeout_s, on_status=on_status)
        say = on_status or log.info
        self._logging_in = True
        try:
            async with self._run_lock:
                await self._close_browser()
                try:
                    return await visible_login(
                        self._pw, account=self.account, adapter=self.adapter, browser_config=self.browser_config,
                        profile_dir=self.profile_dir, kill_grace_s=self.kill_grace_s, say=say, timeout_s=timeout_s,
                    )
                finally:  # back to a warm headless browser whatever happened in the window
                    await self._prewarm()
        finally:
            self._logging_in = False

    # ------------------------------------------------------------------ challenges
    def _set_challenge(self, message: str) -> None:
        self._challenge = message
        self._health, self._last_error = HealthStatus.CHALLENGE, f"needs a person: {message}"

    async def _challenge_seen(self, message: str, page: Any) -> None:
        """The account waits for a person: say so, and keep a screenshot of the check for them."""
        self._set_challenge(message)
        await self._shoot_challenge(page)

    async def _shoot_challenge(self, page: Any) -> None:
        """``challenge.png`` (and the page's HTML) in the account's evidence folder, replacing an older
        one (so a failed shot never shows the previous check). Never raises."""
        self._challenge_shot = None
        folder = self.account_evidence_dir
        if folder is None or page is None or page.is_closed():
            return
        with contextlib.suppress(OSError):
            (folder / "challenge.png").unlink(missing_ok=True)
        try:
            written = await asyncio.wait_for(self.driver.evidence(page, folder, "challenge"), 15)
        except Exception as exc:  # evidence never masks the check itself
            log.warning("%s: screenshot of the bot check failed: %s", self.account, exc)
            return
        self._challenge_shot = next((p for p in written if p.suffix == ".png"), None)

    @property
    def challenge_screenshot(self) -> Path | None:
        """The screenshot of the bot check while the account waits for a person, else None."""
        return self._challenge_shot if self._health == HealthStatus.CHALLENGE else None

    @property
    def challenge(self) -> str | None:
        """What the bot check said while the account waits for a person, else None."""
        return self._challenge if self._health == HealthStatus.CHALLENGE else None

    async def resolve_challenge(
        self, *, timeout_s: float = 900.0, on_status: Callable[[str], None] | None = None
    ) -> bool:
        """Open the account's browser VISIBLY on its own profile at the chat page, for a person to solve
        the bot check; done once the page shows no check and is ready (True), or the window closed /
        ``timeout_s`` passed (False). Then the warm headless browser comes back and the lane resumes.
        Nothing is clicked or solved automatically."""
        say = on_status or log.info
        self._logging_in = True
        try:
            async with self._run_lock:
                await self._close_browser()
                try:
                    ok = await visible_login(
                        self._pw, account=self.account, adapter=self.adapter, browser_config=self.browser_config,
                        profile_dir=self.profile_dir, kill_grace_s=self.kill_grace_s, say=say, timeout_s=timeout_s,
                        start_url=self.adapter.url, done=self._challenge_gone,
                        what=f"solve the check on {self.adapter.name or 'the site'} for {self.account}",
                    )
                finally:
                    if self._health == HealthStatus.CHALLENGE:
                        self._health, self._challenge = HealthStatus.STARTING, None
                    await self._prewarm()  # a check still there sets ``challenge`` again
                return ok and self._health != HealthStatus.CHALLENGE
        finally:
            self._logging_in = False

    async def _challenge_gone(self, page: Any) -> bool:
        return await self.driver.challenge(page) is None and await self.driver.is_logged_in(page)

    # ------------------------------------------------------------------ logged out
    def _set_needs_login(self, message: str) -> None:
        if self._health != HealthStatus.NEEDS_LOGIN or self._needs_login_since is None:
            self._needs_login_since = time.time()
        self._health, self._last_error = HealthStatus.NEEDS_LOGIN, message
        cooldown = self.login_cooldown
        if self.credentials is not None and cooldown.last_attempt is not None:
            nxt = f"next try at {_clock_time(cooldown.next_try_wall())}"
            self._last_error = (f"{message}; automatic login failed: {cooldown.last_error} ({nxt})"
                                if cooldown.last_error else f"{message}; automatic login: {nxt}")

    async def _log_in_again(self, page: Any, exc: NeedsLogin, say: Callable[[str], None]) -> bool:
        """The account found itself logged out (``exc``): with stored credentials, fill the site's
        login form and check the chat page is logged in, at most once per cooldown. True when it is
        logged in again (``page`` is on the chat page, ready). Every message names sources only."""
        if self.credentials is None or page is None:
            return False
        cooldown = self.login_cooldown
        if not cooldown.may_try():
            nxt = cooldown.next_try_wall()
            say(f"automatic login: not tried again before {_clock_time(nxt)} (one try per "
                f"{cooldown.cooldown_s:g} s; the last one at {_clock_time(cooldown.last_attempt_wall)} "
                f"{'failed: ' + cooldown.last_error if cooldown.last_error else 'succeeded'})")
            return False
        cooldown.begin()
        say(f"automatic login: {exc}; logging {self.account} in with its stored credentials "
            f"({self.credentials.describe()})")
        user = password = ""
        try:
            user, password = await read_credentials(self.credentials)
            await fill_login_form(page, self.adapter, user, password)
            await self.driver.open(page, self.adapter.url, reload=True)
        except (CredentialError, RuntimeError, WebLaneError) as err:
            why = scrub(str(err), user, password)
            if isinstance(err, NeedsLogin):
                why = f"still logged out after submitting the login form ({why})"
            cooldown.failed(why)
            say(f"automatic login failed: {why}; next try not before "
                f"{_clock_time(cooldown.next_try_wall())}")
            return False
        say(f"automatic login: {self.account} is logged in again")
        self._threads.page_moved()
        await self._keep_cookies(force=True)
        return True

    def _maybe_relogin(self) -> None:
        """Logged out with stored credentials: once the cooldown has passed, try again in the
        background (the lane asks :meth:`available` every round; it stays False meanwhile)."""
        if (self.credentials is None or self._stopped or not self.login_cooldown.may_try()
                or (self._relogin is not None and not self._relogin.done())):
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # asked outside the event loop (a test, a snapshot): nothing to start
            return
        self._relogin = asyncio.ensure_future(self._relogin_now())

    async def _reload_home(self) -> None:
        """(Under the run lock.) The account's page reloaded on the site's chat URL and checked logged
        in; a logged-out account with stored credentials logs in again (once per cooldown), else
        :class:`NeedsLogin` is raised."""
        await self._ensure_browser(self._note)
        page = await self._ensure_page()
        self._threads.page_moved()
        try:
            await self.driver.open(page, self.adapter.url, reload=True)
        except NeedsLogin as exc:
            if not await self._log_in_again(page, exc, self._note):
                raise

    async def _relogin_now(self) -> None:
        async with self._run_lock:
            if self._stopped or self._health != HealthStatus.NEEDS_LOGIN:
                return
            try:
                await self._reload_home()
            except NeedsLogin as exc:
                self._set_needs_login(str(exc))
                return
            except Exception as exc:  # the browser, not the login: the account cannot run now
                self._set_error(f"automatic login: {exc}")
                return
            self._health, self._last_error = HealthStatus.READY, None
            self._needs_login_since = None
