"""The conventional menu bar (issue 20, item 5): File > Quit (Ctrl+Q) asks only with work in
progress and never offers the tray; View toggles each dock, the toolbars and the status bar and
resets the layout; Tools opens Setup and the adapter check; Help opens the documentation, the data
and logs folders and says the version; the language choice is kept and applies at the next start.
Real scheduler, real API simulator, real SQLite; offscreen Qt."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QLocale, QSettings, Qt, QUrl
from PySide6.QtWidgets import QDockWidget, QMessageBox

from mediadesk import __version__
from mediadesk.scheduler import Scheduler
from mediadesk.sim.api_server import ApiSimServer
from mediadesk.ui.app.start import EXIT_OK, console_main
from mediadesk.ui.dialogs.close_question import CloseChoice, CloseGuard, CloseQuestion, work_in_progress
from mediadesk.ui.language import LANGUAGE_KEY, chosen_locale
from mediadesk.ui.window.main_window import MainWindow
from tests.ui.conftest import ARun, ConsoleEnv, open_window
from tests.ui.test_close_and_tray import _config_toml, slow_sim  # noqa: F401 (a fixture)


@pytest.fixture
def window(console_scheduler: Scheduler, arun: ARun, tmp_path: Path) -> Iterator[MainWindow]:
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    with open_window(console_scheduler, arun, settings) as w:
        yield w


def menu_titles(w: MainWindow) -> list[str]:
    return [a.text() for a in w.menuBar().actions()]


def texts(menu: Any) -> list[str]:
    return [a.text() for a in menu.actions() if not a.isSeparator()]


def test_the_menu_bar_has_file_view_tools_help(window: MainWindow) -> None:
    assert menu_titles(window) == ["&File", "&View", "&Tools", "&Help"]
    m = window.menus
    assert texts(m.file_menu.menu())[-1] == "&Quit"
    assert m.act_quit.shortcut().toString() == "Ctrl+Q"
    view = texts(m.view_menu)
    for dock in window.findChildren(QDockWidget):
        assert dock.windowTitle() in view
    assert {"Main", "Status bar", "Reset layout", "Language"} <= set(view)
    tools = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Tools")
    assert texts(tools) == ["Setup…", "Adapter check…", "Check all accounts…"]


def test_view_toggles_a_dock_and_the_status_bar_and_reset_layout_brings_them_back(window: MainWindow,
                                                                                  qtbot: Any) -> None:
    m = window.menus
    log_toggle = window.log_dock.toggleViewAction()
    assert log_toggle in m.view_menu.actions()
    log_toggle.trigger()
    qtbot.waitUntil(lambda: window.log_dock.isHidden(), timeout=5_000)
    status = next(a for a in m.view_menu.actions() if a.objectName() == "actStatusBar")
    status.trigger()
    assert window.statusBar().isHidden()
    window.resize(700, 500)
    next(a for a in m.view_menu.actions() if a.objectName() == "actResetLayout").trigger()
    qtbot.waitUntil(lambda: not window.log_dock.isHidden() and not window.statusBar().isHidden(), timeout=5_000)
    assert window.width() > 700


def test_quit_asks_only_with_work_and_never_offers_the_tray(
    tmp_path: Path, slow_sim: ApiSimServer, qapp: Any, qloop: asyncio.AbstractEventLoop, qtbot: Any,  # noqa: F811
) -> None:
    cfg = tmp_path / "slow.toml"
    cfg.write_text(_config_toml(slow_sim.base_url, tmp_path / "data"), encoding="utf-8")
    seen: list[MainWindow] = []
    run = qloop.create_task(console_main(qapp, cfg, on_window=seen.append, tray_available=True))
    qtbot.waitUntil(lambda: bool(seen) and seen[0].feed.is_loaded, timeout=20_000)
    w = seen[0]
    guard = w.close_guard
    assert isinstance(guard, CloseGuard)
    answers = [CloseChoice.CANCEL, CloseChoice.QUIT]
    guard.ask = lambda q: answers.pop(0)
    assert w.submission.submit_rows_from_text("one", "writer") is not None
    qtbot.waitUntil(lambda: work_in_progress(w.scheduler) == (1, 0), timeout=20_000)
    w.activateWindow()
    qtbot.keyClick(w.table, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)  # Ctrl+Q: Cancel
    assert guard.asked == [CloseQuestion(1, 0, False)]  # no "Keep running in the tray" for Quit
    assert w.isVisible() and not run.done()
    w.menus.act_quit.trigger()  # Quit
    qtbot.waitUntil(run.done, timeout=30_000)
    assert run.result() == EXIT_OK and len(guard.asked) == 2


def test_help_opens_the_folders_and_about_says_the_version(window: MainWindow, qtbot: Any) -> None:
    opened: list[QUrl] = []
    window.menus.open_url = lambda url: opened.append(url) or True  # type: ignore[func-returns-value]
    window.menus.act_data_dir.trigger()
    window.menus.act_docs.trigger()
    assert [Path(u.toLocalFile()) for u in opened] == [window.scheduler.workspace.data_dir,
                                                       Path(__file__).resolve().parents[2] / "docs"]
    assert (Path(opened[1].toLocalFile()) / "operator-guide.md").is_file()
    window.menus.act_about.trigger()
    box = window.findChild(QMessageBox, "aboutBox")
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert f"MediaDesk {__version__}" in box.text() and str(window.scheduler.workspace.data_dir) in box.text()
    box.close()


def test_tools_adapter_check_opens_setup_on_the_web_profile(window: MainWindow, console_env: ConsoleEnv,
                                                            tmp_path: Path) -> None:
    cfg = tmp_path / "web.toml"
    cfg.write_text(console_env.config_path.read_text(encoding="utf-8")
                   + '\n[[profiles]]\nname = "chat"\nkind = "web"\nsite = "sim"\n', encoding="utf-8")
    window.config_path = cfg
    window.menus.act_adapter_check.trigger()
    editor = window.setup_editor
    assert editor is not None and editor.isVisible()
    assert editor.tabs.currentWidget() is editor.pages["profiles"]
    assert editor.pages["profiles"].list.currentItem().text() == "chat"
    editor.close()


def test_the_language_choice_is_kept_for_the_next_start(window: MainWindow) -> None:
    menu = next(a.menu() for a in window.menus.view_menu.actions() if a.menu() is not None)
    assert [a.text() for a in menu.actions()] == ["System default", "English", "简体中文"]
    assert next(a for a in menu.actions() if a.text() == "System default").isChecked()
    next(a for a in menu.actions() if a.text() == "简体中文").trigger()
    assert window.settings.value(LANGUAGE_KEY) == "zh_CN"
    locale = chosen_locale(window.settings)
    assert locale is not None and locale.language() == QLocale.Language.Chinese
    assert "next start" in window.status_line.last_message
    box = window.findChild(QMessageBox)
    if box is not None:
        box.close()
