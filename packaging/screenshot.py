#!/usr/bin/env python3
"""Render the console mid-batch to ``docs/screenshot.png`` (offscreen; no display needed).

    python packaging/screenshot.py [--out docs/screenshot.png] [--after 7] [--lang zh_CN] [--size 1600x1000]

A demo-like setup that needs neither a browser nor a network: the API simulator runs in-process
on 127.0.0.1 (real HTTP, 0.8-2.5 s per answer), the two web accounts are in-process stand-ins
(one run at a time each, 2-7 s), and the bundled demo batch plus one failing task is submitted
through the window's own submit path. After ``--after`` seconds a finished task is selected (so
the detail pane shows a result and its log) and the window is grabbed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import qasync  # noqa: E402
from PySide6.QtCore import QLocale, QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from mediadesk.config.model import AccountConfig, ProfileConfig, parse_config  # noqa: E402
from mediadesk.config.workspace import Workspace  # noqa: E402
from mediadesk.core.backend import LaneBackend, RunContext, TaskSpec  # noqa: E402
from mediadesk.core.batch import BatchRow, parse_batch_file  # noqa: E402
from mediadesk.core.log_lines import LOG  # noqa: E402
from mediadesk.scheduler.backends import default_backend  # noqa: E402
from mediadesk.scheduler.scheduler import Scheduler  # noqa: E402
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer, answer_for  # noqa: E402
from mediadesk.ui.app.bridge import SchedulerBridge  # noqa: E402
from mediadesk.ui.app.start import install_asyncgen_hooks  # noqa: E402
from mediadesk.ui.style import apply_style, install_translator  # noqa: E402
from mediadesk.ui.window.main_window import MainWindow  # noqa: E402


class StandInWebAccount:
    """One chat account without a browser: one run at a time, 2-7 s, a few log lines."""

    attempt_deadline_s = None  # the optional abilities of a LaneBackend: none here
    max_run_s = None
    domain = None
    probe = None
    login = None
    unavailable_reason = None
    check = None
    check_adapter = None
    resolve_challenge = None
    challenge_screenshot = None

    def __init__(self, name: str, seed: int) -> None:
        self.capacity = 1  # a chat account allows one generation at a time
        self.name = name
        self._rng = random.Random(seed)

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        pass

    def available(self) -> bool:
        return True

    def health(self) -> tuple[str, str | None]:
        return "ready", None

    async def run(self, task: TaskSpec, ctx: RunContext) -> str:
        ctx.log(LOG.logged_in_ready())
        ctx.log(LOG.as_is(text=f"prompt sent ({len(task.prompt)} chars)"))
        await asyncio.sleep(self._rng.uniform(2.0, 7.0))
        ctx.log(LOG.as_is(text="answer complete"))
        return answer_for(task.prompt)


async def shoot(app: QApplication, out: Path, after_s: float, size: tuple[int, int] = (1600, 1000)) -> None:
    install_asyncgen_hooks(asyncio.get_running_loop())  # qasync does not (see mediadesk.ui.app.start)
    sim = ApiSimServer(ApiSimConfig(latency=(0.8, 2.5), seed=7))
    await sim.start()
    tmp = tempfile.TemporaryDirectory(prefix="mediadesk-shot-")
    try:
        config = parse_config({
            "heartbeat": {"interval_s": 2, "stale_after_s": 12},
            "profiles": [
                {"name": "writer", "kind": "api", "base_url": sim.base_url, "model": "sim-writer", "concurrency": 3},
                {"name": "reasoner", "kind": "api", "base_url": sim.base_url, "model": "sim-reasoner",
                 "concurrency": 2, "need_empty_prompt": True},
                {"name": "chat", "kind": "web", "site": "simchat"},
            ],
            "accounts": [{"name": "demo-a", "profile": "chat"}, {"name": "demo-b", "profile": "chat"}],
        }, "screenshot")
        ws = Workspace.resolve(data_dir=Path(tmp.name) / "data").ensure()

        def backends(profile: ProfileConfig, account: AccountConfig | None) -> LaneBackend:
            if profile.kind == "api":
                return default_backend(config, ws, profile, account)
            assert account is not None
            return StandInWebAccount(account.name, seed=len(account.name) + ord(account.name[-1]))

        sched = Scheduler(config, ws, backend_factory=backends)
        await sched.start()
        bridge = SchedulerBridge(sched.bus)
        settings = QSettings(str(Path(tmp.name) / "shot.ini"), QSettings.Format.IniFormat)
        window = MainWindow(sched, bridge, settings=settings)
        window.resize(*size)
        window.show()
        await window.start()
        try:
            rows = parse_batch_file(ROOT / "resources" / "demo" / "batch.jsonl",
                                    known_profiles=sched.profile_names()).rows
            rows.append(BatchRow(line=len(rows) + 1, profile="writer", prompt="[[sim:400]] a request the API refuses",
                                 id="demo-api-bad", system=None, priority=0, route_key=None))
            window.submission.submit_rows(rows, batch="demo-batch.jsonl")
            await asyncio.sleep(after_s)
            done = [t for t in ("demo-api-01", "demo-api-02", "demo-api-03") if window.model.state_of(t) == "success"]
            if done:
                row = window.model.row_of(done[0])
                if row is not None:
                    window.table.selectRow(window.proxy.mapFromSource(window.model.index(row, 0)).row())
                    for _ in range(40):
                        if window.detail.record is not None:
                            break
                        await asyncio.sleep(0.05)
            for lane in sched.lanes:  # the freshest lane stats, not the last 0.25 s tick's
                window.web_panel.on_lane_stats(lane.stats())
                window.api_panel.on_lane_stats(lane.stats())
            window.web_panel.refresh()
            window.api_panel.refresh()
            await asyncio.sleep(0.3)
            out.parent.mkdir(parents=True, exist_ok=True)
            if not window.grab().save(str(out)):
                raise SystemExit(f"could not write {out}")
            print(f"saved {out} ({window.width()}x{window.height()})")
        finally:
            await window.aclose()
            bridge.detach()
            window.close()
            window.deleteLater()
            await sched.stop()
    finally:
        await sim.stop()
        tmp.cleanup()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="screenshot", description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshot.png")
    p.add_argument("--after", type=float, default=7.0, help="seconds into the batch (default 7)")
    p.add_argument("--lang", default=None, help="UI language, e.g. zh_CN (default: system)")
    p.add_argument("--size", default="1600x1000", help="window size WxH (default 1600x1000)")
    args = p.parse_args(argv)
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(["mediadesk-screenshot"])
    app.setQuitOnLastWindowClosed(False)
    apply_style(app)
    translators = install_translator(app, QLocale(args.lang) if args.lang else None)
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        w, h = (int(v) for v in args.size.lower().split("x"))
        runner.run(shoot(app, args.out, args.after, (w, h)))
    del translators
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
