"""``mediadesk run``'s progress says when a profile waits for its active hours, once as the wait begins
and once as it ends (the run's own printing over a real Scheduler whose clock reads 12:00 local time)."""

from __future__ import annotations

import time
from datetime import datetime

import pytest

from mediadesk.cli.run import _say_waits
from mediadesk.config.workspace import Workspace
from mediadesk.core.hours import epoch_of
from mediadesk.scheduler import Scheduler
from tests.support import make_config


async def test_the_run_says_which_lane_waits_until_when(workspace: Workspace,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    noon = datetime.fromtimestamp(time.time()).replace(hour=12, minute=0, second=0, microsecond=0)
    shift = [epoch_of(noon) - time.time()]
    cfg = make_config([{"name": "night", "kind": "api", "base_url": "http://127.0.0.1:9/v1", "model": "m",
                        "active_hours": "22:00-07:00"}])
    async with Scheduler(cfg, workspace, clock=lambda: time.time() + shift[0]) as s:
        s.intake.submit([s.intake.new_task("n1", "night", "p")])
        said = _say_waits(s, {})
        assert said == {"api:night": "outside its active hours (22:00-07:00); waits until 22:00"}
        err = capsys.readouterr().err
        assert "api:night: outside its active hours (22:00-07:00); waits until 22:00; its tasks stay pending" in err
        assert _say_waits(s, said) == said and capsys.readouterr().err == ""  # said once
        shift[0] += 10 * 3600 + 60  # 22:01: the window is open
        assert _say_waits(s, said) == {}
        assert "api:night: takes tasks again" in capsys.readouterr().err
        s.cancel(["n1"])
