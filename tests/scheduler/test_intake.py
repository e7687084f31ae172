"""The intake both faces submit through: rows to tasks, caps, the API-key rule, chunked submit.
Real scheduler over a real SQLite file; the endpoints are never called (nothing is started)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from mediadesk.config.workspace import Workspace
from mediadesk.core.batch import BatchRow
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.intake import (
    SUBMIT_MIN_CHUNK,
    MissingApiKeysError,
    QueueFullError,
    next_submit_chunk,
)
from tests.support import make_config

UNSET = "MD_INTAKE_TEST_UNSET_KEY"


def rows(profile: str, n: int, prefix: str = "p") -> list[BatchRow]:
    return [BatchRow(line=i + 1, profile=profile, prompt=f"{prefix} {i}", id=None, system=None, priority=0,
                     route_key=None) for i in range(n)]


@pytest.fixture
async def sched(workspace: Workspace, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Scheduler]:
    monkeypatch.delenv(UNSET, raising=False)
    cfg = make_config([
        {"name": "keyed", "kind": "api", "base_url": "http://127.0.0.1:9/v1", "model": "m", "api_key_env": UNSET},
        {"name": "free", "kind": "api", "base_url": "http://127.0.0.1:10/v1", "model": "m"},
        {"name": "capped", "kind": "api", "base_url": "http://127.0.0.1:11/v1", "model": "m", "max_pending": 600},
    ])
    s = Scheduler(cfg, workspace)
    s.open()
    yield s
    await s.stop()


def test_a_batch_for_a_profile_without_its_key_is_refused_whole(sched: Scheduler) -> None:
    with pytest.raises(MissingApiKeysError) as err:
        sched.intake.submit_rows(rows("free", 2) + rows("keyed", 2))
    assert [(m.env, m.profiles) for m in err.value.missing] == [(UNSET, ("keyed",))]
    assert UNSET in str(err.value)
    assert sched.store.counts() == {}  # nothing went in, not even the rows that were fine


def test_queued_work_counts_for_the_key_rule(sched: Scheduler) -> None:
    """The rule of both faces: profiles with work once the batch is in, queued work included (the
    run would start it too), not only the batch's own rows."""
    queued = sched.intake.submit([sched.intake.new_task("old-1", "keyed", "queued before")])  # no key check here
    assert queued.added == ("old-1",)
    with pytest.raises(MissingApiKeysError, match=UNSET):
        sched.intake.submit_rows(rows("free", 3))
    sched.cancel(["old-1"])  # nothing of 'keyed' left to run: the same batch is fine now
    done = sched.intake.submit_rows(rows("free", 3))
    assert len(done.result.added) == 3 and done.ids == list(done.result.added)


def test_retry_failed_makes_finished_tasks_count(sched: Scheduler) -> None:
    batch = rows("keyed", 2)
    ids = [t.task_id for t in sched.intake.tasks_from_rows(batch)]
    sched.intake.submit(sched.intake.tasks_from_rows(batch))
    assert sched.cancel(ids) == 2
    done = sched.intake.submit_rows(batch)  # both known and canceled: nothing to run, no key needed
    assert done.result.existing == tuple(ids) and not done.result.added
    with pytest.raises(MissingApiKeysError):  # re-queued, they would run: refused
        sched.intake.submit_rows(batch, retry_failed=True)


def test_chunked_submit_reports_progress_and_keeps_the_ids(sched: Scheduler) -> None:
    seen: list[tuple[int, int]] = []
    batch = rows("free", 1200)
    done = sched.intake.submit_rows(batch, "b", chunk=500, progress=lambda n, m: seen.append((n, m)))
    assert seen == [(500, 1200), (1000, 1200)]
    assert list(done.result.added) == [t.task_id for t in sched.intake.tasks_from_rows(batch, "b")] == done.ids
    again = sched.intake.submit_rows(batch, "b", chunk=500)
    assert not again.result.added and len(again.result.existing) == 1200
    assert sched.store.pending_count(["free"]) == 1200


async def test_the_awaitable_form_yields_between_slices_and_chunks(workspace: Workspace,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(UNSET, raising=False)
    cfg = make_config([{"name": "free", "kind": "api", "base_url": "http://127.0.0.1:10/v1", "model": "m"}])
    s = Scheduler(cfg, workspace)
    s.open()
    try:
        n = 2500
        batch = [BatchRow(line=i + 1, profile="free", prompt=f"same {i % 700}", id=None, system=None,
                          priority=0, route_key=None) for i in range(n)]
        pending: list[int] = []
        progress: list[int] = []

        async def watch() -> None:
            while True:
                pending.append(s.store.pending_count(["free"]))
                await asyncio.sleep(0)

        watcher = asyncio.ensure_future(watch())
        try:
            done = await s.intake.submit_rows_async(batch, "big", chunk=1000,
                                                    progress=lambda i, _m: progress.append(i))
        finally:
            watcher.cancel()
        assert list(done.result.added) == [t.task_id for t in s.intake.tasks_from_rows(batch, "big")]
        assert len(set(done.result.added)) == n  # identical prompts across slices keep their occurrence
        assert pending.count(0) >= 2, pending[:20]  # the loop ran while the tasks were built
        assert sum(1 for c in pending if 0 < c < n) >= 2, pending[-20:]  # and between transactions
        assert progress and progress == sorted(progress) and progress[-1] < n
    finally:
        await s.stop()


async def test_the_awaitable_form_refuses_a_batch_over_its_cap_whole(sched: Scheduler) -> None:
    sched.intake.submit([sched.intake.new_task(f"a{i}", "capped", "x") for i in range(100)])
    with pytest.raises(QueueFullError, match=r"max_pending is 600, 100 already pending.*500 would fit"):
        await sched.intake.submit_rows_async(rows("capped", 1200), chunk=SUBMIT_MIN_CHUNK)
    assert sched.store.pending_count(["capped"]) == 100  # no chunk went in


def test_an_unknown_profile_is_refused(sched: Scheduler) -> None:
    with pytest.raises(ValueError, match="unknown profile 'nope'"):
        sched.intake.submit_rows(rows("nope", 1))


def test_chunk_sizes_follow_the_time_a_chunk_took() -> None:
    assert next_submit_chunk(500, 0.0, 500) == 500
    assert next_submit_chunk(500, 0.005, 500) == 500  # fast: the most
    assert next_submit_chunk(500, 0.02, 500) == 250  # ~10 ms of work at the rate seen
    assert next_submit_chunk(500, 10.0, 500) == SUBMIT_MIN_CHUNK  # never below the least
    assert next_submit_chunk(500, 10.0, 50) == 50  # nor above the most asked for
