"""The "disable this busy account?" question (issue 10 item 8): while it is open the account takes
no new task, and the question names the running task.

A real Scheduler on a tmp SQLite workspace; the two web accounts are in-process scripted backends
whose runs end only when the test opens their gate (no browser, no network), so the order of events
is set by the test, not by timing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from mediadesk.config.model import AccountConfig, ProfileConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import LaneBackend, RunContext, TaskSpec
from mediadesk.scheduler import Scheduler
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.panels.accounts_panel import AccountsPanel, DisableChoice, DisableQuestion
from tests.support import make_config
from tests.ui.conftest import ARun, FakeWebBackend

LONG_PROMPT = "think hard about the migration plan for the archive, step by step " * 5


class GatedBackend(FakeWebBackend):
    """A web account whose run of task ``t`` ends only once ``gates[t]`` is set (tasks without a
    gate end at once)."""

    def __init__(self, account: str, gates: dict[str, asyncio.Event]) -> None:
        super().__init__(account, delay_s=0.0)
        self.gates = gates

    async def run(self, task: TaskSpec, ctx: RunContext) -> str:
        self.runs.append(task.task_id)
        gate = self.gates.get(task.task_id)
        if gate is not None:
            await gate.wait()
        return f"web answer to {task.prompt[:20]}"


class Env:
    def __init__(self, tmp_path: Path, arun: ARun) -> None:
        self.arun = arun
        self.gates: dict[str, asyncio.Event] = {}
        self.backends: dict[str, GatedBackend] = {}
        self.config = make_config(
            [{"name": "chat", "kind": "web", "site": "sim"}],
            [{"name": "acct-a", "profile": "chat"}, {"name": "acct-b", "profile": "chat"}],
        )
        self.workspace = Workspace.resolve(data_dir=tmp_path / "data").ensure()
        self.scheduler = Scheduler(self.config, self.workspace, backend_factory=self._factory)

    def _factory(self, prof: ProfileConfig, acc: AccountConfig | None) -> LaneBackend:
        assert acc is not None
        return self.backends.setdefault(acc.name, GatedBackend(acc.name, self.gates))

    def state(self, task_id: str) -> str:
        rec = self.scheduler.store.get(task_id)
        assert rec is not None
        return rec.state

    def account(self, task_id: str) -> str | None:
        rec = self.scheduler.store.get(task_id)
        assert rec is not None
        return rec.account

    def lane(self, account: str) -> Any:
        return next(lane for lane in self.scheduler.lanes if lane.account == account)


@pytest.fixture
def env(tmp_path: Path, qloop: asyncio.AbstractEventLoop, arun: ARun) -> Iterator[Env]:
    e = Env(tmp_path, arun)
    arun(e.scheduler.start())
    try:
        yield e
    finally:
        for gate in e.gates.values():
            gate.set()
        arun(e.scheduler.stop(), timeout=20)


def _busy_accounts(env: Env, qtbot: Any) -> None:
    """acct-a runs ``blocker``, acct-b runs ``long`` (both gated); ``next`` is pending behind them."""
    s = env.scheduler
    env.gates["blocker"] = asyncio.Event()
    env.gates["long"] = asyncio.Event()
    s.set_account_enabled("acct-b", False)
    s.intake.submit([s.intake.new_task("blocker", "chat", "blocker")])
    qtbot.waitUntil(lambda: env.state("blocker") == "running", timeout=10_000)
    s.set_account_enabled("acct-b", True)
    s.intake.submit([s.intake.new_task("long", "chat", LONG_PROMPT)])
    qtbot.waitUntil(lambda: env.state("long") == "running", timeout=10_000)
    assert (env.account("blocker"), env.account("long")) == ("acct-a", "acct-b")
    s.intake.submit([s.intake.new_task("next", "chat", "the next question")])
    assert env.state("next") == "pending"


def test_open_question_keeps_new_tasks_off_the_account(env: Env, qtbot: Any) -> None:
    """While the question is open, ``long`` ends on acct-b and then ``blocker`` on acct-a: the
    pending ``next`` must go to acct-a, never to the account being asked about."""
    s = env.scheduler
    panel = AccountsPanel(s, SchedulerBridge(s.bus))
    qtbot.addWidget(panel)
    panel.show()
    _busy_accounts(env, qtbot)
    asked: list[DisableQuestion] = []
    claimed_during_question: list[str | None] = []

    def operator(question: DisableQuestion) -> DisableChoice:
        asked.append(question)
        assert env.lane("acct-b").held == 1
        env.gates["long"].set()  # the running task ends while the operator reads the question
        qtbot.waitUntil(lambda: env.state("long") == "success", timeout=10_000)
        env.gates["blocker"].set()  # then acct-a frees up
        qtbot.waitUntil(lambda: env.state("next") != "pending", timeout=10_000)
        claimed_during_question.append(env.account("next"))
        return DisableChoice.KEEP

    panel.confirm = operator
    qtbot.mouseClick(panel.switch("acct-b"), Qt.MouseButton.LeftButton)
    assert len(asked) == 1
    q = asked[0]
    assert q.account == "acct-b"
    assert q.running == (("long", "think hard about the migration plan for the archive, step…"),)
    assert "long" in q.text and "think hard about the migration plan" in q.text
    assert claimed_during_question == ["acct-a"]  # not acct-b: it was held while asked
    assert "next" not in env.backends["acct-b"].runs
    # "keep enabled": the hold is gone and acct-b takes work again
    assert panel.switch("acct-b").isChecked()
    lane_b = env.lane("acct-b")
    assert lane_b.held == 0 and lane_b.enabled and lane_b.can_dispatch()
    s.intake.submit([s.intake.new_task(f"after{i}", "chat", f"after {i}") for i in range(4)])
    qtbot.waitUntil(lambda: all(env.state(f"after{i}") == "success" for i in range(4)), timeout=10_000)
    assert any(t.startswith("after") for t in env.backends["acct-b"].runs)


@pytest.mark.parametrize("choice", [DisableChoice.FINISH, DisableChoice.CANCEL])
def test_answer_disables_and_releases_the_hold(env: Env, qtbot: Any, choice: DisableChoice) -> None:
    """"Let it finish" / "cancel it": the account ends disabled with no hold left; only the task the
    question named is finished or canceled, and the pending one waits for acct-a."""
    s = env.scheduler
    panel = AccountsPanel(s, SchedulerBridge(s.bus))
    qtbot.addWidget(panel)
    panel.show()
    _busy_accounts(env, qtbot)
    asked: list[DisableQuestion] = []

    def operator(question: DisableQuestion) -> DisableChoice:
        asked.append(question)
        assert env.lane("acct-b").held == 1
        return choice

    panel.confirm = operator
    qtbot.mouseClick(panel.switch("acct-b"), Qt.MouseButton.LeftButton)
    assert [q.running[0][0] for q in asked] == ["long"]
    lane_b = env.lane("acct-b")
    assert (lane_b.held, lane_b.enabled) == (0, False)
    assert not panel.switch("acct-b").isChecked()
    if choice is DisableChoice.CANCEL:
        qtbot.waitUntil(lambda: env.state("long") == "canceled", timeout=10_000)
    else:
        assert env.state("long") == "running"
        env.gates["long"].set()
        qtbot.waitUntil(lambda: env.state("long") == "success", timeout=10_000)
    assert env.state("next") == "pending"
    env.gates["blocker"].set()
    qtbot.waitUntil(lambda: env.state("next") == "success", timeout=10_000)
    assert env.account("next") == "acct-a"


def test_the_real_question_box_names_the_task(env: Env, qtbot: Any) -> None:
    """The default confirm is a QMessageBox whose text names the running task; Escape keeps the
    account enabled and ends the hold."""
    s = env.scheduler
    panel = AccountsPanel(s, SchedulerBridge(s.bus))
    qtbot.addWidget(panel)
    panel.show()
    _busy_accounts(env, qtbot)
    seen: list[tuple[str, int]] = []

    def answer_when_shown() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(10, answer_when_shown)
            return
        seen.append((box.text(), env.lane("acct-b").held))
        keep = next(b for b in box.buttons() if b.text() == "Keep enabled")
        keep.click()

    QTimer.singleShot(0, answer_when_shown)
    qtbot.mouseClick(panel.switch("acct-b"), Qt.MouseButton.LeftButton)
    assert len(seen) == 1
    text, held = seen[0]
    assert held == 1
    assert "acct-b is running long (“think hard about the migration plan" in text
    assert "takes no new task while you decide" in text
    assert panel.switch("acct-b").isChecked()
    assert env.lane("acct-b").held == 0 and env.lane("acct-b").enabled


def test_the_question_turns_true_when_its_task_finishes_while_open(env: Env, qtbot: Any) -> None:
    """The named task ends while the operator reads: the box says so and offers Disable / Keep
    enabled (no more "Cancel it" for a task that is done); Disable disables the account."""
    s = env.scheduler
    bridge = SchedulerBridge(s.bus)
    panel = AccountsPanel(s, bridge)
    qtbot.addWidget(panel)
    panel.show()
    _busy_accounts(env, qtbot)
    seen: dict[str, Any] = {}
    told: list[bool] = []

    def on_stats(stats: Any) -> None:  # connected after the panel's own handler: it runs after it
        if stats.lane == "web:acct-b" and not stats.running and env.state("long") == "success":
            told.append(True)

    bridge.laneStats.connect(on_stats)

    def when_shown() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(10, when_shown)
            return
        seen["before"] = box.text()
        env.gates["long"].set()  # the running task ends while the question is open
        QTimer.singleShot(10, lambda: after_finish(box))

    def after_finish(box: QMessageBox) -> None:
        # the task is done and the panel has had the lane's word for it (the event that updates the box)
        if not told:
            QTimer.singleShot(10, lambda: after_finish(box))
            return
        seen["after"] = box.text()
        seen["buttons"] = sorted(b.text() for b in box.buttons() if b.isVisible())
        disable = next((b for b in box.buttons() if b.text() == "Disable" and b.isVisible()), None)
        (disable or next(b for b in box.buttons() if b.text() == "Keep enabled")).click()

    QTimer.singleShot(0, when_shown)
    qtbot.mouseClick(panel.switch("acct-b"), Qt.MouseButton.LeftButton)
    assert "acct-b is running long" in seen["before"]
    assert "has finished" in seen["after"] and "Disable acct-b now?" in seen["after"], seen["after"]
    assert seen["buttons"] == ["Disable", "Keep enabled"]
    lane_b = env.lane("acct-b")
    assert (lane_b.held, lane_b.enabled) == (0, False)
    assert not panel.switch("acct-b").isChecked()
