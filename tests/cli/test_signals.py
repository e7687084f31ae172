"""Real signals to a real ``mediadesk run`` process at every moment: while it imports, before the
batch is submitted, while attempts run. Each ends with 130 (interrupted), without a traceback,
with nothing charged (no task left running, no attempt
counted for an interrupted run), and with a summary (printed and ``--summary-json``) that says what
the database holds after the lanes have stopped."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sqlite3
import sys
from pathlib import Path

import pytest

from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.faults.test_team_sigkill import ROOT, write_config
from tests.support import until

N = 12

#: Runs ``mediadesk`` with a hook that sends the signal SIG to the process itself at a chosen moment:
#: WHEN = "import" (as mediadesk.scheduler is imported) or "submit" (just before the batch is stored).
HOOKED = """
import os, sys, runpy, importlib.abc
SIG, WHEN = int(sys.argv.pop(1)), sys.argv.pop(1)

class Hook(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "mediadesk.scheduler" and WHEN == "import":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), SIG)
        return None

if WHEN == "import":
    sys.meta_path.insert(0, Hook())
else:
    from mediadesk.scheduler.intake import Intake
    submit = Intake.submit_rows
    def hooked(self, *a, **k):
        os.kill(os.getpid(), SIG)
        return submit(self, *a, **k)
    Intake.submit_rows = hooked
sys.argv = ["mediadesk", *sys.argv[1:]]
runpy.run_module("mediadesk", run_name="__main__", alter_sys=True)
"""


def db_rows(db: Path) -> list[tuple[str, str, int]]:
    if not db.exists():
        return []
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [(r[0], r[1], int(r[2])) for r in con.execute("SELECT task_id, state, attempt FROM task")]
    except sqlite3.OperationalError:
        return []
    finally:
        con.close()


async def start(tmp_path: Path, api: ApiSimServer, prefix: list[str]) -> tuple[asyncio.subprocess.Process, Path]:
    cfg = tmp_path / "c.toml"
    write_config(cfg, tmp_path / "data", api.base_url, None)
    batch = tmp_path / "batch.jsonl"
    batch.write_text("".join(json.dumps({"id": f"t{i:02d}", "profile": "writer", "prompt": f"p {i}"}) + "\n"
                             for i in range(N)), encoding="utf-8")
    summary = tmp_path / "summary.json"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, *prefix, "run", str(batch), "--config", str(cfg), "--quiet", "--summary-json", str(summary),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    return proc, summary


def check_nothing_charged(db: Path) -> dict[str, int]:
    rows = db_rows(db)
    assert all(state != "running" for _, state, _ in rows), rows
    assert all(attempt == 0 for _, state, attempt in rows if state == "pending"), rows
    counts: dict[str, int] = {}
    for _, state, _ in rows:
        counts[state] = counts.get(state, 0) + 1
    return counts


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
async def test_a_signal_while_importing_ends_quietly(tmp_path: Path, sig: signal.Signals) -> None:
    api = ApiSimServer(ApiSimConfig(latency=(0.01, 0.02)))
    await api.start()
    try:
        proc, _ = await start(tmp_path, api, ["-c", HOOKED, str(int(sig)), "import"])
        out, err = await asyncio.wait_for(proc.communicate(), 120)
    finally:
        await api.stop()
    text = out.decode() + err.decode()
    assert (proc.returncode, "Traceback" in text) == (130, False), (proc.returncode, text[-3000:])
    assert db_rows(tmp_path / "data" / "mediadesk.db") == []  # nothing stored, nothing run
    assert api.stats()["requests_total"] == 0


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
async def test_a_signal_before_the_batch_is_submitted_runs_nothing(tmp_path: Path, sig: signal.Signals) -> None:
    api = ApiSimServer(ApiSimConfig(latency=(0.01, 0.02)))
    await api.start()
    try:
        proc, summary = await start(tmp_path, api, ["-c", HOOKED, str(int(sig)), "submit"])
        out, err = await asyncio.wait_for(proc.communicate(), 120)
    finally:
        await api.stop()
    text = out.decode() + err.decode()
    assert (proc.returncode, "Traceback" in text) == (130, False), (proc.returncode, text[-3000:])
    assert api.stats()["requests_total"] == 0
    counts = check_nothing_charged(tmp_path / "data" / "mediadesk.db")
    doc = json.loads(summary.read_text(encoding="utf-8"))  # written, even this early
    assert doc["interrupted"] is True and doc["exit_code"] == 130 and doc["counts"] == counts, doc


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
async def test_a_signal_while_attempts_run_puts_them_back_uncharged(tmp_path: Path, sig: signal.Signals) -> None:
    api = ApiSimServer(ApiSimConfig(latency=(1.5, 2.5), seed=1))
    await api.start()
    db = tmp_path / "data" / "mediadesk.db"
    try:
        proc, summary = await start(tmp_path, api, ["-m", "mediadesk"])
        await until(lambda: sum(s == "running" for _, s, _ in db_rows(db)) >= 3, "attempts under way",
                    limit_s=120, step_s=0.05)
        assert proc.returncode is None, "the run ended before the signal: the test did not test"
        proc.send_signal(sig)
        out, err = await asyncio.wait_for(proc.communicate(), 120)
    finally:
        await api.stop()
    text = out.decode() + err.decode()
    assert (proc.returncode, "Traceback" in text) == (130, False), (proc.returncode, text[-3000:])
    counts = check_nothing_charged(db)
    assert counts.get("pending", 0) > 0, counts
    doc = json.loads(summary.read_text(encoding="utf-8"))
    assert doc["counts"] == counts and doc["interrupted"] is True, (doc, counts)
    line = next(ln for ln in out.decode().splitlines() if ln.startswith("summary:"))
    said = {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", line.split("(database")[0])}
    assert said == counts, (line, counts)  # the summary is what the database holds
