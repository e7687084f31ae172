"""TaskTableModel / TaskFilterProxy: the Qt layer over the mirror (tests/viewmodel covers its logic).

Qt signals for inserts and changes at 100k rows (never a reset), the coalescing timer, display
roles, sort with persistent indexes, filtering through the proxy; Qt's own model tester checks
the invariants on a small model.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPersistentModelIndex, Qt
from PySide6.QtWidgets import QTableView

from mediadesk.scheduler.events import LaneStats, RunningInfo
from mediadesk.ui.models.task_model import STALLED, Col, TaskFilterProxy, TaskTableModel
from tests.viewmodel.factory import T0, Clock, change, rec


def ids(proxy: TaskFilterProxy) -> list[str]:
    return proxy.task_ids(range(proxy.rowCount()))


def test_qt_model_tester_accepts_the_model(qtmodeltester: Any) -> None:
    m = TaskTableModel()
    m.add_records([rec(i) for i in range(20)])
    m.flush()
    m.apply_change(change("t000003", "running", 1))
    m.flush()
    qtmodeltester.check(m)
    p = TaskFilterProxy()
    p.setSourceModel(m)
    p.set_text("prompt 1")
    qtmodeltester.check(p)


def test_100k_rows_incrementally_without_reset(qapp: Any) -> None:
    m = TaskTableModel()
    p = TaskFilterProxy()
    p.setSourceModel(m)
    view = QTableView()
    view.setModel(p)
    resets: list[int] = []
    inserts: list[tuple[int, int]] = []
    changed: list[tuple[int, int]] = []
    m.modelReset.connect(lambda: resets.append(1))
    p.modelReset.connect(lambda: resets.append(1))
    m.rowsInserted.connect(lambda _parent, a, b: inserts.append((a, b)))
    m.dataChanged.connect(lambda a, b, *_: changed.append((a.row(), b.row())))
    for batch in range(100):
        m.add_records([rec(i) for i in range(batch * 1000, (batch + 1) * 1000)])
        m.flush()
    assert resets == []
    assert len(inserts) == 100 and inserts[0] == (0, 999) and inserts[-1] == (99_000, 99_999)
    assert m.rowCount() == p.rowCount() == 100_000
    # a contiguous block of changes is ONE dataChanged span; many changes of one task are one row
    for i in range(500, 600):
        m.apply_change(change(f"t{i:06d}", "running", 1))
        m.apply_change(change(f"t{i:06d}", "success", 2, finished=T0 + 3))
    m.apply_change(change("t090000", "failed", 1, error="timeout", finished=T0 + 1))
    m.flush()
    assert changed == [(500, 599), (90_000, 90_000)]
    assert m.state_of("t000550") == "success" and m.state_of("t090000") == "failed"
    assert m.counts()["success"] == 100 and m.counts()["failed"] == 1
    assert m.counts()["pending"] == 100_000 - 101
    assert resets == []
    view.deleteLater()


def test_coalescing_timer_flushes_on_its_own(qtbot: Any) -> None:
    m = TaskTableModel(flush_interval_ms=20)
    m.add_records([rec(1)])
    assert m.rowCount() == 0  # queued, not yet applied
    qtbot.waitUntil(lambda: m.rowCount() == 1, timeout=2000)
    m.apply_change(change("t000001", "running", 1))
    qtbot.waitUntil(lambda: m.state_of("t000001") == "running", timeout=2000)


def test_timed_flush_applies_a_big_submit_in_steps_and_signals(qtbot: Any) -> None:
    m = TaskTableModel(flush_interval_ms=10, max_rows_per_flush=40)
    appended: list[int] = []
    counts: list[int] = []
    m.rowsAppended.connect(appended.append)
    m.countsChanged.connect(lambda: counts.append(1))
    m.add_records([rec(i) for i in range(100)])
    qtbot.waitUntil(lambda: m.rowCount() == 100, timeout=5000)
    assert appended == [40, 40, 20]  # one insert per step, the loop runs in between
    assert len(counts) == 3 and m.counts()["pending"] == 100


def test_display_columns_and_prompt_head() -> None:
    clock = Clock(T0 + 10)
    m = TaskTableModel(clock=clock)
    long_prompt = "x" * 200
    m.add_records([rec(1, prompt=long_prompt), rec(2)])
    m.flush()
    m.apply_change(change("t000002", "success", 1, started=T0, finished=T0 + 2.5))
    m.flush()
    row1, row2 = m.row_of("t000001"), m.row_of("t000002")
    assert row1 is not None and row2 is not None
    assert m.data(m.index(row1, Col.PROMPT)) == "x" * 80
    assert m.data(m.index(row2, Col.PROMPT)) == "prompt 2 second line"
    assert m.data(m.index(row2, Col.DURATION)) == "2.5 s"
    assert m.data(m.index(row2, Col.LANE)) == "api:writer"
    assert m.data(m.index(row2, Col.ATTEMPT)) == 1
    assert m.data(m.index(row2, Col.STATE), TaskTableModel.StateRole) == "success"
    assert m.data(m.index(row2, Col.STATE), Qt.ItemDataRole.BackgroundRole) is not None
    assert m.headerData(Col.HEARTBEAT, Qt.Orientation.Horizontal) == "heartbeat"


def test_stalled_running_task_shows_as_stalled_before_it_is_reaped() -> None:
    clock = Clock(T0)
    m = TaskTableModel(heartbeat_interval_s=15.0, clock=clock)
    m.add_records([rec(1), rec(2)])
    m.flush()
    m.apply_change(change("t000001", "running", 1, started=T0, hb=T0))
    m.apply_change(change("t000002", "running", 1, started=T0, hb=T0))
    m.flush()
    row = m.row_of("t000001")
    assert row is not None
    clock.now = T0 + 29  # < 2 x 15 s: still running
    assert m.data(m.index(row, Col.STATE)) == "running"
    assert m.data(m.index(row, Col.HEARTBEAT)) == "29.0 s"
    # a fresh heartbeat for t000002 arrives with the lane stats; t000001 has none
    m.apply_lane_stats(LaneStats(lane="api:writer", kind="api", profiles=("writer",), capacity=3,
                                 running=(RunningInfo("t000002", None, T0, T0 + 28),), paused=False,
                                 available=True, health="busy", last_error=None, completed=0))
    clock.now = T0 + 31
    assert m.data(m.index(row, Col.STATE)) == "stalled"
    assert m.display_state_of("t000001") == STALLED
    assert m.state_of("t000001") == "running"  # still running in the DB
    assert m.display_state_of("t000002") == "running"
    assert m.data(m.index(row, Col.STATE), TaskTableModel.StateRole) == "running"
    p = TaskFilterProxy()
    p.setSourceModel(m)
    p.set_states(["stalled"])
    assert ids(p) == ["t000001"]
    p.set_states(["running"])
    assert ids(p) == ["t000001", "t000002"]
    # the 1 s refresh repaints running rows only (both, here: rows 0 and 1 -> one block)
    spans: list[tuple[int, int, int, int]] = []
    m.dataChanged.connect(lambda a, b, *_: spans.append((a.row(), b.row(), a.column(), b.column())))
    m.refresh_running()
    assert spans == [(0, 1, Col.STATE, Col.DURATION)]


def test_sort_by_columns_and_selection_follows(qapp: Any) -> None:
    m = TaskTableModel(clock=Clock(T0 + 100))
    p = TaskFilterProxy()
    p.setSourceModel(m)
    m.add_records([rec(i) for i in range(10)])
    m.flush()
    states = ["success", "pending", "failed", "running", "canceled"]
    for i in range(10):
        st = states[i % 5]
        if st != "pending":
            m.apply_change(change(f"t{i:06d}", st, 1, started=T0 + i, finished=T0 + 2 * i if st != "running" else None))
    m.flush()
    persistent = QPersistentModelIndex(p.index(m.row_of("t000007") or 0, 0))
    resets: list[int] = []
    p.modelReset.connect(lambda: resets.append(1))
    p.sort(Col.ID, Qt.SortOrder.DescendingOrder)
    assert ids(p) == [f"t{i:06d}" for i in range(9, -1, -1)]
    assert p.data(p.index(persistent.row(), Col.ID)) == "t000007"  # the selection followed its task
    p.sort(Col.STATE)
    ranks = ["pending", "running", "success", "failed", "canceled"]
    got = [m.state_of(t) or "" for t in ids(p)]
    assert got == sorted(got, key=lambda st: ranks.index(st))
    p.sort(Col.STARTED, Qt.SortOrder.AscendingOrder)
    started = ids(p)
    assert started[0] in ("t000001", "t000006")  # pending: no start time sorts first
    assert started[-1] == "t000009"
    p.sort(Col.DURATION, Qt.SortOrder.DescendingOrder)
    assert ids(p)[0] == "t000003"  # running for 97 s: the longest
    p.sort(-1)
    assert ids(p) == [f"t{i:06d}" for i in range(10)]
    assert resets == []
    # a row added after a sort is appended (rows never jump under the operator's mouse)
    p.sort(Col.ID, Qt.SortOrder.DescendingOrder)
    m.add_records([rec(10)])
    m.flush()
    assert ids(p)[-1] == "t000010" and ids(p)[0] == "t000009"


def test_filters_by_kind_state_profile_and_text() -> None:
    m = TaskTableModel()
    p = TaskFilterProxy()
    p.setSourceModel(m)
    m.add_records([rec(i) for i in range(30)] + [rec(100, profile="reasoner", kind="api", prompt="Zebra crossing")])
    m.flush()
    m.apply_change(change("t000001", "failed", 1, error="rate_limited", finished=T0))
    m.flush()
    p.set_kind("web")
    assert len(ids(p)) == 10 and all(int(t[1:]) % 3 == 0 for t in ids(p))
    p.set_filters(kind="api", states=["failed"])
    assert ids(p) == ["t000001"]
    p.set_filters(profile="reasoner")
    assert ids(p) == ["t000100"]
    p.set_filters(text="zebra")  # case-insensitive, in the prompt head
    assert ids(p) == ["t000100"]
    p.set_filters(text="RATE_LIM")  # error kind
    assert ids(p) == ["t000001"]
    p.set_filters(text="t00002")  # id
    assert ids(p) == [f"t0000{i}" for i in range(20, 30)]
    p.set_filters()
    assert p.rowCount() == 31 and not p.active
    # filtering is dynamic: a row that starts matching appears without re-filtering by hand
    p.set_filters(states=["failed"])
    m.apply_change(change("t000002", "failed", 1, finished=T0))
    m.flush()
    assert ids(p) == ["t000001", "t000002"]
