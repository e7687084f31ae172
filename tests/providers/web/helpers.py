"""Helpers for the web tests: waiting on conditions, serving a test site, and a RunContext that records
its log."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from aiohttp import web
from playwright.async_api import Browser, Page

from mediadesk.core.log_lines import LogText
from mediadesk.sim.web_server import WebSimConfig, WebSimServer, login_context


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

    def log(self, text: LogText) -> None:
        self.lines.append(text.english())


@contextlib.asynccontextmanager
async def sim_site(browser: Browser, **config: Any) -> AsyncIterator[tuple[WebSimServer, Page]]:
    """A chat simulator (12-token answers of ~0.2 s unless ``config`` says otherwise) and a page of a fresh
    context of ``browser`` logged into it as ``acct-a``."""
    settings: dict[str, Any] = {"time_scale": 0.01, "fixed_run_s": 20.0, "answer_tokens": 12, **config}
    async with WebSimServer(WebSimConfig(**settings)) as sim:
        ctx = await browser.new_context()
        try:
            await login_context(ctx, sim.base_url, "acct-a")
            yield sim, await ctx.new_page()
        finally:
            await ctx.close()
