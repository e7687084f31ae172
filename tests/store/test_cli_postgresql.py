"""The headless CLI on a PostgreSQL store, as a user runs it: ``db_url`` in the config / ``--db`` URL,
real subprocesses, the API simulator on 127.0.0.1. A SIGKILLed run's tasks are recovered by the next
run's stale-heartbeat reaper (no start-up recovery on a shared database), nothing lost or run twice."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path

from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from mediadesk.store import TaskReader
from mediadesk.store.open_errors import StoreOpenError
from tests.support import mediadesk_async

ROOT = Path(__file__).resolve().parents[2]
SECRET = "n0t-a-real-pw"  # the test server trusts local connections: the password is only carried


def write_config(tmp: Path, base_url: str, db_url: str) -> Path:
    cfg = tmp / "config.toml"
    cfg.write_text(
        f"""
data_dir = "{tmp / 'data'}"
db_url = "{db_url}"
[retry]
max_retries = 2
backoff_base_s = 0.05
backoff_max_s = 0.5
[heartbeat]
interval_s = 0.2
stale_after_s = 1.5
[[profiles]]
name = "writer"
kind = "api"
base_url = "{base_url}"
model = "m"
concurrency = 3
""",
        encoding="utf-8",
    )
    return cfg


def states(url: str) -> dict[str, str]:
    r = TaskReader(url)
    try:
        return {t.task_id: t.state for t in r.iter_tasks()}
    finally:
        r.close()


async def test_run_export_and_cancel_on_postgresql_never_show_the_password(tmp_path: Path, pg_url: str) -> None:
    url = pg_url.replace("mediadesk@", f"mediadesk:{SECRET}@")
    async with ApiSimServer(ApiSimConfig(seed=2)) as sim:
        cfg = write_config(tmp_path, sim.base_url, url)
        batch = tmp_path / "b.jsonl"
        batch.write_text("".join(json.dumps({"id": f"t{i}", "profile": "writer", "prompt": f"q{i}"}) + "\n"
                                 for i in range(5)), encoding="utf-8")
        rc, out, err = await mediadesk_async("run", str(batch), "--config", str(cfg))
    assert rc == 0, (out, err)
    assert "summary: success 5" in out and "mediadesk:***@" in out
    # on the command line the password would be visible in ps: refused, pointing to PGPASSWORD
    rc, refused_out, refused_err = await mediadesk_async("export", "--db", url, "--format", "jsonl")
    assert rc == 2 and "PGPASSWORD" in refused_err and refused_out == "", refused_err
    pw = {"PGPASSWORD": SECRET}
    rc, exported, err2 = await mediadesk_async("export", "--db", pg_url, "--format", "jsonl", env=pw)
    assert rc == 0, err2
    assert sorted(json.loads(line)["task_id"] for line in exported.splitlines()) == [f"t{i}" for i in range(5)]
    rc, out3, err3 = await mediadesk_async("cancel", "t1", "--db", pg_url, env=pw)
    assert rc == 1 and "t1: not found or already finished" in err3
    assert not (tmp_path / "data" / "mediadesk.db").exists()  # the SQLite default was never used
    for text in (out, err, refused_err, exported, err2, out3, err3):
        assert SECRET not in text


async def test_sigkill_mid_batch_then_rerun_loses_and_duplicates_nothing(tmp_path: Path, pg_url: str) -> None:
    async with ApiSimServer(ApiSimConfig(latency=(0.1, 0.4), quota=3, seed=9)) as sim:
        cfg = write_config(tmp_path, sim.base_url, pg_url)
        batch = tmp_path / "b.jsonl"
        n = 20  # the kill comes after 6: 14 left for the rerun
        batch.write_text("".join(json.dumps({"id": f"t{i}", "profile": "writer", "prompt": f"q{i}"}) + "\n"
                                 for i in range(n)), encoding="utf-8")
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "mediadesk", "run", str(batch), "--config", str(cfg), "--quiet",
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL, cwd=ROOT,
        )
        try:
            st: dict[str, str] = {}
            for _ in range(1500):
                try:
                    st = states(pg_url)
                except StoreOpenError:  # tables not created yet
                    st = {}
                if list(st.values()).count("success") >= 6 and "running" in st.values():
                    break
                await asyncio.sleep(0.02)
            proc.send_signal(signal.SIGKILL)
            await proc.wait()
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        mid = states(pg_url)
        done_before = {t for t, s in mid.items() if s == "success"}
        assert "running" in mid.values() and len(done_before) >= 6  # really killed mid-batch
        rc, out, err = await mediadesk_async("run", str(batch), "--config", str(cfg))
        assert rc == 0, (out, err)
        per_task = sim.stats()["per_task"]
    r = TaskReader(pg_url)
    try:
        final = {t.task_id: t for t in r.iter_tasks()}
        orphan = next(t for t, s in mid.items() if s == "running")
        # recovered by the rerun: by the team (the killed desktop is dead by the database clock:
        # owner_lost) or by the lanes' reaper (its heartbeat is stale), whichever sees it first
        assert any(k in ln.message for ln in r.logs(orphan) for k in ("heartbeat_timeout", "owner_lost"))
    finally:
        r.close()
    assert len(final) == n and {t.state for t in final.values()} == {"success"}
    for tid in done_before:  # finished work is never redone
        assert per_task[tid]["requests"] == 1
    for tid, rec in final.items():
        assert rec.result == per_task[tid]["last_answer"]
