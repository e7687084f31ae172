"""Two ``mediadesk run`` processes on one PostgreSQL queue, one of them on a computer whose clock runs
30 s ahead (its ``time.time`` is shifted before MediaDesk is imported, as ``faketime`` would; the
database server's clock is untouched).

Heartbeats, stale cutoffs and leases are compared on the database's clock: no task is taken for
stale and run again (one request per task), and the late-or-early desktop says its clock is off."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import psycopg

from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.faults.test_team_sigkill import ENDPOINT_CONCURRENCY, ROOT, rows, success_writes, write_config

SKEW_S = 30.0
#: Runs MediaDesk with time.time() SKEW_S ahead (only in this child process).
SKEWED = (
    "import sys, time, runpy\n"
    "_real = time.time\n"
    f"time.time = lambda: _real() + {SKEW_S}\n"
    "sys.argv = ['mediadesk', *sys.argv[1:]]\n"
    "runpy.run_module('mediadesk', run_name='__main__', alter_sys=True)\n"
)


@dataclass
class SkewRun:
    """What two desktops (one ``SKEW_S`` ahead) did with ``n`` tasks on one queue (``bench faults`` reads it too)."""

    n: int
    rcs: list[int]
    outs: list[str]                      # stdout + stderr of each desktop, the skewed one first
    final: dict[str, tuple[str, str | None]]
    attempts: int                        # attempts counted over all tasks
    max_success_writes: int
    requests: int
    heartbeat_timeouts: int
    max_concurrent: int


async def skewed_run(tmp_path: Path, pg_url: str, n: int = 16) -> SkewRun:
    api = ApiSimServer(ApiSimConfig(latency=(0.6, 1.2), seed=3))
    await api.start()
    batch = tmp_path / "batch.jsonl"
    batch.write_text("".join(json.dumps({"id": f"a{i:03d}", "profile": "writer", "prompt": f"prompt {i}"}) + "\n"
                             for i in range(n)), encoding="utf-8")
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)}
    procs = []
    outs, rcs = [], []
    try:
        for d, prefix in enumerate((["-c", SKEWED], ["-m", "mediadesk"])):
            cfg = tmp_path / f"desk{d}.toml"
            write_config(cfg, tmp_path / f"desk{d}", api.base_url, None)
            procs.append(await asyncio.create_subprocess_exec(
                sys.executable, *prefix, "run", str(batch), "--config", str(cfg), "--db", pg_url,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT, env=env))
        for p in procs:
            out, err = await asyncio.wait_for(p.communicate(), 300)
            outs.append(out.decode(errors="replace") + err.decode(errors="replace"))
            rcs.append(p.returncode if p.returncode is not None else -1)
        stats = api.stats()
    finally:
        for p in procs:
            if p.returncode is None:
                p.kill()
                await p.wait()
        await api.stop()
    with psycopg.connect(pg_url) as conn:
        stale = conn.execute("SELECT count(*) FROM task_log WHERE message LIKE '%no heartbeat for%'").fetchone()[0]
        attempts = conn.execute("SELECT coalesce(sum(attempt), 0) FROM task").fetchone()[0]
    return SkewRun(n, rcs, outs, rows(pg_url), int(attempts), max(success_writes(pg_url).values(), default=0),
                   stats["requests_total"], int(stale), stats["max_concurrent"])


async def test_a_desktop_with_a_skewed_clock_runs_nothing_twice(tmp_path: Path, pg_url: str) -> None:
    run = await skewed_run(tmp_path, pg_url)
    n, outs = run.n, run.outs
    assert run.rcs == [0, 0], [o[-3000:] for o in outs]
    assert len(run.final) == n and {s for s, _ in run.final.values()} == {"success"}, run.final
    assert run.max_success_writes <= 1
    figures = {"requests": run.requests, "heartbeat_timeouts": run.heartbeat_timeouts}
    assert figures == {"requests": n, "heartbeat_timeouts": 0}, figures
    assert run.max_concurrent <= ENDPOINT_CONCURRENCY
    assert "clock" in outs[0] and "database" in outs[0], outs[0][-3000:]  # the skewed desktop says so
    assert "clock" not in outs[1], outs[1][-3000:]
