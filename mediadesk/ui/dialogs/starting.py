"""The small window that says what is starting, shown the moment a start is asked for ("Try the
demo", ``--demo``) until the main window is up: a start that takes seconds never shows nothing.

It only shows words (:meth:`StartingWindow.step`); the steps come from
:attr:`WorkspaceSession.on_step <mediadesk.ui.app.workspace_session.WorkspaceSession.on_step>`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QProgressBar, QVBoxLayout, QWidget

from mediadesk.ui.plain import plain

__all__ = ["StartingWindow"]


class StartingWindow(QWidget):
    """A title, a busy bar and the current step."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("startingWindow")
        self.setWindowTitle(title)
        self.title = QLabel(title)
        f = self.title.font()
        f.setBold(True)
        f.setPointSizeF(f.pointSizeF() * 1.2)
        self.title.setFont(f)
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)  # busy: the steps have no known length
        self.bar.setTextVisible(False)
        self.label = plain(QLabel(self.tr("Starting…")))  # a step may quote a folder
        self.label.setObjectName("startingStep")
        self.label.setWordWrap(True)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(24, 20, 24, 20)
        lay.addWidget(self.title)
        lay.addWidget(self.bar)
        lay.addWidget(self.label)
        self.resize(460, 140)
        #: Every step shown, in order (tests and the bench read it).
        self.steps: list[str] = []

    def step(self, text: str) -> None:
        """Show ``text`` as what is starting now (painted at once, before the next await)."""
        self.steps.append(text)
        self.label.setText(text)
        self.label.repaint()
