"""Time from the site's last token to "done": the DOM rule (busy gone + answer still for settle_ms)
vs the stream rule (the site's answer stream ended + 50 ms still), side by side, per transport.

The simulator runs in its own process; one real Chromium drives it through PageDriver. For each run,
"last token" is the moment the page's watcher saw the answer's last change (a MutationObserver on the
token append, page clock) and "done" the moment ``PageDriver.run`` returned, read on the same page
clock right after (one evaluate's one-way trip, ~1 ms, is included: it makes the number a bound).

    python -m bench webdone [--tasks 12] [--settle-ms 300] [--transports ndjson,sse,websocket]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
from pathlib import Path
from typing import Any

from playwright.async_api import Page, async_playwright

from bench.common import sim_process, table
from mediadesk.providers.web.adapter import load_adapter, with_url
from mediadesk.providers.web.driver import PageDriver
from mediadesk.providers.web.finder import chromium_flags, find_browser
from mediadesk.sim.web_server import TRANSPORTS, login_context

ROOT = Path(__file__).resolve().parent.parent
SIMCHAT = ROOT / "resources" / "sites" / "simchat.toml"
_CLOCK_JS = "() => [performance.now(), window.__mediadeskWatch.sentAt]"


async def one(driver: PageDriver, page: Page, prompt: str) -> dict[str, Any]:
    await driver.prepare(page)
    result = await driver.run(page, prompt)
    now, sent_at = await page.evaluate(_CLOCK_JS)
    t = result.timings
    assert t.last_change_ms is not None and t.done_ms is not None
    last_token = sent_at + t.last_change_ms
    return {"returned_ms": now - last_token, "rule_ms": t.done_ms - t.last_change_ms, "rule": t.done_rule}


async def transport_rows(exe: Path, transport: str, tasks: int, settle_ms: int) -> list[tuple[str, ...]]:
    rows = []
    with sim_process("web", "--time-scale", "0.01", "--fixed-run-s", "30", "--answer-tokens", "20",
                     "--transport", transport) as chat_url:  # fmt: skip
        base = chat_url.rsplit("/", 1)[0]
        adapter = dataclasses.replace(with_url(load_adapter(SIMCHAT), chat_url), settle_ms=settle_ms)
        pw = await async_playwright().start()
        browser = await pw.chromium.launch(executable_path=str(exe), args=chromium_flags(headless=False))
        try:
            ctx = await browser.new_context()
            await login_context(ctx, base, "bench")
            page = await ctx.new_page()
            for name, driver in (("today: DOM rule", PageDriver(adapter, watch_streams=False)),
                                 ("stream rule", PageDriver(adapter))):  # fmt: skip
                await driver.prepare(page)  # warm
                await driver.run(page, "warm up")
                out = [await one(driver, page, f"{transport} task {i}") for i in range(tasks)]
                ret = sorted(r["returned_ms"] for r in out)
                rules = {r["rule"] for r in out}
                rows.append((transport, name, "/".join(sorted(rules)), str(len(out)),
                             f"{statistics.median(ret):.0f}", f"{ret[int(0.9 * (len(ret) - 1))]:.0f}",
                             f"{min(ret):.0f}", f"{statistics.median(r['rule_ms'] for r in out):.0f}"))  # fmt: skip
            await ctx.close()
        finally:
            await browser.close()
            await pw.stop()
    return rows


async def main_async(args: argparse.Namespace) -> None:
    exe = find_browser(None, probe_version=False).path
    rows: list[tuple[str, ...]] = []
    for transport in args.transports.split(","):
        if transport not in TRANSPORTS:
            raise SystemExit(f"unknown transport {transport!r}; choose from {', '.join(TRANSPORTS)}")
        rows += await transport_rows(exe, transport, args.tasks, args.settle_ms)
    print(f"\nSite's last token -> done (PageDriver.run returned), settle_ms = {args.settle_ms}")
    print(table([("transport", "rule", "decided by", "n", "median ms", "p90 ms", "min ms", "page rule ms"),
                 *rows]))  # fmt: skip
    print("goal: stream rule median <= 100 ms")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="bench webdone")
    p.add_argument("--tasks", type=int, default=12)
    p.add_argument("--settle-ms", type=int, default=300, help="the adapter's settle_ms (the DOM rule's window)")
    p.add_argument("--transports", default=",".join(TRANSPORTS))
    asyncio.run(main_async(p.parse_args(argv)))


if __name__ == "__main__":
    main()
