"""OwnedBrowser on a real Chromium: start, connect, use, close, and every way it can go wrong."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import psutil
import pytest
import pytest_asyncio
from aiohttp import web
from playwright.async_api import Playwright

from mediadesk.core.log_lines import LogText
from mediadesk.providers.web import (
    AccountLock,
    BrowserStartError,
    OwnedBrowser,
    ProfileInUseError,
    find_profile_processes,
    read_browser_record,
    self_check,
)
from mediadesk.providers.web import launcher as launcher_mod
from tests.providers.web.helpers import until

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


@pytest_asyncio.fixture(loop_scope="module")
async def page_url() -> AsyncIterator[str]:
    async def index(_request: web.Request) -> web.Response:
        return web.Response(text="<title>MediaDesk test</title><p id=msg>hello</p>", content_type="text/html")

    app = web.Application()
    app.router.add_get("/", index)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    yield f"http://{host}:{port}/"
    await runner.cleanup()


@pytest.fixture
def make_browser(
    pw_module: Playwright, chromium_exe: Path
) -> Callable[..., OwnedBrowser]:
    def make(profile: Path, **kwargs: Any) -> OwnedBrowser:
        return OwnedBrowser(pw_module, chromium_exe, profile, **kwargs)

    return make


async def test_launch_open_page_close_leaves_nothing(
    make_browser: Callable[..., OwnedBrowser], profile_root: Path, page_url: str
) -> None:
    prof = profile_root / "acct-a"
    lines: list[str] = []
    browser = make_browser(prof, log=lambda t: lines.append(t.english()))
    await browser.start()
    assert stat.S_IMODE(prof.stat().st_mode) == 0o700
    assert browser.is_alive()
    record = read_browser_record(prof)
    assert record is not None and (record.pid, record.port, record.owner_pid) == (
        browser.pid, browser.port, os.getpid())
    assert any(str(browser.pid) in ln for ln in lines) and any(str(browser.port) in ln for ln in lines)

    page = await browser.context.new_page()
    await page.goto(page_url)
    assert await page.title() == "MediaDesk test"
    assert await page.text_content("#msg") == "hello"
    width, height = await page.evaluate("[outerWidth, outerHeight]")
    assert width >= 1280 and height >= 900  # a desktop window: sites lay out their send button for it
    tree = [p.pid for p in find_profile_processes(prof)]
    assert browser.pid in tree and len(tree) > 1

    report = await browser.close()
    assert report.clean and report.exit_code is not None  # reaped: no zombie of ours
    assert set(tree) <= set(report.pids)
    assert not any(_running(pid) for pid in report.pids)
    assert find_profile_processes(prof) == []
    assert read_browser_record(prof) is None
    assert not browser.is_alive()
    assert (await browser.close()).pids == []  # idempotent


async def test_close_kills_a_browser_that_ignores_cdp(
    make_browser: Callable[..., OwnedBrowser], profile_root: Path
) -> None:
    prof = profile_root / "acct-a"
    browser = make_browser(prof)
    await browser.start()
    await browser.context.new_page()
    os.kill(browser.pid, signal.SIGSTOP)  # hung: neither CDP nor SIGTERM gets an answer
    grace = 1.0
    t0 = time.monotonic()
    report = await browser.close(grace_s=grace)
    assert time.monotonic() - t0 < grace + 15  # safety net only; the real check is below
    assert report.kill_needed and not report.graceful
    assert browser.pid in report.killed
    assert report.survivors == [] and report.exit_code == -signal.SIGKILL
    assert not any(_running(pid) for pid in report.pids)
    assert find_profile_processes(prof) == []


async def test_cancelled_close_still_ends_the_tree(
    make_browser: Callable[..., OwnedBrowser], profile_root: Path
) -> None:
    prof = profile_root / "acct-a"
    closing_started = asyncio.Event()

    def log(line: LogText) -> None:
        if line.english().startswith("browser: closing chromium"):
            closing_started.set()

    browser = make_browser(prof, log=log)
    await browser.start()
    pids = [p.pid for p in find_profile_processes(prof)]
    os.kill(browser.pid, signal.SIGSTOP)  # close() now waits in its graceful phase (30 s) ...
    closing = asyncio.create_task(browser.close(grace_s=30))
    await asyncio.wait_for(closing_started.wait(), 30)
    assert not closing.done()
    closing.cancel()  # ... and is cancelled there (e.g. the app is quitting)
    with pytest.raises(asyncio.CancelledError):
        await closing
    assert not any(_running(pid) for pid in pids)
    assert find_profile_processes(prof) == []
    assert not browser.is_alive()


async def test_close_after_the_browser_crashed_ends_its_orphans(
    make_browser: Callable[..., OwnedBrowser], profile_root: Path
) -> None:
    prof = profile_root / "acct-a"
    browser = make_browser(prof)
    await browser.start()
    children = [p.pid for p in psutil.Process(browser.pid).children(recursive=True)]
    assert children
    os.kill(browser.pid, signal.SIGKILL)  # a crash: the main process vanishes, children are orphaned
    await until(lambda: not browser.is_alive(), 10, "the browser to be seen as gone")
    report = await browser.close(grace_s=1.0)
    assert report.clean
    assert not any(_running(pid) for pid in children)
    assert find_profile_processes(prof) == []


async def _browser_with_a_helper(
    pw: Playwright, chromium_exe: Path, profile_root: Path, tmp_path: Path
) -> tuple[OwnedBrowser, int]:
    """A started browser whose main process first left a helper behind (``sleep``, in its process group,
    naming no profile), and the helper's pid."""
    marker = tmp_path / "helper.pid"
    wrapper = tmp_path / "chromium-wrapper"
    wrapper.write_text(f'#!/bin/sh\nsleep 600 &\necho $! > {marker}\nexec {chromium_exe} "$@"\n')
    wrapper.chmod(0o700)
    browser = OwnedBrowser(pw, wrapper, profile_root / "acct-a")
    await browser.start()
    return browser, int(marker.read_text())


async def test_a_crashed_browsers_helper_that_does_not_name_the_profile_is_ended_too(
    pw_module: Playwright, chromium_exe: Path, profile_root: Path, tmp_path: Path
) -> None:
    """A child whose command line does not name the profile (a helper, or a renderer exiting on a loaded
    machine whose command line already reads empty) is still of our tree: the process group says so."""
    browser, helper = await _browser_with_a_helper(pw_module, chromium_exe, profile_root, tmp_path)
    assert _running(helper)
    os.kill(browser.pid, signal.SIGKILL)  # crash: the helper is re-parented and names no profile
    await until(lambda: not browser.is_alive(), 10, "the browser to be seen as gone")
    report = await browser.close(grace_s=1.0)
    assert report.clean and helper in report.pids
    assert not _running(helper)


async def test_once_reaped_the_old_pid_and_its_group_are_never_taken_for_ours(
    pw_module: Playwright, chromium_exe: Path, profile_root: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After the main process is reaped its pid may be handed to a new process (this machine wraps its
    32,768 pids within minutes under the suite), which may lead a group of that number: the group is
    then a stranger's and never swept. (Whether the pid is in use again is the one thing faked here.)"""
    browser, helper = await _browser_with_a_helper(pw_module, chromium_exe, profile_root, tmp_path)
    os.kill(browser.pid, signal.SIGKILL)
    await until(lambda: browser._poll() is not None, 10, "the browser's main process to be reaped")
    assert helper in [p.pid for p in browser._group_strays(set())]  # our orphan, by its group
    monkeypatch.setattr(launcher_mod.psutil, "pid_exists", lambda pid: pid == browser.pid or os.path.exists(
        f"/proc/{pid}"))
    assert browser._group_strays(set()) == []  # the old pid names a live process: not our group any more
    monkeypatch.undo()
    report = await browser.close(grace_s=1.0)
    assert report.clean and not _running(helper)


async def test_kill_ends_the_tree_at_once(
    make_browser: Callable[..., OwnedBrowser], profile_root: Path
) -> None:
    lines: list[str] = []
    browser = make_browser(profile_root / "acct-a", log=lambda t: lines.append(t.english()))
    await browser.start()
    report = await browser.kill()
    assert report.kill_needed and browser.pid in report.killed and report.clean
    assert not any(_running(pid) for pid in report.pids)
    assert f"browser: chromium pid {browser.pid} killed" in lines[-1]


async def test_second_browser_on_a_profile_is_refused_naming_the_holder(
    make_browser: Callable[..., OwnedBrowser], profile_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prof = profile_root / "acct-a"
    async with make_browser(prof) as first:
        with pytest.raises(ProfileInUseError) as err:
            await make_browser(prof).start()
        assert err.value.holder is not None and err.value.holder.pid == first.pid
        assert f"pid {first.pid}" in str(err.value)
        # Without the SingletonLock pre-check (a race), Chromium itself refuses with exit code 21.
        monkeypatch.setattr(launcher_mod, "singleton_holder", lambda _p: None)
        second = make_browser(prof)
        with pytest.raises(ProfileInUseError) as err21:
            await second.start()
        assert err21.value.exit_code == launcher_mod.EXIT_PROFILE_IN_USE
        assert err21.value.holder is not None and err21.value.holder.pid == first.pid
        assert first.is_alive()
        record = read_browser_record(prof)  # the refused start did not disown the holder's record
        assert record is not None and record.pid == first.pid
        page = await first.context.new_page()  # the holder was not disturbed
        await page.goto("about:blank")
    assert find_profile_processes(prof) == []


async def test_self_check_never_ends_an_open_browser_of_this_process(
    make_browser: Callable[..., OwnedBrowser], profile_root: Path, lock_dir: Path
) -> None:
    prof = profile_root / "acct-a"
    async with make_browser(prof) as browser:
        lock = AccountLock("acct-a", prof, lock_dir)
        assert lock.try_acquire()
        lines: list[str] = []
        result = self_check(prof, lock, lambda t: lines.append(t.english()), grace_s=1.0, lock_was_free=True)
        assert result.holder is not None and result.holder.pid == browser.pid
        assert browser.is_alive()
        lock.release()


async def test_recorded_residue_of_this_process_is_ended(
    make_browser: Callable[..., OwnedBrowser], profile_root: Path, lock_dir: Path
) -> None:
    """A browser this process started and lost track of (record names us, nobody has it open)."""
    prof = profile_root / "acct-a"
    browser = make_browser(prof)
    await browser.start()
    pid = browser.pid
    launcher_mod.LIVE_OWNED.pop(pid)  # simulate losing the OwnedBrowser object
    lock = AccountLock("acct-a", prof, lock_dir)
    assert lock.try_acquire()
    lines: list[str] = []
    try:
        result = self_check(prof, lock, lambda t: lines.append(t.english()), grace_s=3.0, lock_was_free=False)
        assert result.residue[0].pid == pid
        assert "recorded by this MediaDesk" in lines[0]
        assert not _running(pid)
    finally:
        await browser.close(grace_s=0)
        lock.release()


async def test_start_failure_is_reported_with_the_exit_code(
    pw_module: Playwright, profile_root: Path, tmp_path: Path
) -> None:
    fake = tmp_path / "broken-chrome"
    fake.write_text("#!/bin/sh\necho 'cannot open display' >&2\nexit 3\n")
    fake.chmod(0o755)
    browser = OwnedBrowser(pw_module, fake, profile_root / "acct-a", start_timeout_s=10)
    with pytest.raises(BrowserStartError, match="code 3") as err:
        await browser.start()
    assert "cannot open display" in str(err.value)
    assert err.value.kind.value == "browser_crash"


PDEATHSIG_CHILD = r"""
import json, sys, time
from pathlib import Path
from mediadesk.providers.web import read_devtools_port, spawn_chromium
exe, profile = Path(sys.argv[1]), Path(sys.argv[2])
proc = spawn_chromium(exe, profile)
while read_devtools_port(profile) is None:
    assert proc.poll() is None
    time.sleep(0.05)
print(json.dumps({"chromium": proc.pid}), flush=True)
time.sleep(120)
"""


async def test_browser_dies_with_a_sigkilled_mediadesk(
    chromium_exe: Path, profile_root: Path
) -> None:
    # blocking process work (spawn, SIGKILL, poll the tree): in a thread, off the event loop
    await asyncio.to_thread(_sigkill_scenario, chromium_exe, profile_root / "acct-a")


def _sigkill_scenario(chromium_exe: Path, prof: Path) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PDEATHSIG_CHILD, str(chromium_exe), str(prof)],
        stdout=subprocess.PIPE, text=True,
    )
    assert parent.stdout is not None
    try:
        chromium_pid = json.loads(parent.stdout.readline())["chromium"]
        tree = [p.pid for p in find_profile_processes(prof)]
        assert chromium_pid in tree
        parent.kill()  # SIGKILL: no cleanup code of the parent runs
        parent.wait(timeout=10)
        deadline = time.monotonic() + 30  # generous: PDEATHSIG -> Chromium's own shutdown
        # Poll the whole profile, not just the snapshot: children started after it (network service...)
        # exit on their own once their browser is gone.
        while (any(_running(pid) for pid in tree) or find_profile_processes(prof)) \
                and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_running(pid) for pid in tree)
        assert find_profile_processes(prof) == []
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait(timeout=10)
        parent.stdout.close()
