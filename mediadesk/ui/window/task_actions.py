"""What the task table's actions do: the selected rows, cancel, retry, pause a lane kind, export.

Each is one call on the :class:`~mediadesk.scheduler.scheduler.Scheduler` (or one export in a worker
thread) and a status line. Copying rows and the row and header menus are in
:mod:`mediadesk.ui.window.table_menu`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject
from PySide6.QtWidgets import QFileDialog, QTableView, QWidget

from mediadesk.core.batch import templates_dir
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.store.errors import StorageError
from mediadesk.store.export import export_to_file
from mediadesk.store.into_sheet import IntoSheet, batch_choices, export_into_sheet
from mediadesk.ui.jobs.workers import TaskJobs
from mediadesk.ui.models.task_model import TaskFilterProxy, TaskTableModel
from mediadesk.ui.window.actions import WindowActions
from mediadesk.ui.window.grouped_view import GroupedTable
from mediadesk.ui.window.status_line import Notify, ShowStatus
from mediadesk.ui.window.table_menu import CONFIRM_CANCEL_ABOVE, ask_cancel_many, choose_export_file

__all__ = ["TaskActions"]


class TaskActions(QObject):
    """The table actions over ``table`` and ``grouped`` (whichever shows); ``parent`` owns the dialogs.

    The scheduler and the task model are one workspace's (:meth:`rebind` on a switch). Texts keep the
    ``MainWindow`` translation context."""

    def __init__(self, scheduler: Scheduler, model: TaskTableModel, proxy: TaskFilterProxy, table: QTableView,
                 grouped: GroupedTable, actions: WindowActions, jobs: TaskJobs, *, show_status: ShowStatus,
                 notify: Notify, parent: QWidget) -> None:
        super().__init__(parent)
        self.rebind(scheduler, model)
        self._proxy = proxy
        self._table = table
        self._grouped = grouped
        self._actions = actions
        self._jobs = jobs
        self._show_status = show_status
        self._notify = notify
        self._parent = parent
        #: Asked before cancelling from more than CONFIRM_CANCEL_ABOVE selected rows:
        #: (tasks to cancel, finished ones left as they are) -> go ahead?
        self.confirm_cancel: Callable[[int, int], bool] = lambda n, finished: ask_cancel_many(parent, n, finished)
        actions.export_into.triggered.connect(lambda: self.export_into_dialog())

    def rebind(self, scheduler: Scheduler, model: TaskTableModel) -> None:
        """Act on another workspace."""
        self._scheduler = scheduler
        self._model = model

    def selected_task_ids(self) -> list[str]:
        if self._grouped.active:  # a batch row stands for its tasks
            return self._grouped.selected_task_ids()
        rows: list[int] = []
        sel = self._table.selectionModel().selection()
        for i in range(sel.count()):
            rng = sel.at(i)
            rows.extend(range(rng.top(), rng.bottom() + 1))
        return self._proxy.task_ids(sorted(set(rows)))

    def cancel_selected(self) -> int:
        selected = self.selected_task_ids()
        if not selected:
            return 0
        # only what can still be canceled is counted and asked about: finished rows are left as they are
        ids = [t for t in selected if self._model.state_of(t) in ("pending", "running")]
        finished = len(selected) - len(ids)
        if not ids:
            self._show_status(QCoreApplication.translate(
                "MainWindow", "Nothing to cancel: the selected tasks have all finished"))
            return 0
        if len(selected) > CONFIRM_CANCEL_ABOVE and not self.confirm_cancel(len(ids), finished):
            self._show_status(QCoreApplication.translate("MainWindow", "Nothing canceled"))
            return 0
        try:
            n = self._scheduler.cancel(ids)
        except StorageError:  # halted; the StorageFailed event shows the box and status
            return 0
        self._show_status(QCoreApplication.translate("MainWindow", "Cancel requested for {n} of {m} selected tasks")
                          .format(n=n, m=len(selected)))
        return n

    def retry_selected(self) -> int:
        ids = [t for t in self.selected_task_ids() if self._model.state_of(t) in ("failed", "canceled")]
        if not ids:
            self._show_status(QCoreApplication.translate(
                "MainWindow", "Nothing to retry: select failed or canceled tasks"))
            return 0
        try:
            n = self._scheduler.retry(ids)
        except StorageError:  # halted; the StorageFailed event shows the box and status
            return 0
        self._show_status(QCoreApplication.translate("MainWindow", "Queued {n} tasks again").format(n=n))
        return n

    def set_paused(self, kind: str, paused: bool) -> None:
        self._scheduler.pause(kind, paused)
        self._actions.show_paused(kind, paused)

    def sync_pause_actions(self, _ev: object = None) -> None:
        """The pause actions show what the lanes say (a pause kept from before, the tray's pause)."""
        for kind in ("web", "api"):
            lanes = [lane for lane in self._scheduler.lanes if lane.kind == kind]
            paused = bool(lanes) and all(lane.paused for lane in lanes)
            if self._actions.pause_action(kind).isChecked() != paused:
                self._actions.show_paused(kind, paused)

    # ------------------------------------------------------------------ export
    def export_dialog(self, scope: str = "all") -> None:
        """Ask for a file and export ``scope``: "all" tasks, the "filtered" rows or the "selected"
        rows (JSONL, CSV, XLSX or Markdown, by the file's suffix)."""
        if scope == "selected" and not self.selected_task_ids():
            self._show_status(QCoreApplication.translate("MainWindow", "Nothing selected to export"))
            return
        chosen = choose_export_file(self._parent, scope)
        if chosen is None:
            return
        path, fmt = chosen

        def failed(exc: BaseException) -> None:
            self._notify(QCoreApplication.translate("MainWindow", "Export failed"), str(exc), error=True)

        self._jobs.spawn(self.export_to(path, fmt, scope), "console:export", on_error=failed)

    def export_ids(self, scope: str) -> list[str] | None:
        """Task ids of ``scope`` in table order; None for "all" (every task in the database)."""
        if scope == "selected":
            return self.selected_task_ids()
        if scope == "filtered":
            return self._proxy.visible_task_ids()
        return None

    async def export_to(self, path: Path, fmt: str, scope: str = "all") -> int:
        """Write the export in a worker thread; returns the number of tasks written."""
        ids = self.export_ids(scope)
        if ids is not None and not ids:
            self._show_status(
                QCoreApplication.translate("MainWindow", "Nothing selected to export") if scope == "selected"
                else QCoreApplication.translate("MainWindow", "No rows to export: the filters show none"))
            return 0
        self._show_status(QCoreApplication.translate("MainWindow", "Exporting to {path}…").format(path=path), 0)
        location = self._scheduler.workspace.location
        n = await asyncio.to_thread(export_to_file, location, path, fmt, task_ids=ids)
        self._show_status(QCoreApplication.translate("MainWindow", "Exported {n} tasks to {path}").format(
            n=n, path=path))
        return n

    def export_into_dialog(self) -> None:
        """Ask for a batch's .xlsx or .csv file and write the copy with its rows' results beside it."""
        path, _flt = QFileDialog.getOpenFileName(
            self._parent, QCoreApplication.translate("MainWindow", "Export into the original spreadsheet"),
            str(Path.home()), QCoreApplication.translate("MainWindow", "Spreadsheets and CSV (*.xlsx *.csv)"))
        if not path:
            return

        def failed(exc: BaseException) -> None:
            self._notify(QCoreApplication.translate("MainWindow", "Export failed"), str(exc), error=True)

        self._jobs.spawn(self.export_into(Path(path)), "console:export-into", on_error=failed)

    async def export_into(self, source: Path) -> IntoSheet:
        """Write the copy of ``source`` with its results in a worker thread (the batch read as the staging
        dialog read it: the template and profile its tasks show); says where it went."""
        self._show_status(QCoreApplication.translate("MainWindow", "Writing the results into a copy of {path}…")
                          .format(path=source), 0)
        ws, config = self._scheduler.workspace, self._scheduler.config
        known = self._scheduler.profile_names()

        def work() -> IntoSheet:
            template, profile = batch_choices(ws.location, source)
            return export_into_sheet(ws.location, source, templates_dir=templates_dir(ws.data_dir),
                                     template=template, profile=profile, known_profiles=known,
                                     max_prompt_chars=config.scheduler.max_prompt_chars)

        done = await asyncio.to_thread(work)
        self._show_status(QCoreApplication.translate("MainWindow", "Wrote the results of {n} tasks into {path}")
                          .format(n=done.found, path=done.path))
        return done
