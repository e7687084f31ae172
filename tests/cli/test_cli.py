"""The headless CLI as a user runs it: real subprocesses, a real simulator, real SQLite files."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import sys
from pathlib import Path

import pytest

from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.support import mediadesk_async

ROOT = Path(__file__).resolve().parents[2]


def write_config(tmp: Path, base_url: str, **extra: str) -> Path:
    cfg = tmp / "config.toml"
    cfg.write_text(
        f"""
data_dir = "{tmp / 'data'}"
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
concurrency = 3
stream = true
{extra.get('writer', '')}
""",
        encoding="utf-8",
    )
    return cfg


def db_states(db: Path) -> dict[str, str]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return dict(con.execute("SELECT task_id, state FROM task"))
    except sqlite3.OperationalError:  # not created yet
        return {}
    finally:
        con.close()


@pytest.fixture
async def sim() -> ApiSimServer:
    async with ApiSimServer(ApiSimConfig(latency=(0.01, 0.03), quota=3, seed=5)) as server:
        yield server


async def test_bad_rows_reported_with_line_numbers_good_rows_run(tmp_path: Path, sim: ApiSimServer) -> None:
    cfg = write_config(tmp_path, sim.base_url)
    batch = tmp_path / "b.jsonl"
    big = "x" * 10_000_000
    batch.write_text(
        "\n".join([
            json.dumps({"id": "a", "profile": "writer", "prompt": "hello"}),
            "{not json",
            json.dumps({"id": "b", "profile": "nope", "prompt": "x"}),
            json.dumps({"id": "c", "profile": "writer", "prompt": "  "}),
            json.dumps({"id": "d", "profile": "writer", "prompt": 42}),
            json.dumps({"id": "e", "profile": "writer", "prompt": big}),
            json.dumps({"id": "f", "profile": "writer", "prompt": "world"}),
        ]) + "\n",
        encoding="utf-8",
    )
    rc, out, err = await mediadesk_async("run", str(batch), "--config", str(cfg), "--db", str(tmp_path / "t.db"))
    assert rc == 3, (out, err)  # all submitted tasks succeeded, some rows rejected
    for line in (2, 3, 4, 5, 6):
        assert f"b.jsonl:{line}:" in err
    assert "Traceback" not in err
    assert len(err) < 20_000  # the 10 MB prompt is not echoed
    assert db_states(tmp_path / "t.db") == {"a": "success", "f": "success"}


async def test_rerun_resumes_without_duplicates_and_export(tmp_path: Path, sim: ApiSimServer) -> None:
    cfg = write_config(tmp_path, sim.base_url)
    batch = tmp_path / "b.csv"
    batch.write_text("profile,prompt\n" + "".join(f"writer,prompt {i}\n" for i in range(10)), encoding="utf-8")
    db = tmp_path / "t.db"
    rc, out, _ = await mediadesk_async("run", str(batch), "--config", str(cfg), "--db", str(db))
    assert rc == 0 and "10 new" in out
    rc, out, _ = await mediadesk_async("run", str(batch), "--config", str(cfg), "--db", str(db))
    assert rc == 0 and "0 new, 10 already" in out
    assert sum(v["requests"] for v in sim.stats()["per_task"].values()) == 10  # nothing re-run
    rc, out, _ = await mediadesk_async("export", "--db", str(db), "--format", "jsonl")
    rows = [json.loads(x) for x in out.splitlines()]
    assert len(rows) == 10 and all(r["state"] == "success" and r["result"] for r in rows)
    rc, out, _ = await mediadesk_async("export", "--db", str(db), "--format", "csv")
    assert out.splitlines()[0].startswith("\ufefftask_id,state") and len(out.splitlines()) == 11  # Excel's BOM


async def test_failed_task_gives_exit_1(tmp_path: Path, sim: ApiSimServer) -> None:
    cfg = write_config(tmp_path, sim.base_url)
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps({"profile": "writer", "prompt": "x [[sim:400]]"}) + "\n", encoding="utf-8")
    rc, out, _ = await mediadesk_async("run", str(batch), "--config", str(cfg), "--db", str(tmp_path / "t.db"))
    assert rc == 1
    assert "bad_request" in out


async def test_bad_config_names_file_and_key(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text('[[profiles]]\nname = "w"\nkind = "api"\nbase_url = "http://127.0.0.1:1"\nmodel = "m"\n'
                   "concurrency = 9\n", encoding="utf-8")
    batch = tmp_path / "b.jsonl"
    batch.write_text("", encoding="utf-8")
    rc, _, err = await mediadesk_async("run", str(batch), "--config", str(cfg))
    assert rc == 2
    assert f"{cfg}: profiles[0] (w).concurrency:" in err
    assert "Traceback" not in err


async def test_second_run_on_same_db_is_refused(tmp_path: Path, sim: ApiSimServer) -> None:
    cfg = write_config(tmp_path, sim.base_url)
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps({"profile": "writer", "prompt": "slow [[sim:sleep=20]]"}) + "\n", encoding="utf-8")
    db = tmp_path / "t.db"
    first = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mediadesk", "run", str(batch), "--config", str(cfg), "--db", str(db),
        "--quiet", stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL, cwd=ROOT,
    )
    try:
        for _ in range(400):
            if db.exists() and "running" in db_states(db).values():
                break
            await asyncio.sleep(0.05)
        rc, _, err = await mediadesk_async("run", str(batch), "--config", str(cfg), "--db", str(db))
        assert rc == 2
        assert "in use by MediaDesk process" in err and str(first.pid) in err
        # cross-process cancel through the database flag
        rc, out, _ = await mediadesk_async("cancel", "--db", str(db), *db_states(db).keys())
        assert "cancel requested" in out
        assert await asyncio.wait_for(first.wait(), 30) == 1
        assert set(db_states(db).values()) == {"canceled"}
    finally:
        if first.returncode is None:
            first.kill()
            await first.wait()


async def test_second_run_on_same_data_dir_with_another_db_is_refused(tmp_path: Path, sim: ApiSimServer) -> None:
    """Another --db does not make a second MediaDesk safe: the browser profiles of the data dir are shared."""
    from mediadesk.providers.web import InstanceLock

    cfg = write_config(tmp_path, sim.base_url)
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps({"profile": "writer", "prompt": "x"}) + "\n", encoding="utf-8")
    with InstanceLock((tmp_path / "data").resolve()):  # this test process is the other MediaDesk
        rc, _, err = await mediadesk_async("run", str(batch), "--config", str(cfg), "--db", str(tmp_path / "other.db"))
    assert rc == 2, err
    assert f"pid {os.getpid()}" in err and "browser profiles" in err and "--data-dir" in err
    assert "Traceback" not in err
    assert not (tmp_path / "other.db").exists()  # refused before any work


async def test_a_planted_symlink_at_the_database_lock_is_refused(tmp_path: Path, sim: ApiSimServer) -> None:
    cfg = write_config(tmp_path, sim.base_url)
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps({"profile": "writer", "prompt": "x"}) + "\n", encoding="utf-8")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    db = tmp_path / "t.db"
    (tmp_path / "t.db.lock").symlink_to(victim)
    rc, _, err = await mediadesk_async("run", str(batch), "--config", str(cfg), "--db", str(db))
    assert rc == 2, err
    assert f"{db}.lock is a symbolic link" in err and "Traceback" not in err
    assert victim.read_text(encoding="utf-8") == "precious\n"


async def test_sigkill_mid_batch_then_rerun_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    async with ApiSimServer(ApiSimConfig(latency=(0.1, 0.4), quota=3, seed=9)) as sim:
        cfg = write_config(tmp_path, sim.base_url)
        batch = tmp_path / "b.jsonl"
        n = 24  # the kill comes after 8: 16 left for the rerun
        batch.write_text("".join(json.dumps({"id": f"t{i}", "profile": "writer", "prompt": f"q{i}"}) + "\n"
                                 for i in range(n)), encoding="utf-8")
        db = tmp_path / "t.db"
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "mediadesk", "run", str(batch), "--config", str(cfg), "--db", str(db), "--quiet",
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL, cwd=ROOT,
        )
        try:
            for _ in range(1200):
                if db.exists():
                    st = db_states(db)
                    if list(st.values()).count("success") >= 8 and "running" in st.values():
                        break
                await asyncio.sleep(0.02)
            done_before = {t for t, s in db_states(db).items() if s == "success"}
            proc.send_signal(signal.SIGKILL)
            await proc.wait()
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        mid = db_states(db)
        assert "running" in mid.values() and len(done_before) >= 8  # really killed mid-batch
        results_before = _results(db)
        rc, out, err = await mediadesk_async("run", str(batch), "--config", str(cfg), "--db", str(db))
        assert rc == 0, (out, err)
        final = db_states(db)
        per_task = sim.stats()["per_task"]
    assert len(final) == n and set(final.values()) == {"success"}  # nothing lost, one row per task
    results_after = _results(db)
    for tid in done_before:  # finished work is never redone nor rewritten
        assert per_task[tid]["requests"] == 1
        assert results_after[tid] == results_before[tid]
    for tid, res in results_after.items():
        assert res == per_task[tid]["last_answer"]


def _results(db: Path) -> dict[str, str]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {t: r for t, r in con.execute("SELECT task_id, result FROM task WHERE state='success'")}
    finally:
        con.close()


@pytest.mark.browser
async def test_logged_out_web_account_is_reported_and_tasks_stay_pending(tmp_path: Path) -> None:
    from mediadesk.sim.web_server import WebSimConfig, WebSimServer

    async with WebSimServer(WebSimConfig(time_scale=0.005)) as web:
        cfg = tmp_path / "config.toml"
        cfg.write_text(
            f'data_dir = "{tmp_path / "data"}"\n[[profiles]]\nname = "chat"\nkind = "web"\nsite = "simchat"\n'
            f'url = "{web.chat_url}"\n[[accounts]]\nname = "never-logged-in"\nprofile = "chat"\n',
            encoding="utf-8",
        )
        batch = tmp_path / "b.jsonl"
        batch.write_text(json.dumps({"id": "w1", "profile": "chat", "prompt": "hello"}) + "\n", encoding="utf-8")
        rc, out, err = await mediadesk_async("run", str(batch), "--config", str(cfg), limit_s=120)
        assert web.stats()["generations_started"] == 0
    assert rc == 1, (out, err)
    assert "no account can take the tasks of profile(s) chat" in err and "mediadesk login" in err
    assert db_states(tmp_path / "data" / "mediadesk.db") == {"w1": "pending"}


async def test_sigterm_stops_gracefully_and_the_next_run_resumes(tmp_path: Path, sim: ApiSimServer) -> None:
    cfg = write_config(tmp_path, sim.base_url)
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps({"id": "slow", "profile": "writer", "prompt": "x [[sim:sleep=20]]"}) + "\n",
                     encoding="utf-8")
    db = tmp_path / "t.db"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mediadesk", "run", str(batch), "--config", str(cfg), "--db", str(db), "--quiet",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT,
    )
    try:
        for _ in range(600):
            if db.exists() and db_states(db).get("slow") == "running":
                break
            await asyncio.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(proc.communicate(), 30)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode == 130, err.decode()
    assert "interrupted" in err.decode()
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    state, attempt = con.execute("SELECT state, attempt FROM task WHERE task_id='slow'").fetchone()
    con.close()
    assert (state, attempt) == ("pending", 0)  # back in the queue, the interrupted attempt refunded
