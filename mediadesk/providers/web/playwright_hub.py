"""One Playwright driver process shared by every web lane of this process's event loop.

Why shared: each Playwright instance is a Node process, slow to start and memory-hungry; one per account
would multiply both for nothing, since every browser is reached over its own CDP connection anyway.
Reference-counted: the driver stops when the last user releases it.

Per event loop: the driver's connection, and the lock that orders its start and stop, belong to the
loop that made them. A process that runs a second loop (a command after another, a test after
another) gets a driver of its own there, even when a user of the first never released it.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from typing import Any


class _LoopHub:
    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.pw: Any = None
        self.cm: Any = None
        self.users = 0


class PlaywrightHub:
    """The shared driver: ``await PlaywrightHub.acquire()`` ... ``await PlaywrightHub.release()``."""

    _hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopHub] = weakref.WeakKeyDictionary()

    @classmethod
    def _hub(cls) -> _LoopHub:
        loop = asyncio.get_running_loop()
        hub = cls._hubs.get(loop)
        if hub is None:
            hub = cls._hubs[loop] = _LoopHub()
        return hub

    @classmethod
    async def acquire(cls) -> Any:
        """The running Playwright of this loop (started on first use); pair every call with :meth:`release`."""
        hub = cls._hub()
        async with hub.lock:
            if hub.pw is None:
                from playwright.async_api import async_playwright

                hub.cm = async_playwright()
                hub.pw = await hub.cm.start()
            hub.users += 1
            return hub.pw

    @classmethod
    async def release(cls) -> None:
        """Drop one use; the last one stops the driver."""
        hub = cls._hub()
        async with hub.lock:
            hub.users -= 1
            if hub.users <= 0 and hub.pw is not None:
                pw, hub.pw, hub.cm = hub.pw, None, None
                hub.users = 0
                with contextlib.suppress(Exception):
                    await pw.stop()
