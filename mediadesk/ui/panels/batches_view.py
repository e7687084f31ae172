"""The Batches tab: one row per batch with its counts, progress, ETA and done time.

Counts come from the task table (read in a worker thread every 2 s while the tab is visible, so
they survive a restart); the ETA is :func:`mediadesk.viewmodel.batches.batch_rows` over those
counts and the lanes' latest stats (bridge ``laneStats``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

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

from mediadesk.config.location import StoreLocation
from mediadesk.core.eta import MIN_SAMPLES
from mediadesk.core.spend import Totals
from mediadesk.scheduler.events import LaneStats
from mediadesk.store.metrics import BatchCounts, MetricsReader, ensure_metrics_indexes
from mediadesk.store.usage import UsageSum
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.format import fmt_clock, fmt_eta, fmt_tokens
from mediadesk.ui.jobs.workers import TaskJobs
from mediadesk.viewmodel.batches import BatchRow, LaneInfo, batch_rows

__all__ = ["BatchesView", "read_batches"]


_Read = tuple[list[BatchCounts], dict[str, list[float]], dict[str | None, UsageSum], dict[str | None, Totals]]


def read_batches(location: StoreLocation | Path, lanes: Sequence[str] = (), *, ensure_indexes: bool = False,
                 ) -> _Read:
    """Every batch's counts, the lanes' recent run times, the tokens and the spend (per currency) per
    batch, from the store (worker thread)."""
    if ensure_indexes:
        ensure_metrics_indexes(location)
    with MetricsReader(location) as r:
        spend: dict[str | None, Totals] = {}
        for row in r.spend("batch"):
            spend.setdefault(row.key, Totals.empty()).merge(
                Totals({row.currency: row.cost} if row.currency else {}, row.tokens, row.tasks, row.estimated))
        return r.batches(), r.recent_run_times(lanes), r.usage("batch"), spend


class BatchesView(QWidget):
    """Batches, newest first. ``rows`` holds what is shown (tests)."""

    updated = Signal()
    COLUMNS = 12

    def __init__(self, location: StoreLocation | Path, lanes: Sequence[LaneInfo], bridge: SchedulerBridge | None = None,
                 parent: QWidget | None = None, *, clock: Callable[[], float] = time.time,
                 refresh_ms: int = 2000) -> None:
        super().__init__(parent)
        self.setObjectName("batchesView")
        self.location = location
        self._lanes = list(lanes)
        self._stats: dict[str, LaneStats] = {}
        self._clock = clock
        self._jobs = TaskJobs(owner=self)
        self._busy = False
        self._counts: list[BatchCounts] = []
        self._run_times: dict[str, list[float]] = {}
        self._usage: dict[str | None, UsageSum] = {}
        self._spend: dict[str | None, Totals] = {}
        self._indexes_checked = False
        self.rows: list[BatchRow] = []

        self.table = QTableWidget(0, self.COLUMNS)
        self.table.setObjectName("batchesTable")
        self.table.setHorizontalHeaderLabels([
            self.tr("Batch"), self.tr("Submitted"), self.tr("Progress"), self.tr("Total"), self.tr("Pending"),
            self.tr("Running"), self.tr("Succeeded"), self.tr("Failed"), self.tr("Canceled"),
            self.tr("ETA / done"), self.tr("Tokens"), self.tr("Spent"),
        ])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.hint = QLabel(self.tr("No batch yet: submit one with Ctrl+O or drop a JSONL/CSV file on the window."))
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.hint)
        self.table.setToolTip(self.tr(
            "ETA: time until the batch's last queued task is done, from the lanes' recent run times "
            "and what is queued ahead of it (p50 = median case, p90 = slow case)."))
        if bridge is not None:
            bridge.laneStats.connect(self.on_lane_stats)
        self._timer = QTimer(self)
        self._timer.setInterval(refresh_ms)
        self._timer.timeout.connect(self.refresh)
        self._timer.start()

    def on_lane_stats(self, ev: LaneStats) -> None:
        self._stats[ev.lane] = ev

    def is_shown(self) -> bool:
        """On screen: a dock in a tab that is not the current one stays "visible" to Qt (it is
        moved off the window), so the visible region is what counts."""
        return self.isVisible() and not self.visibleRegion().isEmpty()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh(force=True)

    def refresh(self, force: bool = False) -> bool:
        """Read the batch counts in a worker thread unless a read is under way or (without
        ``force``) it is not on screen; True when a read was started."""
        if self._busy or not (force or self.is_shown()):
            return False
        self._busy = True
        db = self.location
        names = [lane.name for lane in self._lanes]
        ensure = not self._indexes_checked
        self._indexes_checked = True

        def done(result: _Read) -> None:
            self._busy = False
            self._counts, self._run_times, self._usage, self._spend = result
            self.redraw()

        def failed(_exc: BaseException) -> None:
            self._busy = False

        self._jobs.in_thread(lambda: read_batches(db, names, ensure_indexes=ensure), "batches:read", done, failed)
        return True

    @property
    def busy(self) -> bool:
        return self._busy

    def close_jobs(self) -> None:
        self._timer.stop()
        self._jobs.cancel_all()
        self._busy = False  # a cancelled read calls back neither done nor failed: none is under way now

    async def drain_jobs(self) -> None:
        """After :meth:`close_jobs`: wait for the worker threads still running (window close)."""
        await self._jobs.drain()

    def row_of(self, batch: str | None) -> BatchRow | None:
        return next((r for r in self.rows if r.batch == batch), None)

    def redraw(self) -> None:
        now = self._clock()
        self.rows = batch_rows(self._counts, self._lanes, self._stats, now, self._run_times)
        t = self.table
        t.setUpdatesEnabled(False)
        try:
            t.setRowCount(len(self.rows))
            for i, r in enumerate(self.rows):
                texts = [
                    r.batch if r.batch is not None else self.tr("(no batch)"), fmt_clock(r.submitted_at),
                    f"{r.finished}/{r.total}  ({r.fraction * 100:.0f}%)", str(r.total), str(r.pending),
                    str(r.running), str(r.succeeded), str(r.failed), str(r.canceled), self.eta_text(r, now),
                    self.tokens_text(self._usage.get(r.batch)), self.spent_text(self._spend.get(r.batch)),
                ]
                for c, text in enumerate(texts):
                    item = t.item(i, c)
                    if item is None:
                        item = QTableWidgetItem()
                        if c >= 2:
                            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                        t.setItem(i, c, item)
                    if item.text() != text:
                        item.setText(text)
        finally:
            t.setUpdatesEnabled(True)
        self.hint.setVisible(not self.rows)
        self.updated.emit()

    def tokens_text(self, s: UsageSum | None) -> str:
        """``12.3k in / 4,560 out`` (``~`` when some of it is an estimate); empty before any usage."""
        if s is None or not s.tasks:
            return ""
        mark = "~" if s.estimated_tasks else ""
        return self.tr("{mark}{prompt} in / {mark}{completion} out").format(
            mark=mark, prompt=fmt_tokens(s.prompt_tokens), completion=fmt_tokens(s.completion_tokens))

    def spent_text(self, t: Totals | None) -> str:
        """``$0.42`` (one figure per currency, never added across them; ``~`` when estimated)."""
        if t is None or not t.tasks:
            return ""
        return t.text() or self.tr("no price")

    def eta_text(self, r: BatchRow, now: float) -> str:
        if r.done_at is not None:
            return self.tr("done at {t}").format(t=fmt_clock(r.done_at))
        if r.eta is None:
            if r.blocked:
                return self.tr("— (no lane can take it)")
            if r.waiting_for is not None:
                return self.tr("after {need} finished runs of {group} ({have} so far)").format(
                    need=MIN_SAMPLES, group=r.waiting_for, have=r.waiting_samples)
            return self.tr("— (no lane has reported yet)")
        return self.tr("p50 {p50} ({at}), p90 {p90}").format(
            p50=fmt_eta(r.eta.p50_s), at=fmt_clock(now + r.eta.p50_s), p90=fmt_eta(r.eta.p90_s))
