"""Fault figures for docs/reliability.md and docs/benchmarks.md, each from real processes and real files.

(a) sigkill: a 200-task batch run by ``mediadesk run`` in a child process, killed with SIGKILL at
    random moments N times, then run to the end. Reported: tasks lost (not ``success`` at the end),
    duplicated (more than one row for an id, or a stored success rewritten by a later run), and the
    work redone (requests beyond one per task: the attempts that were running at each kill).
(b) deleted: the database file is deleted (``rm db db-wal db-shm``) while a run works. Reported: the
    exit code, successes the run reported (``--summary-json`` and its summary line; every one would be
    false: the file is gone) and the seconds from the deletion to the exit.
(c) disk-full: the database lives on a small tmpfs that is filled while the run works (root only).
    Reported: exit code, successes reported vs successes really in the file once space is freed
    (false successes = reported but not stored), integrity of the file.
(d) endless: an API answer that never ends (the simulator's ``endless`` mode). Reported: the task's
    outcome and the peak RSS of the ``mediadesk run`` process (goal < 200 MB), beside a normal run.
(e) round3: signals mid-run, hostile text, a rejected API key, clock skew and a frozen desktop in team
    mode (:mod:`bench.faults_round3`): double generations, over-quota, tracebacks, silent waits and
    charged attempts per case.

    python -m bench faults [--tasks 200] [--kills 10] [--seed 1] [--only sigkill|deleted|disk-full|endless|round3]
        [--round3 signals,hostile,key,skew,freeze]
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
from bench.faults_round3 import CASES, round3

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


def _wait_successes(db: Path, n: int, proc: subprocess.Popen[bytes], limit_s: float = 120) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline and proc.poll() is None:
        if db.exists():
            try:
                if sum(1 for _, s, _ in _rows(db) if s == "success") >= n:
                    return
            except sqlite3.Error:
                pass
        time.sleep(0.05)
    raise RuntimeError(f"the run did not reach {n} successes (exit {proc.poll()})")


def _reported(summary: Path) -> set[str]:
    if not summary.exists():
        return set()
    doc = json.loads(summary.read_text(encoding="utf-8"))
    tasks = doc.get("tasks") or {}
    return {t for t, st in tasks.items() if st == "success"}


def deleted(args: argparse.Namespace, tmp: Path) -> list[tuple[str, ...]]:
    with sim_process("api", "--latency", "0.05,0.3") as url:
        cfg = _config(tmp, url)
        batch = _batch(tmp, 100)
        db, summary = tmp / "gone.db", tmp / "summary.json"
        proc = subprocess.Popen([*_run_cmd(cfg, batch, db), "--summary-json", str(summary)], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _wait_successes(db, 20, proc)
        stored = sum(1 for _, s, _ in _rows(db) if s == "success")
        t0 = time.monotonic()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        out, _ = proc.communicate(timeout=120)
        took = time.monotonic() - t0
    said = "summary: success" in out.decode("utf-8", "replace")
    reported = len(_reported(summary))
    return [
        ("deleted DB", "successes stored before", "exit", "successes reported", "summary line", "s to exit"),
        ("", str(stored), str(proc.returncode), str(reported), "yes" if said else "no", f"{took:.2f}"),
    ]


def _mount_tmpfs(where: Path, size: str) -> str | None:
    """Mount a tmpfs at ``where``; None when done, else why not."""
    if os.geteuid() != 0:
        return "needs root (mount -t tmpfs)"
    where.mkdir(mode=0o700)
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(where)],
                         capture_output=True, text=True, check=False)
    return None if res.returncode == 0 else f"mount failed: {res.stderr.strip()}"


def disk_full(args: argparse.Namespace, tmp: Path) -> list[tuple[str, ...]]:
    head = ("disk full", "exit", "successes reported", "successes stored", "false successes", "integrity")
    disk = tmp / "disk"
    why = _mount_tmpfs(disk, "4m")
    if why is not None:
        return [head, ("skipped: " + why, "", "", "", "", "")]
    try:
        with sim_process("api", "--latency", "0.05,0.3") as url:
            cfg = _config(tmp, url)
            batch = _batch(tmp, 60, prompt="q{i} " + "x" * 8000)  # ~8 KB answers: every success needs pages
            db, summary = disk / "full.db", tmp / "summary.json"
            proc = subprocess.Popen([*_run_cmd(cfg, batch, db), "--summary-json", str(summary)], cwd=ROOT,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _wait_successes(db, 3, proc)
            filler = disk / "filler"
            with filler.open("wb") as fh:
                try:
                    while True:
                        fh.write(b"\0" * 65536)
                        fh.flush()
                except OSError:
                    pass
            proc.wait(timeout=120)
            filler.unlink()
            con = sqlite3.connect(db)
            try:
                integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
            finally:
                con.close()
            on_disk = {t for t, s, _ in _rows(db) if s == "success"}
            reported = _reported(summary)
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)
    return [head, ("", str(proc.returncode), str(len(reported)), str(len(on_disk)),
                   str(len(reported - on_disk)), str(integrity))]


_PEAK_RSS = (
    "import resource, subprocess, sys\n"
    "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode\n"
    "print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def _peak_run(cmd: list[str]) -> tuple[int, float]:
    """Exit code and peak RSS (MB) of ``cmd``, measured by a parent that has no other child."""
    res = subprocess.run([sys.executable, "-c", _PEAK_RSS, *cmd], cwd=ROOT, capture_output=True, text=True,
                         timeout=300, check=True)
    rc, kb = res.stdout.split()
    return int(rc), int(kb) / 1024


def endless(args: argparse.Namespace, tmp: Path) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = [("answer", "task state", "error kind", "exit", "peak RSS MB")]
    for label, prompt in (("normal", "a normal prompt {i}"), ("endless stream", "{i} [[sim:endless]]")):
        with sim_process("api", "--latency", "0.05,0.1") as url:
            d = tmp / label.replace(" ", "-")
            d.mkdir()
            cfg = _config(d, url)
            db = d / "e.db"
            rc, peak = _peak_run(_run_cmd(cfg, _batch(d, 1, prompt=prompt), db))
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            state, kind = con.execute("SELECT state, error_kind FROM task").fetchone()
        finally:
            con.close()
        rows.append((label, str(state), str(kind or "-"), str(rc), f"{peak:.0f}"))
    return rows


SECTIONS: dict[str, Section] = {"sigkill": sigkill, "deleted": deleted, "disk-full": disk_full, "endless": endless,
                                 "round3": round3}


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser(prog="python -m bench faults")
    p.add_argument("--tasks", type=int, default=200)
    p.add_argument("--kills", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--only", choices=sorted(SECTIONS), action="append")
    p.add_argument("--round3", metavar="CASES",
                   help=f"round3's cases, comma-separated (default all: {','.join(CASES)})")
    args = p.parse_args(argv)
    for name in args.only or list(SECTIONS):
        with tempfile.TemporaryDirectory(prefix=f"mdbench-{name}-") as d:
            os.chmod(d, 0o700)
            print(table(SECTIONS[name](args, Path(d))), flush=True)
            print()


if __name__ == "__main__":
    main(sys.argv[1:])
