"""Quiet hours end to end: the real scheduler, an SQLite file and the API simulator on 127.0.0.1.

The scheduler's clock is the real one shifted by an amount the test sets (the way the code injects
time: ``Scheduler(clock=...)``): it starts at 21:00 local time, outside the window "22:00-23:00";
the test then moves it to 22:00 and waits for the tasks, never for minutes of real time.
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime

from mediadesk.config.workspace import Workspace
from mediadesk.core.hours import epoch_of
from mediadesk.scheduler import Scheduler
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.support import make_config, tasks_of, until


async def test_a_profile_outside_its_hours_takes_nothing_and_starts_when_the_window_opens(
    workspace: Workspace,
) -> None:
    nine = datetime.fromtimestamp(time.time()).replace(hour=21, minute=0, second=0, microsecond=0)
    opening = epoch_of(nine.replace(hour=22))
    shift = [epoch_of(nine) - time.time()]

    def clock() -> float:
        return time.time() + shift[0]

    async with ApiSimServer(ApiSimConfig(latency=(0.01, 0.03), quota=5, seed=3)) as sim:
        cfg = make_config([
            {"name": "night", "kind": "api", "base_url": sim.base_url, "model": "m",
             "active_hours": "22:00-23:00"},
            {"name": "day", "kind": "api", "base_url": sim.base_url, "model": "m"},
        ])
        async with Scheduler(cfg, workspace, clock=clock) as s:
            s.intake.submit([s.intake.new_task(f"n{i}", "night", f"night {i}") for i in range(3)]
                     + [s.intake.new_task("d0", "day", "day 0")])
            # the other profile on the same endpoint works meanwhile
            await until(lambda: tasks_of(workspace)["d0"].state == "success", "the day profile's task")
            lane = next(ln for ln in s.lanes if ln.name == "api:night")
            await until(lambda: lane.stats().waits_until is not None, "the night lane to say it waits")
            assert lane.stats().waits_until == opening
            assert s.waits() == {"api:night": "outside its active hours (22:00-23:00); waits until 22:00"}
            assert {tasks_of(workspace)[f"n{i}"].state for i in range(3)} == {"pending"}
            assert not any(f"n{i}" in sim.stats()["per_task"] for i in range(3))  # nothing was sent

            shift[0] += opening - clock()  # 22:00: the window opens
            lane.wake()
            await asyncio.wait_for(s.wait_idle(), 30)
            assert s.waits() == {}
            assert lane.stats().waits_until is None
    tasks = tasks_of(workspace)
    for i in range(3):
        t = tasks[f"n{i}"]
        assert t.state == "success" and t.attempt == 1
        assert t.started_at is not None and t.started_at >= opening
    assert tasks["d0"].started_at is not None and tasks["d0"].started_at < opening
