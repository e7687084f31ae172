"""One Playwright driver process shared by every web lane of this process.

Why shared: each Playwright instance is a Node process, slow to start and memory-hungry; one per account
would multiply both for nothing, since every browser is reached over its own CDP connection anyway.
Reference-counted: the driver stops when the last user releases it.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


class PlaywrightHub:
    """The shared driver: ``await PlaywrightHub.acquire()`` ... ``await PlaywrightHub.release()``."""

    _pw: Any = None
    _cm: Any = None
    _users = 0
    _lock: asyncio.Lock | None = None

    @classmethod
    async def acquire(cls) -> Any:
        """The running Playwright (started on first use); pair every call with :meth:`release`."""
        if cls._lock is None:
            cls._lock = asyncio.Lock()
        async with cls._lock:
            if cls._pw is None:
                from playwright.async_api import async_playwright

                cls._cm = async_playwright()
                cls._pw = await cls._cm.start()
            cls._users += 1
            return cls._pw

    @classmethod
    async def release(cls) -> None:
        """Drop one use; the last one stops the driver (and forgets the lock, which is loop-bound)."""
        assert cls._lock is not None
        async with cls._lock:
            cls._users -= 1
            if cls._users <= 0 and cls._pw is not None:
                pw, cls._pw, cls._cm = cls._pw, None, None
                cls._users = 0
                with contextlib.suppress(Exception):
                    await pw.stop()
                cls._lock = None
