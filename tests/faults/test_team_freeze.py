"""A desktop that is alive but late: two ``mediadesk run`` processes on one PostgreSQL queue share a web
account and an endpoint of concurrency 3; the one running the account is frozen (SIGSTOP) for longer
than its lease while its browser and its requests go on, then resumed (SIGCONT).

The other desktop takes the account and the slots over only once nothing of the frozen one can still
be running (the lease covers the attempt's ``max_run_s``), and the resumed one checks its lease on the
database before it starts anything: no two generations at once on the account, never more than 3
requests in flight, every task ends once."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from mediadesk.sim.web_server import WebSimConfig, WebSimServer
from tests.faults.test_team_sigkill import ENDPOINT_CONCURRENCY, PASSWORD_ENV, ROOT, USER_ENV, rows, success_writes

STALE_S = 2.5
WEB_RUN_S = 4.0  # each web generation (the sim's [[sim:slow=...]] marker, time_scale 1)
API_LATENCY = (2.5, 3.5)


def write_config(path: Path, data_dir: Path, api_url: str, chat_url: str) -> None:
    path.write_text(
        f'data_dir = "{data_dir}"\n'
        "[retry]\nmax_retries = 3\nbackoff_base_s = 0.05\nbackoff_max_s = 0.5\n"
        f"[heartbeat]\ninterval_s = 0.3\nstale_after_s = {STALE_S}\n"
        "[scheduler]\npoll_interval_s = 0.1\nkill_grace_s = 1.0\n"
        f'[[endpoints]]\nname = "ep"\nbase_url = "{api_url}"\nconcurrency = {ENDPOINT_CONCURRENCY}\n'
        "adaptive = false\n"
        '[[profiles]]\nname = "writer"\nkind = "api"\nendpoint = "ep"\nmodel = "m"\nstream = true\n'
        "max_run_s = 8\n"
        f'[[profiles]]\nname = "chat"\nkind = "web"\nsite = "simchat"\nurl = "{chat_url}"\nmax_run_s = 12\n'
        f'[[accounts]]\nname = "acct-a"\nprofile = "chat"\nlogin_user_env = "{USER_ENV}"\n'
        f'login_password_env = "{PASSWORD_ENV}"\n',
        encoding="utf-8")


def lease_holder_pid(pg_url: str) -> int | None:
    with psycopg.connect(pg_url) as conn:
        try:
            row = conn.execute("SELECT owner FROM account_lease WHERE account = 'acct-a'").fetchone()
        except psycopg.errors.UndefinedTable:
            return None
    return None if row is None else int(row[0].split(":")[1])


@dataclass
class FreezeRun:
    """What two desktops did when the one running the account was frozen past its lease (``bench
    faults`` reads it too)."""

    n: int
    rcs: list[int]
    errs: list[str]
    final: dict[str, tuple[str, str | None]]
    attempts: int
    max_success_writes: int
    double_generations: int
    max_per_session: int
    max_in_flight: int


async def frozen_run(tmp_path: Path, pg_url: str, *, n_web: int = 4) -> FreezeRun:
    """``n_web`` generations run one after another on the one account (``WEB_RUN_S`` each): they set the
    run's length. The test takes the fewest that still have the other desktop want the account while
    the frozen one's generation goes on: the one under way (recovered once the frozen desktop looks
    dead) and one more. ``bench faults`` runs the defaults."""
    password = "pw-" + secrets.token_hex(8)
    env = {**os.environ, "PYTHONUNBUFFERED": "1", USER_ENV: "acct-a", PASSWORD_ENV: password}
    api = ApiSimServer(ApiSimConfig(latency=API_LATENCY, seed=5))
    web = WebSimServer(WebSimConfig(time_scale=1.0, answer_tokens=8, password=password, login_redirect=True))
    await api.start()
    await web.start()
    n_api = 12
    batch = tmp_path / "batch.jsonl"
    with batch.open("w", encoding="utf-8") as fh:
        for i in range(n_api):
            fh.write(json.dumps({"id": f"a{i:03d}", "profile": "writer", "prompt": f"api prompt {i}"}) + "\n")
        for i in range(n_web):
            fh.write(json.dumps({"id": f"w{i:03d}", "profile": "chat",
                                 "prompt": f"web prompt {i} [[sim:slow={WEB_RUN_S}]]"}) + "\n")
    procs: list[asyncio.subprocess.Process] = []
    rcs, errs = [], []
    try:
        for d in range(2):
            cfg = tmp_path / f"desk{d}.toml"
            write_config(cfg, tmp_path / f"desk{d}", api.base_url, web.chat_url)
            procs.append(await asyncio.create_subprocess_exec(
                sys.executable, "-m", "mediadesk", "run", str(batch), "--config", str(cfg), "--db", pg_url,
                "--quiet", stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE, cwd=ROOT, env=env))
        # freeze the desktop that runs the account once a generation is under way there
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 120
        frozen = None
        while frozen is None and loop.time() < deadline:
            await asyncio.sleep(0.05)
            if web.stats()["generations_started"] >= 1 and api.stats()["max_concurrent"] >= 1:
                pid = lease_holder_pid(pg_url)
                frozen = next((p for p in procs if p.pid == pid), None)
        assert frozen is not None, "no generation started: the test did not test"
        frozen.send_signal(signal.SIGSTOP)
        try:
            await asyncio.sleep(3 * STALE_S)  # longer than its lease: the other one sees it dead
        finally:
            frozen.send_signal(signal.SIGCONT)
        for p in procs:
            _, err = await asyncio.wait_for(p.communicate(), 300)
            errs.append(err.decode(errors="replace"))
            rcs.append(p.returncode if p.returncode is not None else -1)
        api_stats, web_stats = api.stats(), web.stats()
    finally:
        for p in procs:
            if p.returncode is None:
                p.send_signal(signal.SIGCONT)
                p.kill()
                await p.wait()
        await api.stop()
        await web.stop()
    with psycopg.connect(pg_url) as conn:
        attempts = conn.execute("SELECT coalesce(sum(attempt), 0) FROM task").fetchone()[0]
    return FreezeRun(n_api + n_web, rcs, errs, rows(pg_url), int(attempts),
                     max(success_writes(pg_url).values(), default=0), web_stats["concurrent_violations"],
                     web_stats["max_concurrent_per_session"], api_stats["max_concurrent"])


@pytest.mark.browser
@pytest.mark.timeout(600)  # a 12 s freeze plus two desktops' batches: 130 s on a loaded 2-core machine
async def test_a_frozen_desktop_never_doubles_a_generation_nor_the_quota(tmp_path: Path, pg_url: str) -> None:
    run = await frozen_run(tmp_path, pg_url, n_web=2)
    for d, (rc, text) in enumerate(zip(run.rcs, run.errs, strict=True)):
        assert rc == 0, (d, text[-3000:], {t: s for t, (s, _) in run.final.items() if s != "success"})
        assert "Traceback" not in text, text[-3000:]
    assert len(run.final) == run.n and {s for s, _ in run.final.values()} == {"success"}, run.final
    assert run.max_success_writes <= 1  # every task ended once
    figures = {"double_generations": run.double_generations, "max_per_session": run.max_per_session,
               "max_in_flight": run.max_in_flight}
    assert figures == {"double_generations": 0, "max_per_session": 1, "max_in_flight": ENDPOINT_CONCURRENCY}, figures
