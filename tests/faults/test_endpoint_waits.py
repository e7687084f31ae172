"""Waits that say what they wait for (issue 19, item 15): an API endpoint that can never answer
because of TLS (a self-signed certificate, https spoken to a plain-HTTP port) is stopped and the
operator told, nothing charged and no probe sent; a closed port (the breaker's documented wait) says
in ``mediadesk run``'s output what it waits for and since when. Real servers on 127.0.0.1 (the API
simulator, an aiohttp server with a self-signed certificate made by ``openssl``), real scheduler and
SQLite files, real ``python -m mediadesk run`` processes and a real SIGINT."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import ssl
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.events import Notice
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.support import log_messages, make_config, mediadesk_async, require, tasks_of, until

ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)}


def write_files(tmp: Path, base_url: str, n: int = 3, profile: str = "") -> tuple[Path, Path]:
    """A config with one API profile ``writer`` on ``base_url`` (``profile``: more of its keys, TOML
    lines) and a batch of ``n`` prompts for it."""
    cfg = tmp / "config.toml"
    cfg.write_text(
        f'data_dir = "{tmp / "data"}"\n[retry]\nmax_retries = 2\n[breaker]\nprobe_interval_s = 0.2\n'
        f'[[profiles]]\nname = "writer"\nkind = "api"\nbase_url = "{base_url}"\nmodel = "m"\n'
        f"timeout_s = 5\n{profile}", encoding="utf-8")
    batch = tmp / "b.jsonl"
    batch.write_text("".join(json.dumps({"id": f"t{i}", "profile": "writer", "prompt": f"hello {i}"}) + "\n"
                             for i in range(n)), encoding="utf-8")
    return cfg, batch


@pytest.fixture
async def sim() -> AsyncIterator[ApiSimServer]:
    async with ApiSimServer(ApiSimConfig()) as server:
        yield server


@pytest.fixture
async def self_signed(tmp_path: Path) -> AsyncIterator[str]:
    """An HTTPS server on 127.0.0.1 with a certificate no CA signed; yields its base URL."""
    require(shutil.which("openssl") is not None, "needs openssl to make a certificate")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    made = await asyncio.create_subprocess_exec(
        "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
        "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
    assert await asyncio.wait_for(made.wait(), 60) == 0
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    hits: list[str] = []

    async def any_request(request: web.Request) -> web.Response:
        hits.append(request.path)  # never reached: the client refuses the certificate first
        return web.json_response({"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]})

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", any_request)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=ctx)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"https://127.0.0.1:{port}/v1"
    finally:
        await runner.cleanup()
    assert hits == []


async def run_cli(cfg: Path, batch: Path, db: Path, limit_s: float = 90) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mediadesk", "run", str(batch), "--config", str(cfg), "--db", str(db),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT, env=_env())
    try:
        out, err = await asyncio.wait_for(proc.communicate(), limit_s)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        pytest.fail("mediadesk run waited silently on an endpoint that can never answer")
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


# ------------------------------------------------------------------------ TLS: stop, say, charge nothing
async def test_https_to_a_plain_http_port_stops_the_endpoint_and_the_run_says_why(
    tmp_path: Path, sim: ApiSimServer
) -> None:
    """Before: every attempt was a ``connection`` failure that opened the breaker, probes failed every
    probe_interval_s for ever, and the run printed only ``api 0/3``."""
    cfg, batch = write_files(tmp_path, sim.base_url.replace("http://", "https://"))
    db = tmp_path / "t.db"
    rc, out, err = await run_cli(cfg, batch, db)
    assert rc == 1, (out, err)
    assert "Traceback" not in err
    assert "TLS error" in err and "stopped" in err, err
    assert "endpoint" in err and "fix it in" in err and "nothing was charged" in err, err
    assert "probe failed" not in err  # no probe: none can fix a configuration
    ws = Workspace.resolve(data_dir=tmp_path / "data", db_path=db)
    tasks = tasks_of(ws)
    assert {t.state for t in tasks.values()} == {"pending"}
    assert {t.attempt for t in tasks.values()} == {0}  # nothing charged
    assert "pending 3" in out
    # listed where the operator acts, from the database the run left
    listed = await mediadesk_async("exceptions", "list", "--db", db, "--config", cfg)
    assert "stopped: TLS error" in listed.out and "3 task(s) wait" in listed.out, listed
    assert "fix it in" in listed.out and "1 stopped endpoint(s)" in listed.err, listed


async def test_a_self_signed_certificate_stops_the_endpoint_without_probes(
    workspace: Workspace, self_signed: str
) -> None:
    cfg = make_config([{"name": "w", "kind": "api", "base_url": self_signed, "model": "m"}],
                      breaker={"probe_interval_s": 0.05})
    notices: list[str] = []
    async with Scheduler(cfg, workspace) as s:
        s.bus.subscribe(lambda ev: notices.append(ev.message) if isinstance(ev, Notice) else None)
        s.intake.submit([s.intake.new_task(f"t{i}", "w", "hello") for i in range(3)])
        await until(lambda: s.unservable_profiles() == ["w"], "the endpoint to be stopped", limit_s=30)
        cap = next(ln.capacity_ctl for ln in s.lanes if ln.capacity_ctl is not None)
        assert cap.stopped is not None and "certificate verify failed" in cap.stopped
        assert cap.view().breaker == "open"
        stopped = [n for n in notices if "stopped" in n]
        assert stopped and "certificate verify failed" in stopped[0] and "no probe" in stopped[0], notices
        # whatever happens next, no prober runs for a stopped endpoint
        assert cap.probes_sent == 0 and (cap._probe_task is None or cap._probe_task.done())
    tasks = tasks_of(workspace)
    assert {(t.state, t.attempt) for t in tasks.values()} == {("pending", 0)}
    logs = log_messages(workspace, "t0")
    assert any("TLS error" in m and "not charged" in m for m in logs), logs


# ------------------------------------------------------------------------ a closed port: say what and since when
def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_a_closed_port_says_what_the_run_waits_for_and_since_when(tmp_path: Path) -> None:
    """Before: the breaker's wait (documented) was silent in ``mediadesk run``: only ``api 0/3``."""
    cfg, batch = write_files(tmp_path, f"http://127.0.0.1:{_closed_port()}/v1")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mediadesk", "run", str(batch), "--config", str(cfg), "--db", str(tmp_path / "t.db"),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT, env=_env())
    assert proc.stderr is not None and proc.stdout is not None
    seen: list[str] = []

    async def read_until_waiting() -> None:
        assert proc.stderr is not None
        while True:
            line = (await proc.stderr.readline()).decode()
            if not line:
                return
            seen.append(line)
            if "probe failed" in line and "waiting since" in line:
                return

    stdout_task = asyncio.create_task(proc.stdout.read())
    try:
        await asyncio.wait_for(read_until_waiting(), 60)
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGINT)
    rest = await asyncio.wait_for(proc.stderr.read(), 60)
    rc = await proc.wait()
    out = (await stdout_task).decode()
    err = "".join(seen) + rest.decode()
    opened = next(ln for ln in seen if "breaker closed -> open" in ln)
    assert "unavailable" in opened and "waiting since" in opened and "for it to answer a probe" in opened, opened
    waiting = seen[-1]
    assert "ConnectError" in waiting and "nothing is charged" in waiting, waiting
    assert rc == 130, (out, err)
    assert "Traceback" not in err
