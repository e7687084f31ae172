"""Item-11 stress loop (not collected by pytest): N times, a headless start and close on one profile,
then a VISIBLE start on it, on a private Xvfb; each failed visible start's own Chromium log is kept.

    python -m tests.providers.web.visible_start_loop [N] [OUT_DIR]
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
from pathlib import Path

from playwright.async_api import async_playwright

from mediadesk.providers.web import find_browser
from mediadesk.providers.web.launcher import OwnedBrowser
from tests.providers.web.xserver import xvfb


async def loop(n: int, out: Path) -> int:
    exe = find_browser(probe_version=False).path
    profile = out / "profiles" / "acct"
    profile.parent.mkdir(mode=0o700, parents=True)
    ok = 0
    async with async_playwright() as pw:
        for i in range(n):
            warm = OwnedBrowser(pw, exe, profile, headless=True)
            await warm.start()
            await warm.context.new_page()
            await warm.close(3.0)
            visible = OwnedBrowser(pw, exe, profile, headless=False, start_timeout_s=90)
            t0 = time.monotonic()
            try:
                await visible.start()
                ok += 1
                print(f"{i}: ok in {time.monotonic() - t0:.1f} s", flush=True)
            except Exception as exc:
                shutil.copy(visible.log_path, out / f"failed-start-{i}.log")
                print(f"{i}: FAILED {type(exc).__name__}: {str(exc)[:300]}", flush=True)
            finally:
                await visible.close(3.0)
    print(f"visible starts: {ok}/{n} ok", flush=True)
    return 0 if ok == n else 1


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "visible-start-loop").resolve()
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    with xvfb(out / "xvfb.log") as display:
        os.environ["DISPLAY"] = display
        return asyncio.run(loop(n, out))


if __name__ == "__main__":
    sys.exit(main())
