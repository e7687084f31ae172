"""An endpoint whose port is closed (connection refused) for a while: real scheduler, real SQLite
file, the API simulator on 127.0.0.1 closing and re-opening its listening socket.

A refused connection proves nothing was sent: the endpoint is unreachable, not the task broken. So
the breaker opens at once, only health probes go out while it is down, no attempt is charged, and
the batch completes after the port is back.
"""

from __future__ import annotations

import asyncio
import socket

import httpx
import pytest

from mediadesk.scheduler import Scheduler
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from mediadesk.workspace import Workspace
from tests.support import log_messages, make_config, tasks_of, until

BREAKER = {"window": 20, "failure_rate": 0.5, "min_calls": 10, "cooldown_s": 30.0, "probe_interval_s": 0.3}


def connect_refused(port: int) -> bool:
    """A plain TCP connect to the port: True when the kernel refuses it (nothing listens)."""
    with socket.socket() as sock:
        sock.settimeout(5.0)
        try:
            sock.connect(("127.0.0.1", port))
        except ConnectionRefusedError:
            return True
    return False


async def test_refuse_outage_closes_the_port_and_reopens_it() -> None:
    """The simulator itself: during a ``refuse`` outage a connect gets ECONNREFUSED (the listening
    socket is closed), a keep-alive connection opened before does not serve requests either, and
    after ``duration_s`` the same port accepts again by itself."""
    async with ApiSimServer(ApiSimConfig(seed=1)) as sim, httpx.AsyncClient(timeout=5.0) as client:
        port = sim.port
        url = f"{sim.base_url}/models"
        assert (await client.get(url)).status_code == 200  # leaves a pooled keep-alive connection
        sim.set_outage("refuse", duration_s=0.5)
        assert connect_refused(port)
        with pytest.raises(httpx.ConnectError):  # the pooled connection was closed: a fresh connect is refused
            await client.get(url)
        assert sim.stats()["outage"] == "refuse"  # stats and admin stay reachable in-process
        await until(lambda: not connect_refused(port), "the port to accept connections again", limit_s=10)
        assert (await client.get(url)).status_code == 200
        assert sim.port == port
        stats = sim.stats()
    assert stats["outage"] is None
    [outage] = stats["outages"]
    assert outage["mode"] == "refuse" and outage["ended_at"] is not None


async def test_refuse_outage_over_http_admin_ends_by_itself() -> None:
    """``/admin/*`` shares the port: a ``refuse`` outage started over HTTP must say when it ends."""
    async with ApiSimServer(ApiSimConfig(seed=2)) as sim, httpx.AsyncClient(timeout=5.0) as client:
        admin = f"http://127.0.0.1:{sim.port}/admin/outage"
        r = await client.post(admin, json={"mode": "refuse"})
        assert r.status_code == 400 and "duration_s" in r.json()["error"]["message"]
        assert sim.stats()["outage"] is None and not connect_refused(sim.port)
        r = await client.post(admin, json={"mode": "refuse", "duration_s": 0.3})
        assert r.status_code == 200 and r.json()["outage"] == "refuse"  # the answer still arrives
        assert connect_refused(sim.port)
        await until(lambda: not connect_refused(sim.port), "the port to re-open by itself", limit_s=10)
        state = (await client.get(admin)).json()
    assert state["outage"] is None and [o["mode"] for o in state["outages"]] == ["refuse"]


async def test_refuse_outage_opens_breaker_and_burns_no_attempt(workspace: Workspace) -> None:
    async with ApiSimServer(ApiSimConfig(latency=(0.05, 0.05), seed=11)) as sim:
        cfg = make_config(
            [{"name": "w", "kind": "api", "base_url": sim.base_url, "model": "m", "concurrency": 2}],
            breaker=BREAKER,
        )
        async with Scheduler(cfg, workspace) as s:
            s.submit([s.new_task(f"t{i}", "w", f"q{i}") for i in range(12)])
            await until(
                lambda: sum(1 for t in tasks_of(workspace).values() if t.state == "success") >= 2,
                "two tasks to succeed before the outage",
            )
            cap = next(iter(s.capacities.values()))
            sim.set_outage("refuse", duration_s=1.5)
            await until(
                lambda: cap.breaker.state.value != "closed" or sim.stats()["outage"] is None,
                "the breaker to leave closed (or the outage to end)",
            )
            assert cap.breaker.state.value == "open", "a refused connection did not open the breaker"
            assert "unavailable" in (cap.breaker.reason or "")
            await asyncio.wait_for(s.wait_idle(), 60)
            probes = cap.probes_sent
        stats = sim.stats()
    tasks = tasks_of(workspace)
    assert {t.state for t in tasks.values()} == {"success"}
    assert all(t.attempt == 1 for t in tasks.values()), "a refused connection was charged to a task"
    logs = {tid: log_messages(workspace, tid) for tid in tasks}
    unreachable = [m for ms in logs.values() for m in ms if "could not reach the callee" in m]
    # while down: at most the dispatches under way when it closed (<= concurrency), then only probes
    assert 1 <= len(unreachable) <= 2, unreachable
    assert not any("failed (connection" in m for ms in logs.values() for m in ms)
    # the probes that went out while the port was closed never reached the server: the kernel refused them
    assert probes >= 2 and stats["models_requests"] < probes
    assert any("breaker open" in m and "next probe in" in m for m in unreachable)
