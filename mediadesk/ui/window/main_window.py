"""The operator console's main window: two lane panels, the task table, the detail pane, docks.

It owns no scheduling logic: every action is one call on the :class:`Scheduler` (submit, cancel,
retry, pause), and everything shown comes from the bridge's signals through the task model and
the panels. The only database reads are in worker threads (initial load, new rows, the selected
task's detail, exports).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QTableView,
    QWidget,
)

from mediadesk.config.model import ConfigError
from mediadesk.core.batch import BatchRow, parse_pasted
from mediadesk.files.safe import UnsafePathError
from mediadesk.scheduler.events import StorageFailed
from mediadesk.scheduler.intake import SUBMIT_CHUNK, MissingApiKeysError
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.store.errors import StorageError
from mediadesk.store.export import export_to_file
from mediadesk.store.taskstore import AddResult
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.app.single_instance import bring_to_front
from mediadesk.ui.dialogs.batch_dialog import BatchDialog
from mediadesk.ui.dialogs.config_text import config_error_text
from mediadesk.ui.dialogs.setup_editor import SetupEditor
from mediadesk.ui.format import fmt_count, fmt_eta, fmt_rate
from mediadesk.ui.jobs.workers import TaskFeed, TaskJobs, cyclic_gc_paused, release_free_memory
from mediadesk.ui.models.task_model import Col, TaskFilterProxy, TaskTableModel
from mediadesk.ui.panels.accounts_panel import AccountsPanel
from mediadesk.ui.panels.batches_view import BatchesView
from mediadesk.ui.panels.charts import ChartsView
from mediadesk.ui.panels.desktops_view import DesktopsView, alive_count
from mediadesk.ui.panels.detail_pane import DetailPane
from mediadesk.ui.panels.exceptions_view import ExceptionsView
from mediadesk.ui.panels.lane_panel import LanePanel
from mediadesk.ui.panels.log_dock import LogDock
from mediadesk.ui.panels.profiles_editor import ProfilesEditor
from mediadesk.ui.window.actions import WindowActions
from mediadesk.ui.window.filter_bar import FilterBar
from mediadesk.ui.window.small_screen import SmallScreenLayout, scrolling
from mediadesk.ui.window.table_menu import CONFIRM_CANCEL_ABOVE, TableMenu, ask_cancel_many, choose_export_file
from mediadesk.ui.window.window_state import (
    restore_table_filters,
    restore_window_state,
    save_table_filters,
    save_window_state,
    saved_state,
)
from mediadesk.viewmodel.batches import totals

__all__ = ["BATCH_SUFFIXES", "MainWindow"]

BATCH_SUFFIXES = (".jsonl", ".ndjson", ".json", ".csv", ".tsv")
_COLUMN_WIDTHS = {Col.ID: 170, Col.LANE: 110, Col.PROFILE: 90, Col.ACCOUNT: 80, Col.STATE: 80, Col.ATTEMPT: 60,
                  Col.STARTED: 75, Col.HEARTBEAT: 75, Col.DURATION: 75, Col.PROMPT: 380, Col.DESKTOP: 110}
class MainWindow(QMainWindow):
    """The console. ``await window.start()`` once the qasync loop runs (it loads the table)."""

    #: The window was closed by the operator (the app then stops the scheduler and quits).
    closed = Signal()

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
        self.last_message = ""
        self.batch_dialog: BatchDialog | None = None
        self.demo_batch = demo_batch
        #: The config file this console runs (Setup… edits it); None: <data dir>/config.toml.
        self.config_path: Path | None = None
        self.setup_editor: SetupEditor | None = None
        self._jobs = TaskJobs()
        self.setObjectName("mainWindow")
        self.setWindowTitle(self.tr("MediaDesk — {dir}").format(dir=scheduler.workspace.data_dir))
        self.setAcceptDrops(True)
        self.resize(1400, 900)

        self.model = TaskTableModel(heartbeat_interval_s=scheduler.config.heartbeat.interval_s, parent=self)
        self.model.rows.own_owner = scheduler.owner
        self.proxy = TaskFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.feed = TaskFeed(self.location, self.model, bridge, self)
        self.feed.loaded.connect(lambda st: self._update_status())
        self.feed.loaded.connect(lambda st: self.apply_sort())  # a remembered sort, once the rows are in

        self._build_panels()
        self._build_table()
        self.detail = DetailPane(self.location, bridge, self)
        self.main_splitter = QSplitter(Qt.Orientation.Vertical)
        self.main_splitter.setObjectName("mainSplitter")
        self.main_splitter.addWidget(self.lane_splitter)
        self.main_splitter.addWidget(self.table)
        self.main_splitter.addWidget(scrolling(self.detail))  # squeezed on a small screen: it scrolls
        self.main_splitter.setStretchFactor(0, 0)
        self.main_splitter.setStretchFactor(1, 3)
        self.main_splitter.setStretchFactor(2, 1)
        self.main_splitter.setSizes([190, 460, 200])
        self.setCentralWidget(self.main_splitter)
        self._build_docks()
        self._build_chart_docks()
        self._build_actions()
        self._build_toolbar()
        self._build_statusbar()
        self._connect()
        self.table_menu = TableMenu(self, self.location, scheduler.workspace.evidence_dir)
        #: Asked before cancelling more than CONFIRM_CANCEL_ABOVE rows: (count) -> go ahead?
        self.confirm_cancel: Callable[[int], bool] = lambda n: ask_cancel_many(self, n)
        #: Asked before the window closes: () -> close now? (the app installs the close question)
        self.close_guard: Callable[[], bool] | None = None
        self.small_screen = SmallScreenLayout(self, (self.web_panel, self.api_panel), self.lane_splitter,
                                              self.main_splitter, self.table, self.main_toolbar, self.filter_bar)
        self.filter_bar.changed.connect(lambda: self.small_screen.fit())  # the scope button takes room
        if demo_batch is not None:
            self.set_demo_batch(demo_batch)
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self._on_tick)
        self._tick.start()
        self.restore_settings()
        self._show_desktop_column()

    def _show_desktop_column(self) -> None:
        """The Desktop column (whose desktop ran each task) is shown in team mode, hidden on SQLite
        (one desktop; the column menu can show it)."""
        self.table.setColumnHidden(Col.DESKTOP, self.scheduler.team is None)

    # ------------------------------------------------------------------ building
    def _build_panels(self) -> None:
        self.web_panel, self.api_panel = self._lane_panels()
        self.lane_splitter = QSplitter(Qt.Orientation.Horizontal)
        self.lane_splitter.setObjectName("laneSplitter")
        self.lane_splitter.addWidget(self.web_panel)
        self.lane_splitter.addWidget(self.api_panel)

    def _lane_panels(self) -> tuple[LanePanel, LanePanel]:
        views = [self.scheduler.profile_view(n) for n in self.scheduler.profile_names()]
        web, api = LanePanel("web", self.model, self), LanePanel("api", self.model, self)
        for panel in (web, api):
            panel.set_lanes(self.scheduler.lanes, views)
        for lane in self.scheduler.lanes:  # the first stats now, not at the next 2 s tick
            st = lane.stats()
            web.on_lane_stats(st)
            api.on_lane_stats(st)
        return web, api

    def _build_table(self) -> None:
        t = QTableView()
        t.setObjectName("taskTable")
        t.setModel(self.proxy)
        t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        t.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        t.setWordWrap(False)
        t.setTextElideMode(Qt.TextElideMode.ElideRight)
        t.setShowGrid(False)
        t.setAlternatingRowColors(True)
        # Uniform row heights and no row header: a vertical header keeps per-row state and made
        # each insert into a 100k-row view several times slower (measured).
        vh = t.verticalHeader()
        vh.setVisible(False)
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vh.setDefaultSectionSize(t.fontMetrics().height() + 6)
        hh = t.horizontalHeader()
        hh.setSectionsMovable(True)
        hh.setStretchLastSection(True)
        hh.setSectionsClickable(True)
        hh.setSortIndicatorShown(True)
        hh.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        hh.sortIndicatorChanged.connect(self.proxy.sort)
        for col, w in _COLUMN_WIDTHS.items():
            t.setColumnWidth(col, w)
        hh.moveSection(hh.visualIndex(Col.DESKTOP), hh.visualIndex(Col.ERROR))  # the error column stays last
        self.table = t

    def _build_docks(self) -> None:
        self.log_dock = LogDock(self)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.log_dock)
        self.accounts_panel = AccountsPanel(self.scheduler, self.bridge, self, login=self.login_account)
        self.accounts_dock = self._dock(self.tr("Accounts"), "accountsDock", self.accounts_panel)
        self.profiles_editor = ProfilesEditor(self.scheduler, self.bridge, self)
        self.profiles_dock = self._dock(self.tr("Profiles"), "profilesDock", self.profiles_editor)
        self.tabifyDockWidget(self.log_dock, self.accounts_dock)
        self.exceptions_view = ExceptionsView(self.scheduler, self.bridge, self)
        self.exceptions_dock = self._dock(self._exceptions_title(self.exceptions_view.count), "exceptionsDock",
                                          self.exceptions_view)
        self.exceptions_view.countChanged.connect(
            lambda n: self.exceptions_dock.setWindowTitle(self._exceptions_title(n)))
        self.tabifyDockWidget(self.accounts_dock, self.profiles_dock)
        self.tabifyDockWidget(self.profiles_dock, self.exceptions_dock)
        self.log_dock.raise_()
        self.resizeDocks([self.log_dock], [150], Qt.Orientation.Vertical)

    def _build_chart_docks(self) -> None:
        """Charts (throughput and run times per lane, from the store) and Batches, as two more
        tabs of the bottom dock area."""
        lanes = self.scheduler.lanes
        self.charts_view = ChartsView(self.location, [lane.name for lane in lanes], self)
        self.charts_dock = self._dock(self.tr("Charts"), "chartsDock", self.charts_view)
        self.batches_view = BatchesView(self.location, lanes, self.bridge, self)
        self.batches_dock = self._dock(self.tr("Batches"), "batchesDock", self.batches_view)
        self.tabifyDockWidget(self.exceptions_dock, self.batches_dock)
        self.tabifyDockWidget(self.batches_dock, self.charts_dock)
        # a dock tab brought to the front is not "shown" again (tabs are moved off-screen): read now
        self.charts_dock.visibilityChanged.connect(lambda on: on and self.charts_view.refresh(force=True))
        self.batches_dock.visibilityChanged.connect(lambda on: on and self.batches_view.refresh(force=True))
        self.desktops_view: DesktopsView | None = None
        self.desktops_dock: QDockWidget | None = None
        self._bind_desktops()
        self.log_dock.raise_()

    def _bind_desktops(self) -> None:
        """Team mode (a PostgreSQL queue shared by several desktops): the Desktops tab, next to
        Charts; on SQLite there is none (one desktop)."""
        s = self.scheduler
        if s.team is None:
            if self.desktops_dock is not None:  # a switch from a team workspace
                was = self._rescroll(self.desktops_dock.widget(), QWidget())
                if was is not None:
                    was.deleteLater()
                self.desktops_dock.hide()
                self.desktops_dock.toggleViewAction().setVisible(False)
            self.desktops_view = None
            return
        view = DesktopsView(s.desktops, s.owner, self)
        self.desktops_view = view
        if self.desktops_dock is None:
            self.desktops_dock = self._dock(self.tr("Desktops"), "desktopsDock", view)
            self.tabifyDockWidget(self.charts_dock, self.desktops_dock)
            self.desktops_dock.visibilityChanged.connect(self._desktops_shown)
        else:
            was = self._rescroll(self.desktops_dock.widget(), view)
            if was is not None:
                was.deleteLater()
            self.desktops_dock.toggleViewAction().setVisible(True)
            self.desktops_dock.show()

    def _desktops_shown(self, on: bool) -> None:
        if on and self.desktops_view is not None:  # a tab brought to the front: read now
            self.desktops_view.refresh()

    def _exceptions_title(self, count: int) -> str:
        return self.tr("Exceptions ({n})").format(n=count)

    def _dock(self, title: str, name: str, widget: QWidget) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(scrolling(widget))  # the exceptions view alone needs ~420 px: scroll, not a taller window
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        return dock

    def _build_actions(self) -> None:
        self.window_actions = a = WindowActions(self, self.table)
        self.act_submit, self.act_pause_web, self.act_pause_api = a.submit, a.pause_web, a.pause_api
        self.act_cancel, self.act_retry, self.act_export, self.act_demo = a.cancel, a.retry, a.export, a.demo
        a.submit.triggered.connect(lambda: self.open_batch_dialog())
        a.pause_web.toggled.connect(lambda on: self.set_paused("web", on))
        a.pause_api.toggled.connect(lambda on: self.set_paused("api", on))
        a.cancel.triggered.connect(self.cancel_selected)
        a.retry.triggered.connect(self.retry_selected)
        a.export.triggered.connect(lambda: self.export_dialog("all"))
        a.export_all.triggered.connect(lambda: self.export_dialog("all"))
        a.export_filtered.triggered.connect(lambda: self.export_dialog("filtered"))
        a.export_selected.triggered.connect(lambda: self.export_dialog("selected"))
        a.find.triggered.connect(self._focus_search)
        a.demo.triggered.connect(lambda: self.demo_batch and self.open_batch_dialog(self.demo_batch))
        self.act_setup = QAction(self.tr("Setup…"), self)
        self.act_setup.setObjectName("actSetup")
        self.act_setup.setToolTip(self.tr("Edit endpoints, profiles and accounts in the config file"))
        self.act_setup.triggered.connect(lambda: self.open_setup_editor())

    def _build_toolbar(self) -> None:
        self.main_toolbar = self.window_actions.main_toolbar()
        self.main_toolbar.addAction(self.act_setup)
        self.addToolBar(self.main_toolbar)
        self.menuBar().addMenu(self.window_actions.file_menu([self.act_setup]))
        self.filter_bar = FilterBar(self.scheduler.profile_names(), self)
        self.filter_bar.changed.connect(self._on_filters_changed)
        self.addToolBar(self.filter_bar)

    def _build_statusbar(self) -> None:
        self.status_label = QLabel()
        self.statusBar().addPermanentWidget(self.status_label)
        self.totals_label = QLabel()
        self.totals_label.setObjectName("totalsLabel")
        self.statusBar().addPermanentWidget(self.totals_label)
        self._update_status()
        self._update_totals()

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
        b.storageFailed.connect(self._on_storage_failed)
        b.laneStats.connect(self._sync_pause_actions)

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Load the table (in a worker thread). Call once the qasync loop runs."""
        await self.feed.load()
        if self.scheduler.team is not None:  # the other desktops' work shows up too
            self.feed.follow_others()
        self._update_status()

    async def aclose(self) -> None:
        """Stop background work (the app stops the scheduler after this)."""
        self._tick.stop()
        self.detail.close_jobs()
        self.table_menu.close_jobs()
        self.exceptions_view.close_jobs()
        self.charts_view.close_jobs()
        self.batches_view.close_jobs()
        if self.desktops_view is not None:
            self.desktops_view.close_jobs()
        self._jobs.cancel_all()
        await self.feed.aclose()
        await self._jobs.wait_all()
        # a cancelled job's thread runs on to its end: wait for it while the loop still lives
        views = (self.detail, self.table_menu, self.exceptions_view, self.charts_view, self.batches_view)
        await asyncio.gather(*(v.drain_jobs() for v in views), self._jobs.drain())

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.close_guard is not None and not self.close_guard():
            event.ignore()  # Cancel, or kept running in the tray
            return
        self.save_settings()
        if self.batch_dialog is not None:
            self.batch_dialog.close()
        event.accept()
        self.closed.emit()

    def bring_to_front(self) -> None:
        bring_to_front(self)

    # ------------------------------------------------------------------ workspace switch
    def show_workspace_title(self) -> None:
        """The title names the config file (when known) and the data folder."""
        data_dir = self.scheduler.workspace.data_dir
        if self.config_path is None:
            self.setWindowTitle(self.tr("MediaDesk — {dir}").format(dir=data_dir))
        else:
            self.setWindowTitle(self.tr("MediaDesk — {config} ({dir})").format(config=self.config_path.name,
                                                                              dir=data_dir))

    @staticmethod
    def _rescroll(scroll: QWidget | None, widget: QWidget) -> QWidget | None:
        """Put ``widget`` in the scroll area :func:`scrolling` made (kept, with its place in the
        layout); returns the widget it held before."""
        assert isinstance(scroll, QScrollArea)
        was = scroll.takeWidget()
        scroll.setWidget(widget)
        return was

    def rebind_workspace(self, scheduler: Scheduler, bridge: SchedulerBridge, *,
                         demo_batch: Path | None = None) -> None:
        """Show another workspace in this window (File > Open config…). Call after :meth:`aclose`
        (the old workspace's jobs have ended) and before :meth:`start` (it loads the new table).
        What is bound to a scheduler is made anew (model, feed, lane panels, detail pane, the
        accounts, profiles, exceptions, batches and charts tabs); the layout, the toolbars, the
        actions and the log stay. The filters are cleared (the profiles differ)."""
        for dlg in (self.batch_dialog, self.setup_editor):
            if dlg is not None:
                dlg.close()
        self.scheduler, self.bridge = scheduler, bridge
        self.location = scheduler.workspace.location
        old: list[QWidget | QObject | None] = [self.model, self.feed, self.web_panel, self.api_panel]
        self.model = TaskTableModel(heartbeat_interval_s=scheduler.config.heartbeat.interval_s, parent=self)
        self.model.rows.own_owner = scheduler.owner
        self.proxy.setSourceModel(self.model)
        self.feed = TaskFeed(self.location, self.model, bridge, self)
        self.feed.loaded.connect(lambda st: self._update_status())
        self.feed.loaded.connect(lambda st: self.apply_sort())
        self.web_panel, self.api_panel = self._lane_panels()
        self.lane_splitter.replaceWidget(0, self.web_panel)
        self.lane_splitter.replaceWidget(1, self.api_panel)
        self.small_screen.panels = [self.web_panel, self.api_panel]
        for panel in self.small_screen.panels:
            panel.set_compact(self.small_screen.compact)
        detail_state = self.detail.splitter.saveState()
        self.detail = DetailPane(self.location, bridge, self)
        self.detail.splitter.restoreState(detail_state)
        old.append(self._rescroll(self.main_splitter.widget(2), self.detail))
        self.accounts_panel = AccountsPanel(scheduler, bridge, self, login=self.login_account)
        self.profiles_editor = ProfilesEditor(scheduler, bridge, self)
        self.exceptions_view = ExceptionsView(scheduler, bridge, self)
        self.exceptions_view.countChanged.connect(
            lambda n: self.exceptions_dock.setWindowTitle(self._exceptions_title(n)))
        self.exceptions_dock.setWindowTitle(self._exceptions_title(self.exceptions_view.count))
        from mediadesk.ui.panels.charts import ChartsView  # here too: the module may be imported lazily

        lanes = scheduler.lanes
        self.charts_view = ChartsView(self.location, [lane.name for lane in lanes], self)
        self.batches_view = BatchesView(self.location, lanes, bridge, self)
        for dock, view in ((self.accounts_dock, self.accounts_panel), (self.profiles_dock, self.profiles_editor),
                           (self.exceptions_dock, self.exceptions_view), (self.charts_dock, self.charts_view),
                           (self.batches_dock, self.batches_view)):
            old.append(self._rescroll(dock.widget(), view))
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
        self.demo_batch = demo_batch
        self.act_demo.setVisible(demo_batch is not None)
        if demo_batch is not None:
            self.set_demo_batch(demo_batch)
        else:
            self.statusBar().clearMessage()
        for gone in old:
            if gone is None:
                continue
            if isinstance(gone, QWidget):
                gone.hide()
            gone.deleteLater()
        self._sync_pause_actions(None)
        self.show_workspace_title()
        self._update_status()
        self._update_totals()
        self._tick.start()

    # ------------------------------------------------------------------ settings
    def _layout_parts(self) -> tuple[dict[str, QSplitter], QHeaderView]:
        splitters = {"mainSplitter": self.main_splitter, "laneSplitter": self.lane_splitter,
                     "detailSplitter": self.detail.splitter}
        return splitters, self.table.horizontalHeader()

    def save_settings(self) -> None:
        save_window_state(self.settings, self, *self._layout_parts(), overrides=self.small_screen.saved_states())
        save_table_filters(self.settings, self.filter_bar.state())

    def restore_settings(self) -> bool:
        """Restore what :meth:`save_settings` wrote; False when nothing (or an old format) was saved.
        The remembered sort is applied when the rows are loaded (:meth:`apply_sort`)."""
        self.small_screen.compact_state = saved_state(self.settings, "mainSplitterCompact")
        restored = restore_window_state(self.settings, self, *self._layout_parts())
        if filters := restore_table_filters(self.settings):
            self.filter_bar.set_state(filters)
        return restored

    def apply_sort(self) -> None:
        """Sort the rows by the header's sort indicator (rows are not sorted as they arrive)."""
        hh = self.table.horizontalHeader()
        if hh.sortIndicatorSection() >= 0:
            self.proxy.sort(hh.sortIndicatorSection(), hh.sortIndicatorOrder())

    # ------------------------------------------------------------------ batch submit
    def open_batch_dialog(self, path: Path | str | None = None) -> BatchDialog:
        """Open the staging dialog (non-modal to the loop: ``open()``, not ``exec()``); its
        accepted rows are submitted. ``path``: pre-load a file (drag-and-drop, demo)."""
        if self.batch_dialog is not None:
            self.batch_dialog.close()
        names = self.scheduler.profile_names()
        dlg = BatchDialog([self.scheduler.profile_view(n) for n in names], self, known_profiles=names)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        dlg.accepted.connect(lambda: self._submit_accepted(dlg))
        dlg.destroyed.connect(lambda *_: self._dialog_gone(dlg))
        if path is not None:
            dlg.load_file(Path(path))
        self.batch_dialog = dlg
        dlg.open()
        return dlg

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
            self.notify(self.tr("Setup"), config_error_text(exc), error=True)
            return None
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        dlg.destroyed.connect(lambda: setattr(self, "setup_editor", None))
        self.setup_editor = dlg
        dlg.show()
        return dlg

    def _dialog_gone(self, dlg: BatchDialog) -> None:
        if self.batch_dialog is dlg:
            self.batch_dialog = None

    @staticmethod
    def _batch_name(batch: str | None) -> str:
        return batch or time.strftime("console-%Y%m%d-%H%M%S")

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

    def submit_rows(self, rows: Sequence[BatchRow], *, batch: str | None = None) -> AddResult | None:
        """Turn staged rows into tasks (deterministic ids, as the CLI does) and submit them in one
        transaction, through the scheduler's intake (caps and key check as for the CLI). For big
        batches prefer :meth:`submit_rows_async` (the dialog does)."""
        if not rows:
            return None
        try:
            res = self.scheduler.intake.submit_rows(rows, self._batch_name(batch)).result
        except StorageError:  # the scheduler halted; its StorageFailed event shows the box and status
            return None
        except ValueError as exc:
            self._refused(exc)
            return None
        self._report_submit(res)
        return res

    async def submit_rows_async(self, rows: Sequence[BatchRow], *, batch: str | None = None,
                                chunk: int = SUBMIT_CHUNK) -> AddResult | None:
        """The intake's chunked submit (:meth:`Intake.submit_rows_async
        <mediadesk.scheduler.intake.Intake.submit_rows_async>`): tasks built in slices and added in
        transactions of at most ``chunk``, the loop run between them (a 10k-row submit in one go
        blocks the GUI thread, which is also the lanes' loop, for ~0.25 s), all on the GUI thread (a
        worker thread doing pure Python starves the GUI thread of the GIL); the cyclic GC is paused
        meanwhile (see :func:`~mediadesk.ui.jobs.workers.cyclic_gc_paused`)."""
        if not rows:
            return None
        done = None
        with cyclic_gc_paused():
            try:
                done = await self.scheduler.intake.submit_rows_async(
                    rows, self._batch_name(batch), chunk=chunk, progress=self._submit_progress)
            except StorageError:  # halted; the StorageFailed event shows the box and status
                pass
            except ValueError as exc:
                self._refused(exc)
        release_free_memory()  # the batch's tasks are freed now
        if done is None:
            return None
        self._report_submit(done.result)
        return done.result

    def _submit_progress(self, done: int, total: int) -> None:
        self.show_status(self.tr("Submitting… {n} of {m}").format(n=done, m=total), 0)

    def _refused(self, exc: ValueError) -> None:
        """A batch refused whole (nothing submitted): caps, unknown profile, or an API key variable
        that is unset (one message naming it, instead of one ``auth`` failure per task; the
        console's environment is fixed when it starts, so the operator sets it and starts again)."""
        if not isinstance(exc, MissingApiKeysError):
            self.notify(self.tr("Batch not submitted"), str(exc), error=True)
            return
        lines = [
            self.tr("Environment variable {env} is not set; profile(s) {profiles} read their API key from it.")
            .format(env=m.env, profiles=", ".join(m.profiles))
            for m in exc.missing
        ]
        lines.append(self.tr(
            "Quit MediaDesk, run “export {env}=...” (the key itself) in the shell that starts it, or give "
            "those profiles api_key_keyring, then start it again."
        ).format(env=exc.missing[0].env))
        self.notify(self.tr("Batch not submitted"), "\n".join(lines), error=True)

    def _submit_accepted(self, dlg: BatchDialog) -> None:
        rows, batch = dlg.rows(), dlg.source_name()
        if len(rows) <= SUBMIT_CHUNK:
            self.submit_rows(rows, batch=batch)
        else:
            self._jobs.spawn(self.submit_rows_async(rows, batch=batch), "console:submit")

    def _report_submit(self, res: AddResult) -> None:
        msg = self.tr("Submitted {added} tasks").format(added=len(res.added))
        if res.existing:
            msg += self.tr(" ({n} already present, left unchanged)").format(n=len(res.existing))
        self.show_status(msg)

    def submit_rows_from_text(self, text: str, profile: str, priority: int = 0) -> AddResult | None:
        """One prompt per line for ``profile`` (the dialog's paste path without the dialog)."""
        return self.submit_rows(parse_pasted(text, profile=profile, priority=priority).rows)

    def set_demo_batch(self, path: Path) -> None:
        self.demo_batch = path
        self.act_demo.setVisible(True)
        self.show_status(self.tr("Demo mode: press “Load demo batch” to stage the demo tasks."), 0)

    # ------------------------------------------------------------------ table actions
    def selected_task_ids(self) -> list[str]:
        rows: list[int] = []
        sel = self.table.selectionModel().selection()
        for i in range(sel.count()):
            rng = sel.at(i)
            rows.extend(range(rng.top(), rng.bottom() + 1))
        return self.proxy.task_ids(sorted(set(rows)))

    def cancel_selected(self) -> int:
        ids = self.selected_task_ids()
        if not ids:
            return 0
        if len(ids) > CONFIRM_CANCEL_ABOVE and not self.confirm_cancel(len(ids)):
            self.show_status(self.tr("Nothing canceled"))
            return 0
        try:
            n = self.scheduler.cancel(ids)
        except StorageError:  # halted; the StorageFailed event shows the box and status
            return 0
        self.show_status(self.tr("Cancel requested for {n} of {m} selected tasks").format(n=n, m=len(ids)))
        return n

    def retry_selected(self) -> int:
        ids = [t for t in self.selected_task_ids() if self.model.state_of(t) in ("failed", "canceled")]
        if not ids:
            self.show_status(self.tr("Nothing to retry: select failed or canceled tasks"))
            return 0
        try:
            n = self.scheduler.retry(ids)
        except StorageError:  # halted; the StorageFailed event shows the box and status
            return 0
        self.show_status(self.tr("Queued {n} tasks again").format(n=n))
        return n

    def set_paused(self, kind: str, paused: bool) -> None:
        self.scheduler.pause(kind, paused)
        self.window_actions.show_paused(kind, paused)

    def _sync_pause_actions(self, _ev: object) -> None:
        for kind in ("web", "api"):
            lanes = [lane for lane in self.scheduler.lanes if lane.kind == kind]
            paused = bool(lanes) and all(lane.paused for lane in lanes)
            if self.window_actions.pause_action(kind).isChecked() != paused:
                self.window_actions.show_paused(kind, paused)

    # ------------------------------------------------------------------ export
    def export_dialog(self, scope: str = "all") -> None:
        """Ask for a file and export ``scope``: "all" tasks, the "filtered" rows or the "selected"
        rows (JSONL, CSV, XLSX or Markdown, by the file's suffix)."""
        if scope == "selected" and not self.selected_task_ids():
            self.show_status(self.tr("Nothing selected to export"))
            return
        chosen = choose_export_file(self, scope)
        if chosen is None:
            return
        path, fmt = chosen

        def failed(exc: BaseException) -> None:
            self.notify(self.tr("Export failed"), str(exc), error=True)

        self._jobs.spawn(self.export_to(path, fmt, scope), "console:export", on_error=failed)

    def export_ids(self, scope: str) -> list[str] | None:
        """Task ids of ``scope`` in table order; None for "all" (every task in the database)."""
        if scope == "selected":
            return self.selected_task_ids()
        if scope == "filtered":
            return self.proxy.visible_task_ids()
        return None

    async def export_to(self, path: Path, fmt: str, scope: str = "all") -> int:
        """Write the export in a worker thread; returns the number of tasks written."""
        ids = self.export_ids(scope)
        if ids is not None and not ids:
            self.show_status(self.tr("Nothing selected to export") if scope == "selected"
                             else self.tr("No rows to export: the filters show none"))
            return 0
        self.show_status(self.tr("Exporting to {path}…").format(path=path), 0)
        n = await asyncio.to_thread(export_to_file, self.location, path, fmt, task_ids=ids)
        self.show_status(self.tr("Exported {n} tasks to {path}").format(n=n, path=path))
        return n

    # ------------------------------------------------------------------ filters, selection, status
    def apply_filters(self) -> None:
        """Apply the filter bar now (without waiting for the search box's typing pause)."""
        self.filter_bar.apply()

    def _focus_search(self) -> None:
        self.filter_bar.focus_search()

    def _on_filters_changed(self) -> None:
        self.proxy.set_row_filter(self.filter_bar.row_filter())
        self._update_status()

    def _show_current(self, proxy_row: int) -> None:
        ids = self.proxy.task_ids([proxy_row]) if proxy_row >= 0 else []
        self.detail.show_task(ids[0] if ids else None)

    def _on_tick(self) -> None:
        self.model.refresh_running()
        self._update_status()
        self._update_totals()

    def _update_status(self) -> None:
        total = self.model.rowCount()
        shown = self.proxy.rowCount()
        text = self.tr("{total} tasks").format(total=fmt_count(total))
        if shown != total:
            text = self.tr("{shown} of {total} tasks shown").format(shown=fmt_count(shown), total=fmt_count(total))
        if self.scheduler.team is not None:  # team mode: how many desktops work this queue
            n = alive_count(self.scheduler.desktops())
            desktops = self.tr("1 desktop") if n == 1 else self.tr("{n} desktops").format(n=fmt_count(n))
            text = f"{text} · {desktops}"
        self.status_label.setText(text)

    def _update_totals(self) -> None:
        """Across both lane kinds: combined throughput and the overall ETA (the slower kind's)."""
        t = totals([(p.kind_eta(), p.throughput()) for p in (self.web_panel, self.api_panel)])
        if t.eta is None:
            eta = self.tr("ETA — (no lane can take the queued tasks)") if t.blocked else self.tr("ETA —")
        elif t.eta.p90_s <= 0:
            eta = self.tr("idle")
        else:
            eta = self.tr("ETA p50 {p50}, p90 {p90}").format(p50=fmt_eta(t.eta.p50_s), p90=fmt_eta(t.eta.p90_s))
        text = self.tr("all lanes: {rate} tasks/min · {eta}").format(rate=fmt_rate(t.per_min), eta=eta)
        if self.totals_label.text() != text:
            self.totals_label.setText(text)

    def show_status(self, text: str, timeout_ms: int = 8000) -> None:
        self.last_message = text
        self.statusBar().showMessage(text, timeout_ms)

    def _on_storage_failed(self, ev: StorageFailed) -> None:
        """The database failed under the scheduler (it dispatches nothing more): say so in the window
        until it is closed, with what to do next."""
        if ev.kind == "lost":
            text = self.tr("The database file {path} was deleted or replaced while MediaDesk was running: "
                           "results since then were not saved, and nothing more is dispatched. Close "
                           "MediaDesk, restore the file (or choose another data folder), then start again.")
        elif ev.kind == "full":
            text = self.tr("The disk holding the database {path} is full ({detail}). Nothing more is "
                           "dispatched; every result stored before is kept. Free some space, then restart "
                           "MediaDesk: unfinished tasks resume.")
        else:
            text = self.tr("The database {path} could not be written ({detail}). Nothing more is dispatched; "
                           "what was stored is kept. Check the disk and the file's permissions, then restart "
                           "MediaDesk: unfinished tasks resume.")
        text = text.format(path=ev.path, detail=ev.detail)
        self.notify(self.tr("Storage failed"), text, error=True)
        self.show_status(text, timeout_ms=0)  # stays until the window closes

    def notify(self, title: str, text: str, *, error: bool = False) -> QMessageBox:
        """A non-blocking message box (``open()``: the lanes keep running behind it)."""
        self.show_status(f"{title}: {text}")
        box = QMessageBox(QMessageBox.Icon.Warning if error else QMessageBox.Icon.Information, title, text,
                          QMessageBox.StandardButton.Ok, self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.open()
        return box

    # ------------------------------------------------------------------ drag and drop
    @staticmethod
    def _dropped_file(event: QDragEnterEvent | QDropEvent) -> Path | None:
        mime = event.mimeData()
        if mime is None or not mime.hasUrls():
            return None
        for url in mime.urls():
            if url.isLocalFile() and Path(url.toLocalFile()).suffix.lower() in BATCH_SUFFIXES:
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
        self.open_batch_dialog(path)
