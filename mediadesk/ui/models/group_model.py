"""The task table grouped by batch: a thin Qt tree model over :class:`~mediadesk.viewmodel.task_groups.TaskGroups`,
which is itself a view over the flat model's mirror (no row is copied, no item object is made).

A batch is a top-level row (its name, submission time, a progress cell ``done/total`` drawn as a
bar by :class:`ProgressDelegate`, its counts by state, its failures in red); its tasks are child
rows whose cells are the flat model's own (the same columns, roles and tints). The model listens
to the flat model only while it is :attr:`active` (the grouped view is shown): appended rows go
into their groups, changes repaint their rows and batch, a sort or a filter change rebuilds the
groups as one layout change (the selection and the expanded batches follow their tasks).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
)
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionProgressBar, QStyleOptionViewItem

from mediadesk.ui.format import fmt_clock, state_labels
from mediadesk.ui.models.task_model import COLUMNS, Col, TaskTableModel
from mediadesk.ui.plain import plain_tip
from mediadesk.ui.style import is_dark, state_color
from mediadesk.viewmodel.row_display import STATES, RowFilter
from mediadesk.viewmodel.task_groups import TaskGroups

__all__ = ["ProgressDelegate", "TaskGroupModel"]

_DISPLAY, _TOOLTIP, _FONT, _FOREGROUND, _USER = 0, 3, 6, 9, 256
#: A membership change under an active filter rebuilds the groups at most this often.
REGROUP_DELAY_MS = 300
_Index = QModelIndex | QPersistentModelIndex
_NCOLS = len(COLUMNS)
# Computed once: an enum ``|`` costs ~20 µs in Python, and flags() is asked twice per child row.
_NO_FLAGS = Qt.ItemFlag.NoItemFlags
_BATCH_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_TASK_FLAGS = _BATCH_FLAGS | Qt.ItemFlag.ItemNeverHasChildren


class TaskGroupModel(QAbstractItemModel):
    """Batches with their tasks under them. ``groups`` is the Qt-free grouping."""

    #: (done, total, failed) on a batch row's state cell (the progress bar).
    ProgressRole = _USER + 10
    #: True on a batch row.
    IsBatchRole = _USER + 11
    TaskIdRole = TaskTableModel.TaskIdRole

    def __init__(self, source: TaskTableModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._src = source
        self.groups = TaskGroups(source.rows)
        self.active = False
        #: batch -> when it was submitted (read from the store by the grouped view)
        self.batch_times: dict[str | None, float] = {}
        self._labels = state_labels()
        self._failed_color = QColor(state_color("failed", is_dark()))
        self._bold = QFont()
        self._bold.setBold(True)
        self._regroup_timer = QTimer(self)
        self._regroup_timer.setSingleShot(True)
        self._regroup_timer.setInterval(REGROUP_DELAY_MS)
        self._regroup_timer.timeout.connect(self.regroup)
        self._dirty_children: dict[int, tuple[int, int]] = {}
        self._dirty_groups: set[int] = set()
        self._repaint_timer = QTimer(self)
        self._repaint_timer.setSingleShot(True)
        self._repaint_timer.setInterval(0)
        self._repaint_timer.timeout.connect(self._repaint)

    # ------------------------------------------------------------------ binding
    @property
    def source(self) -> TaskTableModel:
        return self._src

    def set_source(self, source: TaskTableModel) -> None:
        """Group another flat model (a workspace switch)."""
        was = self.active
        self.set_active(False)
        self._src = source
        self.groups = TaskGroups(source.rows)
        self.batch_times = {}
        self.set_active(was)

    def set_active(self, on: bool) -> None:
        """Follow the flat model (and build the groups) or stop following it (and drop them)."""
        if on == self.active:
            return
        src = self._src
        signals = ((src.rowsInserted, self._on_inserted), (src.dataChanged, self._on_changed),
                   (src.layoutChanged, self.regroup), (src.modelReset, self.regroup))
        self.beginResetModel()
        self.active = on
        if on:
            src.flush()
            self.groups.rebuild()
            for signal, slot in signals:
                signal.connect(slot)
        else:
            self._regroup_timer.stop()
            self._repaint_timer.stop()
            self._dirty_children, self._dirty_groups = {}, set()
            for signal, slot in signals:
                signal.disconnect(slot)
            self.groups.clear()
        self.endResetModel()

    def set_filter(self, flt: RowFilter) -> None:
        """The filter bar changed: the groups show what the flat list shows."""
        if flt == self.groups.filter:
            return
        self.groups.filter = flt
        if self.active:
            self.regroup()

    # ------------------------------------------------------------------ structure
    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        # Hot path (once per child when a batch of 100k is expanded): few calls, no enum arithmetic.
        if row < 0 or column < 0 or column >= _NCOLS:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, 0) if row < len(self.groups.groups) else QModelIndex()
        g = parent.row()
        if parent.internalId() != 0 or g >= len(self.groups.groups) or row >= len(self.groups.groups[g].children):
            return QModelIndex()
        return self.createIndex(row, column, g + 1)

    def parent(self, index: _Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid():
            return QModelIndex()
        iid = index.internalId()
        return QModelIndex() if iid == 0 else self.createIndex(iid - 1, 0, 0)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        if not parent.isValid():
            return len(self.groups)
        if parent.internalId() != 0 or parent.column() != 0:
            return 0
        return len(self.groups.groups[parent.row()].children)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return len(COLUMNS)

    def hasChildren(self, parent: _Index = QModelIndex()) -> bool:  # noqa: B008
        return self.rowCount(parent) > 0

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return _NO_FLAGS
        return _TASK_FLAGS if index.internalId() != 0 else _BATCH_FLAGS

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        return self._src.headerData(section, orientation, role)

    # ------------------------------------------------------------------ cells
    def _source_index(self, index: _Index) -> QModelIndex:
        s = self.groups.storage_at(index.internalId() - 1, index.row())
        return self._src.index(self._src.rows.row_of_storage(s), index.column())

    def data(self, index: _Index, role: int = _DISPLAY) -> Any:
        if not index.isValid():
            return None
        if index.internalId() != 0:
            return self._src.data(self._source_index(index), role)
        return self._batch_data(index.row(), index.column(), role)

    def multiData(self, index: _Index, roleDataSpan: Any) -> None:
        """One Python call per painted cell (as the flat model does)."""
        if not index.isValid():
            return
        if index.internalId() != 0:
            self._src.multiData(self._source_index(index), roleDataSpan)
            return
        g, c = index.row(), index.column()
        for rd in roleDataSpan:
            value = self._batch_data(g, c, rd.role())
            if value is None:
                rd.clearData()
            else:
                rd.setData(value)

    def _batch_data(self, g: int, c: int, role: int) -> Any:
        if g >= len(self.groups):
            return None
        batch = self.groups.groups[g].batch
        if role == self.IsBatchRole:
            return True
        p = self.groups.progress(batch)
        if role == _DISPLAY:
            if c == Col.ID:
                return batch if batch is not None else self.tr("(no batch)")
            if c == Col.STATE:
                return f"{p.done}/{p.total}"
            if c == Col.STARTED:
                return fmt_clock(self.batch_times.get(batch))
            if c == Col.PROMPT:
                return self.counts_text(batch)
            if c == Col.ERROR and p.failed:
                return self.tr("%n failed", "", p.failed)
            return None
        if role == self.ProgressRole and c == Col.STATE:
            return (p.done, p.total, p.failed)
        if role == _FONT and c == Col.ID:
            return self._bold
        if role == _FOREGROUND and p.failed and c in (Col.PROMPT, Col.ERROR):
            return self._failed_color
        if role == _TOOLTIP and c == Col.ID:
            return plain_tip(batch) if batch is not None else None
        return None

    def counts_text(self, batch: str | None) -> str:
        """``running 3 · pending 20 · success 15 · failed 2`` (states with tasks, in state order)."""
        by_state = self.groups.progress(batch).by_state
        return " · ".join(f"{self._labels.get(st, st)} {by_state[st]}" for st in STATES if by_state.get(st))

    # ------------------------------------------------------------------ the flat model's signals
    def _on_inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        shown, touched = self.groups.take_new(first, last)
        new: list[tuple[str | None, list[int]]] = []
        for batch, storage in shown.items():
            g = self.groups.group_row(batch)
            if g is None:
                new.append((batch, storage))
                continue
            n = len(self.groups.groups[g].children)
            self.beginInsertRows(self.index(g, 0), n, n + len(storage) - 1)
            self.groups.add_children(g, storage)
            self.endInsertRows()
        if new:
            n = len(self.groups)
            self.beginInsertRows(QModelIndex(), n, n + len(new) - 1)
            self.groups.add_groups(new)
            self.endInsertRows()
        self._batches_changed(self.groups.group_row(b) for b in touched)

    def _on_changed(self, top_left: QModelIndex, bottom_right: QModelIndex, _roles: Any = None) -> None:
        """Counts now; the repaint once per burst (the flat model reports one block of rows per
        signal, 10,000 of them after 10,000 scattered changes; one ``dataChanged`` per changed
        cell made the tree look each up among the expanded rows)."""
        out = self.groups.apply_changed(top_left.row(), bottom_right.row())
        spans = self._dirty_children
        for g, cr in out.children:
            lo_hi = spans.get(g)
            spans[g] = (cr, cr) if lo_hi is None else (min(lo_hi[0], cr), max(lo_hi[1], cr))
        self._dirty_groups.update(out.groups)
        if not self._repaint_timer.isActive():
            self._repaint_timer.start()
        if out.regroup and not self._regroup_timer.isActive():
            self._regroup_timer.start()

    def _repaint(self) -> None:
        """One ``dataChanged`` per batch with changed tasks (their span), one for the batch rows."""
        spans, self._dirty_children = self._dirty_children, {}
        groups, self._dirty_groups = self._dirty_groups, set()
        n, last = len(self.groups), _NCOLS - 1
        for g, (lo, hi) in spans.items():
            if g < n and hi < len(self.groups.groups[g].children):
                parent = self.index(g, 0)
                self.dataChanged.emit(self.index(lo, 0, parent), self.index(hi, last, parent))
        self._batches_changed(groups)

    def _batches_changed(self, rows: Any) -> None:
        found = [g for g in rows if g is not None and g < len(self.groups)]
        if found:
            self.dataChanged.emit(self.index(min(found), 0), self.index(max(found), _NCOLS - 1))

    def regroup(self) -> None:
        """Build the groups again (a sort, a filter change, a task entering or leaving the filter)
        as one layout change: the selection, the current row and the expanded batches follow
        their batch or task (a task no longer shown drops out of them)."""
        self._regroup_timer.stop()
        if not self.active:
            return
        self._src.flush()
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        keys = [self._key(i) for i in old]
        self.groups.rebuild()
        self._dirty_children, self._dirty_groups = {}, set()  # the layout change repaints everything
        self.changePersistentIndexList(old, [self._from_key(k) for k in keys])
        self.layoutChanged.emit()

    def _key(self, index: _Index) -> tuple[bool, int | str | None, int]:
        """(is a batch, batch or storage index, column) of a persistent index."""
        iid = index.internalId()
        if iid == 0:
            g = index.row()
            return True, self.groups.groups[g].batch if g < len(self.groups) else "\0", index.column()
        return False, self.groups.storage_at(iid - 1, index.row()), index.column()

    def _from_key(self, key: tuple[bool, int | str | None, int]) -> QModelIndex:
        is_batch, what, column = key
        if is_batch:
            g = self.groups.group_row(what if isinstance(what, str) or what is None else None)
            return QModelIndex() if g is None else self.createIndex(g, column, 0)
        assert isinstance(what, int)
        cr = self.groups.child_row(what)
        if cr < 0:
            return QModelIndex()
        g = self.groups.group_row(self._src.rows.cols.batch[what])
        return QModelIndex() if g is None else self.createIndex(cr, column, g + 1)

    # ------------------------------------------------------------------ selection
    def task_ids_of(self, indexes: list[QModelIndex]) -> list[str]:
        """The tasks of ``indexes`` (one per row): a batch row stands for every task it shows;
        each task once, in the order met."""
        ids = self._src.rows.cols.task_id
        out: dict[str, None] = {}
        for index in indexes:
            iid = index.internalId()
            if iid == 0:
                out.update(dict.fromkeys(self.groups.task_ids(index.row())))
            else:
                out[ids[self.groups.storage_at(iid - 1, index.row())]] = None
        return list(out)


class ProgressDelegate(QStyledItemDelegate):
    """Draws a batch row's progress cell as a bar (``done/total``), red when any task failed;
    other cells as usual."""

    def paint(self, painter: Any, option: QStyleOptionViewItem, index: _Index) -> None:
        p = index.data(TaskGroupModel.ProgressRole)
        if p is None:
            super().paint(painter, option, index)
            return
        done, total, failed = p
        bar = QStyleOptionProgressBar()
        bar.rect = option.rect.adjusted(2, 2, -2, -2)
        bar.minimum = 0
        bar.maximum = max(total, 1)
        bar.progress = done
        bar.text = f"{done}/{total}"
        bar.textVisible = True
        bar.state = QStyle.StateFlag.State_Enabled | QStyle.StateFlag.State_Horizontal
        bar.palette = QPalette(option.palette)
        if failed:
            bar.palette.setColor(QPalette.ColorRole.Highlight, QColor(state_color("failed", is_dark())))
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ProgressBar, bar, painter, widget)
