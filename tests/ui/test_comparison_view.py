"""The Compare tab, offscreen, over the real scheduler, the API simulator on 127.0.0.1 and a real SQLite file: a
batch row sent to two profiles with two samples each shows as one row of four answers; Keep (the button, then a
double-click on another answer) marks the chosen answer kept through the scheduler, which the store then holds,
and the view shows the mark; answers are plain text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt

from mediadesk.core.batch import BatchRow
from mediadesk.scheduler import Scheduler
from mediadesk.sim.api_server import answer_for
from mediadesk.store import TaskReader
from mediadesk.store.comparison import read_comparison
from mediadesk.ui.window.main_window import MainWindow
from tests.ui.conftest import ARun, ConsoleEnv, open_window

PROMPT = "Name a <b>tea</b>."


@pytest.fixture
def window(console_scheduler: Scheduler, arun: ARun, tmp_path: Path) -> Iterator[MainWindow]:
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    with open_window(console_scheduler, arun, settings) as w:
        yield w


def kept_ids(env: ConsoleEnv) -> list[str]:
    r = TaskReader(env.workspace.location)
    try:
        return [t.task_id for t in r.iter_tasks(batch="b1") if t.kept]
    finally:
        r.close()


def test_the_compare_tab_shows_a_batch_and_keeps_the_chosen_answer(
        window: MainWindow, console_scheduler: Scheduler, console_env: ConsoleEnv, arun: ARun, qtbot: Any) -> None:
    row = BatchRow(line=1, profile="writer", prompt=PROMPT, id=None, system=None, priority=0, route_key=None,
                   profiles=("writer", "reasoner"), samples=2)
    done = arun(console_scheduler.intake.submit_rows_async([row], "b1"))
    assert len(done.ids) == 4
    arun(console_scheduler.wait_idle(poll_s=0.05), timeout=30.0)  # (a safety net: every task finished)

    view = window.comparison_view
    window.comparison_dock.raise_()
    view.show_batch("b1")
    # waits for the view's worker-thread read of batch b1 to be drawn
    qtbot.waitUntil(lambda: len(view.comparison.rows) == 1 and not view.busy, timeout=10_000)
    t = view.table
    assert t.rowCount() == 1 and t.columnCount() == 5
    assert [t.horizontalHeaderItem(c).text() for c in range(5)] == [
        "Prompt", "writer #1", "writer #2", "reasoner #1", "reasoner #2"]
    assert view.batch_combo.currentData() == "b1"
    prompt_item, first = t.item(0, 0), t.item(0, 1)
    assert prompt_item is not None and first is not None
    assert prompt_item.text() == PROMPT  # plain text: the item shows the tags as they are
    assert first.text().startswith(answer_for(PROMPT)) and "★" not in first.text()

    t.setCurrentCell(0, 2)  # writer #2: its whole answer below
    assert view.answer_view.toPlainText() == answer_for(PROMPT)
    writer2 = view.selected_cell()
    assert writer2 is not None and view.keep_button.isEnabled()
    view.keep_button.click()
    assert kept_ids(console_env) == [writer2.task_id]
    # waits for the read after the keep to draw the mark
    qtbot.waitUntil(lambda: "★" in (t.item(0, 2).text() if t.item(0, 2) else ""), timeout=10_000)
    assert view.keep_button.text() == "Unkeep"

    # a double-click on another answer moves the mark (one kept per prompt)
    t.setCurrentCell(0, 3)
    reasoner1 = view.selected_cell()
    assert reasoner1 is not None
    t.cellDoubleClicked.emit(0, 3)
    assert kept_ids(console_env) == [reasoner1.task_id]
    # waits for the read after the second keep
    qtbot.waitUntil(lambda: view.comparison.rows[0].kept == view.comparison.rows[0].cell(("reasoner", 1)),
                    timeout=10_000)
    item2, item3 = t.item(0, 2), t.item(0, 3)
    assert item2 is not None and item3 is not None
    assert "★" not in item2.text() and "★" in item3.text() and item3.font().bold()
    assert item3.data(Qt.ItemDataRole.UserRole) == reasoner1.task_id
    kept = read_comparison(console_env.workspace.location, "b1").rows[0].kept
    assert kept is not None and kept.task_id == reasoner1.task_id

    # the Batches tab's selection picks the batch shown here
    view.show_batch(None)
    assert view.batch_combo.currentIndex() == 0
    window.batches_dock.raise_()
    # waits for the Batches tab's first read
    qtbot.waitUntil(lambda: window.batches_view.rows != [], timeout=10_000)
    window.batches_view.table.selectRow(0)
    assert view.batch == "b1"
