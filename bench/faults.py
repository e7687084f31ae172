"""Fault figures for the README's reliability section, each from real processes and real files.

(a) SIGKILL: a 200-task batch run by ``mediadesk run`` in a child process, killed with SIGKILL at
    random moments N times, then run to the end. Reported: tasks lost (not ``success`` at the end),
    duplicated (more than one row for an id, or a stored success rewritten by a later run), and the
    work redone (requests beyond one per task: the attempts that were running at each kill).

    python -m bench faults [--tasks 200] [--kills 10] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from bench.common import ROOT, sim_process, table

Section = Callable[[argparse.Namespace, Path], list[tuple[str, ...]]]


def _config(tmp: Path, base_url: str, extra: str = "") -> Path:
    cfg = tmp / "config.toml"
    cfg.write_text(
        f'data_dir = "{tmp / "data"}"\n'
        "[retry]\nmax_retries = 2\nbackoff_base_s = 0.05\nbackoff_max_s = 0.5\n"
        "[heartbeat]\ninterval_s = 0.5\nstale_after_s = 3\n"
        f'[[profiles]]\nname = "writer"\nkind = "api"\nbase_url = "{base_url}"\nmodel = "m"\n'
        f"concurrency = 3\nstream = true\n{extra}",
        encoding="utf-8",
    )
    return cfg


def _batch(tmp: Path, n: int, prompt: str = "bench prompt {i}") -> Path:
    path = tmp / "batch.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(json.dumps({"id": f"t{i:04d}", "profile": "writer", "prompt": prompt.format(i=i)}) + "\n")
    return path


def _rows(db: Path) -> list[tuple[str, str, tuple[object, ...]]]:
    """(task id, state, what a stored success is made of: result, finish time, row version)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [(t, s, (r, f, v)) for t, s, r, f, v in
                con.execute("SELECT task_id, state, result, finished_at, version FROM task")]
    finally:
        con.close()


def _run_cmd(cfg: Path, batch: Path, db: Path) -> list[str]:
    return [sys.executable, "-m", "mediadesk", "run", str(batch), "--config", str(cfg), "--db", str(db), "--quiet"]


def _stats(base_url: str) -> dict[str, object]:
    root = base_url.split("/v1")[0]
    with urllib.request.urlopen(f"{root}/stats", timeout=10) as resp:
        data: dict[str, object] = json.load(resp)
    return data


def sigkill(args: argparse.Namespace, tmp: Path) -> list[tuple[str, ...]]:
    rng = random.Random(args.seed)
    with sim_process("api", "--latency", "0.05,0.3") as url:
        cfg = _config(tmp, url)
        batch = _batch(tmp, args.tasks)
        db = tmp / "kill.db"
        first_success: dict[str, tuple[object, ...]] = {}
        rewritten: set[str] = set()

        def check() -> None:  # a success once stored is never written again
            for t, s, rec in _rows(db):
                if s == "success" and first_success.setdefault(t, rec) != rec:
                    rewritten.add(t)

        kills = 0
        t0 = time.monotonic()
        for _ in range(args.kills):
            proc = subprocess.Popen(_run_cmd(cfg, batch, db), cwd=ROOT, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(1.0, 3.0))  # python start-up is ~1 s: kill in the middle of the work
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                kills += 1
                if db.exists():
                    check()
            else:
                break  # the batch finished before this kill
        final = subprocess.run(_run_cmd(cfg, batch, db), cwd=ROOT, capture_output=True, text=True, timeout=600)
        elapsed = time.monotonic() - t0
        check()
        rows = _rows(db)
        stats = _stats(url)
    ids = [t for t, _, _ in rows]
    lost = args.tasks - sum(1 for _, s, _ in rows if s == "success")
    duplicated = (len(ids) - len(set(ids))) + len(rewritten)
    total = stats.get("chat_requests_total")
    requests = total if isinstance(total, int) else 0
    return [
        ("SIGKILL", "kills", "tasks", "lost", "duplicated", "requests/task", "final exit", "seconds"),
        ("", str(kills), str(args.tasks), str(lost), str(duplicated),
         f"{requests / args.tasks:.2f}" if requests else "n/a", str(final.returncode), f"{elapsed:.1f}"),
    ]


SECTIONS: dict[str, Section] = {"sigkill": sigkill}


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser(prog="python -m bench faults")
    p.add_argument("--tasks", type=int, default=200)
    p.add_argument("--kills", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--only", choices=sorted(SECTIONS), action="append")
    args = p.parse_args(argv)
    for name in args.only or list(SECTIONS):
        with tempfile.TemporaryDirectory(prefix=f"mdbench-{name}-") as d:
            os.chmod(d, 0o700)
            print(table(SECTIONS[name](args, Path(d))), flush=True)
            print()


if __name__ == "__main__":
    main(sys.argv[1:])
