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
* **Sent means sent, once.** The send button is resolved and checked in the page at click time
  (sites grow the prompt box after input and move the button): visible, enabled, and the element
  at its centre is the button, not an overlay. Then ONE trusted mouse press/release at that point
  (CDP ``Input.dispatchMouseEvent``), with a one-shot listener proving where the press landed, and
  the page's "did it leave?" check (the box emptied, busy shows, a new user turn or an answer
  appeared). No actionability polling, no waiting for animation frames: ~3 round trips instead of
  Playwright's ~120 ms checked click (``send_click = "checked"`` keeps that rule, for the bench).
  A press that landed elsewhere is aimed again (nothing reached the site); a press on the button
  with nothing leaving the box fails at once as ``send_failed``; a click that TIMED OUT (a busy
  page, a blocked click handler) is checked the same way and, when in doubt, the run waits for an
  answer instead of failing: a prompt that may have gone is never sent twice.
* **Overlays.** Whatever the adapter's ``dismiss`` selectors name is clicked away before typing and
  before sending; a prompt box or send button still covered gets one Escape key press, then fails
  naming the covering element (also Playwright's "intercepts pointer events" line, which is kept
  with its call log in the run's evidence).
* **Parts by role.** Each selector key is a list (first that matches); with ``fallbacks`` on, a key
  that is absent or matches nothing is found by role (``js/helpers.js``), and a key that stopped
  matching is reported in :attr:`RunResult.warnings` so the account can say so.
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
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from mediadesk.files.safe import UnsafePathError, ensure_private_dir, write_private_file
from mediadesk.providers.web.adapter import SendClick, SiteAdapter, show_selector
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
_UNCOVER_MS = 1000  # after a dismiss click or an Escape press: how long an overlay may take to go
_AIM_RETRIES = 2  # a press that landed beside the button (it moved) is aimed again this often
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
    #: What the account should tell its operator: adapter keys that stopped matching and were
    #: found by role instead, overlays clicked away. Empty on a clean run.
    warnings: tuple[str, ...] = field(default=())


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


class _Navigated(SiteError):
    """The document the script ran in was replaced. Before sending, the steps are redone."""


class PageDriver:
    """Drives chat pages of one site. Holds no per-page state: the watcher lives in the page, so
    one driver can serve several pages (and a reused page needs nothing re-registered)."""

    def __init__(
        self, adapter: SiteAdapter, *, watch_streams: bool = True, send_click: SendClick | None = None,
    ) -> None:
        self.adapter = adapter
        #: Completion from the site's own answer stream (see stream_watch.py); off: the DOM rule only.
        self.watch_streams = watch_streams
        self._watches: weakref.WeakKeyDictionary[Page, StreamWatch] = weakref.WeakKeyDictionary()
        self._pushes: set[asyncio.Task[Any]] = set()
        #: "direct": checked in the page, one trusted press (the default); "checked": Playwright's
        #: actionability-checked click (the old rule). The adapter's ``send_click`` unless given.
        self.send_click: SendClick = send_click or adapter.send_click
        a = adapter
        self._cfg: dict[str, Any] = {
            "answer": a.selectors("answer"),
            "busy": a.selectors("busy"),
            "loggedIn": a.selectors("logged_in"),
            "loggedOut": a.selectors("logged_out"),
            "prompt": a.selectors("prompt"),
            "send": a.selectors("send"),
            "sendKey": bool(a.send_key),
            "error": a.selectors("error"),
            "stop": a.selectors("stop") or a.selectors("busy"),
            "refused": a.selectors("busy_selector"),
            "newChat": a.selectors("new_chat"),
            "dismiss": list(a.dismiss),
            "fallbacks": a.fallbacks,
            "checkCover": True,
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
        #: Per page: what the last run's send step saw (for the evidence), and its warnings.
        self._diag: weakref.WeakKeyDictionary[Page, list[str]] = weakref.WeakKeyDictionary()
        self._warn: weakref.WeakKeyDictionary[Page, list[str]] = weakref.WeakKeyDictionary()
        self._cdp: weakref.WeakKeyDictionary[Page, Any] = weakref.WeakKeyDictionary()
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
                    if info.get("covered"):
                        log.info("%s: 'new_chat' is covered by %s; loading the chat page instead",
                                 a.name or a.url, info["covered"])
                    if info["found"]:
                        await self._click(page, info.get("target"), ", ".join(a.selectors("new_chat")),
                                          "click 'new_chat'")
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
            prompt = ", ".join(self.adapter.selectors("prompt")) or None
            signals = await asyncio.wait_for(page.evaluate(CHALLENGE_JS, self._challenge.script_arg(prompt)), 5.0)
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
            value = a.logged_out if state == "logged_out" else a.logged_in
            what = f"{key} {show_selector(value)}" if value else (
                "a password field" if state == "logged_out" else "a prompt box")
            raise NeedsLogin(f"{a.name or a.url}: not logged in (the page {how} {what})")
        if state == "no_prompt":
            raise AdapterMismatch(f"{a.name or a.url}: {self._prompt_name()} not found on {page.url}")

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
        self._diag[page] = []
        self._warn[page] = []
        # A hung renderer must not hold the run until max_run_s: typing has its own budget.
        pre_send_s = min(a.max_run_s, a.page_load_timeout_s + a.start_timeout_s + 10.0)
        try:
            async with asyncio.timeout(pre_send_s):
                how_to_send = await self._type_and_arm(page, text)
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
                    await self._send(page, text, how_to_send)
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
            self._note_answer_via(page, snap)
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
        return RunResult(answer=answer, timings=timings, warnings=tuple(self._warn.get(page, ())))

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

    async def _type_and_arm(self, page: Page, text: str) -> dict[str, Any]:
        """Put ``text`` in the prompt box and arm the watcher; redone if the document changes.
        Returns how to send: ``enter`` (no send button found) and ``aim`` (the send click already
        resolved and checked by the typing script, or None)."""
        for _ in range(_NAV_RETRIES):
            try:
                return await self._type_once(page, text)
            except _Navigated:
                await self._settle_navigation(page)
        raise SiteError("the page kept navigating; the prompt could not be typed")

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

    async def _type_once(self, page: Page, text: str) -> dict[str, Any]:
        """Install the watcher and type. Three ways in, cheapest first: the browser's own
        ``insertText`` editing command inside the install script (one round trip), CDP
        ``Input.insertText`` (what IMEs use), then Playwright's ``fill``. An overlay over the
        prompt box is met first: ``dismiss`` clicks (in the same script), then one Escape."""
        a = self.adapter
        cfg = dict(self._cfg, text=text)
        info = await self._eval(page, _INSTALL_JS, cfg)
        if info.get("dismissed"):
            self._warning(page, "clicked away an overlay: " + ", ".join(info["dismissed"]))
        if info.get("covered"):
            by = info["covered"]
            self._trace(page, f"prompt box covered by {by}")
            state = await self._eval(page, _WAIT_UNCOVERED_JS, ["prompt", _UNCOVER_MS if info.get("dismissed") else 0])
            if state["covered"]:
                await self._input("press Escape", page.keyboard.press("Escape"))
                state = await self._eval(page, _WAIT_UNCOVERED_JS, ["prompt", _UNCOVER_MS])
                self._warning(page, f"pressed Escape to close an overlay over the prompt box ({by})"
                              + ("" if not state["covered"] else "; it is still there"))
            info = await self._eval(page, _INSTALL_JS, dict(cfg, checkCover=False))
        if not info["loggedIn"]:
            raise NeedsLogin(f"{a.name or a.url}: not logged in")
        if info["prompt"] is None:
            raise AdapterMismatch(f"{a.name or a.url}: {self._prompt_name()} not found on {page.url}")
        if info["prompt"] == "other":
            raise AdapterMismatch(f"{a.name or a.url}: {self._prompt_name()} is neither a text box nor contenteditable")
        ready: dict[str, Any] | None = info["ready"]
        if ready is None or ready["why"] == "text":
            log.debug("insertText command did not take; using CDP insertText")
            await self._eval(page, _SELECT_PROMPT_JS)
            await self._input("type the prompt", page.keyboard.insert_text(text))
            ready = await self._eval(page, _READY_TO_SEND_JS, text)
        if ready["why"] == "text":
            log.debug("CDP insertText did not take; using Playwright fill")
            await self._eval(page, _MARK_JS, "prompt")
            box = page.locator("[data-mediadesk=prompt]").first
            await self._input("fill the prompt box", box.fill(text, timeout=5000))
            ready = await self._eval(page, _READY_TO_SEND_JS, text)
        self._note_via(page, ready.get("via") or {})
        why = ready["why"]
        if why in ("", "covered"):  # covered: the send step deals with the overlay
            aim = info.get("aim") if info.get("ready") is ready else None
            return {"enter": bool(ready.get("enter")), "aim": aim if aim and aim["why"] == "" else None}
        if why == "text":
            raise AdapterMismatch(f"the {self._prompt_name()} did not take the text (it shows {ready['seen']!r})")
        if why == "no_prompt":
            raise AdapterMismatch(f"{self._prompt_name()} vanished after typing")
        if why == "no_send":
            raise AdapterMismatch(f"{self._send_name()} not found (or not visible)")
        raise SiteError(f"{self._send_name()} stayed disabled for {_SEND_READY_MS / 1000:g} s")

    async def _send(self, page: Page, text: str, how_to_send: dict[str, Any]) -> None:
        """Send, then make sure it was sent (see the module docstring): a click that reached
        nothing fails now as ``send_failed`` (a retryable site error) instead of waiting
        ``start_timeout_s`` for an answer that never comes; a click that may have gone never
        fails as ``send_failed``."""
        a = self.adapter
        limit_ms = min(float(_SEND_CONFIRM_MS), a.start_timeout_s * 1000.0)
        enter = how_to_send.get("enter", False)
        if a.send_key or enter:
            key = a.send_key or "Enter"
            how = f"pressing {key!r}"
            if enter and not a.send_key:
                self._trace(page, "no send button found; pressing Enter in the prompt box")
            await self._input(how, page.keyboard.press(key))
            seen = await self._eval(page, _CONFIRM_SENT_JS, [text, limit_ms])
            if not seen["ok"]:
                self._send_failed(page, how, seen, limit_ms)
            return
        if self.send_click == "checked":
            await self._send_checked(page, text, limit_ms)
        else:
            await self._send_direct(page, text, limit_ms, how_to_send.get("aim"))

    def _send_failed(self, page: Page, how: str, seen: dict[str, Any], limit_ms: float) -> NoReturn:
        msg = (f"send_failed: after {how} the prompt stayed in the box, with no busy indicator, no new "
               f"turn and no answer, for {limit_ms / 1000:g} s (box shows {seen['seen']!r})")
        if seen.get("missed"):
            msg += f"; the click landed on {seen['missed']}"
        self._trace(page, msg)
        raise SiteError(msg)

    async def _aim(self, page: Page, text: str) -> dict[str, Any]:
        """Resolve the send button at click time; an overlay over it is clicked away (``dismiss``),
        then gets one Escape, then is waited out until ``_SEND_CLICK_MS``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _SEND_CLICK_MS / 1000.0
        escaped = False
        while True:
            target: dict[str, Any] = await self._eval(page, _AIM_SEND_JS)
            why = target["why"]
            if why == "":
                return target
            left_ms = max(0.0, (deadline - loop.time()) * 1000.0)
            if why == "no_send":
                raise SiteError(f"send_failed: {self._send_name()} not found (or not visible) at click time")
            if why == "disabled":
                if left_ms <= 0:
                    raise SiteError(f"send_failed: {self._send_name()} is disabled at click time")
                await asyncio.sleep(0.05)
                continue
            by = target["by"]
            self._trace(page, f"send button covered by {by}")
            if self.adapter.dismiss and (clicked := await self._eval(page, _DISMISS_JS)):
                self._warning(page, "clicked away an overlay: " + ", ".join(clicked))
                await self._eval(page, _WAIT_UNCOVERED_JS, ["send", min(left_ms, _UNCOVER_MS)])
                continue
            if not escaped:
                escaped = True
                await self._escape(page, by, text)
                continue
            if left_ms <= 0:
                raise SiteError(f"send_failed: the send button is covered by {by} (dismiss did not remove it; "
                                "Escape did not close it; add its close button to the adapter's 'dismiss')")
            await self._eval(page, _WAIT_UNCOVERED_JS, ["send", left_ms])

    async def _escape(self, page: Page, by: str, text: str) -> None:
        """One Escape press to close an overlay; the prompt is checked after it (some boxes clear on
        Escape, and an emptied box must not pass for a sent prompt)."""
        await self._input("press Escape", page.keyboard.press("Escape"))
        state = await self._eval(page, _WAIT_UNCOVERED_JS, ["send", _UNCOVER_MS])
        self._warning(page, f"pressed Escape to close an overlay ({by})"
                      + (": closed" if not state["covered"] else ": still there"))
        if not await self._eval(page, _HOLDS_JS, text):
            raise SiteError(f"send_failed: the Escape key meant for an overlay ({by}) cleared the prompt box; "
                            "add the overlay's close button to the adapter's 'dismiss'")

    async def _press(self, page: Page, x: float, y: float) -> None:
        """One trusted left click at (x, y): press and release sent back to back on the page's CDP
        session (falls back to Playwright's mouse where CDP sessions are not available)."""
        try:
            cdp = self._cdp.get(page)
            if cdp is None:
                cdp = self._cdp[page] = await page.context.new_cdp_session(page)
        except PlaywrightError:
            await page.mouse.click(x, y)
            return
        ev = {"x": x, "y": y, "button": "left", "clickCount": 1}
        await asyncio.gather(cdp.send("Input.dispatchMouseEvent", dict(ev, type="mousePressed")),
                             cdp.send("Input.dispatchMouseEvent", dict(ev, type="mouseReleased")))

    async def _send_direct(self, page: Page, text: str, limit_ms: float, aimed: dict[str, Any] | None) -> None:
        for attempt in range(_AIM_RETRIES + 1):
            target = aimed if aimed is not None and attempt == 0 else await self._aim(page, text)
            try:
                await asyncio.wait_for(self._press(page, target["x"], target["y"]), _SEND_CLICK_MS / 1000.0)
            except TimeoutError:
                self._trace(page, f"the send click did not return within {_SEND_CLICK_MS / 1000:g} s "
                                  "(a busy page or a blocked click handler); checking whether the prompt left")
                await self._sent_or_in_doubt(page, text, limit_ms, "the send click timed out")
                return
            except PlaywrightError as exc:
                raise self._translate(exc) from exc
            seen = await self._eval(page, _CONFIRM_SENT_JS, [text, limit_ms])
            if seen["ok"]:
                if self._diag.get(page):  # after trouble, say how it ended
                    self._trace(page, f"sent: {seen['how']}")
                return
            if seen.get("landed") is False and attempt < _AIM_RETRIES:
                # The press hit something else (the button moved): nothing reached the site's button.
                self._trace(page, f"the click landed on {seen.get('missed')}, not the send button; aiming again")
                continue
            self._send_failed(page, f"clicking the {self._send_name()}", seen, limit_ms)

    async def _send_checked(self, page: Page, text: str, limit_ms: float) -> None:
        """Playwright's actionability-checked click (the old rule): on an intercepted click, one
        Escape and a retry; the call log goes into the evidence."""
        a = self.adapter
        loc = page.locator(f"{a.send} >> visible=true").first if isinstance(a.send, str) else None
        if loc is None:
            await self._eval(page, _MARK_JS, "send")
            loc = page.locator("[data-mediadesk=send]").first
        how = f"clicking {self._send_name()}"
        for attempt in range(2):
            try:
                await loc.click(timeout=_SEND_CLICK_MS)
                break
            except PlaywrightTimeout as exc:
                self._trace(page, f"Playwright click failed; call log:\n{exc}")
                by = _interceptor(exc)
                if by and attempt == 0:
                    await self._escape(page, by, text)
                    continue
                if _clicked(exc):
                    await self._sent_or_in_doubt(page, text, limit_ms, f"the click timed out: {_first_line(exc)}")
                    return
                detail = f" ({by} intercepts pointer events)" if by else ""
                raise SiteError(
                    f"send_failed: could not click {self._send_name()}{detail}: {_first_line(exc)}") from exc
            except PlaywrightError as exc:
                raise self._translate(exc) from exc
        seen = await self._eval(page, _CONFIRM_SENT_JS, [text, limit_ms])
        if not seen["ok"]:
            self._send_failed(page, how, seen, limit_ms)

    async def _sent_or_in_doubt(self, page: Page, text: str, limit_ms: float, why: str) -> None:
        """A click that timed out may still have sent (the site did, then stalled): "did it leave?"
        decides. Seen leaving -> sent. The page not answering the check -> in doubt -> sent (the
        answer wait decides; sending again could generate the prompt twice)."""
        try:
            seen = await asyncio.wait_for(self._eval(page, _CONFIRM_SENT_JS, [text, limit_ms]),
                                          limit_ms / 1000.0 + _SEND_CLICK_MS / 1000.0)
        except TimeoutError:
            self._trace(page, f"{why}; the page did not answer the did-it-leave check: waiting for an answer")
            self._warning(page, f"{why}; the page was unresponsive, so the run waits for an answer "
                                "instead of sending again")
            return
        if seen["ok"]:
            self._trace(page, f"{why}, but the prompt was sent: {seen['how']}")
            self._warning(page, f"{why}, but the prompt was sent ({seen['how']})")
            return
        self._send_failed(page, "a send click that timed out", seen, limit_ms)

    async def _click(self, page: Page, target: dict[str, float] | None, selector: str, what: str) -> None:
        """A real mouse click where the page's hit test said; Playwright's checked click otherwise."""
        if target:
            await self._input(what, self._press(page, target["x"], target["y"]))
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
        """Save a full-page PNG and the page HTML for a failed run, and (when the send step had
        something to say) ``<stem>.txt``: what covered the button, Playwright's call log, what the
        "did it leave?" check saw. Returns what was written.

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
        notes = self._diag.pop(page, None)
        if notes:  # what the send step saw: covering elements, Playwright's call log, the leave check
            txt = dir / f"{stem}.txt"
            try:
                body = f"MediaDesk send diagnostics for {page.url}\n\n" + "\n\n".join(notes) + "\n"
                await asyncio.to_thread(write_private_file, txt, body, "evidence file")
                written.append(txt)
            except Exception as exc:
                log.warning("evidence: send diagnostics failed: %s", _first_line(exc))
        return written
