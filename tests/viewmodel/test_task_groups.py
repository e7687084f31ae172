"""TaskGroups, the task table grouped by batch (Qt-free): which tasks go under which batch, in
which order, with which counts, and how appends, changes, a sort and a filter keep it right."""

from __future__ import annotations

from dataclasses import replace

from mediadesk.store import TaskRecord
from mediadesk.viewmodel.row_display import RowFilter
from mediadesk.viewmodel.task_groups import TaskGroups
from mediadesk.viewmodel.task_rows import TaskRows
from tests.viewmodel.factory import change, rec


def batch_rec(i: int, batch: str | None, **kw: object) -> TaskRecord:
    return replace(rec(i, kind="api", **kw), batch=batch)  # type: ignore[arg-type]


def shown(groups: TaskGroups) -> dict[str | None, list[str]]:
    """batch -> the task ids its group shows, in order (groups in their order)."""
    return {g.batch: groups.task_ids(i) for i, g in enumerate(groups.groups)}


def loaded(records: list[TaskRecord]) -> tuple[TaskRows, TaskGroups]:
    rows = TaskRows()
    rows.queue_records(records)
    rows.flush()
    groups = TaskGroups(rows)
    groups.rebuild()
    return rows, groups


def test_tasks_are_grouped_under_their_batch_in_submission_order() -> None:
    recs = [batch_rec(1, "b1"), batch_rec(2, "b2"), batch_rec(3, "b1"), batch_rec(4, None), batch_rec(5, "b2")]
    rows, groups = loaded(recs)
    assert shown(groups) == {"b1": ["t000001", "t000003"], "b2": ["t000002", "t000005"], None: ["t000004"]}
    assert [groups.group_row(b) for b in ("b1", "b2", None, "nope")] == [0, 1, 2, None]
    s3 = rows.cols.task_id.index("t000003")
    assert groups.child_row(s3) == 1 and groups.storage_at(0, 1) == s3


def test_progress_counts_every_task_of_the_batch() -> None:
    recs = [batch_rec(i, "b", state=st) for i, st in
            enumerate(["pending", "running", "success", "success", "failed", "canceled"])]
    _rows, groups = loaded(recs)
    p = groups.progress("b")
    assert (p.total, p.done, p.failed) == (6, 4, 1)
    assert p.by_state == {"pending": 1, "running": 1, "success": 2, "failed": 1, "canceled": 1}
    assert groups.progress("unknown").total == 0


def test_a_sort_reorders_inside_each_group_and_groups_keep_their_place() -> None:
    recs = [batch_rec(1, "b1", prompt="c"), batch_rec(2, "b2", prompt="z"), batch_rec(3, "b1", prompt="a"),
            batch_rec(4, "b2", prompt="b")]
    rows, groups = loaded(recs)
    rows.sort("prompt")
    groups.rebuild()
    assert shown(groups) == {"b1": ["t000003", "t000001"], "b2": ["t000004", "t000002"]}
    rows.sort("prompt", descending=True)
    groups.rebuild()
    assert shown(groups) == {"b1": ["t000001", "t000003"], "b2": ["t000002", "t000004"]}


def test_the_filter_narrows_the_groups_but_not_their_counts() -> None:
    recs = [batch_rec(1, "b1", state="failed"), batch_rec(2, "b1"), batch_rec(3, "b2"), batch_rec(4, "b2")]
    _rows, groups = loaded(recs)
    groups.rebuild(RowFilter.of(states=["failed"]))
    assert shown(groups) == {"b1": ["t000001"]}  # b2 has no failed task: no group
    assert groups.group_row("b2") is None
    assert groups.progress("b2").total == 2 and groups.progress("b1").total == 2


def test_appended_rows_join_their_group_or_make_a_new_one() -> None:
    rows, groups = loaded([batch_rec(1, "b1"), batch_rec(2, "b1")])
    rows.queue_records([batch_rec(3, "b1"), batch_rec(4, "b2", state="success")])
    rows.flush()
    new, touched = groups.take_new(2, 3)
    assert new == {"b1": [2], "b2": [3]} and touched == {"b1", "b2"}
    assert shown(groups) == {"b1": ["t000001", "t000002"]}  # nothing shown before the view is told
    groups.add_children(0, new["b1"])
    groups.add_groups([("b2", new["b2"])])
    assert shown(groups) == {"b1": ["t000001", "t000002", "t000003"], "b2": ["t000004"]}
    assert groups.progress("b2").done == 1 and groups.progress("b1").total == 3
    assert groups.child_row(3) == 0 and groups.group_row("b2") == 1


def test_a_state_change_moves_the_counts_and_names_the_cells() -> None:
    rows, groups = loaded([batch_rec(1, "b1"), batch_rec(2, "b1"), batch_rec(3, "b2")])
    rows.queue_change(change("t000002", "failed", 1, finished=1.0))
    rows.flush()
    r = rows.row_of("t000002")
    assert r is not None
    out = groups.apply_changed(r, r)
    assert out.groups == {0} and out.children == [(0, 1)] and not out.regroup
    p = groups.progress("b1")
    assert (p.done, p.failed, p.by_state["pending"]) == (1, 1, 1)
    # the same change reported twice does not count twice
    groups.apply_changed(r, r)
    assert groups.progress("b1").failed == 1


def test_a_task_leaving_the_filter_asks_for_a_regroup() -> None:
    rows, groups = loaded([batch_rec(1, "b1"), batch_rec(2, "b1")])
    groups.rebuild(RowFilter.of(states=["pending"]))
    rows.queue_change(change("t000001", "running", 1))
    rows.flush()
    out = groups.apply_changed(0, 0)
    assert out.regroup
    groups.rebuild()
    assert shown(groups) == {"b1": ["t000002"]}


def test_a_hundred_thousand_rows_are_grouped_without_copying_them() -> None:
    n = 100_000
    rows = TaskRows()
    rows.queue_records(batch_rec(i, f"b{i % 7}") for i in range(n))
    rows.flush()
    groups = TaskGroups(rows)
    groups.rebuild()
    assert len(groups) == 7 and sum(len(g.children) for g in groups.groups) == n
    assert all(g.children.itemsize == 4 for g in groups.groups)  # machine ints, not Python lists
    assert sum(groups.progress(f"b{k}").total for k in range(7)) == n
