"""``mediadesk serve`` as a script uses it (a real subprocess on 127.0.0.1): a batch submitted over HTTP
runs to the end and matches the same batch run by ``mediadesk run`` (same task ids, states and
results, the same rejected lines); the refusals at start."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from mediadesk.sim.api_server import ApiSimServer
from tests.remote.conftest import API_KEY, KEY_ENV, TOKEN, TOKEN_ENV
from tests.support import until

ROOT = Path(__file__).resolve().parents[2]

ROWS = [
    json.dumps({"profile": "writer", "prompt": "first prompt"}),
    "{not json",
    json.dumps({"profile": "writer", "prompt": "second 写 🚀", "system": "be brief"}),
    json.dumps({"profile": "nope", "prompt": "x"}),
    json.dumps({"id": "mine", "profile": "writer", "prompt": "third", "priority": 5}),
    json.dumps({"profile": "writer", "prompt": "first prompt"}),  # a repeat: its own task under duplicates=again
    json.dumps({"profile": "writer", "prompt": "flaky [[sim:fail=500x1]]"}),
]


def write_config(tmp: Path, base_url: str, remote: str = "") -> Path:
    cfg = tmp / "config.toml"
    cfg.write_text(f"""
[retry]
max_retries = 2
backoff_base_s = 0.05
backoff_max_s = 0.5
[heartbeat]
interval_s = 0.2
stale_after_s = 2
[[profiles]]
name = "writer"
kind = "api"
base_url = "{base_url}"
model = "m"
api_key_env = "{KEY_ENV}"
concurrency = 3
[remote]
token_env = "{TOKEN_ENV}"
{remote}
""", encoding="utf-8")
    return cfg


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONUNBUFFERED": "1", TOKEN_ENV: TOKEN, KEY_ENV: API_KEY}


async def mediadesk(*args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mediadesk", *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        cwd=ROOT, env=env())
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    return proc.returncode or 0, out.decode(), err.decode()


@pytest.fixture
async def served(tmp_path: Path, sim: ApiSimServer) -> Any:
    cfg = write_config(tmp_path, sim.base_url)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mediadesk", "serve", "--config", str(cfg), "--data-dir", str(tmp_path / "served"),
        "--port", "0", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT, env=env())
    assert proc.stdout is not None
    line = (await asyncio.wait_for(proc.stdout.readline(), 60)).decode()
    if not line.startswith("listening on "):
        proc.kill()
        raise AssertionError(line + (await proc.stderr.read()).decode())  # type: ignore[union-attr]
    url = line.split()[-1]
    assert url.startswith("http://127.0.0.1:")
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {TOKEN}"}, trust_env=False) as c:
        yield proc, c
    if proc.returncode is None:
        proc.kill()
        await proc.wait()


async def test_a_batch_over_http_matches_the_same_batch_from_the_cli(
    served: Any, tmp_path: Path, sim: ApiSimServer,
) -> None:
    proc, client = served
    body = ("\n".join(ROWS) + "\n").encode()
    sub = await client.post("/v1/batches", params={"name": "b.jsonl", "duplicates": "again"}, content=body,
                            headers={"Content-Type": "application/x-ndjson"})
    assert sub.status_code == 200, sub.text
    doc = sub.json()
    assert (doc["added"], doc["existing"]) == (5, 0)
    assert [e["line"] for e in doc["errors"]] == [2, 4]
    ids = doc["task_ids"]

    async def ended() -> bool:  # what a script does: read the batch's tasks until none is open
        page = (await client.get("/v1/tasks", params={"batch": "b.jsonl", "limit": 1000})).json()["tasks"]
        return len(page) == 5 and all(t["state"] in ("success", "failed", "canceled") for t in page)

    await until(ended, "the batch served over HTTP to end", limit_s=60, step_s=0.05)
    over_http: dict[str, dict] = {}

    async def logged() -> bool:  # task-log lines are group-committed (every 0.25 s): read until each has its own
        over_http.update({t: (await client.get(f"/v1/tasks/{t}")).json() for t in ids})
        return all(t["log"] for t in over_http.values())

    await until(logged, "each task's log to be stored", limit_s=60, step_s=0.05)
    proc.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(proc.wait(), 60) == 0
    # the same file through `mediadesk run`, in a workspace of its own, the simulator's fault budgets afresh
    sim.reset_stats()
    batch = tmp_path / "b.jsonl"
    batch.write_bytes(body)
    cfg = tmp_path / "config.toml"
    rc, out, err = await mediadesk("run", str(batch), "--config", str(cfg), "--data-dir", str(tmp_path / "cli"),
                                   "--duplicates", "again")
    assert rc == 3, (out, err)  # every task succeeded, two rows rejected
    assert [ln.split(":")[1] for ln in err.splitlines() if ln.startswith(f"{batch}:")] == ["2", "4"]
    for e in doc["errors"]:
        assert f"{batch}:{e['line']}: {e['message']}" in err
    rc, out, _ = await mediadesk("export", "--data-dir", str(tmp_path / "cli"), "--format", "jsonl")
    from_cli = {r["task_id"]: r for r in map(json.loads, out.splitlines())}
    assert sorted(from_cli) == sorted(over_http) and "mine" in from_cli
    for tid, t in over_http.items():
        assert (t["state"], t["result"], t["batch"], t["prompt"]) == (
            from_cli[tid]["state"], from_cli[tid]["result"], "b.jsonl", from_cli[tid]["prompt"]), tid
    assert {t["state"] for t in over_http.values()} == {"success"}
    assert all(t["log"] for t in over_http.values())  # each with its task log


async def test_serve_refuses_what_it_cannot_do_safely(tmp_path: Path, sim: ApiSimServer) -> None:
    cfg = write_config(tmp_path, sim.base_url)
    rc, _out, err = await mediadesk("serve", "--config", str(cfg), "--data-dir", str(tmp_path / "d"),
                                    "--host", "0.0.0.0", "--port", "0")
    assert rc == 2 and "refusing to listen on 0.0.0.0" in err and "Traceback" not in err
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mediadesk", "serve", "--config", str(cfg), "--data-dir", str(tmp_path / "d"),
        "--port", "0", stderr=asyncio.subprocess.PIPE, cwd=ROOT,
        env={k: v for k, v in env().items() if k != TOKEN_ENV})
    _, err_b = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 2 and f"set the environment variable {TOKEN_ENV}" in err_b.decode()
