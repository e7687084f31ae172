#!/usr/bin/env python3
"""Render the console with spend and a budget to ``docs/spend.png`` (offscreen; no display needed).

    python packaging/spend_screenshot.py [--out docs/spend.png]

The API simulator runs in-process on 127.0.0.1 (real HTTP; it reports each answer's usage). Two
endpoints with their prices (one a reseller in EUR), a daily cap on the reseller small enough to
stop it mid-batch: the grab shows "spent today" in the status bar, the Profiles tab with the spend
of each endpoint and profile and the one its budget stopped, and the Batches tab's Spent column.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "packaging"))

from PySide6.QtCore import Qt  # noqa: E402
from shots import console, run_offscreen  # noqa: E402

from mediadesk.config.model import parse_config  # noqa: E402
from mediadesk.config.workspace import Workspace  # noqa: E402
from mediadesk.core.batch import BatchRow  # noqa: E402
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer  # noqa: E402
from mediadesk.ui.app.start import install_asyncgen_hooks  # noqa: E402


async def shoot(out: Path) -> None:
    install_asyncgen_hooks(asyncio.get_running_loop())
    sim = ApiSimServer(ApiSimConfig(latency=(0.2, 0.6), seed=7))
    await sim.start()
    tmp = tempfile.TemporaryDirectory(prefix="mediadesk-spend-")
    try:
        config = parse_config({
            "heartbeat": {"interval_s": 2, "stale_after_s": 12},
            "prices": {"gpt-4o-mini": {"input": 150.0, "output": 600.0, "cached": 75.0, "currency": "USD"}},
            "endpoints": [
                {"name": "openai", "base_url": sim.base_url, "concurrency": 3},
                {"name": "reseller", "base_url": sim.base_url + "/", "concurrency": 2,
                 "prices": {"gpt-4o-mini": {"input": 90.0, "output": 400.0, "currency": "EUR"}}},
            ],
            "profiles": [
                {"name": "writer", "kind": "api", "endpoint": "openai", "model": "gpt-4o-mini"},
                {"name": "summaries", "kind": "api", "endpoint": "reseller", "model": "gpt-4o-mini", "max_tokens": 60},
                {"name": "night", "kind": "api", "endpoint": "openai", "model": "gpt-4o-mini",
                 "active_hours": "22:00-07:00" if not 0 <= time.localtime().tm_hour < 7 else "08:00-09:00"},
            ],
            "budgets": [{"endpoint": "reseller", "per": "day", "max_cost": 0.06, "currency": "EUR"}],
        }, "spend-screenshot")
        ws = Workspace.resolve(data_dir=Path(tmp.name) / "data").ensure()
        async with console(config, ws, Path(tmp.name)) as (sched, window):
            rows = [BatchRow(line=i + 1, profile=("writer", "summaries", "night")[i % 3],
                             prompt=f"Summarise chapter {i + 1} of the report in three sentences, plainly.",
                             id=f"spend-{i + 1:02d}", system=None, priority=0, route_key=None) for i in range(30)]
            window.submission.submit_rows(rows, batch="reports.jsonl")
            lane = next(ln for ln in sched.lanes if ln.name == "api:summaries")
            for _ in range(600):
                writer_done = sum(1 for i in range(0, 30, 3)
                                  if window.model.state_of(f"spend-{i + 1:02d}") == "success")
                if lane.budget_stop is not None and lane.running_count == 0 and writer_done == 10:
                    break
                await asyncio.sleep(0.05)
            window.profiles_dock.raise_()
            window.resizeDocks([window.profiles_dock], [330], Qt.Orientation.Vertical)
            window.profiles_editor.tree.expandAll()
            await asyncio.sleep(1.2)  # a stats tick: the Profiles spend and the status bar refresh
            window.profiles_editor._show_spend()  # the freshest figures for the grab
            window.status_line.update_totals()
            window.batches_view.refresh(force=True)
            await asyncio.sleep(0.8)
            out.parent.mkdir(parents=True, exist_ok=True)
            if not window.grab().save(str(out)):
                raise SystemExit(f"could not write {out}")
            print(f"saved {out}: {window.status_line.spend_label.text()!r}")
    finally:
        await sim.stop()
        tmp.cleanup()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="spend_screenshot", description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "spend.png")
    args = p.parse_args(argv)
    return run_offscreen(shoot(args.out))


if __name__ == "__main__":
    raise SystemExit(main())
