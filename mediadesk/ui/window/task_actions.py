"""What the task table's actions do: the selected rows, cancel, retry, pause a lane kind, export.

Each is one call on the :class:`~mediadesk.scheduler.scheduler.Scheduler` (or one export in a worker
thread) and a status line; the window's methods of the same names call these. Copying rows and the
row and header menus are in :mod:`mediadesk.ui.window.table_menu`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from mediadesk.store.errors import StorageError
from mediadesk.store.export import export_to_file
from mediadesk.ui.window.table_menu import CONFIRM_CANCEL_ABOVE, choose_export_file

if TYPE_CHECKING:
    from mediadesk.ui.window.main_window import MainWindow

__all__ = ["TaskActions"]


class TaskActions:
    """The table actions of ``window`` (its texts keep the ``MainWindow`` translation context)."""

    def __init__(self, window: MainWindow) -> None:
        self.w = window

    def selected_task_ids(self) -> list[str]:
        w = self.w
        if w.grouped.active:  # a batch row stands for its tasks
            return w.grouped.selected_task_ids()
        rows: list[int] = []
        sel = w.table.selectionModel().selection()
        for i in range(sel.count()):
            rng = sel.at(i)
            rows.extend(range(rng.top(), rng.bottom() + 1))
        return w.proxy.task_ids(sorted(set(rows)))

    def cancel_selected(self) -> int:
        w = self.w
        selected = w.selected_task_ids()
        if not selected:
            return 0
        # only what can still be canceled is counted and asked about: finished rows are left as they are
        ids = [t for t in selected if w.model.state_of(t) in ("pending", "running")]
        finished = len(selected) - len(ids)
        if not ids:
            w.show_status(QCoreApplication.translate(
                "MainWindow", "Nothing to cancel: the selected tasks have all finished"))
            return 0
        if len(selected) > CONFIRM_CANCEL_ABOVE and not w.confirm_cancel(len(ids), finished):
            w.show_status(QCoreApplication.translate("MainWindow", "Nothing canceled"))
            return 0
        try:
            n = w.scheduler.cancel(ids)
        except StorageError:  # halted; the StorageFailed event shows the box and status
            return 0
        w.show_status(QCoreApplication.translate("MainWindow", "Cancel requested for {n} of {m} selected tasks")
                      .format(n=n, m=len(selected)))
        return n

    def retry_selected(self) -> int:
        w = self.w
        ids = [t for t in w.selected_task_ids() if w.model.state_of(t) in ("failed", "canceled")]
        if not ids:
            w.show_status(QCoreApplication.translate("MainWindow", "Nothing to retry: select failed or canceled tasks"))
            return 0
        try:
            n = w.scheduler.retry(ids)
        except StorageError:  # halted; the StorageFailed event shows the box and status
            return 0
        w.show_status(QCoreApplication.translate("MainWindow", "Queued {n} tasks again").format(n=n))
        return n

    def set_paused(self, kind: str, paused: bool) -> None:
        self.w.scheduler.pause(kind, paused)
        self.w.window_actions.show_paused(kind, paused)

    def sync_pause_actions(self, _ev: object) -> None:
        w = self.w
        for kind in ("web", "api"):
            lanes = [lane for lane in w.scheduler.lanes if lane.kind == kind]
            paused = bool(lanes) and all(lane.paused for lane in lanes)
            if w.window_actions.pause_action(kind).isChecked() != paused:
                w.window_actions.show_paused(kind, paused)

    # ------------------------------------------------------------------ export
    def export_dialog(self, scope: str = "all") -> None:
        """Ask for a file and export ``scope``: "all" tasks, the "filtered" rows or the "selected"
        rows (JSONL, CSV, XLSX or Markdown, by the file's suffix)."""
        w = self.w
        if scope == "selected" and not w.selected_task_ids():
            w.show_status(QCoreApplication.translate("MainWindow", "Nothing selected to export"))
            return
        chosen = choose_export_file(w, scope)
        if chosen is None:
            return
        path, fmt = chosen

        def failed(exc: BaseException) -> None:
            w.notify(QCoreApplication.translate("MainWindow", "Export failed"), str(exc), error=True)

        w._jobs.spawn(w.export_to(path, fmt, scope), "console:export", on_error=failed)

    def export_ids(self, scope: str) -> list[str] | None:
        """Task ids of ``scope`` in table order; None for "all" (every task in the database)."""
        if scope == "selected":
            return self.w.selected_task_ids()
        if scope == "filtered":
            return self.w.proxy.visible_task_ids()
        return None

    async def export_to(self, path: Path, fmt: str, scope: str = "all") -> int:
        """Write the export in a worker thread; returns the number of tasks written."""
        w = self.w
        ids = w.export_ids(scope)
        if ids is not None and not ids:
            w.show_status(QCoreApplication.translate("MainWindow", "Nothing selected to export") if scope == "selected"
                          else QCoreApplication.translate("MainWindow", "No rows to export: the filters show none"))
            return 0
        w.show_status(QCoreApplication.translate("MainWindow", "Exporting to {path}…").format(path=path), 0)
        n = await asyncio.to_thread(export_to_file, w.location, path, fmt, task_ids=ids)
        w.show_status(QCoreApplication.translate("MainWindow", "Exported {n} tasks to {path}").format(n=n, path=path))
        return n
