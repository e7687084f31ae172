"""What every step of a :class:`~mediadesk.providers.web.driver.PageDriver` shares: the page-side
scripts (``js/*.js``), the page's error translation, trusted input and the run's warnings and notes.

The steps themselves live beside it (``page_ready``, ``page_send``, ``page_wait``, ``page_evidence``);
``driver.py`` puts them together and holds the run.
"""

from __future__ import annotations

import asyncio
import html
import logging
import re
import weakref
from collections.abc import Callable
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from mediadesk.providers.web.adapter import SendClick, SiteAdapter, show_selector
from mediadesk.providers.web.busy import BusyMatcher
from mediadesk.providers.web.cdp_direct import DirectPage, open_direct
from mediadesk.providers.web.errors import (
    AdapterMismatch,
    PageGone,
    RunTimeout,
    SiteError,
    WebLaneError,
)
from mediadesk.providers.web.signals import ChallengeMatcher, FinalErrorMatcher
from mediadesk.providers.web.stream_watch import StreamWatch

#: The driver's log: its steps report under the one name operators filter on.
log = logging.getLogger("mediadesk.providers.web.driver")

# --- page-side code -------------------------------------------------------------------------------
# The scripts live in js/*.js (one page function body each, with js/helpers.js in scope), read once.


def _read_js(name: str) -> str:
    return resources.files("mediadesk.providers.web").joinpath("js", name).read_text(encoding="utf-8")


_HELPERS = _read_js("helpers.js")


def _script(name: str) -> str:
    """The page function ``(cfg) => {...}`` of ``js/<name>``, with the shared helpers in scope."""
    return "(cfg) => {\n" + _HELPERS + "\n" + _read_js(name) + "\n}"


# The readiness wait, resolving {state, busyWaitMs} (how long a generation in progress was waited out).
_READY_JS = ("(cfg) => {\n" + _HELPERS + "\nconst __ready = (() => {\n" + _read_js("ready.js")
             + "\n})();\nreturn __ready.then((state) => ({state, busyWaitMs: window.__mediadeskBusyWaitMs || 0}));\n}")
_NEW_CHAT_JS = _script("new_chat.js")
_INSTALL_JS = _script("install.js")
_STOP_JS = _script("stop.js")
_WAIT_IDLE_JS = _script("wait_idle.js")
_LOGGED_IN_JS = _script("logged_in.js")
# prepare() given the text: wait until ready, then install the watcher and type, in one
# round trip: {state} or {state: 'ready', info} (info: what install.js returns).
_READY_TYPE_BODY = ("const __ready = (() => {\n" + _read_js("ready.js")
                    + "\n})();\nreturn __ready.then((state) => state !== 'ready' ? {state} : Promise.resolve((() => {\n"
                    + _read_js("install.js") + "\n})()).then((info) => ({state, info, "
                    + "busyWaitMs: window.__mediadeskBusyWaitMs || 0})));")
_READY_TYPE_JS = "(cfg) => {\n" + _HELPERS + "\n" + _READY_TYPE_BODY + "\n}"
# prepare() with the new-chat click made from the page (js/new_chat_click.js): one round trip.
_NEW_CHAT_TYPE_JS = ("(cfg) => {\n" + _HELPERS + "\n" + _read_js("new_chat_click.js")
                     .replace("__NEW_CHAT__", _read_js("new_chat.js"))
                     .replace("__READY_TYPE__", _READY_TYPE_BODY) + "\n}")
# Calls into the watcher that install.js left in the page.
_READY_TO_SEND_JS = "(text) => window.__mediadeskWatch.readyToSend(text)"
_SELECT_PROMPT_JS = "() => window.__mediadeskWatch.selectPrompt()"
_NEXT_JS = "([v, progress]) => window.__mediadeskWatch.next(v, progress)"
_RESUME_JS = "(s) => window.__mediadeskWatch.resume(s)"
_CONFIRM_SENT_JS = "([text, ms]) => window.__mediadeskWatch.confirmSent(text, ms)"
_SET_STREAM_JS = "([s, n]) => { const w = window.__mediadeskWatch; if (w && w.setStream) w.setStream(s, n); }"
_AIM_SEND_JS = "() => window.__mediadeskWatch.aimSend()"
_WAIT_UNCOVERED_JS = "([what, ms]) => window.__mediadeskWatch.waitUncovered(what, ms)"
_DISMISS_JS = "() => window.__mediadeskWatch.dismiss()"
_MARK_JS = "(what) => window.__mediadeskWatch.mark(what)"
_HOLDS_JS = "(text) => window.__mediadeskWatch.holds(text)"

_INTERCEPT = re.compile(r"(<[^\n]*?>[^\n]*?) intercepts pointer events")


def _same_page(current: str, target: str) -> bool:
    a, b = urlsplit(current), urlsplit(target)
    return (a.scheme, a.netloc, a.path.rstrip("/")) == (b.scheme, b.netloc, b.path.rstrip("/"))


def _is_navigation(exc: BaseException) -> bool:
    msg = str(exc)
    return "Execution context was destroyed" in msg or "navigat" in msg.lower()


def _is_closed(exc: BaseException) -> bool:
    msg = str(exc)
    return "has been closed" in msg or "Target crashed" in msg or "Target closed" in msg


_TAG = re.compile(r"<[^>]*>")


def _plain(text: str, fmt: str) -> str:
    """The reader's text of an answer (tags dropped from an ``html`` or ``markdown`` one), for the busy check."""
    return html.unescape(_TAG.sub(" ", text)) if fmt in ("html", "markdown") else text


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _interceptor(exc: BaseException) -> str | None:
    """The element Playwright's call log says covered the target ("<div ...> intercepts pointer events")."""
    found = _INTERCEPT.findall(str(exc))
    return found[-1].strip() if found else None


def _clicked(exc: BaseException) -> bool:
    """Playwright's call log shows the click was dispatched (it may still have reached the site)."""
    msg = str(exc)
    return "performing click action" in msg or "click action done" in msg


def _quiet(fut: asyncio.Future[Any]) -> None:
    """Let a round trip that is no longer awaited finish on its own: its error, if any, is logged
    (at debug level), never left as "exception was never retrieved"."""

    def done(f: asyncio.Future[Any]) -> None:
        if not f.cancelled() and (exc := f.exception()) is not None:
            log.debug("a round trip no longer awaited failed: %s", _first_line(exc))

    fut.add_done_callback(done)


async def _cancel(*futs: asyncio.Future[Any]) -> None:
    """Cancel round trips that are no longer wanted and let them end (their errors are dropped)."""
    for fut in futs:
        fut.cancel()
    await asyncio.gather(*futs, return_exceptions=True)


class _Navigated(SiteError):
    """The document the script ran in was replaced. Before sending, the steps are redone."""


class _PageBase:
    """The state and helpers the driver's steps share (set up by ``PageDriver.__init__``)."""

    adapter: SiteAdapter
    watch_streams: bool
    send_click: SendClick
    _watches: weakref.WeakKeyDictionary[Page, StreamWatch]
    _pushes: set[asyncio.Task[Any]]
    _cfg: dict[str, Any]
    _busy: BusyMatcher
    _diag: weakref.WeakKeyDictionary[Page, list[str]]
    _warn: weakref.WeakKeyDictionary[Page, list[str]]
    _notes: weakref.WeakKeyDictionary[Page, list[str]]
    _cdp: weakref.WeakKeyDictionary[Page, Any]
    #: Our own CDP connection per page (see cdp_direct.py); None: this page has none (use Playwright).
    _direct: weakref.WeakKeyDictionary[Page, asyncio.Future[DirectPage | None]]
    #: The debug port of the browser a page belongs to (pages of a browser MediaDesk started), or None.
    cdp_port: Callable[[Page], int | None] | None
    #: After a scripted "new chat" click: how long its effect (the old answers gone) may take before the
    #: button gets a trusted press instead (a site that listens for pointer events only ignores the script).
    new_chat_effect_ms: float
    #: Learned per driver: None (not tried yet), True (the site reacts to it), False (it does not).
    _scripted_new_chat: bool | None
    #: Per page: the text prepare() already typed and what the install script returned.
    _typed: weakref.WeakKeyDictionary[Page, tuple[str, dict[str, Any]]]
    _final: FinalErrorMatcher
    _challenge: ChallengeMatcher

    # --- errors -----------------------------------------------------------------------------------

    def _translate(self, exc: PlaywrightError) -> WebLaneError:
        msg = str(exc)
        if "MEDIADESK_BAD_SELECTOR" in msg:
            sel = msg.split("MEDIADESK_BAD_SELECTOR", 1)[1].strip().splitlines()[0]
            return AdapterMismatch(f"site adapter {self.adapter.source}: invalid CSS selector {sel!r}")
        if _is_closed(exc):
            return PageGone(f"the page closed or crashed: {_first_line(exc)}")
        if _is_navigation(exc):
            return _Navigated("the page navigated away during the run")
        return SiteError(f"page script failed: {_first_line(exc)}")

    async def _eval(self, page: Page, script: str, arg: Any = None) -> Any:
        try:
            direct = await self._direct_page(page)
            if direct is not None:
                return await direct.call(script, arg)
            return await page.evaluate(script, arg)
        except PlaywrightError as exc:
            raise self._translate(exc) from exc

    async def _cdp_session(self, page: Page) -> Any:
        cdp = self._cdp.get(page)
        if cdp is None:
            cdp = self._cdp[page] = await page.context.new_cdp_session(page)
        return cdp

    async def _direct_page(self, page: Page) -> DirectPage | None:
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
            log.info("no direct CDP connection to the page (%s); using Playwright's", _first_line(exc))
            return None

    async def _input(self, what: str, action: Any) -> None:
        """Await one Playwright input action (click, key, insert), translating its errors."""
        try:
            await action
        except PlaywrightTimeout as exc:
            raise AdapterMismatch(f"could not {what}: {_first_line(exc)}") from exc
        except PlaywrightError as exc:
            raise self._translate(exc) from exc
    async def _settle_navigation(self, page: Page) -> None:
        try:
            await page.wait_for_load_state("domcontentloaded", timeout=self.adapter.page_load_timeout_s * 1000.0)
        except PlaywrightTimeout as exc:
            raise RunTimeout(f"{page.url} did not finish loading") from exc
        except PlaywrightError as exc:
            raise self._translate(exc) from exc

    # --- trusted input ----------------------------------------------------------------------------

    async def _press(self, page: Page, x: float, y: float) -> None:
        """One trusted left click at (x, y): press and release sent back to back on the page's CDP
        session (falls back to Playwright's mouse where CDP sessions are not available)."""
        direct = await self._direct_page(page)
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
    async def _click(self, page: Page, target: dict[str, float] | None, selector: str, what: str) -> None:
        """A real mouse click where the page's hit test said; Playwright's checked click otherwise."""
        if target:
            await self._input(what, self._press(page, target["x"], target["y"]))
        else:
            await self._input(what, page.locator(selector).first.click(timeout=5000))

    # --- stream watcher, names, warnings -----------------------------------------------------------

    def _stream_watch(self, page: Page) -> StreamWatch | None:
        """The page's stream watcher, attached on first sight (before a load, so a WebSocket opened
        by the page is seen too)."""
        if not self.watch_streams:
            return None
        watch = self._watches.get(page)
        if watch is None:
            watch = self._watches[page] = StreamWatch(page, stream_urls=self.adapter.stream_url)
        return watch
    def _prompt_name(self) -> str:
        a = self.adapter
        return f"prompt box {show_selector(a.prompt)}" if a.prompt else "prompt box (found by role)"

    def _send_name(self) -> str:
        a = self.adapter
        return f"send button {show_selector(a.send)}" if a.send else "send button (found by role)"

    def _warning(self, page: Page, message: str) -> None:
        warned = self._warn.setdefault(page, [])
        if message not in warned:
            warned.append(message)
            log.warning("%s: %s", self.adapter.name or self.adapter.url, message)

    def _note(self, page: Page, message: str) -> None:
        """Something the task log should say about getting the page ready (a wait for the site), taken by
        the account with :meth:`take_notes`."""
        self._notes.setdefault(page, []).append(message)

    def take_notes(self, page: Page) -> list[str]:
        """What getting ``page`` ready waited for since the last call (for the task log)."""
        return self._notes.pop(page, [])

    def _trace(self, page: Page, message: str) -> None:
        self._diag.setdefault(page, []).append(message)

    def _note_via(self, page: Page, via: dict[str, str]) -> None:
        """A key that was set but matched nothing, so the part was found by role: say so."""
        keys = {"prompt": ("prompt", self.adapter.prompt), "send": ("send", self.adapter.send),
                "answer": ("answer", self.adapter.answer)}
        for part, how in via.items():
            if how == "fallback" and part in keys:
                key, value = keys[part]
                self._warning(page, f"adapter key {key!r} {show_selector(value)} matches nothing on the page; "
                                    f"the {part} was found by role (update the adapter)")

    def _note_answer_via(self, page: Page, snap: dict[str, Any]) -> None:
        via = snap.get("via") or {}
        if via.get("answer") == "role" and self.adapter.answer:
            self._note_via(page, {"answer": "fallback"})
