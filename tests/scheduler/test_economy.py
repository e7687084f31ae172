"""The economy channel end to end: a profile with ``economy = "batch"`` sends its non-urgent single
turns through the API simulator's Batch API (/v1/files + /v1/batches), survives a restart while its
batch is at the provider, maps partial failures to the retry policy and expired lines back to the
queue uncharged; urgent tasks still go one by one. Real scheduler, real SQLite file, real HTTP."""

from __future__ import annotations

import asyncio
from typing import Any

from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer, answer_for
from mediadesk.store import open_store
from tests.support import log_messages, make_config, tasks_of, until


def economy_config(sim: ApiSimServer, **profile: Any) -> Any:
    return make_config(
        [{"name": "w", "kind": "api", "base_url": sim.base_url, "model": "m", "economy": "batch",
          "economy_collect_s": 0.2, "economy_poll_s": 0.1, **profile}],
        retry={"max_retries": 3, "backoff_base_s": 0.01, "backoff_max_s": 0.05},
    )


def open_rows(ws: Workspace) -> list[Any]:
    store = open_store(ws.location)
    try:
        return store.open_economy_batches("w")
    finally:
        store.close()


async def test_a_batch_round_trip_with_a_restart_in_the_middle_and_partial_failures(any_workspace: Workspace) -> None:
    workspace = any_workspace  # SQLite, and PostgreSQL (team mode: this desktop holds the channel's lease)
    sim_cfg = ApiSimConfig(batch_delay_s=1.5, batch_fail_every=3)
    async with ApiSimServer(sim_cfg) as sim:
        cfg = economy_config(sim)
        economy = [(f"e{i}", f"economy question {i}") for i in range(7)]
        async with Scheduler(cfg, workspace) as s:
            s.intake.submit([s.intake.new_task(t, "w", p) for t, p in economy]
                     + [s.intake.new_task("urgent", "w", "answer now", priority=1)])
            await until(lambda: tasks_of(workspace)["urgent"].state == "success", "the urgent task, sent directly")
            await until(lambda: any(r.batch_id for r in open_rows(workspace)), "a provider batch to be created")
        # stopped while the batch is at the provider: its tasks stay running on the channel's lane
        [row] = open_rows(workspace)
        assert sorted(row.task_ids) == sorted(t for t, _ in economy)
        mid = tasks_of(workspace)
        assert {mid[t].state for t, _ in economy} == {"running"} and {mid[t].lane for t, _ in economy} == {"batch:w"}
        async with Scheduler(cfg, workspace) as s:  # the restart: recovery leaves them to the channel
            assert {tasks_of(workspace)[t].state for t, _ in economy} == {"running"}
            await asyncio.wait_for(s.wait_idle(), 60)
        stats = sim.stats()
    tasks = tasks_of(workspace)
    assert {t.state for t in tasks.values()} == {"success"}
    for tid, prompt in economy:
        t = tasks[tid]
        assert t.result == answer_for(prompt)
        assert t.prompt_tokens and t.completion_tokens and t.usage_estimated is False
        assert tid not in stats["per_task"]  # never sent as a direct request
    # lines 3 and 6 of the first batch errored (500): retried in a second batch, charged one attempt
    sent = stats["batch_lines_per_id"]
    assert sorted(t for t, n in sent.items() if n == 2) == ["e2", "e5"], sent
    assert all(sent[t] in (1, 2) for t, _ in economy) and stats["batches_created"] == 2
    assert [tasks[t].attempt for t in ("e2", "e5")] == [2, 2] and tasks["e0"].attempt == 1
    assert stats["per_task"]["urgent"]["requests"] == 1 and "urgent" not in sent
    assert any("sent in provider batch" in m for m in log_messages(workspace, "e0"))
    assert any("server_error" in m for m in log_messages(workspace, "e2"))
    assert open_rows(workspace) == []


async def test_expired_lines_go_back_to_the_queue_uncharged(workspace: Workspace) -> None:
    async with ApiSimServer(ApiSimConfig(batch_delay_s=0.2, batch_expire=True)) as sim:
        cfg = economy_config(sim)
        async with Scheduler(cfg, workspace) as s:
            s.intake.submit([s.intake.new_task(f"e{i}", "w", f"q{i}") for i in range(4)])
            await until(lambda: sim.stats()["batches_created"] == 1 and not open_rows(workspace),
                        "the first batch to end expired")
            sim.config.batch_expire = False
            expired = [t for t in tasks_of(workspace).values() if t.state == "pending"]
            assert sorted(t.task_id for t in expired) == ["e2", "e3"]  # the half it never ran
            assert all(t.attempt == 0 for t in expired)  # not charged
            await asyncio.wait_for(s.wait_idle(), 60)
    tasks = tasks_of(workspace)
    assert {t.state for t in tasks.values()} == {"success"}
    assert [tasks[t].attempt for t in ("e0", "e1", "e2", "e3")] == [1, 1, 1, 1]


async def test_a_crash_between_our_row_and_the_providers_batch_is_resolved_by_its_ref(tmp_path: Any) -> None:
    """Our row is written before the provider is asked; a crash before its batch id was stored leaves
    a row ``sending``. On resume the provider's list is searched by the row's ref: a batch it made is
    polled on (never sent again), one it never made sends its tasks back to the queue, uncharged."""
    from mediadesk.core.backend import TaskSpec
    from mediadesk.core.states import TaskState
    from mediadesk.providers.api import ApiBackend
    from mediadesk.providers.api.batches import ApiBatchClient
    from mediadesk.scheduler.economy import EconomyChannel, EconomySettings
    from mediadesk.store import NewTask

    store = open_store(tmp_path / "t.db")
    async with ApiSimServer(ApiSimConfig(batch_delay_s=0.1)) as sim, \
            ApiBackend(name="w", base_url=sim.base_url, model="m") as backend:
        client = ApiBatchClient(backend)

        def spec(rec: Any) -> TaskSpec:
            return TaskSpec(task_id=rec.task_id, profile="w", prompt=rec.prompt, attempt=rec.attempt, instructions=None)

        store.add_tasks([NewTask(f"t{i}", "w", "api", f"q{i}") for i in range(3)])
        made = store.claim(["w"], 2, lane="batch:w", account=None, owner="gone", economy=True)
        [lost] = store.claim(["w"], 1, lane="batch:w", account=None, owner="gone", economy=True)
        store.add_economy_batch("ref-made", "w", [r.task_id for r in made], 0.0)
        store.add_economy_batch("ref-lost", "w", [lost.task_id], 0.0)
        await client.submit([spec(r) for r in made], "ref-made", "24h")  # ...and the desktop died here

        channel = EconomyChannel("w", client, store, resolve=spec,
                                 policy=make_config([]).retry.policy(), owner="me",
                                 settings=EconomySettings(collect_s=3600, poll_s=0.05),
                                 publish=lambda rec: None, task_log=lambda *a: None)
        await channel.step(1.0)
        back = store.get(lost.task_id)
        assert back is not None and back.state is TaskState.PENDING and back.attempt == 0
        [row] = store.open_economy_batches("w")
        assert row.ref == "ref-made" and row.batch_id is not None

        async def finished() -> bool:
            await channel.step(channel._clock())
            return not store.open_economy_batches("w")

        await until(finished, "the found batch to be polled to its end", limit_s=30)
        assert {store.get(r.task_id).state for r in made} == {TaskState.SUCCESS}  # type: ignore[union-attr]
        sent = sim.stats()["batch_lines_per_id"]
        assert sent["t0"] == sent["t1"] == 1 and set(sent.values()) == {1}  # never sent twice
    store.close()


async def test_without_a_batch_api_the_economy_tasks_go_one_by_one(workspace: Workspace) -> None:
    """No dead end: an endpoint that has no Batch API (404) turns the channel off, says so, and the
    profile's lane sends its economy tasks as ordinary requests, uncharged for the refused batch."""
    async with ApiSimServer(ApiSimConfig(batch_api=False)) as sim:
        async with Scheduler(economy_config(sim), workspace) as s:
            notices: list[str] = []
            s.bus.subscribe(lambda ev: notices.append(getattr(ev, "message", "")))
            s.intake.submit([s.intake.new_task(f"e{i}", "w", f"q{i}") for i in range(3)])
            await asyncio.wait_for(s.wait_idle(), 60)
        stats = sim.stats()
    tasks = tasks_of(workspace)
    assert {t.state for t in tasks.values()} == {"success"} and {t.attempt for t in tasks.values()} == {1}
    assert all(stats["per_task"][f"e{i}"]["requests"] == 1 for i in range(3))
    assert any("refused its Batch API" in n for n in notices), notices
