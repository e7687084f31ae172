"""Shared bench helpers: a simulator in its own process (so it does not share our CPU core)."""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def sim_process(kind: str, *args: str) -> Iterator[str]:
    """Start ``mediadesk sim KIND --port 0 ARGS`` and yield its URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "mediadesk", "sim", kind, "--port", "0", *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        url = None
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            m = re.search(r"(http://127\.0\.0\.1:\d+\S*)", line)
            if m:
                url = m.group(1)
                break
        if url is None:
            raise RuntimeError(f"simulator did not start (exit {proc.poll()})")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows)


@asynccontextmanager
async def lane_started_page(base: str, account: str) -> AsyncIterator[tuple[Any, Any]]:
    """A logged-in page of the chat simulator at ``base`` in a browser started as the lane starts it
    (``OwnedBrowser``: its debug port known, so the driver's own CDP connection can serve); yields
    ``(browser, page)``."""
    from playwright.async_api import async_playwright

    from mediadesk.providers.web.finder import find_browser
    from mediadesk.providers.web.launcher import OwnedBrowser
    from mediadesk.sim.web_server import login_context

    exe = find_browser(None, probe_version=False).path
    pw = await async_playwright().start()
    with tempfile.TemporaryDirectory() as tmp:
        browser = OwnedBrowser(pw, exe, Path(tmp) / account, keep_session_cookies=False)
        await browser.start()
        try:
            await login_context(browser.context, base, account)
            yield browser, await browser.context.new_page()
        finally:
            await browser.close()
            await pw.stop()
