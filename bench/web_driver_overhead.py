"""Overhead of one web run through PageDriver: "reuse page + new_chat" vs "new page per task".

Overhead = wall time of a task minus the site's own generation time (measured by the page
itself, from its send handler to its last token), reported with and without the adapter's
``settle_ms`` (the completion rule must wait it out after the last change whatever we do).
The chat page is a small deterministic one served from this script on 127.0.0.1.

    .venv/bin/python bench/web_driver_overhead.py [--tasks 12] [--rounds 3] [--settle-ms 100]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from aiohttp import web
from playwright.async_api import Browser, Page, async_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mediadesk.providers.web.adapter import SiteAdapter
from mediadesk.providers.web.driver import PageDriver
from mediadesk.providers.web.finder import chromium_flags, find_browser

PAGE = """<!doctype html><html><head><meta charset="utf-8"><style>.hidden{display:none}</style></head>
<body><header><span class="avatar">me</span><button id="new">New chat</button></header>
<div id="thread"></div><textarea id="box"></textarea><button class="send">Send</button>
<button class="stop hidden">Stop</button>
<script>
const TOKENS = %(tokens)d, TOKEN_MS = %(token_ms)d, FIRST_MS = %(first_ms)d;
window.genLog = [];
const thread = document.getElementById('thread'), box = document.getElementById('box');
const stop = document.querySelector('.stop');
document.getElementById('new').onclick = () => { thread.innerHTML = ''; };
document.querySelector('.send').onclick = () => {
  const text = box.value; if (!text.trim()) return; box.value = '';
  const log = {start: performance.now(), end: null}; window.genLog.push(log);
  const u = document.createElement('div'); u.className = 'user'; u.textContent = text; thread.append(u);
  stop.classList.remove('hidden');
  setTimeout(() => {
    const a = document.createElement('div'); a.className = 'assistant'; thread.append(a);
    let i = 0;
    const next = () => {
      a.textContent += 'tok' + i + ' ';
      if (++i < TOKENS) setTimeout(next, TOKEN_MS);
      else { stop.classList.add('hidden'); log.end = performance.now(); }
    };
    next();
  }, FIRST_MS);
};
</script></body></html>"""


async def serve(html: str) -> tuple[web.AppRunner, str]:
    async def chat(_: web.Request) -> web.Response:
        return web.Response(text=html, content_type="text/html")

    app = web.Application()
    app.router.add_get("/chat", chat)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    return runner, f"http://127.0.0.1:{runner.addresses[0][1]}/chat"


async def one_task(driver: PageDriver, page: Page, i: int, progress: bool = True) -> dict[str, float]:
    t0 = time.perf_counter()
    await driver.prepare(page)
    t1 = time.perf_counter()
    beats = 0

    def beat() -> None:
        nonlocal beats
        beats += 1

    result = await driver.run(page, f"task {i}: say something", on_progress=beat if progress else None)
    t2 = time.perf_counter()
    log = await page.evaluate("window.genLog[window.genLog.length - 1]")
    gen_ms = log["end"] - log["start"]
    settle = driver.adapter.settle_ms
    return {
        "prepare_ms": (t1 - t0) * 1000,
        "run_ms": (t2 - t1) * 1000,
        "gen_ms": gen_ms,
        "task_overhead_ms": (t2 - t0) * 1000 - gen_ms,
        "task_overhead_ex_settle_ms": (t2 - t0) * 1000 - gen_ms - settle,
        "run_overhead_ex_settle_ms": (t2 - t1) * 1000 - gen_ms - settle,
        "typed_ms": result.timings.typed_ms,
        "sent_ms": result.timings.sent_ms,
        "send_ms": result.timings.sent_ms - result.timings.typed_ms,
        "progress_events": float(beats),
    }


async def mode_reuse(browser: Browser, driver: PageDriver, tasks: int) -> list[dict[str, float]]:
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await driver.prepare(page)  # warm: first navigation not counted
    out = [await one_task(driver, page, i) for i in range(tasks)]
    await ctx.close()
    return out


async def mode_reuse_no_progress(browser: Browser, driver: PageDriver, tasks: int) -> list[dict[str, float]]:
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await driver.prepare(page)
    out = [await one_task(driver, page, i, progress=False) for i in range(tasks)]
    await ctx.close()
    return out


async def mode_new_page(browser: Browser, driver: PageDriver, tasks: int) -> list[dict[str, float]]:
    ctx = await browser.new_context()
    warm = await ctx.new_page()
    await driver.prepare(warm)  # warm the context and the HTTP cache
    out = []
    for i in range(tasks):
        t0 = time.perf_counter()
        page = await ctx.new_page()
        new_page_ms = (time.perf_counter() - t0) * 1000
        row = await one_task(driver, page, i)
        row["prepare_ms"] += new_page_ms
        row["task_overhead_ms"] += new_page_ms
        row["task_overhead_ex_settle_ms"] += new_page_ms
        await page.close()
        out.append(row)
    await ctx.close()
    return out


async def mode_reuse_checked(browser: Browser, driver: PageDriver, tasks: int) -> list[dict[str, float]]:
    """The old send rule: Playwright's actionability-checked click."""
    return await mode_reuse(browser, PageDriver(driver.adapter, send_click="checked"), tasks)


MODES = (
    ("reuse_checked_click", mode_reuse_checked),
    ("reuse_page_new_chat", mode_reuse),
    ("reuse_no_on_progress", mode_reuse_no_progress),
    ("new_page_per_task", mode_new_page),
)


def summarize(rounds: list[list[dict[str, float]]]) -> dict[str, float]:
    """Median over tasks per round, then the median of the rounds."""
    keys = rounds[0][0].keys()
    return {k: statistics.median(statistics.median(r[k] for r in rows) for rows in rounds) for k in keys}


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--settle-ms", type=int, default=100)
    ap.add_argument("--tokens", type=int, default=20)
    ap.add_argument("--token-ms", type=int, default=10)
    ap.add_argument("--first-ms", type=int, default=50)
    ap.add_argument("--chromium", default=None, help="browser to use (default: found as the web lane finds it)")
    ap.add_argument("--json", type=Path, default=None, help="also write the summary here")
    args = ap.parse_args()

    html = PAGE % {"tokens": args.tokens, "token_ms": args.token_ms, "first_ms": args.first_ms}
    runner, url = await serve(html)
    adapter = SiteAdapter(
        url=url,
        logged_in=".avatar",
        prompt="#box",
        send="button.send",
        answer=".assistant",
        busy=".stop",
        new_chat="#new",
        settle_ms=args.settle_ms,
        max_run_s=30,
        start_timeout_s=5,
        name="bench",
    )
    driver = PageDriver(adapter)
    pw = await async_playwright().start()
    exe = find_browser(args.chromium, probe_version=False).path
    # the lane's own flags; Playwright adds its headless flag
    browser = await pw.chromium.launch(executable_path=str(exe), args=chromium_flags(headless=False))
    summary: dict[str, Any] = {"settle_ms": args.settle_ms, "tasks": args.tasks, "rounds": args.rounds}
    try:
        for name, mode in MODES:
            rounds = [await mode(browser, driver, args.tasks) for _ in range(args.rounds)]
            summary[name] = summarize(rounds)
    finally:
        await browser.close()
        await pw.stop()
        await runner.cleanup()
    for name, _ in MODES:
        s = summary[name]
        print(
            f"{name:22s} task overhead {s['task_overhead_ms']:6.1f} ms "
            f"(ex settle {s['task_overhead_ex_settle_ms']:6.1f})  "
            f"prepare {s['prepare_ms']:6.1f}  run overhead ex settle {s['run_overhead_ex_settle_ms']:6.1f}  "
            f"typed {s['typed_ms']:5.1f}  send {s['send_ms']:5.1f}  gen {s['gen_ms']:6.1f}  "
            f"progress {s['progress_events']:.0f}"
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(summary, indent=2), encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())
