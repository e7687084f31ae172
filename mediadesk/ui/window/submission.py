"""Batch submission from the window: the staging dialog, the demo batch, and rows to tasks through
the scheduler's intake (:class:`mediadesk.scheduler.intake.Intake`, as the CLI does), with the
refusal (caps, unknown profile, unset API key variable) and the result shown to the operator.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from mediadesk.core.batch import BatchRow, parse_pasted, templates_dir
from mediadesk.scheduler.duplicates import Duplicates, Plan, RowRepeat
from mediadesk.scheduler.intake import SUBMIT_CHUNK, MissingApiKeysError
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.store import TaskReader
from mediadesk.store.errors import StorageError
from mediadesk.store.open_errors import StoreOpenError
from mediadesk.store.taskstore import AddResult
from mediadesk.ui.dialogs.batch_dialog import BatchDialog, FindRepeats
from mediadesk.ui.jobs.workers import TaskJobs, cyclic_gc_paused, release_free_memory
from mediadesk.ui.window.status_line import Notify, ShowStatus

__all__ = ["BatchSubmission"]

log = logging.getLogger(__name__)


class BatchSubmission:
    """Submits batches to ``scheduler`` (``rebind`` on a workspace switch); keeps the open staging
    :attr:`dialog` (a child of ``parent``) and the :attr:`demo_batch` that ``demo_action`` stages.
    Texts keep the ``MainWindow`` translation context."""

    def __init__(self, scheduler: Scheduler, parent: QWidget, demo_action: QAction, jobs: TaskJobs, *,
                 show_status: ShowStatus, notify: Notify) -> None:
        self.scheduler = scheduler
        self._parent = parent
        self._demo_action = demo_action
        self._jobs = jobs
        self._show_status = show_status
        self._notify = notify
        #: The staging dialog while it is open.
        self.dialog: BatchDialog | None = None
        #: The bundled demo batch ("Load demo batch"), when this workspace is the demo.
        self.demo_batch: Path | None = None

    def rebind(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler

    def open_batch_dialog(self, path: Path | str | None = None) -> BatchDialog:
        """Open the staging dialog (non-modal to the loop: ``open()``, not ``exec()``); its
        accepted rows are submitted. ``path``: pre-load a file (drag-and-drop, demo)."""
        self.close_dialog()
        names = self.scheduler.profile_names()
        dlg = BatchDialog([self.scheduler.profile_view(n) for n in names], self._parent, known_profiles=names,
                          templates_dir=templates_dir(self.scheduler.workspace.data_dir),
                          find_repeats=self._repeats_finder())
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        dlg.accepted.connect(lambda: self._submit_accepted(dlg))
        dlg.destroyed.connect(lambda *_: self._dialog_gone(dlg))
        if path is not None:
            dlg.load_file(Path(path))
        self.dialog = dlg
        dlg.open()
        return dlg

    def _repeats_finder(self) -> FindRepeats:
        """The staging preview's duplicate flags, found on the parse's worker thread through a reader of its
        own (the store is the loop thread's); a database that cannot be read flags nothing."""
        intake, location = self.scheduler.intake, self.scheduler.workspace.location

        def find(rows: Sequence[BatchRow]) -> Mapping[int, RowRepeat]:
            try:
                reader = TaskReader(location)
            except StoreOpenError:
                log.warning("duplicates not looked up: the database cannot be read", exc_info=True)
                return {}
            try:
                return intake.row_repeats(rows, reader.done_of)
            finally:
                reader.close()

        return find

    def open_demo_batch(self) -> None:
        if self.demo_batch is not None:
            self.open_batch_dialog(self.demo_batch)

    def close_dialog(self) -> None:
        if self.dialog is not None:
            self.dialog.close()

    def _dialog_gone(self, dlg: BatchDialog) -> None:
        if self.dialog is dlg:
            self.dialog = None

    @staticmethod
    def _batch_name(batch: str | None) -> str:
        return batch or time.strftime("console-%Y%m%d-%H%M%S")

    def submit_rows(self, rows: Sequence[BatchRow], *, batch: str | None = None,
                    duplicates: Duplicates | None = None) -> AddResult | None:
        """Staged rows to tasks in one transaction, through the scheduler's intake (caps and key
        check as for the CLI; repeats as ``duplicates`` says). Big batches go through
        :meth:`submit_rows_async`."""
        if not rows:
            return None
        try:
            done = self.scheduler.intake.submit_rows(rows, self._batch_name(batch), duplicates=duplicates)
        except StorageError:  # the scheduler halted; its StorageFailed event shows the box and status
            return None
        except ValueError as exc:
            self._refused(exc)
            return None
        self._report_submit(done.result, done.plan)
        return done.result

    async def submit_rows_async(self, rows: Sequence[BatchRow], *, batch: str | None = None,
                                chunk: int = SUBMIT_CHUNK, duplicates: Duplicates | None = None) -> AddResult | None:
        """The intake's chunked submit, on the GUI thread with the loop run between chunks (a
        worker thread doing pure Python would starve the GUI thread of the GIL); the cyclic GC is
        paused meanwhile (:func:`~mediadesk.ui.jobs.workers.cyclic_gc_paused`)."""
        if not rows:
            return None
        done = None
        with cyclic_gc_paused():
            try:
                done = await self.scheduler.intake.submit_rows_async(
                    rows, self._batch_name(batch), chunk=chunk, progress=self._submit_progress,
                    duplicates=duplicates)
            except StorageError:  # halted; the StorageFailed event shows the box and status
                pass
            except ValueError as exc:
                self._refused(exc)
        release_free_memory()  # the batch's tasks are freed now
        if done is None:
            return None
        self._report_submit(done.result, done.plan)
        return done.result

    def submit_rows_from_text(self, text: str, profile: str, priority: int = 0) -> AddResult | None:
        """One prompt per line for ``profile`` (the dialog's paste path without the dialog)."""
        return self.submit_rows(parse_pasted(text, profile=profile, priority=priority).rows)

    def _submit_progress(self, done: int, total: int) -> None:
        self._show_status(QCoreApplication.translate("MainWindow", "Submitting… {n} of {m}").format(
            n=done, m=total), 0)

    def _refused(self, exc: ValueError) -> None:
        """A batch refused whole (nothing submitted): caps, unknown profile, or an API key variable
        that is unset (one message naming it, instead of one ``auth`` failure per task; the
        console's environment is fixed when it starts, so the operator sets it and starts again)."""
        if not isinstance(exc, MissingApiKeysError):
            self._notify(QCoreApplication.translate("MainWindow", "Batch not submitted"), str(exc), error=True)
            return
        lines = [
            QCoreApplication.translate(
                "MainWindow",
                "Environment variable {env} is not set; profile(s) {profiles} read their API key from it.")
            .format(env=m.env, profiles=", ".join(m.profiles))
            for m in exc.missing
        ]
        lines.append(QCoreApplication.translate(
            "MainWindow",
            "Quit MediaDesk, run “export {env}=...” (the key itself) in the shell that starts it, or give "
            "those profiles api_key_keyring, then start it again."
        ).format(env=exc.missing[0].env))
        self._notify(QCoreApplication.translate("MainWindow", "Batch not submitted"), "\n".join(lines), error=True)

    def _submit_accepted(self, dlg: BatchDialog) -> None:
        rows, batch, duplicates = dlg.rows(), dlg.source_name(), dlg.duplicates()
        if len(rows) <= SUBMIT_CHUNK:
            self.submit_rows(rows, batch=batch, duplicates=duplicates)
        else:
            self._jobs.spawn(self.submit_rows_async(rows, batch=batch, duplicates=duplicates), "console:submit")

    def _report_submit(self, res: AddResult, plan: Plan | None = None) -> None:
        msg = QCoreApplication.translate("MainWindow", "Submitted {added} tasks").format(added=len(res.added))
        if res.existing:
            msg += QCoreApplication.translate("MainWindow", " ({n} already present, left unchanged)").format(
                n=len(res.existing))
        if plan is not None and plan.reuse:
            msg += QCoreApplication.translate("MainWindow", " ({n} earlier answers reused at no cost)").format(
                n=len(plan.reuse))
        self._show_status(msg)

    def set_demo_batch(self, path: Path | None) -> None:
        """The demo batch "Load demo batch" stages; None: no demo (the action is hidden)."""
        self.demo_batch = path
        self._demo_action.setVisible(path is not None)
        if path is not None:
            self._show_status(QCoreApplication.translate(
                "MainWindow", "Demo mode: press “Load demo batch” to stage the demo tasks."), 0)
