"""Quiet hours in the console: outside its active hours an account or profile says when it starts
again ("waits until 22:00") in the lane panel, the Accounts tab and the Profiles tab. A real
Scheduler on a tmp SQLite workspace whose clock reads 12:00 local time; in-process backends."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from mediadesk.config.model import AccountConfig, ProfileConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import LaneBackend
from mediadesk.core.hours import epoch_of
from mediadesk.scheduler import Scheduler
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.models.task_model import TaskTableModel
from mediadesk.ui.panels.accounts_panel import AccountsPanel
from mediadesk.ui.panels.lane_panel import LanePanel
from mediadesk.ui.panels.profiles_editor import ProfilesEditor
from tests.support import make_config
from tests.ui.conftest import ARun, FakeWebBackend
from tests.ui.test_profiles_tab import URL, ScriptedApi

NOON = datetime.fromtimestamp(time.time()).replace(hour=12, minute=0, second=0, microsecond=0)
SHIFT = epoch_of(NOON) - time.time()


def clock() -> float:
    return time.time() + SHIFT


@pytest.fixture
def sched(tmp_path: Path, qloop: asyncio.AbstractEventLoop, arun: ARun) -> Iterator[Scheduler]:
    cfg = make_config(
        [{"name": "night", "kind": "api", "base_url": URL, "model": "m", "active_hours": "22:00-07:00"},
         {"name": "chat", "kind": "web", "site": "sim"}],
        [{"name": "acct-a", "profile": "chat", "active_hours": "22:00-23:00"}],
    )

    def factory(prof: ProfileConfig, acc: AccountConfig | None) -> LaneBackend:
        return FakeWebBackend(acc.name) if acc is not None else ScriptedApi(3, {}, set())

    s = Scheduler(cfg, Workspace.resolve(data_dir=tmp_path / "data").ensure(), backend_factory=factory, clock=clock)
    arun(s.start())
    try:
        yield s
    finally:
        arun(s.stop(), timeout=20)


def test_outside_its_hours_each_view_says_until_when_it_waits(sched: Scheduler, qtbot: Any) -> None:
    bridge = SchedulerBridge(sched.bus)
    accounts = AccountsPanel(sched, bridge)
    profiles = ProfilesEditor(sched, bridge)
    web = LanePanel("web", TaskTableModel(), clock=clock)
    api = LanePanel("api", TaskTableModel(), clock=clock)
    for w in (accounts, profiles, web, api):
        qtbot.addWidget(w)
    bridge.laneStats.connect(web.on_lane_stats)
    bridge.laneStats.connect(api.on_lane_stats)
    views = [sched.profile_view(p) for p in sched.profile_names()]
    web.set_lanes(sched.lanes, views)
    api.set_lanes(sched.lanes, views)
    sched.intake.submit([sched.intake.new_task("n1", "night", "p"), sched.intake.new_task("c1", "chat", "p")])

    qtbot.waitUntil(lambda: accounts.status_text("acct-a") == "waits until 22:00", timeout=10_000)
    qtbot.waitUntil(lambda: profiles.note_text("night") == "22:00-07:00 · waits until 22:00", timeout=10_000)

    def panels_say_it() -> bool:
        web.refresh()
        api.refresh()
        return (web.row_texts()[0][1] == "waits until 22:00"
                and api.row_texts()[0][1] == "0/3 running · waits until 22:00")

    qtbot.waitUntil(panels_say_it, timeout=10_000)
    assert sched.store.get("n1").state == "pending" and sched.store.get("c1").state == "pending"
    blocks = sched.blocked_accounts("chat")
    assert [(b.account, b.reason, b.action) for b in blocks] == [
        ("acct-a", "outside its active hours (22:00-23:00); waits until 22:00", "wait")]
