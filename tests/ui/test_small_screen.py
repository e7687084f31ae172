"""Small screens: at 1024x640 the task table keeps at least 12 visible rows (the lane panels
collapse to one-line summaries), the search box stays visible and Ctrl+F focuses it.

Real Scheduler, real ApiSimServer on 127.0.0.1, real SQLite; offscreen Qt.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt

from mediadesk.scheduler import Scheduler
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.window.main_window import MainWindow
from tests.ui.conftest import ARun, ConsoleEnv, open_window
from tests.ui.test_main_window import wait_states

MIN_ROWS = 12


@pytest.fixture
def window(console_scheduler: Scheduler, arun: ARun, tmp_path: Path) -> Iterator[MainWindow]:
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    with open_window(console_scheduler, arun, settings, size=(1024, 640)) as w:
        yield w


def visible_rows(w: MainWindow) -> float:
    """Rows the table's viewport shows at once (whole and partial)."""
    return w.table.viewport().height() / w.table.verticalHeader().defaultSectionSize()


def fully_shown(w: MainWindow, widget: Any) -> bool:
    """``widget`` is visible and lies inside the window (not squeezed into a toolbar's overflow)."""
    if not widget.isVisible() or widget.visibleRegion().isEmpty():
        return False
    top_left = widget.mapTo(w, widget.rect().topLeft())
    bottom_right = widget.mapTo(w, widget.rect().bottomRight())
    return bool(w.rect().contains(top_left) and w.rect().contains(bottom_right))


def test_1024x640_keeps_12_rows_and_the_search_box(window: MainWindow, console_env: ConsoleEnv,
                                                   console_scheduler: Scheduler, qtbot: Any) -> None:
    s = console_scheduler
    s.intake.submit([s.intake.new_task(f"t{i:02d}", "writer", f"small screen {i}") for i in range(30)])
    wait_states(qtbot, console_env, {f"t{i:02d}": "success" for i in range(30)})
    qtbot.waitUntil(lambda: (window.width(), window.height()) == (1024, 640), timeout=5_000)
    qtbot.waitUntil(lambda: window.web_panel.is_compact and window.api_panel.is_compact, timeout=5_000)
    qtbot.waitUntil(lambda: visible_rows(window) >= MIN_ROWS, timeout=5_000)
    # the panels say in one line what they showed in many
    api = window.api_panel
    qtbot.waitUntil(lambda: "30/30" in api.summary_label.text(), timeout=5_000)
    assert api.summary_label.isVisible() and not api.rows.isVisible() and not api.progress.isVisible()
    assert api.height() <= 2 * api.summary_label.sizeHint().height() + 12
    assert fully_shown(window, window.filter_bar.search)
    # Ctrl+F from the table focuses the search box
    window.activateWindow()
    window.table.setFocus()
    qtbot.waitUntil(window.table.hasFocus, timeout=5_000)
    qtbot.keyClick(window.table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(window.filter_bar.search.hasFocus, timeout=5_000)


def test_panels_come_back_when_the_window_grows(window: MainWindow, qtbot: Any) -> None:
    qtbot.waitUntil(lambda: window.web_panel.is_compact, timeout=5_000)
    window.resize(1400, 900)
    qtbot.waitUntil(lambda: not window.web_panel.is_compact and not window.api_panel.is_compact, timeout=5_000)
    assert window.api_panel.rows.isVisible() and window.api_panel.progress.isVisible()
    assert not window.api_panel.summary_label.isVisible()
    assert window.lane_splitter.height() > 100  # the panels got their room back
    assert fully_shown(window, window.filter_bar.search)
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.web_panel.is_compact and visible_rows(window) >= MIN_ROWS, timeout=5_000)


def test_compact_layout_is_not_what_a_restart_restores(window: MainWindow, console_scheduler: Scheduler,
                                                       qtbot: Any, tmp_path: Path) -> None:
    """Closing while compact saves the full layout's splitter sizes, not the squeezed ones."""
    qtbot.waitUntil(lambda: window.web_panel.is_compact, timeout=5_000)
    window.save_settings()
    bridge = SchedulerBridge(console_scheduler.bus)
    try:
        w2 = MainWindow(console_scheduler, bridge, settings=window.settings)
        w2.resize(1400, 900)
        w2.show()
        qtbot.waitUntil(lambda: w2.main_splitter.height() > 400, timeout=5_000)
        assert not w2.web_panel.is_compact
        assert w2.main_splitter.sizes()[0] > 100  # the lane panels are not stuck at one line
        w2.close()
        w2.deleteLater()
    finally:
        bridge.detach()
