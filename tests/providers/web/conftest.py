"""Fixtures for the process-level web lane tests: a real Chromium, real processes, and a leak guard.

The leak guard runs around every test in this directory: any process whose ``--user-data-dir`` lies under
the test's ``tmp_path`` and survives the test is killed (so later tests are not poisoned) and the test
fails. Tests therefore put every profile under ``tmp_path``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import psutil
import pytest
import pytest_asyncio
from aiohttp import web
from playwright.async_api import Browser, Page, Playwright, async_playwright

from mediadesk.providers.web import BrowserNotFoundError, find_browser, find_our_residue
from mediadesk.providers.web._proctree import collect_tree, end_processes
from mediadesk.providers.web.finder import chromium_flags
from tests.providers.web.helpers import serve
from tests.support import require

PAGES = Path(__file__).parent / "pages"


@pytest.fixture(scope="session")
def chromium_exe() -> Path:
    try:
        return find_browser(probe_version=False).path
    except BrowserNotFoundError as exc:
        require(False, f"no Chromium on this machine: {exc}")
        raise  # (require does not return)


@pytest.fixture
def lock_dir(tmp_path: Path) -> Path:
    """Locks of one test live in its own directory, never in the user's real runtime dir."""
    path = tmp_path / "locks"
    path.mkdir(mode=0o700)
    return path


@pytest.fixture
def profile_root(tmp_path: Path) -> Path:
    path = tmp_path / "profiles"
    path.mkdir()
    return path


@pytest.fixture(autouse=True)
def no_leftover_browsers(tmp_path: Path) -> Iterator[None]:
    yield
    left = find_our_residue(tmp_path)
    if left:
        report = end_processes(collect_tree(p.pid for p in left), grace_s=0)
        pytest.fail(
            f"processes left running on this test's profiles: {[p.describe() for p in left]} "
            f"(killed now; survivors {report.survivors})"
        )


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def pw_module() -> AsyncIterator[Playwright]:
    """One Playwright driver per test module; the tests own their browsers."""
    async with async_playwright() as pw:
        yield pw


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def playwright_hub() -> AsyncIterator[None]:
    """The product's shared Playwright driver (``PlaywrightHub``) held for the whole module: the logins and
    lanes of its tests then reuse one driver process instead of starting and stopping one each (a Node
    process: 1-3 s per start on a loaded machine). Only for modules whose tests run in the module's loop
    (``pytest.mark.asyncio(loop_scope="module")``): the driver is bound to the loop it started in."""
    from mediadesk.providers.web.playwright_hub import PlaywrightHub

    await PlaywrightHub.acquire()
    try:
        yield
    finally:
        await PlaywrightHub.release()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser(chromium_exe: Path) -> AsyncIterator[Browser]:
    """One Chromium per test module, found the way the lane finds it, with the lane's flags (Playwright
    adds its own headless flag; a fresh context per test keeps the tests apart)."""
    pw = await async_playwright().start()
    b = await pw.chromium.launch(executable_path=str(chromium_exe), args=chromium_flags(headless=False))
    yield b
    await b.close()
    await pw.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def pages_server() -> AsyncIterator[str]:
    """The fake chat sites under ``pages/``, served statically; yields the base URL."""
    app = web.Application()
    app.router.add_static("/", PAGES)
    async with serve(app) as base:
        yield base


@pytest.fixture
def server(pages_server: str) -> str:
    """The fake chat sites under ``pages/`` (the directory's ``pages_server``)."""
    return pages_server


@pytest_asyncio.fixture(loop_scope="module")
async def page(browser: Browser) -> AsyncIterator[Page]:
    """A page in a fresh context of the module's Chromium (closed after the test)."""
    ctx = await browser.new_context()
    p = await ctx.new_page()
    yield p
    await ctx.close()


def wait_for(predicate: Callable[[], bool], timeout_s: float, what: str) -> None:
    """Poll a condition; the timeout is a safety net, not a speed assertion."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(0.05)


#: A helper process: optionally takes an account lock or the instance lock, optionally starts a Chromium on
#: a profile (as its own child, with PDEATHSIG), prints one JSON line, then waits for "quit" on stdin.
HELPER = r"""
import json, sys, time
from pathlib import Path
from mediadesk.providers.web import AccountLock, InstanceLock, read_devtools_port, spawn_chromium
from mediadesk.providers.web.selfcheck import end_browser_tree
args = json.loads(sys.argv[1])
lock = None
if args.get("account"):
    lock = AccountLock(args["account"], Path(args["profile"]), Path(args["lock_dir"]))
    assert lock.try_acquire(), "helper could not take the account lock"
if args.get("data_dir"):
    lock = InstanceLock(Path(args["data_dir"]))
    lock.acquire()
chromium = None
if args.get("orphan"):
    # A MediaDesk that crashes on a platform without PDEATHSIG: the browser outlives it, orphaned.
    import os, subprocess
    from mediadesk.providers.web.launcher import chromium_command
    chromium = subprocess.Popen(chromium_command(Path(args["chromium"]), Path(args["profile"])),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
elif args.get("chromium"):
    chromium = spawn_chromium(Path(args["chromium"]), Path(args["profile"]))
    deadline = time.monotonic() + 30
    while read_devtools_port(Path(args["profile"])) is None:
        assert chromium.poll() is None and time.monotonic() < deadline, "helper chromium did not start"
        time.sleep(0.05)
print(json.dumps({"pid": __import__("os").getpid(), "chromium": chromium.pid if chromium else None}),
      flush=True)
if args.get("orphan"):
    os._exit(0)
sys.stdin.readline()
if chromium is not None:
    end_browser_tree(chromium.pid, Path(args["profile"]), grace_s=2)
    chromium.wait()
if lock is not None:
    lock.release()
"""


class Helper:
    """A running helper process (see ``HELPER``); ``quit()`` ends it cleanly, ``sigkill()`` does not."""

    def __init__(self, **args: object) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HELPER, json.dumps(args)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(timeout=10)
            raise AssertionError(f"helper failed to start (exit {self.proc.returncode})")
        info = json.loads(line)
        self.pid: int = info["pid"]
        self.chromium_pid: int | None = info["chromium"]

    def quit(self) -> int:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        return self._finish()

    def sigkill(self) -> int:
        os.kill(self.proc.pid, signal.SIGKILL)
        return self._finish()

    def _finish(self) -> int:
        code = self.proc.wait(timeout=30)
        self.close_streams()
        return code

    def close_streams(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None and not stream.closed:
                with contextlib.suppress(BrokenPipeError):
                    stream.close()


@pytest.fixture
def spawn_helper() -> Iterator[Callable[..., Helper]]:
    """Factory for helper processes; any the test did not end is SIGKILLed and its Chromium awaited."""
    started: list[Helper] = []

    def spawn(**args: object) -> Helper:
        helper = Helper(**args)
        started.append(helper)
        return helper

    yield spawn
    for helper in started:
        if helper.proc.poll() is None:
            helper.sigkill()
        helper.close_streams()
        pid = helper.chromium_pid
        if pid is not None:
            # PDEATHSIG ends it; give it time so the leak guard does not see it mid-exit.
            wait_for(functools.partial(_gone, pid), 20, "helper's chromium to exit")


def _gone(pid: int) -> bool:
    return not _running(pid)


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


@pytest.fixture
def wait_until() -> Callable[[Callable[[], bool], float, str], None]:
    return wait_for
