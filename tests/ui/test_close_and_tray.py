"""Closing with work in progress asks (Quit / Keep running in the tray / Cancel) and each answer does
what it says; the tray's notices fire once each. Real scheduler, real API simulator, real SQLite."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QSettings, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton

from mediadesk.config.model import load_config
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import HealthStatus, RunContext, TaskSpec
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.events import LaneStats
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.app.start import EXIT_OK, console_main
from mediadesk.ui.dialogs.close_question import CloseChoice, CloseGuard, CloseQuestion, ask_close, work_in_progress
from mediadesk.ui.window.main_window import MainWindow
from mediadesk.ui.window.tray import TrayController
from tests.support import tasks_of, until
from tests.ui.conftest import ARun, ConsoleEnv, FakeWebBackend


def _config_toml(url: str, data_dir: Path) -> str:
    return f"""
data_dir = "{data_dir}"
[retry]
max_retries = 2
backoff_base_s = 0.01
backoff_max_s = 0.2
[heartbeat]
interval_s = 0.05
stale_after_s = 30
[scheduler]
poll_interval_s = 0.05
kill_grace_s = 1.0
[[profiles]]
name = "writer"
kind = "api"
base_url = "{url}"
model = "sim-model"
concurrency = 2
timeout_s = 600
"""


@pytest.fixture
def slow_sim(qloop: asyncio.AbstractEventLoop, arun: ARun) -> Iterator[ApiSimServer]:
    """An API that takes its time: a task stays running until the scheduler stops it."""
    sim = ApiSimServer(ApiSimConfig(latency=(120.0, 120.0), seed=1))
    arun(sim.start())
    try:
        yield sim
    finally:
        arun(sim.stop(), timeout=20)


def _guard(w: MainWindow) -> CloseGuard:
    assert isinstance(w.close_guard, CloseGuard)
    return w.close_guard


def test_close_with_work_asks_and_each_answer_does_what_it_says(
    tmp_path: Path, slow_sim: ApiSimServer, api_sim: ApiSimServer, qapp: Any, qloop: asyncio.AbstractEventLoop,
    qtbot: Any, arun: ARun,
) -> None:
    data = tmp_path / "data"
    cfg = tmp_path / "slow.toml"
    cfg.write_text(_config_toml(slow_sim.base_url, data), encoding="utf-8")
    seen: dict[str, Any] = {}
    answers = [CloseChoice.CANCEL, CloseChoice.TRAY, CloseChoice.QUIT]
    asked: list[CloseQuestion] = []

    def answer(q: CloseQuestion) -> CloseChoice:
        asked.append(q)
        return answers.pop(0)

    def on_window(w: MainWindow) -> None:
        seen["w"] = w
        _guard(w).ask = answer

    run = qloop.create_task(console_main(qapp, cfg, on_window=on_window, tray_available=True))
    qtbot.waitUntil(lambda: "w" in seen and seen["w"].feed.is_loaded, timeout=20_000)
    w: MainWindow = seen["w"]
    res = w.submission.submit_rows_from_text("one\ntwo\nthree", "writer")
    assert res is not None and len(res.added) == 3
    qtbot.waitUntil(lambda: work_in_progress(w.scheduler) == (2, 1), timeout=20_000)

    w.close()  # Cancel: nothing changes
    assert [(q.running, q.pending, q.tray) for q in asked] == [(2, 1, True)]
    assert w.isVisible() and not run.done() and w.scheduler.started
    assert work_in_progress(w.scheduler) == (2, 1)

    w.close()  # Keep running in the tray: the window hides, the lanes keep their tasks
    assert len(asked) == 2
    qtbot.waitUntil(lambda: not w.isVisible(), timeout=5_000)
    assert not run.done() and w.scheduler.started
    assert work_in_progress(w.scheduler) == (2, 1)
    assert "keeps running" in w.status_line.last_message

    w.show()
    w.close()  # Quit: the scheduler stops; running tasks go back to the queue
    assert len(asked) == 3
    qtbot.waitUntil(run.done, timeout=30_000)
    assert run.result() == EXIT_OK
    states = tasks_of(Workspace.resolve(data_dir=data))
    assert sorted(t.state for t in states.values()) == ["pending"] * 3
    assert all(t.attempt == 0 for t in states.values())  # the interrupted attempts were refunded

    # the next start (same database, an API that answers) runs them to the end
    cfg.write_text(_config_toml(api_sim.base_url, data), encoding="utf-8")
    nxt = Scheduler(load_config(cfg), Workspace.resolve(data_dir=data))

    async def resume() -> None:
        await nxt.start()
        try:
            await until(lambda: all(t.state == "success" for t in tasks_of(nxt.workspace).values()),
                        "the three tasks to succeed after the restart", limit_s=20)
        finally:
            await nxt.stop()

    arun(resume(), timeout=30)


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)


class RejectingWebBackend(FakeWebBackend):
    """A web account whose site refuses every prompt (a final failure, not retried)."""

    async def run(self, task: TaskSpec, ctx: RunContext) -> str:
        self.runs.append(task.task_id)
        raise TaskFailure(ErrorKind.BAD_REQUEST, "the site refused the prompt")


@pytest.fixture
def tray_window(console_env: ConsoleEnv, qtbot: Any, arun: ARun,
                settings: QSettings) -> Iterator[tuple[MainWindow, TrayController]]:
    for acct in ("acct-a", "acct-b"):
        console_env.web_backends[acct] = RejectingWebBackend(acct)
    s = console_env.make_scheduler()
    arun(s.start())
    bridge = SchedulerBridge(s.bus)
    w = MainWindow(s, bridge, settings=settings)
    tray = TrayController(w, s, bridge, tray_available=True)
    w.show()
    arun(w.start())
    try:
        yield w, tray
    finally:
        tray.close()
        arun(w.aclose())
        bridge.detach()
        tray.guard.quit_now()
        w.close()
        w.deleteLater()
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        arun(s.stop(), timeout=20)


def _ticks(w: MainWindow, arun: ARun, n: int) -> None:
    """Wait until every lane published ``n`` more stats (the scheduler's ticks), however long they take.

    Each lane asks for its next stats as a lane whose numbers moved does (``on_stats_dirty``), again
    after each one until it has published ``n``: they come by the same publish (the stats, then the
    accounts' health) at the next quarter-second tick, not at the idle refresh every 2 s."""
    count: dict[str, int] = {}
    by_name = {lane.name: lane for lane in w.scheduler.lanes}

    def on_stats(ev: LaneStats) -> None:
        count[ev.lane] = count.get(ev.lane, 0) + 1
        lane = by_name.get(ev.lane)
        if lane is not None and count[ev.lane] < n:
            lane.on_stats_dirty(lane)

    lanes = list(by_name)
    w.bridge.laneStats.connect(on_stats)
    publish_soon(w)
    try:
        arun(until(lambda: all(count.get(name, 0) >= n for name in lanes), f"{n} stats from each lane"),
             timeout=30)
    finally:
        w.bridge.laneStats.disconnect(on_stats)


def publish_soon(w: MainWindow) -> None:
    """Every lane publishes its stats and its account's health at the next quarter-second tick (as a
    lane whose numbers moved asks), not at the idle refresh every 2 s: a health set by the test is seen
    sooner, by the same path."""
    for lane in w.scheduler.lanes:
        lane.on_stats_dirty(lane)


def test_batch_finished_is_said_once_with_its_counts(tray_window: tuple[MainWindow, TrayController],
                                                      arun: ARun) -> None:
    w, tray = tray_window
    sent = tray.watcher.sent
    assert w.submission.submit_rows_from_text("a\nb", "writer") is not None
    assert w.submission.submit_rows_from_text("c", "chat") is not None
    arun(until(lambda: any(t == "Batch finished" for t, _ in sent), "the batch-finished notice"), timeout=20)
    _ticks(w, arun, 2)  # idle stats keep coming: said once all the same
    done = [text for title, text in sent if title == "Batch finished"]
    assert done == ["2 succeeded, 1 failed"]
    assert tray.tray is not None and "0 running, 0 pending" in tray.tooltip()

    assert w.submission.submit_rows_from_text("d", "writer") is not None  # the next batch: its own counts
    arun(until(lambda: len([t for t, _ in sent if t == "Batch finished"]) == 2, "the second notice"), timeout=20)
    assert [text for title, text in sent if title == "Batch finished"][1] == "1 succeeded, 0 failed"


def test_needs_login_and_breaker_open_are_said_once_each(tray_window: tuple[MainWindow, TrayController],
                                                         console_env: ConsoleEnv, arun: ARun) -> None:
    w, tray = tray_window
    sent = tray.watcher.sent
    console_env.web_backends["acct-a"].health_status = HealthStatus.NEEDS_LOGIN
    publish_soon(w)
    arun(until(lambda: any(t == "Login needed" for t, _ in sent), "the login notice"), timeout=20)
    console_env.sim.set_outage("503", retry_after_s=None)  # unavailable: the breaker opens at once
    assert w.submission.submit_rows_from_text("x", "writer") is not None
    arun(until(lambda: any(t == "Breaker open" for t, _ in sent), "the breaker notice"), timeout=20)
    _ticks(w, arun, 2)
    logins = [text for title, text in sent if title == "Login needed"]
    breakers = [text for title, text in sent if title == "Breaker open"]
    assert len(logins) == 1 and "acct-a" in logins[0]
    assert len(breakers) == 1 and breakers[0].startswith("endpoint "), breakers
    assert not any(t == "Batch finished" for t, _ in sent)  # the task waits: no batch is done

    # logged in again, then out again: said again (once)
    console_env.web_backends["acct-a"].health_status = HealthStatus.READY
    _ticks(w, arun, 1)
    console_env.web_backends["acct-a"].health_status = HealthStatus.NEEDS_LOGIN
    publish_soon(w)
    arun(until(lambda: len([t for t, _ in sent if t == "Login needed"]) == 2, "the second login notice"),
         timeout=20)
    console_env.sim.set_outage(None)


def test_nothing_running_closes_without_a_question(tray_window: tuple[MainWindow, TrayController]) -> None:
    w, tray = tray_window

    def never(q: CloseQuestion) -> CloseChoice:
        raise AssertionError(f"asked {q}")

    tray.guard.ask = never
    closed: list[bool] = []
    w.closed.connect(lambda: closed.append(True))
    w.close()
    assert closed == [True] and not w.isVisible()


def test_without_a_tray_the_question_offers_no_tray(slow_sim: ApiSimServer, tmp_path: Path, qtbot: Any,
                                                     arun: ARun, settings: QSettings) -> None:
    data = tmp_path / "data"
    cfg = tmp_path / "slow.toml"
    cfg.write_text(_config_toml(slow_sim.base_url, data), encoding="utf-8")
    s = Scheduler(load_config(cfg), Workspace.resolve(data_dir=data))
    arun(s.start())
    bridge = SchedulerBridge(s.bus)
    w = MainWindow(s, bridge, settings=settings)
    tray = TrayController(w, s, bridge, tray_available=False)
    w.show()
    try:
        assert tray.tray is None
        assert w.submission.submit_rows_from_text("one", "writer") is not None
        qtbot.waitUntil(lambda: work_in_progress(s) == (1, 0), timeout=20_000)
        asked: list[CloseQuestion] = []

        def ask(q: CloseQuestion) -> CloseChoice:
            asked.append(q)
            return CloseChoice.TRAY  # not offered: taken as Cancel

        tray.guard.ask = ask
        w.close()
        assert asked == [CloseQuestion(1, 0, False)]
        assert w.isVisible()

        # the real dialog: its buttons, as the operator sees them
        buttons: list[str] = []

        def answer() -> None:
            box = QApplication.activeModalWidget()
            assert isinstance(box, QMessageBox)
            buttons.extend(b.text() for b in box.buttons())
            cancel = box.button(QMessageBox.StandardButton.Cancel)
            assert isinstance(cancel, QPushButton)
            cancel.click()

        QTimer.singleShot(0, answer)
        assert ask_close(w, CloseQuestion(1, 0, False)) is CloseChoice.CANCEL
        assert "Quit" in buttons and "Keep running in the tray" not in buttons
        buttons.clear()

        def pick_tray() -> None:
            box = QApplication.activeModalWidget()
            assert isinstance(box, QMessageBox)
            buttons.extend(b.text() for b in box.buttons())
            assert "1 running, 0 pending." in box.text()
            next(b for b in box.buttons() if b.text() == "Keep running in the tray").click()

        QTimer.singleShot(0, pick_tray)
        assert ask_close(w, CloseQuestion(1, 0, True)) is CloseChoice.TRAY
        assert "Keep running in the tray" in buttons
    finally:
        tray.guard.quit_now()
        arun(w.aclose())
        bridge.detach()
        w.close()
        w.deleteLater()
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        arun(s.stop(), timeout=20)
