"""Charts and Batches tabs end to end: the real Scheduler, the real API simulator on 127.0.0.1, real
SQLite, the in-process FakeWebBackend for the two web accounts (as in test_main_window)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings

from mediadesk.core.batch import BatchRow
from mediadesk.scheduler import Scheduler
from mediadesk.store import TaskReader
from mediadesk.ui.panels.batches_view import BatchesView
from mediadesk.ui.panels.charts import ChartsView, SecondsLogAxis
from mediadesk.ui.window.main_window import MainWindow
from mediadesk.viewmodel.batches import BatchRow as BatchesRow
from tests.support import wait_progressing
from tests.ui.conftest import ARun, ConsoleEnv, open_window


@pytest.fixture
def window(console_scheduler: Scheduler, qtbot: Any, arun: ARun, tmp_path: Path) -> Iterator[MainWindow]:
    settings = QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)
    with open_window(console_scheduler, arun, settings, size=(1400, 900)) as w:
        yield w


def rows(profile: str, n: int, prefix: str) -> list[BatchRow]:
    return [BatchRow(line=i + 1, profile=profile, prompt=f"{prefix} prompt {i}", id=f"{prefix}-{i}", system=None,
                     priority=0, route_key=None) for i in range(n)]


def states(env: ConsoleEnv) -> dict[str, str]:
    r = TaskReader(env.workspace.db_path)
    try:
        return {t.task_id: t.state for t in r.iter_tasks()}
    finally:
        r.close()


def all_done(env: ConsoleEnv, n: int) -> bool:
    s = states(env)
    return len(s) == n and set(s.values()) == {"success"}


def finished(env: ConsoleEnv) -> int:
    return sum(v in ("success", "failed", "canceled") for v in states(env).values())


def finished_in_chart(view: ChartsView, lane: str) -> int:
    data = view.data
    if data is None or lane not in data.series:
        return 0
    s = data.series[lane]
    return s.succeeded + s.failed


def test_charts_follow_the_lanes_live_and_survive_a_restart(window: MainWindow, console_env: ConsoleEnv,
                                                            qtbot: Any) -> None:
    view = window.charts_view
    window.charts_dock.raise_()
    qtbot.waitUntil(view.is_shown, timeout=5_000)
    assert view.range.key == "5m"
    window.submission.submit_rows(rows("writer", 30, "w") + rows("chat", 6, "c"), batch="first")
    wait_progressing(qtbot, lambda: all_done(console_env, 36), lambda: finished(console_env), "36 tasks")
    qtbot.waitUntil(lambda: finished_in_chart(view, "api:writer") == 30, timeout=10_000)
    qtbot.waitUntil(lambda: (finished_in_chart(view, "web:acct-a") + finished_in_chart(view, "web:acct-b")) == 6,
                    timeout=10_000)
    data = view.data
    assert data is not None
    # the line drawn: per-minute rates of 10 s buckets whose counts add up to the 30 tasks
    x, y = view.curve_data("api:writer")
    assert len(x) == 30 and len(y) == 30 and max(y) > 0
    assert sum(data.series["api:writer"].per_min[:-1]) * 10 / 60 <= 30
    assert view.histogram_total("api:writer") == 30
    assert view.histogram_total("web:acct-a") + view.histogram_total("web:acct-b") == 6
    assert data.distributions["web:acct-a"].n + data.distributions["web:acct-b"].n == 6
    assert "api:writer: 30 done, 0 failed" in view.summary.text()
    # more work: the partial reads (newest buckets only) pick it up
    window.submission.submit_rows(rows("writer", 12, "more"), batch="second")
    wait_progressing(qtbot, lambda: all_done(console_env, 48), lambda: finished(console_env), "48 tasks")
    qtbot.waitUntil(lambda: finished_in_chart(view, "api:writer") == 42, timeout=10_000)
    assert view.cache.reads[1] > 0, "expected partial reads between full ones"
    assert view.histogram_total("api:writer") == 42
    # one lane only
    view.set_lane("api:writer")
    assert view.histogram_total("web:acct-a") == 0 and view.histogram_total("api:writer") == 42
    assert "acct-a" not in view.summary.text()
    view.set_lane("")

    # "restart": a new view has nothing in memory and reads the same from the store, in every range
    fresh = ChartsView(window.location, ["api:writer"])
    fresh.resize(900, 300)
    fresh.show()
    try:
        for key, n_buckets in (("5m", 30), ("1h", 60), ("24h", 1440)):
            fresh.set_range(key)
            qtbot.waitUntil(lambda k=key: fresh.data is not None and fresh.data.range.key == k, timeout=10_000)
            assert fresh.data is not None
            assert len(fresh.data.series["api:writer"].x) == n_buckets
            assert finished_in_chart(fresh, "api:writer") == 42
            assert fresh.data.finished() == 48
            assert fresh.histogram_total("api:writer") == 42
    finally:
        fresh.close_jobs()
        qtbot.waitUntil(lambda: not fresh.busy, timeout=10_000)
        fresh.deleteLater()


def test_hidden_charts_do_not_read_the_store(window: MainWindow, qtbot: Any) -> None:
    view = window.charts_view
    window.log_dock.raise_()
    qtbot.waitUntil(lambda: not view.is_shown() and not view.busy, timeout=5_000)
    reads = len(view.read_times)
    assert view.refresh() is False
    window.charts_dock.raise_()  # shown: it reads at once
    qtbot.waitUntil(lambda: len(view.read_times) > reads, timeout=5_000)


def row_now(view: BatchesView, batch: str) -> BatchesRow | None:
    """``batch``'s row as the view shows it, the view asked to read the store again (what its 2 s timer
    does; no second read while one is under way): a wait sees a change at the next read, not the next tick."""
    view.refresh()
    return view.row_of(batch)


def test_batches_tab_counts_eta_and_done_time(window: MainWindow, console_env: ConsoleEnv, qtbot: Any) -> None:
    view = window.batches_view
    window.batches_dock.raise_()
    qtbot.waitUntil(view.is_shown, timeout=5_000)
    assert view.hint.isVisible()
    window.submission.submit_rows(rows("chat", 6, "warm"), batch="warm-up")
    wait_progressing(qtbot, lambda: all_done(console_env, 6), lambda: finished(console_env), "6 tasks")
    qtbot.waitUntil(lambda: (r := row_now(view, "warm-up")) is not None and r.is_done, timeout=10_000)
    warm = view.row_of("warm-up")
    assert warm is not None and (warm.total, warm.succeeded, warm.fraction) == (6, 6, 1.0)
    assert view.table.item(0, 9).text().startswith("done at")
    assert not view.hint.isVisible()

    # the web lanes paused: a queued batch cannot move, and says so
    window.task_actions.set_paused("web", True)
    window.submission.submit_rows(rows("chat", 4, "slow"), batch="slow")
    qtbot.waitUntil(lambda: (r := row_now(view, "slow")) is not None and r.pending == 4 and r.blocked, timeout=10_000)
    assert view.rows[0].batch == "slow"  # newest first
    assert "no lane can take it" in view.table.item(0, 9).text()

    # running again, slowly: a numeric ETA while it runs (run times known from the warm-up batch)
    for b in console_env.web_backends.values():
        b.delay_s = 3.0
    window.task_actions.set_paused("web", False)
    qtbot.waitUntil(lambda: (r := row_now(view, "slow")) is not None and r.running > 0 and r.eta is not None,
                    timeout=10_000)
    assert view.table.item(0, 9).text().startswith("p50")
    window.scheduler.cancel([f"slow-{i}" for i in range(4)])
    qtbot.waitUntil(lambda: (r := row_now(view, "slow")) is not None and r.is_done, timeout=15_000)
    slow = view.row_of("slow")
    assert slow is not None and slow.canceled == 4 and slow.done_at is not None


def test_status_bar_totals_combine_the_lanes(window: MainWindow, console_env: ConsoleEnv, qtbot: Any) -> None:
    window.task_actions.set_paused("web", True)
    window.submission.submit_rows(rows("writer", 20, "t") + rows("chat", 4, "u"), batch="totals")
    wait_progressing(qtbot, lambda: window.api_panel.counts()["success"] == 20,
                     lambda: window.api_panel.counts()["success"], "20 API tasks")
    # web work queued on paused lanes: the overall ETA says so, whatever the API lane's is
    qtbot.waitUntil(lambda: "no lane can take the queued tasks" in window.status_line.totals_label.text(),
                    timeout=10_000)
    window.task_actions.set_paused("web", False)
    wait_progressing(qtbot, lambda: all_done(console_env, 24), lambda: finished(console_env), "24 tasks")
    qtbot.waitUntil(lambda: "idle" in window.status_line.totals_label.text(), timeout=10_000)  # the 1 s tick
    # A rate over a second-long span moves with the clock: read the label and the lanes at one instant.
    now = window.api_panel._clock()
    for panel in (window.api_panel, window.web_panel):
        panel._clock = lambda: now
    window.status_line.update_totals()
    text = window.status_line.totals_label.text()
    rate = float(text.split("all lanes: ")[1].split(" tasks/min")[0])
    assert rate > 0
    assert rate == pytest.approx(window.api_panel.throughput() + window.web_panel.throughput(), abs=0.1)


def test_the_run_time_axis_labels_only_1_2_5_steps(qapp: Any) -> None:
    import math

    axis = SecondsLogAxis(orientation="bottom")
    values = [math.log10(v) for v in (1, 2, 3, 5, 7, 10, 20, 40, 50, 100)]
    assert axis.logTickStrings(values, 1.0, 1.0) == ["1", "2", "", "5", "", "10", "20", "", "50", "100"]
