"""Waiting on conditions from async tests: the deadline is a safety net, never a speed assertion."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def until(predicate: Callable[[], bool], timeout_s: float, what: str, *, poll_s: float = 0.02) -> None:
    """Return as soon as ``predicate()`` holds; fail naming ``what`` after ``timeout_s``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout_s:g} s waiting for {what}")
        await asyncio.sleep(poll_s)
