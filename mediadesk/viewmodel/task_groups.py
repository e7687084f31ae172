"""The task table grouped by batch (JDownloader's packages), without Qt: one group per batch with its
counts by state and its tasks in the table's display order.

A second view over :class:`~mediadesk.viewmodel.task_rows.TaskRows`, never a copy: groups hold
storage indexes and per-state counts, built in one pass, then updated incrementally. The operator's
sort and filter apply inside every group, so a group shows exactly the rows the flat list would;
groups stay in submission order, and a batch with no row passing the filter has no group. Counts
are always the batch's whole truth, whatever the filter shows.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from mediadesk.viewmodel.row_display import RowFilter
from mediadesk.viewmodel.task_rows import TaskRows

__all__ = ["BatchProgress", "Changed", "Group", "TaskGroups"]

_DONE = ("success", "failed", "canceled")


@dataclass
class Group:
    """One batch (``batch`` None: tasks submitted without a batch name) and the storage indexes of
    the tasks it shows, in display order."""

    batch: str | None
    children: array[int] = field(default_factory=lambda: array("i"))


@dataclass(frozen=True)
class BatchProgress:
    """A batch's counts: ``done`` = finished in any way (success, failed, canceled)."""

    total: int
    done: int
    failed: int
    by_state: dict[str, int]


@dataclass
class Changed:
    """What a state change touched: the group rows whose counts changed, the (group row, child
    row) pairs whose cells changed, and whether a task entered or left the filter (the groups
    must then be built again)."""

    groups: set[int] = field(default_factory=set)
    children: list[tuple[int, int]] = field(default_factory=list)
    regroup: bool = False


class TaskGroups:
    """Groups over ``rows``. :meth:`rebuild` after a sort or a filter change; :meth:`take_new`
    and :meth:`add_children` / :meth:`add_groups` for appended rows; :meth:`apply_changed` for
    changed rows."""

    def __init__(self, rows: TaskRows) -> None:
        self.rows = rows
        self.filter = RowFilter()
        self.groups: list[Group] = []
        self._at: dict[str | None, int] = {}
        #: storage index -> its row in its group (-1: not shown, or not counted yet)
        self._child_row: array[int] = array("i")
        #: batch -> state -> tasks (every task of the batch, whatever the filter)
        self._counts: dict[str | None, dict[str, int]] = {}
        #: the state each storage index was counted under
        self._seen: list[str] = []

    # ------------------------------------------------------------------ reading
    def __len__(self) -> int:
        return len(self.groups)

    def group_row(self, batch: str | None) -> int | None:
        """The row of ``batch``'s group (None: it has none, e.g. no task passes the filter)."""
        return self._at.get(batch)

    def child_row(self, s: int) -> int:
        """The row of storage index ``s`` in its group (-1: not shown)."""
        return self._child_row[s] if s < len(self._child_row) else -1

    def storage_at(self, group_row: int, child_row: int) -> int:
        return self.groups[group_row].children[child_row]

    def task_ids(self, group_row: int) -> list[str]:
        """The task ids a group shows, in display order."""
        ids = self.rows.cols.task_id
        return [ids[s] for s in self.groups[group_row].children]

    def progress(self, batch: str | None) -> BatchProgress:
        by_state = dict(self._counts.get(batch, {}))
        return BatchProgress(total=sum(by_state.values()), done=sum(by_state.get(st, 0) for st in _DONE),
                             failed=by_state.get("failed", 0), by_state=by_state)

    # ------------------------------------------------------------------ building
    def clear(self) -> None:
        self.groups, self._at, self._counts, self._seen = [], {}, {}, []
        self._child_row = array("i")

    def rebuild(self, flt: RowFilter | None = None) -> None:
        """Count every task and group the shown ones, in one pass over the display order."""
        if flt is not None:
            self.filter = flt
        rows, cols = self.rows, self.rows.cols
        batch, state = cols.batch, cols.state
        self._seen = list(state)
        counts: dict[str | None, dict[str, int]] = {}
        for (b, st), n in Counter(zip(batch, state, strict=True)).items():
            counts.setdefault(b, {})[st] = n
        self._counts = counts
        children: dict[str | None, array[int]] = {b: array("i") for b in dict.fromkeys(batch)}
        flt = self.filter
        if flt.active:
            display_state = rows.display_state
            for s in rows.order:
                if flt.matches(cols, s, display_state):
                    children[batch[s]].append(s)
        else:
            for s in rows.order:
                children[batch[s]].append(s)
        self.groups = [Group(b, ch) for b, ch in children.items() if ch]
        self._at = {g.batch: i for i, g in enumerate(self.groups)}
        child_row = array("i", [-1]) * len(batch)
        for g in self.groups:
            for i, s in enumerate(g.children):
                child_row[s] = i
        self._child_row = child_row

    # ------------------------------------------------------------------ appended rows
    def take_new(self, first: int, last: int) -> tuple[dict[str | None, list[int]], set[str | None]]:
        """Count the display rows ``first..last`` just appended to the mirror; return the ones the
        filter shows, by batch (display order), and every batch they belong to. Nothing is shown
        until :meth:`add_children` / :meth:`add_groups` (the view is told in between)."""
        rows, cols = self.rows, self.rows.cols
        batch, state = cols.batch, cols.state
        flt, display_state = self.filter, rows.display_state
        shown: dict[str | None, list[int]] = {}
        touched: set[str | None] = set()
        for r in range(first, last + 1):
            s = rows.order[r]
            b, st = batch[s], state[s]
            while len(self._seen) <= s:  # storage indexes are appended in order
                self._seen.append("")
                self._child_row.append(-1)
            by_state = self._counts.setdefault(b, {})
            by_state[st] = by_state.get(st, 0) + 1
            self._seen[s] = st
            touched.add(b)
            if not flt.active or flt.matches(cols, s, display_state):
                shown.setdefault(b, []).append(s)
        return shown, touched

    def add_children(self, group_row: int, storage: Iterable[int]) -> None:
        g = self.groups[group_row]
        for s in storage:
            self._child_row[s] = len(g.children)
            g.children.append(s)

    def add_groups(self, new: Iterable[tuple[str | None, list[int]]]) -> None:
        for b, storage in new:
            self._at[b] = len(self.groups)
            self.groups.append(Group(b))
            self.add_children(len(self.groups) - 1, storage)

    # ------------------------------------------------------------------ changed rows
    def apply_changed(self, first: int, last: int) -> Changed:
        """Display rows ``first..last`` changed in the mirror: adjust the counts, say which cells
        to repaint, and whether the filter now judges a task differently."""
        rows, cols = self.rows, self.rows.cols
        batch, state = cols.batch, cols.state
        flt, display_state = self.filter, rows.display_state
        out = Changed()
        seen, child_row, at = self._seen, self._child_row, self._at
        for r in range(first, last + 1):
            s = rows.order[r]
            if s >= len(seen):
                continue  # not counted yet: its insert is on its way
            b, st = batch[s], state[s]
            old = seen[s]
            if st != old:
                by_state = self._counts.setdefault(b, {})
                by_state[old] = by_state.get(old, 0) - 1
                by_state[st] = by_state.get(st, 0) + 1
                seen[s] = st
            g = at.get(b)
            if g is not None:
                out.groups.add(g)
            cr = child_row[s]
            if flt.active and flt.matches(cols, s, display_state) != (cr >= 0):
                out.regroup = True
            if cr >= 0 and g is not None:
                out.children.append((g, cr))
        return out
