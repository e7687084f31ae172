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
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from mediadesk.config.model import AccountConfig, AppConfig, BrowserConfig, ConfigError, ProfileConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import HealthStatus, RunContext, TaskSpec
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.files.safe import ensure_private_dir
from mediadesk.providers.web.adapter import SiteAdapter, compose_prompt
from mediadesk.providers.web.autologin import (
    CredentialError,
    CredentialSource,
    LoginCooldown,
    fill_login_form,
    read_credentials,
    scrub,
)
from mediadesk.providers.web.driver import PageDriver
from mediadesk.providers.web.errors import (
    PROFILE_IN_USE_RETRY_S,
    ChallengeShown,
    NeedsLogin,
    PageGone,
    ProfileInUseError,
    RunTimeout,
    SiteBusy,
    SiteDown,
    SiteError,
    UsageLimit,
    WebLaneError,
)
from mediadesk.providers.web.finder import find_browser
from mediadesk.providers.web.launcher import OwnedBrowser
from mediadesk.providers.web.login import interactive_login, login_with_form, visible_login
from mediadesk.providers.web.playwright_hub import PlaywrightHub
from mediadesk.providers.web.profile_lock import AccountLock
from mediadesk.providers.web.selfcheck import self_check
from mediadesk.providers.web.signals import connection_failure, reach
from mediadesk.providers.web.sites import adapter_for
from mediadesk.providers.web.threads import ThreadBook, replay

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


def task_failure(err: WebLaneError) -> TaskFailure:
    """The lane's view of any web-lane error. The error's kind alone decides retries
    (``ErrorKind.retryable``): a missing browser (``config``) is final, a crashed one is retried.
    ``not_started`` and ``retry_after_s`` pass through (profile in use: not charged, wait)."""
    return TaskFailure(err.kind, str(err), retry_after_s=err.retry_after_s, not_started=err.not_started,
                       unavailable=err.unavailable)


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
    ) -> None:
        self.account = account
        self._busy_answers: dict[str, int] = {}  # task id -> busy notices given as its whole answer
        self.adapter = adapter
        self.browser_config = browser
        self.profile_dir = profile_dir
        self.kill_grace_s = kill_grace_s
        self.driver = PageDriver(adapter)
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

    def _note(self, message: str) -> None:
        log.info("%s: %s", self.account, message)
        self._notes.append(message)

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
            self._set_challenge(str(exc))
        except WebLaneError as exc:
            self._set_error(str(exc))

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
                raise failure from None
            for warning in result.warnings:  # e.g. an adapter key that stopped matching (found by role)
                ctx.log(f"warning: {warning}")
            self._last_error = "; ".join(result.warnings) or None  # the account's health text says so
            await self._keep_cookies()  # debounced; a crash later still finds the session in the jar
            self._tasks_on_browser += 1
            t = result.timings
            if t.done_rule == "stream":
                ctx.log("done: stream ended")
            else:
                ctx.log("done: page settled (stream still open)" if t.stream_still_open else "done: page settled")
            ctx.log(f"answer {len(result.answer)} chars; driver overhead {result.timings.overhead_ms:.0f} ms")
            if self._tasks_on_browser >= self.browser_config.recycle_after:
                ctx.log(f"recycling the browser after {self._tasks_on_browser} tasks")
                await self._close_browser()
            return result.answer

    def _busy_answer_guard(self, task_id: str, failure: TaskFailure, ctx: RunContext) -> TaskFailure:
        """A site whose only "answer" to THIS prompt is a busy notice, again and again, is not speaking
        of its capacity: after ``BUSY_ANSWERS_PER_TASK`` such answers on this account the refusal becomes
        a charged ``site_error`` (retried, then failed for a person), so one odd prompt cannot hold an
        account for ever. Banner and error refusals are never turned: they are the site's own signal."""
        n = self._busy_answers.get(task_id, 0) + 1
        self._busy_answers[task_id] = n
        if n < BUSY_ANSWERS_PER_TASK:
            return failure
        self._busy_answers.pop(task_id, None)
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
        await self.driver.prepare(page)
        prompt = task.prompt
        if task.history:
            ctx.log(f"conversation {key}: its chat thread cannot be reopened on this account; "
                    f"replaying {len(task.history)} earlier turn(s) in a new chat")
            prompt = replay(task.history, task.prompt)
        return compose_prompt(self.adapter, prompt, task.effective_instructions())

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
                self._set_challenge(str(exc))
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

    async def _after_error(
        self, exc: Exception, page: Any, ctx: RunContext, task: TaskSpec, *, may_log_in: bool = False
    ) -> WebLaneError:
        """Record what a failed attempt says about the account (health, evidence, a page or browser
        to replace) and return it as a :class:`WebLaneError`; its kind decides the retry.
        ``may_log_in``: a logout found here may still try an automatic login (not tried yet)."""
        if page is None and isinstance(exc, WebLaneError):
            # Nothing was sent: no browser (not found, did not start) or someone holds the profile.
            # The account rests so the lane does not hammer a profile that is not ours right now.
            self._set_error(str(exc), rest=True)
            if exc.not_started:
                ctx.log(f"not started: {exc}")
            return exc
        crashed = not self._browser_alive()
        if not crashed and not isinstance(exc, ChallengeShown | SiteBusy | SiteDown) and page is not None:
            # a failure with a bot check on the page is the check's doing: a person must solve it
            seen = await self.driver.challenge(page)
            if seen is not None:
                exc = ChallengeShown(f"{self.adapter.name or self.adapter.url}: a bot check needs a person "
                                     f"({seen.what}; the run had ended with: {exc})")
        if isinstance(exc, NeedsLogin):
            await self._evidence(page, ctx, task)
            if may_log_in and await self._log_in_again(page, exc, ctx.log):
                # Logged out mid-run and logged in again: the run is lost, the task is worth a retry.
                return SiteError(f"logged out during the run and logged in again automatically: {exc}")
            self._set_needs_login(str(exc))
            return exc
        await self._evidence(page, ctx, task)
        await self._after_failure(ctx)
        err: WebLaneError
        if isinstance(exc, PageGone) or crashed:
            err = PageGone(f"browser crashed or closed: {exc}")
            await self._close_browser()
        elif isinstance(exc, WebLaneError):
            err = exc
        else:  # e.g. a Playwright error outside the driver's mapping, on a live browser
            err = SiteError(f"page error: {exc}")
            if (code := connection_failure(str(exc))) is not None:
                err = SiteDown(f"the site is unreachable (net::{code}): {exc}")
        if isinstance(err, SiteError | RunTimeout) and not crashed:
            # the run failed with the site away (the page may not say so): the site's capacity, not the task
            reached = await reach(self.adapter.url)
            if not reached.up:
                err = SiteDown(f"the site is unreachable ({reached.what}); the run ended with: {err}")
        self._last_error = str(err)
        return err

    def _after_capacity_signal(self, err: WebLaneError, ctx: RunContext) -> WebLaneError:
        """What a refusal, an outage or a bot check does to the account: rest until a usage limit
        resets, say the site is down (its breaker opens in the lane), or wait for a person."""
        if isinstance(err, UsageLimit):
            self._resting_until = err.until
            self._health = HealthStatus.RESTING
            self._last_error = f"resting until {_clock_time(err.until)} (usage limit: {_short(err.text)})"
            ctx.log(f"usage limit: account {self.account} {self._last_error}; it takes no task until then")
        elif isinstance(err, SiteDown):
            self._last_error = f"site down: {err}"
            ctx.log(f"site down: {err}; the task goes back uncharged and the account's breaker probes the site")
        elif isinstance(err, ChallengeShown):
            self._set_challenge(str(err))
            ctx.log(f"challenge: account {self.account} needs a person: {err}; resolve it with the account's "
                    "'Log in' (a visible browser on its profile); the task goes back uncharged")
        return err

    async def _run_watched(self, page: Any, text: str, ctx: RunContext) -> Any:
        """The driver's run, with the page's network watched: a request to the site that fails at the
        connection level (refused, reset, a stream cut) while the site no longer answers a plain GET
        ends the run within a moment as :class:`SiteDown`, instead of waiting for ``max_run_s``. A
        failed request while the site still answers changes nothing (the driver's rules decide)."""
        origin = _origin(self.adapter.url)
        failures: asyncio.Queue[str] = asyncio.Queue()

        def on_failed(request: Any) -> None:
            try:
                code = connection_failure(request.failure or "")
                if code is not None and _origin(request.url) == origin:
                    failures.put_nowait(f"{request.method} {urlsplit(request.url).path} failed with net::{code}")
            except Exception:  # a listener must never break the page's event dispatch
                log.debug("requestfailed listener", exc_info=True)

        page.on("requestfailed", on_failed)
        run = asyncio.ensure_future(self.driver.run(page, text))
        try:
            while True:
                failed = asyncio.ensure_future(failures.get())
                try:
                    await asyncio.wait({run, failed}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    failed.cancel()
                if run.done():
                    return run.result()
                what = failed.result()
                seen = await reach(self.adapter.url)
                if seen.up:
                    ctx.log(f"network: {what}, but the site answers ({seen.what}): the run goes on")
                    continue
                ctx.log(f"network: {what} and the site does not answer ({seen.what}): the run is cut")
                await self._end_run(run)
                raise SiteDown(f"the site went down during the run: {what}; probe: {seen.what}")
        except asyncio.CancelledError:
            await self._end_run(run)
            raise
        finally:
            with contextlib.suppress(Exception):
                page.remove_listener("requestfailed", on_failed)

    @staticmethod
    async def _end_run(run: asyncio.Future[Any]) -> None:
        if not run.done():
            run.cancel()
        with contextlib.suppress(BaseException):
            await run

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

    # ------------------------------------------------------------------ browser lifecycle
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
        ensure_private_dir(self.profile_dir, what="browser profile")
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
    )
