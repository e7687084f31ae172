#!/usr/bin/env python3
"""Screenshots of the task table's row menu and of the console at 1024x640, on a real X server.

    Xvfb :98 -screen 0 1440x900x24 &
    DISPLAY=:98 QT_QPA_PLATFORM=xcb python packaging/screenshot_table.py [--out-dir docs]

Writes ``table-context-menu.png`` (a right-click on selected rows mid-batch) and
``small-screen-1024x640.png``. The screen itself is grabbed (a menu is a window of its own, which
``QWidget.grab()`` would leave out). Like ``screenshot.py`` it needs neither a browser nor a
network: the API simulator runs in-process on 127.0.0.1 and the two web accounts are in-process
stand-ins (one run at a time each, 2-7 s).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import qasync  # noqa: E402
from PySide6.QtCore import QItemSelectionModel, QPoint, QRect, QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from mediadesk.config.model import AccountConfig, ProfileConfig, parse_config  # noqa: E402
from mediadesk.config.workspace import Workspace  # noqa: E402
from mediadesk.core.backend import LaneBackend, RunContext, TaskSpec  # noqa: E402
from mediadesk.core.batch import parse_batch_file  # noqa: E402
from mediadesk.scheduler.backends import default_backend  # noqa: E402
from mediadesk.scheduler.scheduler import Scheduler  # noqa: E402
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer, answer_for  # noqa: E402
from mediadesk.ui.app.bridge import SchedulerBridge  # noqa: E402
from mediadesk.ui.app.start import install_asyncgen_hooks  # noqa: E402
from mediadesk.ui.style import apply_style  # noqa: E402
from mediadesk.ui.window.main_window import MainWindow  # noqa: E402


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


async def settle(seconds: float) -> None:
    """Let the loop paint and the window manager (if any) map windows."""
    await asyncio.sleep(seconds)
    QApplication.processEvents()


def grab(window: MainWindow, extra: QRect | None, out: Path) -> None:
    """Grab the screen area of ``window`` (and ``extra``, e.g. a popup menu) into ``out``."""
    screen = window.screen()
    area = window.frameGeometry()
    if extra is not None:
        area = area.united(extra)
    area = area.intersected(screen.geometry())
    pix = screen.grabWindow(0, area.x(), area.y(), area.width(), area.height())
    out.parent.mkdir(parents=True, exist_ok=True)
    if not pix.save(str(out)):
        raise SystemExit(f"could not write {out}")
    print(f"saved {out} ({pix.width()}x{pix.height()})")


async def shoot(out_dir: Path, after_s: float) -> None:
    install_asyncgen_hooks(asyncio.get_running_loop())
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
        window.move(0, 0)
        window.resize(1280, 800)
        window.show()
        await window.start()
        try:
            rows = parse_batch_file(ROOT / "resources" / "demo" / "batch.jsonl",
                                    known_profiles=sched.profile_names()).rows
            window.submission.submit_rows(rows, batch="demo-batch.jsonl")
            await asyncio.sleep(after_s)
            window.model.flush()
            # Three web rows selected; the right-click lands on one run by an account.
            picked = [t for t in ("demo-web-01", "demo-web-02", "demo-web-03") if window.model.row_of(t) is not None]
            sel = window.table.selectionModel()
            sel.clearSelection()
            for t in picked:
                r = window.proxy.mapFromSource(window.model.index(window.model.row_of(t) or 0, 0)).row()
                sel.select(window.proxy.index(r, 0), QItemSelectionModel.SelectionFlag.Select
                           | QItemSelectionModel.SelectionFlag.Rows)
            row = window.proxy.mapFromSource(window.model.index(window.model.row_of(picked[0]) or 0, 0)).row()
            rect = window.table.visualRect(window.proxy.index(row, 3))
            pos = window.table.viewport().mapToGlobal(rect.center() + QPoint(0, 2))
            menu = window.table_menu.row_menu(row)
            menu.popup(pos)
            await settle(0.8)
            grab(window, menu.frameGeometry(), out_dir / "table-context-menu.png")
            menu.close()

            window.resize(1024, 640)
            await settle(1.5)
            grab(window, None, out_dir / "small-screen-1024x640.png")
            rows_visible = window.table.viewport().height() / window.table.verticalHeader().defaultSectionSize()
            print(f"1024x640: {window.width()}x{window.height()}, table shows {rows_visible:.1f} rows, "
                  f"lane panels compact: {window.web_panel.is_compact and window.api_panel.is_compact}")
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
    p = argparse.ArgumentParser(prog="screenshot_table", description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--out-dir", type=Path, default=ROOT / "docs")
    p.add_argument("--after", type=float, default=8.0, help="seconds into the batch (default 8)")
    args = p.parse_args(argv)
    if os.environ.get("QT_QPA_PLATFORM", "xcb") == "offscreen":
        raise SystemExit("needs a real X server: DISPLAY=:98 QT_QPA_PLATFORM=xcb (see the docstring)")
    app = QApplication(["mediadesk-screenshot"])
    app.setQuitOnLastWindowClosed(False)
    apply_style(app)
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        runner.run(shoot(args.out_dir, args.after))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
