"""The task table: a thin Qt model over :class:`mediadesk.viewmodel.task_rows.TaskRows`.

The Qt-free mirror holds storage, versions, counts, coalescing, sort and filter; this module maps its
callbacks to ``beginInsertRows``/``dataChanged`` (never a reset), runs the coalescing timer and
answers ``data()``. The model sorts and the proxy only filters: ``data()`` calls from C++ are costly,
so a proxy sort over a big table is far too slow. A sort is applied only on a header click, so a row
never jumps away under the operator's mouse.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QColor

from mediadesk.platform.processes import release_free_memory
from mediadesk.scheduler.events import LaneStats, TaskChanged
from mediadesk.store.taskstore import TaskRecord
from mediadesk.ui.format import fmt_clock, fmt_seconds, state_labels
from mediadesk.ui.style import is_dark, state_color
from mediadesk.viewmodel.columns import Columns, Row
from mediadesk.viewmodel.row_display import DISPLAY_STATES, SORT_KEYS, STALLED, RowFilter, owner_host
from mediadesk.viewmodel.task_rows import TaskRows

__all__ = [
    "COLUMNS",
    "STALLED",
    "TINT_ALPHA",
    "Col",
    "TaskFilterProxy",
    "TaskTableModel",
    "state_tints",
]


class Col:
    """Column numbers (plain ints: an IntEnum comparison is costly on every data() call)."""

    ID = 0
    LANE = 1
    PROFILE = 2
    ACCOUNT = 3
    STATE = 4
    ATTEMPT = 5
    STARTED = 6
    HEARTBEAT = 7
    DURATION = 8
    PROMPT = 9
    ERROR = 10
    #: Whose desktop ran the task (its host; the tooltip: the full owner). Team mode.
    DESKTOP = 11


#: Column names, in column order; they are also the mirror's sort keys.
COLUMNS: tuple[str, ...] = SORT_KEYS

#: A burst of at least this many new rows is followed by one release of freed heap memory ...
RELEASE_AFTER_ROWS = 10_000
#: ... once no rows were inserted for this long.
RELEASE_AFTER_IDLE_MS = 500

#: Alpha of the state tint behind the state cell: the shared state colours (style.py, light or
#: dark variant) laid translucently on the palette's own base, so text stays readable in both.
TINT_ALPHA = 70


def state_tints(dark: bool | None = None) -> dict[str, QColor]:
    """Background tints per displayed state (``stalled`` included)."""
    dark = is_dark() if dark is None else dark
    out = {}
    for st in DISPLAY_STATES:
        c = QColor(state_color(st, dark))
        c.setAlpha(TINT_ALPHA)
        out[st] = c
    return out


# Qt.ItemDataRole values as ints: PySide6 passes ``role`` as an int and comparing an int with the
# enum member costs ~1 µs (measured), seven times per painted cell.
_DISPLAY = 0
_TOOLTIP = 3
_ALIGN = 7
_BACKGROUND = 8
_USER = 256


class TaskTableModel(QAbstractTableModel):
    """Rows = tasks, in the mirror's display order. ``rows`` is the mirror: read it for anything
    that is not a Qt model call (counts, finishes, states by task id)."""

    #: Raw state string ("running" even when displayed as stalled).
    StateRole = _USER + 1
    #: The task id of the row.
    TaskIdRole = _USER + 2

    #: Emitted after a flush changed any per-profile count.
    countsChanged = Signal()
    #: Emitted after rows were inserted (argument: number of new rows).
    rowsAppended = Signal(int)

    def __init__(
        self,
        *,
        heartbeat_interval_s: float = 15.0,
        flush_interval_ms: int = 100,
        max_rows_per_flush: int = 2000,
        clock: Callable[[], float] = time.time,
        release_memory: Callable[[], None] | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.rows = TaskRows(heartbeat_interval_s=heartbeat_interval_s, clock=clock, observer=self)
        self._cols = self.rows.cols  # the same object for the mirror's lifetime (hot path)
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(flush_interval_ms)
        self._flush_timer.timeout.connect(self._timed_flush)
        self._flush_interval_ms = flush_interval_ms
        #: New rows applied per timed flush: a 10k-row submit becomes a few short steps between
        #: which the loop paints and runs the lanes, not one long freeze.
        self.max_rows_per_flush = max_rows_per_flush
        # After a burst of new rows (a big submit, the initial load), the heap its reads and
        # inserts freed is handed back to the system once, when the burst is over: ~7 MB of
        # resident memory after a 100k-row submit (bench), one ~10 ms call.
        if release_memory is None:
            release_memory = release_free_memory
        self._release_memory: Callable[[], None] = release_memory
        self._rows_since_release = 0
        self._release_timer = QTimer(self)
        self._release_timer.setSingleShot(True)
        self._release_timer.setInterval(RELEASE_AFTER_IDLE_MS)
        self._release_timer.timeout.connect(self._release)
        self._sort_column = -1
        self._state_labels = state_labels()
        self._headers = [
            self.tr("id"), self.tr("lane"), self.tr("profile"), self.tr("account"), self.tr("state"),
            self.tr("attempt"), self.tr("started"), self.tr("heartbeat"), self.tr("duration"),
            self.tr("prompt"), self.tr("error"), self.tr("desktop"),
        ]
        self._hosts: dict[str, str] = {}
        self._tints = state_tints()
        self._right = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    # ------------------------------------------------------------------ Qt model API
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        if role == _DISPLAY and orientation == Qt.Orientation.Horizontal and 0 <= section < len(self._headers):
            return self._headers[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = _DISPLAY) -> Any:
        # Hot path (7 calls per painted cell): plain int compares, direct list access.
        if role == _DISPLAY:
            return self._display(self.rows.order[index.row()], index.column())
        if role == _BACKGROUND:
            if index.column() != Col.STATE:
                return None
            return self._tints.get(self.rows.display_state(self.rows.order[index.row()]))
        if role == _ALIGN:
            c = index.column()
            if c == Col.ATTEMPT or c == Col.HEARTBEAT or c == Col.DURATION:
                return self._right
            return None
        if role == self.StateRole:
            return self._cols.state[self.rows.order[index.row()]]
        if role == self.TaskIdRole:
            return self._cols.task_id[self.rows.order[index.row()]]
        if role == _TOOLTIP:
            c = index.column()
            if c == Col.PROMPT:
                return self._cols.prompt[self.rows.order[index.row()]]
            if c == Col.DESKTOP:
                return self._cols.owner[self.rows.order[index.row()]]
        return None

    def multiData(self, index: QModelIndex | QPersistentModelIndex, roleDataSpan: Any) -> None:
        """All roles of one cell in one Python call: Qt 6's item delegate asks for several roles per
        painted cell through this, so overriding it saves one Python call per role."""
        if not index.isValid():
            return
        s = self.rows.order[index.row()]
        c = index.column()
        # Every entry is written (set or cleared): PySide may hand us a reused span.
        for rd in roleDataSpan:
            role = rd.role()
            if role == _DISPLAY:
                rd.setData(self._display(s, c))
            elif role == _BACKGROUND and c == Col.STATE:
                rd.setData(self._tints.get(self.rows.display_state(s)))
            elif role == _ALIGN and (c == Col.ATTEMPT or c == Col.HEARTBEAT or c == Col.DURATION):
                rd.setData(self._right)
            elif role >= _USER or role == _TOOLTIP:
                rd.setData(self.data(index, role))
            else:
                rd.clearData()

    def _display(self, s: int, c: int) -> Any:
        cols = self._cols
        if c == Col.ID:
            return cols.task_id[s]
        if c == Col.STATE:
            return self._state_labels.get(self.rows.display_state(s), cols.state[s])
        if c == Col.PROFILE:
            return cols.profile[s]
        if c == Col.LANE:
            return cols.lane[s] or ""
        if c == Col.ACCOUNT:
            return cols.account[s] or ""
        if c == Col.ATTEMPT:
            return cols.attempt[s]
        if c == Col.STARTED:
            return fmt_clock(cols.started_at[s])
        if c == Col.HEARTBEAT:
            return fmt_seconds(self.rows.heartbeat_age(s))
        if c == Col.DURATION:
            return fmt_seconds(self.rows.duration(s))
        if c == Col.PROMPT:
            return cols.prompt[s]
        if c == Col.ERROR:
            return cols.error[s] or ""
        if c == Col.DESKTOP:
            owner = cols.owner[s]
            if owner is None:
                return ""
            host = self._hosts.get(owner)
            if host is None:  # one per desktop, not one per row
                host = self._hosts[owner] = owner_host(owner)
            return host
        return None

    # ------------------------------------------------------------------ the mirror's callbacks
    def begin_insert_rows(self, first: int, last: int) -> None:
        self.beginInsertRows(QModelIndex(), first, last)

    def end_insert_rows(self, first: int, last: int) -> None:
        self.endInsertRows()
        self._rows_since_release += last - first + 1
        if self._rows_since_release >= RELEASE_AFTER_ROWS:
            self._release_timer.start()  # (re)started: runs once the burst has paused
        self.rowsAppended.emit(last - first + 1)

    def _release(self) -> None:
        self._rows_since_release = 0
        self._release_memory()

    @property
    def memory_release_pending(self) -> bool:
        """A release of freed heap is due once the current burst of new rows pauses."""
        return self._release_timer.isActive()

    def rows_changed(self, first: int, last: int) -> None:
        self.dataChanged.emit(self.index(first, 0), self.index(last, len(COLUMNS) - 1))

    # ------------------------------------------------------------------ queries (delegated to the mirror)
    def task_id(self, row: int) -> str:
        """Task id at display row ``row``."""
        return self.rows.task_id_at(row)

    def row_of(self, task_id: str) -> int | None:
        return self.rows.row_of(task_id)

    def state_of(self, task_id: str) -> str | None:
        return self.rows.state_of(task_id)

    def display_state_of(self, task_id: str) -> str | None:
        return self.rows.display_state_of(task_id)

    def counts(self, kind: str | None = None, profile: str | None = None) -> dict[str, int]:
        """State counts over tasks of ``kind`` (web/api) and/or ``profile``; all when both None."""
        return self.rows.counts(kind, profile)

    def finishes(self, kind: str) -> Sequence[tuple[float, float]]:
        return self.rows.finishes(kind)

    def current_counts(self, kind: str) -> dict[str, int]:
        """State counts over ``kind``'s current work (:mod:`mediadesk.viewmodel.current_work`)."""
        out = dict.fromkeys(self.rows.counts(), 0)
        out.update(self.rows.current_work.counts(kind))
        return out

    def current_batches(self, kind: str) -> int:
        return len(self.rows.current_work.batches(kind))

    # ------------------------------------------------------------------ feeding
    def add_records(self, records: Iterable[TaskRecord]) -> None:
        """Queue full records (tasks just added); applied at the next flush."""
        self.rows.queue_records(records)
        self._schedule()

    def add_rows(self, rows: Iterable[Row]) -> None:
        """Queue rows in :func:`~mediadesk.viewmodel.task_rows.record_row` form."""
        self.rows.queue_rows(rows)
        self._schedule()

    def add_columns(self, batch: Columns) -> None:
        """Queue new rows in bulk (the initial load builds them in its thread)."""
        self.rows.queue_columns(batch)
        self._schedule()

    def apply_change(self, ev: TaskChanged) -> None:
        """Queue a state change; only the newest version per task survives until the flush."""
        self.rows.queue_change(ev)
        self._schedule()

    def apply_lane_stats(self, stats: LaneStats) -> None:
        """Heartbeats arrive with the lane stats (the 1 s tick shows them)."""
        self.rows.apply_lane_stats(stats)

    def _schedule(self) -> None:
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    def _timed_flush(self) -> None:
        self.flush(self.max_rows_per_flush)
        if self.rows.has_queued_rows:  # more rows queued: continue right after the loop has breathed
            self._flush_timer.start(0)
        else:
            self._flush_timer.setInterval(self._flush_interval_ms)

    def flush(self, max_new_rows: int | None = None) -> None:
        """Apply what is queued now: one insert (at most ``max_new_rows`` new rows; all when
        None), one dataChanged per contiguous block of changed rows."""
        self._flush_timer.stop()
        if self.rows.flush(max_new_rows):
            self.countsChanged.emit()

    def refresh_running(self) -> None:
        """The 1 s tick: elapsed time, heartbeat age and the stalled display of running rows."""
        for a, b in self.rows.running_blocks():
            self.dataChanged.emit(self.index(a, Col.STATE), self.index(b, Col.DURATION))

    # ------------------------------------------------------------------ sorting
    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Re-order the display rows by ``column`` (``-1``: insertion order). Persistent indexes
        (selection, current row) follow their tasks."""
        self.flush()
        self.layoutAboutToBeChanged.emit()
        old_persistent = self.persistentIndexList()
        old_storage = [self.rows.storage_of(i.row()) for i in old_persistent]
        key = COLUMNS[column] if 0 <= column < len(COLUMNS) else None
        self.rows.sort(key, descending=order == Qt.SortOrder.DescendingOrder)
        self.changePersistentIndexList(
            old_persistent,
            [self.index(self.rows.row_of_storage(s), i.column()) for s, i in zip(old_storage, old_persistent,
                                                                                 strict=True)],
        )
        self._sort_column = column
        self.layoutChanged.emit()

    @property
    def sort_column(self) -> int:
        return self._sort_column


class TaskFilterProxy(QSortFilterProxyModel):
    """Filters by lane kind, state(s), profile and free text (id, profile, lane, account, error and
    the first 80 prompt characters): the test itself is the mirror's :meth:`TaskRows.accepts`.
    Sorting is delegated to the source model (see module doc): this proxy keeps the source order,
    so ``sort()`` here re-orders the source."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._filter = RowFilter()
        self._active = False
        self._src: TaskTableModel | None = None
        self.setDynamicSortFilter(True)

    def setSourceModel(self, model: Any) -> None:
        if not isinstance(model, TaskTableModel):
            raise TypeError("TaskFilterProxy needs a TaskTableModel")
        self._src = model
        super().setSourceModel(model)

    # filters ---------------------------------------------------------------
    def set_filters(
        self,
        *,
        kind: str | None = None,
        states: Iterable[str] | None = None,
        profile: str | None = None,
        text: str = "",
        account: str | None = None,
        batch: str | None = None,
    ) -> None:
        """Replace all filters at once (one re-filter pass instead of four)."""
        self.set_row_filter(RowFilter.of(kind=kind, states=states, profile=profile, text=text, account=account,
                                         batch=batch))

    def set_row_filter(self, new: RowFilter) -> None:
        if new == self._filter:
            return
        self.beginFilterChange()
        self._filter = new
        self._active = new.active
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def set_kind(self, kind: str | None) -> None:
        f = self._filter
        self.set_filters(kind=kind, states=f.states, profile=f.profile, text=f.text, account=f.account, batch=f.batch)

    def set_states(self, states: Iterable[str] | None) -> None:
        f = self._filter
        self.set_filters(kind=f.kind, states=states, profile=f.profile, text=f.text, account=f.account, batch=f.batch)

    def set_profile(self, profile: str | None) -> None:
        f = self._filter
        self.set_filters(kind=f.kind, states=f.states, profile=profile, text=f.text, account=f.account, batch=f.batch)

    def set_text(self, text: str) -> None:
        f = self._filter
        self.set_filters(kind=f.kind, states=f.states, profile=f.profile, text=text, account=f.account, batch=f.batch)

    @property
    def row_filter(self) -> RowFilter:
        return self._filter

    @property
    def active(self) -> bool:
        return self._active

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        if not self._active:
            return True
        src = self._src
        assert src is not None
        return src.rows.accepts(source_row, self._filter)

    def multiData(self, index: QModelIndex | QPersistentModelIndex, roleDataSpan: Any) -> None:
        """Forward the delegate's one-call-per-cell request to the source (Qt's proxy would
        split it into one ``data()`` call per role)."""
        if self._src is not None and index.isValid():
            self._src.multiData(self.mapToSource(index), roleDataSpan)

    # sorting ---------------------------------------------------------------
    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if self._src is not None:
            self._src.sort(column, order)

    # helpers ---------------------------------------------------------------
    def visible_task_ids(self) -> list[str]:
        """Task ids of every row the filter lets through, in display order (read from the mirror:
        one ``mapToSource`` call per row would cost far more)."""
        src = self._src
        assert src is not None
        rows, ids = src.rows, src.rows.cols.task_id
        if not self._active:
            return [ids[s] for s in rows.order]
        flt = self._filter
        return [ids[rows.order[r]] for r in range(len(rows)) if rows.accepts(r, flt)]

    def task_ids(self, proxy_rows: Iterable[int]) -> list[str]:
        src = self._src
        assert src is not None
        out: list[str] = []
        for r in proxy_rows:
            srow = self.mapToSource(self.index(r, 0)).row()
            if srow >= 0:
                out.append(src.task_id(srow))
        return out
