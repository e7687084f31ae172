"""The one lock primitive, against real processes and real files: a holder in another process, a holder
killed by SIGKILL, a stale record whose pid was reused, planted symlinks, file modes under a loose umask."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from mediadesk.core.errors import ErrorKind
from mediadesk.files import locks as locking
from mediadesk.files.locks import LockError, LockHeldError, OwnedFileLock, UnsafeLockPathError

ROOT = Path(__file__).resolve().parents[1]

HOLDER = r"""
import sys
from pathlib import Path
from mediadesk.files.locks import OwnedFileLock
lock = OwnedFileLock(Path(sys.argv[1]), "test lock")
assert lock.try_acquire()
print("locked", flush=True)
sys.stdin.readline()
lock.release()
"""


@pytest.fixture
def spawn_holder() -> Iterator[Callable[[Path], subprocess.Popen[str]]]:
    """A child process that takes the lock at a path and keeps it until told (or killed)."""
    children: list[subprocess.Popen[str]] = []

    def spawn(path: Path) -> subprocess.Popen[str]:
        child = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(path)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT,
        )
        children.append(child)
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "locked", "the child could not take the lock"
        return child

    yield spawn
    for child in children:
        if child.poll() is None:
            child.kill()
        child.communicate(timeout=10)


def test_a_lock_held_by_another_process_is_refused_naming_it(
    tmp_path: Path, spawn_holder: Callable[[Path], subprocess.Popen[str]]
) -> None:
    path = tmp_path / "x.lock"
    child = spawn_holder(path)
    name = psutil.Process(child.pid).name()
    ours = OwnedFileLock(path, "the x")
    assert not ours.try_acquire() and not ours.held
    assert ours.holder() == (child.pid, name)
    with pytest.raises(LockHeldError) as err:
        ours.acquire()
    assert err.value.holder_pid == child.pid and err.value.lock_path == path
    assert f"pid {child.pid} ({name})" in str(err.value) and "the x" in str(err.value)
    with pytest.raises(LockHeldError), ours:
        pass
    # Told to quit, the child releases: the lock is ours, and so is the record.
    assert child.stdin is not None
    child.stdin.write("quit\n")
    child.stdin.flush()
    assert child.wait(timeout=10) == 0
    with ours:
        assert ours.held and ours.holder_pid() == os.getpid()
        record = json.loads(ours.owner_path.read_text(encoding="utf-8"))
        assert record["pid"] == os.getpid() and record["label"] == "the x"
        assert record["host"] == socket.gethostname()
        assert record["create_time"] == pytest.approx(psutil.Process().create_time())
    assert not ours.held and not ours.owner_path.exists()


def test_a_sigkilled_holder_leaves_the_lock_free(
    tmp_path: Path, spawn_holder: Callable[[Path], subprocess.Popen[str]]
) -> None:
    path = tmp_path / "x.lock"
    child = spawn_holder(path)
    ours = OwnedFileLock(path, "x")
    assert not ours.try_acquire()
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=10)
    assert json.loads(ours.owner_path.read_text(encoding="utf-8"))["pid"] == child.pid  # the record stays ...
    assert ours.holder() is None  # ... but names a dead process
    assert ours.try_acquire()
    assert ours.holder() == (os.getpid(), psutil.Process().name())
    ours.release()


def test_a_stale_record_with_a_reused_pid_is_not_the_holder(
    tmp_path: Path, spawn_holder: Callable[[Path], subprocess.Popen[str]]
) -> None:
    """A record naming a live pid that started at another time is a reused pid, not the holder."""
    path = tmp_path / "x.lock"
    spawn_holder(path)
    ours = OwnedFileLock(path, "x")
    me = psutil.Process()

    def record(**fields: object) -> None:
        base = {"pid": os.getpid(), "create_time": me.create_time(), "host": socket.gethostname(), "label": "x"}
        ours.owner_path.write_text(json.dumps({**base, **fields}), encoding="utf-8")

    record()
    assert ours.holder() == (os.getpid(), me.name())  # control: the right start time names us
    record(create_time=me.create_time() - 3600)
    assert ours.holder() is None
    with pytest.raises(LockHeldError, match=r"pid unknown") as err:
        ours.acquire()
    assert err.value.holder_pid is None
    record(create_time=None)
    assert ours.holder() is None  # cannot be checked, so not reported
    record(host=socket.gethostname() + "-elsewhere")
    assert ours.holder() is None  # a pid on another host means nothing here
    ours.owner_path.write_text("not json", encoding="utf-8")
    assert ours.holder() is None


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    victim.chmod(0o644)
    return victim


def _assert_untouched(victim: Path) -> None:
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert stat.S_IMODE(victim.stat().st_mode) == 0o644


def test_a_symlink_at_the_owner_path_is_refused_and_not_followed(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    lock = OwnedFileLock(tmp_path / "x.lock", "x")
    lock.owner_path.symlink_to(victim)
    with pytest.raises(UnsafeLockPathError) as err:
        lock.try_acquire()
    assert err.value.path == lock.owner_path
    assert str(lock.owner_path) in str(err.value) and "remove it" in str(err.value)
    assert not lock.held
    _assert_untouched(victim)
    assert lock.owner_path.is_symlink() and lock.owner_path.readlink() == victim  # not replaced either
    assert lock.holder() is None  # not read through the link
    lock.owner_path.unlink()
    assert lock.try_acquire()  # once removed, the lock works again
    lock.release()


def test_a_symlink_at_the_lock_path_is_refused_and_not_followed(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    lock = OwnedFileLock(tmp_path / "x.lock", "x")
    lock.path.symlink_to(victim)
    with pytest.raises(UnsafeLockPathError, match=str(lock.path)):
        lock.acquire()
    assert not lock.held and not lock.owner_path.exists()
    _assert_untouched(victim)
    assert lock.path.is_symlink()


def test_a_symlink_planted_after_the_check_is_still_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check before opening can race with whoever plants the link; the open itself refuses links."""
    victim = _victim(tmp_path)
    lock = OwnedFileLock(tmp_path / "x.lock", "x")
    lock.path.symlink_to(victim)
    monkeypatch.setattr(locking, "_refuse_symlink", lambda path: None)
    with pytest.raises(UnsafeLockPathError, match=str(lock.path)):
        lock.try_acquire()
    assert not lock.held
    _assert_untouched(victim)


def test_files_and_directory_are_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        lock = OwnedFileLock(tmp_path / "new" / "x.lock", "x")
        with lock:
            assert stat.S_IMODE(lock.path.parent.stat().st_mode) == 0o700
            assert stat.S_IMODE(lock.path.stat().st_mode) == 0o600
            assert stat.S_IMODE(lock.owner_path.stat().st_mode) == 0o600
            assert sorted(p.name for p in lock.path.parent.iterdir()) == ["x.lock", "x.lock.owner"]  # no temp left
    finally:
        os.umask(old)


def test_two_objects_in_one_process_and_release_from_another_thread(tmp_path: Path) -> None:
    first = OwnedFileLock(tmp_path / "x.lock", "x")
    second = OwnedFileLock(tmp_path / "x.lock", "x")
    assert first.try_acquire() and first.try_acquire()  # idempotent for the holder
    assert not second.try_acquire()
    assert second.holder_pid() == os.getpid()
    worker = threading.Thread(target=first.release)
    worker.start()
    worker.join()
    assert not first.held
    assert second.try_acquire()
    first.release()  # not the holder: a no-op that leaves second's record alone
    assert second.owner_path.exists() and second.holder_pid() == os.getpid()
    second.release()


def test_the_users_errors_are_lock_errors() -> None:
    """Entry points catch ``LockError``; the web lane still reads ``kind`` from its errors."""
    from mediadesk.providers.web import AccountLockedError, InstanceLockedError
    from mediadesk.providers.web import LockHeldError as WebLockHeldError
    from mediadesk.store import DatabaseBusyError

    for cls in (DatabaseBusyError, AccountLockedError, InstanceLockedError, WebLockHeldError):
        assert issubclass(cls, LockHeldError) and issubclass(cls, LockError)
    assert issubclass(UnsafeLockPathError, LockError)
    assert AccountLockedError.kind is ErrorKind.PROFILE_IN_USE
    assert InstanceLockedError.kind is ErrorKind.CONFIG
    err = AccountLockedError("m", lock_path=Path("p"), holder_pid=7)
    assert (str(err), err.lock_path, err.holder_pid) == ("m", Path("p"), 7)
