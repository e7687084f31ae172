"""The "disable this busy account?" box, kept true while it is open.

The question names the task the account is running; that task may end while the operator reads
it. Left as it was, the box would go on offering "Cancel it" for a task that is already done (a
click that does nothing). So the accounts panel tells the box when the account's lane no longer
runs the named tasks and they are final (:meth:`DisableQuestionBox.task_finished`): the text says
the task has finished and the choice becomes "Disable" or "Keep enabled".
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QMessageBox, QWidget

from mediadesk.ui.plain import plain

__all__ = ["DisableQuestionBox"]


class DisableQuestionBox(QMessageBox):
    """Let it finish / Cancel it / Keep enabled, until :meth:`task_finished`: Disable / Keep enabled."""

    def __init__(self, account: str, text: str, parent: QWidget | None = None, *, tasks: Sequence[str] = ()) -> None:
        super().__init__(parent)
        plain(self)  # the text quotes a prompt
        self.account = account
        #: The running tasks the question names.
        self.tasks = tuple(tasks)
        self.task_done = False
        self.setObjectName("disableQuestion")
        self.setIcon(QMessageBox.Icon.Question)
        self.setWindowTitle(self.tr("Disable account"))
        self.setText(text)
        self.finish_button = self.addButton(self.tr("Let the running task finish"), QMessageBox.ButtonRole.AcceptRole)
        self.cancel_button = self.addButton(self.tr("Cancel it"), QMessageBox.ButtonRole.DestructiveRole)
        self.disable_button = self.addButton(self.tr("Disable"), QMessageBox.ButtonRole.AcceptRole)
        self.keep_button = self.addButton(self.tr("Keep enabled"), QMessageBox.ButtonRole.RejectRole)
        self.disable_button.hide()
        self.setDefaultButton(self.finish_button)
        self.setEscapeButton(self.keep_button)

    def task_finished(self) -> None:
        """The task the question named has ended: say so, and offer only what still means something."""
        if self.task_done:
            return
        self.task_done = True
        self.setText(self.tr("The task {name} was running has finished. Disable {name} now? It takes no "
                             "new task while you decide.").format(name=self.account))
        self.finish_button.hide()
        self.cancel_button.hide()
        self.disable_button.show()
        self.setDefaultButton(self.disable_button)
