"""Run one prompt on a chat page, knowing the site only through its :class:`SiteAdapter`.

The completion rule runs in the page (``js/*.js``): a ``MutationObserver`` re-evaluates it on every DOM change,
never a polling loop. Sent means sent, once: a press that may have reached the site is never repeated; a site
that says it is busy ends the run as a refusal (:class:`SiteBusy`), never as an answer. :class:`PageDriver`
runs one prompt through :class:`PageReadiness`, :class:`PromptSender`, :class:`AnswerWait` and
:func:`save_evidence`. Limits: selectors apply to the main document (not iframes or shadow roots); a full
navigation after sending ends the run. Details: docs/web-lane-completion.md, docs/web-lane-adapters.md.
"""

from __future__ import annotations

import asyncio
import difflib
import html
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Page

from mediadesk.core.log_lines import LOG, LogText
from mediadesk.providers.web.adapter import SendClick, SiteAdapter, show_selector
from mediadesk.providers.web.busy import parse_wait, rest_until
from mediadesk.providers.web.errors import (
    AnswerNotFound,
    BadPrompt,
    ChallengeShown,
    EmptyAnswer,
    FinalSiteError,
    NeedsLogin,
    PromptTooLong,
    RunCanceled,
    RunTimeout,
    SiteBusy,
    SiteError,
    StreamCut,
    UsageLimit,
    WebLaneError,
)
from mediadesk.providers.web.markdown import html_to_markdown
from mediadesk.providers.web.page_evidence import save_evidence
from mediadesk.providers.web.page_ready import PageReadiness
from mediadesk.providers.web.page_scripts import NEXT_JS, RESUME_JS
from mediadesk.providers.web.page_send import _SEND_CLICK_MS, _SEND_CONFIRM_MS, _SEND_READY_MS, PromptSender
from mediadesk.providers.web.page_session import Navigated, PageSession, quiet
from mediadesk.providers.web.page_wait import AnswerWait
from mediadesk.providers.web.signals import ChallengeSeen
from mediadesk.providers.web.stream_decode import Decoded, StreamSpec, decode_body, decode_messages
from mediadesk.providers.web.stream_watch import Capture, StreamWatch

__all__ = ["PageDriver", "RunResult", "RunTimings", "answer_words", "words_differ"]

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
    #: found by role instead, overlays clicked away, a page that shows another text than the stream.
    #: Empty on a clean run.
    warnings: tuple[str, ...] = field(default=())
    #: The model's thinking as the site's stream carried it, kept apart from the answer (None: none read).
    reasoning: str | None = None
    #: What gave ``answer``: ``"stream"`` (read out of the site's own stream, as the model wrote it) or
    #: ``"page"`` (the page's DOM, in the adapter's ``answer_format``).
    source: str = "page"
    #: The task log's line on where the answer came from (None: the adapter reads no stream).
    source_note: LogText | None = None
    #: The task log's line on a prompt over the adapter's ``paste_limit`` that went as a file (None: typed).
    prompt_note: LogText | None = None


@dataclass(frozen=True)
class _StreamRead:
    """The answer read out of a run's captured stream, and what the page's answer says beside it."""

    decoded: Decoded | None  # None: nothing of the stream was kept
    #: The page's answer disagrees with the stream's (after both are reduced to words): what differs.
    differs: str | None = None


_TAG = re.compile(r"<[^>]*>")


def _plain(text: str, fmt: str) -> str:
    """The reader's text of an answer (tags dropped from an ``html`` or ``markdown`` one), for the busy check."""
    return html.unescape(_TAG.sub(" ", text)) if fmt in ("html", "markdown") else text


# --- the stream's answer against the page's -------------------------------------------------------------

#: Characters that count one word each (CJK ideographs, kana, hangul, fullwidth forms): no spaces between them.
_CJK = "\u2e80-\u2fdf\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
_WORD = re.compile(f"[{_CJK}]|[^\\W_{_CJK}]+")
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_LINK_TARGET = re.compile(r"\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_LIST_MARK = re.compile(r"^[ \t>]*(?:[-*+]|\d{1,9}[.)])[ \t]+", re.MULTILINE)
_FENCE_LANG = re.compile(r"^[ \t]*(?:`{3,}|~{3,})[ \t]*([^\s`~]+)", re.MULTILINE)
_COMPARE_MAX_WORDS = 50_000  # beyond this, differing answers are not diffed word by word (only counted)


def answer_words(text: str) -> list[str]:
    """An answer reduced to its words, to compare a stream's Markdown with a page's text: HTML tags, link
    targets, list markers and every other mark (Markdown's ``*``, ``|``, ``#``, backticks, punctuation,
    emoji) and all whitespace dropped, case folded; a CJK character is one word."""
    text = html.unescape(_HTML_TAG.sub(" ", text))
    text = _LIST_MARK.sub("", _LINK_TARGET.sub("] ", text))
    return _WORD.findall(text.casefold())


def words_differ(stream_text: str, page_text: str) -> str | None:
    """None when the page's answer says what the stream's says (word for word, see :func:`answer_words`;
    a code block's language may show on the page or not); else what differs, for a warning."""
    a, b = answer_words(stream_text), answer_words(page_text)
    if a == b:
        return None
    if max(len(a), len(b)) > _COMPARE_MAX_WORDS:
        return f"{len(a)} words in the stream, {len(b)} on the page"
    langs = {lang.casefold() for lang in _FENCE_LANG.findall(stream_text)}
    only_stream: list[str] = []
    only_page: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            only_stream += [w for w in a[i1:i2] if w not in langs]
            only_page += [w for w in b[j1:j2] if w not in langs]
    if not only_stream and not only_page:
        return None
    return (f"{len(only_stream)} word(s) only in the stream ({_few(only_stream)}), "
            f"{len(only_page)} only on the page ({_few(only_page)})")


def _few(words: list[str]) -> str:
    return repr(" ".join(words[:8]) + (" ..." if len(words) > 8 else "")) if words else "none"


def _decode(spec: StreamSpec, captured: Capture) -> Decoded:
    """The answer out of what our stream carried: a WebSocket's messages, or each HTTP body (the last
    that gave text is the answer's stream; the frames of all are counted)."""
    if not captured.bodies:
        return decode_messages(spec, captured.messages)
    best: Decoded | None = None
    frames = matched = 0
    for body in captured.bodies:
        got = decode_body(spec, body)
        frames, matched = frames + got.frames, matched + got.matched
        if got.text.strip() or best is None:
            best = got
    assert best is not None
    return Decoded(best.text, best.reasoning, best.ended, frames, matched)


def _read_stream(spec: StreamSpec, captured: Capture, page_answer: str) -> _StreamRead:
    """Decode the stream and set the page's answer beside it (CPU work: run off the event loop)."""
    if captured.empty:
        return _StreamRead(None)
    decoded = _decode(spec, captured)
    differs = words_differ(decoded.text, page_answer) if decoded.text.strip() else None
    return _StreamRead(decoded, differs)


class PageDriver:
    """Drives chat pages of one site. Holds no per-page state itself: the watcher lives in the page and
    the session keeps the rest per page, so one driver can serve several pages (and a reused page needs
    nothing re-registered)."""

    def __init__(
        self,
        adapter: SiteAdapter,
        *,
        watch_streams: bool = True,
        send_click: SendClick | None = None,
        cdp_port: Callable[[Page], int | None] | None = None,
    ) -> None:
        """``watch_streams``: completion from the site's own answer stream (see stream_watch.py); off: the
        DOM rule only. ``send_click``: the adapter's unless given. ``cdp_port``: given by the owner of the
        browser (the account backend), its debug port for a page of it (the driver's own CDP connection)."""
        self.adapter = adapter
        a = adapter
        cfg: dict[str, Any] = {
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
            "reasoning": a.selectors("reasoning"),
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
        self.session = PageSession(adapter, cfg, watch_streams=watch_streams, cdp_port=cdp_port)
        self._challenge = adapter.challenge_matcher()
        self.ready = PageReadiness(self.session, self._challenge)
        self.sender = PromptSender(self.session, send_click or adapter.send_click)
        self.answers = AnswerWait(self.session)
        self._busy = adapter.busy_matcher()
        self._final = adapter.final_error_matcher()

    # --- the page as the account sees it (the parts do the work) --------------------------------------

    async def prepare(self, page: Page, text: str | None = None) -> None:
        """A clean new conversation on ``page``, logged in, with ``text`` typed for the next :meth:`run`
        (see :meth:`PageReadiness.prepare`; a prompt over ``paste_limit``: its ``attach_note``)."""
        await self.ready.prepare(page, None if text is None else self._box_text(text))

    async def open(self, page: Page, url: str, *, reload: bool = False) -> None:
        """``page`` at ``url`` as it is (a thread to continue), logged in (see :meth:`PageReadiness.open`)."""
        await self.ready.open(page, url, reload=reload)

    async def challenge(self, page: Page) -> ChallengeSeen | None:
        """The bot check the page shows now, if any; never raises."""
        return await self.ready.challenge(page)

    async def is_logged_in(self, page: Page) -> bool:
        """A snapshot of the login state (no waiting), e.g. to watch an operator's login."""
        return await self.ready.is_logged_in(page)

    def take_notes(self, page: Page) -> list[LogText]:
        """What getting ``page`` ready waited for since the last call (for the task log)."""
        return self.session.take_notes(page)

    async def location(self, page: Page) -> str:
        """The address the page shows now, asked of the page itself: Playwright's ``page.url`` learns of a
        ``history.replaceState`` from an event that may still be on its way when a run has ended."""
        try:
            href = await self.session.evaluate(page, "() => location.href")
        except WebLaneError:
            return page.url
        return href if isinstance(href, str) and href else page.url

    async def evidence(self, page: Page, dir: Path, stem: str) -> list[Path]:
        """Save what a failed run on ``page`` leaves for the operator (see :func:`save_evidence`); never raises."""
        return await save_evidence(page, dir, stem, self.session.take_trace)

    # --- run --------------------------------------------------------------------------------------

    @staticmethod
    def _decided_unaware(snap: dict[str, Any], watch: StreamWatch | None) -> bool:
        """The page called the answer done by its DOM rule while the site's stream, as we see it, is
        still open: the page had not heard of it yet (never cut an answer that is still streaming)."""
        return (snap["state"] == "done" and snap.get("rule") == "dom" and not snap.get("held")
                and watch is not None and watch.state == "open")

    def _as_file(self, text: str) -> bool:
        """The prompt ``text`` goes as an attached file: it is longer than the adapter's ``paste_limit`` (the
        ``attach_note`` is typed in its place). Raises :class:`PromptTooLong` when it is and the adapter has no
        ``attach``: refused before anything is typed, never sent cut."""
        a = self.adapter
        if a.paste_limit is None or len(text) <= a.paste_limit:
            return False
        if a.attach is None:
            raise PromptTooLong(
                f"{a.name or a.url}: the prompt is {len(text)} characters long (instructions and content as typed), "
                f"over the site adapter's paste_limit of {a.paste_limit}, and the adapter has no 'attach' to send it "
                "as a file; nothing was sent. Shorten the prompt, or set 'attach' in the adapter")
        return True

    def _box_text(self, text: str) -> str:
        """What goes in the prompt box for the prompt ``text`` (see :meth:`_as_file`)."""
        return self.adapter.attach_note if self._as_file(text) else text

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

    def _raise_unless_done(self, snap: dict[str, Any], watch: StreamWatch | None) -> None:
        """The error a final state other than "done" means."""
        a = self.adapter
        state = snap["state"]
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
        :class:`RunTimeout`, :class:`AdapterMismatch`, :class:`PageGone`, :class:`PromptTooLong` (before typing;
        a prompt over ``paste_limit`` goes as a file when the adapter has ``attach``).
        """
        a = self.adapter
        if not text.strip():
            raise BadPrompt("nothing to send: the prompt text is empty")
        as_file = self._as_file(text)  # over paste_limit: the attach_note is typed, the prompt attached
        box = self._box_text(text)
        if cancel_event is not None and cancel_event.is_set():
            raise RunCanceled("canceled before typing")
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        deadline = t0 + a.max_run_s
        self.session.begin_run(page)
        # A hung renderer must not hold the run until max_run_s: typing has its own budget.
        pre_send_s = min(a.max_run_s, a.page_load_timeout_s + a.start_timeout_s + 10.0)
        try:
            async with asyncio.timeout(pre_send_s):
                await self.ready.until_streams_idle(page)  # never type while the site may still generate
                how_to_send = await self.sender.type_and_arm(page, box)
                if as_file:  # the send is then aimed at click time (a site may hold it while the file uploads)
                    await self.sender.attach(page, text)
                    how_to_send = dict(how_to_send, aim=None)
        except TimeoutError as exc:
            raise RunTimeout(f"the page did not take the prompt within {pre_send_s:g} s") from exc
        watch = self.session.stream_watch(page)
        if watch is not None and a.reads_stream:  # once per page: the stream's bytes gathered as they come
            await self.session.capture_streams(page, watch)
        typed = loop.time()
        first: asyncio.Future[Any] | None = None
        captured: Capture | None = None  # what our stream carried, when the adapter reads the answer there
        decided_past = False  # the page decided with a stream of ours still open (a push channel)
        try:
            if cancel_event is not None and cancel_event.is_set():
                raise RunCanceled("canceled before sending")
            if watch is not None:
                watch.arm(lambda state: self.answers.push_stream(page, watch, state), prompt=box)
            if self.sender.send_click == "direct" and how_to_send.get("aim") is not None:
                # The direct click, already aimed: the answer wait goes out with it (it is already in
                # the page when the answer ends).
                first = asyncio.ensure_future(self.session.evaluate(page, NEXT_JS, [0, on_progress is not None]))
            send_budget_s = (_SEND_CLICK_MS + _SEND_CONFIRM_MS) / 1000.0 + 5.0
            left_s = max(0.0, deadline - loop.time())
            try:
                async with asyncio.timeout(min(send_budget_s, left_s)):
                    await self.sender.send(page, box, how_to_send)
            except TimeoutError as exc:
                if left_s <= send_budget_s:  # max_run_s bounds every step, sending included
                    raise RunTimeout(f"no complete answer within max_run_s={a.max_run_s:g} s") from exc
                raise RunTimeout("the page did not respond to the send click") from exc
            sent = loop.time()
            snap, progress = await self.answers.await_answer(page, deadline, on_progress, cancel_event, first)
            first = None
            while self._decided_unaware(snap, watch) and await self.session.evaluate(page, RESUME_JS, "open"):
                self.session.trace(page, "the page's DOM rule decided before it heard of the stream still open; "
                                         "waiting on")
                snap, more = await self.answers.await_answer(page, deadline, on_progress, cancel_event)
                progress += more
            decided_past = bool(snap.get("held"))
            self._raise_unless_done(snap, watch)
            self.session.note_answer_via(page, snap)
            if (snap.get("via") or {}).get("answer") == "selector":
                self.session.cfg["keyKnown"] = True  # a miss on a later run is a reason to wait, never to guess
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
            # The adapter reads the answer out of the stream: what it carried is kept before the watcher
            # is disarmed (the busy check then applies to whichever answer is stored, below).
            captured = await watch.capture() if watch is not None and a.reads_stream else None
            plain = _plain(answer, a.answer_format)
            if captured is None and self._busy.is_busy_answer(plain):  # a busy notice only: never stored
                raise self._refusal(plain, "answer")
        except Navigated as exc:
            await self.ready.after_navigation(page, exc)
        except BaseException:
            await self.answers.abort(page)
            raise
        finally:
            if first is not None:  # the run ended before its answer wait was taken up
                first.cancel()
                quiet(first)
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
        reasoning: str | None = snap.get("reasoning") or None  # the page's thinking block (``reasoning`` key)
        source, note, fmt = "page", None, a.answer_format
        if captured is not None:
            answer, streamed, source, note = await self._stream_answer(page, captured, answer)
            reasoning = streamed or reasoning  # the stream's thinking wins over the page's
            fmt = "markdown" if source == "stream" else fmt
            plain = _plain(answer, fmt)
            if self._busy.is_busy_answer(plain):  # the whole "answer" is a busy notice: never stored
                raise self._refusal(plain, "answer")
        if not _plain(answer, fmt).strip():
            raise EmptyAnswer(f"{a.name or a.url}: the site's answer holds no text (after conversion)")
        attached = LOG.prompt_attached(chars=len(text), limit=a.paste_limit or 0) if as_file else None
        return RunResult(answer=answer, timings=timings, warnings=self.session.warnings(page), reasoning=reasoning,
                         source=source, source_note=note, prompt_note=attached)

    async def _stream_answer(
        self, page: Page, captured: Capture, page_answer: str
    ) -> tuple[str, str | None, str, LogText]:
        """(answer, reasoning, source, the task log's line): the stream's answer when the adapter's decoder
        reads one out of what the stream carried, else the page's (``page_answer``). When both are there
        and say different things, the stream's is kept and the account is warned."""
        spec = self.adapter.stream
        assert spec is not None  # reads_stream
        read = await asyncio.to_thread(_read_stream, spec, captured, page_answer)
        decoded = read.decoded
        if decoded is None:
            why = LOG.stream_not_kept()
            return page_answer, None, "page", LOG.answer_from_page(why=why)
        if not decoded.text.strip():
            why = LOG.stream_no_answer(frames=decoded.frames)
            return page_answer, None, "page", LOG.answer_from_page(why=why)
        if read.differs is not None:
            self.session.warning(page, f"the page shows another answer than the site's stream carried "
                                       f"({read.differs}); the stream's answer is kept (check the adapter's "
                                       f"'answer' key)")
        reasoning = decoded.reasoning or None
        note = LOG.answer_from_stream(frames=decoded.frames, chars=len(decoded.text),
                                      reasoning=len(decoded.reasoning))
        return decoded.text, reasoning, "stream", note
