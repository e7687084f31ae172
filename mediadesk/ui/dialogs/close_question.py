"""Closing the console while work is in progress asks first.

"N running, M pending": **Quit** (the scheduler stops as always: running attempts go back to
pending, their attempt refunded, and resume at the next start), **Keep running in the tray** (the
window hides, the lanes keep working; offered only when the system has a tray), **Cancel** (nothing
happens). Nothing is asked when no task runs or waits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMessageBox, QWidget

from mediadesk.scheduler.scheduler import Scheduler

__all__ = ["CloseChoice", "CloseGuard", "CloseQuestion", "ask_close", "work_in_progress"]


class CloseChoice(str, Enum):
    QUIT = "quit"
    TRAY = "tray"
    CANCEL = "cancel"


@dataclass(frozen=True)
class CloseQuestion:
    running: int
    pending: int
    #: "Keep running in the tray" is offered (the system has a tray).
    tray: bool


def work_in_progress(scheduler: Scheduler) -> tuple[int, int]:
    """(running, pending) tasks in the scheduler's database; (0, 0) once it has stopped or failed."""
    if not scheduler.started or scheduler.storage_error is not None:
        return 0, 0
    try:
        store = scheduler.store
        unfinished = store.unfinished_count()
        running = len(store.running())
    except Exception:  # a database that failed under us: nothing can resume from here anyway
        return 0, 0
    return running, max(0, unfinished - running)


def question_text(q: CloseQuestion) -> str:
    text = QCoreApplication.translate(
        "CloseQuestion", "{running} running, {pending} pending.").format(running=q.running, pending=q.pending)
    text += "\n\n" + QCoreApplication.translate(
        "CloseQuestion", "Quit: running tasks go back to the queue and resume at the next start.")
    if q.tray:
        text += "\n" + QCoreApplication.translate(
            "CloseQuestion", "Keep running in the tray: the window hides and the lanes keep working.")
    return text


def ask_close(parent: QWidget | None, q: CloseQuestion) -> CloseChoice:
    """The modal question (the loop keeps running under ``exec()``: lanes do not stop while it is open)."""
    box = QMessageBox(QMessageBox.Icon.Question, QCoreApplication.translate("CloseQuestion", "Work in progress"),
                      question_text(q), QMessageBox.StandardButton.NoButton, parent)
    box.setObjectName("closeQuestion")
    quit_b = box.addButton(QCoreApplication.translate("CloseQuestion", "Quit"), QMessageBox.ButtonRole.DestructiveRole)
    tray_b = (box.addButton(QCoreApplication.translate("CloseQuestion", "Keep running in the tray"),
                            QMessageBox.ButtonRole.AcceptRole) if q.tray else None)
    cancel_b = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(tray_b if tray_b is not None else cancel_b)
    box.setEscapeButton(cancel_b)
    box.exec()
    clicked = box.clickedButton()
    if clicked is quit_b:
        return CloseChoice.QUIT
    if tray_b is not None and clicked is tray_b:
        return CloseChoice.TRAY
    return CloseChoice.CANCEL


class CloseGuard:
    """The main window's ``close_guard``: returns True when the window may close now.

    ``ask`` is injectable (tests answer without a dialog); ``hide_to_tray`` hides the window and
    tells the operator where it went. :meth:`quit_now` closes without asking (the tray's Quit)."""

    def __init__(self, window: QWidget, scheduler: Scheduler, *, tray_available: Callable[[], bool],
                 hide_to_tray: Callable[[], None]) -> None:
        self.window = window
        self.scheduler = scheduler
        self.tray_available = tray_available
        self.hide_to_tray = hide_to_tray
        self.ask: Callable[[CloseQuestion], CloseChoice] = lambda q: ask_close(self.window, q)
        self.asked: list[CloseQuestion] = []
        self._quitting = False

    def __call__(self) -> bool:
        if self._quitting:
            return True
        running, pending = work_in_progress(self.scheduler)
        if running == 0 and pending == 0:
            return True
        q = CloseQuestion(running, pending, self.tray_available())
        self.asked.append(q)
        choice = self.ask(q)
        if choice is CloseChoice.TRAY and not q.tray:
            choice = CloseChoice.CANCEL
        if choice is CloseChoice.QUIT:
            self._quitting = True
            return True
        if choice is CloseChoice.TRAY:
            self.hide_to_tray()
        return False

    def quit_now(self) -> None:
        self._quitting = True

    def confirm_quit(self) -> bool:
        """File > Quit: True when the console may quit now. Asked only with work in progress, and
        without "Keep running in the tray" (the operator chose to quit, not to hide)."""
        running, pending = work_in_progress(self.scheduler)
        if running or pending:
            q = CloseQuestion(running, pending, False)
            self.asked.append(q)
            if self.ask(q) is not CloseChoice.QUIT:
                return False
        self._quitting = True
        return True
