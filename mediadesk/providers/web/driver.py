"""Run one prompt on a chat page, knowing the site only through its :class:`SiteAdapter`.

Why it is built this way:

* **Events, not polling.** Playwright's waits poll at 0, 20, 50, 100, 100 ms and then every
  500 ms, so a wait can end up to half a second late; per task that dwarfs everything else. The
  completion rule runs in the page instead: a ``MutationObserver`` on the whole document
  re-evaluates it on every DOM change, a timer fires exactly when the answer has been still for
  ``settle_ms`` and a slow interval (``_POLL_MS``) is only a safety net for changes that are not
  DOM mutations (CSS-only visibility changes). Python awaits one ``evaluate`` whose promise
  resolves on the next change of the answer (progress) or on a final state.
* **Few round trips.** Installing the watcher, typing and checking the send button are ONE
  ``evaluate``: the text goes in with the browser's own ``insertText`` editing command (trusted
  input events; newlines, Chinese and emoji intact; never an Enter key press, which would send
  early on most sites). CDP ``Input.insertText`` and Playwright's ``fill`` are fallbacks for
  editors the fast path does not fit.
* **Sent means sent.** The send button is found and checked by Playwright at click time (sites
  grow the prompt box after input and move the button), and the page must confirm within
  ``_SEND_CONFIRM_MS`` that the prompt left the box or the answer started; otherwise the run
  fails at once as ``send_failed`` instead of waiting for an answer that never comes.
* **This run's answer** is the last ``answer`` match when there are more matches than before
  sending (a count, not element identity: many sites re-render the whole conversation).
* **Done** = that answer exists with non-empty text, ``busy`` is not visible, and the text has
  not changed for ``settle_ms`` measured from its LAST change. A site that hides its busy
  indicator before the last tokens, or pauses shorter than ``settle_ms``, is still read whole.
* **Refused is not failed.** A site that says the account is busy or rate limited (a new
  ``busy_selector`` banner, an ``error`` text or a whole answer matching the adapter's busy
  wordings, see ``busy.py``) ends the run with :class:`SiteBusy` (a refusal: no attempt charged,
  the account pauses for the wait the site states). Such a notice is never returned as an answer.

Limits: selectors apply to the main document (not iframes or shadow roots); a full navigation
after sending fails the run (:class:`SiteError`), because the watcher lives in the document.

The page-side code is in ``js/*.js`` next to this module (real JavaScript files an editor and a
linter can read); this module holds the Python half. It stays one module (~520 lines): prepare,
type, send, wait and abort share the page's watcher state and one error translation.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import re
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from mediadesk.files.safe import UnsafePathError, ensure_private_dir, write_private_file
from mediadesk.providers.web.adapter import SiteAdapter
from mediadesk.providers.web.busy import parse_wait, rest_until
from mediadesk.providers.web.errors import (
    AdapterMismatch,
    BadPrompt,
    ChallengeShown,
    FinalSiteError,
    NeedsLogin,
    PageGone,
    RunCanceled,
    RunTimeout,
    SiteBusy,
    SiteDown,
    SiteError,
    UsageLimit,
    WebLaneError,
)
from mediadesk.providers.web.markdown import html_to_markdown
from mediadesk.providers.web.signals import CHALLENGE_JS, ChallengeSeen, connection_failure
from mediadesk.providers.web.stream_watch import StreamWatch

__all__ = ["PageDriver", "RunResult", "RunTimings"]

log = logging.getLogger(__name__)

_POLL_MS = 250  # safety-net re-check interval in the page; events do the real work
_LOGIN_GRACE_MS = 500  # a re-render may drop the logged-in marker for a moment
_ERROR_GRACE_MS = 200  # an error is held this long in case the login marker goes with it
_CLEAR_GRACE_MS = 3000  # after `new_chat`, how long old answers may take to disappear
_SEND_READY_MS = 5000  # longest wait for the send button to become enabled after typing
_SEND_CLICK_MS = 5000  # longest wait for the send button to be clickable (visible, stable, uncovered)
_SEND_CONFIRM_MS = 3000  # after sending: the prompt must leave the box, or busy/an answer show, by then
_TEXT_GRACE_MS = 300  # how long the prompt box may take to show the inserted text
_STOP_TIMEOUT_S = 3.0  # best-effort stop click on cancel/timeout, and the wait for busy to go
_EVIDENCE_TIMEOUT_S = 5.0
_NAV_RETRIES = 3  # pre-send steps are redone if a navigation replaced the document
_STREAM_SETTLE_MS = 50  # once the site's answer stream ended: the answer must be still this long
_STREAM_HOLD_MIN_MS = 30_000  # a stream still open, no busy, answer unchanged this long (or 10 x settle_ms): done


@dataclass(frozen=True)
class RunTimings:
    """Where a run's time went. ``*_ms`` after ``sent_ms`` are measured by the page's clock
    from the moment of sending; the rest by the event loop's clock from the start of ``run``."""

    typed_ms: float  # run start -> text in the prompt box, send target found
    sent_ms: float  # run start -> send clicked / key pressed
    first_change_ms: float | None  # send -> this run's answer first seen
    last_change_ms: float | None  # send -> answer last changed (~ the site's generation time)
    done_ms: float | None  # send -> completion rule held (last change + settle_ms)
    total_ms: float  # run start -> returned
    progress_events: int
    #: Which rule decided "done": "stream" (the site's answer stream ended, then a short settle) or
    #: "dom" (no stream seen: busy gone and the answer still for settle_ms).
    done_rule: str = "dom"
    #: What the stream watcher saw (for the task log).
    stream_events: tuple[str, ...] = ()
    #: The page rule decided although a stream was still open (see ``_STREAM_HOLD_MIN_MS``).
    stream_still_open: bool = False

    @property
    def done_reason(self) -> str:
        if self.done_rule == "stream":
            return "stream ended"
        return "page settled (stream still open)" if self.stream_still_open else "page settled"

    @property
    def overhead_ms(self) -> float:
        """Wall time not spent by the site generating: total minus the send->last-change span.
        Includes the ``settle_ms`` window the completion rule must wait out."""
        return self.total_ms - (self.last_change_ms or 0.0)


@dataclass(frozen=True)
class RunResult:
    answer: str
    timings: RunTimings


# --- page-side code -------------------------------------------------------------------------------
# The scripts live in js/*.js (one page function body each, with js/helpers.js in scope), read once.


def _read_js(name: str) -> str:
    return resources.files("mediadesk.providers.web").joinpath("js", name).read_text(encoding="utf-8")


_HELPERS = _read_js("helpers.js")


def _script(name: str) -> str:
    """The page function ``(cfg) => {...}`` of ``js/<name>``, with the shared helpers in scope."""
    return "(cfg) => {\n" + _HELPERS + "\n" + _read_js(name) + "\n}"


_READY_JS = _script("ready.js")
_NEW_CHAT_JS = _script("new_chat.js")
_INSTALL_JS = _script("install.js")
_STOP_JS = _script("stop.js")
_WAIT_IDLE_JS = _script("wait_idle.js")
_LOGGED_IN_JS = _script("logged_in.js")
# Calls into the watcher that install.js left in the page.
_READY_TO_SEND_JS = "(text) => window.__mediadeskWatch.readyToSend(text)"
_SELECT_PROMPT_JS = "() => window.__mediadeskWatch.selectPrompt()"
_NEXT_JS = "([v, progress]) => window.__mediadeskWatch.next(v, progress)"
_CONFIRM_SENT_JS = "([text, ms]) => window.__mediadeskWatch.confirmSent(text, ms)"
_SET_STREAM_JS = "(s) => { const w = window.__mediadeskWatch; if (w && w.setStream) w.setStream(s); }"


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


class _Navigated(SiteError):
    """The document the script ran in was replaced. Before sending, the steps are redone."""


class PageDriver:
    """Drives chat pages of one site. Holds no per-page state: the watcher lives in the page, so
    one driver can serve several pages (and a reused page needs nothing re-registered)."""

    def __init__(self, adapter: SiteAdapter, *, watch_streams: bool = True) -> None:
        self.adapter = adapter
        #: Completion from the site's own answer stream (see stream_watch.py); off: the DOM rule only.
        self.watch_streams = watch_streams
        self._watches: weakref.WeakKeyDictionary[Page, StreamWatch] = weakref.WeakKeyDictionary()
        self._pushes: set[asyncio.Task[Any]] = set()
        a = adapter
        self._cfg: dict[str, Any] = {
            "answer": a.answer,
            "busy": a.busy,
            "loggedIn": a.logged_in,
            "loggedOut": a.logged_out,
            "prompt": a.prompt,
            "send": a.send,
            "error": a.error,
            "stop": a.stop_selector,
            "refused": a.busy_selector,
            "newChat": a.new_chat,
            "format": "html" if a.answer_format == "markdown" else a.answer_format,
            "settleMs": a.settle_ms,
            "startTimeoutMs": a.start_timeout_s * 1000.0,
            "loginGraceMs": _LOGIN_GRACE_MS,
            "errorGraceMs": _ERROR_GRACE_MS,
            "pollMs": _POLL_MS,
            "sendReadyMs": _SEND_READY_MS,
            "textGraceMs": _TEXT_GRACE_MS,
            "clearGraceMs": _CLEAR_GRACE_MS,
            "streamSettleMs": _STREAM_SETTLE_MS,
            "streamHoldMs": max(float(_STREAM_HOLD_MIN_MS), 10.0 * a.settle_ms),
        }
        self._busy = adapter.busy_matcher()
        self._final = adapter.final_error_matcher()
        self._challenge = adapter.challenge_matcher()

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
            return await page.evaluate(script, arg)
        except PlaywrightError as exc:
            raise self._translate(exc) from exc

    async def _input(self, what: str, action: Any) -> None:
        """Await one Playwright input action (click, key, insert), translating its errors."""
        try:
            await action
        except PlaywrightTimeout as exc:
            raise AdapterMismatch(f"could not {what}: {_first_line(exc)}") from exc
        except PlaywrightError as exc:
            raise self._translate(exc) from exc

    # --- prepare ----------------------------------------------------------------------------------

    async def prepare(self, page: Page) -> None:
        """Bring ``page`` to a clean new conversation on this site and check the login.

        Raises :class:`NeedsLogin`, :class:`RunTimeout` (page load), :class:`SiteError`
        (navigation failed), :class:`AdapterMismatch` (no prompt box), :class:`PageGone`.
        """
        a = self.adapter
        # A page loaded before its stream watcher existed is loaded again: a WebSocket the site opened
        # at load would otherwise never be seen.
        unwatched = self.watch_streams and page not in self._watches
        self._stream_watch(page)
        clear_from = 0
        if a.new_chat and _same_page(page.url, a.url) and not unwatched:
            try:
                async with asyncio.timeout(a.start_timeout_s + 5.0):
                    info = await self._eval(page, _NEW_CHAT_JS, self._cfg)
                    if info["found"]:
                        await self._click(page, info.get("target"), a.new_chat, "click 'new_chat'")
                        clear_from = int(info["count"])
            except _Navigated:
                info = {"found": False}
            except TimeoutError as exc:
                raise RunTimeout(f"the page did not respond within {a.start_timeout_s + 5.0:g} s") from exc
            if not info["found"]:
                await self._goto(page, a.url)
        else:
            await self._goto(page, a.url)
        await self._await_ready(page, clear_from)

    async def open(self, page: Page, url: str, *, reload: bool = False) -> None:
        """Bring ``page`` to ``url`` as it is (no new chat: e.g. a conversation thread to continue)
        and wait until it is logged in with a prompt box. Loads only when the page is elsewhere,
        or always with ``reload`` (a health probe must see the site's current state, not an old DOM).

        Raises what :meth:`prepare` raises."""
        self._stream_watch(page)
        if reload or page.url != url:
            await self._goto(page, url)
        await self._await_ready(page, 0)

    async def _goto(self, page: Page, url: str) -> None:
        """Load ``url`` and read the site's own signals first: a connection-level failure or a 5xx
        page is :class:`SiteDown` (its capacity, not the task's fault), a bot check is
        :class:`ChallengeShown`."""
        timeout_ms = self.adapter.page_load_timeout_s * 1000.0
        response = None
        try:
            response = await page.goto(url, wait_until="domcontentloaded", timeout=timeout_ms)
        except PlaywrightTimeout as exc:
            raise RunTimeout(f"{url} did not load within {self.adapter.page_load_timeout_s:g} s") from exc
        except PlaywrightError as exc:
            if _is_closed(exc):
                raise PageGone(f"the page closed or crashed: {_first_line(exc)}") from exc
            if (code := connection_failure(str(exc))) is not None:
                raise SiteDown(f"the site is unreachable: {url} failed with net::{code}") from exc
            if "interrupted by another navigation" not in str(exc):
                raise SiteError(f"could not open {url}: {_first_line(exc)}") from exc
            # A client-side redirect (often to a login page): let the readiness check decide.
            await self._settle_navigation(page)
        status = None if response is None else response.status
        if status is not None and status >= 400 and (seen := await self.challenge(page)) is not None:
            raise ChallengeShown(f"{self.adapter.name or url}: a bot check needs a person ({seen.what})")
        if status is not None and status >= 500:
            raise SiteDown(f"the site is down: {url} answered HTTP {status} (a gateway or server error page "
                           "instead of the chat page)")

    async def challenge(self, page: Page) -> ChallengeSeen | None:
        """The bot check (CAPTCHA frame, widget, challenge wording) the page shows now, if any.
        Never raises: a page that cannot be read shows none."""
        try:
            signals = await asyncio.wait_for(
                page.evaluate(CHALLENGE_JS, self._challenge.script_arg(self.adapter.prompt)), 5.0
            )
        except Exception:
            return None
        return self._challenge.judge(signals)

    def _refusal(self, text: str, where: str) -> SiteBusy:
        """A busy refusal, or a usage limit whose stated reset is far enough away to rest until."""
        now = time.time()
        until = rest_until(text, now)
        if until is not None:
            return UsageLimit(text, where=where, until=until, now=now)
        return SiteBusy(text, where=where, wait_s=parse_wait(text))

    async def _settle_navigation(self, page: Page) -> None:
        try:
            await page.wait_for_load_state("domcontentloaded", timeout=self.adapter.page_load_timeout_s * 1000.0)
        except PlaywrightTimeout as exc:
            raise RunTimeout(f"{page.url} did not finish loading") from exc
        except PlaywrightError as exc:
            raise self._translate(exc) from exc

    async def _await_ready(self, page: Page, clear_from: int) -> None:
        a = self.adapter
        if a.login_url and not _same_page(a.login_url, a.url) and _same_page(page.url, a.login_url):
            raise NeedsLogin(f"{a.name or a.url}: the site sent the browser to its login page")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + a.start_timeout_s
        cfg = dict(self._cfg, clearFrom=clear_from)
        while True:
            remaining = max(0.0, deadline - loop.time())
            cfg["timeoutMs"] = remaining * 1000.0
            try:
                state = await asyncio.wait_for(self._eval(page, _READY_JS, cfg), remaining + 5.0)
                break
            except _Navigated:
                await self._settle_navigation(page)
            except TimeoutError as exc:
                raise RunTimeout(f"the page did not respond within {a.start_timeout_s:g} s") from exc
        if state in ("logged_out", "no_login"):
            how = "shows" if state == "logged_out" else "lacks"
            key = "logged_out" if state == "logged_out" else "logged_in"
            sel = a.logged_out if state == "logged_out" else a.logged_in
            raise NeedsLogin(f"{a.name or a.url}: not logged in (the page {how} {key} {sel!r})")
        if state == "no_prompt":
            raise AdapterMismatch(f"{a.name or a.url}: prompt box {a.prompt!r} not found on {page.url}")

    async def is_logged_in(self, page: Page) -> bool:
        """A snapshot of the login state (no waiting), e.g. to watch an operator's login."""
        try:
            return bool(await self._eval(page, _LOGGED_IN_JS, self._cfg))
        except WebLaneError:
            return False

    # --- run --------------------------------------------------------------------------------------

    async def run(
        self,
        page: Page,
        text: str,
        *,
        on_progress: Callable[[], None] | None = None,
        cancel_event: asyncio.Event | None = None,
    ) -> RunResult:
        """Type ``text``, send it and return this run's answer once the completion rule holds.

        ``on_progress`` is called each time the answer changes (use it as a heartbeat).
        Cancel by cancelling the task (CancelledError is re-raised) or by setting
        ``cancel_event`` (:class:`RunCanceled`); either way the stop button is clicked first,
        best effort. Raises :class:`NeedsLogin`, :class:`SiteError`, :class:`SiteBusy` (a refusal),
        :class:`RunTimeout`, :class:`AdapterMismatch`, :class:`PageGone`.
        """
        a = self.adapter
        if not text.strip():
            raise BadPrompt("nothing to send: the prompt text is empty")
        if cancel_event is not None and cancel_event.is_set():
            raise RunCanceled("canceled before typing")
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        deadline = t0 + a.max_run_s
        # A hung renderer must not hold the run until max_run_s: typing has its own budget.
        pre_send_s = min(a.max_run_s, a.page_load_timeout_s + a.start_timeout_s + 10.0)
        try:
            async with asyncio.timeout(pre_send_s):
                await self._type_and_arm(page, text)
        except TimeoutError as exc:
            raise RunTimeout(f"the page did not take the prompt within {pre_send_s:g} s") from exc
        typed = loop.time()
        watch = self._stream_watch(page)
        try:
            if cancel_event is not None and cancel_event.is_set():
                raise RunCanceled("canceled before sending")
            if watch is not None:
                watch.arm(lambda state: self._push_stream(page, watch, state))
            send_budget_s = (_SEND_CLICK_MS + _SEND_CONFIRM_MS) / 1000.0 + 5.0
            left_s = max(0.0, deadline - loop.time())
            try:
                async with asyncio.timeout(min(send_budget_s, left_s)):
                    await self._send(page, text)
            except TimeoutError as exc:
                if left_s <= send_budget_s:  # max_run_s bounds every step, sending included
                    raise RunTimeout(f"no complete answer within max_run_s={a.max_run_s:g} s") from exc
                raise RunTimeout("the page did not respond to the send click") from exc
            sent = loop.time()
            snap, progress = await self._await_answer(page, deadline, on_progress, cancel_event)
            state = snap["state"]
            if state == "error":
                said = snap["error"] or ""
                if snap.get("refused") or self._busy.matches(said):
                    where = f"busy_selector {a.busy_selector!r}" if snap.get("refused") else "error message"
                    raise self._refusal(said or "(no text)", where)
                if self._challenge.judge({"dialogs": [said]}) is not None:
                    raise ChallengeShown(f"{a.name or a.url}: a bot check needs a person (the site said {said!r})")
                if self._final.matches(said):
                    raise FinalSiteError(f"the site showed a final error (not retried): {said}")
                raise SiteError(f"the site showed an error: {said or '(no text)'}")
            if state == "logged_out":
                raise NeedsLogin(f"{a.name or a.url}: logged out during the run")
            if state == "no_start":
                raise RunTimeout(f"no answer and no busy indicator within {a.start_timeout_s:g} s after sending")
            if state != "done":
                raise SiteError("another run took over this page")
            answer = (snap["text"] or "").strip()
            plain = _plain(answer, a.answer_format)
            if self._busy.is_busy_answer(plain):  # the whole "answer" is a busy notice: never stored
                raise self._refusal(plain, "answer")
        except _Navigated as exc:
            await self._after_navigation(page, exc)
        except BaseException:
            await self._abort(page)
            raise
        finally:
            stream_events = tuple(watch.events) if watch is not None else ()
            if watch is not None:
                watch.disarm()
        end = loop.time()
        timings = RunTimings(
            typed_ms=(typed - t0) * 1000.0,
            sent_ms=(sent - t0) * 1000.0,
            first_change_ms=snap["first"],
            last_change_ms=snap["last"],
            done_ms=snap["done"],
            total_ms=(end - t0) * 1000.0,
            progress_events=progress,
            done_rule=snap.get("rule") or "dom",
            stream_still_open=bool(snap.get("held")),
            stream_events=stream_events,
        )
        if a.answer_format == "markdown":  # a parse of the whole answer: off the event loop
            answer = await asyncio.to_thread(html_to_markdown, answer)
        return RunResult(answer=answer, timings=timings)

    # --- completion from the site's stream ---------------------------------------------------------

    def _stream_watch(self, page: Page) -> StreamWatch | None:
        """The page's stream watcher, attached on first sight (before a load, so a WebSocket opened
        by the page is seen too)."""
        if not self.watch_streams:
            return None
        watch = self._watches.get(page)
        if watch is None:
            watch = self._watches[page] = StreamWatch(page)
        return watch

    def _push_stream(self, page: Page, watch: StreamWatch, state: str) -> None:
        """Tell the page's watcher what the stream did (in order: Playwright keeps the calls' order;
        nothing is sent once the run is over, so a late change cannot reach the next run's watcher)."""
        generation = watch.generation

        async def push() -> None:
            if watch.generation != generation:
                return
            try:
                await page.evaluate(_SET_STREAM_JS, state)
            except PlaywrightError as exc:  # the page went: the run's own wait reports it
                log.debug("stream state %s not delivered: %s", state, _first_line(exc))

        task = asyncio.ensure_future(push())
        self._pushes.add(task)
        task.add_done_callback(self._pushes.discard)

    async def _type_and_arm(self, page: Page, text: str) -> None:
        """Put ``text`` in the prompt box and arm the watcher; redone if the document changes."""
        for _ in range(_NAV_RETRIES):
            try:
                await self._type_once(page, text)
                return
            except _Navigated:
                await self._settle_navigation(page)
        raise SiteError("the page kept navigating; the prompt could not be typed")

    async def _type_once(self, page: Page, text: str) -> None:
        """Install the watcher and type. Three ways in, cheapest first: the browser's own
        ``insertText`` editing command inside the install script (one round trip), CDP
        ``Input.insertText`` (what IMEs use), then Playwright's ``fill``."""
        a = self.adapter
        info = await self._eval(page, _INSTALL_JS, dict(self._cfg, text=text))
        if not info["loggedIn"]:
            raise NeedsLogin(f"{a.name or a.url}: not logged in")
        if info["prompt"] is None:
            raise AdapterMismatch(f"{a.name or a.url}: prompt box {a.prompt!r} not found on {page.url}")
        if info["prompt"] == "other":
            raise AdapterMismatch(f"{a.name or a.url}: prompt {a.prompt!r} is neither a text box nor contenteditable")
        ready: dict[str, Any] | None = info["ready"]
        if ready is None or ready["why"] == "text":
            log.debug("insertText command did not take; using CDP insertText")
            await self._eval(page, _SELECT_PROMPT_JS)
            await self._input("type the prompt", page.keyboard.insert_text(text))
            ready = await self._eval(page, _READY_TO_SEND_JS, text)
        if ready["why"] == "text":
            log.debug("CDP insertText did not take; using Playwright fill")
            await self._input("fill the prompt box", page.locator(a.prompt).first.fill(text, timeout=5000))
            ready = await self._eval(page, _READY_TO_SEND_JS, text)
        why = ready["why"]
        if why in ("", "covered"):  # covered: the send click waits for it to be uncovered
            return
        if why == "text":
            raise AdapterMismatch(f"the prompt box {a.prompt!r} did not take the text (it shows {ready['seen']!r})")
        if why == "no_prompt":
            raise AdapterMismatch(f"prompt box {a.prompt!r} vanished after typing")
        if why == "no_send":
            raise AdapterMismatch(f"send button {a.send!r} not found (or not visible)")
        raise SiteError(f"send button {a.send!r} stayed disabled for {_SEND_READY_MS / 1000:g} s")

    async def _send(self, page: Page, text: str) -> None:
        """Send, then make sure it was sent: a click that hit nothing fails now as ``send_failed``
        (a retryable site error) instead of waiting ``start_timeout_s`` for an answer that never comes.

        The button is resolved and checked (visible, stable, enabled, not covered) at click time by
        Playwright: sites grow the prompt box after text goes in and the button moves, so a position
        computed while typing can miss it."""
        a = self.adapter
        if a.send_key:
            how = f"pressing {a.send_key!r}"
            await self._input(how, page.keyboard.press(a.send_key))
        else:
            assert a.send is not None
            how = f"clicking {a.send!r}"
            try:
                await page.locator(f"{a.send} >> visible=true").first.click(timeout=_SEND_CLICK_MS)
            except PlaywrightTimeout as exc:
                raise SiteError(f"send_failed: could not click {a.send!r}: {_first_line(exc)}") from exc
            except PlaywrightError as exc:
                raise self._translate(exc) from exc
        limit_ms = min(float(_SEND_CONFIRM_MS), a.start_timeout_s * 1000.0)
        seen = await self._eval(page, _CONFIRM_SENT_JS, [text, limit_ms])
        if not seen["ok"]:
            raise SiteError(
                f"send_failed: after {how} the prompt stayed in the box, with no busy indicator and no "
                f"answer, for {limit_ms / 1000:g} s (box shows {seen['seen']!r})"
            )

    async def _click(self, page: Page, target: dict[str, float] | None, selector: str, what: str) -> None:
        """A real mouse click where the page's hit test said; Playwright's checked click otherwise."""
        if target:
            await self._input(what, page.mouse.click(target["x"], target["y"]))
        else:
            await self._input(what, page.locator(selector).first.click(timeout=5000))

    async def _await_answer(
        self,
        page: Page,
        deadline: float,
        on_progress: Callable[[], None] | None,
        cancel_event: asyncio.Event | None,
    ) -> tuple[dict[str, Any], int]:
        cancel_wait = asyncio.ensure_future(cancel_event.wait()) if cancel_event is not None else None
        version, progress = 0, 0
        try:
            while True:
                snap = await self._next(page, version, on_progress is not None, deadline, cancel_wait)
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
    ) -> dict[str, Any]:
        """One page event: the answer changed, or a final state. Bounded by ``max_run_s``."""
        loop = asyncio.get_running_loop()
        nxt = asyncio.ensure_future(self._eval(page, _NEXT_JS, [version, progress]))
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
        raise RunTimeout(f"no complete answer within max_run_s={self.adapter.max_run_s:g} s")

    async def _abort(self, page: Page) -> None:
        """Best effort: drop the watcher and click stop if something is still generating."""
        try:
            await asyncio.wait_for(self._stop(page), _STOP_TIMEOUT_S)
        except Exception as exc:  # best effort by design: the lane closes the page anyway
            log.debug("stop click failed: %s", exc)

    async def _stop(self, page: Page) -> None:
        target = await page.evaluate(_STOP_JS, self._cfg)
        if not target:
            return
        if "x" in target:
            await page.mouse.click(target["x"], target["y"])
        # Wait for the site to confirm: a site that still generates would refuse the next run.
        budget_ms = (_STOP_TIMEOUT_S - 0.5) * 1000.0
        stopped = await page.evaluate(_WAIT_IDLE_JS, dict(self._cfg, timeoutMs=budget_ms))
        log.debug("clicked stop (%s); busy gone: %s", target, stopped)

    async def _after_navigation(self, page: Page, exc: _Navigated) -> NoReturn:
        """The document was replaced after sending: the run is lost. Logged out (the usual
        reason) is reported as such; otherwise it is a retryable site error."""
        a = self.adapter
        try:
            await self._settle_navigation(page)
            await self._await_ready(page, 0)
        except NeedsLogin as login:
            raise NeedsLogin(f"{a.name or a.url}: the page went to a login page during the run") from login
        except WebLaneError:
            pass
        raise SiteError(f"the page navigated away during the run (now at {page.url})") from exc

    # --- evidence ---------------------------------------------------------------------------------

    async def evidence(self, page: Page, dir: Path, stem: str) -> list[Path]:
        """Save a full-page PNG and the page HTML for a failed run; returns what was written.

        Never raises (except for task cancellation): evidence must not mask the real failure. Folder and
        files are private (0700 / 0600) and written by us, never through a link planted at their names.
        """
        written: list[Path] = []
        try:
            await asyncio.to_thread(ensure_private_dir, dir, what="evidence folder")
        except (OSError, UnsafePathError) as exc:
            log.warning("evidence: cannot create %s: %s", dir, exc)
            return written
        png = dir / f"{stem}.png"
        try:
            shot = await page.screenshot(full_page=True, timeout=_EVIDENCE_TIMEOUT_S * 1000)
            await asyncio.to_thread(write_private_file, png, shot, "evidence file")
            written.append(png)
        except Exception as exc:
            log.warning("evidence: screenshot failed: %s", _first_line(exc))
        html = dir / f"{stem}.html"
        try:
            content = await asyncio.wait_for(page.content(), _EVIDENCE_TIMEOUT_S)
            header = f"<!-- saved by MediaDesk from {json.dumps(page.url)} -->\n"
            await asyncio.to_thread(write_private_file, html, header + content, "evidence file")
            written.append(html)
        except Exception as exc:
            log.warning("evidence: page HTML failed: %s", _first_line(exc))
        return written
