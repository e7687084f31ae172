"""Where a warm web task's overhead goes, step by step, on the chat simulator (its own process).

One real Chromium, one logged-in page reused as the lane reuses it, ``PageDriver.prepare`` + ``run`` per
task. Every page round trip the driver makes is timed from Python (``time.perf_counter`` around
``_eval`` and the trusted press), bench-only: a subclass of the driver wraps them, the product code is
not touched. Beside them, in the same run, the floor: one empty ``evaluate`` and one raw trusted press.

    python -m bench websteps [--tasks 12] [--paths checked,playwright,own-cdp]

The browser is started as the lane starts it (``OwnedBrowser``), so ``own-cdp`` (the driver's own CDP
connection, today's default on browsers MediaDesk started) runs beside ``playwright`` (the same steps
through Playwright, the path for pages of a browser whose debug port MediaDesk does not know) and
``checked`` (an adapter's ``send_click = "checked"``). Only product paths: older orders of the steps are
compared through the figures of the commits that had them (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import statistics
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from playwright.async_api import Page

from bench.common import lane_started_page, sim_process, table
from mediadesk.providers.web import page_scripts
from mediadesk.providers.web.adapter import load_adapter, with_url
from mediadesk.providers.web.driver import PageDriver

ROOT = Path(__file__).resolve().parent.parent
SIMCHAT = ROOT / "resources" / "sites" / "simchat.toml"
SETTLE_MS = 100
_CLOCK_JS = "() => [performance.now(), window.__mediadeskWatch.sentAt]"

#: Script constants of page_scripts -> a step name.
_NAMES = {getattr(page_scripts, k): k.strip("_").removesuffix("_JS").lower()
          for k in dir(page_scripts) if k.endswith("_JS") and isinstance(getattr(page_scripts, k), str)}


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} / {five:.1f} (1 / 5 min) on {os.cpu_count()} cores, shared with other jobs"


class StepDriver(PageDriver):
    """The product driver, with every page round trip timed (bench only)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.steps: list[tuple[str, float]] = []
        evaluate, press = self.session.evaluate, self.session.press

        async def timed_evaluate(page: Page, script: str, arg: Any = None) -> Any:
            return await self._timed("eval " + _NAMES.get(script, "other"), evaluate(page, script, arg))

        async def timed_press(page: Page, x: float, y: float) -> None:
            await self._timed("trusted press", press(page, x, y))

        self.session.evaluate = timed_evaluate  # type: ignore[method-assign]
        self.session.press = timed_press  # type: ignore[method-assign]

    async def _timed(self, name: str, aw: Awaitable[Any]) -> Any:
        t0 = time.perf_counter()
        try:
            return await aw
        finally:
            self.steps.append((name, (time.perf_counter() - t0) * 1e3))


async def floor(page: Page, driver: PageDriver) -> dict[str, float]:
    """One empty evaluate and one trusted press on an empty spot (nothing reacts), timed."""
    t0 = time.perf_counter()
    await page.evaluate("() => 0")
    t1 = time.perf_counter()
    await driver.session.press(page, 2, 2)
    t2 = time.perf_counter()
    return {"floor: one evaluate": (t1 - t0) * 1e3, "floor: one trusted press": (t2 - t1) * 1e3}


async def one_task(driver: StepDriver, page: Page, prompt: str) -> dict[str, float]:
    driver.steps.clear()
    t0 = time.perf_counter()
    await driver.prepare(page, prompt)  # as the lane calls it: the text goes with the readiness wait
    t1 = time.perf_counter()
    result = await driver.run(page, prompt)
    t2 = time.perf_counter()
    now, sent_at = await page.evaluate(_CLOCK_JS)  # the page's clock right after run() returned
    t = result.timings
    assert t.last_change_ms is not None and t.done_ms is not None
    row: dict[str, float] = defaultdict(float)
    for name, ms in driver.steps:
        row[name] += ms
    row["prepare (all)"] = (t1 - t0) * 1e3
    row["run: start -> typed"] = t.typed_ms
    row["run: typed -> sent (confirmed)"] = t.sent_ms - t.typed_ms
    # The page's own clock from the send: generation ends at last_change; the rule then waits.
    row["rule wait (page clock)"] = t.done_ms - t.last_change_ms
    row["done -> returned (page clock, + one one-way trip)"] = now - (sent_at + t.done_ms)
    row["task overhead ex rule"] = (t2 - t0) * 1e3 - t.last_change_ms - (t.done_ms - t.last_change_ms)
    row["task overhead ex settle_ms"] = (t2 - t0) * 1e3 - t.last_change_ms - SETTLE_MS
    return row


async def measure(page: Page, driver: StepDriver, tasks: int, label: str) -> list[dict[str, float]]:
    await driver.prepare(page)
    await driver.run(page, "warm up")
    rows = []
    for i in range(tasks):
        row = await one_task(driver, page, f"{label} task {i}")
        row.update(await floor(page, driver))
        rows.append(row)
    return rows


def summary(rows: list[dict[str, float]]) -> dict[str, float]:
    keys = sorted({k for r in rows for k in r})
    return {k: statistics.median(r.get(k, 0.0) for r in rows) for k in keys}


async def main_async(args: argparse.Namespace, paths: dict[str, tuple[Callable[[Any], StepDriver], bool]]) -> None:
    results: dict[str, dict[str, float]] = {}
    with sim_process("web", "--time-scale", "0.01", "--fixed-run-s", "30", "--answer-tokens", "20") as chat_url:
        base = chat_url.rsplit("/", 1)[0]
        adapter = dataclasses.replace(with_url(load_adapter(SIMCHAT), chat_url), settle_ms=SETTLE_MS)
        async with lane_started_page(base, "bench") as (browser, page):
            for name in args.paths.split(","):
                make, own_cdp = paths[name]
                driver = make(adapter)
                if own_cdp:  # as the lane sets it for its own browsers
                    driver.session.cdp_port = lambda _page: browser.port
                results[name] = summary(await measure(page, driver, args.tasks, name))
    names = list(results)
    keys = sorted({k for s in results.values() for k in s})
    print(f"\nWarm web task, step by step (median of {args.tasks} tasks, ms); {load()}")
    print(table([("step", *names), *[(k, *(f"{results[n].get(k, 0.0):.1f}" for n in names)) for k in keys]]))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="bench websteps")
    p.add_argument("--tasks", type=int, default=12)
    p.add_argument("--paths", default="checked,playwright,own-cdp")
    paths: dict[str, tuple[Callable[[Any], StepDriver], bool]] = {
        "checked": (lambda a: StepDriver(a, send_click="checked"), True),
        "playwright": (lambda a: StepDriver(a, send_click="direct"), False),
        "own-cdp": (lambda a: StepDriver(a, send_click="direct"), True),
    }
    asyncio.run(main_async(p.parse_args(argv), paths))


if __name__ == "__main__":
    main()
