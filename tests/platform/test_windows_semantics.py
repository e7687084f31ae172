"""MediaDesk under the "Windows semantics" layer (tests/windows_semantics.py: Windows' modes, no POSIX-only
calls, no loop signal handlers, no SIGHUP, no parent-death signal, Windows' command lines), with real parts:
a web batch on the chat simulator runs to success through the real scheduler and its browser is gone after
the close; a MediaDesk process killed for real leaves no Chromium (the watchdog of mediadesk.platform.reaper
ends it); a session-cookie login survives a restart; ``mediadesk serve`` starts and stops by a signal; a
GB18030 CSV batch goes in and the CSV export opens as UTF-8 with a BOM."""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import os
import posix
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from mediadesk.config.model import AppConfig, ConfigError, load_config, parse_config
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import TaskSpec
from mediadesk.platform import files, reaper
from mediadesk.providers.web import BrowserNotFoundError, find_browser, find_our_residue
from mediadesk.providers.web._proctree import collect_tree, end_processes
from mediadesk.providers.web.backend import build_web_backend
from mediadesk.providers.web.cookies import JAR_NAME
from mediadesk.providers.web.login import login_with_form
from mediadesk.scheduler import Scheduler
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from mediadesk.sim.web_server import WebSimConfig, WebSimServer
from tests.cli.test_signals import db_rows
from tests.providers.web.helpers import RecordingCtx
from tests.remote.conftest import API_KEY, KEY_ENV, TOKEN, TOKEN_ENV
from tests.remote.test_serve import write_config as write_api_config
from tests.support import ROOT, make_config, require, tasks_of, until
from tests.windows_semantics import VIOLATION, Layer, child_environment, windows_argv, windows_semantics

__all__ = ["windows_semantics"]  # the layer's fixture, used by every test here

#: A safety net for waits on processes, never a speed assertion.
LIMIT_S = 60
BOM = b"\xef\xbb\xbf"
REAPER = reaper.__name__


@pytest.fixture(scope="module")
def chromium() -> Path:
    try:
        return find_browser(probe_version=False).path
    except BrowserNotFoundError as exc:
        require(False, f"no Chromium on this machine: {exc}")
        raise


@pytest.fixture(autouse=True)
def no_leftover_browsers(tmp_path: Path) -> Iterator[None]:
    """A process left on this test's profiles is killed and fails the test."""
    yield
    left = find_our_residue(tmp_path)
    if left:
        end_processes(collect_tree(p.pid for p in left), grace_s=0)
        pytest.fail(f"processes left running on this test's profiles: {[p.describe() for p in left]}")


def web_config(sim: WebSimServer, account: str = "acct-a") -> AppConfig:
    return make_config([{"name": "chat", "kind": "web", "site": "simchat", "url": sim.chat_url}],
                       [{"name": account, "profile": "chat"}],
                       heartbeat={"interval_s": 0.2, "stale_after_s": 30})


async def log_in(cfg: AppConfig, ws: Workspace, sim: WebSimServer, account: str = "acct-a") -> None:
    await login_with_form(cfg, ws, account, sim.login_url, fields={"#account": account, "#password": "pw"},
                          submit="button.login", logged_in=".avatar")


def watchdogs(pid: int) -> dict[int, psutil.Process]:
    """The watchdogs ``pid`` started, by the pid of the child each watches."""
    out: dict[int, psutil.Process] = {}
    with contextlib.suppress(psutil.Error):
        for proc in psutil.Process(pid).children():
            with contextlib.suppress(psutil.Error):
                cmd = proc.cmdline()
                if REAPER in cmd:
                    out[int(cmd[cmd.index("--child") + 1])] = proc
    return out


async def all_gone(procs: list[psutil.Process]) -> list[int]:
    """Wait (in a thread, bounded by LIMIT_S) for every process to end; the pids still running after."""
    _gone, alive = await asyncio.to_thread(psutil.wait_procs, procs, timeout=LIMIT_S)
    return [p.pid for p in alive if _running(p)]


def _running(proc: psutil.Process) -> bool:
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def test_the_layer_is_windows_where_it_matters(windows_semantics: Layer, tmp_path: Path) -> None:
    private = tmp_path / "private.json"
    private.write_text("{}", encoding="utf-8")
    private.chmod(0o600)
    assert (stat.S_IMODE(os.stat(private).st_mode), stat.S_IMODE(os.lstat(tmp_path).st_mode)) == (0o666, 0o777)
    assert stat.S_IMODE(posix.stat(private).st_mode) == 0o600  # the real mode, unchanged
    assert files.is_private(os.stat(private)) and files.current_uid() is None
    assert not any(hasattr(os, n) for n in ("getpgid", "killpg", "setsid")) and not hasattr(signal, "SIGHUP")
    loop = asyncio.new_event_loop()
    try:
        with pytest.raises(NotImplementedError):
            loop.add_signal_handler(signal.SIGTERM, lambda: None)
    finally:
        loop.close()
    with pytest.raises(AssertionError, match="terminates"):  # os.kill(pid, 0) from the product's code
        exec("import os\nos.kill(os.getpid(), 0)", {"__name__": "mediadesk.probe"})
    with pytest.raises(AttributeError, match="fchmod"):  # os.fchmod from the product's code
        exec("import os\nos.fchmod(0, 0o600)", {"__name__": "mediadesk.probe"})
    assert len(windows_semantics.violations) == 2
    windows_semantics.violations.clear()  # (the two above were this test's own)
    # command lines as Windows gives them back, paths with blanks, quotes and trailing backslashes included
    tricky = ["C:\\Program Files\\Chromium\\chrome.exe", "--user-data-dir=C:\\Users\\A B\\acct-a\\", 'say "hi"',
              "", "a\\\\b", "tab\there"]
    assert windows_argv(subprocess.list2cmdline(tricky)) == tricky
    # names that differ only by case are one folder on Windows: the config refuses them everywhere
    with pytest.raises(ConfigError, match="differ only by case"):
        parse_config({"profiles": [{"name": "chat", "kind": "web", "site": "simchat", "url": "http://127.0.0.1:9/"}],
                      "accounts": [{"name": "acct-a", "profile": "chat"}, {"name": "ACCT-A", "profile": "chat"}]},
                     "case-twins")


@pytest.mark.browser
@pytest.mark.timeout(300)  # a login, a batch and a close on a loaded machine
async def test_a_web_batch_runs_and_its_browser_is_gone_after_the_close(
    windows_semantics: Layer, workspace: Workspace, chromium: Path,
) -> None:
    async with WebSimServer(WebSimConfig(time_scale=0.0025, seed=3, answer_tokens=12)) as sim:
        cfg = web_config(sim)
        await log_in(cfg, workspace, sim)
        async with Scheduler(cfg, workspace) as s:
            s.intake.submit([s.intake.new_task(f"t{i}", "chat", f"问题 {i}: item {i} 🚀") for i in range(3)])
            await asyncio.wait_for(s.wait_idle(), 180)
            open_browsers = {p.pid: p for p in find_our_residue(workspace.data_dir) if p.process_type is None}
            dogs = watchdogs(os.getpid())
            tree = collect_tree(open_browsers)
        tasks = tasks_of(workspace)
        assert {t.state for t in tasks.values()} == {"success"}, {k: (t.state, t.error_message)
                                                                   for k, t in tasks.items()}
        assert sim.stats()["logins"] == 1
    # no parent-death signal here: the open browser had a watchdog, as on macOS
    assert len(open_browsers) == 1 and set(open_browsers) <= set(dogs), (open_browsers, dogs)
    assert find_our_residue(workspace.data_dir) == []  # the close ended the whole tree ...
    assert await all_gone(tree) == []
    assert await all_gone(list(dogs.values())) == []  # ... and the watchdogs left by themselves


@pytest.mark.browser
@pytest.mark.timeout(300)  # a login, a batch and a close on a loaded machine
async def test_a_killed_mediadesk_leaves_no_browser(
    windows_semantics: Layer, tmp_path: Path, chromium: Path,
) -> None:
    data = tmp_path / "Media Desk"  # a blank in every path of the browser's command line
    cfg_path = tmp_path / "config.toml"
    async with WebSimServer(WebSimConfig(time_scale=0.0025, seed=3, answer_tokens=12)) as sim:
        cfg_path.write_text(
            f'data_dir = "{data}"\n[heartbeat]\ninterval_s = 0.2\nstale_after_s = 30\n'
            f'[[profiles]]\nname = "chat"\nkind = "web"\nsite = "simchat"\nurl = "{sim.chat_url}"\n'
            '[[accounts]]\nname = "acct-a"\nprofile = "chat"\n', encoding="utf-8")
        cfg = load_config(cfg_path)
        ws = Workspace.resolve(data_dir=data).ensure()
        await log_in(cfg, ws, sim)
        batch = tmp_path / "held.jsonl"
        batch.write_text('{"id": "held", "profile": "chat", "prompt": "held [[sim:hang]]"}\n', encoding="utf-8")
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.windows_semantics", "mediadesk", "run", str(batch), "--config", str(cfg_path),
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE, cwd=ROOT,
            env=child_environment([tmp_path]))
        try:
            found: dict[str, object] = {}

            def browser_at_work() -> bool:
                running = [t for t, s, _ in db_rows(data / "mediadesk.db") if s == "running"]
                mains = [p.pid for p in find_our_residue(data) if p.process_type is None]
                dogs = watchdogs(proc.pid)
                found.update(mains=mains, dogs=dogs)
                return proc.returncode is None and bool(running) and len(mains) == 1 and mains[0] in dogs

            await until(browser_at_work, "the held task on a browser with its watchdog", limit_s=120, step_s=0.1)
            tree = collect_tree(p.pid for p in find_our_residue(data))
            proc.send_signal(signal.SIGKILL)
            assert await asyncio.wait_for(proc.wait(), LIMIT_S) == -signal.SIGKILL
        finally:
            if proc.returncode is None:
                proc.kill()
            _out, err = await proc.communicate()
    assert VIOLATION.encode() not in err, err.decode()
    # nothing else ends it: no parent-death signal, a session of its own; the watchdog does
    assert await all_gone(tree) == [], "Chromium outlived the MediaDesk that started it"
    assert find_our_residue(data) == []
    dogs = found["dogs"]
    assert isinstance(dogs, dict) and await all_gone(list(dogs.values())) == []


@pytest.mark.browser
async def test_a_session_cookie_login_survives_a_restart(
    windows_semantics: Layer, workspace: Workspace, tmp_path: Path, chromium: Path,
) -> None:
    async with WebSimServer(WebSimConfig(time_scale=0.005, answer_tokens=8, session_cookie=True)) as sim:
        cfg = web_config(sim, "acct-s")
        await log_in(cfg, workspace, sim, "acct-s")  # logged in, then CLOSED: the session cookie left with it
        jar = workspace.account_profile_dir("acct-s") / JAR_NAME
        # written without os.fchmod (absent here), and its mode reads as Windows reports it
        assert (stat.S_IMODE(jar.stat().st_mode), stat.S_IMODE(posix.stat(jar).st_mode)) == (0o666, 0o600)
        backend = build_web_backend(cfg, workspace, cfg.profiles[0], cfg.accounts[0])
        await backend.start()  # the restart: a new browser, logged in by the jar alone
        try:
            assert backend.health() == ("ready", None), backend.health()
            spec = TaskSpec(task_id="t1", profile="chat", prompt="after a restart", attempt=1, instructions=None)
            assert (await backend.run(spec, RecordingCtx(tmp_path / "evidence"))).startswith("好的")
        finally:
            await backend.stop()
        assert sim.stats()["logins"] == 1  # never logged in again


async def test_serve_starts_and_stops_by_a_signal(windows_semantics: Layer, tmp_path: Path) -> None:
    async with ApiSimServer(ApiSimConfig(latency=(0.01, 0.03), seed=7, api_key=API_KEY)) as api:
        cfg = write_api_config(tmp_path, api.base_url)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.windows_semantics", "mediadesk", "serve", "--config", str(cfg),
            "--data-dir", str(tmp_path / "served"), "--port", "0", stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, cwd=ROOT,
            env={**child_environment([tmp_path]), TOKEN_ENV: TOKEN, KEY_ENV: API_KEY})
        assert proc.stdout is not None
        try:
            line = (await asyncio.wait_for(proc.stdout.readline(), LIMIT_S)).decode()
            assert line.startswith("listening on http://127.0.0.1:"), line
            # the stop comes through signal.signal: add_signal_handler raises here, as on Windows
            proc.send_signal(signal.SIGTERM)
            _out, err = await asyncio.wait_for(proc.communicate(), LIMIT_S)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    text = err.decode()
    assert (proc.returncode, "Traceback" in text, VIOLATION in text) == (0, False, False), text[-3000:]


async def test_a_gb18030_csv_batch_goes_in_and_the_csv_export_has_a_bom(
    windows_semantics: Layer, tmp_path: Path,
) -> None:
    prompts = ["写一首关于秋天的诗", "翻译：你好，世界", "总结这篇文章 😀"]
    batch = tmp_path / "excel.csv"
    batch.write_bytes(("profile,prompt\r\n" + "".join(f"writer,{p}\r\n" for p in prompts)).encode("gb18030"))
    env = {**child_environment([tmp_path]), KEY_ENV: API_KEY}
    data = tmp_path / "data"

    async def mediadesk(*args: str) -> tuple[int, bytes, str]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.windows_semantics", "mediadesk", *args, "--data-dir", str(data),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT, env=env)
        out, err = await asyncio.wait_for(proc.communicate(), 120)
        return proc.returncode or 0, out, err.decode()

    async with ApiSimServer(ApiSimConfig(latency=(0.01, 0.03), seed=7, api_key=API_KEY)) as api:
        cfg = write_api_config(tmp_path, api.base_url)
        rc, _out, err = await mediadesk("run", str(batch), "--config", str(cfg))
    assert (rc, VIOLATION in err) == (0, False), err[-3000:]
    rc, out, err = await mediadesk("export", "--format", "csv")
    assert (rc, VIOLATION in err) == (0, False), err[-3000:]
    assert out.startswith(BOM + b"task_id,"), out[:80]
    rows = list(csv.DictReader(io.StringIO(out.decode("utf-8-sig"), newline="")))
    assert sorted((r["prompt"], r["state"]) for r in rows) == sorted((p, "success") for p in prompts), rows
