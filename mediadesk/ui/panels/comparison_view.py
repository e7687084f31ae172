"""The Compare tab: several models side by side for one batch (:mod:`mediadesk.store.comparison`).

One row per prompt, one column per profile (and sample): each cell the answer's first line, its state, time and
cost, the kept one marked; the selected cell's whole answer below. "Keep" marks the selected answer kept (and the
others of its prompt not); the window does it through the scheduler (``keep``). Read in a worker thread when the
tab is shown, when the batch changes, after a keep, and every 2 s while the tab shows a batch on screen. Plain
text only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mediadesk.config.location import StoreLocation
from mediadesk.core.spend import fmt_amount
from mediadesk.store.comparison import CompareCell, Comparison, read_comparison
from mediadesk.store.metrics import MetricsReader
from mediadesk.ui.format import fmt_seconds, state_labels
from mediadesk.ui.jobs.workers import TaskJobs
from mediadesk.ui.plain import plain, plain_tip

__all__ = ["ComparisonView", "read_compare"]

#: Characters of an answer's first line shown in its cell (the whole answer: hover, or select it).
CELL_CHARS = 80
#: Where a cell keeps its task id.
TASK_ID_ROLE = Qt.ItemDataRole.UserRole

_Read = tuple[list[str], Comparison]


def read_compare(location: StoreLocation | Path, batch: str | None) -> _Read:
    """The batch names and the comparison of ``batch`` (None: every task), from the store (worker thread)."""
    with MetricsReader(location) as r:
        names = [c.batch for c in r.batches(with_ahead=False) if c.batch is not None]
    return names, read_comparison(location, batch)


def elided(text: str) -> str:
    """The first line of ``text``, cut to :data:`CELL_CHARS` with an ellipsis."""
    first, _, rest = text.strip().partition("\n")
    if len(first) > CELL_CHARS:
        return first[:CELL_CHARS - 1] + "…"
    return first + ("…" if rest.strip() else "")


class ComparisonView(QWidget):
    """The comparison of the chosen batch. ``keep(task_id, kept)``: mark an answer kept or not (the window
    calls the scheduler); returns how many marks changed. ``comparison`` holds what is shown (tests)."""

    updated = Signal()

    def __init__(self, location: StoreLocation | Path, keep: Callable[[str, bool], int],
                 parent: QWidget | None = None, *, refresh_ms: int = 2000) -> None:
        super().__init__(parent)
        self.setObjectName("comparisonView")
        self.location = location
        self._keep = keep
        self._jobs = TaskJobs(owner=self)
        self._busy = False
        self._again = False
        self.batch: str | None = None
        self.comparison = Comparison((), ())

        self.batch_combo = QComboBox()
        self.batch_combo.setObjectName("compareBatch")
        self.batch_combo.addItem(self.tr("All tasks"), None)
        self.batch_combo.currentIndexChanged.connect(self._batch_chosen)
        self.keep_button = QPushButton(self.tr("Keep"))
        self.keep_button.setObjectName("compareKeep")
        self.keep_button.setToolTip(self.tr(
            "Keep the selected answer: the other answers of its prompt are no longer kept (double-click an "
            "answer does the same; on a kept answer it takes the mark off)"))
        self.keep_button.setEnabled(False)
        self.keep_button.clicked.connect(self.keep_selected)
        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("Batch:")))
        top.addWidget(self.batch_combo, 1)
        top.addWidget(self.keep_button)

        self.table = QTableWidget(0, 1)
        self.table.setObjectName("compareTable")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setDefaultSectionSize(240)
        self.table.currentCellChanged.connect(lambda *_: self._show_selected())
        self.table.cellDoubleClicked.connect(lambda *_: self.keep_selected())
        self.answer_view = QPlainTextEdit()
        self.answer_view.setObjectName("compareAnswer")
        self.answer_view.setReadOnly(True)
        self.answer_view.setMaximumHeight(140)
        self.hint = plain(QLabel(self.tr(
            "Send one prompt to several profiles (a batch row's \"profiles\"), or several samples (\"n\"), to "
            "compare their answers here.")))
        self.hint.setWordWrap(True)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(top)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.answer_view)
        lay.addWidget(self.hint)
        self._timer = QTimer(self)
        self._timer.setInterval(refresh_ms)
        self._timer.timeout.connect(self.refresh)
        self._timer.start()

    # ------------------------------------------------------------------ reading
    def is_shown(self) -> bool:
        """On screen (a dock tab behind another stays "visible" to Qt: the visible region counts)."""
        return self.isVisible() and not self.visibleRegion().isEmpty()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh(force=True)

    def show_batch(self, batch: str | None) -> None:
        """Compare ``batch`` (None: every task), e.g. the one selected in the Batches tab."""
        if batch == self.batch:
            return
        self.batch = batch
        self._select_in_combo()
        self.refresh(force=True)

    def _batch_chosen(self, _index: int) -> None:
        batch = self.batch_combo.currentData()
        if batch != self.batch:
            self.batch = batch
            self.refresh(force=True)

    def refresh(self, force: bool = False) -> bool:
        """Read in a worker thread unless (without ``force``) the tab is not on screen or shows every task (a
        whole database is not read again every 2 s); a read asked for while one is under way runs after it. True
        when a read was started."""
        if not (force or (self.batch is not None and self.is_shown())):
            return False
        if self._busy:
            self._again = self._again or force
            return False
        self._busy = True
        location, batch = self.location, self.batch

        def done(result: _Read) -> None:
            self._busy = False
            names, comparison = result
            if batch == self.batch:
                self._set_batches(names)
                if comparison != self.comparison or self.table.rowCount() != len(comparison.rows):
                    self.comparison = comparison
                    self.redraw()
            self._read_again()

        def failed(_exc: BaseException) -> None:
            self._busy = False
            self._read_again()

        self._jobs.in_thread(lambda: read_compare(location, batch), "compare:read", done, failed)
        return True

    def _read_again(self) -> None:
        if self._again:
            self._again = False
            self.refresh(force=True)

    @property
    def busy(self) -> bool:
        return self._busy

    def close_jobs(self) -> None:
        self._timer.stop()
        self._jobs.cancel_all()
        self._busy = self._again = False  # a cancelled read calls back neither done nor failed

    async def drain_jobs(self) -> None:
        """After :meth:`close_jobs`: wait for the worker threads still running (window close)."""
        await self._jobs.drain()

    def _set_batches(self, names: list[str]) -> None:
        have = [self.batch_combo.itemData(i) for i in range(1, self.batch_combo.count())]
        if have == names:
            return
        self.batch_combo.blockSignals(True)
        while self.batch_combo.count() > 1:
            self.batch_combo.removeItem(1)
        for name in names:
            self.batch_combo.addItem(name, name)
        self.batch_combo.blockSignals(False)
        self._select_in_combo()

    def _select_in_combo(self) -> None:
        batch = self.batch
        i = 0 if batch is None else self.batch_combo.findData(batch)
        if batch is not None and i < 0:  # not listed yet (read next): shown as it is named
            self.batch_combo.addItem(batch, batch)
            i = self.batch_combo.count() - 1
        self.batch_combo.blockSignals(True)
        self.batch_combo.setCurrentIndex(i)
        self.batch_combo.blockSignals(False)

    # ------------------------------------------------------------------ drawing
    def redraw(self) -> None:
        comp = self.comparison
        t = self.table
        current = (t.currentRow(), t.currentColumn())
        t.setUpdatesEnabled(False)
        try:
            t.setColumnCount(1 + len(comp.columns))
            t.setHorizontalHeaderLabels([self.tr("Prompt"), *(comp.label(c) for c in comp.columns)])
            t.setRowCount(len(comp.rows))
            for i, row in enumerate(comp.rows):
                prompt = QTableWidgetItem(elided(row.prompt))
                prompt.setToolTip(plain_tip(row.prompt))
                t.setItem(i, 0, prompt)
                for j, col in enumerate(comp.columns, start=1):
                    t.setItem(i, j, self._cell_item(row.cell(col)))
            t.resizeRowsToContents()
        finally:
            t.setUpdatesEnabled(True)
        if 0 <= current[0] < t.rowCount() and 0 <= current[1] < t.columnCount():
            t.setCurrentCell(*current)
        self.hint.setVisible(not comp.rows)
        self._show_selected()
        self.updated.emit()

    def _cell_item(self, cell: CompareCell | None) -> QTableWidgetItem:
        item = QTableWidgetItem()
        if cell is None:
            item.setFlags(Qt.ItemFlag.ItemIsEnabled)
            return item
        shown = cell.answer if cell.answer is not None else (cell.error_message or "")
        facts = [state_labels().get(cell.state, cell.state), fmt_seconds(cell.seconds)]
        if cell.cost is not None and cell.currency:
            facts.append(fmt_amount(cell.cost, cell.currency))
        if cell.kept:
            facts.insert(0, self.tr("★ kept"))
            font = QFont(item.font())
            font.setBold(True)
            item.setFont(font)
        item.setText(elided(shown) + "\n" + " · ".join(f for f in facts if f))
        item.setToolTip(plain_tip(shown))
        item.setData(TASK_ID_ROLE, cell.task_id)
        return item

    def selected_cell(self) -> CompareCell | None:
        """The answer whose cell is current (None: the prompt column, an empty cell, nothing)."""
        r, c = self.table.currentRow(), self.table.currentColumn()
        if not (0 <= r < len(self.comparison.rows) and 1 <= c <= len(self.comparison.columns)):
            return None
        return self.comparison.rows[r].cell(self.comparison.columns[c - 1])

    def _show_selected(self) -> None:
        cell = self.selected_cell()
        self.keep_button.setEnabled(cell is not None)
        if cell is None:
            r = self.table.currentRow()
            self.answer_view.setPlainText(self.comparison.rows[r].prompt if 0 <= r < len(self.comparison.rows)
                                          else "")
            return
        self.keep_button.setText(self.tr("Unkeep") if cell.kept else self.tr("Keep"))
        self.answer_view.setPlainText(cell.answer if cell.answer is not None else (cell.error_message or ""))

    # ------------------------------------------------------------------ the keep mark
    def keep_selected(self) -> int:
        """Keep the selected answer (or take the mark off a kept one); returns how many marks changed."""
        cell = self.selected_cell()
        if cell is None:
            return 0
        n = self._keep(cell.task_id, not cell.kept)
        if n:
            self.refresh(force=True)
        return n
