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

from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
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
    socket is closed); a keep-alive connection opened before answers "unavailable" (503, no wait)
    once and closes; after ``duration_s`` the same port accepts again by itself."""
    async with ApiSimServer(ApiSimConfig(seed=1)) as sim, httpx.AsyncClient(timeout=5.0) as client:
        port = sim.port
        url = f"{sim.base_url}/models"
        assert (await client.get(url)).status_code == 200  # leaves a pooled keep-alive connection
        sim.set_outage("refuse", duration_s=0.5)
        assert connect_refused(port)
        pooled = await client.get(url)  # on the connection opened before: a gateway's "unavailable"
        assert pooled.status_code == 503 and "Retry-After" not in pooled.headers
        assert pooled.headers["Connection"] == "close"
        with pytest.raises(httpx.ConnectError):  # that connection is gone: a fresh connect is refused
            await client.get(url)
        assert sim.stats()["outage"] == "refuse"  # stats and admin stay reachable in-process
        await until(lambda: not connect_refused(port), "the port to accept connections again", limit_s=10)
        assert (await client.get(url)).status_code == 200
        assert sim.port == port
        stats = sim.stats()
    assert stats["outage"] is None
    [outage] = stats["outages"]
    assert outage["mode"] == "refuse" and outage["ended_at"] is not None


async def read_response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in head[1:] if line)}
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return int(head[0].split()[1]), headers, body


async def test_a_request_racing_the_port_closing_is_unavailable_not_reset() -> None:
    """A request already on its way (written on an open keep-alive connection, not yet read by the
    server) when the port closes gets a clean "unavailable" answer and the connection closes -- never
    a reset, which the client could not tell from a request that broke (and would charge)."""
    async with ApiSimServer(ApiSimConfig(seed=3)) as sim:
        reader, writer = await asyncio.open_connection("127.0.0.1", sim.port)
        request = f"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1:{sim.port}\r\n\r\n".encode()
        try:
            writer.write(request)
            assert (await read_response(reader))[0] == 200  # the connection stays open (keep-alive)
            writer.write(request)  # in the server's socket buffer; the loop has not read it yet
            sim.set_outage("refuse", duration_s=30)
            assert connect_refused(sim.port)
            status, headers, _body = await read_response(reader)
            assert status == 503 and "retry-after" not in headers and headers["connection"] == "close"
            assert await asyncio.wait_for(reader.read(), 10) == b""  # and then the server closed it
        finally:
            writer.close()
        stats = sim.stats()
    assert stats["requests_during_outage"] == 1 and stats["models_requests"] == 2


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
            s.intake.submit([s.intake.new_task(f"t{i}", "w", f"q{i}") for i in range(12)])
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
    logs = {tid: log_messages(workspace, tid) for tid in tasks}
    charged = {tid: logs[tid] for tid, t in tasks.items() if t.attempt != 1}
    assert not charged, f"a refused connection was charged to a task: {charged}"
    unreachable = [m for ms in logs.values() for m in ms if "could not reach the callee" in m]
    # while down: at most the dispatches under way when it closed (<= concurrency), then only probes
    assert 1 <= len(unreachable) <= 2, unreachable
    assert not any("failed (connection" in m for ms in logs.values() for m in ms)
    # the probes that went out while the port was closed never reached the server: the kernel refused them
    assert probes >= 2 and stats["models_requests"] < probes
    assert any("breaker open" in m and "next probe in" in m for m in unreachable)
