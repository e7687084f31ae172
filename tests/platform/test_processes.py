"""mediadesk.platform.processes with real processes: liveness, start time, a process group that
outlives its leader, and reaping."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys

import psutil

from mediadesk.platform.files import MODE_BITS
from mediadesk.platform.processes import group_members, pid_alive, process_started, reap_child
from mediadesk.providers.web._proctree import end_processes
from tests.support import skip_unless, until

posix = skip_unless(MODE_BITS, "POSIX: process groups, zombies, signals")
SLEEPER = [sys.executable, "-c", "import time; time.sleep(120)"]


async def _spawn(cmd: list[str], **kwargs: bool) -> subprocess.Popen[bytes]:
    """A plain Popen (not asyncio's, whose child watcher would reap the zombies these tests look at)."""
    return await asyncio.to_thread(subprocess.Popen, cmd, **kwargs)


def _zombie(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


async def test_a_live_process_and_a_dead_one() -> None:
    proc = await _spawn(SLEEPER)
    try:
        assert pid_alive(proc.pid)
        started = process_started(proc.pid)
        assert started is not None and started == psutil.Process(proc.pid).create_time()
        proc.kill()
        await until(lambda: _zombie(proc.pid) or not psutil.pid_exists(proc.pid), "the child to exit")
        # exited but not reaped yet (a zombie): not alive, no start time
        assert (pid_alive(proc.pid), process_started(proc.pid)) == (False, None)
    finally:
        proc.kill()
        proc.wait()
    assert (pid_alive(proc.pid), process_started(proc.pid)) == (False, None)


def test_this_process_and_impossible_pids() -> None:
    assert pid_alive(os.getpid())
    assert process_started(os.getpid()) == psutil.Process().create_time()
    assert (pid_alive(0), pid_alive(-1)) == (False, False)


@posix
async def test_a_killed_tree_is_found_by_its_group_and_ended() -> None:
    """The leader of a process group is SIGKILLed (a browser crash): its children, re-parented, are
    still the group's members; ending them leaves none alive."""
    script = f"import subprocess, sys, time; [subprocess.Popen({SLEEPER!r}) for _ in range(2)]; time.sleep(120)"
    leader = await _spawn([sys.executable, "-c", script], start_new_session=True)
    try:
        await until(lambda: len(group_members(leader.pid)) == 3, "the leader and its two children")
        children = [p.pid for p in psutil.Process(leader.pid).children()]
        assert sorted(p.pid for p in group_members(leader.pid)) == sorted([leader.pid, *children])
        os.kill(leader.pid, signal.SIGKILL)
        leader.wait()
        orphans = [p for p in group_members(leader.pid) if pid_alive(p.pid)]
        assert sorted(p.pid for p in orphans) == sorted(children)
        report = end_processes(orphans, grace_s=5.0)
        assert (sorted(report.terminated), report.survivors) == (sorted(children), [])
        assert [p.pid for p in group_members(leader.pid) if pid_alive(p.pid)] == []
    finally:
        for pid in [leader.pid, *(p.pid for p in group_members(leader.pid))]:
            if pid_alive(pid):
                psutil.Process(pid).kill()
        leader.wait()


@posix
async def test_reaping_an_exited_child() -> None:
    proc = await _spawn([sys.executable, "-c", "pass"])
    await until(lambda: _zombie(proc.pid), "the child to exit")
    reap_child(proc.pid)
    assert not psutil.pid_exists(proc.pid)
    reap_child(proc.pid)  # already reaped (or never ours): nothing happens
    proc.wait()
