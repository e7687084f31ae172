"""A budget stops an endpoint mid-batch without failing anything, and the batch resumes when the
cap is raised: the real scheduler, an SQLite file and the API simulator (which reports usage) on
127.0.0.1. Every simulated answer here costs 11 tokens at $1,000 per million: $0.011."""

from __future__ import annotations

import asyncio

from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.events import Notice
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.support import make_config, tasks_of, until


def config(sim: ApiSimServer, **budget: object) -> object:
    return make_config(
        [{"name": "writer", "kind": "api", "endpoint": "reseller", "model": "m", "max_tokens": 8}],
        endpoints=[{"name": "reseller", "base_url": sim.base_url, "concurrency": 2,
                    "prices": {"m": {"input": 1000.0, "output": 1000.0}}}],
        budgets=[{"endpoint": "reseller", "per": "total", **budget}],
    )


async def test_a_budget_stops_the_endpoint_mid_batch_with_nothing_failed_and_resumes_when_raised(
    any_workspace: Workspace,
) -> None:
    """On SQLite and on PostgreSQL (team mode: the lane's team path, one checked start per round)."""
    workspace = any_workspace
    notices: list[str] = []
    sim = ApiSimServer(ApiSimConfig(latency=(0.01, 0.03), quota=5, seed=5))
    async with sim:
        s = Scheduler(config(sim, max_cost=0.10), workspace)
        async with s:
            s.bus.subscribe(lambda ev: notices.append(ev.message) if isinstance(ev, Notice) else None)
            s.intake.submit([s.intake.new_task(f"t{i:02d}", "writer", f"task {i:02d}", batch="b") for i in range(20)])
            lane = s.lanes[0]
            await until(lambda: lane.budget_stop is not None and lane.running_count == 0, "the cap to stop the lane")
            await asyncio.sleep(0.3)  # several more rounds of the lane: it must stay stopped
            tasks = tasks_of(workspace)
            done = [t for t in tasks.values() if t.state == "success"]
            pending = [t for t in tasks.values() if t.state == "pending"]
            assert 0 < len(done) < 20 and len(done) + len(pending) == 20     # nothing failed
            assert all(t.attempt == 0 and t.started_at is None for t in pending)  # nothing charged
            assert not any(t.task_id in sim.stats()["per_task"] for t in pending)  # nothing sent
            spent = sum(t.cost or 0.0 for t in done)
            assert all(t.currency == "USD" and t.cost is not None and t.cost > 0 for t in done)
            assert spent <= 0.10 + 1e-9
            assert s.budget_stops() == {"writer": [lane.budget_stop.message()]}
            assert "endpoint reseller: $0.10 in total" in lane.budget_stop.message()
            assert "max_cost of [[budgets]] entry 1" in lane.budget_stop.message()
            assert any("budget at" in n and "endpoint reseller" in n for n in notices)   # the 80 % notice
            assert any(n.startswith("budget reached") for n in notices)

            s.raise_cap("endpoint:reseller:total:USD", 1.0)
            await asyncio.wait_for(s.wait_idle(), 60)
            assert lane.budget_stop is None and s.budget_stops() == {}
    tasks = tasks_of(workspace)
    assert {t.state for t in tasks.values()} == {"success"} and all(t.attempt == 1 for t in tasks.values())
    assert sum(t.cost or 0.0 for t in tasks.values()) <= 1.0
