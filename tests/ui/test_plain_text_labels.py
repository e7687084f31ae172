"""Outside text in the console is shown as text (issue 19, item 10): a server's HTTP 400 body with a
heading and an ``<img src="file://...">`` in the detail pane, a task id that looks like HTML, the
lane panels' breaker reasons. A real scheduler, the API simulator's ``html_400`` answer, offscreen Qt."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QMessageBox

from mediadesk.core.batch import BatchRow
from mediadesk.scheduler import Scheduler
from mediadesk.sim._api_hostile import HTML_ERROR
from mediadesk.ui.panels.lane_panel import LanePanel
from mediadesk.ui.window.main_window import MainWindow
from tests.ui.conftest import ARun, open_window


@pytest.fixture
def window(console_scheduler: Scheduler, qtbot: Any, arun: ARun, tmp_path: Path) -> Iterator[MainWindow]:
    settings = QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)
    with open_window(console_scheduler, arun, settings, size=(1200, 800)) as w:
        yield w


def row(tid: str, prompt: str) -> BatchRow:
    return BatchRow(line=1, profile="writer", prompt=prompt, id=tid, system=None, priority=0, route_key=None)


def test_an_html_error_body_is_shown_as_text_in_the_detail_pane(window: MainWindow, qtbot: Any) -> None:
    """Before: the error label guessed the format (AutoText) and rendered the 400 body as HTML: a big
    heading, and an image loaded from a local file."""
    window.submission.submit_rows([row("html-400", "[[sim:html_400]]")], batch="hostile")
    qtbot.waitUntil(lambda: window.model.row_of("html-400") is not None, timeout=10_000)
    d = window.detail
    d.show_task("html-400")
    qtbot.waitUntil(lambda: d.record is not None and d.record.state == "failed", timeout=20_000)
    qtbot.waitUntil(lambda: d.error_label.isVisible(), timeout=5_000)
    label = d.error_label
    assert label.textFormat() is Qt.TextFormat.PlainText
    assert "<h1>Bad request</h1>" in label.text() and 'src="file:///etc/passwd"' in label.text()
    assert HTML_ERROR.split(">", 1)[0] + ">" in label.text()


def test_a_task_id_that_looks_like_html_stays_text_in_the_header(window: MainWindow, qtbot: Any) -> None:
    window.task_actions.set_paused("api", True)  # stays pending: the header is all we look at
    tid = "<h1>big</h1><img src=file:///etc/passwd>"
    window.submission.submit_rows([row(tid, "hello")], batch="hostile")
    qtbot.waitUntil(lambda: window.model.row_of(tid) is not None, timeout=10_000)
    d = window.detail
    d.show_task(tid)
    qtbot.waitUntil(lambda: d.record is not None and d.record.task_id == tid, timeout=5_000)
    # rich only for the bold id, every value escaped: what is shown is the id as typed
    assert d.header.textFormat() is Qt.TextFormat.RichText
    assert "&lt;h1&gt;" in d.header.text() and "<h1>" not in d.header.text()


def test_every_label_and_box_that_shows_outside_text_is_plain(window: MainWindow, qtbot: Any) -> None:
    """The console's labels fed from servers, files and the store never guess the format."""
    assert len(window.findChildren(LanePanel)) == 2
    for panel in window.findChildren(LanePanel):
        for label in (panel.state_label, panel.counts_label, panel.eta_label, panel.callee_label,
                      panel.summary_label):
            assert label.textFormat() is Qt.TextFormat.PlainText, label
    assert window.exceptions_view.error_view.textFormat() is Qt.TextFormat.PlainText
    assert window.status_line.status_label.textFormat() is Qt.TextFormat.PlainText
    box = window.status_line.notify("<b>title</b>", "<h1>server said</h1>", error=True)
    try:
        assert isinstance(box, QMessageBox) and box.textFormat() is Qt.TextFormat.PlainText
    finally:
        box.close()


def test_the_setup_editors_test_results_and_messages_are_plain(tmp_path: Path, qtbot: Any) -> None:
    """A Test's result quotes the server's answer; the field errors quote the config file."""
    from mediadesk.config.workspace import Workspace
    from mediadesk.ui.dialogs.setup_editor import SetupEditor

    cfg = tmp_path / "config.toml"
    cfg.write_text('[[profiles]]\nname = "writer"\nkind = "api"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n',
                   encoding="utf-8")
    dlg = SetupEditor(cfg, workspace=Workspace.resolve(data_dir=tmp_path / "data"))
    dlg.confirm_discard = lambda: True
    qtbot.addWidget(dlg)
    assert dlg.test_results and all(label.textFormat() is Qt.TextFormat.PlainText
                                    for label in dlg.test_results.values())
    assert dlg.status.textFormat() is Qt.TextFormat.PlainText
