"""The operator console's main window: two lane panels, the task table, the detail pane, docks.

It owns no scheduling logic: every action is one call on the :class:`Scheduler` (submit, cancel,
retry, pause), and everything shown comes from the bridge's signals through the task model and
the panels. The only database reads are in worker threads (initial load, new rows, the selected
task's detail, exports).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QWidget,
)

from mediadesk.config.model import ConfigError
from mediadesk.core.batch import BatchRow
from mediadesk.files.safe import UnsafePathError
from mediadesk.scheduler.events import StorageFailed
from mediadesk.scheduler.intake import SUBMIT_CHUNK
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.store.taskstore import AddResult
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.app.single_instance import bring_to_front
from mediadesk.ui.dialogs.batch_dialog import BatchDialog
from mediadesk.ui.dialogs.config_text import config_error_text
from mediadesk.ui.dialogs.setup_editor import SetupEditor
from mediadesk.ui.jobs.workers import TaskFeed, TaskJobs
from mediadesk.ui.models.task_model import Col, TaskFilterProxy, TaskTableModel
from mediadesk.ui.panels.accounts_panel import AccountsPanel
from mediadesk.ui.panels.batches_view import BatchesView
from mediadesk.ui.panels.charts import ChartsView
from mediadesk.ui.panels.desktops_view import DesktopsView
from mediadesk.ui.panels.detail_pane import DetailPane
from mediadesk.ui.panels.exceptions_view import ExceptionsView
from mediadesk.ui.panels.lane_panel import LanePanel
from mediadesk.ui.panels.log_dock import LogDock
from mediadesk.ui.panels.notices_view import NoticesView
from mediadesk.ui.panels.profiles_editor import ProfilesEditor
from mediadesk.ui.window.actions import WindowActions
from mediadesk.ui.window.attention import build_notices
from mediadesk.ui.window.filter_bar import FilterBar
from mediadesk.ui.window.grouped_view import GroupedTable
from mediadesk.ui.window.menus import WindowMenus
from mediadesk.ui.window.panes import build_chart_docks, build_docks, build_panels, build_table
from mediadesk.ui.window.rebind import rebind_workspace
from mediadesk.ui.window.small_screen import SmallScreenLayout, scrolling
from mediadesk.ui.window.status_line import StatusLine
from mediadesk.ui.window.submission import BatchSubmission
from mediadesk.ui.window.table_menu import TableMenu, ask_cancel_many
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

    The window owns the widgets; what they do is in collaborators it composes: the panes are
    built in :mod:`~mediadesk.ui.window.panes`, the table actions are :attr:`task_actions`, batch
    submission is :attr:`submission`, the status bar and notices are :attr:`status_line`, and a
    workspace switch is :mod:`~mediadesk.ui.window.rebind`.
    """

    # The widgets, made by the builders in ui/window/panes.py and the status line.
    web_panel: LanePanel
    api_panel: LanePanel
    lane_splitter: QSplitter
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
    desktops_view: DesktopsView | None
    desktops_dock: QDockWidget | None
    status_label: QLabel
    totals_label: QLabel
    notices_view: NoticesView
    notices_dock: QDockWidget
    attention_button: QToolButton
    #: Notices that need the operator (unseen): shown in the title, the status bar and the tray.
    attention_count: int = 0
    spend_label: QLabel

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
        self.last_message = ""
        self.batch_dialog: BatchDialog | None = None
        self.demo_batch = demo_batch
        #: The config file this console runs (Setup… edits it); None: <data dir>/config.toml.
        self.config_path: Path | None = None
        self.setup_editor: SetupEditor | None = None
        #: Whether Setup may offer "Restart lanes" (set by whoever answers restartLanesRequested).
        self.can_restart_lanes = False
        self._jobs = TaskJobs()
        self.task_actions = TaskActions(self)
        self.submission = BatchSubmission(self)
        self.status_line = StatusLine(self)
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

        build_panels(self)
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
        build_docks(self)
        build_chart_docks(self)
        build_notices(self)  # what needs the operator, kept until seen (fed by ui/window/attention.py)
        self._build_actions()
        self._build_toolbar()
        self.status_line.build()
        self._connect()
        self.table_menu = TableMenu(self, self.location, scheduler.workspace.evidence_dir)
        self.grouped = GroupedTable(self, self.table_stack)
        #: Asked before cancelling from more than CONFIRM_CANCEL_ABOVE selected rows:
        #: (tasks to cancel, finished ones left as they are) -> go ahead?
        self.confirm_cancel: Callable[[int, int], bool] = lambda n, finished: ask_cancel_many(self, n, finished)
        #: Asked before the window closes: () -> close now? (the app installs the close question)
        self.close_guard: Callable[[], bool] | None = None
        self.small_screen = SmallScreenLayout(self, (self.web_panel, self.api_panel), self.lane_splitter,
                                              self.main_splitter, self.table, self.main_toolbar, self.filter_bar)
        self.filter_bar.changed.connect(lambda: self.small_screen.fit())  # the scope button takes room
        self.menus = WindowMenus(self)  # File, View, Tools, Help (the defaults Reset layout goes back to)
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
        self.grouped.close_jobs()
        self.exceptions_view.close_jobs()
        self.charts_view.close_jobs()
        self.batches_view.close_jobs()
        self.profiles_editor.close_jobs()
        if self.desktops_view is not None:
            self.desktops_view.close_jobs()
        self._jobs.cancel_all()
        await self.feed.aclose()
        await self._jobs.wait_all()
        # a cancelled job's thread runs on to its end: wait for it while the loop still lives
        views = (self.detail, self.table_menu, self.grouped, self.exceptions_view, self.charts_view,
                 self.batches_view, self.profiles_editor)
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
            title = self.tr("MediaDesk — {dir}").format(dir=data_dir)
        else:
            title = self.tr("MediaDesk — {config} ({dir})").format(config=self.config_path.name, dir=data_dir)
        self.setWindowTitle(f"({self.attention_count}) {title}" if self.attention_count else title)

    def rebind_workspace(self, scheduler: Scheduler, bridge: SchedulerBridge, *,
                         demo_batch: Path | None = None) -> None:
        """Show another workspace in this window (File > Open config…). Call after :meth:`aclose`
        (the old workspace's jobs have ended) and before :meth:`start` (it loads the new table).
        What is bound to a scheduler is made anew (model, feed, lane panels, detail pane, the
        accounts, profiles, exceptions, batches and charts tabs); the layout, the toolbars, the
        actions and the log stay. The filters are cleared (the profiles differ)."""
        rebind_workspace(self, scheduler, bridge, demo_batch=demo_batch)

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

    # ------------------------------------------------------------------ batch submit
    def open_batch_dialog(self, path: Path | str | None = None) -> BatchDialog:
        """Open the staging dialog (:meth:`BatchSubmission.open_batch_dialog
        <mediadesk.ui.window.submission.BatchSubmission.open_batch_dialog>`)."""
        return self.submission.open_batch_dialog(path)

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
        """Submit staged rows in one transaction (:meth:`BatchSubmission.submit_rows
        <mediadesk.ui.window.submission.BatchSubmission.submit_rows>`)."""
        return self.submission.submit_rows(rows, batch=batch)

    async def submit_rows_async(self, rows: Sequence[BatchRow], *, batch: str | None = None,
                                chunk: int = SUBMIT_CHUNK) -> AddResult | None:
        """Submit staged rows in chunks (:meth:`BatchSubmission.submit_rows_async
        <mediadesk.ui.window.submission.BatchSubmission.submit_rows_async>`)."""
        return await self.submission.submit_rows_async(rows, batch=batch, chunk=chunk)

    def submit_rows_from_text(self, text: str, profile: str, priority: int = 0) -> AddResult | None:
        """One prompt per line for ``profile`` (the dialog's paste path without the dialog)."""
        return self.submission.submit_rows_from_text(text, profile, priority)

    def set_demo_batch(self, path: Path) -> None:
        self.submission.set_demo_batch(path)

    # ------------------------------------------------------------------ table actions
    def selected_task_ids(self) -> list[str]:
        return self.task_actions.selected_task_ids()

    def cancel_selected(self) -> int:
        return self.task_actions.cancel_selected()

    def retry_selected(self) -> int:
        return self.task_actions.retry_selected()

    def set_paused(self, kind: str, paused: bool) -> None:
        self.task_actions.set_paused(kind, paused)

    def _sync_pause_actions(self, ev: object) -> None:
        self.task_actions.sync_pause_actions(ev)

    # ------------------------------------------------------------------ export
    def export_dialog(self, scope: str = "all") -> None:
        """Ask for a file and export ``scope``: "all", "filtered" or "selected" rows."""
        self.task_actions.export_dialog(scope)

    def export_ids(self, scope: str) -> list[str] | None:
        """Task ids of ``scope`` in table order; None for "all" (every task in the database)."""
        return self.task_actions.export_ids(scope)

    async def export_to(self, path: Path, fmt: str, scope: str = "all") -> int:
        """Write the export in a worker thread; returns the number of tasks written."""
        return await self.task_actions.export_to(path, fmt, scope)

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
        self.status_line.update_status()

    def _update_totals(self) -> None:
        self.status_line.update_totals()

    def show_status(self, text: str, timeout_ms: int = 8000) -> None:
        self.status_line.show_status(text, timeout_ms)

    def _on_storage_failed(self, ev: StorageFailed) -> None:
        self.status_line.on_storage_failed(ev)

    def notify(self, title: str, text: str, *, error: bool = False) -> QMessageBox:
        """A non-blocking message box (``open()``: the lanes keep running behind it)."""
        return self.status_line.notify(title, text, error=error)

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
