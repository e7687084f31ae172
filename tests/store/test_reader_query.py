"""The reader's filtered, paged task list and per-batch counts (the remote API's), on both back-ends."""

from __future__ import annotations

from mediadesk.config.location import StoreLocation
from mediadesk.core.states import TaskState
from mediadesk.store import NewTask, TaskReader, open_store


def test_query_filters_pages_and_counts_a_batch(store_location: StoreLocation) -> None:
    s = open_store(store_location)
    s.add_tasks([NewTask(f"a{i}", "p", "api", f"x{i}", batch="b1") for i in range(5)]
                + [NewTask("q0", "q", "api", "y", batch="b2"), NewTask("q1", "q", "api", "y", batch=None)])
    (rec,) = s.claim(["p"], 1, lane="api:p", account=None, owner="me")
    s.finish(rec, TaskState.SUCCESS, result="ok")
    s.close()
    r = TaskReader(store_location)
    try:
        first = r.query(batch="b1", limit=2)
        second = r.query(batch="b1", limit=2, after_seq=first[-1].seq)
        third = r.query(batch="b1", limit=2, after_seq=second[-1].seq)
        assert [t.task_id for t in first + second + third] == [f"a{i}" for i in range(5)]
        assert [t.task_id for t in r.query(states=["success"])] == [rec.task_id]
        assert [t.task_id for t in r.query(states=["pending"], profiles=["q"])] == ["q0", "q1"]
        assert [t.task_id for t in r.query(lane="api:p")] == [rec.task_id]
        assert r.query(profiles=["p", "q"], states=["pending", "success"], limit=100)[-1].task_id == "q1"
        assert r.query(batch="none") == []
        assert r.batch_counts("b1") == {"success": 1, "pending": 4}
        assert r.batch_counts("b2") == {"pending": 1}
    finally:
        r.close()
