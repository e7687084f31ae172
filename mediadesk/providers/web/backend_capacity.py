"""What a web run and its failure say about one account and its site: the run watched for the site
going down mid-answer; a failure's kind (a crash, a logout, a bot check, the site down) and the
capacity signals that follow (rest until a usage limit resets, the site's breaker, a person needed);
and the :class:`TaskFailure` the lane gets, charged once an uncharged outcome repeats for one task."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Protocol
from urllib.parse import urlsplit

from mediadesk.core.backend import HealthStatus, RunContext, TaskSpec
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.core.log_lines import LOG, LogText
from mediadesk.providers.web.backend_browser import AccountSite
from mediadesk.providers.web.backend_state import clock_time
from mediadesk.providers.web.errors import (
    AnswerNotFound,
    ChallengeShown,
    EmptyAnswer,
    NeedsLogin,
    PageGone,
    PromptTooLong,
    RunTimeout,
    SiteBusy,
    SiteDown,
    SiteError,
    UsageLimit,
    WebLaneError,
)
from mediadesk.providers.web.signals import connection_failure, reach

#: The backend's log: its parts report under the one name operators filter on.
log = logging.getLogger("mediadesk.providers.web.backend")

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


class Relogin(Protocol):
    """What reading a failure needs of the account's login (``AccountLogin``)."""

    async def log_in_again(self, page: Any, exc: NeedsLogin, say: Callable[[LogText], None]) -> bool: ...

    def set_needs_login(self, message: str) -> None: ...

    async def shoot_challenge(self, page: Any) -> None: ...


class AccountFailures:
    """Reads a run's failure into the account's health and the task's :class:`TaskFailure`."""

    def __init__(self, site: AccountSite, *, login: Relogin) -> None:
        self.site = site
        self.account, self.state = site.account, site.state
        self.adapter, self.driver, self.browser = site.adapter, site.driver, site.browser
        self.login = login
        self._busy_answers: dict[str, int] = {}  # task id -> busy notices given as its whole answer
        self._not_found: dict[str, int] = {}  # task id -> runs whose answer was not found (uncharged)

    async def failure(
        self, exc: Exception, page: Any, ctx: RunContext, task: TaskSpec, *, may_log_in: bool
    ) -> TaskFailure:
        """What ``exc`` (a failed run of ``task``) does to the account, and the failure the lane gets."""
        err = await self._after_error(exc, page, ctx, task, may_log_in=may_log_in)
        err = self._after_capacity_signal(err, ctx)
        failure = task_failure(err)
        if isinstance(err, SiteBusy) and err.where == "answer":
            failure = self._busy_answer_guard(task.task_id, failure, ctx)
        elif isinstance(err, AnswerNotFound):
            failure = self._not_found_guard(task.task_id, failure, ctx)
        return failure

    async def _after_error(
        self, exc: Exception, page: Any, ctx: RunContext, task: TaskSpec, *, may_log_in: bool = False
    ) -> WebLaneError:
        """Record what a failed attempt says about the account (health, evidence, a page or browser
        to replace) and return it as a :class:`WebLaneError`; its kind decides the retry.
        ``may_log_in``: a logout found here may still try an automatic login (not tried yet)."""
        state = self.state
        if isinstance(exc, PromptTooLong):  # refused before anything was typed: the account and its page are fine
            return exc
        if page is None and isinstance(exc, WebLaneError):
            # Nothing was sent: no browser (not found, did not start) or someone holds the profile.
            # The account rests so the lane does not hammer a profile that is not ours right now.
            state.set_error(str(exc), rest=True)
            if exc.not_started:
                ctx.log(LOG.not_started(error=str(exc)))
            return exc
        crashed = not self.browser.alive()
        if not crashed and not isinstance(exc, ChallengeShown | SiteBusy | SiteDown) and page is not None:
            # a failure with a bot check on the page is the check's doing: a person must solve it
            seen = await self.driver.challenge(page)
            if seen is not None:
                exc = ChallengeShown(f"{self.adapter.name or self.adapter.url}: a bot check needs a person "
                                     f"({seen.what}; the run had ended with: {exc})")
        if isinstance(exc, NeedsLogin):
            await self._evidence(page, ctx, task)
            if may_log_in and await self.login.log_in_again(page, exc, ctx.log):
                # Logged out mid-run and logged in again: the run is lost, the task is worth a retry.
                return SiteError(f"logged out during the run and logged in again automatically: {exc}")
            self.login.set_needs_login(str(exc))
            return exc
        await self._evidence(page, ctx, task)
        if isinstance(exc, ChallengeShown):  # the account's own copy, for the person who solves it
            await self.login.shoot_challenge(page)
        await self.browser.after_failure(ctx)
        err: WebLaneError
        if isinstance(exc, PageGone) or crashed:
            err = PageGone(f"browser crashed or closed: {exc}")
            await self.browser.close()
        elif isinstance(exc, WebLaneError):
            err = exc
        else:  # e.g. a Playwright error outside the driver's mapping, on a live browser
            err = SiteError(f"page error: {exc}")
            if (code := connection_failure(str(exc))) is not None:
                err = SiteDown(f"the site is unreachable (net::{code}): {exc}")
        if isinstance(err, SiteError | RunTimeout | EmptyAnswer) and not crashed:
            # the run failed with the site away (the page may not say so): the site's capacity, not the task
            reached = await reach(self.adapter.url)
            if not reached.up:
                err = SiteDown(f"the site is unreachable ({reached.what}); the run ended with: {err}")
        state.last_error = str(err)
        return err

    def _after_capacity_signal(self, err: WebLaneError, ctx: RunContext) -> WebLaneError:
        """What a refusal, an outage or a bot check does to the account: rest until a usage limit
        resets, say the site is down (its breaker opens in the lane), or wait for a person."""
        state = self.state
        if isinstance(err, UsageLimit):
            state.resting_until = err.until
            state.health = HealthStatus.RESTING
            state.last_error = f"resting until {clock_time(err.until)} (usage limit: {_short(err.text)})"
            ctx.log(LOG.usage_limit(account=self.account, rest=state.last_error))
        elif isinstance(err, SiteDown):
            state.last_error = f"site down: {err}"
            ctx.log(LOG.site_down(error=str(err)))
        elif isinstance(err, AnswerNotFound):  # the account says its adapter needs a look; the task waits
            state.set_error(f"answer not found: {err}", rest=True)
            ctx.log(LOG.answer_not_found(error=str(err)))
        elif isinstance(err, ChallengeShown):
            state.set_challenge(str(err))
            ctx.log(LOG.challenge(account=self.account, error=str(err)))
        return err

    def _not_found_guard(self, task_id: str, failure: TaskFailure, ctx: RunContext) -> TaskFailure:
        """An answer not found goes back uncharged, but not for ever: after ``NOT_FOUND_PER_TASK`` times for
        one task on this account it is charged (``answer_not_found``, retried, then failed for a person)."""
        n = _counted(self._not_found, task_id, NOT_FOUND_PER_TASK)
        if n is None:
            return failure
        ctx.log(LOG.no_answer_counted(n=n))
        return TaskFailure(ErrorKind.ANSWER_NOT_FOUND, f"{failure.message}; {n} times in a row")

    def _busy_answer_guard(self, task_id: str, failure: TaskFailure, ctx: RunContext) -> TaskFailure:
        """A site whose only "answer" to THIS prompt is a busy notice, again and again, is not speaking
        of its capacity: after ``BUSY_ANSWERS_PER_TASK`` such answers on this account the refusal becomes
        a charged ``site_error`` (retried, then failed for a person), so one odd prompt cannot hold an
        account for ever. Banner and error refusals are never turned: they are the site's own signal."""
        n = _counted(self._busy_answers, task_id, BUSY_ANSWERS_PER_TASK)
        if n is None:
            return failure
        ctx.log(LOG.busy_notice_counted(n=n))
        return TaskFailure(ErrorKind.SITE_ERROR,
                           f"{failure.message}; the same busy notice was the whole answer {n} times in a row")

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
            ctx.log(LOG.evidence(files=", ".join(str(p) for p in paths)))

    # ------------------------------------------------------------------ the run, watched
    async def run_watched(self, page: Any, text: str, ctx: RunContext) -> Any:
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
        self._say_waits(page, ctx)
        run = asyncio.ensure_future(self.driver.run(page, text))
        try:
            while True:
                failed = asyncio.ensure_future(failures.get())
                try:
                    await asyncio.wait({run, failed}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    failed.cancel()
                if run.done():
                    result = run.result()
                    if result.prompt_note is not None:  # the prompt went as a file (over paste_limit)
                        ctx.log(result.prompt_note)
                    return result
                what = failed.result()
                seen = await reach(self.adapter.url)
                if seen.up:
                    ctx.log(LOG.network_goes_on(error=str(what), answer=seen.what))
                    continue
                ctx.log(LOG.network_cut(error=str(what), answer=seen.what))
                await _end_run(run)
                raise SiteDown(f"the site went down during the run: {what}; probe: {seen.what}")
        except asyncio.CancelledError:
            await _end_run(run)
            raise
        finally:
            self._say_waits(page, ctx)
            with contextlib.suppress(Exception):
                page.remove_listener("requestfailed", on_failed)

    def _say_waits(self, page: Any, ctx: RunContext) -> None:
        """What getting the page ready waited for (the site still generating), in the task log."""
        for note in self.driver.take_notes(page):
            ctx.log(LOG.waited(why=note))


async def _end_run(run: asyncio.Future[Any]) -> None:
    if not run.done():
        run.cancel()
    with contextlib.suppress(BaseException):
        await run


def _counted(counts: dict[str, int], task_id: str, limit: int) -> int | None:
    """Count one more uncharged outcome of ``task_id``: the count once it reaches ``limit`` (and the count
    starts again), else None (still uncharged)."""
    n = counts.get(task_id, 0) + 1
    if n < limit:
        counts[task_id] = n
        return None
    counts.pop(task_id, None)
    return n


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme, parts.netloc


def _short(text: str, limit: int = 160) -> str:
    shown = " ".join(text.split())
    return shown if len(shown) <= limit else shown[:limit] + "…"
