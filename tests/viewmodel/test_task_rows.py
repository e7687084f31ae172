"""TaskRows, the Qt-free mirror of the task table: storage, versions, coalescing, counts, sort, filter.

Runs without Qt (the first test proves that in a subprocess where PySide6 cannot be imported).
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import pytest

from mediadesk.scheduler.events import LaneStats, RunningInfo
from mediadesk.viewmodel.columns import PROMPT_CHARS, Columns, Row, error_text, record_row
from mediadesk.viewmodel.row_display import SORT_KEYS, STALLED, RowFilter
from mediadesk.viewmodel.task_rows import TaskRows, blocks
from tests.viewmodel.factory import T0, Clock, change, rec


class Recorder:
    """A :class:`RowsObserver` that logs every callback."""

    def __init__(self, rows: TaskRows | None = None) -> None:
        self.events: list[tuple[str, int, int]] = []
        self.rows = rows
        self.len_at_begin: list[int] = []

    def begin_insert_rows(self, first: int, last: int) -> None:
        self.events.append(("begin", first, last))
        if self.rows is not None:
            self.len_at_begin.append(len(self.rows))

    def end_insert_rows(self, first: int, last: int) -> None:
        self.events.append(("end", first, last))

    def rows_changed(self, first: int, last: int) -> None:
        self.events.append(("changed", first, last))


def mirror(clock: Clock | None = None, heartbeat_interval_s: float = 15.0) -> tuple[TaskRows, Recorder]:
    obs = Recorder()
    rows = TaskRows(clock=clock or Clock(), observer=obs, heartbeat_interval_s=heartbeat_interval_s)
    obs.rows = rows
    return rows, obs


def ids_in_order(rows: TaskRows, flt: RowFilter | None = None) -> list[str]:
    return [rows.task_id_at(r) for r in range(len(rows)) if flt is None or rows.accepts(r, flt)]


def test_the_mirror_imports_and_runs_without_qt() -> None:
    code = (
        "import sys\n"
        "for name in ('PySide6', 'qasync', 'shiboken6'):\n"
        "    sys.modules[name] = None\n"
        "from mediadesk.viewmodel.columns import record_row\n"
        "from mediadesk.viewmodel.task_rows import TaskRows\n"
        "from tests.viewmodel.factory import rec\n"
        "m = TaskRows()\n"
        "m.queue_rows([record_row(rec(1))])\n"
        "m.flush()\n"
        "print('rows', len(m))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "rows 1" in out.stdout


def test_row_has_named_fields_from_the_record() -> None:
    r = record_row(replace(rec(4, prompt="x" * 200), error_kind="timeout", error_message="took\ntoo long",
                           version=3, finished_at=T0 + 2))
    assert isinstance(r, Row)
    assert (r.task_id, r.kind, r.profile, r.version, r.finished_at) == ("t000004", "api", "writer", 3, T0 + 2)
    assert r.prompt == "x" * PROMPT_CHARS
    assert r.error == "timeout: took"
    assert record_row(rec(2)).prompt == "prompt 2 second line"  # one line in the table
    assert error_text(None, "ignored") is None and error_text("k", "") == "k"


def test_columns_carry_the_same_rows_as_row_objects() -> None:
    recs = [replace(rec(i), error_kind="boom" if i == 2 else None) for i in range(5)]
    cols = Columns.from_records(recs)
    assert len(cols) == 5
    assert [cols.row(i) for i in range(5)] == [record_row(r) for r in recs]
    assert Columns.from_rows(record_row(r) for r in recs).row(2) == record_row(recs[2])
    assert [cols.slice(1, 3).row(i).task_id for i in range(2)] == ["t000001", "t000002"]
    assert [cols.take([4, 0]).row(i).task_id for i in range(2)] == ["t000004", "t000000"]
    assert len(Columns.from_rows([])) == 0


def test_batches_are_split_at_the_row_limit_and_keep_their_order() -> None:
    rows, obs = mirror()
    rows.queue_records([rec(i) for i in range(3)])
    rows.queue_columns(Columns.from_records([rec(i) for i in range(3, 8)]))
    rows.queue_rows([record_row(rec(8))])
    rows.queue_columns(Columns())  # an empty batch is nothing to do
    assert rows.pending_updates == 9
    rows.flush(max_new_rows=4)
    assert ids_in_order(rows) == [f"t{i:06d}" for i in range(4)] and rows.pending_updates == 5
    rows.flush(max_new_rows=4)
    rows.flush(max_new_rows=4)
    assert ids_in_order(rows) == [f"t{i:06d}" for i in range(9)] and not rows.has_queued_rows
    # one insert per flush, whatever the batches
    assert [e for e in obs.events if e[0] == "begin"] == [("begin", 0, 3), ("begin", 4, 7), ("begin", 8, 8)]


def test_rows_are_queued_then_inserted_in_one_block() -> None:
    rows, obs = mirror()
    rows.queue_records([rec(i) for i in range(5)])
    assert len(rows) == 0 and rows.pending_updates == 5
    assert rows.flush() is True
    assert obs.events == [("begin", 0, 4), ("end", 0, 4)]
    assert obs.len_at_begin == [0]  # the observer is told before the storage grows
    assert len(rows) == 5 and rows.pending_updates == 0
    assert rows.row_of("t000003") == 3 and rows.row_of("nope") is None
    assert rows.flush() is False  # nothing queued: no callback, no count change
    assert len(obs.events) == 2


def test_max_new_rows_splits_a_big_insert() -> None:
    rows, obs = mirror()
    rows.queue_records([rec(i) for i in range(10)])
    rows.flush(max_new_rows=4)
    assert len(rows) == 4 and rows.has_queued_rows
    rows.flush(max_new_rows=4)
    rows.flush(max_new_rows=4)
    assert len(rows) == 10 and not rows.has_queued_rows
    assert [e for e in obs.events if e[0] == "begin"] == [("begin", 0, 3), ("begin", 4, 7), ("begin", 8, 9)]


def test_many_changes_of_one_task_and_contiguous_blocks_coalesce() -> None:
    rows, obs = mirror()
    rows.queue_records([rec(i) for i in range(100)])
    rows.flush()
    obs.events.clear()
    for i in range(10, 20):
        rows.queue_change(change(f"t{i:06d}", "running", 1))
        rows.queue_change(change(f"t{i:06d}", "success", 2, finished=T0 + 3))
    rows.queue_change(change("t000050", "failed", 1, error="timeout", finished=T0 + 1))
    assert rows.pending_updates == 11
    assert rows.flush() is True
    assert obs.events == [("changed", 10, 19), ("changed", 50, 50)]
    assert rows.state_of("t000015") == "success" and rows.state_of("t000050") == "failed"
    assert rows.counts()["success"] == 10 and rows.counts()["failed"] == 1 and rows.counts()["pending"] == 89


def test_stale_events_and_older_records_never_overwrite_newer_rows() -> None:
    rows, _obs = mirror()
    rows.queue_change(change("t000007", "running", 1))
    rows.flush()  # the record is not loaded yet: the change waits for it
    assert len(rows) == 0
    rows.queue_records([rec(7, version=0)])
    rows.flush()
    assert rows.state_of("t000007") == "running"
    rows.queue_change(change("t000007", "success", 3, finished=T0 + 1))
    rows.flush()
    rows.queue_change(change("t000007", "running", 2))  # late, older event: ignored
    rows.flush()
    assert rows.state_of("t000007") == "success"
    rows.queue_records([rec(7, version=1)])  # an older snapshot of the same row: ignored
    rows.flush()
    assert rows.state_of("t000007") == "success" and len(rows) == 1
    assert rows.counts() == {"pending": 0, "running": 0, "success": 1, "failed": 0, "canceled": 0}
    # within one queue, the newest version wins whatever the arrival order
    rows.queue_change(change("t000007", "failed", 9, finished=T0 + 2))
    rows.queue_change(change("t000007", "canceled", 8, finished=T0 + 2))
    rows.flush()
    assert rows.state_of("t000007") == "failed"


def test_a_newer_record_of_a_known_task_updates_it_in_place() -> None:
    rows, obs = mirror()
    rows.queue_records([rec(1), rec(2)])
    rows.flush()
    obs.events.clear()
    rows.queue_records([rec(2, state="running", version=4, started=T0)])
    assert rows.flush() is True
    assert obs.events == [("changed", 1, 1)]
    assert rows.state_of("t000002") == "running" and len(rows) == 2


def test_orphan_change_is_in_place_when_its_row_is_inserted() -> None:
    rows, obs = mirror()
    rows.queue_change(change("t000001", "running", 2))
    rows.queue_change(change("t000009", "running", 1))  # never gets a record here
    rows.flush()
    rows.queue_records([rec(0), rec(1, version=1)])
    rows.flush()
    assert obs.events == [("begin", 0, 1), ("end", 0, 1)]  # no separate change for a brand-new row
    assert rows.state_of("t000001") == "running"
    assert rows.counts()["running"] == 1 and rows.running_rows() == [1]


@pytest.mark.parametrize("n", [1, 3])
def test_the_same_record_twice_is_one_row(n: int) -> None:
    rows, _obs = mirror()
    r = rec(1)
    for _ in range(n):
        rows.queue_records([r, replace(r)])
    rows.flush()
    assert len(rows) == 1


def test_stalled_is_derived_from_the_heartbeat_age() -> None:
    clock = Clock(T0)
    rows, _obs = mirror(clock, heartbeat_interval_s=15.0)
    rows.queue_records([rec(1), rec(2)])
    rows.flush()
    rows.queue_change(change("t000001", "running", 1, started=T0, hb=T0))
    rows.queue_change(change("t000002", "running", 1, started=T0, hb=T0))
    rows.flush()
    clock.now = T0 + 29  # < 2 x 15 s: still running
    assert rows.display_state_of("t000001") == "running"
    s1 = rows.storage_of(rows.row_of("t000001") or 0)
    assert rows.heartbeat_age(s1) == 29 and rows.duration(s1) == 29
    # a fresh heartbeat for t000002 arrives with the lane stats; t000001 has none
    rows.apply_lane_stats(LaneStats(lane="api:writer", kind="api", profiles=("writer",), capacity=3,
                                    running=(RunningInfo("t000002", None, T0, T0 + 28),), paused=False,
                                    available=True, health="busy", last_error=None, completed=0))
    clock.now = T0 + 31
    assert rows.display_state_of("t000001") == STALLED
    assert rows.state_of("t000001") == "running"  # still running in the database
    assert rows.display_state_of("t000002") == "running"
    assert ids_in_order(rows, RowFilter.of(states=["stalled"])) == ["t000001"]
    assert ids_in_order(rows, RowFilter.of(states=["running"])) == ["t000001", "t000002"]
    assert rows.running_blocks() == [(0, 1)]


def test_duration_of_finished_and_unstarted_tasks() -> None:
    rows, _obs = mirror()
    rows.queue_records([rec(1), rec(2)])
    rows.flush()
    rows.queue_change(change("t000002", "success", 1, started=T0, finished=T0 + 2.5))
    rows.flush()
    assert rows.duration(0) is None and rows.heartbeat_age(0) is None
    assert rows.duration(1) == 2.5 and rows.heartbeat_age(1) is None
    assert rows.row_at(1).state == "success" and rows.row_at(1).lane == "api:writer"


def test_counts_by_kind_and_profile_and_finishes() -> None:
    rows, _obs = mirror()
    rows.queue_records([rec(i) for i in range(6)] + [rec(9, state="success", profile="reasoner", kind="api")])
    rows.flush()
    rows.queue_change(change("t000000", "success", 1, started=T0, finished=T0 + 5))  # web
    rows.queue_change(change("t000001", "success", 1, started=T0, finished=T0 + 2))  # api
    rows.queue_change(change("t000002", "canceled", 1, finished=T0 + 2))             # api, not a finish
    rows.flush()
    assert rows.counts(kind="web") == {"pending": 1, "running": 0, "success": 1, "failed": 0, "canceled": 0}
    assert rows.counts(kind="api")["canceled"] == 1
    assert rows.counts(profile="writer")["success"] == 1
    assert rows.counts(profile="reasoner")["success"] == 1
    assert rows.profiles() == ["chat", "reasoner", "writer"]
    assert list(rows.finishes("web")) == [(T0, T0 + 5)]
    assert list(rows.finishes("api")) == [(T0, T0 + 2)]
    assert list(rows.finishes("other")) == []


def _sorted_mirror() -> TaskRows:
    rows, _obs = mirror(Clock(T0 + 100))
    rows.queue_records([rec(i) for i in range(10)])
    rows.flush()
    states = ["success", "pending", "failed", "running", "canceled"]
    for i in range(10):
        st = states[i % 5]
        if st != "pending":
            rows.queue_change(change(f"t{i:06d}", st, 1, started=T0 + i,
                                     finished=T0 + 2 * i if st != "running" else None))
    rows.flush()
    return rows


def test_sort_by_each_key_and_back_to_insertion_order() -> None:
    rows = _sorted_mirror()
    rows.sort("id", descending=True)
    assert ids_in_order(rows) == [f"t{i:06d}" for i in range(9, -1, -1)]
    assert rows.sort_key == "id" and rows.sort_descending
    assert rows.row_of("t000009") == 0 and rows.storage_of(0) == 9 and rows.row_of_storage(9) == 0
    rows.sort("state")
    ranks = ["pending", "running", "success", "failed", "canceled"]
    got = [rows.state_of(t) or "" for t in ids_in_order(rows)]
    assert got == sorted(got, key=ranks.index)
    rows.sort("started")
    started = ids_in_order(rows)
    assert started[0] in ("t000001", "t000006")  # pending: no start time sorts first
    assert started[-1] == "t000009"
    rows.sort("duration", descending=True)
    assert ids_in_order(rows)[0] == "t000003"  # running for 97 s: the longest
    rows.sort("heartbeat", descending=True)
    assert ids_in_order(rows)[0] in ("t000003", "t000008")  # only running tasks have a heartbeat age
    for key in SORT_KEYS:
        rows.sort(key)
        assert sorted(ids_in_order(rows)) == [f"t{i:06d}" for i in range(10)]
    rows.sort(None)
    assert ids_in_order(rows) == [f"t{i:06d}" for i in range(10)] and rows.sort_key is None


def test_rows_added_after_a_sort_are_appended() -> None:
    rows = _sorted_mirror()
    rows.sort("id", descending=True)
    rows.queue_records([rec(10)])
    rows.flush()
    order = ids_in_order(rows)
    assert order[-1] == "t000010" and order[0] == "t000009"


def test_filter_by_kind_state_profile_and_text() -> None:
    rows, _obs = mirror()
    rows.queue_records([rec(i) for i in range(30)]
                       + [rec(100, profile="reasoner", kind="api", prompt="Zebra crossing")])
    rows.flush()
    rows.queue_change(change("t000001", "failed", 1, error="rate_limited", finished=T0))
    rows.flush()
    web = ids_in_order(rows, RowFilter.of(kind="web"))
    assert len(web) == 10 and all(int(t[1:]) % 3 == 0 for t in web)
    assert ids_in_order(rows, RowFilter.of(kind="api", states=["failed"])) == ["t000001"]
    assert ids_in_order(rows, RowFilter.of(profile="reasoner")) == ["t000100"]
    assert ids_in_order(rows, RowFilter.of(text="  zebra ")) == ["t000100"]  # case-insensitive, trimmed
    assert ids_in_order(rows, RowFilter.of(text="RATE_LIM")) == ["t000001"]  # error kind
    assert ids_in_order(rows, RowFilter.of(text="api:writer")) == ["t000001"]  # lane
    assert ids_in_order(rows, RowFilter.of(text="t00002")) == [f"t0000{i}" for i in range(20, 30)]
    assert not RowFilter.of().active and RowFilter.of(states=[]) == RowFilter()
    assert RowFilter.of(text="x").active


def test_blocks() -> None:
    assert blocks([9, 1, 2, 3, 7, 10, 2]) == [(1, 3), (7, 7), (9, 10)]
    assert blocks([]) == []


def test_100k_rows_and_10k_changes() -> None:
    rows, obs = mirror()
    for batch in range(100):
        rows.queue_records([rec(i) for i in range(batch * 1000, (batch + 1) * 1000)])
        rows.flush()
    assert len(rows) == 100_000
    assert [e for e in obs.events if e[0] == "begin"][-1] == ("begin", 99_000, 99_999)
    obs.events.clear()
    for i in range(0, 100_000, 10):
        rows.queue_change(change(f"t{i:06d}", "running", 1))
    rows.flush()
    assert len(obs.events) == 10_000  # every tenth row: no two are contiguous
    assert rows.counts()["running"] == 10_000
    rows.sort("state", descending=True)
    assert rows.state_of(rows.task_id_at(0)) == "running"
    assert sum(rows.accepts(r, RowFilter.of(text="prompt 4242 second")) for r in range(len(rows))) == 1


def test_a_truncated_success_is_marked_in_the_error_column() -> None:
    """Issue 9, item 14: a success cut at the provider's length limit is visible in the table (the
    error column, which the filter searches), from a loaded record and from a live change."""
    from mediadesk.scheduler.events import task_changed
    from mediadesk.viewmodel.columns import TRUNCATED_MARK

    assert error_text(None, None, truncated=True) == TRUNCATED_MARK
    assert error_text(None, None) is None
    assert error_text("timeout", "slow", truncated=True) == "timeout: slow"  # a failure says its error
    done = replace(rec(1, state="success", version=1), truncated=True)
    assert record_row(done).error == TRUNCATED_MARK
    assert Columns.from_records([done]).error == [TRUNCATED_MARK]
    rows, _ = mirror()
    rows.queue_records([rec(2, version=0)])
    rows.flush()
    rows.queue_change(task_changed(replace(rec(2, state="success", version=1), truncated=True)))
    rows.flush()
    row = rows.row_of("t000002")
    assert row is not None and rows.row_at(row).error == TRUNCATED_MARK
