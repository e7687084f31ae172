"""The web driver's session with the pages of one site: how a page script is run and a trusted press
is made (over the driver's own CDP connection where there is one, else through Playwright), what a
Playwright error means, and what a run noted per page (warnings, the send step's trace, waits for the
task log, the text ``prepare`` already typed). The driver's steps (readiness, sending, the answer wait)
each get this session from the driver; none of them knows the driver."""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from mediadesk.core.log_lines import LogText
from mediadesk.providers.web.adapter import SiteAdapter, show_selector
from mediadesk.providers.web.cdp_direct import DirectPage, open_direct
from mediadesk.providers.web.errors import AdapterMismatch, PageGone, RunTimeout, SiteError, WebLaneError
from mediadesk.providers.web.stream_watch import StreamWatch

__all__ = ["Navigated", "PageSession", "cancel", "first_line", "is_closed", "quiet"]

#: The driver's log: its steps report under the one name operators filter on.
log = logging.getLogger("mediadesk.providers.web.driver")


class Navigated(SiteError):
    """The document the script ran in was replaced. Before sending, the steps are redone."""


def first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def is_closed(exc: BaseException) -> bool:
    msg = str(exc)
    return "has been closed" in msg or "Target crashed" in msg or "Target closed" in msg


def _is_navigation(exc: BaseException) -> bool:
    msg = str(exc)
    return "Execution context was destroyed" in msg or "navigat" in msg.lower()


def quiet(fut: asyncio.Future[Any]) -> None:
    """Let a round trip that is no longer awaited finish on its own: its error, if any, is logged
    (at debug level), never left as "exception was never retrieved"."""

    def done(f: asyncio.Future[Any]) -> None:
        if not f.cancelled() and (exc := f.exception()) is not None:
            log.debug("a round trip no longer awaited failed: %s", first_line(exc))

    fut.add_done_callback(done)


async def cancel(*futs: asyncio.Future[Any]) -> None:
    """Cancel round trips that are no longer wanted and let them end (their errors are dropped)."""
    for fut in futs:
        fut.cancel()
    await asyncio.gather(*futs, return_exceptions=True)


class PageSession:
    """One driver's link to its pages. Holds per-page state in weak maps, so one driver serves several
    pages and a closed page leaves nothing behind."""

    def __init__(
        self,
        adapter: SiteAdapter,
        cfg: dict[str, Any],
        *,
        watch_streams: bool,
        cdp_port: Callable[[Page], int | None] | None,
    ) -> None:
        self.adapter = adapter
        #: What the page scripts run with (``cfg`` of ``js/*.js``); a run may add what it learned.
        self.cfg = cfg
        #: Completion from the site's own answer stream (see stream_watch.py); off: the DOM rule only.
        self.watch_streams = watch_streams
        #: The debug port of the browser a page belongs to (pages of a browser MediaDesk started), or None.
        self.cdp_port = cdp_port
        self._watches: weakref.WeakKeyDictionary[Page, StreamWatch] = weakref.WeakKeyDictionary()
        self._cdp: weakref.WeakKeyDictionary[Page, Any] = weakref.WeakKeyDictionary()
        #: Our own CDP connection per page (see cdp_direct.py); None: this page has none (use Playwright).
        self._direct: weakref.WeakKeyDictionary[Page, asyncio.Future[DirectPage | None]] = weakref.WeakKeyDictionary()
        #: Per page: what the last run's send step saw (for the evidence), its warnings, and the waits
        #: getting the page ready made (for the task log).
        self._diag: weakref.WeakKeyDictionary[Page, list[str]] = weakref.WeakKeyDictionary()
        self._warn: weakref.WeakKeyDictionary[Page, list[str]] = weakref.WeakKeyDictionary()
        self._notes: weakref.WeakKeyDictionary[Page, list[LogText]] = weakref.WeakKeyDictionary()
        #: Per page: the text prepare() already typed and what the install script returned.
        self.typed: weakref.WeakKeyDictionary[Page, tuple[str, dict[str, Any]]] = weakref.WeakKeyDictionary()

    # --- errors -----------------------------------------------------------------------------------

    def translate(self, exc: PlaywrightError) -> WebLaneError:
        msg = str(exc)
        if "MEDIADESK_BAD_SELECTOR" in msg:
            sel = msg.split("MEDIADESK_BAD_SELECTOR", 1)[1].strip().splitlines()[0]
            return AdapterMismatch(f"site adapter {self.adapter.source}: invalid CSS selector {sel!r}")
        if is_closed(exc):
            return PageGone(f"the page closed or crashed: {first_line(exc)}")
        if _is_navigation(exc):
            return Navigated("the page navigated away during the run")
        return SiteError(f"page script failed: {first_line(exc)}")

    # --- page scripts -----------------------------------------------------------------------------

    async def evaluate(self, page: Page, script: str, arg: Any = None) -> Any:
        try:
            direct = await self.direct_page(page)
            if direct is not None:
                return await direct.call(script, arg)
            return await page.evaluate(script, arg)
        except PlaywrightError as exc:
            raise self.translate(exc) from exc

    async def _cdp_session(self, page: Page) -> Any:
        cdp = self._cdp.get(page)
        if cdp is None:
            cdp = self._cdp[page] = await page.context.new_cdp_session(page)
        return cdp

    async def direct_page(self, page: Page) -> DirectPage | None:
        """The page's own CDP connection, made on first use (one at a time per page); None when the
        page's browser has no debug port we know, or the connection could not be made."""
        if self.cdp_port is None:
            return None
        opening = self._direct.get(page)
        if opening is None:
            opening = self._direct[page] = asyncio.ensure_future(self._open_direct(page))
        direct = await asyncio.shield(opening)
        return direct if direct is None or direct.usable or page.is_closed() else None

    async def _open_direct(self, page: Page) -> DirectPage | None:
        assert self.cdp_port is not None  # checked by the caller
        port = self.cdp_port(page)
        if port is None or page.is_closed():
            return None
        try:
            return await asyncio.wait_for(open_direct(page, port, await self._cdp_session(page)), 10.0)
        except Exception as exc:  # any failure: Playwright's path serves this page
            log.info("no direct CDP connection to the page (%s); using Playwright's", first_line(exc))
            return None

    async def settle_navigation(self, page: Page) -> None:
        try:
            await page.wait_for_load_state("domcontentloaded", timeout=self.adapter.page_load_timeout_s * 1000.0)
        except PlaywrightTimeout as exc:
            raise RunTimeout(f"{page.url} did not finish loading") from exc
        except PlaywrightError as exc:
            raise self.translate(exc) from exc

    # --- trusted input ----------------------------------------------------------------------------

    async def input(self, what: str, action: Awaitable[Any]) -> None:
        """Await one Playwright input action (click, key, insert), translating its errors."""
        try:
            await action
        except PlaywrightTimeout as exc:
            raise AdapterMismatch(f"could not {what}: {first_line(exc)}") from exc
        except PlaywrightError as exc:
            raise self.translate(exc) from exc

    async def press(self, page: Page, x: float, y: float) -> None:
        """One trusted left click at (x, y): press and release sent back to back on the page's CDP
        session (falls back to Playwright's mouse where CDP sessions are not available)."""
        direct = await self.direct_page(page)
        if direct is not None:
            await direct.press(x, y)
            return
        try:
            cdp = await self._cdp_session(page)
        except PlaywrightError:
            await page.mouse.click(x, y)
            return
        ev = {"x": x, "y": y, "button": "left", "clickCount": 1}
        await asyncio.gather(cdp.send("Input.dispatchMouseEvent", dict(ev, type="mousePressed")),
                             cdp.send("Input.dispatchMouseEvent", dict(ev, type="mouseReleased")))

    async def click(self, page: Page, target: dict[str, float] | None, selector: str, what: str) -> None:
        """A real mouse click where the page's hit test said; Playwright's checked click otherwise."""
        if target:
            await self.input(what, self.press(page, target["x"], target["y"]))
        else:
            await self.input(what, page.locator(selector).first.click(timeout=5000))

    # --- the stream watcher -----------------------------------------------------------------------

    def stream_watch(self, page: Page) -> StreamWatch | None:
        """The page's stream watcher, attached on first sight (before a load, so a WebSocket opened
        by the page is seen too)."""
        if not self.watch_streams:
            return None
        watch = self._watches.get(page)
        if watch is None:
            watch = self._watches[page] = StreamWatch(page, stream_urls=self.adapter.stream_url,
                                                      capture=self.adapter.reads_stream)
        return watch

    async def capture_streams(self, page: Page, watch: StreamWatch) -> None:
        """Let ``watch`` gather what streams carry as it comes (an adapter that reads its answer out of the
        stream; see :meth:`StreamWatch.attach_cdp`). Once per page; never raises."""
        if not watch.capturing:
            return
        try:
            await watch.attach_cdp(await self._cdp_session(page))
        except PlaywrightError as exc:
            log.debug("no CDP session for the stream capture: %s", first_line(exc))

    def unwatched(self, page: Page) -> bool:
        """Streams are watched but this page has no watcher yet (it was loaded before one existed)."""
        return self.watch_streams and page not in self._watches

    # --- names, warnings, notes, trace ------------------------------------------------------------

    def prompt_name(self) -> str:
        a = self.adapter
        return f"prompt box {show_selector(a.prompt)}" if a.prompt else "prompt box (found by role)"

    def send_name(self) -> str:
        a = self.adapter
        return f"send button {show_selector(a.send)}" if a.send else "send button (found by role)"

    def begin_run(self, page: Page) -> None:
        """A run starts on ``page``: its trace and warnings start empty."""
        self._diag[page] = []
        self._warn[page] = []

    def warning(self, page: Page, message: str) -> None:
        warned = self._warn.setdefault(page, [])
        if message not in warned:
            warned.append(message)
            log.warning("%s: %s", self.adapter.name or self.adapter.url, message)

    def warnings(self, page: Page) -> tuple[str, ...]:
        return tuple(self._warn.get(page, ()))

    def note(self, page: Page, message: LogText) -> None:
        """Something the task log should say about getting the page ready (a wait for the site), taken by
        the account with :meth:`take_notes`."""
        self._notes.setdefault(page, []).append(message)

    def take_notes(self, page: Page) -> list[LogText]:
        """What getting ``page`` ready waited for since the last call (for the task log)."""
        return self._notes.pop(page, [])

    def trace(self, page: Page, message: str) -> None:
        """What the send step saw (covering elements, Playwright's call log, the leave check), for the evidence."""
        self._diag.setdefault(page, []).append(message)

    def traced(self, page: Page) -> bool:
        return bool(self._diag.get(page))

    def take_trace(self, page: Page) -> list[str] | None:
        return self._diag.pop(page, None)

    def note_via(self, page: Page, via: dict[str, str]) -> None:
        """A key that was set but matched nothing, so the part was found by role: say so."""
        keys = {"prompt": ("prompt", self.adapter.prompt), "send": ("send", self.adapter.send),
                "answer": ("answer", self.adapter.answer)}
        for part, how in via.items():
            if how == "fallback" and part in keys:
                key, value = keys[part]
                self.warning(page, f"adapter key {key!r} {show_selector(value)} matches nothing on the page; "
                                   f"the {part} was found by role (update the adapter)")

    def note_answer_via(self, page: Page, snap: dict[str, Any]) -> None:
        via = snap.get("via") or {}
        if via.get("answer") == "role" and self.adapter.answer:
            self.note_via(page, {"answer": "fallback"})
