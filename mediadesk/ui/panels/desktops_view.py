"""The Desktops tab (team mode): every desktop working the shared queue, with its host, operator,
accounts, running tasks and heartbeat age, this desktop marked.

The list comes from the scheduler's team seat (:meth:`Scheduler.desktops`, refreshed by its beat);
reading it costs no database round trip on the GUI thread. A desktop gone for more than
:data:`GONE_SHOWN_S` is left out (every process start is a new desktop: the list would only grow).
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

__all__ = ["GONE_SHOWN_S", "DesktopsView", "alive_count"]

#: A desktop gone (left, or no heartbeat) longer than this is no longer listed.
GONE_SHOWN_S = 3600.0

HOST, OPERATOR, ACCOUNTS, RUNNING, HEARTBEAT, STATE = range(6)


def alive_count(desktops: Sequence[DesktopInfo]) -> int:
    return sum(1 for d in desktops if d.alive)


class DesktopsView(QWidget):
    """``rows`` holds what is shown, in table order (tests)."""

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
        self.table.setObjectName("desktopsTable")
        self.table.setHorizontalHeaderLabels([
            self.tr("Host"), self.tr("Operator"), self.tr("Accounts"), self.tr("Running"),
            self.tr("Last heartbeat"), self.tr("State"),
        ])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(ACCOUNTS, QHeaderView.ResizeMode.Stretch)
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(self.table)
        self._timer = QTimer(self)
        self._timer.setInterval(refresh_ms)
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()

    def _tick(self) -> None:
        if self.isVisible():  # a tab behind another one is refreshed when it is brought to the front
            self.refresh()

    def close_jobs(self) -> None:
        self._timer.stop()

    def refresh(self) -> None:
        shown = [d for d in self._source() if d.alive or d.owner == self._own or d.heartbeat_age_s <= GONE_SHOWN_S]
        rows = sorted(shown, key=lambda d: (not d.alive, d.owner != self._own, d.host, d.owner))
        self.rows = rows
        self.summary.setText(self.tr("%n desktop(s) working this queue", "", alive_count(rows)))
        self.table.setRowCount(len(rows))
        for i, d in enumerate(rows):
            host = d.host + (self.tr(" (this desktop)") if d.owner == self._own else "")
            state = self.tr("working") if d.alive else self.tr("gone")
            age = self.tr("%1 ago").replace("%1", fmt_seconds(max(0.0, d.heartbeat_age_s)))
            cells = (host, d.operator, ", ".join(d.accounts), fmt_count(d.running_tasks), age, state)
            tip = d.owner
            if d.held_accounts:
                tip += "\n" + self.tr("running accounts: %1").replace("%1", ", ".join(d.held_accounts))
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(tip)
                if j == RUNNING:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, j, item)
        self.updated.emit()
