"""Self-check: residue is ended, holders are left alone and named, paths match exactly."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from mediadesk.providers.web import (
    AccountLock,
    BrowserRecord,
    chromium_flags,
    find_our_residue,
    find_profile_processes,
    read_devtools_port,
    self_check,
    spawn_chromium,
)
from mediadesk.providers.web._proctree import collect_tree
from mediadesk.providers.web.selfcheck import end_browser_tree, user_data_dirs, write_browser_record


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


@pytest.fixture
def raw_chromium(chromium_exe: Path, wait_until: Callable[..., None]) -> Iterator[Callable[[Path], Any]]:
    """Start Chromium on a profile the way a crashed MediaDesk would have left it; always cleaned up."""
    started: list[tuple[subprocess.Popen[bytes], Path]] = []

    def start(profile: Path) -> subprocess.Popen[bytes]:
        proc = spawn_chromium(chromium_exe, profile)
        started.append((proc, profile))
        wait_until(lambda: read_devtools_port(profile) is not None or proc.poll() is not None, 30, "chromium")
        assert proc.poll() is None, f"chromium exited with {proc.returncode}"
        return proc

    yield start
    for proc, profile in started:
        end_browser_tree(proc.pid, profile, grace_s=0)
        proc.wait(timeout=10)


@pytest.fixture
def sleeper() -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    """A harmless real process with an arbitrary command line (python ignores the extra arguments)."""
    started: list[subprocess.Popen[bytes]] = []

    def start(*args: str, cwd: Path | None = None) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", *args], cwd=cwd)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.kill()
        proc.wait(timeout=10)


def test_user_data_dir_argument_forms() -> None:
    assert user_data_dirs(["chrome", "--user-data-dir=/p/a", "--x"]) == ["/p/a"]
    assert user_data_dirs(["chrome", "--user-data-dir", "/p/b"]) == ["/p/b"]
    assert user_data_dirs(["chrome", "-user-data-dir=/p/c"]) == ["/p/c"]
    assert user_data_dirs(["chrome", "--user-data-dir"]) == []
    assert user_data_dirs(["chrome", "--user-data-directory=/p/d"]) == []


def test_matching_is_exact_for_every_argument_form(
    tmp_path: Path, sleeper: Callable[..., subprocess.Popen[bytes]]
) -> None:
    root = tmp_path / "profiles"
    a, ab = root / "acct-a", root / "acct-ab"
    for d in (a, ab):
        d.mkdir(parents=True)
    p_eq = sleeper(f"--user-data-dir={ab}")
    p_sep = sleeper("--user-data-dir", str(ab))
    p_rel = sleeper("--user-data-dir=profiles/acct-ab", cwd=tmp_path)  # relative to the process's cwd
    want = {p_eq.pid, p_sep.pid, p_rel.pid}

    def pids(found: list[Any]) -> set[int]:
        return {p.pid for p in found}

    deadline = time.monotonic() + 20
    while pids(find_profile_processes(ab)) != want and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pids(find_profile_processes(ab)) == want
    assert pids(find_profile_processes(a)) == set()  # /p/acct-a is not a prefix of /p/acct-ab
    assert want <= pids(find_our_residue(root))
    assert pids(find_our_residue(a)) == set()
    for proc in (p_eq, p_sep, p_rel):
        proc.kill()
        proc.wait(timeout=10)


@pytest.mark.browser
def test_chromium_on_neighbour_profile_is_not_matched(
    profile_root: Path, raw_chromium: Callable[[Path], subprocess.Popen[bytes]]
) -> None:
    proc = raw_chromium(profile_root / "acct-ab")
    found = find_profile_processes(profile_root / "acct-ab")
    assert proc.pid in {p.pid for p in found}
    assert len(found) > 1  # the whole tree carries the profile flag
    assert find_profile_processes(profile_root / "acct-a") == []


@pytest.mark.browser
def test_residue_is_ended_when_the_account_lock_was_free(
    profile_root: Path, lock_dir: Path, raw_chromium: Callable[[Path], subprocess.Popen[bytes]]
) -> None:
    prof = profile_root / "acct-a"
    proc = raw_chromium(prof)
    tree = [p.pid for p in collect_tree([proc.pid])]
    assert len(tree) > 1
    lock = AccountLock("acct-a", prof, lock_dir)
    assert lock.try_acquire()
    lines: list[str] = []
    result = self_check(prof, lock, lambda t: lines.append(t.english()), grace_s=3.0, lock_was_free=True)
    assert result.ok and not result.clean
    assert result.residue[0].pid == proc.pid
    # a browser ended while still starting may leave a freshly spawned child: ended too, reported apart
    assert all(r.process_type is not None for r in result.residue[1:])
    assert set(tree) <= set(result.ended_pids)
    assert not any(_running(pid) for pid in tree)
    assert proc.wait(timeout=10) is not None
    assert any(f"found residue chromium pid {proc.pid} on {prof}: terminated" in ln for ln in lines), lines
    assert not os.path.lexists(prof / "SingletonLock")  # stale once nothing runs on the profile
    assert find_profile_processes(prof) == []
    lock.release()


@pytest.mark.browser
def test_orphaned_browser_of_a_crashed_mediadesk_is_residue(
    profile_root: Path,
    lock_dir: Path,
    chromium_exe: Path,
    spawn_helper: Callable[..., Any],
) -> None:
    """The crash case PDEATHSIG cannot cover (other platforms, a crash between fork and prctl): the browser
    outlives its MediaDesk, re-parented to init, and nobody holds the account lock."""
    prof = profile_root / "acct-a"
    helper = spawn_helper(profile=str(prof), chromium=str(chromium_exe), orphan=True)
    assert helper.proc.wait(timeout=30) == 0
    pid = helper.chromium_pid
    assert pid is not None and _running(pid) and psutil.Process(pid).ppid() != helper.pid
    lock = AccountLock("acct-a", prof, lock_dir)
    assert lock.try_acquire()
    lines: list[str] = []
    result = self_check(prof, lock, lambda t: lines.append(t.english()), grace_s=3.0, lock_was_free=True)
    assert result.ok and result.residue[0].pid == pid
    assert not _running(pid)
    assert "the MediaDesk that started it is gone" in lines[0], lines
    assert find_profile_processes(prof) == []
    lock.release()


@pytest.mark.browser
def test_browser_opened_by_hand_is_a_holder_even_when_the_lock_was_free(
    profile_root: Path, lock_dir: Path, chromium_exe: Path, wait_until: Callable[..., None]
) -> None:
    """No record, no MediaDesk launch signature, a live parent: the operator's browser. Never killed."""
    prof = profile_root / "acct-a"
    by_hand = subprocess.Popen(
        [str(chromium_exe), *chromium_flags(True), f"--user-data-dir={prof}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_until(lambda: os.path.lexists(prof / "SingletonLock"), 30, "the hand-opened browser")
        lock = AccountLock("acct-a", prof, lock_dir)
        assert lock.try_acquire()
        lines: list[str] = []
        result = self_check(prof, lock, lambda t: lines.append(t.english()), grace_s=1.0, lock_was_free=True)
        assert not result.ok and result.residue == []
        assert result.holder is not None and result.holder.pid == by_hand.pid
        assert by_hand.poll() is None
        assert f"is in use by pid {by_hand.pid} (chromium)" in lines[0]
        assert "cannot be attributed" in lines[0]
        lock.release()
    finally:
        end_browser_tree(by_hand.pid, prof, grace_s=2)
        by_hand.wait(timeout=10)


@pytest.mark.browser
def test_recorded_residue_of_a_dead_mediadesk_is_ended_even_if_we_held_the_lock(
    profile_root: Path, lock_dir: Path, raw_chromium: Callable[[Path], subprocess.Popen[bytes]]
) -> None:
    prof = profile_root / "acct-a"
    proc = raw_chromium(prof)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait(timeout=30)
    write_browser_record(prof, BrowserRecord(
        pid=proc.pid, port=read_devtools_port(prof) or 0, profile_dir=str(prof), started_at=time.time(),
        owner_pid=dead.pid, create_time=psutil.Process(proc.pid).create_time(), owner_create_time=None,
    ))
    lock = AccountLock("acct-a", prof, lock_dir)
    assert lock.try_acquire()
    lines: list[str] = []
    result = self_check(prof, lock, lambda t: lines.append(t.english()), grace_s=3.0, lock_was_free=False)
    assert result.residue[0].pid == proc.pid
    # a browser ended while still starting may leave a freshly spawned child: ended too, reported apart
    assert all(r.process_type is not None for r in result.residue[1:])
    assert not _running(proc.pid)
    assert any(f"recorded by MediaDesk pid {dead.pid}, which is gone" in ln for ln in lines), lines
    assert not (prof / ".mediadesk-browser.json").exists()
    lock.release()


@pytest.mark.browser
def test_unattributed_browser_is_a_holder_when_the_lock_was_not_free(
    profile_root: Path, lock_dir: Path, raw_chromium: Callable[[Path], subprocess.Popen[bytes]]
) -> None:
    """We held the lock all along (the lane keeps it); a Chromium we never recorded appeared: someone
    opened the profile by hand. Do not kill; explain."""
    prof = profile_root / "acct-a"
    proc = raw_chromium(prof)
    lock = AccountLock("acct-a", prof, lock_dir)
    assert lock.try_acquire()
    lines: list[str] = []
    result = self_check(prof, lock, lambda t: lines.append(t.english()), grace_s=1.0, lock_was_free=False)
    assert not result.ok
    assert result.holder is not None and result.holder.pid == proc.pid
    assert _running(proc.pid)
    assert any(f"is in use by pid {proc.pid} (chromium); close it or wait" in ln for ln in lines), lines
    assert os.path.lexists(prof / "SingletonLock")  # not stale: left for its owner
    lock.release()


@pytest.mark.browser
def test_holder_of_another_process_is_left_alone_and_reported(
    profile_root: Path,
    lock_dir: Path,
    chromium_exe: Path,
    spawn_helper: Callable[..., Any],
    wait_until: Callable[..., None],
) -> None:
    prof = profile_root / "acct-a"
    helper = spawn_helper(account="acct-a", profile=str(prof), lock_dir=str(lock_dir), chromium=str(chromium_exe))
    assert helper.chromium_pid is not None
    ours = AccountLock("acct-a", prof, lock_dir)
    assert not ours.try_acquire()  # the other process holds the account
    lines: list[str] = []
    # Even a caller that wrongly claims the lock was free must not kill another process's browser.
    for lock_was_free in (False, True):
        result = self_check(prof, ours, lambda t: lines.append(t.english()), grace_s=1.0, lock_was_free=lock_was_free)
        assert not result.ok and result.residue == []
        assert result.holder is not None and result.holder.pid == helper.chromium_pid
        assert result.holder.name == "chromium"
        assert _running(helper.chromium_pid)
    assert any(f"pid {helper.chromium_pid} (chromium)" in ln and f"held by pid {helper.pid}" in ln
               for ln in lines), lines
    assert helper.quit() == 0
    wait_until(lambda: not _running(helper.chromium_pid), 20, "the helper's chromium to exit")


def test_clean_profile_removes_stale_singleton_files(profile_root: Path, lock_dir: Path) -> None:
    prof = profile_root / "acct-a"
    prof.mkdir()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait(timeout=30)
    os.symlink(f"{socket.gethostname()}-{dead.pid}", prof / "SingletonLock")
    os.symlink("/tmp/org.chromium.Chromium.gone/SingletonCookie", prof / "SingletonCookie")
    lock = AccountLock("acct-a", prof, lock_dir)
    assert lock.try_acquire()
    lines: list[str] = []
    result = self_check(prof, lock, lambda t: lines.append(t.english()), lock_was_free=True)
    assert result.clean and result.ok
    assert not os.path.lexists(prof / "SingletonLock")
    assert not os.path.lexists(prof / "SingletonCookie")
    assert lines == ["self-check: clean (removed stale SingletonLock, SingletonCookie)"]
    lock.release()


def test_singleton_lock_of_another_host_is_a_holder(profile_root: Path, lock_dir: Path) -> None:
    prof = profile_root / "acct-a"
    prof.mkdir()
    os.symlink("some-other-host-4242", prof / "SingletonLock")
    lock = AccountLock("acct-a", prof, lock_dir)
    assert lock.try_acquire()
    lines: list[str] = []
    result = self_check(prof, lock, lambda t: lines.append(t.english()), lock_was_free=True)
    assert not result.ok
    assert result.holder is not None and result.holder.pid == 4242
    assert "another computer" in lines[0]
    assert os.path.lexists(prof / "SingletonLock")
    lock.release()


@pytest.mark.browser
def test_residue_is_attributed_from_the_command_line_that_matched_it(
    profile_root: Path, lock_dir: Path, raw_chromium: Callable[[Path], subprocess.Popen[bytes]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The attribution (MediaDesk's launch signature, debug port 0) comes from the same reading of the
    command line that put the process on our profile, not from a second reading a moment later: on a
    loaded machine that one can find the command line unreadable (a process rewriting its title, a
    transient /proc error) and turned our own residue into "cannot be attributed". The fault is
    injected for every reading after the scan."""
    prof = profile_root / "acct-a"
    proc = raw_chromium(prof)
    lock = AccountLock("acct-a", prof, lock_dir)
    assert lock.try_acquire()

    real_iter, real_cmdline = psutil.process_iter, psutil.Process.cmdline
    scanning = [False]

    def process_iter(*args: Any, **kwargs: Any) -> Iterator[psutil.Process]:
        scanning[0] = True
        try:
            yield from real_iter(*args, **kwargs)
        finally:
            scanning[0] = False

    def cmdline(self: psutil.Process) -> list[str]:
        if scanning[0]:  # the scan's own reading works
            return real_cmdline(self)
        raise psutil.AccessDenied(self.pid)

    monkeypatch.setattr(psutil, "process_iter", process_iter)
    monkeypatch.setattr(psutil.Process, "cmdline", cmdline)
    lines: list[str] = []
    result = self_check(prof, lock, lambda t: lines.append(t.english()), grace_s=3.0, lock_was_free=True)
    monkeypatch.undo()
    assert result.ok and result.residue and result.residue[0].pid == proc.pid, lines
    assert proc.wait(timeout=10) is not None
    lock.release()
