"""The PostgreSQL server is restarted (``pg_ctl stop -m fast``: every client gets AdminShutdown)
while two ``mediadesk run`` desktops work one queue. Each says in one line that the database server
went away, without a traceback (driver errors are the store's errors everywhere, the team's beat
included); run again, the batch completes with the quota kept and nothing run twice."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.faults.test_team_sigkill import ENDPOINT_CONCURRENCY, ROOT, rows, success_writes, write_config
from tests.pgserver import PgServer, PgUnavailable
from tests.support import require, until


@pytest.fixture
def own_server() -> Iterator[PgServer]:
    """A server of this test's own (restarting the session's would break the other tests)."""
    try:
        server = PgServer.start()
    except PgUnavailable as exc:
        require(False, str(exc))
        raise
    try:
        yield server
    finally:
        server.stop()


async def run_all(cfgs: list[Path], batch: Path, url: str) -> list[asyncio.subprocess.Process]:
    procs = [await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mediadesk", "run", str(batch), "--config", str(c), "--db", url, "--quiet",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"}) for c in cfgs]
    return procs


@pytest.mark.timeout(400)
async def test_a_server_restart_mid_batch_prints_no_traceback(tmp_path: Path, own_server: PgServer) -> None:
    url = own_server.new_database()
    api = ApiSimServer(ApiSimConfig(latency=(0.2, 0.4), seed=9))
    await api.start()
    n = 24  # the restart comes after 8: most of the batch is left for after it
    batch = tmp_path / "batch.jsonl"
    batch.write_text("".join(json.dumps({"id": f"a{i:03d}", "profile": "writer", "prompt": f"prompt {i}"}) + "\n"
                             for i in range(n)), encoding="utf-8")
    cfgs = []
    for d in range(2):
        cfgs.append(tmp_path / f"desk{d}.toml")
        write_config(cfgs[-1], tmp_path / f"desk{d}", api.base_url, None)
    outputs: list[str] = []
    try:
        procs = await run_all(cfgs, batch, url)
        await until(lambda: sum(s == "success" for s, _ in rows(url).values()) >= 8, "a fifth of the batch done",
                    limit_s=120, step_s=0.05)
        await asyncio.to_thread(own_server.restart)
        for p in procs:
            out, err = await asyncio.wait_for(p.communicate(), 180)
            outputs.append(out.decode(errors="replace") + err.decode(errors="replace"))
        for _ in range(3):  # run again until done (a desktop may have finished the batch by reconnecting)
            if {s for s, _ in rows(url).values()} == {"success"}:
                break
            procs = await run_all(cfgs[:1], batch, url)
            out, err = await asyncio.wait_for(procs[0].communicate(), 180)
            outputs.append(out.decode(errors="replace") + err.decode(errors="replace"))
        stats = api.stats()
    finally:
        await api.stop()
    tracebacks = [o for o in outputs if "Traceback" in o]
    assert not tracebacks, tracebacks[0][-3000:]
    final = rows(url)
    assert len(final) == n and {s for s, _ in final.values()} == {"success"}, final
    assert max(success_writes(url).values(), default=0) <= 1
    assert stats["max_concurrent"] <= ENDPOINT_CONCURRENCY
