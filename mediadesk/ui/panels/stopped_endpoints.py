"""The top of the Exceptions tab: API endpoints stopped until the operator acts (their key rejected,
a TLS error), from ``Scheduler.stopped_endpoints()``. Each row says why, since when and how many
tasks wait (pending, none charged); "Check and resume" sends one authenticated one-token request
through the endpoint's own client and resumes it unless the key is still rejected (or TLS still
fails), saying which. Hidden while no endpoint is stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mediadesk.scheduler.checks import Verdict
from mediadesk.scheduler.events import LaneStats
from mediadesk.scheduler.exceptions import EndpointStop
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.format import fmt_clock, fmt_count, key_source_text
from mediadesk.ui.plain import plain, plain_tip

log = logging.getLogger(__name__)

__all__ = ["StoppedEndpoints"]


class StoppedEndpoints(QWidget):
    """The stopped endpoints and the operator's Resume."""

    #: How many endpoints are stopped (for the tab title).
    countChanged = Signal(int)
    #: A Resume finished: (endpoint, resumed?).
    resumeDone = Signal(str, bool)

    def __init__(self, scheduler: Scheduler, bridge: SchedulerBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scheduler = scheduler
        self.stops: list[EndpointStop] = []
        self._seen: tuple[tuple[str, str | None], ...] = ()
        self._tasks: set[asyncio.Task[None]] = set()
        self.title = plain(QLabel(self.tr(
            "Stopped endpoints: they take no task and are not probed until you act. Set the right API key "
            "(or fix the config), then Check and resume. Their tasks wait; nothing is charged.")))
        self.title.setWordWrap(True)
        self.table = QTableWidget(0, 4)
        self.table.setObjectName("stoppedEndpointsTable")
        self.table.setHorizontalHeaderLabels(
            [self.tr("Endpoint"), self.tr("Why"), self.tr("Since"), self.tr("Tasks waiting")])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setMaximumHeight(120)
        self.resume_button = QPushButton(self.tr("Check and resume"))
        self.resume_button.setToolTip(self.tr(
            "Sends one one-token request with the endpoint's key; resumes the endpoint unless the key is still "
            "rejected"))
        self.resume_button.clicked.connect(lambda: self.resume_current())
        self.status_label = plain(QLabel())
        self.status_label.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.resume_button)
        row.addWidget(self.status_label, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 4)
        lay.addWidget(self.title)
        lay.addWidget(self.table)
        lay.addLayout(row)
        bridge.laneStats.connect(self._on_stats)
        self.refresh()

    # ------------------------------------------------------------------ API
    def refresh(self) -> None:
        self.stops = self.scheduler.stopped_endpoints() if self.scheduler.started else []
        self._seen = tuple(sorted((s.endpoint, s.reason) for s in self.stops))
        keep = self.current_endpoint()
        self.table.setRowCount(len(self.stops))
        for i, st in enumerate(self.stops):
            why = (self.tr("{reason}; the key comes from {source}").format(
                reason=st.reason, source=key_source_text(st.key_env, st.key_keyring)) if st.key_rejected
                else st.reason)
            for col, text in enumerate((st.endpoint, why, fmt_clock(st.since), fmt_count(st.waiting))):
                item = QTableWidgetItem(text)
                item.setToolTip(plain_tip(why))
                self.table.setItem(i, col, item)
        rows = [i for i, st in enumerate(self.stops) if st.endpoint == keep] or ([0] if self.stops else [])
        if rows:
            self.table.setCurrentCell(rows[0], 0)
        self.setVisible(bool(self.stops))
        self.resume_button.setEnabled(bool(self.stops) and not self._tasks)
        self.countChanged.emit(len(self.stops))

    def current_endpoint(self) -> str | None:
        row = self.table.currentRow()
        return self.stops[row].endpoint if 0 <= row < len(self.stops) else None

    def resume_current(self) -> asyncio.Task[None] | None:
        """Check the selected endpoint's key and resume it; the result shows beside the button.
        Returns the task (tests await it)."""
        name = self.current_endpoint()
        if name is None:
            return None
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
        self.resume_button.setEnabled(False)
        self.status_label.setText(self.tr("Checking {name}…").format(name=name))
        task = loop.create_task(self._resume(name))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # ------------------------------------------------------------------ internals
    async def _resume(self, name: str) -> None:
        try:
            check = await self.scheduler.resume_endpoint(name)
        except Exception as exc:  # a check never takes the window down
            log.exception("resume of %s failed", name)
            resumed, text = False, self.tr("Could not check {name}: {error}").format(name=name, error=exc)
        else:
            resumed = check.verdict not in (Verdict.KEY_REJECTED, Verdict.TLS)
            if resumed:
                text = self.tr("{name} resumed ({seen}); its tasks are dispatched again.").format(
                    name=name, seen=check.seen)
            elif check.verdict is Verdict.KEY_REJECTED:
                text = self.tr("{name}: the key is still rejected ({seen}); it stays stopped. An environment "
                               "variable is read when MediaDesk starts: after changing one, restart.").format(
                    name=name, seen=check.seen)
            else:
                text = self.tr("{name}: still failing ({seen}); it stays stopped.").format(name=name, seen=check.seen)
        with contextlib.suppress(RuntimeError):  # the view was closed meanwhile
            self.status_label.setText(text)
            self._tasks.clear()
            self.refresh()
            self.resumeDone.emit(name, resumed)

    def _on_stats(self, ev: LaneStats) -> None:
        c = ev.callee
        if c is None or c.kind != "endpoint":
            return
        listed = any(name == c.name for name, _ in self._seen)
        if (c.stopped is not None) != listed:
            self.refresh()
