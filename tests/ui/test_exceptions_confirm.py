"""The Exceptions tab: Drop asks first (naming how many tasks), and the list follows tasks that leave
``failed`` through the main table. A real Scheduler whose web lane fails ``[[fail]]`` prompts for
good with ``site_error``, the real main window, a real SQLite workspace."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QItemSelectionModel, QSettings, QTimer
from PySide6.QtWidgets import QAbstractItemView, QApplication, QMessageBox

from mediadesk.scheduler import Scheduler
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.panels.exceptions_view import ExceptionsView
from mediadesk.ui.window.main_window import MainWindow
from tests.ui.conftest import ARun, ConsoleEnv
from tests.ui.test_exceptions_view import FailingWebBackend, db_record, fail_tasks


@pytest.fixture
def failing_scheduler(console_env: ConsoleEnv, arun: ARun) -> Iterator[Scheduler]:
    for name in ("acct-a", "acct-b"):
        console_env.web_backends[name] = FailingWebBackend(name)
    s = console_env.make_scheduler()
    arun(s.start())
    try:
        yield s
    finally:
        arun(s.stop(), timeout=20.0)


@pytest.fixture
def window(failing_scheduler: Scheduler, qtbot: Any, arun: ARun, tmp_path: Path) -> Iterator[MainWindow]:
    bridge = SchedulerBridge(failing_scheduler.bus)
    w = MainWindow(failing_scheduler, bridge,
                   settings=QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat))
    w.show()
    arun(w.start())
    try:
        yield w
    finally:
        arun(w.aclose())
        bridge.detach()
        w.close()
        w.deleteLater()
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def select_rows(view: ExceptionsView, ids: list[str]) -> None:
    """Select the rows of ``ids`` in the exceptions table (as ctrl-clicks would)."""
    sel = view.table.selectionModel()
    sel.clearSelection()
    for tid in ids:
        row = view.task_ids().index(tid)
        idx = view.table.model().index(row, 0)
        sel.select(idx, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)
        sel.setCurrentIndex(idx, QItemSelectionModel.SelectionFlag.NoUpdate)


def select_in_main_table(w: MainWindow, ids: list[str]) -> None:
    sel = w.table.selectionModel()
    sel.clearSelection()
    for row in range(w.proxy.rowCount()):
        if w.proxy.task_ids([row])[0] in ids:
            sel.select(w.proxy.index(row, 0),
                       QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)


def test_drop_asks_first_naming_how_many(window: MainWindow, console_env: ConsoleEnv,
                                         failing_scheduler: Scheduler, qtbot: Any) -> None:
    view = window.exceptions_view
    fail_tasks(failing_scheduler, qtbot, console_env, ["d1", "d2", "d3"])
    qtbot.waitUntil(lambda: view.task_ids() == ["d1", "d2", "d3"], timeout=5_000)
    assert view.table.selectionMode() == QAbstractItemView.SelectionMode.ExtendedSelection
    asked: list[list[str]] = []
    answer = [False]

    def operator(task_ids: list[str]) -> bool:
        asked.append(list(task_ids))
        return answer[0]

    view.confirm_drop = operator
    select_rows(view, ["d1", "d3"])
    view.answer_edit.setPlainText("one answer")
    assert not view.resolve("answer")  # an answer by hand is for one task
    assert "Select one exception" in view.status_label.text()
    view.answer_edit.clear()
    view.note_edit.setText("not worth it")
    view.drop_button.click()
    assert asked == [["d1", "d3"]]
    # "no": nothing changed
    assert view.task_ids() == ["d1", "d2", "d3"]
    assert all(db_record(console_env, t).resolution is None for t in ("d1", "d3"))
    assert view.note_edit.text() == "not worth it"  # the note is kept for the next try

    answer[0] = True
    view.drop_button.click()
    assert asked[-1] == ["d1", "d3"]
    assert view.task_ids() == ["d2"]
    for t in ("d1", "d3"):
        rec = db_record(console_env, t)
        assert (rec.state, rec.resolution, rec.resolution_note) == ("failed", "drop", "not worth it")
    assert db_record(console_env, "d2").resolution is None
    assert "2 tasks" in view.status_label.text()
    assert window.exceptions_dock.windowTitle() == "Exceptions (1)"
    qtbot.waitUntil(lambda: not view.busy, timeout=5_000)


def test_the_real_drop_question_names_the_count(window: MainWindow, console_env: ConsoleEnv,
                                                failing_scheduler: Scheduler, qtbot: Any) -> None:
    view = window.exceptions_view
    fail_tasks(failing_scheduler, qtbot, console_env, ["q1", "q2"])
    qtbot.waitUntil(lambda: view.task_ids() == ["q1", "q2"], timeout=5_000)
    seen: list[str] = []

    def answer_when_shown() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(10, answer_when_shown)
            return
        seen.append(box.text())
        box.reject()  # Escape: the safe answer

    select_rows(view, ["q1", "q2"])
    QTimer.singleShot(0, answer_when_shown)
    view.drop_button.click()
    assert len(seen) == 1
    assert "Drop 2 tasks?" in seen[0] and "q1" in seen[0] and "q2" in seen[0]
    assert view.task_ids() == ["q1", "q2"]  # refused: nothing dropped
    assert db_record(console_env, "q1").resolution is None
    qtbot.waitUntil(lambda: not view.busy, timeout=5_000)


def test_tab_follows_a_retry_from_the_main_table(window: MainWindow, console_env: ConsoleEnv,
                                                 failing_scheduler: Scheduler, qtbot: Any) -> None:
    """A task retried from the main table leaves ``failed``: the tab drops it by itself (the web lane
    is paused so the retried task stays pending instead of failing again)."""
    view = window.exceptions_view
    fail_tasks(failing_scheduler, qtbot, console_env, ["r1", "r2"])
    qtbot.waitUntil(lambda: view.task_ids() == ["r1", "r2"], timeout=5_000)
    qtbot.waitUntil(lambda: window.model.state_of("r1") == "failed", timeout=5_000)
    window.task_actions.set_paused("web", True)
    select_in_main_table(window, ["r1"])
    assert window.task_actions.retry_selected() == 1
    assert db_record(console_env, "r1").state == "pending"
    qtbot.waitUntil(lambda: view.task_ids() == ["r2"], timeout=5_000)
    assert window.exceptions_dock.windowTitle() == "Exceptions (1)"
    # back on the lane it fails again, and is listed again
    window.task_actions.set_paused("web", False)
    qtbot.waitUntil(lambda: view.task_ids() == ["r1", "r2"], timeout=15_000)
    qtbot.waitUntil(lambda: not view.busy, timeout=5_000)
