"""The Desktops tab (team mode): every desktop working the shared queue, with its host, operator,
accounts, running tasks and heartbeat age.

The list comes from the scheduler's team seat (:meth:`TeamLink.desktops`), refreshed by its beat;
reading it costs no database round trip on the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mediadesk.store.team import DesktopInfo
from mediadesk.ui.format import fmt_count, fmt_seconds

__all__ = ["DesktopsView"]


class DesktopsView(QWidget):
    """``rows`` holds what is shown (tests)."""

    updated = Signal()

    def __init__(self, source: Callable[[], Sequence[DesktopInfo]], own_owner: str,
                 parent: QWidget | None = None, *, refresh_ms: int = 2000) -> None:
        super().__init__(parent)
        self.setObjectName("desktopsView")
        self._source = source
        self._own = own_owner
        self.rows: list[DesktopInfo] = []
        self.summary = QLabel(self)
        self.table = QTableWidget(0, 6, self)
        self.table.setHorizontalHeaderLabels([
            self.tr("Host"), self.tr("Operator"), self.tr("Accounts"), self.tr("Running"),
            self.tr("Last heartbeat"), self.tr("State"),
        ])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(self.table)
        self._timer = QTimer(self)
        self._timer.setInterval(refresh_ms)
        self._timer.timeout.connect(self.refresh)
        self._timer.start()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()

    def refresh(self) -> None:
        rows = sorted(self._source(), key=lambda d: (not d.alive, d.owner != self._own, d.host, d.owner))
        self.rows = rows
        alive = sum(1 for d in rows if d.alive)
        self.summary.setText(self.tr("%n desktop(s) working this queue", "", alive))
        self.table.setRowCount(len(rows))
        for i, d in enumerate(rows):
            host = d.host + (self.tr(" (this desktop)") if d.owner == self._own else "")
            state = self.tr("working") if d.alive else self.tr("gone")
            age = self.tr("%1 ago").replace("%1", fmt_seconds(d.heartbeat_age_s))
            cells = (host, d.operator, ", ".join(d.accounts) if not isinstance(d.accounts, str) else d.accounts,
                     fmt_count(d.running_tasks), age, state)
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(d.owner)
                if j == 3:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, j, item)
        self.updated.emit()
