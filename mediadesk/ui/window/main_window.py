"""The operator console's main window: two lane panels, the task table, the detail pane, docks.

It owns no scheduling logic: every action is one call on the :class:`Scheduler` (submit, cancel,
retry, pause), and everything shown comes from the bridge's signals through the task model and
the panels. The only database reads are in worker threads (initial load, new rows, the selected
task's detail, exports).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QHeaderView,
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QWidget,
)

from mediadesk.config.model import ConfigError
from mediadesk.files.safe import UnsafePathError
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.store.errors import StorageError
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.app.single_instance import bring_to_front
from mediadesk.ui.dialogs.account_check import AccountCheckDialog
from mediadesk.ui.dialogs.adapter_drop import ADAPTER_SUFFIXES, open_adapter_file
from mediadesk.ui.dialogs.close_question import CloseGuard
from mediadesk.ui.dialogs.config_text import config_error_text
from mediadesk.ui.dialogs.setup_editor import SetupEditor
from mediadesk.ui.jobs.workers import TaskFeed, TaskJobs
from mediadesk.ui.models.task_model import Col, TaskFilterProxy, TaskTableModel
from mediadesk.ui.panels.accounts_panel import AccountsPanel
from mediadesk.ui.panels.batches_view import BatchesView
from mediadesk.ui.panels.charts import ChartsView
from mediadesk.ui.panels.comparison_view import ComparisonView
from mediadesk.ui.panels.desktops_view import DesktopsView
from mediadesk.ui.panels.detail_pane import DetailPane
from mediadesk.ui.panels.exceptions_view import ExceptionsView
from mediadesk.ui.panels.lane_panel import LanePanel
from mediadesk.ui.panels.log_dock import LogDock
from mediadesk.ui.panels.notices_view import NoticesView
from mediadesk.ui.panels.profiles_editor import ProfilesEditor
from mediadesk.ui.window.actions import WindowActions
from mediadesk.ui.window.attention import build_notices, show_attention
from mediadesk.ui.window.filter_bar import FilterBar
from mediadesk.ui.window.grouped_view import GroupedTable
from mediadesk.ui.window.menus import WindowMenus
from mediadesk.ui.window.panes import add_dock, build_table, exceptions_title, lane_panels, lane_splitter, rescroll
from mediadesk.ui.window.small_screen import SmallScreenLayout, scrolling
from mediadesk.ui.window.status_line import StatusLine
from mediadesk.ui.window.submission import BatchSubmission
from mediadesk.ui.window.table_menu import TableMenu
from mediadesk.ui.window.task_actions import TaskActions
from mediadesk.ui.window.window_state import (
    restore_table_filters,
    restore_window_state,
    save_table_filters,
    save_window_state,
    saved_state,
)

__all__ = ["BATCH_SUFFIXES", "MainWindow"]

BATCH_SUFFIXES = (".jsonl", ".ndjson", ".json", ".csv", ".tsv")


class MainWindow(QMainWindow):
    """The console. ``await window.start()`` once the qasync loop runs (it loads the table).

    The window owns the widgets and lays them out; what they do is in parts it builds and hands
    what they need: :attr:`task_actions` (the table's actions), :attr:`submission` (batches),
    :attr:`status_line` (the status bar and message boxes), :attr:`table_menu`, :attr:`grouped`
    (the tree by batch) and :attr:`menus`. It is long because it also makes anew, on a workspace
    switch (:meth:`rebind_workspace`), every widget bound to a scheduler.
    """

    web_panel: LanePanel
    api_panel: LanePanel
    log_dock: LogDock
    accounts_panel: AccountsPanel
    accounts_dock: QDockWidget
    profiles_editor: ProfilesEditor
    profiles_dock: QDockWidget
    exceptions_view: ExceptionsView
    exceptions_dock: QDockWidget
    charts_view: ChartsView
    charts_dock: QDockWidget
    batches_view: BatchesView
    batches_dock: QDockWidget
    comparison_view: ComparisonView
    comparison_dock: QDockWidget
    desktops_view: DesktopsView | None
    desktops_dock: QDockWidget | None
    notices_view: NoticesView
    notices_dock: QDockWidget
    attention_button: QToolButton
    #: Notices that need the operator (unseen): shown in the title, the status bar and the tray.
    attention_count: int = 0

    #: The window was closed by the operator (the app then stops the scheduler and quits).
    closed = Signal()
    #: Setup's "Restart lanes": the workspace switcher restarts them from the saved config.
    restartLanesRequested = Signal()

    def __init__(
        self,
        scheduler: Scheduler,
        bridge: SchedulerBridge,
        *,
        settings: QSettings | None = None,
        demo_batch: Path | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.scheduler = scheduler
        self.bridge = bridge
        self.settings = settings if settings is not None else QSettings()
        self.location = scheduler.workspace.location
        #: The config file this console runs (Setup… edits it); None: <data dir>/config.toml.
        self.config_path: Path | None = None
        self.setup_editor: SetupEditor | None = None
        #: "Check all accounts…" (one at a time).
        self.account_check: AccountCheckDialog | None = None
        #: Whether Setup may offer "Restart lanes" (set by whoever answers restartLanesRequested).
        self.can_restart_lanes = False
        self._jobs = TaskJobs()
        self.setObjectName("mainWindow")
        self.setWindowTitle(self.tr("MediaDesk — {dir}").format(dir=scheduler.workspace.data_dir))
        self.setAcceptDrops(True)
        self.resize(1400, 900)

        self.model = TaskTableModel(heartbeat_interval_s=scheduler.config.heartbeat.interval_s, parent=self)
        self.model.rows.own_owner = scheduler.owner
        self.proxy = TaskFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.feed = self._new_feed()

        self.web_panel, self.api_panel = lane_panels(scheduler, self.model, self)
        self.lane_splitter = lane_splitter(self.web_panel, self.api_panel)
        self.table = build_table(self.proxy)
        self.detail = DetailPane(self.location, bridge, self)
        self.main_splitter = QSplitter(Qt.Orientation.Vertical)
        self.main_splitter.setObjectName("mainSplitter")
        self.main_splitter.addWidget(self.lane_splitter)
        self.table_stack = QStackedWidget()  # the flat table, or the tree grouped by batch
        self.table_stack.setObjectName("taskViews")
        self.table_stack.addWidget(self.table)
        self.main_splitter.addWidget(self.table_stack)
        self.main_splitter.addWidget(scrolling(self.detail))  # squeezed on a small screen: it scrolls
        self.main_splitter.setStretchFactor(0, 0)
        self.main_splitter.setStretchFactor(1, 3)
        self.main_splitter.setStretchFactor(2, 1)
        self.main_splitter.setSizes([190, 460, 200])
        self.setCentralWidget(self.main_splitter)
        self._build_docks()
        self._build_chart_docks()
        # what needs the operator, kept until seen (fed by ui/window/attention.py)
        self.notices_view, self.notices_dock, self.attention_button = build_notices(self, self.log_dock)
        self._build_actions()
        self._build_toolbar()
        self.status_line = StatusLine(self.statusBar(), self, scheduler, self.model, self.proxy,
                                      (self.web_panel, self.api_panel))
        show_status, notify = self.status_line.show_status, self.status_line.notify
        self.table_menu = TableMenu(self, self.location, scheduler.workspace.evidence_dir,
                                    selected=lambda: self.task_actions.selected_task_ids(), show_status=show_status)
        self.grouped = GroupedTable(self.table_stack, self.table, self.proxy, self.model, self.location,
                                    actions=self.window_actions, filter_bar=self.filter_bar,
                                    table_menu=self.table_menu, settings=self.settings, show_status=show_status,
                                    parent=self)
        self.grouped.taskChosen.connect(lambda task_id: self.detail.show_task(task_id))
        self.task_actions = TaskActions(scheduler, self.model, self.proxy, self.table, self.grouped,
                                        self.window_actions, self._jobs, show_status=show_status, notify=notify,
                                        parent=self)
        self.submission = BatchSubmission(scheduler, self, self.window_actions.demo, self._jobs,
                                          show_status=show_status, notify=notify)
        self._connect()
        self._wire_actions()
        #: Asked before the window closes: () -> close now? (the app installs the close question)
        self.close_guard: Callable[[], bool] | None = None
        self.small_screen = SmallScreenLayout(self, (self.web_panel, self.api_panel), self.lane_splitter,
                                              self.main_splitter, self.table, self.main_toolbar, self.filter_bar)
        self.filter_bar.changed.connect(lambda: self.small_screen.fit())  # the scope button takes room
        # File, View, Tools, Help (the defaults Reset layout goes back to)
        self.menus = WindowMenus(
            self, main_splitter=self.main_splitter, lane_splitter=self.lane_splitter,
            header=self.table.horizontalHeader(), toolbars=(self.main_toolbar, self.filter_bar),
            actions=self.window_actions, setup=self.act_setup, settings=self.settings, quit=self.quit,
            adapter_check=self.open_adapter_check, check_all=self.open_check_all,
            data_dir=lambda: self.scheduler.workspace.data_dir,
            notify=notify, show_status=show_status)
        if demo_batch is not None:
            self.submission.set_demo_batch(demo_batch)
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self._on_tick)
        self._tick.start()
        self.restore_settings()
        self._show_desktop_column()

    def _new_feed(self) -> TaskFeed:
        feed = TaskFeed(self.location, self.model, self.bridge, self)
        feed.loaded.connect(lambda st: self.status_line.update_status())
        feed.loaded.connect(lambda st: self.apply_sort())  # a remembered sort, once the rows are in
        return feed

    def _show_desktop_column(self) -> None:
        """The Desktop column (whose desktop ran each task) is shown in team mode, hidden on SQLite
        (one desktop; the column menu can show it)."""
        self.table.setColumnHidden(Col.DESKTOP, self.scheduler.team is None)

    def _build_docks(self) -> None:
        self.log_dock = LogDock(self)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.log_dock)
        self.accounts_panel = AccountsPanel(self.scheduler, self.bridge, self, login=self.login_account,
                                            check_all=self.open_check_all)
        self.accounts_dock = add_dock(
            self, QCoreApplication.translate("MainWindow", "Accounts"), "accountsDock", self.accounts_panel)
        self.profiles_editor = ProfilesEditor(self.scheduler, self.bridge, self)
        self.profiles_dock = add_dock(
            self, QCoreApplication.translate("MainWindow", "Profiles"), "profilesDock", self.profiles_editor)
        self.tabifyDockWidget(self.log_dock, self.accounts_dock)
        self.exceptions_view = ExceptionsView(self.scheduler, self.bridge, self)
        self.exceptions_dock = add_dock(self, exceptions_title(self.exceptions_view.count), "exceptionsDock",
                                        self.exceptions_view)
        self._follow_exceptions_count()
        self.tabifyDockWidget(self.accounts_dock, self.profiles_dock)
        self.tabifyDockWidget(self.profiles_dock, self.exceptions_dock)
        self.log_dock.raise_()
        self.resizeDocks([self.log_dock], [150], Qt.Orientation.Vertical)

    def _follow_exceptions_count(self) -> None:
        self.exceptions_view.countChanged.connect(lambda n: self.exceptions_dock.setWindowTitle(exceptions_title(n)))

    def _build_chart_docks(self) -> None:
        """Charts (throughput and run times per lane, from the store) and Batches, as two more
        tabs of the bottom dock area."""
        lanes = self.scheduler.lanes
        self.charts_view = ChartsView(self.location, [lane.name for lane in lanes], self)
        self.charts_dock = add_dock(
            self, QCoreApplication.translate("MainWindow", "Charts"), "chartsDock", self.charts_view)
        self.batches_view = BatchesView(self.location, lanes, self.bridge, self)
        self.batches_dock = add_dock(
            self, QCoreApplication.translate("MainWindow", "Batches"), "batchesDock", self.batches_view)
        self.tabifyDockWidget(self.exceptions_dock, self.batches_dock)
        self.comparison_view = ComparisonView(self.location, self._keep_answer, self)
        self.comparison_dock = add_dock(
            self, QCoreApplication.translate("MainWindow", "Compare"), "comparisonDock", self.comparison_view)
        self.tabifyDockWidget(self.batches_dock, self.comparison_dock)
        self.tabifyDockWidget(self.comparison_dock, self.charts_dock)
        self.comparison_dock.visibilityChanged.connect(lambda on: on and self.comparison_view.refresh(force=True))
        self._follow_batch_selection()
        # a dock tab brought to the front is not "shown" again (tabs are moved off-screen): read now
        self.charts_dock.visibilityChanged.connect(lambda on: on and self.charts_view.refresh(force=True))
        self.batches_dock.visibilityChanged.connect(lambda on: on and self.batches_view.refresh(force=True))
        self.desktops_view = None
        self.desktops_dock = None
        self._bind_desktops()
        self.log_dock.raise_()

    def _follow_batch_selection(self) -> None:
        """The Compare tab shows the batch selected in the Batches tab."""
        view = self.batches_view

        def selected() -> None:
            rows = view.table.selectionModel().selectedRows()
            if rows and rows[0].row() < len(view.rows):
                self.comparison_view.show_batch(view.rows[rows[0].row()].batch)

        view.table.itemSelectionChanged.connect(selected)

    def _keep_answer(self, task_id: str, kept: bool) -> int:
        """The Compare tab's Keep: through the scheduler, as the table's cancel and retry."""
        try:
            n = self.scheduler.keep(task_id, kept)
        except StorageError:  # halted; the StorageFailed event shows the box and status
            return 0
        self.status_line.show_status(QCoreApplication.translate("MainWindow", "Answer kept") if kept
                                     else QCoreApplication.translate("MainWindow", "Keep mark taken off"))
        return n

    def _bind_desktops(self) -> None:
        """Team mode (a PostgreSQL queue shared by several desktops): the Desktops tab, next to
        Charts; on SQLite there is none (one desktop)."""
        s = self.scheduler
        if s.team is None:
            if self.desktops_dock is not None:  # a switch from a team workspace
                was = rescroll(self.desktops_dock.widget(), QWidget())
                if was is not None:
                    was.deleteLater()
                self.desktops_dock.hide()
                self.desktops_dock.toggleViewAction().setVisible(False)
            self.desktops_view = None
            return
        view = DesktopsView(s.desktops, s.owner, self)
        self.desktops_view = view
        if self.desktops_dock is None:
            self.desktops_dock = add_dock(
                self, QCoreApplication.translate("MainWindow", "Desktops"), "desktopsDock", view)
            self.tabifyDockWidget(self.charts_dock, self.desktops_dock)
            self.desktops_dock.visibilityChanged.connect(self._desktops_shown)
        else:
            was = rescroll(self.desktops_dock.widget(), view)
            if was is not None:
                was.deleteLater()
            self.desktops_dock.toggleViewAction().setVisible(True)
            self.desktops_dock.show()

    def _desktops_shown(self, on: bool) -> None:
        if on and self.desktops_view is not None:  # a tab brought to the front: read now
            self.desktops_view.refresh()

    def _build_actions(self) -> None:
        self.window_actions = a = WindowActions(self, self.table)
        self.act_submit, self.act_pause_web, self.act_pause_api = a.submit, a.pause_web, a.pause_api
        self.act_cancel, self.act_retry, self.act_export, self.act_demo = a.cancel, a.retry, a.export, a.demo
        self.act_setup = QAction(self.tr("Setup…"), self)
        self.act_setup.setObjectName("actSetup")
        self.act_setup.setToolTip(self.tr("Edit endpoints, profiles and accounts in the config file"))
        self.act_setup.triggered.connect(lambda: self.open_setup_editor())

    def _wire_actions(self) -> None:
        """The actions to the parts that do them."""
        a, ta, sub = self.window_actions, self.task_actions, self.submission
        a.submit.triggered.connect(lambda: sub.open_batch_dialog())
        a.pause_web.toggled.connect(lambda on: ta.set_paused("web", on))
        a.pause_api.toggled.connect(lambda on: ta.set_paused("api", on))
        a.cancel.triggered.connect(ta.cancel_selected)
        a.retry.triggered.connect(ta.retry_selected)
        a.export.triggered.connect(lambda: ta.export_dialog("all"))
        a.export_all.triggered.connect(lambda: ta.export_dialog("all"))
        a.export_filtered.triggered.connect(lambda: ta.export_dialog("filtered"))
        a.export_selected.triggered.connect(lambda: ta.export_dialog("selected"))
        a.find.triggered.connect(self.filter_bar.focus_search)
        a.demo.triggered.connect(sub.open_demo_batch)

    def _build_toolbar(self) -> None:
        self.main_toolbar = self.window_actions.main_toolbar()
        self.main_toolbar.addAction(self.act_setup)
        self.addToolBar(self.main_toolbar)
        self.filter_bar = FilterBar(self.scheduler.profile_names(), self)
        self.filter_bar.changed.connect(self._on_filters_changed)
        self.addToolBar(self.filter_bar)

    def _connect(self) -> None:
        self._connect_bridge()
        sel = self.table.selectionModel()
        sel.currentRowChanged.connect(lambda cur, _prev: self._show_current(cur.row()))

    def _connect_bridge(self) -> None:
        b = self.bridge
        for panel in (self.web_panel, self.api_panel):
            b.laneStats.connect(panel.on_lane_stats)
            b.accountChanged.connect(panel.on_account_changed)
            b.profileChanged.connect(panel.on_profile_changed)
        b.taskLog.connect(self.log_dock.on_log)
        b.notice.connect(self.log_dock.on_notice)
        b.storageFailed.connect(self.status_line.on_storage_failed)
        b.laneStats.connect(self.task_actions.sync_pause_actions)

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Load the table (in a worker thread). Call once the qasync loop runs."""
        await self.feed.load()
        if self.scheduler.team is not None:  # the other desktops' work shows up too
            self.feed.follow_others()
        self.status_line.update_status()

    async def aclose(self) -> None:
        """Stop background work (the app stops the scheduler after this)."""
        self._tick.stop()
        if self.account_check is not None:
            self.account_check.close()  # its checks stop; the account being checked takes tasks again
        self.detail.close_jobs()
        self.table_menu.close_jobs()
        self.grouped.close_jobs()
        self.exceptions_view.close_jobs()
        self.charts_view.close_jobs()
        self.batches_view.close_jobs()
        self.comparison_view.close_jobs()
        self.profiles_editor.close_jobs()
        if self.desktops_view is not None:
            self.desktops_view.close_jobs()
        self._jobs.cancel_all()
        await self.feed.aclose()
        await self._jobs.wait_all()
        # a cancelled job's thread runs on to its end: wait for it while the loop still lives
        views = (self.detail, self.table_menu, self.grouped, self.exceptions_view, self.charts_view,
                 self.batches_view, self.comparison_view, self.profiles_editor)
        await asyncio.gather(*(v.drain_jobs() for v in views), self._jobs.drain())

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.close_guard is not None and not self.close_guard():
            event.ignore()  # Cancel, or kept running in the tray
            return
        self.save_settings()
        self.submission.close_dialog()
        event.accept()
        self.closed.emit()

    def quit(self) -> None:
        """File > Quit: asks first only when work is in progress (not "Keep running in the tray":
        the operator chose to quit)."""
        guard = self.close_guard
        if isinstance(guard, CloseGuard) and not guard.confirm_quit():
            return
        self.close_or_finish()

    def close_or_finish(self) -> None:
        """Close; a window hidden in the tray gets no close event, so do what closing does."""
        if self.isVisible():
            self.close()
        else:
            self.save_settings()
            self.closed.emit()

    def bring_to_front(self) -> None:
        bring_to_front(self)

    # ------------------------------------------------------------------ title and notices
    def show_workspace_title(self) -> None:
        """The title names the config file (when known) and the data folder."""
        data_dir = self.scheduler.workspace.data_dir
        if self.config_path is None:
            title = self.tr("MediaDesk — {dir}").format(dir=data_dir)
        else:
            title = self.tr("MediaDesk — {config} ({dir})").format(config=self.config_path.name, dir=data_dir)
        self.setWindowTitle(f"({self.attention_count}) {title}" if self.attention_count else title)

    def show_attention(self, count: int) -> None:
        """The notices that need the operator: in the title, the status bar and the dock's tab."""
        self.attention_count = count
        self.show_workspace_title()
        show_attention(self.notices_dock, self.attention_button, count)

    # ------------------------------------------------------------------ workspace switch
    def rebind_workspace(self, scheduler: Scheduler, bridge: SchedulerBridge, *,
                         demo_batch: Path | None = None) -> None:
        """Show another workspace in this window (File > Open config…). Call after :meth:`aclose`
        and before :meth:`start`. What is bound to a scheduler is made anew (model, feed, lane
        panels, detail pane, the dock tabs); the layout, toolbars, actions and log stay. The
        filters are cleared (the profiles differ)."""
        self.submission.close_dialog()
        if self.setup_editor is not None:
            self.setup_editor.close()
        if self.account_check is not None:
            self.account_check.close()
        self.scheduler, self.bridge = scheduler, bridge
        self.location = scheduler.workspace.location
        old: list[QWidget | QObject | None] = [self.model, self.feed, self.web_panel, self.api_panel]
        self.model = TaskTableModel(heartbeat_interval_s=scheduler.config.heartbeat.interval_s, parent=self)
        self.model.rows.own_owner = scheduler.owner
        self.proxy.setSourceModel(self.model)
        self.grouped.rebind(self.model, self.location)
        self.feed = self._new_feed()
        self.web_panel, self.api_panel = lane_panels(scheduler, self.model, self)
        self.lane_splitter.replaceWidget(0, self.web_panel)
        self.lane_splitter.replaceWidget(1, self.api_panel)
        self.small_screen.panels = [self.web_panel, self.api_panel]
        for panel in self.small_screen.panels:
            panel.set_compact(self.small_screen.compact)
        self.status_line.rebind(scheduler, self.model, (self.web_panel, self.api_panel))
        self.task_actions.rebind(scheduler, self.model)
        self.submission.rebind(scheduler)
        detail_state = self.detail.splitter.saveState()
        self.detail = DetailPane(self.location, bridge, self)
        self.detail.splitter.restoreState(detail_state)
        old.append(rescroll(self.main_splitter.widget(2), self.detail))
        self.accounts_panel = AccountsPanel(scheduler, bridge, self, login=self.login_account,
                                            check_all=self.open_check_all)
        self.profiles_editor = ProfilesEditor(scheduler, bridge, self)
        self.exceptions_view = ExceptionsView(scheduler, bridge, self)
        self._follow_exceptions_count()
        self.exceptions_dock.setWindowTitle(exceptions_title(self.exceptions_view.count))
        lanes = scheduler.lanes
        self.charts_view = ChartsView(self.location, [lane.name for lane in lanes], self)
        self.batches_view = BatchesView(self.location, lanes, bridge, self)
        self.comparison_view = ComparisonView(self.location, self._keep_answer, self)
        self._follow_batch_selection()
        for dock, view in ((self.accounts_dock, self.accounts_panel), (self.profiles_dock, self.profiles_editor),
                           (self.exceptions_dock, self.exceptions_view), (self.charts_dock, self.charts_view),
                           (self.batches_dock, self.batches_view), (self.comparison_dock, self.comparison_view)):
            old.append(rescroll(dock.widget(), view))
        self.table_menu.location = self.location
        self._bind_desktops()
        self._show_desktop_column()
        self.table_menu.evidence_dir = scheduler.workspace.evidence_dir
        combo = self.filter_bar.profile_combo
        combo.blockSignals(True)
        while combo.count() > 1:
            combo.removeItem(1)
        for name in scheduler.profile_names():
            combo.addItem(name, name)
        combo.blockSignals(False)
        self.filter_bar.clear_all()
        self._on_filters_changed()
        self._connect_bridge()
        self.submission.set_demo_batch(demo_batch)
        if demo_batch is None:
            self.statusBar().clearMessage()
        for gone in old:
            if gone is None:
                continue
            if isinstance(gone, QWidget):
                gone.hide()
            gone.deleteLater()
        self.task_actions.sync_pause_actions(None)
        self.show_workspace_title()
        self.status_line.update_status()
        self.status_line.update_totals()
        self._tick.start()

    # ------------------------------------------------------------------ settings
    def _layout_parts(self) -> tuple[dict[str, QSplitter], QHeaderView]:
        splitters = {"mainSplitter": self.main_splitter, "laneSplitter": self.lane_splitter,
                     "detailSplitter": self.detail.splitter}
        return splitters, self.table.horizontalHeader()

    def save_settings(self) -> None:
        self.grouped.sync_flat_header()
        save_window_state(self.settings, self, *self._layout_parts(), overrides=self.small_screen.saved_states())
        save_table_filters(self.settings, self.filter_bar.state())

    def restore_settings(self) -> bool:
        """Restore what :meth:`save_settings` wrote; False when nothing (or an old format) was saved.
        The remembered sort is applied when the rows are loaded (:meth:`apply_sort`)."""
        self.small_screen.compact_state = saved_state(self.settings, "mainSplitterCompact")
        restored = restore_window_state(self.settings, self, *self._layout_parts())
        if filters := restore_table_filters(self.settings):
            self.filter_bar.set_state(filters)
        self.grouped.restore()
        return restored

    def apply_sort(self) -> None:
        """Sort the rows by the header's sort indicator (rows are not sorted as they arrive)."""
        hh = self.table.horizontalHeader()
        if hh.sortIndicatorSection() >= 0:
            self.proxy.sort(hh.sortIndicatorSection(), hh.sortIndicatorOrder())

    # ------------------------------------------------------------------ Setup and login
    def open_setup_editor(self, path: Path | str | None = None) -> SetupEditor | None:
        """The Setup editor (endpoints, profiles, accounts) of ``path``, else of this console's
        config; one at a time (a second call brings it to front). None when the file cannot be
        opened (the reason is shown)."""
        if self.setup_editor is not None:
            self.setup_editor.show()
            self.setup_editor.raise_()
            self.setup_editor.activateWindow()
            return self.setup_editor
        target = Path(path) if path is not None else (
            self.config_path or self.scheduler.workspace.data_dir / "config.toml")
        try:
            dlg = SetupEditor(target, scheduler=self.scheduler, parent=self)
        except (ConfigError, UnsafePathError, OSError) as exc:
            self.status_line.notify(self.tr("Setup"), config_error_text(exc), error=True)
            return None
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        dlg.destroyed.connect(lambda: setattr(self, "setup_editor", None))
        dlg.can_restart_lanes = self.can_restart_lanes
        dlg.restart_lanes.connect(self.restartLanesRequested)
        self.setup_editor = dlg
        dlg.show()
        return dlg

    def open_adapter_check(self) -> SetupEditor | None:
        """Tools > Adapter check…: the Setup editor on the web profiles (a chat site's adapter is
        checked from its profile's Test)."""
        editor = self.open_setup_editor()
        if editor is not None:
            web = [i for i, e in enumerate(editor.doc.entries("profiles")) if e.get("kind") == "web"]
            editor.select("profiles", web[0] if web else 0)
        return editor

    def open_check_all(self) -> AccountCheckDialog:
        """Accounts tab and Tools > Check all accounts…: every web account's adapter checked, through the
        running scheduler; one dialog at a time (a second call brings it to front)."""
        dlg = self.account_check
        if dlg is None:
            dlg = AccountCheckDialog(self.scheduler, self)
            dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
            dlg.destroyed.connect(lambda: setattr(self, "account_check", None))
            dlg.checked.connect(lambda: self.accounts_panel.refresh_verified())
            self.account_check = dlg
            dlg.start()
        dlg.show()
        dlg.raise_()
        dlg.activateWindow()
        return dlg

    def open_adapter_file(self, path: Path) -> QWidget:
        """A site adapter file dropped on the window: validated, checked on an account, installed."""
        return open_adapter_file(self.scheduler, path, self)

    async def login_account(self, account: str) -> None:
        """"Log in" button: a visible browser on the account's profile; the account takes no task
        until the operator is done, then its health is checked again."""
        self.statusBar().showMessage(self.tr("Opening a browser to log in {0}...").format(account))
        try:
            ok = await self.scheduler.login(account, on_status=self.statusBar().showMessage)
        except Exception as exc:  # shown to the operator, never a traceback
            self.statusBar().showMessage(self.tr("Login for {0} failed: {1}").format(account, exc))
            return
        if ok:
            self.statusBar().showMessage(self.tr("{0} is logged in").format(account))
        else:
            self.statusBar().showMessage(self.tr("Login for {0} was not completed").format(account))

    # ------------------------------------------------------------------ filters, selection, status
    def _on_filters_changed(self) -> None:
        self.proxy.set_row_filter(self.filter_bar.row_filter())
        self.status_line.update_status()

    def _show_current(self, proxy_row: int) -> None:
        ids = self.proxy.task_ids([proxy_row]) if proxy_row >= 0 else []
        self.detail.show_task(ids[0] if ids else None)

    def _on_tick(self) -> None:
        self.model.refresh_running()
        self.status_line.update_status()
        self.status_line.update_totals()
        # the lane panels' "paused" is refreshed on this tick: the pause actions follow on the same one
        # (a lane's stats can reach the panels before the window has its lanes to read)
        self.task_actions.sync_pause_actions()

    # ------------------------------------------------------------------ drag and drop
    @staticmethod
    def _dropped_file(event: QDragEnterEvent | QDropEvent) -> Path | None:
        mime = event.mimeData()
        if mime is None or not mime.hasUrls():
            return None
        for url in mime.urls():
            if url.isLocalFile() and Path(url.toLocalFile()).suffix.lower() in BATCH_SUFFIXES + ADAPTER_SUFFIXES:
                return Path(url.toLocalFile())
        return None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._dropped_file(event) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        path = self._dropped_file(event)
        if path is None:
            event.ignore()
            return
        event.acceptProposedAction()
        if path.suffix.lower() in ADAPTER_SUFFIXES:
            self.open_adapter_file(path)
        else:
            self.submission.open_batch_dialog(path)
