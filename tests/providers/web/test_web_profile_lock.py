"""Account and instance locks across lock objects, threads and real processes."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mediadesk.providers.web import (
    AccountLock,
    AccountLockedError,
    InstanceLock,
    InstanceLockedError,
    account_lock_path,
    default_lock_dir,
    is_account_lock_free,
    read_devtools_port,
    spawn_chromium,
)
from mediadesk.providers.web.selfcheck import end_browser_tree


def test_lock_path_binds_account_and_resolved_profile(tmp_path: Path, lock_dir: Path) -> None:
    prof = tmp_path / "profiles" / "acct a/1"
    path = account_lock_path("acct a/1", prof, lock_dir)
    assert path.parent == lock_dir
    assert re.fullmatch(r"mediadesk-acct-acct-a-1-[0-9a-f]{16}\.lock", path.name)
    # The same directory spelled differently is the same lock; another account or profile is not.
    assert account_lock_path("acct a/1", tmp_path / "profiles" / "x" / ".." / "acct a/1", lock_dir) == path
    assert account_lock_path("acct-b", prof, lock_dir) != path
    assert account_lock_path("acct a/1", tmp_path / "other", lock_dir) != path


def test_default_lock_dir_without_runtime_dir_is_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    path = default_lock_dir()
    assert path == tmp_path / f"mediadesk-{os.getuid()}"
    assert stat.S_IMODE(path.stat().st_mode) == 0o700


def test_two_lock_objects_in_one_process_exclude_each_other(tmp_path: Path, lock_dir: Path) -> None:
    first = AccountLock("acct-a", tmp_path / "p", lock_dir)
    second = AccountLock("acct-a", tmp_path / "p", lock_dir)
    assert first.try_acquire() and first.held
    assert not second.try_acquire() and not second.held
    assert second.holder_pid() == os.getpid()
    assert not is_account_lock_free("acct-a", tmp_path / "p", lock_dir)
    first.release()
    assert not first.held
    assert is_account_lock_free("acct-a", tmp_path / "p", lock_dir)
    assert second.try_acquire()
    second.release()


def test_release_from_another_thread(tmp_path: Path, lock_dir: Path) -> None:
    """The lane may take the lock on the loop thread and release it from a worker thread."""
    lock = AccountLock("acct-a", tmp_path / "p", lock_dir)
    assert lock.try_acquire()
    worker = threading.Thread(target=lock.release)
    worker.start()
    worker.join()
    assert is_account_lock_free("acct-a", tmp_path / "p", lock_dir)


def test_account_lock_across_processes(
    tmp_path: Path, lock_dir: Path, spawn_helper: Callable[..., Any]
) -> None:
    prof = tmp_path / "p"
    helper = spawn_helper(account="acct-a", profile=str(prof), lock_dir=str(lock_dir))
    ours = AccountLock("acct-a", prof, lock_dir)
    assert not ours.try_acquire()
    assert ours.holder_pid() == helper.pid
    with pytest.raises(AccountLockedError, match=f"pid {helper.pid}"), ours:
        pass
    assert helper.quit() == 0
    assert ours.try_acquire()
    assert ours.holder_pid() == os.getpid()
    ours.release()


def test_lock_is_freed_when_the_holder_is_sigkilled(
    tmp_path: Path, lock_dir: Path, spawn_helper: Callable[..., Any]
) -> None:
    prof = tmp_path / "p"
    helper = spawn_helper(account="acct-a", profile=str(prof), lock_dir=str(lock_dir))
    ours = AccountLock("acct-a", prof, lock_dir)
    assert not ours.try_acquire()
    helper.sigkill()
    assert ours.holder_pid() is None  # the sidecar still names it, but that pid is dead
    assert ours.try_acquire()
    ours.release()


def test_instance_lock_refuses_a_second_holder_naming_its_pid(
    tmp_path: Path, spawn_helper: Callable[..., Any]
) -> None:
    data_dir = tmp_path / "data"
    helper = spawn_helper(data_dir=str(data_dir))
    second = InstanceLock(data_dir)
    with pytest.raises(InstanceLockedError) as err:
        second.acquire()
    msg = str(err.value)
    assert f"pid {helper.pid}" in msg
    assert str(data_dir) in msg
    assert err.value.holder_pid == helper.pid
    helper.quit()
    with InstanceLock(data_dir) as first:
        assert first.held
        with pytest.raises(InstanceLockedError, match=f"pid {os.getpid()}"):
            InstanceLock(data_dir).acquire()


@pytest.mark.browser
def test_lock_survives_spawning_chromium_and_is_not_inherited(
    tmp_path: Path,
    lock_dir: Path,
    chromium_exe: Path,
    spawn_helper: Callable[..., Any],
    wait_until: Callable[..., None],
) -> None:
    """Chromium is forked while we hold the lock (fork hooks run for preexec_fn): the lock must stay ours
    and must not leak into the browser, or a crash of ours would leave the account locked."""
    prof = tmp_path / "p"
    ours = AccountLock("acct-a", prof, lock_dir)
    assert ours.try_acquire()
    browser = spawn_chromium(chromium_exe, tmp_path / "profiles" / "acct-a")
    try:
        wait_until(lambda: read_devtools_port(tmp_path / "profiles" / "acct-a") is not None, 30, "chromium")
        probe = subprocess.run(
            [sys.executable, "-c",
             "import sys; from pathlib import Path; from mediadesk.providers.web import is_account_lock_free;"
             f"sys.exit(0 if is_account_lock_free('acct-a', Path({str(prof)!r}), Path({str(lock_dir)!r})) "
             "else 3)"],
            check=False,
        )
        assert probe.returncode == 3  # still held by us
        ours.release()
        assert browser.poll() is None  # the browser still runs ...
        helper = spawn_helper(account="acct-a", profile=str(prof), lock_dir=str(lock_dir))
        assert helper.pid > 0  # ... and another process got the lock
    finally:
        end_browser_tree(browser.pid, tmp_path / "profiles" / "acct-a", grace_s=2)
        browser.wait(timeout=10)
