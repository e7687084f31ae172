"""A Qt-free, columnar mirror of the task table: what the console's task view shows.

Columnar (:class:`~mediadesk.viewmodel.columns.Columns`, by a storage index stable for a task's
lifetime) because per-row Python calls dominate at large sizes; the display order is kept apart and
sorted on request. Rows carry the store's version, so a stale event never overwrites a newer row (a
change that beats its record is kept aside). Events are coalesced and applied by :meth:`TaskRows.flush`
in contiguous blocks; rows never move on their own. Also keeps per-profile counts and finish times
for the lane panels; observed through :class:`RowsObserver` (``mediadesk.ui.models.task_model``).
"""

from __future__ import annotations

import time
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from mediadesk.core.states import TaskState
from mediadesk.scheduler.events import LaneStats, TaskChanged
from mediadesk.store.taskstore import TaskRecord
from mediadesk.viewmodel.columns import Columns, Row, error_text, row_change
from mediadesk.viewmodel.current_work import CurrentWork
from mediadesk.viewmodel.row_display import STALLED, STATES, RowFilter, duration_of, sort_key_function

RUNNING = TaskState.RUNNING.value
#: Terminal states that count as a finished run for the throughput (a cancel does not).
_FINISHED = frozenset({TaskState.SUCCESS.value, TaskState.FAILED.value})

__all__ = ["RowsObserver", "TaskRows", "blocks"]

def blocks(rows: Iterable[int]) -> list[tuple[int, int]]:
    """Contiguous runs of row numbers: [1, 2, 3, 7, 9, 10] -> [(1, 3), (7, 7), (9, 10)]."""
    out: list[tuple[int, int]] = []
    for r in sorted(set(rows)):
        if out and r == out[-1][1] + 1:
            out[-1] = (out[-1][0], r)
        else:
            out.append((r, r))
    return out


class RowsObserver(Protocol):
    """What a view is told during :meth:`TaskRows.flush` (display row numbers, inclusive)."""

    def begin_insert_rows(self, first: int, last: int) -> None:
        """Rows ``first..last`` are about to be appended."""

    def end_insert_rows(self, first: int, last: int) -> None:
        """Rows ``first..last`` are in place (and already hold any change that waited for them)."""

    def rows_changed(self, first: int, last: int) -> None:
        """Fields of rows ``first..last`` changed."""


class _NoObserver:
    def begin_insert_rows(self, first: int, last: int) -> None:
        pass

    def end_insert_rows(self, first: int, last: int) -> None:
        pass

    def rows_changed(self, first: int, last: int) -> None:
        pass


class TaskRows:
    """The mirror. Queue rows and changes (:meth:`queue_rows`, :meth:`queue_change`), apply them
    with :meth:`flush`; read by task id, display row or storage index."""

    def __init__(
        self,
        *,
        heartbeat_interval_s: float = 15.0,
        clock: Callable[[], float] = time.time,
        observer: RowsObserver | None = None,
        finishes_kept: int = 50_000,
    ) -> None:
        self._clock = clock
        self.observer: RowsObserver = observer if observer is not None else _NoObserver()
        #: A running task whose last heartbeat is older than this shows as "stalled".
        self.stalled_after_s = 2.0 * heartbeat_interval_s
        self.cols = Columns()
        self._index: dict[str, int] = {}
        #: Display row -> storage index. Replaced (not mutated) by :meth:`sort`; read-only outside.
        #: Machine ints (4 bytes a row), not lists of int objects (8 + 32 bytes a row each).
        self.order: array[int] = array("i")
        self._pos: array[int] = array("i")     # storage index -> display row
        self._running: set[int] = set()
        # aggregates for the lane panels
        self._counts: dict[str, dict[str, int]] = {}
        #: What the lane panels' progress counts (the batches since the lanes were last idle).
        self.current_work = CurrentWork()
        self._profile_kind: dict[str, str] = {}
        self._finishes: dict[str, deque[tuple[float, float]]] = {
            "web": deque(maxlen=finishes_kept), "api": deque(maxlen=finishes_kept)}
        # coalescing
        self._new: list[Columns] = []  # batches of new rows, in arrival order
        self._new_count = 0
        self._changes: dict[str, TaskChanged] = {}
        self._orphans: dict[str, TaskChanged] = {}
        self._sort_key: str | None = None
        self._sort_descending = False
        #: This console's scheduler (``Scheduler.owner``): every task change on the bus is its own, so a
        #: task it claims (state running) is shown as run by this desktop.
        self.own_owner: str | None = None

    # ------------------------------------------------------------------ size and order
    def __len__(self) -> int:
        return len(self.order)

    def storage_of(self, row: int) -> int:
        return self.order[row]

    def row_of_storage(self, s: int) -> int:
        return self._pos[s]

    # ------------------------------------------------------------------ queries by task id / row
    def row_of(self, task_id: str) -> int | None:
        """Display row of ``task_id`` (None when not in the mirror yet)."""
        s = self._index.get(task_id)
        return None if s is None else self._pos[s]

    def state_of(self, task_id: str) -> str | None:
        s = self._index.get(task_id)
        return None if s is None else self.cols.state[s]

    def display_state_of(self, task_id: str) -> str | None:
        s = self._index.get(task_id)
        return None if s is None else self.display_state(s)

    def task_id_at(self, row: int) -> str:
        """Task id at display row ``row``."""
        return self.cols.task_id[self.order[row]]

    def row_at(self, row: int) -> Row:
        """Display row ``row`` as a :class:`Row` (not for hot paths: it builds a tuple)."""
        return self.cols.row(self.order[row])

    # ------------------------------------------------------------------ derived fields (storage index)
    def display_state(self, s: int) -> str:
        """State as shown: "stalled" for a running task without a recent heartbeat."""
        c = self.cols
        state = c.state[s]
        if state == RUNNING:
            hb = c.heartbeat_at[s]
            if hb is not None and self._clock() - hb > self.stalled_after_s and not self._foreign(s):
                return STALLED
        return state

    def _foreign(self, s: int) -> bool:
        """Run by another desktop (team mode): its heartbeats reach this console with its lane stats
        only, so its age is not judged here (the Desktops tab says whether that desktop is alive)."""
        own = self.own_owner
        owner = self.cols.owner[s]
        return own is not None and owner is not None and owner != own

    def duration(self, s: int) -> float | None:
        """Run time so far (running) or of the finished attempt (terminal); else None."""
        return duration_of(self.cols, s, self._clock)

    def heartbeat_age(self, s: int) -> float | None:
        """Seconds since the last heartbeat of a running task; None when not running."""
        c = self.cols
        hb = c.heartbeat_at[s]
        if c.state[s] != RUNNING or hb is None or self._foreign(s):
            return None
        return self._clock() - hb

    # ------------------------------------------------------------------ aggregates
    def counts(self, kind: str | None = None, profile: str | None = None) -> dict[str, int]:
        """State counts over tasks of ``kind`` (web/api) and/or ``profile``; all when both None."""
        out = dict.fromkeys(STATES, 0)
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

    # ------------------------------------------------------------------ filter
    def accepts(self, row: int, flt: RowFilter) -> bool:
        """Does display row ``row`` pass ``flt``?"""
        return flt.matches(self.cols, self.order[row], self.display_state)

    # ------------------------------------------------------------------ feeding
    @property
    def pending_updates(self) -> int:
        """Rows and changes queued for the next :meth:`flush`."""
        return self._new_count + len(self._changes)

    @property
    def has_queued_rows(self) -> bool:
        return self._new_count > 0

    def queue_columns(self, batch: Columns) -> None:
        """Queue new rows in bulk (the initial load builds them in its thread)."""
        if len(batch):
            self._new.append(batch)
            self._new_count += len(batch)

    def queue_rows(self, rows: Iterable[Row]) -> None:
        """Queue rows in :func:`record_row` form."""
        self.queue_columns(Columns.from_rows(rows))

    def queue_records(self, records: Iterable[TaskRecord]) -> None:
        """Queue full records (tasks just added)."""
        self.queue_columns(Columns.from_records(records))

    def queue_change(self, ev: TaskChanged) -> None:
        """Queue a state change; only the newest version per task survives until the flush."""
        cur = self._changes.get(ev.task_id)
        if cur is None or ev.version >= cur.version:
            self._changes[ev.task_id] = ev

    def apply_lane_stats(self, stats: LaneStats) -> None:
        """Heartbeats are not task events: they arrive with the lane stats. Applied at once (no
        signal: the view's 1 s tick repaints running rows)."""
        c = self.cols
        for info in stats.running:
            s = self._index.get(info.task_id)
            if s is not None and c.state[s] == RUNNING:
                hb = c.heartbeat_at[s]
                if hb is None or info.heartbeat_at > hb:
                    c.heartbeat_at[s] = info.heartbeat_at

    def flush(self, max_new_rows: int | None = None) -> bool:
        """Apply what is queued: one insert (at most ``max_new_rows`` new rows; all when None),
        then one ``rows_changed`` per contiguous block of changed rows. True when any state
        count changed."""
        counts_dirty = False
        if self._new:
            batches = self._take_new(max_new_rows)
            batch = batches[0]
            if len(batches) > 1:  # one insert per flush: each one costs the view a pass
                batch = Columns()
                for b in batches:
                    batch.extend(b)
            counts_dirty |= self._insert(batch)
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
            self._report_changed(rows)
        return counts_dirty

    def _take_new(self, limit: int | None) -> list[Columns]:
        """Dequeue new rows: all, or the first ``limit`` of them (splitting a batch if need be)."""
        if limit is None or self._new_count <= limit:
            out, self._new, self._new_count = self._new, [], 0
            return out
        out = []
        left = limit
        while left > 0:
            batch = self._new[0]
            if len(batch) <= left:
                out.append(self._new.pop(0))
                left -= len(batch)
            else:
                out.append(batch.slice(0, left))
                self._new[0] = batch.slice(left, len(batch))
                left = 0
        self._new_count -= limit
        return out

    def _insert(self, batch: Columns) -> bool:
        index = self._index
        tids = batch.task_id
        if index.keys().isdisjoint(tids) and len(set(tids)) == len(tids):
            fresh = batch  # the usual case (C-speed check): every row is new, none twice
            updated: list[int] = []
        else:
            fresh_at: list[int] = []
            updated = []
            seen: set[str] = set()
            versions = self.cols.version
            new_versions = batch.version
            for i, tid in enumerate(tids):
                s = index.get(tid)
                if s is not None:
                    if new_versions[i] > versions[s]:
                        self._apply(s, row_change(batch.row(i)))
                        owner = batch.owner[i]
                        if owner is not None:
                            self.cols.owner[s] = owner
                        updated.append(self._pos[s])
                elif tid not in seen:
                    seen.add(tid)
                    fresh_at.append(i)
            fresh = batch.take(fresh_at)
        if len(fresh):
            self._append(fresh)
        self._report_changed(updated)
        return bool(len(fresh) or updated)

    def _append(self, fresh: Columns) -> None:
        c = self.cols
        first_s = len(c.task_id)
        first = len(self.order)
        last = first + len(fresh) - 1
        self.observer.begin_insert_rows(first, last)
        c.extend(fresh)
        index, order, pos = self._index, self.order, self._pos
        counts, profile_kind, finishes, running = self._counts, self._profile_kind, self._finishes, self._running
        ids, kinds, states, profiles = c.task_id, c.kind, c.state, c.profile
        started, finished = c.started_at, c.finished_at
        work_add, batches = self.current_work.add, c.batch
        for s in range(first_s, first_s + len(fresh)):
            index[ids[s]] = s
            pos.append(len(order))
            order.append(s)
            profile, state = profiles[s], states[s]
            if profile not in profile_kind:
                profile_kind[profile] = kinds[s]
            by_state = counts.get(profile)
            if by_state is None:
                by_state = counts[profile] = {}
            by_state[state] = by_state.get(state, 0) + 1
            work_add(kinds[s], batches[s], state)
            if state == RUNNING:
                running.add(s)
            elif state in _FINISHED:
                end = finished[s]
                if end is not None:
                    finishes[kinds[s]].append((started[s] or end, end))
        if self._orphans:  # changes that arrived before their record
            for s in range(first_s, first_s + len(fresh)):
                orphan = self._orphans.pop(ids[s], None)
                if orphan is not None:
                    self._apply(s, orphan)
        self.observer.end_insert_rows(first, last)

    def _apply(self, s: int, ev: TaskChanged) -> bool:
        """Write one event/record into storage row ``s`` if it is not older than what we have."""
        c = self.cols
        if ev.version < c.version[s]:
            return False
        old_state = c.state[s]
        new_state = ev.state
        if old_state != new_state:
            by_state = self._counts[c.profile[s]]
            by_state[old_state] -= 1
            by_state[new_state] = by_state.get(new_state, 0) + 1
            self.current_work.change(c.kind[s], c.batch[s], old_state, new_state)
            if new_state == RUNNING:
                self._running.add(s)
            else:
                self._running.discard(s)
            if new_state in _FINISHED and ev.finished_at is not None:
                self._finishes[c.kind[s]].append((ev.started_at or ev.finished_at, ev.finished_at))
        if self.own_owner is not None and ev.started_at is not None and ev.started_at != c.started_at[s]:
            # a new attempt, claimed by this desktop's scheduler: the bus carries only its changes (a
            # record read from the database sets its own owner after this; the running event itself
            # may have been coalesced away behind the terminal one)
            c.owner[s] = self.own_owner
        c.state[s] = new_state
        c.attempt[s] = ev.attempt
        c.lane[s] = ev.lane
        c.account[s] = ev.account
        c.started_at[s] = ev.started_at
        hb = c.heartbeat_at[s]
        if ev.heartbeat_at is not None and (hb is None or ev.heartbeat_at > hb or old_state != RUNNING):
            c.heartbeat_at[s] = ev.heartbeat_at
        c.finished_at[s] = ev.finished_at
        c.error[s] = error_text(ev.error_kind, ev.error_message, ev.truncated)
        c.version[s] = ev.version
        return True

    def _report_changed(self, rows: list[int]) -> None:
        if rows:
            for a, b in blocks(rows):
                self.observer.rows_changed(a, b)

    def running_blocks(self) -> list[tuple[int, int]]:
        """Display rows of running tasks as contiguous blocks (the view's 1 s repaint)."""
        return blocks([self._pos[s] for s in self._running]) if self._running else []

    # ------------------------------------------------------------------ sorting
    @property
    def sort_key(self) -> str | None:
        """What the display order is sorted by (None: insertion order)."""
        return self._sort_key

    @property
    def sort_descending(self) -> bool:
        return self._sort_descending

    def sort(self, key: str | None, descending: bool = False) -> None:
        """Re-order the display rows by ``key`` (one of :data:`SORT_KEYS`; None or an unknown key:
        insertion order) with one ``sorted()``. Queued work is not flushed here: the view does
        that first, so its rows and the mirror agree."""
        keyfn = sort_key_function(self.cols, key, self._clock)
        n = len(self.cols.task_id)
        new_order = array("i", range(n) if keyfn is None else sorted(range(n), key=keyfn, reverse=descending))
        pos = array("i", bytes(new_order.itemsize * n))
        for row, s in enumerate(new_order):
            pos[s] = row
        self.order = new_order
        self._pos = pos
        self._sort_key = key if keyfn is not None else None
        self._sort_descending = descending
