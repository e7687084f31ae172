"""The table keeps only a one-line head of each prompt (80 characters: the 100k-row memory budget);
the full text is read from the store when it is needed: the detail pane and "copy prompt"."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings

from mediadesk.core.batch import BatchRow
from mediadesk.scheduler import Scheduler
from mediadesk.ui.models.task_model import Col
from mediadesk.ui.window.main_window import MainWindow
from mediadesk.ui.window.table_menu import fetch_texts
from mediadesk.viewmodel.columns import PROMPT_CHARS
from tests.ui.conftest import ARun, open_window


@pytest.fixture
def window(console_scheduler: Scheduler, qtbot: Any, arun: ARun, tmp_path: Path) -> Iterator[MainWindow]:
    settings = QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)
    with open_window(console_scheduler, arun, settings, size=(1200, 800)) as w:
        yield w


def test_a_10000_character_prompt_is_whole_in_the_detail_pane(window: MainWindow, qtbot: Any) -> None:
    window.task_actions.set_paused("api", True)  # stays pending: nothing else changes while we look
    prompt = "".join(f"line {i:04d} of a long prompt\n" for i in range(400))[:10_000]
    assert len(prompt) == 10_000
    window.submission.submit_rows([BatchRow(line=1, profile="writer", prompt=prompt, id="long-1", system=None,
                                            priority=0, route_key=None)], batch="long")
    qtbot.waitUntil(lambda: window.model.row_of("long-1") is not None, timeout=10_000)
    row = window.model.row_of("long-1")
    assert row is not None
    cell = window.model.index(row, Col.PROMPT).data()
    assert cell == prompt[:PROMPT_CHARS].replace("\n", " ")  # the head, on one line
    assert window.model.rows.cols.prompt[window.model.rows.storage_of(row)] == cell  # all the table keeps

    d = window.detail
    d.show_task("long-1")
    qtbot.waitUntil(lambda: d.record is not None and d.record.task_id == "long-1", timeout=5_000)
    assert d.prompt_view.toPlainText() == prompt
    assert fetch_texts(window.location, ["long-1"], "prompt") == [prompt]
