"""The web lane's backend: one account, one owned warm Chromium, ONE run at a time.

Why one: a chat account allows exactly one generation at a time; a second one at the same moment
breaks both (measured in production: doubling the workers raised web failures from 7 % to 34 %).
So this is a constant, not a setting; web throughput grows by adding accounts. It is guarded three
times: the lane's capacity (``capacity`` below), an in-process ``asyncio.Lock`` around every run,
and the on-disk account lock (filelock, path hashed from the OS user, the account and its profile
dir) held for as long as this backend drives the profile, so two processes or two app instances
can never drive one profile.

Each failure becomes a ``TaskFailure`` through :func:`task_failure`, so the error's kind alone decides
the retry. A later turn of a conversation continues its chat thread (``threads``); :meth:`probe` is a
one-page-load readiness check for a circuit breaker.

Logged out: the account is ``needs_login`` until the operator logs in, unless it has stored
credentials (``autologin``): then it logs itself in again, at most once per cooldown, and a run
that found it logged out before sending goes on.

The backend is built in layers beside this module: its state and browser (``backend_browser.py``),
login and bot checks (``backend_login.py``), failures and capacity signals (``backend_capacity.py``).
Here: the lane's view (capacity, availability, health), the run step and the construction.
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

from mediadesk.config.model import AccountConfig, AppConfig, ConfigError, ProfileConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import HealthStatus, RunContext, TaskSpec
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.providers.web.adapter import compose_prompt
from mediadesk.providers.web.autologin import (
    CredentialSource,
)
from mediadesk.providers.web.backend_browser import _clock_time
from mediadesk.providers.web.backend_capacity import _AccountSignals
from mediadesk.providers.web.errors import (
    AnswerNotFound,
    ChallengeShown,
    NeedsLogin,
    SiteBusy,
    SiteDown,
    WebLaneError,
)
from mediadesk.providers.web.login import interactive_login, login_with_form
from mediadesk.providers.web.playwright_hub import PlaywrightHub
from mediadesk.providers.web.signals import reach
from mediadesk.providers.web.sites import adapter_for
from mediadesk.providers.web.threads import replay

if TYPE_CHECKING:
    from mediadesk.providers.web.check import AdapterCheckResult

__all__ = [
    "RUNS_PER_ACCOUNT",
    "WebAccountBackend",
    "build_web_backend",
    "interactive_login",  # lives in .login; still importable from here for older callers
    "login_with_form",  # idem
    "task_failure",
]

log = logging.getLogger(__name__)

#: One generation per account, ever. Not configurable: see the module docstring.
RUNS_PER_ACCOUNT = 1
#: Busy notices as the WHOLE answer to one task on one account before it counts as a failure of the task.
BUSY_ANSWERS_PER_TASK = 3
#: "Answer not found" for one task on one account (each uncharged) before it is charged.
NOT_FOUND_PER_TASK = 3


def task_failure(err: WebLaneError) -> TaskFailure:
    """The lane's view of any web-lane error. The error's kind alone decides retries
    (``ErrorKind.retryable``): a missing browser (``config``) is final, a crashed one is retried.
    ``not_started`` and ``retry_after_s`` pass through (profile in use: not charged, wait)."""
    return TaskFailure(err.kind, str(err), retry_after_s=err.retry_after_s, not_started=err.not_started,
                       unavailable=err.unavailable)


class WebAccountBackend(_AccountSignals):
    """A :class:`~mediadesk.core.backend.LaneBackend` for one web account."""

    # ------------------------------------------------------------------ LaneBackend
    @property
    def capacity(self) -> int:
        return RUNS_PER_ACCOUNT

    @capacity.setter
    def capacity(self, _value: int) -> None:
        raise AttributeError("a web account runs exactly one task at a time; add accounts instead")

    def available(self) -> bool:
        if self._stopped or self._logging_in:
            return False
        if self._health == HealthStatus.NEEDS_LOGIN:
            self._maybe_relogin()
            return False
        if self._health == HealthStatus.CHALLENGE or self._resting():
            return False
        return not (self._health == HealthStatus.ERROR and time.monotonic() < self._rest_until)

    def health(self) -> tuple[str, str | None]:
        self._resting()  # a rest that is over ends here too, so the console sees it come back
        return self._health, self._last_error

    def _resting(self) -> bool:
        """True while a usage limit's rest lasts; the first call after it ends makes the account ready."""
        if self._health != HealthStatus.RESTING:
            return False
        if self._resting_until is not None and time.time() < self._resting_until:
            return True
        self._resting_until = None
        self._health, self._last_error = HealthStatus.READY, None
        log.info("%s: usage limit reset; the account takes tasks again", self.account)
        return False

    async def start(self) -> None:
        """Take the account lock and prewarm the browser; failures become health, not exceptions."""
        self._pw = await PlaywrightHub.acquire()
        try:
            async with self._run_lock:
                await self._prewarm()
        except Exception as exc:  # never let one account stop the app from starting
            self._set_error(f"start failed: {exc}")
    async def stop(self) -> None:
        self._stopped = True
        relogin, self._relogin = self._relogin, None
        if relogin is not None and not relogin.done():
            relogin.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await relogin
        async with self._run_lock:
            await self._close_browser()
            self.lock.release()
        if self._pw is not None:
            self._pw = None
            await PlaywrightHub.release()

    async def run(self, task: TaskSpec, ctx: RunContext) -> str:
        async with self._run_lock:  # the in-process guard: one run per account
            notes, self._notes = self._notes, []
            for note in notes:
                ctx.log(f"(at lane start) {note}")
            page = None
            login_tried = False
            try:
                await self._ensure_browser(ctx.log)
                assert self._browser is not None
                ctx.log(f"account {self.account}: chromium pid {self._browser.pid}, debug port {self._browser.port}")
                page = await self._ensure_page()
                try:
                    text = await self._open_for(task, page, ctx)
                except NeedsLogin as exc:  # nothing sent yet: with stored credentials, log in and go on
                    login_tried = True
                    if not await self._log_in_again(page, exc, ctx.log):
                        raise
                    text = await self._open_for(task, page, ctx)
                self._health = HealthStatus.READY
                self._needs_login_since = None
                result = await self._run_watched(page, text, ctx)
                self._threads.after_turn(page, page.url, task.route_key)
            except asyncio.CancelledError:
                # The driver has clicked stop. Close the page; a browser that does not answer is killed.
                await self._abandon_page(ctx)
                raise
            except Exception as exc:
                err = await self._after_error(exc, page, ctx, task, may_log_in=not login_tried)
                err = self._after_capacity_signal(err, ctx)
                failure = task_failure(err)
                if isinstance(err, SiteBusy) and err.where == "answer":
                    failure = self._busy_answer_guard(task.task_id, failure, ctx)
                elif isinstance(err, AnswerNotFound):
                    failure = self._not_found_guard(task.task_id, failure, ctx)
                raise failure from None
            for warning in result.warnings:  # e.g. an adapter key that stopped matching (found by role)
                ctx.log(f"warning: {warning}")
            self._last_error = "; ".join(result.warnings) or None  # the account's health text says so
            await self._keep_cookies()  # debounced; a crash later still finds the session in the jar
            self._tasks_on_browser += 1
            t = result.timings
            why = t.done_why(self.adapter.settle_ms)
            ctx.log(f"done: {why}")
            ctx.log(f"answer {len(result.answer)} chars; driver overhead {result.timings.overhead_ms:.0f} ms")
            if self._tasks_on_browser >= self.browser_config.recycle_after:
                ctx.log(f"recycling the browser after {self._tasks_on_browser} tasks")
                await self._close_browser()
            return result.answer

    def _not_found_guard(self, task_id: str, failure: TaskFailure, ctx: RunContext) -> TaskFailure:
        """An answer not found goes back uncharged, but not for ever: after ``NOT_FOUND_PER_TASK`` times for
        one task on this account it is charged (``answer_not_found``, retried, then failed for a person)."""
        n = _counted(self._not_found, task_id, NOT_FOUND_PER_TASK)
        if n is None:
            return failure
        ctx.log(f"no answer was found for this prompt {n} times: counted as a failure of the task")
        return TaskFailure(ErrorKind.ANSWER_NOT_FOUND, f"{failure.message}; {n} times in a row")

    def _busy_answer_guard(self, task_id: str, failure: TaskFailure, ctx: RunContext) -> TaskFailure:
        """A site whose only "answer" to THIS prompt is a busy notice, again and again, is not speaking
        of its capacity: after ``BUSY_ANSWERS_PER_TASK`` such answers on this account the refusal becomes
        a charged ``site_error`` (retried, then failed for a person), so one odd prompt cannot hold an
        account for ever. Banner and error refusals are never turned: they are the site's own signal."""
        n = _counted(self._busy_answers, task_id, BUSY_ANSWERS_PER_TASK)
        if n is None:
            return failure
        ctx.log(f"the site answered this prompt with only a busy notice {n} times: counted as a failure of the task")
        return TaskFailure(ErrorKind.SITE_ERROR,
                           f"{failure.message}; the same busy notice was the whole answer {n} times in a row")

    async def _open_for(self, task: TaskSpec, page: Any, ctx: RunContext) -> str:
        """Bring the page to where ``task`` belongs and return the text to type.

        A later turn of a conversation (``history`` non-empty) goes into the chat thread of its
        previous turn on this account, without a new chat and without the instructions again (the
        thread has them). Anything else starts a new chat. A later turn whose thread cannot be
        reopened here gets its earlier turns replayed in the new chat, so its context is not lost."""
        key = task.route_key
        thread = self._threads.url(key) if key is not None and task.history else None
        if key is not None and thread is not None:
            here = self._threads.shows(page, key) and page.url == thread
            if here or self._threads.addressable(thread):
                ctx.log(f"conversation {key}: turn {len(task.history) + 1} in its chat thread"
                        + ("" if here else f" (reopening {thread})"))
                await self.driver.open(page, thread, reload=not here)
                return task.prompt
        self._threads.page_moved()
        prompt = task.prompt
        if task.history:
            ctx.log(f"conversation {key}: its chat thread cannot be reopened on this account; "
                    f"replaying {len(task.history)} earlier turn(s) in a new chat")
            prompt = replay(task.history, task.prompt)
        text = compose_prompt(self.adapter, prompt, task.effective_instructions())
        await self.driver.prepare(page, text)  # the text goes in with the readiness check (one round trip)
        return text

    async def probe(self) -> tuple[bool, str]:
        """Could this account run a task now? For a circuit breaker's health probe: the warm page
        reloads the chat page and must show the logged-in marker and the prompt box (one page load,
        no generation); a browser that is not running is started first. Never raises; the health
        the console shows follows the answer."""
        if self._stopped:
            return False, "stopped"
        if self._logging_in:
            return False, "an operator is logging in"
        if self._run_lock.locked():
            return True, "a run is in progress"
        seen = await reach(self.adapter.url)  # one plain GET first: no browser work while the site is down
        if not seen.up:
            self._last_error = f"site unreachable ({seen.what}); the breaker probes it"
            return False, f"site unreachable: {seen.what}"
        async with self._run_lock:
            try:
                await self._reload_home()
            except NeedsLogin as exc:
                self._set_needs_login(str(exc))
                return False, f"needs login: {exc}"
            except ChallengeShown as exc:
                await self._challenge_seen(str(exc), self._page)
                return False, str(exc)
            except SiteDown as exc:
                self._last_error = f"{exc}; the breaker probes it"
                return False, str(exc)
            except Exception as exc:  # whatever it is, the account cannot run now
                if not self._browser_alive():
                    await self._close_browser()
                self._set_error(f"probe: {exc}")
                return False, str(exc)
            self._health, self._last_error = HealthStatus.READY, None
            self._needs_login_since = None
            await self._keep_cookies()
            return True, "logged in, prompt box ready"

    async def check_adapter(
        self, *, prompt: str | None, out_dir: Path, progress: Callable[[str], None] = log.info
    ) -> AdapterCheckResult:
        """``adapter check`` on this account's own browser (it holds the profile): in a second tab, under
        the run lock, so it starts only after the run in progress has ended and no run starts beside it
        (the lane should also stop claiming meanwhile: ``Scheduler.hold_account``). The warm tab stays.
        Raises :class:`WebLaneError` when the browser cannot be started."""
        from mediadesk.providers.web.check import check_page

        async with self._run_lock:
            if self._stopped or self._pw is None:
                raise WebLaneError(f"account {self.account}: its lane is not running")
            await self._ensure_browser(progress)
            await self._ensure_page()  # the warm tab stays open: closing the last one drops session cookies
            assert self._browser is not None
            page = await self._browser.context.new_page()
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
        if self._stopped:
            return "stopped", "fix"
        if self._logging_in:
            return "an operator is logging in", "wait"
        if self._health == HealthStatus.NEEDS_LOGIN:
            since = f" since {_clock_time(self._needs_login_since)}" if self._needs_login_since else ""
            reason = f"needs login{since} ({self._last_error})" if self._last_error else f"needs login{since}"
            return reason, "login"
        if self._health == HealthStatus.CHALLENGE:
            return f"{self._last_error}", "login"
        if self._resting():
            return f"{self._last_error}", "wait"
        if self._health == HealthStatus.ERROR and time.monotonic() < self._rest_until:
            again = time.time() + (self._rest_until - time.monotonic())
            return f"{self._last_error} (tries again at {_clock_time(again)})", "wait"
        return None


def _counted(counts: dict[str, int], task_id: str, limit: int) -> int | None:
    """Count one more uncharged outcome of ``task_id``: the count once it reaches ``limit`` (and the count
    starts again), else None (still uncharged)."""
    n = counts.get(task_id, 0) + 1
    if n < limit:
        counts[task_id] = n
        return None
    counts.pop(task_id, None)
    return n


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
