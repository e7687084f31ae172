"""Helpers for the web tests: waiting on conditions, serving a test site, and a RunContext that records
its log."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from aiohttp import web


async def until(predicate: Callable[[], bool], timeout_s: float, what: str, *, poll_s: float = 0.02) -> None:
    """Return as soon as ``predicate()`` holds; fail naming ``what`` after ``timeout_s`` (a safety net,
    never a speed assertion)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout_s:g} s waiting for {what}")
        await asyncio.sleep(poll_s)


@contextlib.asynccontextmanager
async def serve(app: web.Application) -> AsyncIterator[str]:
    """``app`` served on 127.0.0.1 (any free port); yields its base URL."""
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    finally:
        await runner.cleanup()


class RecordingCtx:
    """A :class:`~mediadesk.core.backend.RunContext` for calling a backend without a lane."""

    lane = "web:test"

    def __init__(self, evidence_dir: Path) -> None:
        self.evidence_dir = evidence_dir
        self.lines: list[str] = []

    def log(self, message: str) -> None:
        self.lines.append(message)
