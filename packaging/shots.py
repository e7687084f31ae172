"""What the offscreen screenshot scripts share: the Qt application on qasync's loop, and a console window
on a running scheduler that is closed in the order the console closes it."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import qasync
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from mediadesk.config.model import AppConfig
from mediadesk.config.workspace import Workspace
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.style import apply_style
from mediadesk.ui.window.main_window import MainWindow


def run_offscreen(shoot: Coroutine[Any, Any, None]) -> int:
    """Run ``shoot`` on qasync's loop over the (styled) Qt application; 0 when it returns."""
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(["mediadesk-screenshot"])
    app.setQuitOnLastWindowClosed(False)
    apply_style(app)
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        runner.run(shoot)
    return 0


@asynccontextmanager
async def console(config: AppConfig, ws: Workspace, tmp: Path,
                  size: tuple[int, int] = (1440, 900)) -> AsyncIterator[tuple[Scheduler, MainWindow]]:
    """A started scheduler on ``ws`` and the console's main window on it, shown at ``size``; both closed
    after (the window's jobs first, then the scheduler)."""
    sched = Scheduler(config, ws)
    await sched.start()
    bridge = SchedulerBridge(sched.bus)
    window = MainWindow(sched, bridge, settings=QSettings(str(tmp / "s.ini"), QSettings.Format.IniFormat))
    window.resize(*size)
    window.show()
    await window.start()
    try:
        yield sched, window
    finally:
        await window.aclose()
        bridge.detach()
        window.close()
        window.deleteLater()
        await sched.stop()
