"""The main window's actions: texts, shortcuts, icons and tips, the main toolbar, and how the
pause actions show their state. The window connects them to what they do."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QToolBar, QToolButton, QWidget

from mediadesk.ui.style import icon

__all__ = ["WindowActions"]

_Shortcut = QKeySequence | QKeySequence.StandardKey | str


class WindowActions(QObject):
    """Creates the actions on ``window`` (so their shortcuts work anywhere in it); ``cancel`` and
    ``copy_rows`` belong to ``table``: Del and Ctrl+C must still work in the search box."""

    def __init__(self, window: QMainWindow, table: QWidget) -> None:
        super().__init__(window)
        self._window = window
        self.submit = self._action(self.tr("Submit batch…"), "actSubmit", QKeySequence.StandardKey.Open, "submit",
                                   self.tr("Stage a batch from a JSONL/CSV file or pasted prompts "
                                           "(Ctrl+O; or drop a file on the window)"))
        self.pause_web = self._action(self.tr("Pause web"), "actPauseWeb", None, "pause",
                                      self.tr("Stop dispatching new web tasks (running ones finish)"))
        self.pause_web.setCheckable(True)
        self.pause_api = self._action(self.tr("Pause API"), "actPauseApi", None, "pause",
                                      self.tr("Stop dispatching new API tasks (running ones finish)"))
        self.pause_api.setCheckable(True)
        self.cancel = self._action(self.tr("Cancel selected"), "actCancel", QKeySequence.StandardKey.Delete,
                                   "cancel", self.tr("Cancel the selected tasks (Del): pending ones at once, "
                                                     "running ones at their next checkpoint"))
        self.cancel.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        window.removeAction(self.cancel)
        table.addAction(self.cancel)
        self.retry = self._action(self.tr("Retry selected"), "actRetry", "Ctrl+R", "retry",
                                  self.tr("Queue the selected failed or canceled tasks again (Ctrl+R)"))
        self.export = self._action(self.tr("Export results…"), "actExport", "Ctrl+E", "export",
                                   self.tr("Write all tasks with their results as JSONL, CSV, XLSX or a "
                                           "Markdown table (Ctrl+E); the arrow: only the filtered or "
                                           "selected rows"))
        self.export_all = self._action(self.tr("Export all tasks…"), "actExportAll", None, None,
                                       self.tr("Every task in the workspace"))
        self.export_filtered = self._action(self.tr("Export filtered rows…"), "actExportFiltered", None, None,
                                            self.tr("The rows the filters show, in table order"))
        self.export_selected = self._action(self.tr("Export selected rows…"), "actExportSelected", None, None,
                                            self.tr("The selected rows, in table order"))
        self.export_into = self._action(self.tr("Export into the original spreadsheet…"), "actExportInto", None,
                                        None, self.tr("A copy of a batch's .xlsx or .csv file with each row's "
                                                      "answers, states and costs in new columns at the right"))
        self.export_menu = QMenu(window)
        self.export_menu.setObjectName("exportMenu")
        for act in (self.export_all, self.export_filtered, self.export_selected):
            self.export_menu.addAction(act)
        self.export_menu.addSeparator()
        self.export_menu.addAction(self.export_into)
        self.export.setMenu(self.export_menu)
        self.copy_rows = self._action(self.tr("Copy rows"), "actCopyRows", QKeySequence.StandardKey.Copy, None,
                                      self.tr("Copy the selected rows as tab-separated text (Ctrl+C)"))
        self.copy_rows.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        window.removeAction(self.copy_rows)
        table.addAction(self.copy_rows)
        self.find = self._action(self.tr("Search"), "actFind", QKeySequence.StandardKey.Find)
        self.demo = self._action(self.tr("Load demo batch"), "actDemo", None, "submit",
                                 self.tr("Open the bundled demo batch in the staging dialog"))
        self.demo.setVisible(False)
        # Ctrl+O is Submit batch (the operator guide and the Batches tab say so): Open config takes Ctrl+Shift+O
        self.open_config = self._action(self.tr("Open config…"), "actOpenConfig", "Ctrl+Shift+O", None,
                                        self.tr("Switch this console to another config and its workspace "
                                                "(Ctrl+Shift+O)"))
        self.recent_menu = QMenu(self.tr("Recent configs"), window)
        self.recent_menu.setObjectName("recentConfigsMenu")

    def _action(self, text: str, name: str, shortcut: _Shortcut | None = None, icon_name: str | None = None,
                tip: str | None = None) -> QAction:
        act = QAction(text, self._window)
        act.setObjectName(name)
        if icon_name:
            act.setIcon(icon(icon_name))
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
        if tip:
            act.setToolTip(tip)
            act.setStatusTip(tip)
        self._window.addAction(act)
        return act

    def main_toolbar(self) -> QToolBar:
        tb = QToolBar(self.tr("Main"))
        tb.setObjectName("mainToolbar")
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for act in (self.submit, self.demo):
            tb.addAction(act)
        tb.addSeparator()
        tb.addAction(self.pause_web)
        tb.addAction(self.pause_api)
        tb.addSeparator()
        for act in (self.cancel, self.retry, self.export):
            tb.addAction(act)
        button = tb.widgetForAction(self.export)
        if isinstance(button, QToolButton):  # a click exports all; the arrow offers filtered / selected
            button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        return tb

    def file_menu(self, more: Sequence[QAction] = ()) -> QMenu:
        """File: Open config…, Recent configs, then Submit batch… and ``more``."""
        menu = QMenu(self.tr("&File"), self._window)
        menu.setObjectName("fileMenu")
        menu.addAction(self.open_config)
        menu.addMenu(self.recent_menu)
        menu.addSeparator()
        menu.addAction(self.submit)
        for act in more:
            menu.addAction(act)
        return menu

    def pause_action(self, kind: str) -> QAction:
        return self.pause_web if kind == "web" else self.pause_api

    def show_paused(self, kind: str, paused: bool) -> None:
        """Check (without triggering) and label the pause action of ``kind``: "Resume …" while paused."""
        act = self.pause_action(kind)
        if act.isChecked() != paused:
            act.blockSignals(True)
            act.setChecked(paused)
            act.blockSignals(False)
        if kind == "web":
            act.setText(self.tr("Resume web") if paused else self.tr("Pause web"))
        else:
            act.setText(self.tr("Resume API") if paused else self.tr("Pause API"))
        act.setIcon(icon("start" if paused else "pause"))
