"""Team mode figures: several scheduler processes on one PostgreSQL database vs one on SQLite.

(a) claim: raw store throughput. N tasks are seeded; P worker processes each open the store and
    claim (batches of 8) and finish tasks as fast as they can until none is left. Reported: claims
    per second over all workers (from the first claim to the last finish), and that every task was
    claimed exactly once.
(b) e2e: end-to-end tasks per second through ``mediadesk run`` processes (each its own data dir,
    as separate desktops would be) against the API simulator with zero latency, four endpoints of
    concurrency 5 (the shared slots of team mode cap all desktops together at 5 per endpoint).
    Reported: tasks/s from the first start to the last finish as stored in the database (process
    start-up excluded), requests per task, the simulator's max in flight per task (1 = no task ran
    twice at once).

Both run SQLite with one process and PostgreSQL with 1, 2 and 4 processes, side by side in one
run (a throw-away PostgreSQL server from tests/pgserver.py).

    python -m bench team [--tasks 4000] [--e2e-tasks 1000] [--only claim|e2e]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench.common import ROOT, sim_process, table

PROFILES = ("p0", "p1", "p2", "p3")


def _seed(location: str, n: int, profiles: tuple[str, ...] = ("p0",)) -> None:
    from mediadesk.store import NewTask, open_store

    store = open_store(location)
    try:
        for start in range(0, n, 1000):
            store.add_tasks([NewTask(f"t{i:06d}", profiles[i % len(profiles)], "api", f"prompt {i}")
                             for i in range(start, min(n, start + 1000))])
    finally:
        store.close()


def _claim_worker(location: str, wid: int, start: Any, out: Any) -> None:
    from mediadesk.core.states import TaskState
    from mediadesk.store import open_store

    store = open_store(location)
    start.wait()
    first = last = time.time()
    done: list[str] = []
    while True:
        got = store.claim(["p0"], 8, lane="bench", account=None, owner=f"w{wid}")
        if not got:
            if not store.has_pending(["p0"]):
                break
            continue
        for rec in got:
            store.finish(rec, TaskState.SUCCESS, result="ok")
            done.append(rec.task_id)
        last = time.time()
    store.close()
    out.put((wid, first, last, done))


def claim_rate(location: str, procs: int, n: int) -> tuple[float, int, int]:
    """(claims per second, tasks done, tasks done more than once)."""
    _seed(location, n)
    ctx = mp.get_context("spawn")
    start = ctx.Event()
    out = ctx.Queue()
    workers = [ctx.Process(target=_claim_worker, args=(location, i, start, out)) for i in range(procs)]
    for w in workers:
        w.start()
    time.sleep(1.0)  # every worker has opened its store (imports done) before the start
    start.set()
    results = [out.get(timeout=600) for _ in workers]
    for w in workers:
        w.join(60)
    t0 = min(r[1] for r in results)
    t1 = max(r[2] for r in results)
    ids = [t for r in results for t in r[3]]
    return len(ids) / max(t1 - t0, 1e-9), len(set(ids)), len(ids) - len(set(ids))


def _e2e_config(tmp: Path, i: int, base_url: str) -> Path:
    lines = [f'data_dir = "{tmp / f"desk{i}"}"',
             "[retry]\nmax_retries = 2\nbackoff_base_s = 0.05\nbackoff_max_s = 0.5",
             "[heartbeat]\ninterval_s = 1\nstale_after_s = 10",
             "[scheduler]\npoll_interval_s = 0.2"]
    for j, name in enumerate(PROFILES):
        lines.append(f'[[endpoints]]\nname = "ep{j}"\nbase_url = "{base_url}"\nconcurrency = 5\nadaptive = false')
        lines.append(f'[[profiles]]\nname = "{name}"\nkind = "api"\nendpoint = "ep{j}"\nmodel = "m"\nstream = false')
    cfg = tmp / f"config{i}.toml"
    cfg.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return cfg


def _stats(base_url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base_url.split('/v1')[0]}/stats", timeout=10) as resp:
        data: dict[str, Any] = json.load(resp)
    return data


def _reset(base_url: str) -> None:
    req = urllib.request.Request(f"{base_url.split('/v1')[0]}/stats/reset", method="POST", data=b"")
    urllib.request.urlopen(req, timeout=10).close()


def _makespan(location: str) -> tuple[float, int]:
    """(first start to last finish of the successes, how many) as stored."""
    sql = "SELECT min(started_at), max(finished_at), count(*) FROM task WHERE state = 'success'"
    if location.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(location) as conn:
            row = conn.execute(sql).fetchone()
    else:
        import sqlite3

        conn2 = sqlite3.connect(location)
        try:
            row = conn2.execute(sql).fetchone()
        finally:
            conn2.close()
    assert row is not None
    t0, t1, n = row
    return float(t1) - float(t0), int(n)


def e2e_rate(location: str, procs: int, n: int, base_url: str, tmp: Path) -> tuple[float, int, float, int]:
    """(tasks/s, tasks done, requests per task, max in flight of one task)."""
    _reset(base_url)
    batch = tmp / "batch.jsonl"
    with batch.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(json.dumps({"id": f"e{i:05d}", "profile": PROFILES[i % len(PROFILES)], "prompt": f"e2e {i}"})
                     + "\n")
    run = [[sys.executable, "-m", "mediadesk", "run", str(batch), "--config", str(_e2e_config(tmp, i, base_url)),
            "--db", location, "--quiet"] for i in range(procs)]
    ps = [subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for cmd in run]
    for p in ps:
        _, err = p.communicate(timeout=900)
        if p.returncode != 0:
            raise RuntimeError(f"mediadesk run exited {p.returncode}: {err.decode(errors='replace')[-2000:]}")
    span, done = _makespan(location)
    st = _stats(base_url)
    per_task = st["per_task"]
    reqs = sum(t["requests"] for t in per_task.values())
    twice = max((t.get("max_in_flight", 1) for t in per_task.values()), default=0)
    return done / max(span, 1e-9), done, reqs / max(done, 1), twice


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="bench team")
    ap.add_argument("--tasks", type=int, default=4000, help="tasks for the claim throughput part")
    ap.add_argument("--e2e-tasks", type=int, default=1000, help="tasks for the end-to-end part")
    ap.add_argument("--procs", default="1,2,4", help="PostgreSQL process counts")
    ap.add_argument("--only", choices=("claim", "e2e"))
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from tests.pgserver import PgServer

    counts = [int(x) for x in args.procs.split(",")]
    server = PgServer.start()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-team-") as d:
            tmp = Path(d)
            if args.only in (None, "claim"):
                rows = [("store", "processes", "claims/s", "vs SQLite x1", "tasks done", "claimed twice")]
                base, done, dup = claim_rate(str(tmp / "claim.db"), 1, args.tasks)
                rows.append(("SQLite", "1", f"{base:,.0f}", "1.00", f"{done:,}", str(dup)))
                for p in counts:
                    rate, done, dup = claim_rate(server.new_database("claim"), p, args.tasks)
                    rows.append(("PostgreSQL", str(p), f"{rate:,.0f}", f"{rate / base:.2f}", f"{done:,}", str(dup)))
                print(f"(a) claim + finish throughput, {args.tasks:,} tasks, batches of 8", flush=True)
                print(table(rows), flush=True)
            if args.only in (None, "e2e"):
                with sim_process("api") as url:
                    rows = [("store", "processes", "tasks/s", "vs SQLite x1", "tasks done", "requests/task",
                             "max in flight of one task")]
                    sub = tmp / "sqlite"
                    sub.mkdir()
                    base, done, rpt, twice = e2e_rate(str(sub / "e2e.db"), 1, args.e2e_tasks, url, sub)
                    rows.append(("SQLite", "1", f"{base:,.1f}", "1.00", f"{done:,}", f"{rpt:.2f}", str(twice)))
                    for p in counts:
                        sub = tmp / f"pg{p}"
                        sub.mkdir()
                        rate, done, rpt, twice = e2e_rate(server.new_database("e2e"), p, args.e2e_tasks, url, sub)
                        rows.append(("PostgreSQL", str(p), f"{rate:,.1f}", f"{rate / base:.2f}", f"{done:,}",
                                     f"{rpt:.2f}", str(twice)))
                    print(f"(b) end to end through `mediadesk run`, {args.e2e_tasks:,} tasks, zero-latency simulator,"
                          " 4 endpoints x concurrency 5", flush=True)
                    print(table(rows), flush=True)
    finally:
        server.stop()
