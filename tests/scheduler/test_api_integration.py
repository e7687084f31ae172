"""The API lane end to end: real scheduler, real store (an SQLite file; a PostgreSQL database), real
simulator on 127.0.0.1, real httpx."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from mediadesk.store import TaskReader, open_store
from tests.support import make_config, until


def api_profile(name: str, sim: ApiSimServer, **kw: object) -> dict:
    return {"name": name, "kind": "api", "base_url": sim.base_url, "model": "m", **kw}


def tasks_of(ws: Workspace) -> dict:
    r = TaskReader(ws.location)
    try:
        return {t.task_id: t for t in r.iter_tasks()}
    finally:
        r.close()


async def run_batch(s: Scheduler, items: list[tuple[str, str, str]], limit_s: float = 60) -> None:
    s.intake.submit([s.intake.new_task(tid, prof, prompt) for tid, prof, prompt in items])
    await asyncio.wait_for(s.wait_idle(), limit_s)


def dump_pg(ws: Workspace, table: str) -> list[tuple[object, ...]]:
    assert ws.db_url is not None
    s = open_store(ws.location)
    conn = s.connect_shared()
    try:
        return list(conn.execute(f"SELECT * FROM {table}").fetchall())
    finally:
        conn.close()
        s.close()


@pytest.fixture
def workspace(any_workspace: Workspace) -> Workspace:
    """On both back-ends: a fresh SQLite file, and a fresh PostgreSQL database (team mode)."""
    return any_workspace


@pytest.fixture
async def sim() -> ApiSimServer:
    async with ApiSimServer(ApiSimConfig(latency=(0.02, 0.08), quota=3, retry_after_s=0.05, seed=1)) as server:
        yield server


async def test_mixed_batch_succeeds_and_quota_is_never_exceeded(workspace: Workspace, sim: ApiSimServer) -> None:
    """Two endpoints, each with a provider quota equal to the profile's concurrency."""
    async with ApiSimServer(ApiSimConfig(latency=(0.02, 0.08), quota=2, retry_after_s=0.05, seed=4)) as sim2:
        cfg = make_config([
            api_profile("writer", sim, concurrency=3, stream=True, instructions="be brief"),
            api_profile("plain", sim2, concurrency=2, stream=False),
        ])
        items = [(f"w{i}", "writer", f"写 {i} 🚀") for i in range(25)]
        items += [(f"p{i}", "plain", f"p {i}") for i in range(15)]
        async with Scheduler(cfg, workspace) as s:
            await run_batch(s, items)
        stats2 = sim2.stats()
    stats = sim.stats()
    tasks = tasks_of(workspace)
    assert {t.state for t in tasks.values()} == {"success"}
    assert stats["max_concurrent"] == 3 and stats["refused_429"] == 0
    assert stats2["max_concurrent"] == 2 and stats2["refused_429"] == 0
    for tid, t in tasks.items():
        per = (stats if tid.startswith("w") else stats2)["per_task"][tid]
        assert t.result == per["last_answer"]  # stored exactly as sent
        assert per["requests"] == 1 and t.attempt == 1


async def test_single_lane_never_exceeds_its_concurrency(workspace: Workspace) -> None:
    async with ApiSimServer(ApiSimConfig(latency=(0.05, 0.1), quota=5, seed=2)) as sim:
        cfg = make_config([api_profile("w", sim, concurrency=2)])
        async with Scheduler(cfg, workspace) as s:
            await run_batch(s, [(f"t{i}", "w", f"q{i}") for i in range(20)])
        stats = sim.stats()
    assert stats["max_concurrent"] == 2  # reached, never exceeded
    assert stats["refused_429"] == 0


@pytest.mark.parametrize(
    ("marker", "state", "attempts"),
    [
        ("[[sim:fail=500x2]]", "success", 3),
        ("[[sim:fail=500x9]]", "failed", 3),
        ("[[sim:fail=429x1]]", "success", 1),  # a refusal is the endpoint's capacity: never charged
        ("[[sim:fail=resetx2]]", "success", 3),
        ("[[sim:fail=resetx9]]", "failed", 3),
        ("[[sim:400]]", "failed", 1),
        # [[sim:401]]: the key rejected stops the endpoint (tests/faults/test_key_rejected.py)
    ],
)
async def test_fault_paths(workspace: Workspace, sim: ApiSimServer, marker: str, state: str, attempts: int) -> None:
    cfg = make_config([api_profile("w", sim, concurrency=1)])
    async with Scheduler(cfg, workspace) as s:
        await run_batch(s, [("t", "w", f"hello {marker}")])
    t = tasks_of(workspace)["t"]
    assert (t.state, t.attempt) == (state, attempts)
    refusals = 1 if "429" in marker else 0  # sent, refused, sent again: not an attempt
    assert sim.stats()["per_task"]["t"]["requests"] == attempts + refusals
    if state == "failed":
        assert t.result is None and t.error_kind


async def test_hang_is_a_timeout_and_retried(workspace: Workspace, sim: ApiSimServer) -> None:
    cfg = make_config([api_profile("w", sim, concurrency=1, timeout_s=0.3)])
    async with Scheduler(cfg, workspace) as s:
        await run_batch(s, [("t", "w", "[[sim:hang]]")])
    t = tasks_of(workspace)["t"]
    assert (t.state, t.attempt, t.error_kind) == ("failed", 3, "timeout")


async def test_need_empty_prompt_sends_no_system_message(workspace: Workspace, sim: ApiSimServer) -> None:
    cfg = make_config([
        api_profile("reasoner", sim, need_empty_prompt=True, instructions="do not send me"),
        api_profile("writer", sim, instructions="send me"),
    ])
    async with Scheduler(cfg, workspace) as s:
        await run_batch(s, [("r", "reasoner", "2+2?"), ("w", "writer", "hi")])
        s.set_profile_setting("writer", need_empty_prompt=True)
        await run_batch(s, [("w2", "writer", "hi again")])
    per = sim.stats()["per_task"]
    assert per["r"]["system_message_seen"] is False
    assert per["w"]["system_message_seen"] is True
    assert per["w2"]["system_message_seen"] is False


async def test_cancel_pending_and_running(workspace: Workspace, sim: ApiSimServer) -> None:
    cfg = make_config([api_profile("w", sim, concurrency=1)])
    async with Scheduler(cfg, workspace) as s:
        s.intake.submit([s.intake.new_task("run", "w", "slow [[sim:sleep=30]]"),
                         s.intake.new_task("wait", "w", "next")])
        await until(
            lambda: tasks_of(workspace)["run"].state == "running" and sim.stats()["in_flight"] > 0,
            "task 'run' to be running with its request in flight",
        )
        s.cancel(["wait", "run"])
        await asyncio.wait_for(s.wait_idle(), 20)
        await asyncio.sleep(0.1)
        in_flight = sim.stats()["in_flight"]
    tasks = tasks_of(workspace)
    assert tasks["run"].state == "canceled" and tasks["run"].result is None
    assert tasks["wait"].state == "canceled" and tasks["wait"].attempt == 0
    assert in_flight == 0  # the HTTP request was really abandoned
    assert "wait" not in sim.stats()["per_task"]


async def test_api_key_never_stored_or_logged(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    key = "sk-test-SECRET-9f8e7d6c5b4a"
    monkeypatch.setenv("MD_TEST_KEY", key)
    caplog.set_level(logging.DEBUG)
    async with ApiSimServer(ApiSimConfig(api_key=key, seed=3)) as sim:
        cfg = make_config([api_profile("w", sim, api_key_env="MD_TEST_KEY", concurrency=2)])
        async with Scheduler(cfg, workspace) as s:
            await run_batch(s, [("ok", "w", "hello"), ("bad", "w", "x [[sim:fail=500x9]]")])
    tasks = tasks_of(workspace)
    assert tasks["ok"].state == "success"  # the key was used
    if workspace.db_url is None:
        blob = b"".join(p.read_bytes() for p in Path(workspace.db_path).parent.glob("mediadesk.db*") if p.is_file())
    else:  # every row of every table, as text
        blob = b"".join(str(row).encode() for table in ("task", "task_log", "account_state", "profile_setting")
                        for row in dump_pg(workspace, table))
    assert key.encode() not in blob
    assert key not in caplog.text
    r = TaskReader(workspace.location)
    assert all(key not in ln.message for t in tasks for ln in r.logs(t))
    r.close()


async def test_missing_key_is_auth_failure_not_retried(workspace: Workspace, sim: ApiSimServer,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MD_NOT_SET", raising=False)
    cfg = make_config([api_profile("w", sim, api_key_env="MD_NOT_SET")])
    async with Scheduler(cfg, workspace) as s:
        await run_batch(s, [("t", "w", "hello")])
    t = tasks_of(workspace)["t"]
    assert (t.state, t.attempt, t.error_kind) == ("failed", 1, "auth")
    assert "MD_NOT_SET" in (t.error_message or "")
