"""The menu bar an operator expects: File (… Quit Ctrl+Q), View (each dock, the status bar, the
toolbars, Reset layout, Language), Tools (Setup, Adapter check) and Help (Documentation, the data
and logs folders, About).

The View menu is filled each time it opens, from the docks the window has then (a workspace switch
or team mode may add or replace some). Quit asks only when work is in progress (Quit / Cancel: the
operator chose to quit, so "Keep running in the tray" is not offered). Folders and documents open in
the system's file manager or viewer (:attr:`WindowMenus.open_url`, replaced by tests).
"""

from __future__ import annotations

import platform
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QByteArray, QObject, Qt, QUrl, qVersion
from PySide6.QtGui import QAction, QActionGroup, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMenu, QMessageBox

from mediadesk import __version__
from mediadesk.config.workspace import resources_dir
from mediadesk.ui.app.log_file import logs_dir
from mediadesk.ui.dialogs.close_question import CloseGuard
from mediadesk.ui.language import LANGUAGES, chosen_language, set_language
from mediadesk.ui.plain import plain
from mediadesk.ui.screen_fit import fit_to_screen

if TYPE_CHECKING:
    from mediadesk.ui.window.main_window import MainWindow

__all__ = ["DEFAULT_SIZE", "WindowMenus", "docs_dir"]

#: The window's size on a first run and after View > Reset layout (then fitted to the screen).
DEFAULT_SIZE = (1400, 900)


def docs_dir() -> Path:
    """The documentation: packaged beside the resources, else the source tree's ``docs/``."""
    packaged = resources_dir() / "docs"
    return packaged if packaged.is_dir() else resources_dir().parent / "docs"


class WindowMenus(QObject):
    """Builds ``window``'s menu bar; texts keep the ``WindowMenus`` translation context."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.w = window
        #: Opens a folder or a document (the system's handler); tests replace it.
        self.open_url: Callable[[QUrl], bool] = QDesktopServices.openUrl
        self._default_state = window.saveState()
        self._default_splitters: dict[str, QByteArray] = {
            "main": window.main_splitter.saveState(), "lanes": window.lane_splitter.saveState()}
        self._default_header = window.table.horizontalHeader().saveState()
        bar = window.menuBar()
        self.file_menu = bar.addMenu(self._file_menu())
        self.view_menu = self._menu(self.tr("&View"), "viewMenu")
        self.view_menu.aboutToShow.connect(self.fill_view_menu)
        bar.addMenu(self.view_menu)
        bar.addMenu(self._tools_menu())
        bar.addMenu(self._help_menu())
        self.fill_view_menu()

    def _menu(self, title: str, name: str) -> QMenu:
        menu = QMenu(title, self.w)
        menu.setObjectName(name)
        return menu

    def _action(self, text: str, name: str, slot: Callable[[], object], shortcut: QKeySequence | None = None,
                tip: str | None = None) -> QAction:
        act = QAction(text, self.w)
        act.setObjectName(name)
        if shortcut is not None:
            act.setShortcut(shortcut)
        if tip:
            act.setStatusTip(tip)
        act.triggered.connect(lambda _checked=False: slot())
        self.w.addAction(act)  # its shortcut works wherever the focus is in the window
        return act

    # ------------------------------------------------------------------ File
    def _file_menu(self) -> QMenu:
        self.act_quit = self._action(self.tr("&Quit"), "actQuit", self.quit,
                                     QKeySequence(QKeySequence.StandardKey.Quit),
                                     self.tr("Stop the lanes and close MediaDesk (Ctrl+Q)"))
        if self.act_quit.shortcut().isEmpty():  # some platforms have no standard Quit key
            self.act_quit.setShortcut(QKeySequence("Ctrl+Q"))
        self.act_quit.setMenuRole(QAction.MenuRole.QuitRole)
        menu = self.w.window_actions.file_menu([self.w.act_setup])
        menu.addSeparator()
        menu.addAction(self.act_quit)
        return menu

    def quit(self) -> None:
        """File > Quit: asks first only when work is in progress."""
        w = self.w
        guard = w.close_guard
        if isinstance(guard, CloseGuard) and not guard.confirm_quit():
            return
        if w.isVisible():
            w.close()
        else:  # hidden in the tray: a hidden window gets no close event, do what closing does
            w.save_settings()
            w.closed.emit()

    # ------------------------------------------------------------------ View
    def fill_view_menu(self) -> None:
        menu = self.view_menu
        menu.clear()
        docks = sorted(self.w.findChildren(QDockWidget), key=lambda d: d.windowTitle())
        for dock in docks:
            if dock.parent() is self.w:
                menu.addAction(dock.toggleViewAction())
        menu.addSeparator()
        for bar in (self.w.main_toolbar, self.w.filter_bar):
            menu.addAction(bar.toggleViewAction())
        status = QAction(self.tr("Status bar"), menu)
        status.setObjectName("actStatusBar")
        status.setCheckable(True)
        status.setChecked(not self.w.statusBar().isHidden())
        status.toggled.connect(self.w.statusBar().setVisible)
        menu.addAction(status)
        menu.addSeparator()
        reset = QAction(self.tr("Reset layout"), menu)
        reset.setObjectName("actResetLayout")
        reset.setStatusTip(self.tr("Put the docks, panes, columns and window size back as on a first start"))
        reset.triggered.connect(lambda _checked=False: self.reset_layout())
        menu.addAction(reset)
        menu.addSeparator()
        menu.addMenu(self._language_menu(menu))

    def reset_layout(self) -> None:
        """Docks, toolbars, panes, columns and the window's size as on a first start (fitted to the screen)."""
        w = self.w
        w.showNormal()
        w.statusBar().show()
        w.restoreState(self._default_state)
        w.main_splitter.restoreState(self._default_splitters["main"])
        w.lane_splitter.restoreState(self._default_splitters["lanes"])
        w.table.horizontalHeader().restoreState(self._default_header)
        w.resize(*DEFAULT_SIZE)
        fit_to_screen(w)

    def _language_menu(self, parent: QMenu) -> QMenu:
        menu = QMenu(self.tr("Language"), parent)
        menu.setObjectName("languageMenu")
        group = QActionGroup(menu)
        current = chosen_language(self.w.settings)
        for code, name in (("", self.tr("System default")), *LANGUAGES):
            act = QAction(name, menu)
            act.setObjectName(f"actLanguage_{code or 'system'}")
            act.setCheckable(True)
            act.setChecked(code == current)
            act.triggered.connect(lambda _checked=False, c=code: self.choose_language(c))
            group.addAction(act)
            menu.addAction(act)
        return menu

    def choose_language(self, code: str) -> None:
        """Keep the choice; it applies at the next start (the console's texts are made once)."""
        if code == chosen_language(self.w.settings):
            return
        set_language(self.w.settings, code)
        name = dict(LANGUAGES).get(code, self.tr("the system's language"))
        self.w.notify(self.tr("Language"), self.tr(
            "MediaDesk will be in {language} from its next start. Close it and start it again to "
            "switch now (the lanes' work is kept).").format(language=name))

    # ------------------------------------------------------------------ Tools
    def _tools_menu(self) -> QMenu:
        menu = self._menu(self.tr("&Tools"), "toolsMenu")
        menu.addAction(self.w.act_setup)
        self.act_adapter_check = self._action(
            self.tr("Adapter check…"), "actAdapterCheck", lambda: self.w.open_adapter_check(),
            tip=self.tr("Check that a chat site's adapter still finds the page's parts (in Setup: a web profile)"))
        menu.addAction(self.act_adapter_check)
        return menu

    # ------------------------------------------------------------------ Help
    def _help_menu(self) -> QMenu:
        menu = self._menu(self.tr("&Help"), "helpMenu")
        self.act_docs = self._action(self.tr("Documentation"), "actDocs", lambda: self.open_folder(docs_dir()),
                                     QKeySequence(QKeySequence.StandardKey.HelpContents),
                                     self.tr("Open the documentation folder (the operator guide first)"))
        self.act_data_dir = self._action(self.tr("Open the data folder"), "actDataDir",
                                         lambda: self.open_folder(self.w.scheduler.workspace.data_dir),
                                         tip=self.tr("The workspace: database, browser profiles, evidence"))
        self.act_logs_dir = self._action(self.tr("Open the logs folder"), "actLogsDir",
                                         lambda: self.open_folder(logs_dir()),
                                         tip=self.tr("The console's log (warnings and errors)"))
        self.act_about = self._action(self.tr("About MediaDesk"), "actAbout", self.about)
        self.act_about.setMenuRole(QAction.MenuRole.AboutRole)
        for act in (self.act_docs, self.act_data_dir, self.act_logs_dir):
            menu.addAction(act)
        menu.addSeparator()
        menu.addAction(self.act_about)
        return menu

    def open_folder(self, path: Path) -> bool:
        """Open ``path`` in the system's file manager; a missing folder is said, not opened."""
        if not path.exists():
            self.w.show_status(self.tr("{path} does not exist yet").format(path=path))
            return False
        ok = self.open_url(QUrl.fromLocalFile(str(path)))
        if not ok:
            self.w.show_status(self.tr("No program could open {path}").format(path=path))
        return ok

    def about_text(self) -> str:
        return "\n".join([
            self.tr("MediaDesk {version}").format(version=__version__),
            self.tr("Batch text generation through chat sites and OpenAI-compatible endpoints."),
            "",
            self.tr("Data folder: {path}").format(path=self.w.scheduler.workspace.data_dir),
            self.tr("Logs: {path}").format(path=logs_dir()),
            f"Qt {qVersion()} · PySide6 {pyside_version} · Python {platform.python_version()} · {sys.platform}",
        ])

    def about(self) -> QMessageBox:
        box = plain(QMessageBox(QMessageBox.Icon.Information, self.tr("About MediaDesk"), self.about_text(),
                                QMessageBox.StandardButton.Ok, self.w))
        box.setObjectName("aboutBox")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.open()  # not exec(): the lanes keep running behind it
        return box
