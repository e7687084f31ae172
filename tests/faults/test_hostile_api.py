"""The API lane against hostile servers (issue 9, items 13-16): answers that never end or are
huge, streams cut without an end marker, finish_reason "length", long steady streams, and a config
whose key variables are unset. Real simulator on 127.0.0.1, real scheduler and SQLite files, and
real ``mediadesk run`` processes where memory or exit codes are the point."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer, answer_for
from mediadesk.store.export import export_tasks
from tests.support import log_messages, make_config, skip_unless, tasks_of

ROOT = Path(__file__).resolve().parents[2]
#: A profile name for each way an answer comes: streamed (SSE) or plain (one JSON body).
STREAMED = {"streamed": True, "plain": False}
#: Peak resident memory allowed to a ``mediadesk run`` that meets an endless answer.
RSS_LIMIT_MB = 200

# Runs a command and prints its exit code and peak RSS: RUSAGE_CHILDREN of a process whose only
# child is the command is exactly that child's high-water mark (no sampling, nothing missed).
_MEASURE = (
    "import json, resource, subprocess, sys\n"
    "rc = subprocess.call(sys.argv[1:])\n"
    "print(json.dumps({'rc': rc, 'maxrss_kb': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))\n"
)


def api_profile(name: str, sim: ApiSimServer, **kw: object) -> dict[str, Any]:
    return {"name": name, "kind": "api", "base_url": sim.base_url, "model": "m", **kw}


async def run_items(s: Scheduler, items: list[tuple[str, str, str]], limit_s: float = 60) -> None:
    s.intake.submit([s.intake.new_task(tid, prof, prompt) for tid, prof, prompt in items])
    await asyncio.wait_for(s.wait_idle(), limit_s)


@pytest.fixture
async def sim() -> Any:
    async with ApiSimServer(ApiSimConfig(chunks=4)) as server:
        yield server


def write_config(tmp: Path, body: str) -> Path:
    cfg = tmp / "config.toml"
    cfg.write_text(
        f'data_dir = "{tmp / "data"}"\n[retry]\nmax_retries = 0\n[heartbeat]\ninterval_s = 0.2\n'
        f"stale_after_s = 30\n{body}",
        encoding="utf-8",
    )
    return cfg


async def measured_run(tmp: Path, cfg: Path, batch: Path, env: dict[str, str] | None = None,
                       limit_s: float = 120) -> tuple[int, int, str, str]:
    """``mediadesk run`` in a child process: (exit code, peak RSS in MB, stdout, stderr)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _MEASURE, sys.executable, "-m", "mediadesk", "run", str(batch), "--config", str(cfg),
        "--db", str(tmp / "t.db"), "--quiet",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
    )
    out_b, err_b = await asyncio.wait_for(proc.communicate(), limit_s)
    out, err = out_b.decode(), err_b.decode()
    assert proc.returncode == 0, err
    measured = json.loads(out.strip().splitlines()[-1])
    return measured["rc"], measured["maxrss_kb"] // 1024, out, err


# ------------------------------------------------------------------------ 13: size cap
@skip_unless(sys.platform != "win32", "peak RSS is read with resource.getrusage (POSIX only)")
async def test_endless_answer_fails_too_large_with_bounded_memory(tmp_path: Path) -> None:
    """Before: the endless answer was read into memory until the lane's deadline (timeout_s + 5 s)
    ended it as a timeout, with hundreds of MB resident. One run, both ways at once: a streamed and a
    plain endless answer (the peak RSS bounds both together)."""
    async with ApiSimServer(ApiSimConfig(hostile="endless")) as sim:
        profiles = "".join(
            f'[[profiles]]\nname = "{name}"\nkind = "api"\nbase_url = "{sim.base_url}"\n'
            f'model = "m"\nstream = {str(stream).lower()}\ntimeout_s = 1\n'
            for name, stream in STREAMED.items())
        cfg = write_config(tmp_path, profiles)
        batch = tmp_path / "b.jsonl"
        batch.write_text("".join(json.dumps({"id": name, "profile": name, "prompt": "go on forever"}) + "\n"
                                 for name in STREAMED), encoding="utf-8")
        rc, peak_mb, out, err = await measured_run(tmp_path, cfg, batch)
        stats = sim.stats()
    assert rc == 1, (out, err)
    assert "answer_too_large" in out, out
    assert peak_mb < RSS_LIMIT_MB, f"peak RSS {peak_mb} MB"
    assert stats["hostile_answers"] == {"endless": 2}  # one attempt each: not retried
    assert stats["hostile_closed_by_client"] == 2  # we stopped reading and closed the connections
    ws = Workspace.resolve(data_dir=tmp_path / "data", db_path=tmp_path / "t.db")
    tasks = tasks_of(ws)
    for name in STREAMED:
        t = tasks[name]
        assert (t.state, t.error_kind, t.result, t.attempt) == ("failed", "answer_too_large", None, 1), name
        assert "max_answer_chars=200000" in (t.error_message or ""), name


@pytest.mark.parametrize("stream", [True, False])
async def test_huge_answer_is_a_failure_not_a_success(workspace: Workspace, sim: ApiSimServer, stream: bool) -> None:
    """Before: a complete 50 MB answer was stored as success."""
    cfg = make_config([api_profile("w", sim, stream=stream)])
    async with Scheduler(cfg, workspace) as s:
        await run_items(s, [("big", "w", "[[sim:huge]]")])
    t = tasks_of(workspace)["big"]
    assert (t.state, t.error_kind, t.result, t.attempt) == ("failed", "answer_too_large", None, 1)
    stats = sim.stats()
    assert stats["hostile_closed_by_client"] == 1  # reading stopped well before the 50 MB were sent
    assert stats["hostile_bytes_sent"] < 20_000_000


async def test_max_answer_chars_is_per_profile(workspace: Workspace, sim: ApiSimServer) -> None:
    cfg = make_config([
        api_profile("roomy", sim, stream=True, max_answer_chars=400_000),
        api_profile("tight", sim, stream=False, max_answer_chars=1_000),
    ])
    async with Scheduler(cfg, workspace) as s:
        await run_items(s, [("r", "roomy", "[[sim:huge=300000]]"), ("t", "tight", "[[sim:huge=1001]]"),
                            ("ok", "tight", "[[sim:huge=1000]]")])
    tasks = tasks_of(workspace)
    assert tasks["r"].state == "success" and len(tasks["r"].result or "") == 300_000
    assert (tasks["t"].state, tasks["t"].error_kind) == ("failed", "answer_too_large")
    assert tasks["ok"].state == "success" and len(tasks["ok"].result or "") == 1_000


# ------------------------------------------------------------------------ 14: truncation
@pytest.mark.parametrize("stream", [True, False])
async def test_cut_answer_is_a_retryable_failure(workspace: Workspace, sim: ApiSimServer, stream: bool) -> None:
    """Before (stream): a stream that ended without [DONE] and without finish_reason was stored as a
    success holding half the answer."""
    cfg = make_config([api_profile("w", sim, stream=stream)])
    async with Scheduler(cfg, workspace) as s:
        await run_items(s, [("cut", "w", "tell me everything [[sim:cut]]")])
    t = tasks_of(workspace)["cut"]
    expected = "truncated_stream" if stream else "server_error"  # a JSON body cut in half is malformed
    assert (t.state, t.error_kind, t.result) == ("failed", expected, None)
    assert t.attempt == 3  # retried: max_retries = 2
    assert sim.stats()["hostile_answers"] == {"cut": 3}


@pytest.mark.parametrize("stream", [True, False])
async def test_finish_reason_length_is_a_success_marked_truncated(
    workspace: Workspace, sim: ApiSimServer, stream: bool
) -> None:
    """Before: such an answer was a plain success; nothing said it was cut at the model's limit."""
    prompt = "a long story [[sim:length]]"
    full = answer_for(prompt)
    cfg = make_config([api_profile("w", sim, stream=stream)])
    async with Scheduler(cfg, workspace) as s:
        await run_items(s, [("len", "w", prompt), ("whole", "w", "short")])
    tasks = tasks_of(workspace)
    t = tasks["len"]
    assert (t.state, t.attempt, t.truncated) == ("success", 1, True)
    assert t.result == full[: len(full) // 2]
    assert any("truncated" in m and "length" in m for m in log_messages(workspace, "len"))
    assert (tasks["whole"].state, tasks["whole"].truncated) == ("success", False)
    for fmt in ("jsonl", "csv"):
        out = _Sink()
        export_tasks(workspace.db_path, out, fmt)
        if fmt == "jsonl":
            rows = {r["task_id"]: r for r in map(json.loads, out.text.splitlines())}
            assert rows["len"]["truncated"] is True and rows["whole"]["truncated"] is False
        else:
            header, *lines = out.text.splitlines()
            col = header.split(",").index("truncated")
            assert {ln.split(",")[0]: ln.split(",")[col] for ln in lines} == {"len": "True", "whole": "False"}


class _Sink:
    def __init__(self) -> None:
        self.text = ""

    def write(self, s: str) -> int:
        self.text += s
        return len(s)


# ------------------------------------------------------------------------ 15: silence vs whole run
async def test_steady_answer_longer_than_timeout_s_succeeds(workspace: Workspace, sim: ApiSimServer) -> None:
    """timeout_s is the longest silence. Before: the lane also ended any attempt at timeout_s + 5 s,
    so an answer streaming steadily for 7 s failed with timeout_s = 1.5 (chunks every 0.1 s: a
    silence limit 15x the gap, so a loaded machine's late chunk is no silence). Both ways at once (a
    profile each): a streamed and a plain answer. The heartbeat is not under test: its staleness is
    one a loaded machine's stall cannot reach (the fast 0.5 s could, over two 7 s attempts)."""
    prompt = "take your time [[sim:steady=7]]"
    cfg = make_config([api_profile(name, sim, stream=stream, timeout_s=1.5) for name, stream in STREAMED.items()],
                      retry={"max_retries": 0}, heartbeat={"interval_s": 0.1, "stale_after_s": 3.0})
    async with Scheduler(cfg, workspace) as s:
        await run_items(s, [(name, name, prompt) for name in STREAMED])
    tasks = tasks_of(workspace)
    for name in STREAMED:
        t = tasks[name]
        assert (t.state, t.attempt, t.result) == ("success", 1, answer_for(prompt)), (name, t.error_message)


@pytest.mark.parametrize("stream", [True, False])
async def test_max_run_s_ends_a_steady_answer(workspace: Workspace, sim: ApiSimServer, stream: bool) -> None:
    cfg = make_config([api_profile("w", sim, stream=stream, timeout_s=5, max_run_s=1)], retry={"max_retries": 0})
    async with Scheduler(cfg, workspace) as s:
        await run_items(s, [("slow", "w", "[[sim:steady=30]]")])
    t = tasks_of(workspace)["slow"]
    assert (t.state, t.error_kind) == ("failed", "timeout")
    assert "max_run_s=1" in (t.error_message or "")
    await asyncio.sleep(0)
    assert sim.stats()["hostile_closed_by_client"] == 1


# ------------------------------------------------------------------------ 16: unset key variables
async def test_unset_key_env_is_reported_once_before_any_task(tmp_path: Path, sim: ApiSimServer) -> None:
    """Before: the run started and every task failed on its own with 'auth'."""
    env_a, env_b = "MD_HOSTILE_TEST_KEY_A", "MD_HOSTILE_TEST_KEY_B"
    os.environ.pop(env_a, None)
    os.environ.pop(env_b, None)
    cfg = write_config(tmp_path, f"""
[[endpoints]]
name = "shared"
base_url = "{sim.base_url}"
api_key_env = "{env_a}"
[[profiles]]
name = "drafts"
kind = "api"
endpoint = "shared"
model = "m"
[[profiles]]
name = "writer"
kind = "api"
endpoint = "shared"
model = "m"
[[profiles]]
name = "spare"
kind = "api"
base_url = "{sim.base_url}"
model = "m"
api_key_env = "{env_b}"
[[profiles]]
name = "local"
kind = "api"
base_url = "{sim.base_url}"
model = "m"
""")
    batch = tmp_path / "b.jsonl"
    rows = [{"profile": p, "prompt": f"q{i}"} for i, p in enumerate(["drafts", "writer", "drafts", "local"])]
    batch.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    rc, _, out, err = await measured_run(tmp_path, cfg, batch)
    assert rc == 2, (out, err)
    assert err.count(env_a) >= 1 and "drafts, writer" in err and f"export {env_a}=" in err
    assert env_b not in err and "spare" not in err  # not in the batch: not reported
    assert "Traceback" not in err
    assert sim.stats()["requests_total"] == 0  # no task was attempted
    assert not (tmp_path / "t.db").exists() or _states(tmp_path / "t.db") in ({}, None)

    # a batch that uses only profiles whose keys are fine runs (the unset ones are not its business)
    batch.write_text(json.dumps({"profile": "local", "prompt": "fine"}) + "\n", encoding="utf-8")
    rc, _, out, err = await measured_run(tmp_path, cfg, batch)
    assert rc == 0, (out, err)

    # set the variable: the first batch runs
    batch.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    rc, _, out, err = await measured_run(tmp_path, cfg, batch, env={env_a: "sk-anything"})
    assert rc == 0, (out, err)


def _states(db: Path) -> dict[str, str] | None:
    import sqlite3

    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return dict(con.execute("SELECT task_id, state FROM task"))
    except sqlite3.OperationalError:
        return None
    finally:
        con.close()


# ------------------------------------------------------------------------ the simulator's controls
async def test_hostile_mode_is_settable_at_run_time_and_by_flags(workspace: Workspace, sim: ApiSimServer) -> None:
    import argparse

    import httpx

    from mediadesk.sim.api_cli import add_arguments, config_from_args

    admin = sim.base_url.removesuffix("/v1") + "/admin/hostile"
    cfg = make_config([api_profile("w", sim, stream=True)])
    async with httpx.AsyncClient(timeout=10) as client, Scheduler(cfg, workspace) as s:
        r = await client.post(admin, json={"mode": "length"})
        assert r.status_code == 200 and r.json()["hostile"]["mode"] == "length"
        await run_items(s, [("a", "w", "first")])
        r = await client.post(admin, json={"mode": None})
        assert r.json()["hostile"] is None
        await run_items(s, [("b", "w", "second")])
        bad = await client.post(admin, json={"mode": "nasty"})
        assert bad.status_code == 400 and "mode must be one of" in bad.json()["error"]["message"]
        typo = await client.post(admin, json={"mode": "huge", "charz": 5})
        assert typo.status_code == 400 and "unknown field" in typo.json()["error"]["message"]
    tasks = tasks_of(workspace)
    assert (tasks["a"].truncated, tasks["b"].truncated) == (True, False)
    assert tasks["b"].result == answer_for("second")

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    conf = config_from_args(parser.parse_args(["--hostile", "huge", "--hostile-chars", "123"]))
    assert (conf.hostile, conf.hostile_chars) == ("huge", 123)
    assert config_from_args(parser.parse_args([])).hostile is None
    with pytest.raises(SystemExit):
        parser.parse_args(["--hostile", "nasty"])
