"""The console says so when its database fails under it (issue 9 item 6/8, the console face): real
Scheduler, real API simulator on 127.0.0.1, real SQLite file deleted under the running window."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from mediadesk.scheduler import Scheduler
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.window.main_window import MainWindow
from tests.ui import conftest as ui

# The console fixtures of tests/ui (a qasync loop on the pytest-qt app, the simulator, a started
# scheduler), made available to this directory.
qsettings_tmp = ui.qsettings_tmp
_isolated_qsettings = ui._isolated_qsettings
qloop = ui.qloop
arun = ui.arun
api_sim = ui.api_sim
console_env = ui.console_env
console_scheduler = ui.console_scheduler


def test_the_window_says_the_database_file_was_deleted(
    console_scheduler: Scheduler, qtbot: Any, arun: ui.ARun, tmp_path: Path
) -> None:
    db = console_scheduler.workspace.db_path
    bridge = SchedulerBridge(console_scheduler.bus)
    w = MainWindow(console_scheduler, bridge, settings=QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat))
    w.show()
    arun(w.start())
    # every lane's backend has started (an API client is built in a worker thread: left running,
    # it would call back into the loop after the test closed it)
    arun(console_scheduler.wait_ready())
    try:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        qtbot.waitUntil(lambda: "was deleted or replaced" in w.status_line.last_message, timeout=10_000)
        assert str(db) in w.status_line.last_message and "restore the file" in w.status_line.last_message
        assert w.statusBar().currentMessage() == w.status_line.last_message  # stays in the status bar
        boxes = [b for b in w.findChildren(QMessageBox) if b.isVisible()]
        assert len(boxes) == 1 and str(db) in boxes[0].text()
        assert all(not lane.can_dispatch() for lane in console_scheduler.lanes)  # dispatch halted
    finally:
        arun(w.aclose())
        bridge.detach()


def test_actions_after_the_database_is_gone_raise_nothing_and_keep_the_message(
    console_scheduler: Scheduler, qtbot: Any, arun: ui.ARun, tmp_path: Path
) -> None:
    """Submit / cancel / retry from the window once the file is gone: no exception escapes a Qt slot
    (it would print a traceback and could end the app), and the fatal message stays on screen."""
    from mediadesk.core.batch import BatchRow

    db = console_scheduler.workspace.db_path
    bridge = SchedulerBridge(console_scheduler.bus)
    w = MainWindow(console_scheduler, bridge, settings=QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat))
    w.show()
    arun(w.start())
    arun(console_scheduler.wait_ready())
    try:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        rows = [BatchRow(line=1, profile="writer", prompt="after the loss", id=None, system=None, priority=0,
                         route_key=None)]
        assert w.submission.submit_rows(rows) is None
        assert arun(w.submission.submit_rows_async(rows)) is None
        qtbot.waitUntil(lambda: "was deleted or replaced" in w.status_line.last_message, timeout=10_000)
        message = w.status_line.last_message
        assert w.statusBar().currentMessage() == message
        for box in w.findChildren(QMessageBox):
            box.close()
        assert not db.exists()  # nothing recreated an empty database at the path
    finally:
        arun(w.aclose())
        bridge.detach()
