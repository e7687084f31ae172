"""The operator console's main window: two lane panels, the task table, the detail pane, docks.

It owns no scheduling logic: every action is one call on the :class:`Scheduler` (submit, cancel,
retry, pause), and everything shown comes from the bridge's signals through the task model and
the panels. The only database reads are in worker threads (initial load, new rows, the selected
task's detail, exports).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTableView,
    QToolBar,
    QWidget,
)

from mediadesk.core.batch import BatchRow, parse_pasted
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.store.export import export_to_file
from mediadesk.store.taskstore import AddResult
from mediadesk.ui.accounts_panel import AccountsPanel
from mediadesk.ui.batch_dialog import BatchDialog
from mediadesk.ui.bridge import SchedulerBridge
from mediadesk.ui.detail_pane import DetailPane
from mediadesk.ui.lane_panel import LanePanel
from mediadesk.ui.log_dock import LogDock
from mediadesk.ui.profiles_editor import ProfilesEditor
from mediadesk.ui.single_instance import bring_to_front
from mediadesk.ui.style import icon
from mediadesk.ui.task_model import Col, TaskFilterProxy, TaskTableModel
from mediadesk.ui.workers import TaskFeed, TaskJobs

__all__ = ["BATCH_SUFFIXES", "MainWindow"]

BATCH_SUFFIXES = (".jsonl", ".ndjson", ".json", ".csv", ".tsv")
_COLUMN_WIDTHS = {Col.ID: 170, Col.LANE: 110, Col.PROFILE: 90, Col.ACCOUNT: 80, Col.STATE: 80, Col.ATTEMPT: 60,
                  Col.STARTED: 75, Col.HEARTBEAT: 75, Col.DURATION: 75, Col.PROMPT: 380}
_SETTINGS_VERSION = 1
#: Tasks per submit transaction for big batches (see submit_rows_async).
SUBMIT_CHUNK = 1000


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
        self.db_path = scheduler.workspace.db_path
        self.last_message = ""
        self.batch_dialog: BatchDialog | None = None
        self.demo_batch = demo_batch
        self._jobs = TaskJobs()
        self.setObjectName("mainWindow")
        self.setWindowTitle(self.tr("MediaDesk — {dir}").format(dir=scheduler.workspace.data_dir))
        self.setAcceptDrops(True)
        self.resize(1400, 900)

        self.model = TaskTableModel(heartbeat_interval_s=scheduler.config.heartbeat.interval_s, parent=self)
        self.proxy = TaskFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.feed = TaskFeed(self.db_path, self.model, bridge, self)
        self.feed.loaded.connect(lambda st: self._update_status())

        self._build_panels()
        self._build_table()
        self.detail = DetailPane(self.db_path, bridge, self)
        self.main_splitter = QSplitter(Qt.Orientation.Vertical)
        self.main_splitter.setObjectName("mainSplitter")
        self.main_splitter.addWidget(self.lane_splitter)
        self.main_splitter.addWidget(self.table)
        self.main_splitter.addWidget(self.detail)
        self.main_splitter.setStretchFactor(0, 0)
        self.main_splitter.setStretchFactor(1, 3)
        self.main_splitter.setStretchFactor(2, 1)
        self.main_splitter.setSizes([190, 460, 200])
        self.setCentralWidget(self.main_splitter)
        self._build_docks()
        self._build_actions()
        self._build_toolbar()
        self._build_statusbar()
        self._connect()
        if demo_batch is not None:
            self.set_demo_batch(demo_batch)
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self._on_tick)
        self._tick.start()
        self.restore_settings()

    # ------------------------------------------------------------------ building
    def _build_panels(self) -> None:
        views = [self.scheduler.profile_view(n) for n in self.scheduler.profile_names()]
        self.web_panel = LanePanel("web", self.model, self)
        self.api_panel = LanePanel("api", self.model, self)
        for panel in (self.web_panel, self.api_panel):
            panel.set_lanes(self.scheduler.lanes, views)
        for lane in self.scheduler.lanes:  # the first stats now, not at the next 2 s tick
            st = lane.stats()
            self.web_panel.on_lane_stats(st)
            self.api_panel.on_lane_stats(st)
        self.lane_splitter = QSplitter(Qt.Orientation.Horizontal)
        self.lane_splitter.setObjectName("laneSplitter")
        self.lane_splitter.addWidget(self.web_panel)
        self.lane_splitter.addWidget(self.api_panel)

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
        self.table = t

    def _build_docks(self) -> None:
        self.log_dock = LogDock(self)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.log_dock)
        self.accounts_panel = AccountsPanel(self.scheduler, self.bridge, self, login=self.login_account)
        self.accounts_dock = self._dock(self.tr("Accounts"), "accountsDock", self.accounts_panel)
        self.profiles_editor = ProfilesEditor(self.scheduler, self.bridge, self)
        self.profiles_dock = self._dock(self.tr("Profiles"), "profilesDock", self.profiles_editor)
        self.tabifyDockWidget(self.log_dock, self.accounts_dock)
        self.tabifyDockWidget(self.accounts_dock, self.profiles_dock)
        self.log_dock.raise_()
        self.resizeDocks([self.log_dock], [150], Qt.Orientation.Vertical)

    def _dock(self, title: str, name: str, widget: QWidget) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        return dock

    def _action(self, text: str, name: str, shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
                icon_name: str | None = None, tip: str | None = None) -> QAction:
        act = QAction(text, self)
        act.setObjectName(name)
        if icon_name:
            act.setIcon(icon(icon_name))
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
        if tip:
            act.setToolTip(tip)
            act.setStatusTip(tip)
        self.addAction(act)
        return act

    def _build_actions(self) -> None:
        self.act_submit = self._action(self.tr("Submit batch…"), "actSubmit", QKeySequence.StandardKey.Open,
                                       "submit", self.tr("Stage a batch from a JSONL/CSV file or pasted prompts "
                                                         "(Ctrl+O; or drop a file on the window)"))
        self.act_submit.triggered.connect(lambda: self.open_batch_dialog())
        self.act_pause_web = self._action(self.tr("Pause web"), "actPauseWeb", None, "pause",
                                          self.tr("Stop dispatching new web tasks (running ones finish)"))
        self.act_pause_web.setCheckable(True)
        self.act_pause_web.toggled.connect(lambda on: self.set_paused("web", on))
        self.act_pause_api = self._action(self.tr("Pause API"), "actPauseApi", None, "pause",
                                          self.tr("Stop dispatching new API tasks (running ones finish)"))
        self.act_pause_api.setCheckable(True)
        self.act_pause_api.toggled.connect(lambda on: self.set_paused("api", on))
        self.act_cancel = self._action(self.tr("Cancel selected"), "actCancel", QKeySequence.StandardKey.Delete,
                                       "cancel", self.tr("Cancel the selected tasks (Del): pending ones at once, "
                                                         "running ones at their next checkpoint"))
        # Del belongs to the table: in the search box it must still delete a character.
        self.act_cancel.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.removeAction(self.act_cancel)
        self.table.addAction(self.act_cancel)
        self.act_cancel.triggered.connect(self.cancel_selected)
        self.act_retry = self._action(self.tr("Retry selected"), "actRetry", "Ctrl+R", "retry",
                                      self.tr("Queue the selected failed or canceled tasks again (Ctrl+R)"))
        self.act_retry.triggered.connect(self.retry_selected)
        self.act_export = self._action(self.tr("Export results…"), "actExport", "Ctrl+E", "export",
                                       self.tr("Write all tasks with their results as JSONL or CSV (Ctrl+E)"))
        self.act_export.triggered.connect(self.export_dialog)
        self.act_find = self._action(self.tr("Search"), "actFind", QKeySequence.StandardKey.Find)
        self.act_find.triggered.connect(self._focus_search)
        self.act_demo = self._action(self.tr("Load demo batch"), "actDemo", None, "submit",
                                     self.tr("Open the bundled demo batch in the staging dialog"))
        self.act_demo.setVisible(False)
        self.act_demo.triggered.connect(lambda: self.demo_batch and self.open_batch_dialog(self.demo_batch))

    def _build_toolbar(self) -> None:
        tb = QToolBar(self.tr("Main"))
        tb.setObjectName("mainToolbar")
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for act in (self.act_submit, self.act_demo):
            tb.addAction(act)
        tb.addSeparator()
        tb.addAction(self.act_pause_web)
        tb.addAction(self.act_pause_api)
        tb.addSeparator()
        for act in (self.act_cancel, self.act_retry, self.act_export):
            tb.addAction(act)
        self.addToolBar(tb)

        fb = QToolBar(self.tr("Filter"))
        fb.setObjectName("filterToolbar")
        self.kind_combo = QComboBox()
        self.kind_combo.addItem(self.tr("All lanes"), None)
        self.kind_combo.addItem(self.tr("Web"), "web")
        self.kind_combo.addItem(self.tr("API"), "api")
        self.state_combo = QComboBox()
        self.state_combo.addItem(self.tr("All states"), None)
        for st, label in (("pending", self.tr("pending")), ("running", self.tr("running")),
                          ("stalled", self.tr("stalled")), ("success", self.tr("success")),
                          ("failed", self.tr("failed")), ("canceled", self.tr("canceled"))):
            self.state_combo.addItem(label, st)
        self.profile_combo = QComboBox()
        self.profile_combo.addItem(self.tr("All profiles"), None)
        for name in self.scheduler.profile_names():
            self.profile_combo.addItem(name, name)
        self.search = QLineEdit()
        self.search.setObjectName("search")
        self.search.setClearButtonEnabled(True)
        self.search.setPlaceholderText(self.tr("Search id, prompt, error… (Ctrl+F)"))
        self.search.setMinimumWidth(260)
        for w in (self.kind_combo, self.state_combo, self.profile_combo):
            fb.addWidget(w)
            w.currentIndexChanged.connect(lambda _i: self.apply_filters())
        fb.addWidget(self.search)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(250)
        self._search_timer.timeout.connect(self.apply_filters)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.search.returnPressed.connect(self.apply_filters)
        self.addToolBar(fb)

    def _build_statusbar(self) -> None:
        self.status_label = QLabel()
        self.statusBar().addPermanentWidget(self.status_label)
        self._update_status()

    def _connect(self) -> None:
        b = self.bridge
        for panel in (self.web_panel, self.api_panel):
            b.laneStats.connect(panel.on_lane_stats)
            b.accountChanged.connect(panel.on_account_changed)
            b.profileChanged.connect(panel.on_profile_changed)
        b.taskLog.connect(self.log_dock.on_log)
        b.laneStats.connect(self._sync_pause_actions)
        sel = self.table.selectionModel()
        sel.currentRowChanged.connect(lambda cur, _prev: self._show_current(cur.row()))

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Load the table (in a worker thread). Call once the qasync loop runs."""
        await self.feed.load()
        self._update_status()

    async def aclose(self) -> None:
        """Stop background work (the app stops the scheduler after this)."""
        self._tick.stop()
        self.detail.close_jobs()
        self._jobs.cancel_all()
        await self.feed.aclose()
        await self._jobs.wait_all()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_settings()
        if self.batch_dialog is not None:
            self.batch_dialog.close()
        event.accept()
        self.closed.emit()

    def bring_to_front(self) -> None:
        bring_to_front(self)

    # ------------------------------------------------------------------ settings
    def save_settings(self) -> None:
        s = self.settings
        s.beginGroup("mainWindow")
        s.setValue("version", _SETTINGS_VERSION)
        s.setValue("geometry", self.saveGeometry())
        s.setValue("state", self.saveState(_SETTINGS_VERSION))
        s.setValue("mainSplitter", self.main_splitter.saveState())
        s.setValue("laneSplitter", self.lane_splitter.saveState())
        s.setValue("detailSplitter", self.detail.splitter.saveState())
        s.setValue("tableHeader", self.table.horizontalHeader().saveState())
        s.endGroup()
        s.sync()

    def restore_settings(self) -> bool:
        """Restore what :meth:`save_settings` wrote; False when nothing (or an old format) was saved."""
        s = self.settings
        s.beginGroup("mainWindow")
        try:
            if int(s.value("version", 0) or 0) != _SETTINGS_VERSION:  # type: ignore[call-overload]
                return False
            for key, restore in (
                ("geometry", self.restoreGeometry),
                ("mainSplitter", self.main_splitter.restoreState),
                ("laneSplitter", self.lane_splitter.restoreState),
                ("detailSplitter", self.detail.splitter.restoreState),
            ):
                value = s.value(key)
                if isinstance(value, QByteArray | bytes):
                    restore(QByteArray(value))
            state = s.value("state")
            if isinstance(state, QByteArray | bytes):
                self.restoreState(QByteArray(state), _SETTINGS_VERSION)
            header = s.value("tableHeader")
            if isinstance(header, QByteArray | bytes):
                hh = self.table.horizontalHeader()
                hh.restoreState(QByteArray(header))
                # A saved sort indicator would re-sort on every start: keep insertion order.
                hh.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
            return True
        finally:
            s.endGroup()

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
        transaction. For big batches prefer :meth:`submit_rows_async` (the dialog does)."""
        if not rows:
            return None
        try:
            res, _ids = self.scheduler.submit_rows(rows, self._batch_name(batch))
        except ValueError as exc:
            self.notify(self.tr("Batch not submitted"), str(exc), error=True)
            return None
        self._report_submit(res)
        return res

    async def submit_rows_async(self, rows: Sequence[BatchRow], *, batch: str | None = None,
                                chunk: int = SUBMIT_CHUNK) -> AddResult | None:
        """Submit in transactions of ``chunk`` tasks, yielding to the loop between them: a 10k-row
        submit in one go blocks the GUI thread (which is also the lanes' loop) for ~0.25 s.
        Re-submitting after an interruption is safe: ids are deterministic and existing ones are
        left untouched."""
        if not rows:
            return None
        try:
            tasks = self.scheduler.tasks_from_rows(rows, self._batch_name(batch))
            self.scheduler.check_caps(tasks)  # refused whole, before the first chunk goes in
        except ValueError as exc:
            self.notify(self.tr("Batch not submitted"), str(exc), error=True)
            return None
        added: list[str] = []
        existing: list[str] = []
        for i in range(0, len(tasks), chunk):
            part = self.scheduler.submit(tasks[i:i + chunk])
            added.extend(part.added)
            existing.extend(part.existing)
            if i + chunk < len(tasks):
                self.show_status(self.tr("Submitting… {n} of {m}").format(n=i + chunk, m=len(tasks)), 0)
                await asyncio.sleep(0)
        res = AddResult(tuple(added), tuple(existing))
        self._report_submit(res)
        return res

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
        n = self.scheduler.cancel(ids)
        self.show_status(self.tr("Cancel requested for {n} of {m} selected tasks").format(n=n, m=len(ids)))
        return n

    def retry_selected(self) -> int:
        ids = [t for t in self.selected_task_ids() if self.model.state_of(t) in ("failed", "canceled")]
        if not ids:
            self.show_status(self.tr("Nothing to retry: select failed or canceled tasks"))
            return 0
        n = self.scheduler.retry(ids)
        self.show_status(self.tr("Queued {n} tasks again").format(n=n))
        return n

    def set_paused(self, kind: str, paused: bool) -> None:
        self.scheduler.pause(kind, paused)
        act = self.act_pause_web if kind == "web" else self.act_pause_api
        if act.isChecked() != paused:
            act.blockSignals(True)
            act.setChecked(paused)
            act.blockSignals(False)
        self._label_pause(act, kind, paused)

    def _label_pause(self, act: QAction, kind: str, paused: bool) -> None:
        if kind == "web":
            act.setText(self.tr("Resume web") if paused else self.tr("Pause web"))
            act.setIcon(icon("start" if paused else "pause"))
        else:
            act.setText(self.tr("Resume API") if paused else self.tr("Pause API"))
            act.setIcon(icon("start" if paused else "pause"))

    def _sync_pause_actions(self, _ev: object) -> None:
        for kind, act in (("web", self.act_pause_web), ("api", self.act_pause_api)):
            lanes = [lane for lane in self.scheduler.lanes if lane.kind == kind]
            paused = bool(lanes) and all(lane.paused for lane in lanes)
            if act.isChecked() != paused:
                act.blockSignals(True)
                act.setChecked(paused)
                act.blockSignals(False)
                self._label_pause(act, kind, paused)

    # ------------------------------------------------------------------ export
    def export_dialog(self) -> None:
        path, flt = QFileDialog.getSaveFileName(
            self, self.tr("Export results"), str(Path.home() / "mediadesk-results.jsonl"),
            self.tr("JSON Lines (*.jsonl);;CSV (*.csv)"))
        if not path:
            return
        fmt = "csv" if path.lower().endswith(".csv") or "csv" in flt.lower() else "jsonl"

        def failed(exc: BaseException) -> None:
            self.notify(self.tr("Export failed"), str(exc), error=True)

        self._jobs.spawn(self.export_to(Path(path), fmt), "console:export", on_error=failed)

    async def export_to(self, path: Path, fmt: str) -> int:
        """Write the export in a worker thread; returns the number of tasks written."""
        self.show_status(self.tr("Exporting to {path}…").format(path=path), 0)
        n = await asyncio.to_thread(export_to_file, self.db_path, path, fmt)
        self.show_status(self.tr("Exported {n} tasks to {path}").format(n=n, path=path))
        return n

    # ------------------------------------------------------------------ filters, selection, status
    def apply_filters(self) -> None:
        self._search_timer.stop()
        state = self.state_combo.currentData()
        self.proxy.set_filters(
            kind=self.kind_combo.currentData(),
            states=[state] if state else None,
            profile=self.profile_combo.currentData(),
            text=self.search.text(),
        )
        self._update_status()

    def _focus_search(self) -> None:
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    def _show_current(self, proxy_row: int) -> None:
        ids = self.proxy.task_ids([proxy_row]) if proxy_row >= 0 else []
        self.detail.show_task(ids[0] if ids else None)

    def _on_tick(self) -> None:
        self.model.refresh_running()
        self._update_status()

    def _update_status(self) -> None:
        total = self.model.rowCount()
        shown = self.proxy.rowCount()
        text = self.tr("{total} tasks").format(total=f"{total:,}")
        if shown != total:
            text = self.tr("{shown} of {total} tasks shown").format(shown=f"{shown:,}", total=f"{total:,}")
        self.status_label.setText(text)

    def show_status(self, text: str, timeout_ms: int = 8000) -> None:
        self.last_message = text
        self.statusBar().showMessage(text, timeout_ms)

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
