"""The lane panels' progress counts the current work (the batches since the lanes were last idle),
not every batch the workspace ever ran."""

from __future__ import annotations

from dataclasses import replace

from mediadesk.viewmodel.current_work import CurrentWork
from mediadesk.viewmodel.task_rows import TaskRows
from tests.viewmodel.factory import T0, change, rec


def _api(i: int, batch: str, state: str = "pending") -> object:
    return replace(rec(i, kind="api", state=state), batch=batch)


def test_after_a_restart_old_batches_are_not_the_current_work() -> None:
    """35 tasks of old batches done, a batch of 4 still running: the bar is about the 4."""
    rows = TaskRows()
    old = [_api(i, "old-1" if i < 20 else "old-2", "success") for i in range(35)]
    now = [_api(100 + i, "b3", "success" if i == 0 else "pending") for i in range(4)]
    rows.queue_records(old + now)  # type: ignore[arg-type]
    rows.flush()
    assert sum(rows.counts(kind="api").values()) == 39  # the workspace
    current = rows.current_work.counts("api")
    assert sum(current.values()) == 4 and current["success"] == 1 and current["pending"] == 3
    assert rows.current_work.batches("api") == {"b3"}


def test_a_finished_run_stays_until_new_work_then_a_new_run_starts() -> None:
    rows = TaskRows()
    rows.queue_records([_api(i, "b1") for i in range(3)])  # type: ignore[arg-type]
    rows.flush()
    for i in range(3):
        rows.queue_change(change(f"t{i:06d}", "success", 1, finished=T0 + 1))
    rows.flush()
    assert rows.current_work.counts("api") == {"pending": 0, "success": 3}  # "3/3 done" stays
    # the lanes were idle: a new batch is a new run
    rows.queue_records([_api(10 + i, "b2") for i in range(2)])  # type: ignore[arg-type]
    rows.flush()
    assert rows.current_work.batches("api") == {"b2"}
    assert sum(rows.current_work.counts("api").values()) == 2
    # a batch submitted while b2 runs joins it
    rows.queue_records([_api(20, "b3")])  # type: ignore[arg-type]
    rows.flush()
    assert rows.current_work.batches("api") == {"b2", "b3"}
    assert sum(rows.current_work.counts("api").values()) == 3


def test_a_retried_task_of_an_old_batch_brings_its_batch_back() -> None:
    work = CurrentWork()
    for _ in range(5):
        work.add("web", "old", "failed")
    work.add("web", "new", "running")
    assert work.batches("web") == {"new"}
    work.change("web", "old", "failed", "pending")  # the operator retried one
    assert work.batches("web") == {"new", "old"}
    assert work.counts("web") == {"failed": 4, "pending": 1, "running": 1}
    assert work.counts("api") == {}  # kinds apart
