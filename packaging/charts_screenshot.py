#!/usr/bin/env python3
"""Screenshots of the Charts and Batches tabs for docs/, taken from a real X server.

    Xvfb :99 -screen 0 1440x900x24 &
    DISPLAY=:99 QT_QPA_PLATFORM=xcb python packaging/charts_screenshot.py [--out-dir docs] [--after 25]

The workspace gets a day of history first (finished tasks written into the task table, as a
console left open all day would have: four lanes, API runs 8-20 s, web runs 31-370 s, four
finished batches), then the real scheduler runs a live batch: the API simulator in-process on
127.0.0.1 (0.8-2.5 s per answer) and two in-process stand-in web accounts (2-7 s, one run at a
time), while a low-priority batch waits behind it. After ``--after`` seconds the window is
grabbed from the screen: the Charts dock floated to its own 1440x660 window (1 h and 24 h), then
the main window with the Batches tab in front (the Exceptions dock closed first: its minimum
height does not fit a 900 px screen).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import qasync  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication  # noqa: E402
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402

from mediadesk.config.model import AccountConfig, ProfileConfig, parse_config  # noqa: E402
from mediadesk.config.workspace import Workspace  # noqa: E402
from mediadesk.core.backend import LaneBackend, RunContext, TaskSpec  # noqa: E402
from mediadesk.core.batch import BatchRow  # noqa: E402
from mediadesk.scheduler.backends import default_backend  # noqa: E402
from mediadesk.scheduler.scheduler import Scheduler  # noqa: E402
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer, answer_for  # noqa: E402
from mediadesk.store.taskstore import NewTask, TaskStore  # noqa: E402
from mediadesk.ui.app.bridge import SchedulerBridge  # noqa: E402
from mediadesk.ui.app.start import install_asyncgen_hooks  # noqa: E402
from mediadesk.ui.style import apply_style  # noqa: E402
from mediadesk.ui.window.main_window import MainWindow  # noqa: E402

#: (batch, lane -> tasks, finished between hours-ago a and b)
HISTORY = [
    ("essays-2026-11-30.jsonl", {"api:writer": 900, "web:demo-a": 60, "web:demo-b": 60}, (23.0, 17.0)),
    ("translations.csv", {"api:writer": 500, "api:reasoner": 400}, (14.0, 9.0)),
    ("morning-review.jsonl", {"api:reasoner": 300, "web:demo-a": 45, "web:demo-b": 40}, (6.0, 2.5)),
    ("follow-ups.jsonl", {"api:writer": 420, "api:reasoner": 120, "web:demo-a": 18, "web:demo-b": 20}, (1.0, 0.15)),
]


class StandInWebAccount:
    """One chat account without a browser: one run at a time, 2-7 s."""

    def __init__(self, name: str, seed: int) -> None:
        self.capacity = 1
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
        ctx.log(f"prompt sent ({len(task.prompt)} chars)")
        await asyncio.sleep(self._rng.uniform(2.0, 7.0))
        return answer_for(task.prompt)


def seed_history(db: Path, now: float) -> None:
    rng = random.Random(11)
    store = TaskStore(db)
    updates = []
    n = 0
    for batch, lanes, (a, b) in HISTORY:
        tasks = []
        for lane, count in lanes.items():
            kind, name = lane.split(":")
            profile = name if kind == "api" else "chat"
            for _ in range(count):
                tid = f"hist-{n:06d}"
                n += 1
                tasks.append(NewTask(tid, profile, "api" if profile != "chat" else "web", f"history prompt {n}",
                                     batch=batch))
                run_s = (rng.lognormvariate(2.4, 0.25) if lane.startswith("api")
                         else min(370.0, max(31.0, rng.lognormvariate(4.4, 0.6))))
                fin = now - rng.uniform(b, a) * 3600
                ok = rng.random() > 0.03
                updates.append(("success" if ok else "failed", fin - run_s, fin, lane, tid))
        store.add_tasks(tasks, now=now - HISTORY[0][2][0] * 3600 if batch == HISTORY[0][0] else now - a * 3600)
    store.close()
    con = sqlite3.connect(db)
    con.executemany("UPDATE task SET state=?, attempt=1, started_at=?, finished_at=?, lane=?, result='(answer)'"
                    " WHERE task_id=?", updates)
    con.commit()
    con.close()


async def grab(window: QWidget, path: Path) -> None:
    await asyncio.sleep(0.6)
    screen = window.screen() or QGuiApplication.primaryScreen()
    pix = screen.grabWindow(window.winId())
    if pix.isNull() or not pix.save(str(path)):
        raise SystemExit(f"could not grab/save {path}")
    print(f"saved {path} ({pix.width()}x{pix.height()})")


async def shoot(out_dir: Path, after_s: float) -> None:
    install_asyncgen_hooks(asyncio.get_running_loop())
    sim = ApiSimServer(ApiSimConfig(latency=(0.8, 2.5), seed=7))
    await sim.start()
    tmp = tempfile.TemporaryDirectory(prefix="mediadesk-charts-shot-")
    try:
        config = parse_config({
            "heartbeat": {"interval_s": 2, "stale_after_s": 12},
            "profiles": [
                {"name": "writer", "kind": "api", "base_url": sim.base_url, "model": "sim-writer", "concurrency": 3},
                {"name": "reasoner", "kind": "api", "base_url": sim.base_url, "model": "sim-reasoner",
                 "concurrency": 2},
                {"name": "chat", "kind": "web", "site": "simchat"},
            ],
            "accounts": [{"name": "demo-a", "profile": "chat"}, {"name": "demo-b", "profile": "chat"}],
        }, "charts-screenshot")
        ws = Workspace.resolve(data_dir=Path(tmp.name) / "data").ensure()
        seed_history(ws.db_path, time.time())

        def backends(profile: ProfileConfig, account: AccountConfig | None) -> LaneBackend:
            if profile.kind == "api":
                return default_backend(config, ws, profile, account)
            assert account is not None
            return StandInWebAccount(account.name, seed=len(account.name) + ord(account.name[-1]))

        sched = Scheduler(config, ws, backend_factory=backends)
        await sched.start()
        bridge = SchedulerBridge(sched.bus)
        window = MainWindow(sched, bridge, settings=QSettings(str(Path(tmp.name) / "s.ini"),
                                                              QSettings.Format.IniFormat))
        window.resize(1440, 900)
        window.show()
        await window.start()
        try:
            def rows(profile: str, n: int, prefix: str, priority: int = 0) -> list[BatchRow]:
                return [BatchRow(line=i + 1, profile=profile, prompt=f"{prefix} {i}", id=f"{prefix}-{i}", system=None,
                                 priority=priority, route_key=None) for i in range(n)]

            window.submission.submit_rows(rows("writer", 60, "live-w") + rows("reasoner", 30, "live-r")
                                          + rows("chat", 16, "live-c"), batch="live-demo.jsonl")
            window.submission.submit_rows(rows("writer", 40, "eve-w", -1) + rows("chat", 6, "eve-c", -1),
                                          batch="evening.jsonl")
            # The Exceptions dock asks for 422 px of height, which pushes the window past a 900 px
            # screen; the operator closes it here (its own close button) so the window fits.
            window.exceptions_dock.close()
            window.resize(1440, 900)
            await asyncio.sleep(after_s)
            # The charts in their own window (the dock floated, as on a second screen): the main
            # window's central area needs ~510 px, too much to leave the charts room on 900 px.
            window.charts_dock.setFloating(True)
            window.charts_dock.setGeometry(0, 0, 1440, 660)
            window.charts_dock.show()
            view = window.charts_view
            for key, name in (("1h", "charts-1h.png"), ("24h", "charts-24h.png")):
                view.set_range(key)
                for _ in range(100):
                    await asyncio.sleep(0.1)
                    if view.data is not None and view.data.range.key == key and not view.busy:
                        break
                await grab(window.charts_dock, out_dir / name)
            window.charts_dock.setFloating(False)
            window.tabifyDockWidget(window.batches_dock, window.charts_dock)  # back among the tabs
            window.resize(1440, 900)
            window.batches_dock.raise_()
            window.resizeDocks([window.batches_dock], [300], Qt.Orientation.Vertical)
            for _ in range(50):
                await asyncio.sleep(0.1)
                if window.batches_view.rows and not window.batches_view.busy:
                    break
            window.batches_view.refresh(force=True)
            await asyncio.sleep(1.0)
            await grab(window, out_dir / "batches.png")
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
    p = argparse.ArgumentParser(prog="charts_screenshot")
    p.add_argument("--out-dir", type=Path, default=ROOT / "docs")
    p.add_argument("--after", type=float, default=25.0, help="seconds into the live batch (default 25)")
    args = p.parse_args(argv)
    app = QApplication(["mediadesk-charts-screenshot"])
    app.setQuitOnLastWindowClosed(False)
    apply_style(app)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        runner.run(shoot(args.out_dir, args.after))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
