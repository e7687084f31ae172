"""A CDP connection of our own to one page, beside Playwright's, for the driver's hot path.

Why: a Playwright call goes through its Node driver process; Chromium serves several DevTools clients per
page, so the driver can talk to the page directly over the debug port, one process hop fewer per call. Only
the hot path goes this way (page script calls, trusted mouse input); everything else stays with Playwright.
Failures come back as Playwright's own :class:`~playwright.async_api.Error` with its wording, so the driver
translates both paths with one rule. Only browsers MediaDesk started have a debug port we know
(``OwnedBrowser.port``); otherwise, or when the connection fails, the driver uses Playwright.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import logging
import math
from typing import Any

import aiohttp
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

__all__ = ["DirectPage", "open_direct"]

log = logging.getLogger(__name__)

_CLOSED = "Target page, context or browser has been closed"
#: Scripts at least this long are kept in the page after their first call (see DirectPage.call).
_KEEP_SCRIPTS_FROM = 2000
_KEPT_ROOT = "__mediadeskFns"
_KEPT = f"window.{_KEPT_ROOT}"
#: What a call of a kept script returns on a document that does not hold it (never a script's value:
#: the driver's scripts return their own shapes, none with this key).
_MISSING = "({__mediadeskMissing: 1})"
_MISSING_VALUE = {"__mediadeskMissing": 1}
_CONNECT_TIMEOUT_S = 5.0


class DirectPage:
    """One WebSocket to one page target. Calls may overlap (each has its own id); a call pending
    when the page goes (closed, crashed, the connection lost) fails at once as Playwright would."""

    def __init__(self, session: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse) -> None:
        self._session = session
        self._ws = ws
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._gone: str | None = None
        self._names: dict[str, str] = {}  # a kept script -> its name in the page
        # Ends, closing the session, when Chromium closes the socket (the page or the browser went).
        self._reader = asyncio.get_running_loop().create_task(self._read(), name="cdp-direct reader")

    @property
    def usable(self) -> bool:
        return self._gone is None

    async def _read(self) -> None:
        try:
            async for msg in self._ws:
                if msg.type != aiohttp.WSMsgType.TEXT:
                    continue
                data = json.loads(msg.data)
                fut = self._pending.pop(data.get("id", -1), None)
                if fut is not None and not fut.done():
                    fut.set_result(data)
        except Exception as exc:  # the connection is lost either way
            log.debug("direct CDP connection lost: %s", exc)
        finally:
            self._fail(_CLOSED)
            await self._session.close()

    def _fail(self, why: str) -> None:
        """The page is gone: every pending call and every later one fails with ``why``."""
        if self._gone is None:
            self._gone = why
        pending, self._pending = self._pending, {}
        for fut in pending.values():
            if not fut.done():
                fut.set_exception(PlaywrightError(why))

    async def send(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """One CDP command; its ``result``. A protocol error raises Playwright's Error with its message."""
        if self._gone is not None:
            raise PlaywrightError(self._gone)
        call_id = next(self._ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[call_id] = fut
        try:
            await self._ws.send_str(json.dumps({"id": call_id, "method": method, "params": params}))
            reply = await fut
        except (ConnectionError, aiohttp.ClientError, RuntimeError) as exc:
            self._fail(_CLOSED)
            raise PlaywrightError(f"{_CLOSED}: {exc}") from exc
        finally:
            self._pending.pop(call_id, None)
        if "error" in reply:
            raise PlaywrightError(str(reply["error"].get("message", reply["error"])))
        result: dict[str, Any] = reply.get("result", {})
        return result

    async def call(self, script: str, arg: Any = None) -> Any:
        """``page.evaluate(script, arg)`` for a function ``script`` and a JSON ``arg``: awaited, by value.

        A long script is sent and compiled once per document: it is kept in the page as a function
        (``window.__mediadeskFns``) and later calls send only its name and the argument. A new document does
        not have it: that call sends the script again."""
        json_arg = "undefined" if arg is None else json.dumps(arg)
        if len(script) < _KEEP_SCRIPTS_FROM:
            return await self._evaluate(f"({script})({json_arg})")
        name = self._names.get(script)
        if name is None:
            name = self._names[script] = hashlib.sha1(script.encode()).hexdigest()[:16]
        kept = f"{_KEPT}[{json.dumps(name)}]"
        got = await self._evaluate(f"((f) => f ? f({json_arg}) : {_MISSING})(window.{_KEPT_ROOT} && {kept})")
        if got != _MISSING_VALUE:
            return got
        return await self._evaluate(
            f"(window.{_KEPT_ROOT} = window.{_KEPT_ROOT} || Object.create(null), {kept} = ({script}))({json_arg})")

    async def _evaluate(self, expression: str) -> Any:
        got = await self.send("Runtime.evaluate", {
            "expression": expression, "returnByValue": True, "awaitPromise": True, "userGesture": True,
        })
        details = got.get("exceptionDetails")
        if details is not None:
            exc = details.get("exception") or {}
            raise PlaywrightError(f"Evaluation failed: {exc.get('description') or details.get('text', 'error')}")
        value = got.get("result", {})
        if "unserializableValue" in value:
            return _unserializable(value["unserializableValue"])
        return value.get("value")

    async def press(self, x: float, y: float) -> None:
        """One trusted left click at (x, y): press and release sent back to back."""
        ev = {"x": x, "y": y, "button": "left", "clickCount": 1}
        await asyncio.gather(self.send("Input.dispatchMouseEvent", dict(ev, type="mousePressed")),
                             self.send("Input.dispatchMouseEvent", dict(ev, type="mouseReleased")))


def _unserializable(text: str) -> float | int | None:
    if text == "NaN":
        return math.nan
    if text in ("Infinity", "-Infinity"):
        return math.inf if text == "Infinity" else -math.inf
    if text == "-0":
        return -0.0
    if text.endswith("n"):  # BigInt
        return int(text[:-1])
    return None


async def open_direct(page: Page, port: int, cdp: Any) -> DirectPage:
    """Connect to ``page``'s target on the browser's debug port (127.0.0.1 only). ``cdp``: the page's
    Playwright CDP session, used once to learn the target's id. Raises on any failure (the caller
    then stays with Playwright)."""
    info = await cdp.send("Target.getTargetInfo")
    target = info["targetInfo"]["targetId"]
    session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None, connect=_CONNECT_TIMEOUT_S))
    try:
        ws = await session.ws_connect(f"ws://127.0.0.1:{int(port)}/devtools/page/{target}",
                                      max_msg_size=0, autoping=False)
    except BaseException:
        await session.close()
        raise
    direct = DirectPage(session, ws)
    # Playwright hears of a crash or a close first (and surely); pending direct calls fail with it.
    page.on("crash", lambda _p: direct._fail("Target crashed"))
    page.on("close", lambda _p: direct._fail(_CLOSED))
    return direct
