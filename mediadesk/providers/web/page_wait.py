"""The completion wait of the web driver: one page event at a time until a final state (bounded by
``max_run_s``, cut short by a cancel), the site's stream state pushed to the page's watcher, and the
best-effort stop on cancel or timeout."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from playwright.async_api import Page

from mediadesk.providers.web.errors import RunCanceled, RunTimeout, WebLaneError
from mediadesk.providers.web.page_scripts import NEXT_JS, SET_STREAM_JS, STOP_JS, WAIT_IDLE_JS
from mediadesk.providers.web.page_session import PageSession
from mediadesk.providers.web.stream_watch import StreamWatch

__all__ = ["AnswerWait"]

log = logging.getLogger("mediadesk.providers.web.driver")

_STOP_TIMEOUT_S = 3.0  # best-effort stop click on cancel/timeout, and the wait for busy to go


class AnswerWait:
    """Wait for this run's answer; stop the site when the run ends early."""

    def __init__(self, session: PageSession) -> None:
        self._session = session
        self._pushes: set[asyncio.Task[Any]] = set()

    def push_stream(self, page: Page, watch: StreamWatch, state: str) -> None:
        """Tell the page's watcher what the stream did (in order: on the channel the run's own page
        scripts take, which keeps the calls' order; nothing is sent once the run is over, so a late
        change cannot reach the next run's watcher)."""
        generation = watch.generation
        news = dict(watch.news(), why=watch.cut)  # as it is now: the push itself may go out later

        async def push() -> None:
            if watch.generation != generation:
                return
            try:
                await self._session.evaluate(page, SET_STREAM_JS, [state, news])
            except WebLaneError as exc:  # the page went: the run's own wait reports it
                log.debug("stream state %s not delivered: %s", state, exc)

        task = asyncio.ensure_future(push())
        self._pushes.add(task)
        task.add_done_callback(self._pushes.discard)
    async def await_answer(
        self,
        page: Page,
        deadline: float,
        on_progress: Callable[[], None] | None,
        cancel_event: asyncio.Event | None,
        first: asyncio.Future[Any] | None = None,
    ) -> tuple[dict[str, Any], int]:
        """Page events until a final state; ``first``: the first wait, already sent with the send press."""
        cancel_wait = asyncio.ensure_future(cancel_event.wait()) if cancel_event is not None else None
        version, progress = 0, 0
        try:
            while True:
                snap = await self._next(page, version, on_progress is not None, deadline, cancel_wait, first)
                first = None
                if snap["state"] != "armed":
                    return snap, progress
                if snap["version"] != version:
                    version = snap["version"]
                    if snap["length"]:
                        progress += 1
                        if on_progress is not None:
                            on_progress()
        finally:
            if cancel_wait is not None:
                cancel_wait.cancel()

    async def _next(
        self,
        page: Page,
        version: int,
        progress: bool,
        deadline: float,
        cancel_wait: asyncio.Future[Any] | None,
        sent: asyncio.Future[Any] | None = None,
    ) -> dict[str, Any]:
        """One page event: the answer changed, or a final state. Bounded by ``max_run_s``."""
        loop = asyncio.get_running_loop()
        nxt = (sent if sent is not None
               else asyncio.ensure_future(self._session.evaluate(page, NEXT_JS, [version, progress])))
        waiters: set[asyncio.Future[Any]] = {nxt}
        if cancel_wait is not None:
            waiters.add(cancel_wait)
        try:
            done, _ = await asyncio.wait(
                waiters, timeout=max(0.0, deadline - loop.time()), return_when=asyncio.FIRST_COMPLETED
            )
        except BaseException:
            nxt.cancel()
            raise
        if nxt in done:
            result: dict[str, Any] = nxt.result()
            return result
        nxt.cancel()
        if cancel_wait is not None and cancel_wait in done:
            raise RunCanceled("canceled by the operator")
        raise RunTimeout(f"no complete answer within max_run_s={self._session.adapter.max_run_s:g} s")

    async def abort(self, page: Page) -> None:
        """Best effort: drop the watcher and click stop if something is still generating."""
        try:
            await asyncio.wait_for(self._stop(page), _STOP_TIMEOUT_S)
        except Exception as exc:  # best effort by design: the lane closes the page anyway
            log.debug("stop click failed: %s", exc)

    async def _stop(self, page: Page) -> None:
        target = await page.evaluate(STOP_JS, self._session.cfg)
        if not target:
            return
        if "x" in target:
            await page.mouse.click(target["x"], target["y"])
        # Wait for the site to confirm: a site that still generates would refuse the next run.
        budget_ms = (_STOP_TIMEOUT_S - 0.5) * 1000.0
        stopped = await page.evaluate(WAIT_IDLE_JS, dict(self._session.cfg, timeoutMs=budget_ms))
        log.debug("clicked stop (%s); busy gone: %s", target, stopped)
