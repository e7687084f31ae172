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
  editors the fast path does not fit. On a loaded machine each round trip (Python -> Playwright's
  driver -> Chromium -> page and back) costs far more than the page work it carries, so round trips
  that do not need each other's answer go out together: "new chat" is clicked from the page inside
  the readiness wait, which, given the prompt (``prepare(page, text)``, as the lane calls it), also
  types it; the send press goes out with the "did it leave?" check and the answer wait. Every check
  is still made, each on its own event in the page; only the waiting for each other is gone. On pages
  of a browser MediaDesk started, the page scripts and trusted presses go over a CDP connection of the
  driver's own (``cdp_direct.py``): one process hop fewer per round trip (pages of other browsers keep
  Playwright's path). The older, slower orders are not kept in the product: ``bench web`` compares
  against the figures of the commits that had them (``docs/benchmarks.md``).
* **Sent means sent, once.** The send button is resolved and checked in the page at click time
  (sites grow the prompt box after input and move the button): visible, enabled, and the element
  at its centre is the button, not an overlay. Then ONE trusted mouse press/release at that point
  (CDP ``Input.dispatchMouseEvent``), with a one-shot listener proving where the press landed, and
  the page's "did it leave?" check (the box emptied, busy shows, a new user turn or an answer
  appeared). No actionability polling, no waiting for animation frames: ~3 round trips instead of
  Playwright's ~120 ms checked click (``send_click = "checked"``: an adapter's choice for a site whose
  button needs Playwright's actionability checks).
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
linter can read); the Python half is split by step, all sharing the page's watcher state and one
error translation (``page_base.py``): readiness and new chat (``page_ready.py``), typing and sending
(``page_send.py``), the completion wait and stop (``page_wait.py``), evidence (``page_evidence.py``).
:class:`PageDriver` here puts them together and runs one prompt through them.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Page

from mediadesk.providers.web.adapter import SendClick, SiteAdapter, show_selector
from mediadesk.providers.web.busy import parse_wait, rest_until
from mediadesk.providers.web.cdp_direct import DirectPage
from mediadesk.providers.web.errors import (
    AnswerNotFound,
    BadPrompt,
    ChallengeShown,
    EmptyAnswer,
    FinalSiteError,
    NeedsLogin,
    RunCanceled,
    RunTimeout,
    SiteBusy,
    SiteError,
    StreamCut,
    UsageLimit,
)
from mediadesk.providers.web.markdown import html_to_markdown
from mediadesk.providers.web.page_base import _NEXT_JS, _RESUME_JS, _Navigated, _plain, _quiet
from mediadesk.providers.web.page_evidence import _PageEvidence
from mediadesk.providers.web.page_ready import _PageReady
from mediadesk.providers.web.page_send import _SEND_CLICK_MS, _SEND_CONFIRM_MS, _SEND_READY_MS, _PageSend
from mediadesk.providers.web.page_wait import _PageWait
from mediadesk.providers.web.stream_watch import StreamWatch

__all__ = ["PageDriver", "RunResult", "RunTimings"]

log = logging.getLogger(__name__)

_POLL_MS = 250  # safety-net re-check interval in the page; events do the real work
_LOGIN_GRACE_MS = 500  # a re-render may drop the logged-in marker for a moment
_ERROR_GRACE_MS = 200  # an error is held this long in case the login marker goes with it
_CLEAR_GRACE_MS = 3000  # after `new_chat`, how long old answers may take to disappear
_TEXT_GRACE_MS = 300  # how long the prompt box may take to show the inserted text
_STREAM_SETTLE_MS = 50  # once the site's answer stream ended: the answer must be still this long
_NEWS_WAIT_S = 2.0  # how long the network's news of a stream's end may trail the page's own view of it
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
    #: send -> the send press landed in the page (its pointerdown), by the page's clock; None when the
    #: prompt went by a key or Playwright's click. ``last_change_ms - pressed_ms`` is the site's part
    #: as the page sees it: its click handler, the trip to its server and back, the generation, the render.
    pressed_ms: float | None = None

    @property
    def done_reason(self) -> str:
        if self.done_rule == "stream":
            return "stream ended"
        return "page settled (stream still open)" if self.stream_still_open else "page settled"

    def done_why(self, settle_ms: int) -> str:
        """Which rule decided "done", and on what, in the operator's words (for the task log)."""
        if self.done_rule == "stream":
            return (f"stream ended: the stream our send started ended, then the answer was still "
                    f"{_STREAM_SETTLE_MS} ms")
        if self.stream_still_open:
            return (f"page settled (stream still open): no busy indicator and the answer unchanged for "
                    f"{max(_STREAM_HOLD_MIN_MS, 10 * settle_ms) / 1000:g} s while a stream of ours stayed open "
                    "(a channel the site keeps open)")
        return (f"page settled: no stream of ours to read the end from, so busy gone and the answer unchanged "
                f"for settle_ms = {settle_ms} ms")

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


class PageDriver(_PageReady, _PageSend, _PageWait, _PageEvidence):
    """Drives chat pages of one site. Holds no per-page state: the watcher lives in the page, so
    one driver can serve several pages (and a reused page needs nothing re-registered)."""

    #: After "new chat" clicked from the page: how long its effect may take before the button gets a
    #: trusted press instead (see page_ready.py).
    new_chat_effect_ms: float = 1500.0

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
        self._notes: weakref.WeakKeyDictionary[Page, list[str]] = weakref.WeakKeyDictionary()
        self._cdp: weakref.WeakKeyDictionary[Page, Any] = weakref.WeakKeyDictionary()
        self._direct: weakref.WeakKeyDictionary[Page, asyncio.Future[DirectPage | None]] = weakref.WeakKeyDictionary()
        #: Set by the owner of the browser (the account backend): its debug port for a page of it.
        self.cdp_port: Callable[[Page], int | None] | None = None
        self._typed: weakref.WeakKeyDictionary[Page, tuple[str, dict[str, Any]]] = weakref.WeakKeyDictionary()
        self._final = adapter.final_error_matcher()
        self._challenge = adapter.challenge_matcher()
        self._scripted_new_chat: bool | None = None
    @staticmethod
    def _decided_unaware(snap: dict[str, Any], watch: StreamWatch | None) -> bool:
        """The page called the answer done by its DOM rule while the site's stream, as we see it, is
        still open: the page had not heard of it yet (never cut an answer that is still streaming)."""
        return (snap["state"] == "done" and snap.get("rule") == "dom" and not snap.get("held")
                and watch is not None and watch.state == "open")

    def _cut(self, why: str) -> StreamCut:
        return StreamCut(f"{self.adapter.name or self.adapter.url}: {why}; the partial answer is not kept")

    def _not_found_message(self, snap: dict[str, Any]) -> str:
        a = self.adapter
        key = f"adapter key 'answer' {show_selector(a.answer)}" if a.answer else "the role fallback"
        return (f"{a.name or a.url}: the site worked on the run (busy or its stream came and went) but no answer "
                f"was found: {snap.get('why') or 'nothing qualified'} ({key}; nothing else new on the page "
                "passed the proofs). The evidence is saved; check the adapter")

    def _refusal(self, text: str, where: str) -> SiteBusy:
        """A busy refusal, or a usage limit whose stated reset is far enough away to rest until."""
        now = time.time()
        until = rest_until(text, now)
        if until is not None:
            return UsageLimit(text, where=where, until=until, now=now)
        return SiteBusy(text, where=where, wait_s=parse_wait(text))
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
                await self._until_streams_idle(page)  # never type while the site may still generate
                how_to_send = await self._type_and_arm(page, text)
        except TimeoutError as exc:
            raise RunTimeout(f"the page did not take the prompt within {pre_send_s:g} s") from exc
        typed = loop.time()
        watch = self._stream_watch(page)
        first: asyncio.Future[Any] | None = None
        decided_past = False  # the page decided with a stream of ours still open (a push channel)
        try:
            if cancel_event is not None and cancel_event.is_set():
                raise RunCanceled("canceled before sending")
            if watch is not None:
                watch.arm(lambda state: self._push_stream(page, watch, state), prompt=text)
            if self.send_click == "direct" and how_to_send.get("aim") is not None:
                # The direct click, already aimed: the answer wait goes out with it (it is already in
                # the page when the answer ends).
                first = asyncio.ensure_future(self._eval(page, _NEXT_JS, [0, on_progress is not None]))
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
            snap, progress = await self._await_answer(page, deadline, on_progress, cancel_event, first)
            first = None
            while self._decided_unaware(snap, watch) and await self._eval(page, _RESUME_JS, "open"):
                self._trace(page, "the page's DOM rule decided before it heard of the stream still open; "
                                  "waiting on")
                snap, more = await self._await_answer(page, deadline, on_progress, cancel_event)
                progress += more
            state = snap["state"]
            decided_past = bool(snap.get("held"))
            if state == "cut":
                raise self._cut(snap.get("why") or (watch.cut if watch else None) or "the stream broke")
            if state == "answer_not_found":
                raise AnswerNotFound(self._not_found_message(snap))
            if state == "empty":
                raise EmptyAnswer(f"{a.name or a.url}: the site's answer holds no text "
                                  "(icons, hidden text and controls left out)")
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
            if (snap.get("via") or {}).get("answer") == "selector":
                self._cfg["keyKnown"] = True  # a miss on a later run is a reason to wait, never to guess
            if snap.get("endVia") == "page" and watch is not None:
                watch.events.append("the stream's end seen in the page (its Resource Timing entry), "
                                    "ahead of the network news")
                # A broken stream gets a Resource Timing entry too: only the network's news tells an end
                # from a cut, so it is awaited before anything is stored (it is usually a few ms behind).
                if not await watch.network_settled(_NEWS_WAIT_S):
                    watch.events.append(f"no network news of the stream's end within {_NEWS_WAIT_S:g} s")
                if watch.cut is not None:
                    raise self._cut(watch.cut)
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
            if first is not None:  # the run ended before its answer wait was taken up
                first.cancel()
                _quiet(first)
            stream_events = tuple(watch.events) if watch is not None else ()
            if watch is not None:
                watch.disarm(decided_past=decided_past)
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
            pressed_ms=snap.get("press"),
        )
        if a.answer_format == "markdown":  # a parse of the whole answer: off the event loop
            answer = await asyncio.to_thread(html_to_markdown, answer)
        if not _plain(answer, a.answer_format).strip():
            raise EmptyAnswer(f"{a.name or a.url}: the site's answer holds no text (after conversion)")
        return RunResult(answer=answer, timings=timings, warnings=tuple(self._warn.get(page, ())))
