"""Batch submission from the window: the staging dialog, the demo batch, and rows to tasks through
the scheduler's intake (:class:`mediadesk.scheduler.intake.Intake`, as the CLI does), with the
refusal (caps, unknown profile, unset API key variable) and the result shown to the operator.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt

from mediadesk.core.batch import BatchRow, parse_pasted
from mediadesk.scheduler.intake import SUBMIT_CHUNK, MissingApiKeysError
from mediadesk.store.errors import StorageError
from mediadesk.store.taskstore import AddResult
from mediadesk.ui.dialogs.batch_dialog import BatchDialog
from mediadesk.ui.jobs.workers import cyclic_gc_paused, release_free_memory

if TYPE_CHECKING:
    from mediadesk.ui.window.main_window import MainWindow

__all__ = ["BatchSubmission"]


class BatchSubmission:
    """Submits batches for ``window`` (which keeps the open dialog as ``batch_dialog``; the texts
    keep the ``MainWindow`` translation context)."""

    def __init__(self, window: MainWindow) -> None:
        self.w = window

    def open_batch_dialog(self, path: Path | str | None = None) -> BatchDialog:
        """Open the staging dialog (non-modal to the loop: ``open()``, not ``exec()``); its
        accepted rows are submitted. ``path``: pre-load a file (drag-and-drop, demo)."""
        w = self.w
        if w.batch_dialog is not None:
            w.batch_dialog.close()
        names = w.scheduler.profile_names()
        dlg = BatchDialog([w.scheduler.profile_view(n) for n in names], w, known_profiles=names)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        dlg.accepted.connect(lambda: self._submit_accepted(dlg))
        dlg.destroyed.connect(lambda *_: self._dialog_gone(dlg))
        if path is not None:
            dlg.load_file(Path(path))
        w.batch_dialog = dlg
        dlg.open()
        return dlg

    def _dialog_gone(self, dlg: BatchDialog) -> None:
        if self.w.batch_dialog is dlg:
            self.w.batch_dialog = None

    @staticmethod
    def _batch_name(batch: str | None) -> str:
        return batch or time.strftime("console-%Y%m%d-%H%M%S")

    def submit_rows(self, rows: Sequence[BatchRow], *, batch: str | None = None) -> AddResult | None:
        """Turn staged rows into tasks (deterministic ids, as the CLI does) and submit them in one
        transaction, through the scheduler's intake (caps and key check as for the CLI). For big
        batches prefer :meth:`submit_rows_async` (the dialog does)."""
        if not rows:
            return None
        try:
            res = self.w.scheduler.intake.submit_rows(rows, self._batch_name(batch)).result
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
                done = await self.w.scheduler.intake.submit_rows_async(
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
        self.w.show_status(QCoreApplication.translate("MainWindow", "Submitting… {n} of {m}").format(n=done, m=total),
                           0)

    def _refused(self, exc: ValueError) -> None:
        """A batch refused whole (nothing submitted): caps, unknown profile, or an API key variable
        that is unset (one message naming it, instead of one ``auth`` failure per task; the
        console's environment is fixed when it starts, so the operator sets it and starts again)."""
        if not isinstance(exc, MissingApiKeysError):
            self.w.notify(QCoreApplication.translate("MainWindow", "Batch not submitted"), str(exc), error=True)
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
        self.w.notify(QCoreApplication.translate("MainWindow", "Batch not submitted"), "\n".join(lines), error=True)

    def _submit_accepted(self, dlg: BatchDialog) -> None:
        w = self.w
        rows, batch = dlg.rows(), dlg.source_name()
        if len(rows) <= SUBMIT_CHUNK:
            w.submit_rows(rows, batch=batch)
        else:
            w._jobs.spawn(w.submit_rows_async(rows, batch=batch), "console:submit")

    def _report_submit(self, res: AddResult) -> None:
        msg = QCoreApplication.translate("MainWindow", "Submitted {added} tasks").format(added=len(res.added))
        if res.existing:
            msg += QCoreApplication.translate("MainWindow", " ({n} already present, left unchanged)").format(
                n=len(res.existing))
        self.w.show_status(msg)

    def submit_rows_from_text(self, text: str, profile: str, priority: int = 0) -> AddResult | None:
        """One prompt per line for ``profile`` (the dialog's paste path without the dialog)."""
        return self.w.submit_rows(parse_pasted(text, profile=profile, priority=priority).rows)

    def set_demo_batch(self, path: Path) -> None:
        w = self.w
        w.demo_batch = path
        w.act_demo.setVisible(True)
        w.show_status(QCoreApplication.translate(
            "MainWindow", "Demo mode: press “Load demo batch” to stage the demo tasks."), 0)
