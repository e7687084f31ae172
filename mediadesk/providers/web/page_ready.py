"""Page readiness for the web driver: load the chat page (or a new chat on it), read the site's own
signals on load (site down, bot check), wait until it is logged in with a prompt box, and tell what a
navigation during a run meant."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any, NoReturn
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from mediadesk.core.log_lines import LOG
from mediadesk.providers.web.adapter import show_selector
from mediadesk.providers.web.errors import (
    AdapterMismatch,
    ChallengeShown,
    NeedsLogin,
    PageGone,
    RunTimeout,
    SiteBusy,
    SiteDown,
    SiteError,
    StreamCut,
    WebLaneError,
)
from mediadesk.providers.web.page_scripts import LOGGED_IN_JS, NEW_CHAT_JS, NEW_CHAT_TYPE_JS, READY_JS, READY_TYPE_JS
from mediadesk.providers.web.page_session import Navigated, PageSession, cancel, first_line, is_closed
from mediadesk.providers.web.signals import CHALLENGE_JS, ChallengeMatcher, ChallengeSeen, connection_failure

__all__ = ["PageReadiness"]

log = logging.getLogger("mediadesk.providers.web.driver")


def _same_page(current: str, target: str) -> bool:
    a, b = urlsplit(current), urlsplit(target)
    return (a.scheme, a.netloc, a.path.rstrip("/")) == (b.scheme, b.netloc, b.path.rstrip("/"))


async def _done() -> None:
    """An awaitable for a readiness that is already reached."""


class PageReadiness:
    """prepare / open: the page brought to a state a run can start from."""

    #: After a scripted "new chat" click: how long its effect (the old answers gone) may take before the
    #: button gets a trusted press instead (a site that listens for pointer events only ignores the script).
    new_chat_effect_ms: float = 1500.0

    def __init__(self, session: PageSession, challenge: ChallengeMatcher) -> None:
        self._session = session
        self._adapter = session.adapter
        self._challenge = challenge
        #: Learned per driver: None (not tried yet), True (the site reacts to it), False (it does not).
        self.scripted_new_chat: bool | None = None

    async def prepare(self, page: Page, text: str | None = None) -> None:
        """Bring ``page`` to a clean new conversation on this site and check the login.

        ``text``: the prompt the next :meth:`run` on this page will send. It is typed (and the watcher
        armed) in the same page script as the readiness wait, saving a round trip; the run then sends it
        (a run with another text types its own, replacing it).

        Raises :class:`NeedsLogin`, :class:`RunTimeout` (page load), :class:`SiteError`
        (navigation failed), :class:`AdapterMismatch` (no prompt box), :class:`PageGone`.
        """
        a = self._adapter
        # A page loaded before its stream watcher existed is loaded again: a WebSocket the site opened
        # at load would otherwise never be seen.
        unwatched = self._session.unwatched(page)
        await self.until_streams_idle(page)
        if a.new_chat and _same_page(page.url, a.url) and not unwatched:
            ready = await self._new_chat(page, text)
            if ready is not None:
                await ready
                return
        await self._goto(page, a.url)
        await self._await_ready(page, 0, text)

    async def _new_chat(self, page: Page, text: str | None) -> Awaitable[None] | None:
        """Press the site's "new chat" button; returns the readiness wait to await (old answers gone, logged in,
        a prompt box), or None when the button is missing or covered (load the chat page instead). The wait goes
        out with the press (dispatched before this returns) and, event driven, cannot end before it took effect.
        The click is first made by the page's own script (js/new_chat_click.js), its effect proven before anything
        is typed; a site that ignores a scripted click gets a trusted press instead (remembered for this driver)."""
        a = self._adapter
        budget_s = a.start_timeout_s + 5.0
        ready: asyncio.Future[None] | None = None
        try:
            async with asyncio.timeout(budget_s):
                found = await self._new_chat_in_page(page, text)
                if found is not None and found.get("done"):
                    return _done()
                info: dict[str, Any] = (found if found is not None
                                        else await self._session.evaluate(page, NEW_CHAT_JS, self._session.cfg))
                if info.get("covered"):
                    log.info("%s: 'new_chat' is covered by %s; loading the chat page instead",
                             a.name or a.url, info["covered"])
                if not info["found"]:
                    return None
                click = self._session.click(page, info.get("target"), ", ".join(a.selectors("new_chat")),
                                            "click 'new_chat'")
                ready = asyncio.ensure_future(self._await_ready(page, int(info["count"]), text))
                await click
        except BaseException as exc:
            if ready is not None:
                await cancel(ready)
            if isinstance(exc, Navigated):
                return None
            if isinstance(exc, TimeoutError):
                raise RunTimeout(f"the page did not respond within {budget_s:g} s") from exc
            raise
        return ready

    async def _new_chat_in_page(self, page: Page, text: str | None) -> dict[str, Any] | None:
        """The new-chat click made from the page (see :meth:`_new_chat`): ``{"done": True}`` when it
        took effect and the page is ready (the text typed); otherwise what the lookup found, for the
        trusted press (``target`` re-aimed), or None when there is nothing to type or this site ignores
        scripted clicks (learned by this driver)."""
        if text is None or self.scripted_new_chat is False:
            return None
        self._session.typed.pop(page, None)
        cfg = dict(self._session.cfg, text=text, clearFrom=0, effectMs=self.new_chat_effect_ms,
                   timeoutMs=self._adapter.start_timeout_s * 1000.0)
        try:
            got = await self._session.evaluate(page, NEW_CHAT_TYPE_JS, cfg)
        except Navigated:  # the click loaded a page (a link to a new chat): ready on the new document
            self.scripted_new_chat = True
            await self._session.settle_navigation(page)
            await self._await_ready(page, 0, text)
            return {"done": True}
        if not got.get("clicked"):
            return dict(got["nc"])
        if not got["effect"]:
            self.scripted_new_chat = False
            log.info("%s: the site did not react to a scripted click on 'new_chat' within %g s; pressing it "
                     "with a trusted click (and from now on)", self._adapter.name or self._adapter.url,
                     self.new_chat_effect_ms / 1000.0)
            nc = dict(got["nc"])
            nc["target"] = got.get("target")
            return nc
        self.scripted_new_chat = True
        self._took_ready(page, got, text, typing=True)
        return {"done": True}

    async def open(self, page: Page, url: str, *, reload: bool = False) -> None:
        """Bring ``page`` to ``url`` as it is (no new chat: e.g. a conversation thread to continue)
        and wait until it is logged in with a prompt box. Loads only when the page is elsewhere,
        or always with ``reload`` (a health probe must see the site's current state, not an old DOM).

        Raises what :meth:`prepare` raises."""
        await self.until_streams_idle(page)
        if reload or page.url != url:
            await self._goto(page, url)
        await self._await_ready(page, 0)

    async def until_streams_idle(self, page: Page) -> None:
        """The site is idle before we type: a stream of an earlier run of ours still open (a run stopped
        or cut early) is a generation the site may still be making. Wait for it to end (up to
        ``start_timeout_s``); still open then: :class:`SiteBusy` (its capacity: no attempt charged)."""
        watch = self._session.stream_watch(page)
        if watch is None or not watch.lingering:
            return
        open_now = ", ".join(watch.lingering)
        log.info("%s: waiting for an earlier answer's stream to end before typing (%s)", self._adapter.name, open_now)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        if await watch.wait_idle(self._adapter.start_timeout_s):
            self._session.note(page, LOG.waited_stream_open(streams=open_now, seconds=f"{loop.time() - t0:.1f}"))
            return
        raise SiteBusy(f"the site is still generating an earlier answer: its stream {open_now} is still open "
                       f"after {self._adapter.start_timeout_s:g} s", where="its stream")

    async def _goto(self, page: Page, url: str) -> None:
        """Load ``url`` and read the site's own signals first: a connection-level failure or a 5xx
        page is :class:`SiteDown` (its capacity, not the task's fault), a bot check is
        :class:`ChallengeShown`."""
        timeout_ms = self._adapter.page_load_timeout_s * 1000.0
        response = None
        try:
            response = await page.goto(url, wait_until="domcontentloaded", timeout=timeout_ms)
        except PlaywrightTimeout as exc:
            raise RunTimeout(f"{url} did not load within {self._adapter.page_load_timeout_s:g} s") from exc
        except PlaywrightError as exc:
            if is_closed(exc):
                raise PageGone(f"the page closed or crashed: {first_line(exc)}") from exc
            if (code := connection_failure(str(exc))) is not None:
                raise SiteDown(f"the site is unreachable: {url} failed with net::{code}") from exc
            if "interrupted by another navigation" not in str(exc):
                raise SiteError(f"could not open {url}: {first_line(exc)}") from exc
            # A client-side redirect (often to a login page): let the readiness check decide.
            await self._session.settle_navigation(page)
        status = None if response is None else response.status
        if status is not None and status >= 400 and (seen := await self.challenge(page)) is not None:
            raise ChallengeShown(f"{self._adapter.name or url}: a bot check needs a person ({seen.what})")
        if status is not None and status >= 500:
            raise SiteDown(f"the site is down: {url} answered HTTP {status} (a gateway or server error page "
                           "instead of the chat page)")

    async def challenge(self, page: Page) -> ChallengeSeen | None:
        """The bot check (CAPTCHA frame, widget, challenge wording) the page shows now, if any.
        Never raises: a page that cannot be read shows none."""
        try:
            prompt = ", ".join(self._adapter.selectors("prompt")) or None
            signals = await asyncio.wait_for(page.evaluate(CHALLENGE_JS, self._challenge.script_arg(prompt)), 5.0)
        except Exception:
            return None
        return self._challenge.judge(signals)
    async def _await_ready(self, page: Page, clear_from: int, text: str | None = None) -> None:
        """Wait until logged in with a prompt box (and, after a new-chat click, the old answers gone);
        with ``text``, type it in the same script (kept for the run, see prepare)."""
        a = self._adapter
        self._session.typed.pop(page, None)
        typing = text is not None
        if a.login_url and not _same_page(a.login_url, a.url) and _same_page(page.url, a.login_url):
            raise NeedsLogin(f"{a.name or a.url}: the site sent the browser to its login page")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + a.start_timeout_s
        cfg = dict(self._session.cfg, clearFrom=clear_from, text=text)
        while True:
            remaining = max(0.0, deadline - loop.time())
            cfg["timeoutMs"] = remaining * 1000.0
            try:
                got = await asyncio.wait_for(self._session.evaluate(page, READY_TYPE_JS if typing else READY_JS, cfg),
                                             remaining + 5.0)
                break
            except Navigated:
                await self._session.settle_navigation(page)
            except TimeoutError as exc:
                raise RunTimeout(f"the page did not respond within {a.start_timeout_s:g} s") from exc
        self._took_ready(page, got, text, typing=typing)

    def _took_ready(self, page: Page, got: Any, text: str | None, *, typing: bool) -> None:
        """What the readiness wait found: the typed text kept for the run, or the error it means."""
        a = self._adapter
        state = got["state"]
        if typing and state == "ready":
            assert text is not None
            self._session.typed[page] = (text, got["info"])
        if state == "ready" and (waited_ms := got.get("busyWaitMs")):
            self._session.note(page, LOG.waited_site_busy(seconds=f"{waited_ms / 1000:.1f}"))
        if state in ("logged_out", "no_login"):
            how = "shows" if state == "logged_out" else "lacks"
            key = "logged_out" if state == "logged_out" else "logged_in"
            value = a.logged_out if state == "logged_out" else a.logged_in
            what = f"{key} {show_selector(value)}" if value else (
                "a password field" if state == "logged_out" else "a prompt box")
            raise NeedsLogin(f"{a.name or a.url}: not logged in (the page {how} {what})")
        if state == "busy":
            raise SiteBusy(f"the site still shows its busy indicator after {a.start_timeout_s:g} s: it is generating "
                           "(an earlier answer, or one started elsewhere); nothing was typed", where="busy indicator")
        if state == "no_prompt":
            raise AdapterMismatch(f"{a.name or a.url}: {self._session.prompt_name()} not found on {page.url}")

    async def is_logged_in(self, page: Page) -> bool:
        """A snapshot of the login state (no waiting), e.g. to watch an operator's login."""
        try:
            return bool(await self._session.evaluate(page, LOGGED_IN_JS, self._session.cfg))
        except WebLaneError:
            return False
    async def after_navigation(self, page: Page, exc: Navigated) -> NoReturn:
        """The document was replaced after sending: the run is lost. Logged out (the usual
        reason) is reported as such; otherwise it is a cut (:class:`StreamCut`, uncharged)."""
        a = self._adapter
        try:
            await self._session.settle_navigation(page)
            await self._await_ready(page, 0)
        except NeedsLogin as login:
            raise NeedsLogin(f"{a.name or a.url}: the page went to a login page during the run") from login
        except WebLaneError:
            pass
        # The page went away under the run (the site reloaded it, a restart): its answer went with it. A cut,
        # not the task's fault: back uncharged, and the next send waits for the site to be idle.
        raise StreamCut(f"the page navigated away during the run (now at {page.url}); "
                        "the answer went with it") from exc
