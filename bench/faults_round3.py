"""Round-3 fault cases for ``bench faults`` (issue 19): signals mid-run, hostile text, a rejected API
key, a desktop whose clock runs 30 s ahead and a desktop frozen past its lease (team mode).

Each case runs real ``mediadesk run`` processes against the simulators on 127.0.0.1, through the
machinery of the tests that reproduce it (``tests/cli/test_signals.py``, ``tests/faults/
test_hostile_text.py``, ``tests/faults/test_team_skew.py``, ``tests/faults/test_team_freeze.py``),
so the bench and the tests cannot drift apart. One row per case:

- double generations: a task generated twice (two requests in flight for one task at once, a web
  session running two generations, requests beyond one per task in team mode);
- over-quota: requests in flight beyond the endpoint's concurrency;
- tracebacks: ``Traceback`` in the processes' output;
- silent waits: a run that had not ended within its bound, or that waited without saying for what;
- charged attempts: attempts counted beyond one per finished task (an interrupted or refused attempt,
  or one run twice, must cost nothing);
- notes: the case's own figure (exit code, summary = database, raw control characters printed...).

The team cases need a PostgreSQL server (tests/pgserver.py) and, for the frozen desktop, Chromium;
without them the row says skipped.

    python -m bench faults --only round3 [--round3 signals,hostile,key,skew,freeze]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bench.common import ROOT

HEAD = ("case", "double generations", "over-quota", "tracebacks", "silent waits", "charged attempts", "notes")
Row = tuple[str, ...]
CASES = ("signals", "hostile", "key", "skew", "freeze")
#: The longest a case's run may take before it counts as a silent wait (it is then killed).
RUN_LIMIT_S = 120.0


def _row(case: str, double: int, over: int, tracebacks: int, silent: int, charged: int, notes: str) -> Row:
    return (case, str(double), str(over), str(tracebacks), str(silent), str(charged), notes)


def _sqlite_rows(db: Path) -> list[tuple[str, str, int]]:
    from tests.cli.test_signals import db_rows

    return db_rows(db)


def _charged(rows: list[tuple[str, str, int]]) -> int:
    """Attempts counted beyond one per finished task (an unfinished task should have none counted)."""
    return sum(a for _, _, a in rows) - sum(1 for _, s, _ in rows if s in ("success", "failed"))


def _double(stats: dict[str, Any]) -> int:
    return sum(max(0, int(t.get("max_in_flight", 0)) - 1) for t in stats.get("per_task", {}).values())


async def _communicate(proc: asyncio.subprocess.Process) -> tuple[str, int]:
    """(stdout + stderr, 1 if it had to be killed: a silent wait) within RUN_LIMIT_S."""
    try:
        out, err = await asyncio.wait_for(proc.communicate(), RUN_LIMIT_S)
    except TimeoutError:
        proc.kill()
        out, err = await proc.communicate()
        return out.decode(errors="replace") + err.decode(errors="replace"), 1
    return out.decode(errors="replace") + err.decode(errors="replace"), 0


# ------------------------------------------------------------------------------------------ signals
async def _signal_case(tmp: Path, sig: signal.Signals, when: str) -> Row:
    """SIG to ``mediadesk run`` while it imports, just before the batch is stored, or while attempts run."""
    import re

    from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
    from tests.cli.test_signals import HOOKED, start
    from tests.support import until

    api = ApiSimServer(ApiSimConfig(latency=(1.5, 2.5) if when == "running" else (0.01, 0.02), seed=1))
    await api.start()
    db = tmp / "data" / "mediadesk.db"
    try:
        prefix = ["-m", "mediadesk"] if when == "running" else ["-c", HOOKED, str(int(sig)), when]
        proc, summary = await start(tmp, api, prefix)
        if when == "running":
            await until(lambda: sum(s == "running" for _, s, _ in _sqlite_rows(db)) >= 3, "attempts under way",
                        limit_s=RUN_LIMIT_S, step_s=0.05)
            proc.send_signal(sig)
        text, silent = await _communicate(proc)
        stats = api.stats()
    finally:
        await api.stop()
    rows = _sqlite_rows(db)
    counts: dict[str, int] = {}
    for _, state, _ in rows:
        counts[state] = counts.get(state, 0) + 1
    doc = json.loads(summary.read_text(encoding="utf-8")) if summary.exists() else None
    line = next((ln for ln in text.splitlines() if ln.startswith("summary:")), "")
    said = {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", line.split("(database")[0])} if line else counts
    agrees = (doc is None and not rows) or (doc is not None and doc.get("counts") == counts and said == counts)
    charged = sum(a for _, s, a in rows if s != "success")  # an interrupted attempt must cost nothing
    notes = f"exit {proc.returncode}, summary {'=' if agrees else '!='} database"
    return _row(f"{sig.name} while {when}", _double(stats), max(0, stats["max_concurrent"] - 3),
                text.count("Traceback"), silent, charged, notes)


async def signals(tmp: Path) -> list[Row]:
    """Each signal while attempts run, and two early moments (while importing, before the batch is
    stored); tests/cli/test_signals.py runs every signal at every moment."""
    rows = []
    cases = [(signal.SIGINT, "running"), (signal.SIGTERM, "running"), (signal.SIGHUP, "running"),
             (signal.SIGINT, "import"), (signal.SIGTERM, "submit")]
    for sig, when in cases:
        sub = tmp / f"{sig.name}-{when}"
        sub.mkdir()
        rows.append(await _signal_case(sub, sig, when))
    return rows


# ------------------------------------------------------------------------------------------ hostile text
async def hostile(tmp: Path) -> list[Row]:
    """An HTTP 400 whose text holds ESC/BEL/C1/RLO, an answer holding them, a profile name holding
    them: the run, its summary, ``export`` md/csv/jsonl on stdout, ``exceptions list``, the config
    error. Counted: raw control characters printed."""
    from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
    from tests.faults.test_hostile_text import RAW_CONTROLS, mediadesk, write_batch, write_config

    async with ApiSimServer(ApiSimConfig(chunks=2)) as sim:
        cfg = write_config(tmp, sim)
        batch = write_batch(tmp, [("bad", "[[sim:html_400]]"), ("ctl", "[[sim:controls]]")])
        db = tmp / "t.db"
        outputs = [await mediadesk("run", batch, "--config", cfg, "--db", db)]
        for fmt in ("md", "csv", "jsonl"):
            outputs.append(await mediadesk("export", "--db", db, "--format", fmt))
        outputs.append(await mediadesk("exceptions", "list", "--db", db, "--all"))
        evil = tmp / "evil"
        evil.mkdir()
        bad_cfg = write_config(evil, sim, extra='[[accounts]]\nname = "a"\nprofile = "w\\u001b]0;pwned\\u0007"\n')
        outputs.append(await mediadesk("run", batch, "--config", bad_cfg, "--db", evil / "t.db"))
        rows = _sqlite_rows(db)
    text = "".join(out + err for _rc, out, err in outputs)
    raw = sum(text.count(c) for c in RAW_CONTROLS) + text.replace("\r\n", "").count("\r")
    return [_row("hostile text", 0, 0, text.count("Traceback"), 0, _charged(rows),
                 f"raw control characters printed: {raw} (run, summary, export md/csv/jsonl, exceptions, config "
                 "error)")]


# ------------------------------------------------------------------------------------------ a rejected key
async def key(tmp: Path) -> list[Row]:
    """15 tasks with a wrong key against a server that checks keys on completions only; then the key
    fixed and the run started again."""
    from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
    from tests.faults.test_endpoint_waits import write_files
    from tests.support import mediadesk_async

    n, right = 15, "sk-bench-right"
    async with ApiSimServer(ApiSimConfig(api_key=right, latency=(0.02, 0.05), seed=5)) as sim:
        cfg, batch = write_files(tmp, sim.base_url, n=n, profile='api_key_env = "MD_BENCH_KEY"\nconcurrency = 3\n')
        db = tmp / "k.db"
        run = ("run", batch, "--config", cfg, "--db", db)
        t0 = time.monotonic()
        try:
            wrong = await mediadesk_async(*run, env={"MD_BENCH_KEY": "sk-bench-wrong"}, limit_s=RUN_LIMIT_S)
        except AssertionError:  # it did not end: waited without an end
            return [_row("key rejected", 0, 0, 0, 1, -1, "the run did not end")]
        took = time.monotonic() - t0
        stopped = _sqlite_rows(db)
        listed = await mediadesk_async("exceptions", "list", "--db", db, "--config", cfg)
        fixed = await mediadesk_async(*run, env={"MD_BENCH_KEY": right}, limit_s=RUN_LIMIT_S)
        stats = sim.stats()
        final = _sqlite_rows(db)
    told = "stopped: key rejected (HTTP 401)" in wrong.err and "set the right key in" in wrong.err
    first = sum(1 for _, s, a in final if s == "success" and a == 1)
    notes = (f"exit {wrong.rc} in {took:.1f} s, {sum(s == 'failed' for _, s, _ in stopped)} failed, "
             f"{sum(s == 'pending' for _, s, _ in stopped)} pending; listed: "
             f"{'yes' if 'stopped: key rejected' in listed.out else 'no'}; key fixed: {first}/{n} success "
             f"on attempt 1; GET /models asked {stats['models_requests']}")
    text = wrong.out + wrong.err + listed.out + listed.err + fixed.out + fixed.err
    return [_row("key rejected", _double(stats), max(0, stats["max_concurrent"] - 3), text.count("Traceback"),
                 0 if told else 1, sum(a for _, _, a in stopped), notes)]


# ------------------------------------------------------------------------------------------ team mode
def _pg() -> Any:
    from tests.pgserver import PgServer, PgUnavailable

    try:
        return PgServer.start()
    except PgUnavailable as exc:
        return str(exc)


async def skew(tmp: Path, pg: Any) -> list[Row]:
    from tests.faults.test_team_sigkill import ENDPOINT_CONCURRENCY
    from tests.faults.test_team_skew import SKEW_S, skewed_run

    run = await skewed_run(tmp, pg.new_database("skew"))
    said = "clock" in run.outs[0] and "database" in run.outs[0]
    notes = (f"2 desktops, one {SKEW_S:.0f} s ahead: {run.requests} requests for {run.n} tasks, "
             f"{run.heartbeat_timeouts} heartbeat timeouts, exits {run.rcs}, skew said: {'yes' if said else 'no'}")
    return [_row("clock skew (team)", max(0, run.requests - run.n) + max(0, run.max_success_writes - 1),
                 max(0, run.max_concurrent - ENDPOINT_CONCURRENCY),
                 sum(o.count("Traceback") for o in run.outs), 0, run.attempts - len(run.final), notes)]


async def freeze(tmp: Path, pg: Any) -> list[Row]:
    from mediadesk.providers.web import BrowserNotFoundError, find_browser
    from tests.faults.test_team_freeze import frozen_run
    from tests.faults.test_team_sigkill import ENDPOINT_CONCURRENCY

    try:
        find_browser(None)
    except BrowserNotFoundError as exc:
        return [_row("frozen desktop (team)", 0, 0, 0, 0, 0, f"skipped: {exc}")]
    run = await frozen_run(tmp, pg.new_database("freeze"))
    done = sum(1 for s, _ in run.final.values() if s == "success")
    notes = (f"2 desktops, the account's frozen (SIGSTOP) 3x its lease: {done}/{run.n} success, max "
             f"{run.max_per_session} generation per session, max {run.max_in_flight} in flight, exits {run.rcs}")
    return [_row("frozen desktop (team)", run.double_generations + max(0, run.max_success_writes - 1),
                 max(0, run.max_in_flight - ENDPOINT_CONCURRENCY), sum(e.count("Traceback") for e in run.errs),
                 0, run.attempts - len(run.final), notes)]


# ------------------------------------------------------------------------------------------ entry
async def _all(tmp: Path, cases: list[str]) -> list[Row]:
    rows: list[Row] = [HEAD]
    local: dict[str, Callable[[Path], Awaitable[list[Row]]]] = {"signals": signals, "hostile": hostile, "key": key}
    for name in (c for c in cases if c in local):
        sub = tmp / name
        sub.mkdir()
        t0 = time.monotonic()
        rows += await local[name](sub)
        print(f"  [{name}: {time.monotonic() - t0:.0f} s]", file=sys.stderr, flush=True)
    team = [c for c in cases if c in ("skew", "freeze")]
    if team:
        pg = _pg()
        if isinstance(pg, str):
            return rows + [_row(f"{c} (team)", 0, 0, 0, 0, 0, f"skipped: no PostgreSQL ({pg})") for c in team]
        try:
            for name, case in (("skew", skew), ("freeze", freeze)):
                if name in team:
                    sub = tmp / name
                    sub.mkdir()
                    t0 = time.monotonic()
                    rows += await case(sub, pg)
                    print(f"  [{name}: {time.monotonic() - t0:.0f} s]", file=sys.stderr, flush=True)
        finally:
            pg.stop()
    return rows


def round3(args: argparse.Namespace, tmp: Path) -> list[Row]:
    # The simulators run in this process: a client interrupted mid-answer (the signal cases) makes
    # aiohttp log the closed connection with a traceback of its own; that is the simulator's side,
    # not MediaDesk's output (whose tracebacks are counted).
    logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # the tests' machinery (tests/...) is imported from the checkout
    cases = [c.strip() for c in (getattr(args, "round3", None) or ",".join(CASES)).split(",") if c.strip()]
    unknown = sorted(set(cases) - set(CASES))
    if unknown:
        raise SystemExit(f"unknown round-3 case(s) {', '.join(unknown)}; choose from {', '.join(CASES)}")
    return asyncio.run(_all(tmp, cases))


__all__ = ["CASES", "HEAD", "round3"]
