#!/usr/bin/env python3
"""Screenshots of the welcome panel and the close question for docs/, from a real X server.

    Xvfb :97 -screen 0 1440x900x24 &
    DISPLAY=:97 QT_QPA_PLATFORM=xcb python packaging/first_run_screenshot.py [--out-dir docs]

1. ``welcome.png``: the first run (no config in a fresh data dir).
2. ``welcome-config-error.png``: a config with a typo (the loader's own message, key named).
3. ``close-question.png``: the console mid-batch (the API simulator in-process on 127.0.0.1, slow
   answers so tasks are running) and the question asked when its window is closed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import qasync  # noqa: E402
from PySide6.QtCore import QSettings, QTimer  # noqa: E402
from PySide6.QtGui import QGuiApplication  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget  # noqa: E402

from mediadesk.config.model import ConfigError, load_config  # noqa: E402
from mediadesk.config.workspace import Workspace  # noqa: E402
from mediadesk.scheduler.scheduler import Scheduler  # noqa: E402
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer  # noqa: E402
from mediadesk.ui.app.bridge import SchedulerBridge  # noqa: E402
from mediadesk.ui.app.start import install_asyncgen_hooks  # noqa: E402
from mediadesk.ui.dialogs.close_question import work_in_progress  # noqa: E402
from mediadesk.ui.dialogs.welcome import WelcomePanel  # noqa: E402
from mediadesk.ui.style import apply_style  # noqa: E402
from mediadesk.ui.window.main_window import MainWindow  # noqa: E402
from mediadesk.ui.window.tray import TrayController  # noqa: E402


async def settle(ms: int = 400) -> None:
    await asyncio.sleep(ms / 1000)  # the Qt events run meanwhile (never processEvents() inside a task)


def grab(widget: QWidget | None, out: Path) -> None:
    screen = QGuiApplication.primaryScreen()
    pix = screen.grabWindow(0) if widget is None else widget.grab()
    pix.save(str(out))
    print(f"wrote {out} ({pix.width()}x{pix.height()})")


async def welcome_shots(tmp: Path, out_dir: Path) -> None:
    path = tmp / "fresh" / "mediadesk" / "config.toml"
    panel = WelcomePanel(path)
    panel.show()
    await settle()
    grab(panel, out_dir / "welcome.png")
    panel.close()
    bad = tmp / "typo" / "config.toml"
    bad.parent.mkdir(parents=True)
    bad.write_text('[[profiles]]\nname = "writer"\nkind = "api"\nbase_url = "https://api.example.com/v1"\n'
                   'model = "m"\nconcurency = 3\n', encoding="utf-8")
    try:
        load_config(bad)
        raise SystemExit("the typo config loaded")
    except ConfigError as exc:
        error = str(exc)
    panel2 = WelcomePanel(bad, error=error)
    panel2.show()
    await settle()
    grab(panel2, out_dir / "welcome-config-error.png")
    panel2.close()


async def close_shot(tmp: Path, out_dir: Path) -> None:
    sim = ApiSimServer(ApiSimConfig(latency=(6.0, 40.0), seed=3))
    await sim.start()
    cfg = tmp / "console.toml"
    cfg.write_text(f"""
[[profiles]]
name = "writer"
kind = "api"
base_url = "{sim.base_url}"
model = "sim-writer"
concurrency = 3
timeout_s = 120
""", encoding="utf-8")
    ws = Workspace.resolve(data_dir=tmp / "data")
    sched = Scheduler(load_config(cfg), ws)
    await sched.start()
    bridge = SchedulerBridge(sched.bus)
    settings = QSettings(str(tmp / "w.ini"), QSettings.Format.IniFormat)
    w = MainWindow(sched, bridge, settings=settings)
    tray = TrayController(w, sched, bridge, tray_available=True)
    w.resize(1400, 860)
    w.move(20, 20)
    w.show()
    await w.start()
    prompts = [f"Write a two-line product blurb for item #{i}" for i in range(1, 25)]
    w.submit_rows_from_text("\n".join(prompts), "writer")
    while work_in_progress(sched)[0] < 3:
        await settle(100)
    await settle(2500)

    def shoot() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        grab(None, out_dir / "close-question.png")
        cancel = box.button(QMessageBox.StandardButton.Cancel)
        assert cancel is not None
        cancel.click()

    # the operator's close, as from the title bar: the real guard asks (a nested dialog loop
    # outside any asyncio task, as in the app), the lanes keep running behind it
    QTimer.singleShot(800, shoot)
    QTimer.singleShot(0, w.close)
    while not tray.guard.asked:
        await settle(100)
    await settle(300)
    assert w.isVisible(), "Cancel must keep the window"
    tray.guard.quit_now()
    tray.close()
    await w.aclose()
    bridge.detach()
    w.close()
    await sched.stop()
    await sim.stop()


async def main(out_dir: Path) -> None:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        await welcome_shots(tmp, out_dir)
        await close_shot(tmp, out_dir)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--out-dir", type=Path, default=ROOT / "docs")
    args = ap.parse_args()
    app = QApplication(["mediadesk-screenshot"])
    app.setQuitOnLastWindowClosed(False)
    apply_style(app)
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        install_asyncgen_hooks(runner.get_loop())
        runner.run(main(args.out_dir))
