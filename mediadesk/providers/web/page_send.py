"""The send path of the web driver: typing (three ways in), aiming at the send button at click time,
the direct trusted click or Playwright's checked one, overlays met on the way, and the page's "did it
leave?" check. A press that may have reached the site is never followed by a second send."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any, NoReturn

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import FilePayload, Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from mediadesk.providers.web.adapter import SendClick, show_selector
from mediadesk.providers.web.errors import AdapterMismatch, NeedsLogin, SiteError
from mediadesk.providers.web.page_scripts import (
    AIM_SEND_JS,
    CONFIRM_SENT_JS,
    DISMISS_JS,
    HOLDS_JS,
    INSTALL_JS,
    MARK_JS,
    READY_TO_SEND_JS,
    SELECT_PROMPT_JS,
    WAIT_UNCOVERED_JS,
)
from mediadesk.providers.web.page_session import Navigated, PageSession, cancel, first_line, quiet

__all__ = ["PROMPT_FILE", "PromptSender"]

log = logging.getLogger("mediadesk.providers.web.driver")

_SEND_READY_MS = 5000  # longest wait for the send button to become enabled after typing
_SEND_CLICK_MS = 5000  # longest wait for the send button to be clickable (visible, stable, uncovered)
_UNCOVER_MS = 1000  # after a dismiss click or an Escape press: how long an overlay may take to go
_AIM_RETRIES = 2  # a press that landed beside the button (it moved) is aimed again this often
_SEND_CONFIRM_MS = 3000  # after sending: the prompt must leave the box, or busy/an answer show, by then
_NAV_RETRIES = 3  # pre-send steps are redone if a navigation replaced the document
_ATTACH_MS = 5000  # longest wait for the attach input to take the prompt's file
#: The name a prompt over the adapter's ``paste_limit`` is attached under (its ``attach_note`` names it).
PROMPT_FILE = "prompt.txt"


_INTERCEPT = re.compile(r"(<[^\n]*?>[^\n]*?) intercepts pointer events")


def _interceptor(exc: BaseException) -> str | None:
    """The element Playwright's call log says covered the target ("<div ...> intercepts pointer events")."""
    found = _INTERCEPT.findall(str(exc))
    return found[-1].strip() if found else None


def _clicked(exc: BaseException) -> bool:
    """Playwright's call log shows the click was dispatched (it may still have reached the site)."""
    msg = str(exc)
    return "performing click action" in msg or "click action done" in msg


class PromptSender:
    """Type the prompt, send it once, and make sure it left."""

    def __init__(self, session: PageSession, send_click: SendClick) -> None:
        self._session = session
        self._adapter = session.adapter
        #: "direct": checked in the page, one trusted press (the default); "checked": Playwright's
        #: actionability-checked click (the old rule).
        self.send_click: SendClick = send_click

    async def type_and_arm(self, page: Page, text: str) -> dict[str, Any]:
        """Put ``text`` in the prompt box and arm the watcher; redone if the document changes.
        Returns how to send: ``enter`` (no send button found) and ``aim`` (the send click already
        resolved and checked by the typing script, or None)."""
        for _ in range(_NAV_RETRIES):
            try:
                return await self._type_once(page, text)
            except Navigated:
                await self._session.settle_navigation(page)
        raise SiteError("the page kept navigating; the prompt could not be typed")
    async def _type_once(self, page: Page, text: str) -> dict[str, Any]:
        """Install the watcher and type. Three ways in, cheapest first: the browser's own
        ``insertText`` editing command inside the install script, CDP ``Input.insertText`` (what IMEs
        use), then Playwright's ``fill``. An overlay over the prompt box is met first: ``dismiss``
        clicks (in the same script), then one Escape."""
        a = self._adapter
        cfg = dict(self._session.cfg, text=text)
        typed = self._session.typed.pop(page, None)  # prepare() typed it already?
        info = (typed[1] if typed is not None and typed[0] == text
                else await self._session.evaluate(page, INSTALL_JS, cfg))
        if info.get("dismissed"):
            self._session.warning(page, "clicked away an overlay: " + ", ".join(info["dismissed"]))
        if info.get("covered"):
            by = info["covered"]
            self._session.trace(page, f"prompt box covered by {by}")
            state = await self._session.evaluate(
                page, WAIT_UNCOVERED_JS, ["prompt", _UNCOVER_MS if info.get("dismissed") else 0])
            if state["covered"]:
                await self._session.input("press Escape", page.keyboard.press("Escape"))
                state = await self._session.evaluate(page, WAIT_UNCOVERED_JS, ["prompt", _UNCOVER_MS])
                self._session.warning(page, f"pressed Escape to close an overlay over the prompt box ({by})"
                                       + ("" if not state["covered"] else "; it is still there"))
            info = await self._session.evaluate(page, INSTALL_JS, dict(cfg, checkCover=False))
        if not info["loggedIn"]:
            raise NeedsLogin(f"{a.name or a.url}: not logged in")
        if info["prompt"] is None:
            raise AdapterMismatch(f"{a.name or a.url}: {self._session.prompt_name()} not found on {page.url}")
        if info["prompt"] == "other":
            raise AdapterMismatch(
                f"{a.name or a.url}: {self._session.prompt_name()} is neither a text box nor contenteditable")
        ready: dict[str, Any] | None = info["ready"]
        if ready is None or ready["why"] == "text":
            log.debug("insertText command did not take; using CDP insertText")
            await self._session.evaluate(page, SELECT_PROMPT_JS)
            await self._session.input("type the prompt", page.keyboard.insert_text(text))
            ready = await self._session.evaluate(page, READY_TO_SEND_JS, text)
        if ready["why"] == "text":
            log.debug("CDP insertText did not take; using Playwright fill")
            await self._session.evaluate(page, MARK_JS, "prompt")
            box = page.locator("[data-mediadesk=prompt]").first
            await self._session.input("fill the prompt box", box.fill(text, timeout=5000))
            ready = await self._session.evaluate(page, READY_TO_SEND_JS, text)
        self._session.note_via(page, ready.get("via") or {})
        why = ready["why"]
        if why in ("", "covered"):  # covered: the send step deals with the overlay
            aim = info.get("aim") if info.get("ready") is ready else None
            return {"enter": bool(ready.get("enter")), "aim": aim if aim and aim["why"] == "" else None}
        if why == "text":
            raise AdapterMismatch(
                f"the {self._session.prompt_name()} did not take the text (it shows {ready['seen']!r})")
        if why == "no_prompt":
            raise AdapterMismatch(f"{self._session.prompt_name()} vanished after typing")
        if why == "no_send":
            raise AdapterMismatch(f"{self._session.send_name()} not found (or not visible)")
        raise SiteError(f"{self._session.send_name()} stayed disabled for {_SEND_READY_MS / 1000:g} s")

    async def attach(self, page: Page, text: str) -> None:
        """Attach ``text`` as ``prompt.txt`` (UTF-8) through the adapter's ``attach`` file input (its first
        selector found on the page). None found, or one that takes no file: :class:`AdapterMismatch` naming
        the key; the prompt is never typed instead."""
        a = self._adapter
        key = f"{a.name or a.url}: the adapter's 'attach' {show_selector(a.attach)}"
        file = FilePayload(name=PROMPT_FILE, mimeType="text/plain", buffer=text.encode("utf-8"))
        for sel in a.selectors("attach"):
            found = page.locator(sel).first
            try:
                if not await found.count():
                    continue
                await found.set_input_files(file, timeout=_ATTACH_MS)
            except PlaywrightTimeout as exc:
                raise AdapterMismatch(f"{key} did not take the prompt's file: {first_line(exc)}") from exc
            except PlaywrightError as exc:
                err = self._session.translate(exc)
                if not isinstance(err, SiteError):  # the page closed or navigated
                    raise err from exc
                raise AdapterMismatch(f"{key} could not take the prompt's file ({first_line(exc)}): it must name "
                                      "the page's file input, input[type=file]") from exc
            self._session.trace(page, f"attached the prompt ({len(text)} characters) as {PROMPT_FILE} through {sel}")
            return
        raise AdapterMismatch(f"{key} matches nothing on {page.url}: the prompt ({len(text)} characters, over "
                              f"paste_limit = {a.paste_limit}) was not sent; check the adapter's 'attach'")

    async def send(self, page: Page, text: str, how_to_send: dict[str, Any]) -> None:
        """Send, then make sure it was sent (see the module docstring): a click that reached
        nothing fails now as ``send_failed`` (a retryable site error) instead of waiting
        ``start_timeout_s`` for an answer that never comes; a click that may have gone never
        fails as ``send_failed``."""
        a = self._adapter
        limit_ms = min(float(_SEND_CONFIRM_MS), a.start_timeout_s * 1000.0)
        enter = how_to_send.get("enter", False)
        if a.send_key or enter:
            key = a.send_key or "Enter"
            how = f"pressing {key!r}"
            if enter and not a.send_key:
                self._session.trace(page, "no send button found; pressing Enter in the prompt box")
            await self._session.input(how, page.keyboard.press(key))
            seen = await self._session.evaluate(page, CONFIRM_SENT_JS, [text, limit_ms])
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
        self._session.trace(page, msg)
        raise SiteError(msg)

    async def _aim(self, page: Page, text: str) -> dict[str, Any]:
        """Resolve the send button at click time; an overlay over it is clicked away (``dismiss``),
        then gets one Escape, then is waited out until ``_SEND_CLICK_MS``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _SEND_CLICK_MS / 1000.0
        escaped = False
        while True:
            target: dict[str, Any] = await self._session.evaluate(page, AIM_SEND_JS)
            why = target["why"]
            if why == "":
                return target
            left_ms = max(0.0, (deadline - loop.time()) * 1000.0)
            if why == "no_send":
                raise SiteError(f"send_failed: {self._session.send_name()} not found (or not visible) at click time")
            if why == "disabled":
                if left_ms <= 0:
                    raise SiteError(f"send_failed: {self._session.send_name()} is disabled at click time")
                await asyncio.sleep(0.05)
                continue
            by = target["by"]
            self._session.trace(page, f"send button covered by {by}")
            if self._adapter.dismiss and (clicked := await self._session.evaluate(page, DISMISS_JS)):
                self._session.warning(page, "clicked away an overlay: " + ", ".join(clicked))
                await self._session.evaluate(page, WAIT_UNCOVERED_JS, ["send", min(left_ms, _UNCOVER_MS)])
                continue
            if not escaped:
                escaped = True
                await self._escape(page, by, text)
                continue
            if left_ms <= 0:
                raise SiteError(f"send_failed: the send button is covered by {by} (dismiss did not remove it; "
                                "Escape did not close it; add its close button to the adapter's 'dismiss')")
            await self._session.evaluate(page, WAIT_UNCOVERED_JS, ["send", left_ms])

    async def _escape(self, page: Page, by: str, text: str) -> None:
        """One Escape press to close an overlay; the prompt is checked after it (some boxes clear on
        Escape, and an emptied box must not pass for a sent prompt)."""
        await self._session.input("press Escape", page.keyboard.press("Escape"))
        state = await self._session.evaluate(page, WAIT_UNCOVERED_JS, ["send", _UNCOVER_MS])
        self._session.warning(page, f"pressed Escape to close an overlay ({by})"
                               + (": closed" if not state["covered"] else ": still there"))
        if not await self._session.evaluate(page, HOLDS_JS, text):
            raise SiteError(f"send_failed: the Escape key meant for an overlay ({by}) cleared the prompt box; "
                            "add the overlay's close button to the adapter's 'dismiss'")
    async def _send_direct(self, page: Page, text: str, limit_ms: float, aimed: dict[str, Any] | None) -> None:
        for attempt in range(_AIM_RETRIES + 1):
            target = aimed if aimed is not None and attempt == 0 else await self._aim(page, text)
            press = asyncio.ensure_future(self._session.press(page, target["x"], target["y"]))
            # The did-it-leave check goes out with the press (it is event driven in the page and hears
            # of a press that landed elsewhere at once).
            confirm = asyncio.ensure_future(self._session.evaluate(page, CONFIRM_SENT_JS, [text, limit_ms]))
            try:
                seen = await self._pressed(page, press, confirm)
            except TimeoutError:
                self._session.trace(page, f"the send click did not return within {_SEND_CLICK_MS / 1000:g} s "
                                           "(a busy page or a blocked click handler); checking whether the prompt left")
                await self._sent_or_in_doubt(page, text, limit_ms, "the send click timed out", confirm)
                return
            except PlaywrightError as exc:
                raise self._session.translate(exc) from exc
            if seen["ok"]:
                if self._session.traced(page):  # after trouble, say how it ended
                    self._session.trace(page, f"sent: {seen['how']}")
                return
            if seen.get("landed") is False and attempt < _AIM_RETRIES:
                # The press hit something else (the button moved): nothing reached the site's button.
                self._session.trace(
                    page, f"the click landed on {seen.get('missed')}, not the send button; aiming again")
                continue
            self._send_failed(page, f"clicking the {self._session.send_name()}", seen, limit_ms)

    @staticmethod
    async def _pressed(page: Page, press: asyncio.Future[None], confirm: asyncio.Future[Any]) -> dict[str, Any]:
        """Wait for the press to return (TimeoutError after ``_SEND_CLICK_MS``) or for the did-it-leave
        check, whichever comes first: the check's answer. A press still on its way once the check
        answered is left to finish on its own (a click handler that holds the page); one that failed
        fails the send."""
        waiting: set[asyncio.Future[Any]] = {press, confirm}
        try:
            done, _ = await asyncio.wait(waiting, timeout=_SEND_CLICK_MS / 1000.0,
                                         return_when=asyncio.FIRST_COMPLETED)
            if not done:
                quiet(press)
                raise TimeoutError
            if press.done():
                press.result()  # a press that failed (page closed, ...) raises here
                answered: dict[str, Any] = await confirm
                return answered
            quiet(press)
            seen: dict[str, Any] = confirm.result()
            return seen
        except BaseException as exc:
            if not isinstance(exc, TimeoutError):
                await cancel(confirm)
            if not press.done():
                quiet(press)
            raise

    async def _send_checked(self, page: Page, text: str, limit_ms: float) -> None:
        """Playwright's actionability-checked click (the old rule): on an intercepted click, one
        Escape and a retry; the call log goes into the evidence."""
        a = self._adapter
        loc = page.locator(f"{a.send} >> visible=true").first if isinstance(a.send, str) else None
        if loc is None:
            await self._session.evaluate(page, MARK_JS, "send")
            loc = page.locator("[data-mediadesk=send]").first
        how = f"clicking {self._session.send_name()}"
        for attempt in range(2):
            try:
                await loc.click(timeout=_SEND_CLICK_MS)
                break
            except PlaywrightTimeout as exc:
                self._session.trace(page, f"Playwright click failed; call log:\n{exc}")
                by = _interceptor(exc)
                if by and attempt == 0:
                    await self._escape(page, by, text)
                    continue
                if _clicked(exc):
                    await self._sent_or_in_doubt(page, text, limit_ms, f"the click timed out: {first_line(exc)}")
                    return
                detail = f" ({by} intercepts pointer events)" if by else ""
                raise SiteError(
                    f"send_failed: could not click {self._session.send_name()}{detail}: {first_line(exc)}") from exc
            except PlaywrightError as exc:
                raise self._session.translate(exc) from exc
        seen = await self._session.evaluate(page, CONFIRM_SENT_JS, [text, limit_ms])
        if not seen["ok"]:
            self._send_failed(page, how, seen, limit_ms)

    async def _sent_or_in_doubt(self, page: Page, text: str, limit_ms: float, why: str,
                                asked: asyncio.Future[Any] | None = None) -> None:
        """A click that timed out may still have sent (the site did, then stalled): "did it leave?"
        decides (``asked``: the check already on its way). Seen leaving -> sent. The page not
        answering the check -> in doubt -> sent (the answer wait decides; sending again could
        generate the prompt twice)."""
        check = asked if asked is not None else self._session.evaluate(page, CONFIRM_SENT_JS, [text, limit_ms])
        try:
            seen = await asyncio.wait_for(check, limit_ms / 1000.0 + _SEND_CLICK_MS / 1000.0)
        except TimeoutError:
            self._session.trace(page, f"{why}; the page did not answer the did-it-leave check: waiting for an answer")
            self._session.warning(page, f"{why}; the page was unresponsive, so the run waits for an answer "
                                         "instead of sending again")
            return
        if seen["ok"]:
            self._session.trace(page, f"{why}, but the prompt was sent: {seen['how']}")
            self._session.warning(page, f"{why}, but the prompt was sent ({seen['how']})")
            return
        self._send_failed(page, "a send click that timed out", seen, limit_ms)
