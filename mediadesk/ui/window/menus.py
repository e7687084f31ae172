"""The menu bar an operator expects: File (… Quit Ctrl+Q), View (each dock, the status bar, the
toolbars, Reset layout, Language), Tools (Setup, Adapter check, Check all accounts) and Help (Documentation, the data
and logs folders, About).

The View menu is filled each time it opens, from the docks the window has then (a workspace switch
or team mode may add or replace some). Quit asks only when work is in progress (Quit / Cancel: the
operator chose to quit, so "Keep running in the tray" is not offered). Folders and documents open in
the system's file manager or viewer (:attr:`WindowMenus.open_url`, replaced by tests).
"""

from __future__ import annotations

import platform
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QByteArray, QObject, QSettings, Qt, QUrl, qVersion
from PySide6.QtGui import QAction, QActionGroup, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QDockWidget, QHeaderView, QMainWindow, QMenu, QMessageBox, QSplitter, QToolBar

from mediadesk import __version__
from mediadesk.config.workspace import resources_dir
from mediadesk.ui.app.log_file import logs_dir
from mediadesk.ui.language import LANGUAGES, chosen_language, set_language
from mediadesk.ui.plain import plain
from mediadesk.ui.screen_fit import fit_to_screen
from mediadesk.ui.window.actions import WindowActions
from mediadesk.ui.window.status_line import Notify, ShowStatus

__all__ = ["DEFAULT_SIZE", "WindowMenus", "docs_dir"]

#: The window's size on a first run and after View > Reset layout (then fitted to the screen).
DEFAULT_SIZE = (1400, 900)


def docs_dir() -> Path:
    """The documentation: packaged beside the resources, else the source tree's ``docs/``."""
    packaged = resources_dir() / "docs"
    return packaged if packaged.is_dir() else resources_dir().parent / "docs"


class WindowMenus(QObject):
    """Builds ``window``'s menu bar; texts keep the ``WindowMenus`` translation context.

    Reset layout puts back the state ``window``, its splitters and the table's ``header`` have now.
    ``data_dir`` is the workspace's data folder (it changes on a workspace switch)."""

    def __init__(self, window: QMainWindow, *, main_splitter: QSplitter, lane_splitter: QSplitter,
                 header: QHeaderView, toolbars: Sequence[QToolBar], actions: WindowActions, setup: QAction,
                 settings: QSettings, quit: Callable[[], None], adapter_check: Callable[[], object],
                 check_all: Callable[[], object], data_dir: Callable[[], Path], notify: Notify,
                 show_status: ShowStatus) -> None:
        super().__init__(window)
        self.w = window
        self._main_splitter = main_splitter
        self._lane_splitter = lane_splitter
        self._header = header
        self._toolbars = tuple(toolbars)
        self._actions = actions
        self._setup = setup
        self._settings = settings
        self._quit = quit
        self._adapter_check = adapter_check
        self._check_all = check_all
        self._data_dir = data_dir
        self._notify = notify
        self._show_status = show_status
        #: Opens a folder or a document (the system's handler); tests replace it.
        self.open_url: Callable[[QUrl], bool] = QDesktopServices.openUrl
        self._default_state = window.saveState()
        self._default_splitters: dict[str, QByteArray] = {
            "main": main_splitter.saveState(), "lanes": lane_splitter.saveState()}
        self._default_header = header.saveState()
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
        self.act_quit = self._action(self.tr("&Quit"), "actQuit", self._quit,
                                     QKeySequence(QKeySequence.StandardKey.Quit),
                                     self.tr("Stop the lanes and close MediaDesk (Ctrl+Q)"))
        if self.act_quit.shortcut().isEmpty():  # some platforms have no standard Quit key
            self.act_quit.setShortcut(QKeySequence("Ctrl+Q"))
        self.act_quit.setMenuRole(QAction.MenuRole.QuitRole)
        menu = self._actions.file_menu([self._setup])
        menu.addSeparator()
        menu.addAction(self.act_quit)
        return menu

    # ------------------------------------------------------------------ View
    def fill_view_menu(self) -> None:
        menu = self.view_menu
        menu.clear()
        docks = sorted(self.w.findChildren(QDockWidget), key=lambda d: d.windowTitle())
        for dock in docks:
            if dock.parent() is self.w:
                menu.addAction(dock.toggleViewAction())
        menu.addSeparator()
        for bar in self._toolbars:
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
        self._main_splitter.restoreState(self._default_splitters["main"])
        self._lane_splitter.restoreState(self._default_splitters["lanes"])
        self._header.restoreState(self._default_header)
        w.resize(*DEFAULT_SIZE)
        fit_to_screen(w)

    def _language_menu(self, parent: QMenu) -> QMenu:
        menu = QMenu(self.tr("Language"), parent)
        menu.setObjectName("languageMenu")
        group = QActionGroup(menu)
        current = chosen_language(self._settings)
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
        if code == chosen_language(self._settings):
            return
        set_language(self._settings, code)
        name = dict(LANGUAGES).get(code, self.tr("the system's language"))
        self._notify(self.tr("Language"), self.tr(
            "MediaDesk will be in {language} from its next start. Close it and start it again to "
            "switch now (the lanes' work is kept).").format(language=name))

    # ------------------------------------------------------------------ Tools
    def _tools_menu(self) -> QMenu:
        menu = self._menu(self.tr("&Tools"), "toolsMenu")
        menu.addAction(self._setup)
        self.act_adapter_check = self._action(
            self.tr("Adapter check…"), "actAdapterCheck", self._adapter_check,
            tip=self.tr("Check that a chat site's adapter still finds the page's parts (in Setup: a web profile)"))
        menu.addAction(self.act_adapter_check)
        self.act_check_all = self._action(
            self.tr("Check all accounts…"), "actCheckAllAccounts", self._check_all,
            tip=self.tr("Check every web account's site adapter on the live site, one after another"))
        menu.addAction(self.act_check_all)
        return menu

    # ------------------------------------------------------------------ Help
    def _help_menu(self) -> QMenu:
        menu = self._menu(self.tr("&Help"), "helpMenu")
        self.act_docs = self._action(self.tr("Documentation"), "actDocs", lambda: self.open_folder(docs_dir()),
                                     QKeySequence(QKeySequence.StandardKey.HelpContents),
                                     self.tr("Open the documentation folder (the operator guide first)"))
        self.act_data_dir = self._action(self.tr("Open the data folder"), "actDataDir",
                                         lambda: self.open_folder(self._data_dir()),
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
            self._show_status(self.tr("{path} does not exist yet").format(path=path))
            return False
        ok = self.open_url(QUrl.fromLocalFile(str(path)))
        if not ok:
            self._show_status(self.tr("No program could open {path}").format(path=path))
        return ok

    def about_text(self) -> str:
        return "\n".join([
            self.tr("MediaDesk {version}").format(version=__version__),
            self.tr("Batch text generation through chat sites and OpenAI-compatible endpoints."),
            "",
            self.tr("Data folder: {path}").format(path=self._data_dir()),
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
