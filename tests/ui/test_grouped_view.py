"""The task table grouped by batch (JDownloader's packages): the toggle in the filter toolbar and
the row menu, one collapsible row per batch with its progress, the flat table's columns under it,
sorting and filtering inside the groups, a batch row selecting its tasks for Cancel and Retry, and
the choice remembered across a restart.

Real Scheduler, real ApiSimServer on 127.0.0.1, real SQLite; the web lane fails ``[[fail]]`` prompts
(the in-process fake browser of test_exceptions_view); offscreen Qt.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, QSettings, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

from mediadesk.scheduler import Scheduler
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.models.group_model import TaskGroupModel
from mediadesk.ui.models.task_model import Col
from mediadesk.ui.window.main_window import MainWindow
from tests.ui.conftest import ARun, ConsoleEnv, open_window
from tests.ui.test_exceptions_view import FailingWebBackend
from tests.ui.test_main_window import wait_states


@pytest.fixture
def console_scheduler(console_env: ConsoleEnv, arun: ARun) -> Iterator[Scheduler]:
    for name in ("acct-a", "acct-b"):
        console_env.web_backends[name] = FailingWebBackend(name)
    s = console_env.make_scheduler()
    arun(s.start())
    try:
        yield s
    finally:
        arun(s.stop(), timeout=20.0)


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def window(console_scheduler: Scheduler, arun: ARun, settings: QSettings) -> Iterator[MainWindow]:
    with open_window(console_scheduler, arun, settings, size=(1400, 900)) as w:
        yield w


def submit(s: Scheduler, batch: str, ids: list[str], profile: str = "writer", suffix: str = "") -> None:
    s.intake.submit([s.intake.new_task(t, profile, f"{batch} prompt {t}{suffix}", batch=batch) for t in ids])


def batch_index(model: TaskGroupModel, batch: str) -> QModelIndex:
    g = model.groups.group_row(batch)
    assert g is not None, batch
    return model.index(g, 0)


def children(model: TaskGroupModel, batch: str) -> list[str]:
    parent = batch_index(model, batch)
    return [model.index(r, Col.ID, parent).data() for r in range(model.rowCount(parent))]


def two_batches(window: MainWindow, s: Scheduler, env: ConsoleEnv, qtbot: Any) -> None:
    """alpha: 4 API tasks done; beta: 3 web tasks failed and 2 API tasks left pending (API paused)."""
    submit(s, "alpha", [f"a{i}" for i in range(4)])
    wait_states(qtbot, env, {f"a{i}": "success" for i in range(4)})
    window.act_pause_api.trigger()
    submit(s, "beta", [f"f{i}" for i in range(3)], profile="chat", suffix=" [[fail]]")
    submit(s, "beta", ["p0", "p1"])
    wait_states(qtbot, env, {"f0": "failed", "f1": "failed", "f2": "failed", "p0": "pending", "p1": "pending"})
    qtbot.waitUntil(lambda: window.model.rows.state_of("f2") == "failed" and len(window.model.rows) == 9,
                    timeout=10_000)


def test_grouping_shows_batches_with_their_progress(window: MainWindow, console_env: ConsoleEnv,
                                                    console_scheduler: Scheduler, qtbot: Any) -> None:
    two_batches(window, console_scheduler, console_env, qtbot)
    g = window.grouped
    assert not g.active and window.table_stack.currentWidget() is window.table
    assert g.action in window.filter_bar.actions()  # the toggle is in the filter toolbar
    g.action.trigger()
    assert g.active and window.table_stack.currentWidget() is g.tree
    m = g.model
    assert m.rowCount() == 2
    alpha, beta = batch_index(m, "alpha"), batch_index(m, "beta")
    assert alpha.data() == "alpha" and beta.data() == "beta"
    assert m.index(alpha.row(), Col.STATE).data() == "4/4"
    assert m.index(beta.row(), Col.STATE).data() == "3/5"
    assert m.index(beta.row(), Col.STATE).data(TaskGroupModel.ProgressRole) == (3, 5, 3)
    counts = m.index(beta.row(), Col.PROMPT).data()
    assert "2" in counts and "3" in counts
    assert m.index(beta.row(), Col.ERROR).data() == "3 failed"
    red = m.index(beta.row(), Col.ERROR).data(Qt.ItemDataRole.ForegroundRole)
    assert isinstance(red, QColor) and red.red() > red.green()  # the failures stand out
    assert m.index(alpha.row(), Col.ERROR).data() is None
    # children: the flat table's columns and values
    assert sorted(children(m, "beta")) == ["f0", "f1", "f2", "p0", "p1"]
    f0 = m.index(children(m, "beta").index("f0"), Col.STATE, beta)
    assert f0.data() == window.model.index(window.model.row_of("f0") or 0, Col.STATE).data()
    # collapsed at first; expand and collapse
    tree = g.tree
    assert not tree.isExpanded(beta)
    tree.expand(beta)
    qtbot.waitUntil(lambda: tree.visualRect(m.index(0, 0, beta)).isValid(), timeout=5_000)
    tree.collapse(beta)
    assert not tree.isExpanded(beta) and not tree.visualRect(m.index(0, 0, beta)).isValid()
    # the batch's submission time is read from the store
    qtbot.waitUntil(lambda: bool(m.index(alpha.row(), Col.STARTED).data()), timeout=10_000)
    # live: the pending tasks run once the lane resumes; the batch row follows
    window.act_pause_api.trigger()
    qtbot.waitUntil(lambda: m.index(beta.row(), Col.STATE).data() == "5/5", timeout=15_000)


def test_sort_and_filter_apply_inside_the_groups(window: MainWindow, console_env: ConsoleEnv,
                                                 console_scheduler: Scheduler, qtbot: Any) -> None:
    two_batches(window, console_scheduler, console_env, qtbot)
    g = window.grouped
    g.action.trigger()
    m = g.model
    g.tree.header().setSortIndicator(Col.ID, Qt.SortOrder.DescendingOrder)
    qtbot.waitUntil(lambda: children(m, "beta") == ["p1", "p0", "f2", "f1", "f0"], timeout=5_000)
    assert children(m, "alpha") == ["a3", "a2", "a1", "a0"]
    # the flat table shows the same sort (a restart keeps it)
    assert window.table.horizontalHeader().sortIndicatorSection() == Col.ID
    window.filter_bar.state_combo.setCurrentIndex(window.filter_bar.state_combo.findData("failed"))
    qtbot.waitUntil(lambda: m.rowCount() == 1, timeout=5_000)
    assert children(m, "beta") == ["f2", "f1", "f0"]
    assert m.index(0, Col.STATE).data() == "3/5"  # the batch's progress, not the filter's
    window.filter_bar.state_combo.setCurrentIndex(0)
    qtbot.waitUntil(lambda: m.rowCount() == 2, timeout=5_000)


def test_a_batch_row_selects_its_tasks_for_cancel_and_retry(window: MainWindow, console_env: ConsoleEnv,
                                                            console_scheduler: Scheduler, qtbot: Any) -> None:
    two_batches(window, console_scheduler, console_env, qtbot)
    g = window.grouped
    g.action.trigger()
    m, tree = g.model, g.tree
    sel = tree.selectionModel()
    beta = batch_index(m, "beta")
    sel.select(beta, sel.SelectionFlag.ClearAndSelect | sel.SelectionFlag.Rows)
    assert sorted(window.task_actions.selected_task_ids()) == ["f0", "f1", "f2", "p0", "p1"]
    # a child selected as well is counted once
    tree.expand(beta)
    sel.select(m.index(0, 0, beta), sel.SelectionFlag.Select | sel.SelectionFlag.Rows)
    assert len(window.task_actions.selected_task_ids()) == 5
    assert window.task_actions.retry_selected() == 3  # the failed ones
    wait_states(qtbot, console_env, {"f0": "failed", "f1": "failed", "f2": "failed"}, timeout=20_000)
    beta = batch_index(m, "beta")
    sel.select(beta, sel.SelectionFlag.ClearAndSelect | sel.SelectionFlag.Rows)
    assert window.task_actions.cancel_selected() == 2  # the pending ones
    wait_states(qtbot, console_env, {"p0": "canceled", "p1": "canceled"})
    qtbot.waitUntil(lambda: m.index(batch_index(m, "beta").row(), Col.STATE).data() == "5/5", timeout=10_000)
    # Ctrl+C in the tree copies the batch's tasks as rows of the flat table
    sel.select(batch_index(m, "alpha"), sel.SelectionFlag.ClearAndSelect | sel.SelectionFlag.Rows)
    assert g.copy_rows() == 4
    assert sorted(line.split("\t")[0] for line in QApplication.clipboard().text().splitlines()) == [
        "a0", "a1", "a2", "a3"]
    # the tree's row menu has the table actions and the toggle
    menu = g.menu()
    assert window.act_cancel in menu.actions() and g.action in menu.actions()
    menu.close()
    menu.deleteLater()


def test_the_choice_is_remembered_and_offered_in_the_row_menu(window: MainWindow, console_env: ConsoleEnv,
                                                             console_scheduler: Scheduler, qtbot: Any,
                                                             settings: QSettings, arun: ARun) -> None:
    submit(console_scheduler, "alpha", ["a0", "a1"])
    wait_states(qtbot, console_env, {"a0": "success", "a1": "success"})
    qtbot.waitUntil(lambda: len(window.model.rows) == 2, timeout=5_000)
    menu = window.table_menu.row_menu(0)
    assert window.grouped.action in menu.actions()
    window.grouped.action.trigger()  # from the row menu
    window.save_settings()
    bridge = SchedulerBridge(console_scheduler.bus)
    w2 = MainWindow(console_scheduler, bridge, settings=settings)
    try:
        assert w2.grouped.active and w2.table_stack.currentWidget() is w2.grouped.tree
        w2.grouped.action.trigger()
        assert not w2.grouped.active and w2.table_stack.currentWidget() is w2.table
        assert settings.value("taskTable/groupByBatch") in (False, "false")
    finally:
        arun(w2.aclose())
        w2.close()
        w2.deleteLater()
        bridge.detach()
