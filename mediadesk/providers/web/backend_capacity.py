"""What a failed attempt says about the account, for :class:`~mediadesk.providers.web.backend.WebAccountBackend`:
the error's kind (a crash, a logout, a bot check, the site down), the capacity signals that follow
(rest until a usage limit resets, the site's breaker, a person needed), and the run watched for the
site going down mid-answer."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any
from urllib.parse import urlsplit

from mediadesk.core.backend import HealthStatus, RunContext, TaskSpec
from mediadesk.providers.web.backend_browser import _clock_time, _origin, _short
from mediadesk.providers.web.backend_login import _AccountLogin
from mediadesk.providers.web.errors import (
    AnswerNotFound,
    ChallengeShown,
    EmptyAnswer,
    NeedsLogin,
    PageGone,
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


class _AccountSignals(_AccountLogin):
    """Failures and capacity signals of the account, over its login state."""

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
        if isinstance(exc, ChallengeShown):  # the account's own copy, for the person who solves it
            await self._shoot_challenge(page)
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
        if isinstance(err, SiteError | RunTimeout | EmptyAnswer) and not crashed:
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
        elif isinstance(err, AnswerNotFound):  # the account says its adapter needs a look; the task waits
            self._set_error(f"answer not found: {err}", rest=True)
            ctx.log(f"answer not found: {err}; the task goes back uncharged, the account rests")
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
            self._say_waits(page, ctx)
            with contextlib.suppress(Exception):
                page.remove_listener("requestfailed", on_failed)

    def _say_waits(self, page: Any, ctx: RunContext) -> None:
        """What getting the page ready waited for (the site still generating), in the task log."""
        for note in self.driver.take_notes(page):
            ctx.log(f"waited: {note}")

    @staticmethod
    async def _end_run(run: asyncio.Future[Any]) -> None:
        if not run.done():
            run.cancel()
        with contextlib.suppress(BaseException):
            await run
