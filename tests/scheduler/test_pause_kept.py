"""A pause outlives a restart (issue 20, item 3): a lane paused in one session is still paused when
the next scheduler starts on that data dir (console, ``mediadesk run``, ``serve``): nothing is
dispatched on it until it is resumed; ``mediadesk run`` says so, and ``--resume`` resumes it.

Real SQLite files; a scripted in-process backend for the scheduler; the real API simulator on
127.0.0.1 for ``mediadesk run``.
"""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path

import pytest

from mediadesk.cli.run import run_batch
from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.events import Event, LaneStats
from mediadesk.scheduler.pause_memory import PAUSED_LANES_FILE, load_paused
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.scheduler.test_lane import API, ScriptedBackend, quick, rows, sched
from tests.support import make_config, tasks_of


async def _seen_backlog(s: Scheduler, lane: str, n: int) -> LaneStats:
    """The lane's stats once they count ``n`` pending tasks (the lane has seen them)."""
    got: asyncio.Future[LaneStats] = asyncio.get_running_loop().create_future()

    def on(ev: Event) -> None:
        if isinstance(ev, LaneStats) and ev.lane == lane and sum(c for _, c in ev.backlog) >= n and not got.done():
            got.set_result(ev)

    unsubscribe = s.bus.subscribe(on)
    try:
        return await asyncio.wait_for(got, 30)
    finally:
        unsubscribe()


async def test_a_pause_is_kept_until_resumed(tmp_path: Path) -> None:
    ws = Workspace.resolve(data_dir=tmp_path / "data").ensure()
    backend = ScriptedBackend(quick, capacity=3)
    async with sched(ws, backend) as s:
        s.pause("api", True)
        assert all(lane.paused and not lane.paused_kept for lane in s.lanes)
    kept = ws.data_dir / PAUSED_LANES_FILE
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert json.loads(kept.read_text()) == {"paused": ["api:p"]}

    async with sched(ws, backend) as s:  # the next session, same data dir
        assert [(lane.paused, lane.paused_kept) for lane in s.lanes] == [(True, True)]
        s.intake.submit([s.intake.new_task(f"t{i}", "p", f"q{i}") for i in range(5)])
        stats = await _seen_backlog(s, "api:p", 5)
        assert stats.paused and stats.paused_kept and not stats.running
        assert backend.seen == []  # nothing dispatched while paused
        assert {t.state for t in rows(ws).values()} == {"pending"}
        s.pause("api", False)
        await asyncio.wait_for(s.wait_idle(), 30)
    assert {t.state for t in rows(ws).values()} == {"success"}
    assert len(backend.seen) == 5
    assert load_paused(ws.data_dir) == set()

    async with sched(ws, backend) as s:  # resumed is kept too
        assert [lane.paused for lane in s.lanes] == [False]


def test_a_damaged_pause_file_pauses_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / PAUSED_LANES_FILE).write_text("{not json", encoding="utf-8")
    assert load_paused(tmp_path) == set()
    assert "cannot be read" in caplog.text


def test_a_planted_link_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.json"
    target.write_text(json.dumps({"paused": ["api:p"]}), encoding="utf-8")
    (tmp_path / PAUSED_LANES_FILE).symlink_to(target)
    assert load_paused(tmp_path) == set()


async def test_mediadesk_run_keeps_the_pause_and_resume_resumes(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    sim = ApiSimServer(ApiSimConfig(latency=(0.0, 0.0), seed=1))
    await sim.start()
    try:
        config = make_config([{**API, "base_url": sim.base_url}])
        data = tmp_path / "data"
        ws = Workspace.resolve(data_dir=data).ensure()
        s = Scheduler(config, ws)  # a console session that paused the lane, then closed
        await s.start()
        s.pause(None, True)
        await s.stop()
        batch = tmp_path / "batch.jsonl"
        batch.write_text("".join(json.dumps({"id": f"b{i}", "profile": "p", "prompt": f"q{i}"}) + "\n"
                                 for i in range(3)), encoding="utf-8")

        rc = await run_batch(batch, config, data_dir=data)
        err = capsys.readouterr().err
        assert rc != 0
        assert "paused in an earlier session" in err and "--resume" in err, err
        assert {t.state for t in tasks_of(ws).values()} == {"pending"}

        rc = await run_batch(batch, config, data_dir=data, resume=True)
        out = capsys.readouterr().out
        assert rc == 0, out
        assert "resumed 1 lane(s)" in out
        assert {t.state for t in tasks_of(ws).values()} == {"success"}
    finally:
        await sim.stop()
