"""Several models side by side: a batch row naming three profiles with n = 2 runs through the real scheduler on
the API simulator; its comparison has one row per prompt (six cells for that row, each with its answer, state, time
and cost), and the keep mark goes through the scheduler to one task of the group, taken off the others; on SQLite
and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest

from mediadesk.config.workspace import Workspace
from mediadesk.core.batch import parse_batch, templates_dir
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.events import TaskChanged
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer, answer_for
from mediadesk.store.comparison import read_comparison, totals_of
from tests.support import make_config

PROFILES = ("writer", "critic", "poet")


@pytest.fixture
async def sim() -> AsyncIterator[ApiSimServer]:
    async with ApiSimServer(ApiSimConfig(latency=(0.0, 0.0), seed=1)) as server:
        yield server


@pytest.fixture
async def sched(any_workspace: Workspace, sim: ApiSimServer) -> AsyncIterator[Scheduler]:
    cfg = make_config([{"name": name, "kind": "api", "endpoint": "sim", "model": "m"} for name in PROFILES],
                      endpoints=[{"name": "sim", "base_url": sim.base_url, "concurrency": 3,
                                  "prices": {"m": {"input": 1.0, "output": 2.0}}}])
    s = Scheduler(cfg, any_workspace)
    s.open()
    yield s
    await s.stop()


async def run_rows(sched: Scheduler, rows: list[dict[str, object]], batch: str) -> list[str]:
    """Submit ``rows`` (JSONL batch rows) as ``batch`` and wait until every task is finished."""
    folder = templates_dir(sched.workspace.data_dir)
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()
    parsed = parse_batch(data, known_profiles=PROFILES, templates_dir=folder)
    assert parsed.errors == []
    done = await sched.intake.submit_rows_async(parsed.rows, batch)
    await sched.start()
    await asyncio.wait_for(sched.wait_idle(poll_s=0.05), 30)  # (a safety net: every task finished)
    return list(done.ids)


async def test_three_profiles_two_samples_compare_in_one_row_and_one_answer_is_kept(
        sched: Scheduler, any_workspace: Workspace) -> None:
    ids = await run_rows(sched, [{"prompt": "Name a tea.", "profiles": list(PROFILES), "n": 2},
                                 {"prompt": "plain", "profile": "writer"}], "b1")
    assert len(ids) == 7

    comp = read_comparison(any_workspace.location, "b1")
    assert [r.prompt for r in comp.rows] == ["Name a tea.", "plain"]
    assert comp.columns == tuple((p, s) for p in PROFILES for s in (1, 2))
    assert [comp.label(c) for c in comp.columns[:2]] == ["writer #1", "writer #2"]
    six, plain = comp.rows
    assert len(six.cells) == 6 and [c.column for c in plain.cells] == [("writer", 1)]
    for cell in six.cells:
        assert (cell.state, cell.answer, cell.currency) == ("success", answer_for("Name a tea."), "USD")
        assert cell.seconds is not None and cell.seconds >= 0 and cell.cost is not None and cell.cost > 0
    assert six.kept is None and plain.kept is None
    totals = totals_of(comp)
    assert (totals.tasks, totals.succeeded, totals.failed) == (7, 7, 0) and totals.cost["USD"] > 0
    assert read_comparison(any_workspace.location, "other").rows == ()
    assert len(read_comparison(any_workspace.location).rows) == 2  # every batch

    # the keep mark: through the scheduler (the console's path), one per group
    changed: list[TaskChanged] = []
    unsubscribe = sched.bus.subscribe(lambda ev: isinstance(ev, TaskChanged) and changed.append(ev))
    try:
        critic2 = six.cell(("critic", 2))
        poet1 = six.cell(("poet", 1))
        assert critic2 is not None and poet1 is not None
        assert sched.keep(critic2.task_id) == 1
        kept_row = read_comparison(any_workspace.location, "b1").rows[0]
        assert kept_row.kept is not None and kept_row.kept.task_id == critic2.task_id
        assert sched.keep(poet1.task_id) == 2  # poet #1 kept, critic #2 no longer
        again = read_comparison(any_workspace.location, "b1")
        assert [c.task_id for c in again.rows[0].cells if c.kept] == [poet1.task_id]
        assert again.kept_label(again.rows[0]) == "poet #1" and again.rows[1].kept is None
        assert sched.keep(plain.cells[0].task_id) == 1  # a task of no group: kept alone, the group untouched
        assert sched.keep(poet1.task_id) == 0  # already kept: nothing changes
        assert sched.keep(poet1.task_id, kept=False) == 1
        last = read_comparison(any_workspace.location, "b1")
        assert last.rows[0].kept is None and last.rows[1].kept is not None
        assert sched.keep("no-such-task") == 0
    finally:
        unsubscribe()
    assert [ev.task_id for ev in changed] == [critic2.task_id, poet1.task_id, critic2.task_id,
                                              plain.cells[0].task_id, poet1.task_id]
