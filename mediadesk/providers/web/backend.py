"""The web lane's backend: one account, one owned warm Chromium, ONE run at a time.

A chat account allows one generation at a time (a second one breaks both), so this is a constant, not a
setting: web throughput grows by adding accounts. It is guarded three times: the lane's capacity, an
in-process ``asyncio.Lock`` around every run, and the on-disk account lock, so two processes never drive one
profile. The parts: health (``backend_state``), browser (``backend_browser``), login and bot checks
(``backend_login``) and what a failure says about capacity (``backend_capacity``).
"""
from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mediadesk.config.model import AccountConfig, AppConfig, BrowserConfig, ConfigError, ProfileConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import Answer, HealthStatus, RunContext, TaskSpec
from mediadesk.core.log_lines import LOG, LogText
from mediadesk.providers.web.adapter import SiteAdapter, compose_prompt
from mediadesk.providers.web.autologin import CredentialSource
from mediadesk.providers.web.backend_browser import AccountBrowser, AccountSite
from mediadesk.providers.web.backend_capacity import AccountFailures, task_failure
from mediadesk.providers.web.backend_login import AccountLogin
from mediadesk.providers.web.backend_state import AccountState, clock_time
from mediadesk.providers.web.driver import PageDriver
from mediadesk.providers.web.errors import (
    ChallengeShown,
    NeedsLogin,
    SiteDown,
    WebLaneError,
)
from mediadesk.providers.web.login import interactive_login, login_with_form
from mediadesk.providers.web.playwright_hub import PlaywrightHub
from mediadesk.providers.web.profile_lock import AccountLock
from mediadesk.providers.web.signals import reach
from mediadesk.providers.web.sites import adapter_for
from mediadesk.providers.web.threads import ThreadBook, replay

if TYPE_CHECKING:
    from mediadesk.providers.web.check import AdapterCheckResult

__all__ = [
    "RUNS_PER_ACCOUNT",
    "WebAccountBackend",
    "build_web_backend",
    "interactive_login",  # lives in .login; still importable from here for older callers
    "login_with_form",  # idem
    "task_failure",  # lives in .backend_capacity; the lane's view of a web-lane error
]

log = logging.getLogger(__name__)

#: One generation per account, ever. Not configurable: see the module docstring.
RUNS_PER_ACCOUNT = 1


class WebAccountBackend:
    """A :class:`~mediadesk.core.backend.LaneBackend` for one web account."""

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
        self.adapter = adapter
        self.state = AccountState(account)
        self.browser = AccountBrowser(account=account, profile_dir=profile_dir,
                                      lock=AccountLock(account, profile_dir, lock_dir), config=browser,
                                      kill_grace_s=kill_grace_s)
        # the driver's own CDP connection reaches our pages through the browser's debug port
        self.driver = PageDriver(adapter, cdp_port=self.browser.debug_port)
        self._run_lock = asyncio.Lock()
        self._threads = ThreadBook(adapter.url)
        site = AccountSite(self.state, adapter, self.driver, self.browser)
        self.account_login = AccountLogin(
            site, run_lock=self._run_lock, page_moved=self._threads.page_moved, credentials=credentials,
            cooldown_s=login_cooldown_s, evidence_dir=evidence_dir,
        )
        self.failures = AccountFailures(site, login=self.account_login)
        #: The operator's login (the lane's ``login`` ability) and the bot check solved by a person.
        self.login = self.account_login.login
        self.resolve_challenge = self.account_login.resolve_challenge
        #: Backstop for the lane; the driver enforces max_run_s itself.
        self.attempt_deadline_s = adapter.max_run_s + adapter.page_load_timeout_s + adapter.start_timeout_s + 60
        #: The site's host name: its ``[rates.per_domain]`` bucket counts this account's runs.
        self.domain = urlsplit(adapter.url).hostname

    # ------------------------------------------------------------------ LaneBackend
    @property
    def capacity(self) -> int:
        return RUNS_PER_ACCOUNT

    @capacity.setter
    def capacity(self, _value: int) -> None:
        raise AttributeError("a web account runs exactly one task at a time; add accounts instead")

    #: Not an API endpoint: no authenticated endpoint check.
    check: None = None

    @property
    def max_run_s(self) -> float:
        """The site adapter's limit on one whole run (team mode holds the account's lease that long)."""
        return self.adapter.max_run_s

    @property
    def challenge_screenshot(self) -> Path | None:
        """The screenshot of the bot check while the account waits for a person, else None."""
        return self.state.challenge_shot if self.state.health == HealthStatus.CHALLENGE else None

    @property
    def challenge(self) -> str | None:
        """What the bot check said while the account waits for a person, else None."""
        return self.state.challenge if self.state.health == HealthStatus.CHALLENGE else None

    def available(self) -> bool:
        state = self.state
        if state.stopped or state.logging_in:
            return False
        if state.health == HealthStatus.NEEDS_LOGIN:
            self.account_login.maybe_relogin()
            return False
        if state.health == HealthStatus.CHALLENGE or state.resting():
            return False
        return not (state.health == HealthStatus.ERROR and time.monotonic() < state.rest_until)

    def health(self) -> tuple[str, str | None]:
        self.state.resting()  # a rest that is over ends here too, so the console sees it come back
        return self.state.health, self.state.last_error

    async def start(self) -> None:
        """Take the account lock and prewarm the browser; failures become health, not exceptions."""
        self.browser.pw = await PlaywrightHub.acquire()
        try:
            async with self._run_lock:
                await self.account_login.prewarm()
        except Exception as exc:  # never let one account stop the app from starting
            self.state.set_error(f"start failed: {exc}")

    async def stop(self) -> None:
        self.state.stopped = True
        try:
            await self.account_login.stop_relogin()
            async with self._run_lock:
                await self.browser.close()
                self.browser.lock.release()
        finally:  # a stop cancelled half-way still gives the shared driver back
            if self.browser.pw is not None:
                self.browser.pw = None
                await PlaywrightHub.release()

    async def run(self, task: TaskSpec, ctx: RunContext) -> str:
        state, browser = self.state, self.browser
        async with self._run_lock:  # the in-process guard: one run per account
            notes, state.notes = state.notes, []
            for note in notes:
                ctx.log(LOG.at_lane_start(line=note))
            page = None
            login_tried = False
            try:
                await browser.ensure(ctx.log)
                assert browser.browser is not None
                ctx.log(LOG.account_browser(account=self.account, pid=str(browser.browser.pid),
                                            port=str(browser.browser.port)))
                page = await browser.ensure_page()
                try:
                    text = await self._open_for(task, page, ctx)
                except NeedsLogin as exc:  # nothing sent yet: with stored credentials, log in and go on
                    login_tried = True
                    if not await self.account_login.log_in_again(page, exc, ctx.log):
                        raise
                    text = await self._open_for(task, page, ctx)
                state.health = HealthStatus.READY
                state.needs_login_since = None
                result = await self.failures.run_watched(page, text, ctx)
                url = page.url if task.route_key is None else await self.driver.location(page)
                self._threads.after_turn(page, url, task.route_key)
            except asyncio.CancelledError:
                # The driver has clicked stop. Close the page; a browser that does not answer is killed.
                await browser.abandon_page(ctx)
                raise
            except Exception as exc:
                raise await self.failures.failure(exc, page, ctx, task, may_log_in=not login_tried) from None
            for warning in result.warnings:  # e.g. an adapter key that stopped matching (found by role)
                ctx.log(LOG.warning(warning=warning))
            state.last_error = "; ".join(result.warnings) or None  # the account's health text says so
            await browser.keep_cookies()  # debounced; a crash later still finds the session in the jar
            browser.tasks += 1
            t = result.timings
            why = t.done_why(self.adapter.settle_ms)
            ctx.log(LOG.done(why=why))
            if result.source_note is not None:  # the adapter reads its stream: which source gave the answer
                ctx.log(result.source_note)
            ctx.log(LOG.web_answer(chars=len(result.answer), ms=f"{result.timings.overhead_ms:.0f}"))
            if browser.tasks >= browser.config.recycle_after:
                ctx.log(LOG.recycling_browser(n=browser.tasks))
                await browser.close()
            return Answer(result.answer, reasoning=result.reasoning, source=result.source)

    async def _open_for(self, task: TaskSpec, page: Any, ctx: RunContext) -> str:
        """Bring the page to where ``task`` belongs and return the text to type.

        A later turn of a conversation goes into the chat thread of its previous turn on this
        account, without a new chat and without the instructions again (the thread has them); one
        whose thread cannot be reopened here gets its earlier turns replayed in a new chat. Anything
        else starts a new chat."""
        key = task.route_key
        thread = self._threads.url(key) if key is not None and task.history else None
        if key is not None and thread is not None:
            here = self._threads.shows(page, key) and page.url == thread
            if here or self._threads.addressable(thread):
                turn = len(task.history) + 1
                ctx.log(LOG.turn_in_thread(conversation=key, turn=turn) if here
                        else LOG.turn_reopening(conversation=key, turn=turn, url=thread))
                await self.driver.open(page, thread, reload=not here)
                return task.prompt
        self._threads.page_moved()
        prompt = task.prompt
        if task.history:
            ctx.log(LOG.turns_replayed(conversation=str(key), n=len(task.history)))
            prompt = replay(task.history, task.prompt)
        text = compose_prompt(self.adapter, prompt, task.effective_instructions())
        await self.driver.prepare(page, text)  # the text goes in with the readiness check (one round trip)
        return text

    async def probe(self) -> tuple[bool, LogText]:
        """Could this account run a task now? For a circuit breaker's health probe: the warm page
        reloads the chat page and must show the logged-in marker and the prompt box (no generation);
        a browser that is not running is started first. Never raises; the health follows the answer."""
        state = self.state
        if state.stopped:
            return False, LOG.probe_stopped()
        if state.logging_in:
            return False, LOG.operator_logging_in()
        if self._run_lock.locked():
            return True, LOG.run_in_progress()
        seen = await reach(self.adapter.url)  # one plain GET first: no browser work while the site is down
        if not seen.up:
            state.last_error = f"site unreachable ({seen.what}); the breaker probes it"
            return False, LOG.site_unreachable(error=seen.what)
        async with self._run_lock:
            try:
                await self.account_login.reload_home()
            except NeedsLogin as exc:
                self.account_login.set_needs_login(str(exc))
                return False, LOG.needs_login(error=str(exc))
            except ChallengeShown as exc:
                await self.account_login.challenge_seen(str(exc), self.browser.page)
                return False, LOG.as_is(text=str(exc))
            except SiteDown as exc:
                state.last_error = f"{exc}; the breaker probes it"
                return False, LOG.as_is(text=str(exc))
            except Exception as exc:  # whatever it is, the account cannot run now
                if not self.browser.alive():
                    await self.browser.close()
                state.set_error(f"probe: {exc}")
                return False, LOG.as_is(text=str(exc))
            state.set_ready()
            await self.browser.keep_cookies()
            return True, LOG.logged_in_ready()

    async def check_adapter(
        self, *, prompt: str | None, out_dir: Path, progress: Callable[[str], None] = log.info
    ) -> AdapterCheckResult:
        """``adapter check`` on this account's own browser (it holds the profile): in a second tab, under
        the run lock, so it starts only after the run in progress has ended and no run starts beside it
        (the lane should also stop claiming meanwhile: ``Scheduler.hold_account``). The warm tab stays.
        Raises :class:`WebLaneError` when the browser cannot be started."""
        from mediadesk.providers.web.check import check_page

        browser = self.browser
        async with self._run_lock:
            if self.state.stopped or browser.pw is None:
                raise WebLaneError(f"account {self.account}: its lane is not running")
            await browser.ensure(lambda line: progress(str(line)))  # the check's progress takes plain text
            await browser.ensure_page()  # the warm tab stays open: closing the last one drops session cookies
            assert browser.browser is not None
            page = await browser.browser.context.new_page()
            stem = f"{(self.adapter.name or 'site').replace('/', '_')}-{self.account}-{time.strftime('%Y%m%d-%H%M%S')}"
            try:
                result = await check_page(page, self.adapter, out_dir=out_dir, stem=stem, prompt=prompt,
                                          progress=progress)
            finally:
                with contextlib.suppress(Exception):
                    await page.close()
        return dataclasses.replace(result, account=self.account)

    def unavailable_reason(self) -> tuple[str, str] | None:
        """Why this account takes no task now, and what would change it: (reason, action) with
        action one of "login", "wait", "fix"; None when it can take one."""
        state = self.state
        if state.stopped:
            return "stopped", "fix"
        if state.logging_in:
            return "an operator is logging in", "wait"
        if state.health == HealthStatus.NEEDS_LOGIN:
            since = f" since {clock_time(state.needs_login_since)}" if state.needs_login_since else ""
            reason = f"needs login{since} ({state.last_error})" if state.last_error else f"needs login{since}"
            return reason, "login"
        if state.health == HealthStatus.CHALLENGE:
            return f"{state.last_error}", "login"
        if state.resting():
            return f"{state.last_error}", "wait"
        if state.health == HealthStatus.ERROR and time.monotonic() < state.rest_until:
            again = time.time() + (state.rest_until - time.monotonic())
            return f"{state.last_error} (tries again at {clock_time(again)})", "wait"
        return None


# ---------------------------------------------------------------------- construction
def build_web_backend(
    config: AppConfig, workspace: Workspace, profile: ProfileConfig, account: AccountConfig
) -> WebAccountBackend:
    adapter = adapter_for(config, workspace, profile)
    credentials = None
    if account.has_login_credentials:
        if not adapter.has_login_form:
            raise ConfigError(
                f"account {account.name!r}: stored login credentials are configured, but site adapter "
                f"{adapter.source or adapter.name} has no login form keys; add login_user, login_password "
                "and login_submit (CSS selectors of the form at login_url) to it, or remove the credentials"
            )
        credentials = CredentialSource(
            user_env=account.login_user_env, user_keyring=account.login_user_keyring,
            password_env=account.login_password_env, password_keyring=account.login_password_keyring,
        )
    return WebAccountBackend(
        account=account.name,
        adapter=adapter,
        browser=config.browser,
        profile_dir=workspace.account_profile_dir(account.name, account.profile_dir),
        kill_grace_s=config.scheduler.kill_grace_s,
        credentials=credentials,
        login_cooldown_s=account.login_cooldown_s,
        evidence_dir=workspace.account_evidence_dir(account.name),
    )
