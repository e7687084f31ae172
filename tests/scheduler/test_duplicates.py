"""Duplicates: a row that repeats a finished task (same profile, instructions and prompt) is found by one
lookup for the whole batch and flagged with that task's id, batch and date; under "skip" nothing is added,
under "again" it is sent under a fresh id, under "reuse" a success with the earlier answer is stored at no cost
and nothing is sent. Repeats of a row above are dropped, or run as distinct tasks. Real scheduler, real API
simulator on 127.0.0.1, SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Collection

import pytest

from mediadesk.config.workspace import Workspace
from mediadesk.core.batch import BatchRow
from mediadesk.core.states import TaskState
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.duplicates import Duplicates, Earlier, find_repeats, plan_submit, rerun_id
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from mediadesk.store import NewTask, TaskReader
from tests.support import make_config


def row(line: int, prompt: str, system: str | None = None, profile: str = "writer") -> BatchRow:
    return BatchRow(line=line, profile=profile, prompt=prompt, id=None, system=system, priority=0, route_key=None)


def task(task_id: str, prompt: str, system: str | None = None) -> NewTask:
    return NewTask(task_id, "writer", "api", prompt, system)


# --------------------------------------------------------------------------- the pure parts

def test_a_repeat_needs_the_same_profile_instructions_and_prompt() -> None:
    tasks = [task("a", "one"), task("b", "two"), task("c", "three", "be brief"), task("d", "one")]
    done = {"a": ("writer", None, "one", "monday.csv", 100.0),
            "b": ("writer", None, "changed since", "monday.csv", 100.0),  # an explicit id with other text
            "c": ("writer", "be long", "three", "monday.csv", 100.0)}
    reps = find_repeats(tasks, done)
    assert reps.done == {0: Earlier("a", "monday.csv", 100.0)}
    assert reps.in_batch == {3: 0}  # "d" repeats "a" above it


def test_the_plan_under_each_choice() -> None:
    tasks = [task("a", "one"), task("b", "two"), task("c", "two")]
    reps = find_repeats(tasks, {"a": ("writer", None, "one", "b0", 1.0)})
    have = {"a", rerun_id("a", 2)}

    def taken(ids: Collection[str]) -> Collection[str]:
        return [i for i in ids if i in have]

    skip = plan_submit(tasks, reps, Duplicates.SKIP, taken)
    assert skip.ids == ["a", "b"] and not skip.reuse and (skip.done, skip.in_batch) == (1, 1)
    again = plan_submit(tasks, reps, Duplicates.AGAIN, taken)
    assert again.ids == [rerun_id("a", 3), "b", "c"] and not again.reuse  # run 2 is taken: never a collision
    reuse = plan_submit(tasks, reps, Duplicates.REUSE, taken)
    assert reuse.ids == [rerun_id("a", 3), "b"] and reuse.reuse == {rerun_id("a", 3): "a"}


# --------------------------------------------------------------------------- through the intake

@pytest.fixture
async def sim() -> ApiSimServer:
    async with ApiSimServer(ApiSimConfig(latency=(0.0, 0.01), seed=3)) as server:
        yield server


def records(ws: Workspace, ids: list[str]) -> dict[str, object]:
    reader = TaskReader(ws.location)
    try:
        return {r.task_id: r for r in reader.get_many(ids)}
    finally:
        reader.close()


async def test_skip_reuse_and_again_on_both_back_ends(any_workspace: Workspace, sim: ApiSimServer) -> None:
    cfg = make_config([{"name": "writer", "kind": "api", "base_url": sim.base_url, "model": "m"}])
    async with Scheduler(cfg, any_workspace) as s:
        first = s.intake.submit_rows([row(1, "alpha"), row(2, "beta")], "monday.csv", duplicates=Duplicates.SKIP)
        await asyncio.wait_for(s.wait_idle(), 60)
        assert sim.stats()["requests_total"] == 2
        alpha = first.ids[0]

        monday = [row(1, "alpha"), row(2, "beta"), row(3, "gamma"), row(4, "gamma")]
        flags = s.intake.row_repeats(monday)
        assert flags[1].earlier is not None and flags[1].earlier.task_id == alpha
        assert flags[1].earlier.batch == "monday.csv" and flags[1].earlier.finished_at is not None
        assert flags[2].earlier is not None and flags[4].above == 3 and 3 not in flags

        skipped = s.intake.submit_rows(monday, "tuesday.csv", duplicates=Duplicates.SKIP)
        assert len(skipped.result.added) == 1 and len(skipped.result.existing) == 2  # gamma once, nothing else
        await asyncio.wait_for(s.wait_idle(), 60)
        assert sim.stats()["requests_total"] == 3

        reused = s.intake.submit_rows([row(1, "alpha")], "wednesday.csv", duplicates=Duplicates.REUSE)
        (copy_id,) = reused.result.added
        assert copy_id != alpha and reused.plan is not None and reused.plan.reuse == {copy_id: alpha}
        s.store.flush()
        recs = records(any_workspace, [alpha, copy_id])
        old, copy = recs[alpha], recs[copy_id]
        assert copy.state is TaskState.SUCCESS and copy.reused_from == alpha and copy.result == old.result
        assert copy.result and copy.cost == 0 and copy.prompt_tokens == 0 and copy.completion_tokens == 0
        reader = TaskReader(any_workspace.location)
        try:
            assert any(line.text is not None and line.text.id == "reused_answer" for line in reader.logs(copy_id))
        finally:
            reader.close()
        await asyncio.wait_for(s.wait_idle(), 60)
        assert sim.stats()["requests_total"] == 3  # nothing sent

        again = s.intake.submit_rows([row(1, "alpha")], "thursday.csv", duplicates=Duplicates.AGAIN)
        (rerun,) = again.result.added
        assert rerun not in (alpha, copy_id)
        await asyncio.wait_for(s.wait_idle(), 60)
        assert sim.stats()["requests_total"] == 4
        assert records(any_workspace, [rerun])[rerun].state is TaskState.SUCCESS


async def test_repeats_of_a_row_above_run_only_when_asked(workspace: Workspace) -> None:
    cfg = make_config([{"name": "writer", "kind": "api", "base_url": "http://127.0.0.1:9/v1", "model": "m"}])
    s = Scheduler(cfg, workspace)
    s.open()
    try:
        rows = [row(1, "same"), row(2, "other"), row(3, "same")]
        dropped = s.intake.submit_rows(rows, "b", duplicates=Duplicates.REUSE)
        assert len(dropped.ids) == 2 and dropped.plan is not None and dropped.plan.in_batch == 1
        kept = s.intake.submit_rows(rows, "b", duplicates=Duplicates.AGAIN)
        assert len(kept.ids) == len(set(kept.ids)) == 3 and len(kept.result.added) == 1  # the third row's own id
    finally:
        await s.stop()
