"""The task table: a Qt model over a columnar in-memory mirror of the task table.

Why columnar and hand-sorted: at 100,000 rows every Python call from Qt counts. A model
``data()`` call costs ~8 µs from C++ (measured, PySide6 6.11), so ``QSortFilterProxyModel``'s
own sort (3.2 M ``data()`` calls for 100k rows) took 188 s, and a Python ``lessThan`` 45 s.
Here the source model keeps a display order (a permutation of its storage rows) and sorts it
with one ``sorted(key=...)`` call (tens of ms); the proxy above only filters.

Updates follow the napari pattern: core events map to ``beginInsertRows``/``dataChanged``,
never to a reset. Events are coalesced: changes collected between flushes (every ~100 ms)
become one ``dataChanged`` per contiguous block of display rows, and new tasks one
``beginInsertRows`` per flush. Rows never move on their own: a sort is applied when the
operator asks for it (a header click) and rows that arrive later are appended, so a row the
operator is about to cancel never jumps away under the mouse.

The model also keeps per-profile state counts and recent finish times, so the lane panels need
no database reads at all.
"""

from __future__ import annotations

import time
from collections import deque
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

from mediadesk.scheduler.events import LaneStats, TaskChanged
from mediadesk.store.taskstore import TaskRecord
from mediadesk.ui.style import is_dark, state_color

__all__ = [
    "COLUMNS",
    "TINT_ALPHA",
    "Col",
    "Row",
    "TaskFilterProxy",
    "TaskTableModel",
    "fmt_seconds",
    "record_row",
    "state_tints",
]


class Col:
    """Column numbers (plain ints: an IntEnum comparison costs ~1 µs per data() call)."""

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


COLUMNS = ("id", "lane", "profile", "account", "state", "attempt", "started", "heartbeat", "duration",
           "prompt", "error")
PROMPT_CHARS = 80
STALLED = "stalled"
_TERMINAL = frozenset({"success", "failed", "canceled"})
_STATE_RANK = {"pending": 0, "running": 1, "success": 2, "failed": 3, "canceled": 4}

#: Alpha of the state tint behind the state cell: the shared state colours (style.py, light or
#: dark variant) laid translucently on the palette's own base, so text stays readable in both.
TINT_ALPHA = 70


def state_tints(dark: bool | None = None) -> dict[str, QColor]:
    """Background tints per displayed state (``stalled`` included)."""
    dark = is_dark() if dark is None else dark
    out = {}
    for st in ("pending", "running", STALLED, "success", "failed", "canceled"):
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


def _fmt_clock(t: float | None) -> str:
    if t is None:
        return ""
    lt = time.localtime(t)
    if time.localtime().tm_yday == lt.tm_yday:
        return time.strftime("%H:%M:%S", lt)
    return time.strftime("%m-%d %H:%M", lt)


def fmt_seconds(s: float | None) -> str:
    """Compact duration: ``850 ms``, ``12.3 s``, ``4:05``, ``1:02:03``."""
    if s is None:
        return ""
    if s < 0:
        s = 0.0
    if s < 1:
        return f"{s * 1000:.0f} ms"
    if s < 60:
        return f"{s:.1f} s"
    m, sec = divmod(int(s), 60)
    if m < 60:
        return f"{m}:{sec:02d}"
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{sec:02d}"


#: A task as the model stores it: a plain tuple of atoms (id, kind, state, attempt, started,
#: heartbeat, profile, account, lane, prompt head, error kind, version, finished). Plain tuples of
#: atoms are untracked by Python's cyclic GC, so 100k of them in flight (initial load) do not turn
#: into a long collection pause on the GUI thread, as 100k dataclass records did.
Row = tuple[str, str, str, int, float | None, float | None, str, str | None, str | None, str, str | None, int,
            float | None]


def prompt_head(prompt: str) -> str:
    head = prompt[:PROMPT_CHARS]
    return head.replace("\n", " ").replace("\r", " ") if "\n" in head or "\r" in head else head


def error_text(kind: str | None, message: str | None) -> str | None:
    """The error column: the kind, then the first line of the message (full text in the detail pane)."""
    if not kind:
        return None
    if not message:
        return kind
    first = message.splitlines()[0] if message.strip() else ""
    return f"{kind}: {first[:200]}" if first else kind


def record_row(rec: TaskRecord) -> Row:
    return (rec.task_id, rec.model_kind, rec.state, rec.attempt, rec.started_at, rec.heartbeat_at, rec.profile,
            rec.account, rec.lane, prompt_head(rec.prompt), error_text(rec.error_kind, rec.error_message),
            rec.version, rec.finished_at)


def row_change(row: Row) -> TaskChanged:
    return TaskChanged(task_id=row[0], state=row[2], attempt=row[3], lane=row[8], account=row[7],
                       started_at=row[4], heartbeat_at=row[5], finished_at=row[12], error_kind=row[10],
                       version=row[11])


class TaskTableModel(QAbstractTableModel):
    """Rows = tasks. Storage index ``s`` is stable for a task's lifetime (append only); the display
    row of ``s`` is ``self._pos[s]`` (it changes only on :meth:`sort`)."""

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
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._clock = clock
        #: A running task whose last heartbeat is older than this shows as "stalled".
        self.stalled_after_s = 2.0 * heartbeat_interval_s
        # columnar storage
        self._ids: list[str] = []
        self._kind: list[str] = []
        self._lane: list[str | None] = []
        self._profile: list[str] = []
        self._account: list[str | None] = []
        self._state: list[str] = []
        self._attempt: list[int] = []
        self._started: list[float | None] = []
        self._hb: list[float | None] = []
        self._finished: list[float | None] = []
        self._prompt: list[str] = []
        self._error: list[str | None] = []
        self._version: list[int] = []
        self._index: dict[str, int] = {}
        self._order: list[int] = []   # display row -> storage index
        self._pos: list[int] = []     # storage index -> display row
        self._running: set[int] = set()
        # aggregates for the lane panels
        self._counts: dict[str, dict[str, int]] = {}
        self._profile_kind: dict[str, str] = {}
        self._finishes: dict[str, deque[tuple[float, float]]] = {"web": deque(maxlen=50_000),
                                                                  "api": deque(maxlen=50_000)}
        # coalescing
        self._new: list[Row] = []
        self._changes: dict[str, TaskChanged] = {}
        self._orphans: dict[str, TaskChanged] = {}
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(flush_interval_ms)
        self._flush_timer.timeout.connect(self._timed_flush)
        self._flush_interval_ms = flush_interval_ms
        #: New rows applied per timed flush: a 10k-row submit becomes a few short steps between
        #: which the loop paints and runs the lanes, not one long freeze.
        self.max_rows_per_flush = max_rows_per_flush
        self._sort_column = -1
        self._sort_order = Qt.SortOrder.AscendingOrder
        self._state_labels = {
            "pending": self.tr("pending"), "running": self.tr("running"), STALLED: self.tr("stalled"),
            "success": self.tr("success"), "failed": self.tr("failed"), "canceled": self.tr("canceled"),
        }
        self._headers = [
            self.tr("id"), self.tr("lane"), self.tr("profile"), self.tr("account"), self.tr("state"),
            self.tr("attempt"), self.tr("started"), self.tr("heartbeat"), self.tr("duration"),
            self.tr("prompt"), self.tr("error"),
        ]
        self._tints = state_tints()
        self._right = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    # ------------------------------------------------------------------ Qt model API
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._order)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        if role == _DISPLAY and orientation == Qt.Orientation.Horizontal and 0 <= section < len(self._headers):
            return self._headers[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = _DISPLAY) -> Any:
        # Hot path (7 calls per painted cell): plain int compares, direct list access.
        if role == _DISPLAY:
            return self._display(self._order[index.row()], index.column())
        if role == _BACKGROUND:
            if index.column() != Col.STATE:
                return None
            return self._tints.get(self._display_state(self._order[index.row()]))
        if role == _ALIGN:
            c = index.column()
            if c == Col.ATTEMPT or c == Col.HEARTBEAT or c == Col.DURATION:
                return self._right
            return None
        if role == self.StateRole:
            return self._state[self._order[index.row()]]
        if role == self.TaskIdRole:
            return self._ids[self._order[index.row()]]
        if role == _TOOLTIP and index.column() == Col.PROMPT:
            return self._prompt[self._order[index.row()]]
        return None

    def multiData(self, index: QModelIndex | QPersistentModelIndex, roleDataSpan: Any) -> None:
        """All roles of one cell in one Python call: Qt 6's item delegate asks for seven roles per
        painted cell through this, so overriding it cuts the calls from Python by 7x."""
        if not index.isValid():
            return
        s = self._order[index.row()]
        c = index.column()
        # Every entry is written (set or cleared): PySide may hand us a reused span.
        for rd in roleDataSpan:
            role = rd.role()
            if role == _DISPLAY:
                rd.setData(self._display(s, c))
            elif role == _BACKGROUND and c == Col.STATE:
                rd.setData(self._tints.get(self._display_state(s)))
            elif role == _ALIGN and (c == Col.ATTEMPT or c == Col.HEARTBEAT or c == Col.DURATION):
                rd.setData(self._right)
            elif role >= _USER or role == _TOOLTIP:
                rd.setData(self.data(index, role))
            else:
                rd.clearData()

    def _display(self, s: int, c: int) -> Any:
        if c == Col.ID:
            return self._ids[s]
        if c == Col.STATE:
            return self._state_labels.get(self._display_state(s), self._state[s])
        if c == Col.PROFILE:
            return self._profile[s]
        if c == Col.LANE:
            return self._lane[s] or ""
        if c == Col.ACCOUNT:
            return self._account[s] or ""
        if c == Col.ATTEMPT:
            return self._attempt[s]
        if c == Col.STARTED:
            return _fmt_clock(self._started[s])
        if c == Col.HEARTBEAT:
            if self._state[s] != "running" or self._hb[s] is None:
                return ""
            return fmt_seconds(self._clock() - self._hb[s])  # type: ignore[operator]
        if c == Col.DURATION:
            return fmt_seconds(self._duration(s))
        if c == Col.PROMPT:
            return self._prompt[s]
        if c == Col.ERROR:
            return self._error[s] or ""
        return None

    def _duration(self, s: int) -> float | None:
        start = self._started[s]
        if start is None:
            return None
        state = self._state[s]
        if state == "running":
            return self._clock() - start
        end = self._finished[s]
        if end is None or state not in _TERMINAL:
            return None
        return end - start

    def _display_state(self, s: int) -> str:
        state = self._state[s]
        if state == "running":
            hb = self._hb[s]
            if hb is not None and self._clock() - hb > self.stalled_after_s:
                return STALLED
        return state

    # ------------------------------------------------------------------ queries
    def task_id(self, row: int) -> str:
        """Task id at display row ``row``."""
        return self._ids[self._order[row]]

    def row_of(self, task_id: str) -> int | None:
        s = self._index.get(task_id)
        return None if s is None else self._pos[s]

    def state_of(self, task_id: str) -> str | None:
        s = self._index.get(task_id)
        return None if s is None else self._state[s]

    def display_state_of(self, task_id: str) -> str | None:
        s = self._index.get(task_id)
        return None if s is None else self._display_state(s)

    def display_state_at(self, s: int) -> str:
        """State as shown for storage row ``s`` ("stalled" for a running task without a recent beat)."""
        return self._display_state(s)

    def kind_of_row(self, row: int) -> str:
        return self._kind[self._order[row]]

    def fields_of_storage(self, s: int) -> tuple[str, str, str | None, str, str, str | None, str | None]:
        """(kind, state, lane, profile, id, account, error) of storage row ``s`` for the filter proxy."""
        return (self._kind[s], self._state[s], self._lane[s], self._profile[s], self._ids[s], self._account[s],
                self._error[s])

    def storage_of_row(self, row: int) -> int:
        return self._order[row]

    def prompt_head(self, s: int) -> str:
        return self._prompt[s]

    def counts(self, kind: str | None = None, profile: str | None = None) -> dict[str, int]:
        """State counts over tasks of ``kind`` (web/api) and/or ``profile``; all when both None."""
        out = {st: 0 for st in _STATE_RANK}
        for prof, by_state in self._counts.items():
            if profile is not None and prof != profile:
                continue
            if kind is not None and self._profile_kind.get(prof) != kind:
                continue
            for st, n in by_state.items():
                out[st] = out.get(st, 0) + n
        return out

    def profiles(self) -> list[str]:
        return sorted(self._counts)

    def finishes(self, kind: str) -> Sequence[tuple[float, float]]:
        """(started_at, finished_at) of recent successes/failures of ``kind`` (for throughput)."""
        return self._finishes.get(kind, ())

    def running_rows(self) -> list[int]:
        return sorted(self._pos[s] for s in self._running)

    @property
    def pending_updates(self) -> int:
        return len(self._new) + len(self._changes)

    # ------------------------------------------------------------------ feeding
    def add_records(self, records: Iterable[TaskRecord]) -> None:
        """Queue full records (tasks just added); applied at the next flush."""
        self._new.extend(record_row(r) for r in records)
        self._schedule()

    def add_rows(self, rows: Iterable[Row]) -> None:
        """Queue rows already in :func:`record_row` form (the initial load builds them in its thread)."""
        self._new.extend(rows)
        self._schedule()

    def apply_change(self, ev: TaskChanged) -> None:
        """Queue a state change; only the newest version per task survives until the flush."""
        cur = self._changes.get(ev.task_id)
        if cur is None or ev.version >= cur.version:
            self._changes[ev.task_id] = ev
        self._schedule()

    def apply_lane_stats(self, stats: LaneStats) -> None:
        """Heartbeats are not task events: they arrive with the lane stats (the 1 s tick shows them)."""
        for info in stats.running:
            s = self._index.get(info.task_id)
            if s is not None and self._state[s] == "running":
                hb = self._hb[s]
                if hb is None or info.heartbeat_at > hb:
                    self._hb[s] = info.heartbeat_at

    def _schedule(self) -> None:
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    def _timed_flush(self) -> None:
        self.flush(self.max_rows_per_flush)
        if self._new:  # more rows queued: continue right after the loop has breathed
            self._flush_timer.start(0)
        else:
            self._flush_timer.setInterval(self._flush_interval_ms)

    def flush(self, max_new_rows: int | None = None) -> None:
        """Apply what is queued: one insert per call (at most ``max_new_rows`` new rows; all when
        None), one dataChanged per contiguous block of changed rows."""
        self._flush_timer.stop()
        counts_dirty = False
        if self._new:
            if max_new_rows is None or len(self._new) <= max_new_rows:
                new, self._new = self._new, []
            else:
                new, self._new = self._new[:max_new_rows], self._new[max_new_rows:]
            counts_dirty |= self._insert(new)
        if self._changes:
            changes, self._changes = self._changes, {}
            rows: list[int] = []
            for ev in changes.values():
                s = self._index.get(ev.task_id)
                if s is None:
                    # The record is still on its way from the database: keep the change for it.
                    old = self._orphans.get(ev.task_id)
                    if old is None or ev.version >= old.version:
                        self._orphans[ev.task_id] = ev
                    continue
                if self._apply(s, ev):
                    rows.append(self._pos[s])
                    counts_dirty = True
            self._emit_rows_changed(rows)
        if counts_dirty:
            self.countsChanged.emit()

    def _insert(self, rows: list[Row]) -> bool:
        fresh: list[Row] = []
        updated: list[int] = []
        seen: set[str] = set()
        for row in rows:
            tid = row[0]
            s = self._index.get(tid)
            if s is not None:
                if row[11] > self._version[s]:
                    self._apply(s, row_change(row))
                    updated.append(self._pos[s])
            elif tid not in seen:
                seen.add(tid)
                fresh.append(row)
        if fresh:
            first = len(self._order)
            self.beginInsertRows(QModelIndex(), first, first + len(fresh) - 1)
            for (tid, kind, state, attempt, started, hb, profile, account, lane, prompt, error, version,
                 finished) in fresh:
                s = len(self._ids)
                self._ids.append(tid)
                self._kind.append(kind)
                self._lane.append(lane)
                self._profile.append(profile)
                self._account.append(account)
                self._state.append(state)
                self._attempt.append(attempt)
                self._started.append(started)
                self._hb.append(hb)
                self._finished.append(finished)
                self._prompt.append(prompt)
                self._error.append(error)
                self._version.append(version)
                self._index[tid] = s
                self._order.append(s)
                self._pos.append(len(self._order) - 1)
                self._profile_kind.setdefault(profile, kind)
                by_state = self._counts.setdefault(profile, {})
                by_state[state] = by_state.get(state, 0) + 1
                if state == "running":
                    self._running.add(s)
                elif (state == "success" or state == "failed") and finished is not None:
                    self._finishes[kind].append((started or finished, finished))
            self.endInsertRows()
            for row in fresh:  # changes that arrived before their record
                orphan = self._orphans.pop(row[0], None)
                if orphan is not None:
                    s = self._index[row[0]]
                    if self._apply(s, orphan):
                        updated.append(self._pos[s])
            self.rowsAppended.emit(len(fresh))
        self._emit_rows_changed(updated)
        return bool(fresh or updated)

    def _apply(self, s: int, ev: TaskChanged) -> bool:
        """Write one event/record into storage row ``s`` if it is not older than what we have."""
        if ev.version < self._version[s]:
            return False
        old_state = self._state[s]
        new_state = ev.state
        if old_state != new_state:
            by_state = self._counts[self._profile[s]]
            by_state[old_state] -= 1
            by_state[new_state] = by_state.get(new_state, 0) + 1
            if new_state == "running":
                self._running.add(s)
            else:
                self._running.discard(s)
            if new_state in ("success", "failed") and ev.finished_at is not None:
                self._finishes[self._kind[s]].append((ev.started_at or ev.finished_at, ev.finished_at))
        self._state[s] = new_state
        self._attempt[s] = ev.attempt
        self._lane[s] = ev.lane
        self._account[s] = ev.account
        self._started[s] = ev.started_at
        hb = self._hb[s]
        if ev.heartbeat_at is not None and (hb is None or ev.heartbeat_at > hb or old_state != "running"):
            self._hb[s] = ev.heartbeat_at
        self._finished[s] = ev.finished_at
        self._error[s] = error_text(ev.error_kind, ev.error_message)
        self._version[s] = ev.version
        return True

    def _emit_rows_changed(self, rows: list[int]) -> None:
        if not rows:
            return
        last_col = len(COLUMNS) - 1
        for a, b in _blocks(rows):
            self.dataChanged.emit(self.index(a, 0), self.index(b, last_col))

    def refresh_running(self) -> None:
        """The 1 s tick: elapsed time, heartbeat age and the stalled display of running rows."""
        if not self._running:
            return
        for a, b in _blocks([self._pos[s] for s in self._running]):
            self.dataChanged.emit(self.index(a, Col.STATE), self.index(b, Col.DURATION))

    # ------------------------------------------------------------------ sorting
    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Re-order the display rows by ``column`` (``-1``: insertion order). One ``sorted()``;
        persistent indexes (selection, current row) follow their tasks."""
        self.flush()
        key = self._sort_key(column)
        reverse = order == Qt.SortOrder.DescendingOrder
        self.layoutAboutToBeChanged.emit()
        old_persistent = self.persistentIndexList()
        old_storage = [self._order[i.row()] for i in old_persistent]
        n = len(self._ids)
        new_order = list(range(n)) if key is None else sorted(range(n), key=key, reverse=reverse)
        self._order = new_order
        pos = [0] * n
        for row, s in enumerate(new_order):
            pos[s] = row
        self._pos = pos
        self.changePersistentIndexList(
            old_persistent, [self.index(pos[s], i.column()) for s, i in zip(old_storage, old_persistent, strict=True)]
        )
        self._sort_column = column
        self._sort_order = order
        self.layoutChanged.emit()

    def _sort_key(self, column: int) -> Callable[[int], Any] | None:
        """Key over storage indexes. None sorts first ascending (missing times, no account)."""
        if column == Col.ID:
            return self._ids.__getitem__
        if column == Col.STATE:
            return lambda s: _STATE_RANK.get(self._state[s], 9)
        if column == Col.ATTEMPT:
            return self._attempt.__getitem__
        if column == Col.PROMPT:
            return lambda s: self._prompt[s].casefold()
        text_cols: dict[int, list[Any]] = {Col.LANE: self._lane, Col.PROFILE: self._profile,
                                           Col.ACCOUNT: self._account, Col.ERROR: self._error}
        if column in text_cols:
            col = text_cols[column]
            return lambda s: col[s] or ""
        if column == Col.STARTED:
            return lambda s: _num(self._started[s])
        if column == Col.HEARTBEAT:
            now = self._clock()
            return lambda s: _num(None if self._state[s] != "running" or self._hb[s] is None
                                  else now - self._hb[s])  # type: ignore[operator]
        if column == Col.DURATION:
            return lambda s: _num(self._duration(s))
        return None

    @property
    def sort_column(self) -> int:
        return self._sort_column


def _num(v: float | None) -> float:
    return float("-inf") if v is None else v


def _blocks(rows: Iterable[int]) -> list[tuple[int, int]]:
    """Contiguous runs of row numbers: [1, 2, 3, 7, 9, 10] -> [(1, 3), (7, 7), (9, 10)]."""
    out: list[tuple[int, int]] = []
    for r in sorted(set(rows)):
        if out and r == out[-1][1] + 1:
            out[-1] = (out[-1][0], r)
        else:
            out.append((r, r))
    return out


class TaskFilterProxy(QSortFilterProxyModel):
    """Filters by lane kind, state(s), profile and free text (id, profile, lane, account, error and
    the first 80 prompt characters). Sorting is delegated to the source model (see module doc):
    this proxy keeps the source order, so ``sort()`` here re-orders the source."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._kind: str | None = None
        self._states: frozenset[str] | None = None
        self._profile: str | None = None
        self._text = ""
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
    ) -> None:
        """Replace all filters at once (one re-filter pass instead of four)."""
        new = (kind or None, frozenset(states) if states else None, profile or None, text.strip().casefold())
        if new == (self._kind, self._states, self._profile, self._text):
            return
        self.beginFilterChange()
        self._kind, self._states, self._profile, self._text = new
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def set_kind(self, kind: str | None) -> None:
        self.set_filters(kind=kind, states=self._states, profile=self._profile, text=self._text)

    def set_states(self, states: Iterable[str] | None) -> None:
        self.set_filters(kind=self._kind, states=states, profile=self._profile, text=self._text)

    def set_profile(self, profile: str | None) -> None:
        self.set_filters(kind=self._kind, states=self._states, profile=profile, text=self._text)

    def set_text(self, text: str) -> None:
        self.set_filters(kind=self._kind, states=self._states, profile=self._profile, text=text)

    @property
    def active(self) -> bool:
        return bool(self._kind or self._states or self._profile or self._text)

    def filterAcceptsRow(self, source_row: int, source_parent: Any) -> bool:
        if not (self._kind or self._states or self._profile or self._text):
            return True
        src = self._src
        assert src is not None
        s = src.storage_of_row(source_row)
        kind, state, lane, profile, tid, account, error = src.fields_of_storage(s)
        if self._kind is not None and kind != self._kind:
            return False
        if (self._states is not None and state not in self._states
                and not (STALLED in self._states and src.display_state_at(s) == STALLED)):
            return False
        if self._profile is not None and profile != self._profile:
            return False
        if self._text:
            t = self._text
            return (t in tid.casefold() or t in profile.casefold() or t in (lane or "").casefold()
                    or t in (account or "").casefold() or t in (error or "").casefold()
                    or t in src.prompt_head(s).casefold())
        return True

    def multiData(self, index: QModelIndex | QPersistentModelIndex, roleDataSpan: Any) -> None:
        """Forward the delegate's one-call-per-cell request to the source (Qt's proxy would
        split it into seven ``data()`` calls)."""
        if self._src is not None and index.isValid():
            self._src.multiData(self.mapToSource(index), roleDataSpan)

    # sorting ---------------------------------------------------------------
    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if self._src is not None:
            self._src.sort(column, order)

    # helpers ---------------------------------------------------------------
    def task_ids(self, proxy_rows: Iterable[int]) -> list[str]:
        src = self._src
        assert src is not None
        out: list[str] = []
        for r in proxy_rows:
            srow = self.mapToSource(self.index(r, 0)).row()
            if srow >= 0:
                out.append(src.task_id(srow))
        return out
