"""``mediadesk run --budget``: the batch's cap is kept with it, the run stops when only capped tasks
are left (which cap, how to raise it, nothing failed), prints what the batch cost, and a later run
with a higher --budget finishes the batch. The CLI in its own process, the API simulator on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

from mediadesk.config.workspace import Workspace
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.support import mediadesk_async, tasks_of


def write_config(tmp_path: Path, sim: ApiSimServer) -> Path:
    cfg = tmp_path / "config.toml"
    cfg.write_text(f"""
data_dir = "data"
[heartbeat]
interval_s = 0.2
stale_after_s = 2
[scheduler]
poll_interval_s = 0.05
[prices.m]
input = 1000.0
output = 1000.0
[[profiles]]
name = "writer"
kind = "api"
base_url = "{sim.base_url}"
model = "m"
max_tokens = 8
concurrency = 2
""", encoding="utf-8")
    return cfg


async def test_a_batch_budget_stops_the_run_with_nothing_failed_and_a_higher_one_finishes_it(tmp_path: Path) -> None:
    batch = tmp_path / "b.jsonl"
    batch.write_text("".join(json.dumps({"id": f"t{i:02d}", "profile": "writer", "prompt": f"task {i:02d}"}) + "\n"
                             for i in range(12)), encoding="utf-8")
    async with ApiSimServer(ApiSimConfig(latency=(0.01, 0.03), quota=5, seed=9)) as sim:
        cfg = write_config(tmp_path, sim)
        first = await mediadesk_async("run", batch, "--config", cfg, "--budget", "0.05", "--quiet")
        assert first.rc == 1, first.err
        assert "budget of batch b.jsonl: $0.05 in total" in first.out
        assert "stopped by a budget: the tasks of profile(s) writer stay pending" in first.err
        assert "budget reached: batch b.jsonl: $0.05 in total" in first.err
        assert "higher --budget" in first.err
        assert "failed" not in first.out.split("summary:")[1].split("\n")[0]
        assert "spent: $0.0" in first.out and "tokens" in first.out
        ws = Workspace.resolve(data_dir=tmp_path / "data")
        tasks = tasks_of(ws)
        done = [t for t in tasks.values() if t.state == "success"]
        assert 0 < len(done) < 12 and all(t.state in ("success", "pending") for t in tasks.values())
        assert sum(t.cost or 0.0 for t in done) <= 0.05

        again = await mediadesk_async("run", batch, "--config", cfg, "--budget", "1.00", "--quiet")
        assert again.rc == 0, again.err
    tasks = tasks_of(ws)
    assert {t.state for t in tasks.values()} == {"success"} and all(t.attempt == 1 for t in tasks.values())


async def test_a_budget_without_a_currency_needs_one_price_currency(tmp_path: Path) -> None:
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps({"profile": "writer", "prompt": "x"}) + "\n", encoding="utf-8")
    async with ApiSimServer(ApiSimConfig(seed=1)) as sim:
        cfg = write_config(tmp_path, sim)
        cfg.write_text(cfg.read_text(encoding="utf-8").replace("[prices.m]", "[prices.other]"), encoding="utf-8")
        r = await mediadesk_async("run", batch, "--config", cfg, "--budget", "0.05", "--quiet")
    assert r.rc == 2 and "say the currency or tokens" in r.err and "Traceback" not in r.err
