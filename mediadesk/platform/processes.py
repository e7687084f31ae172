"""Processes: whether one is alive, when it started, its group, and the memory it gives back.

Never ``os.kill(pid, 0)`` to probe a pid: on Windows that call does not probe, it terminates the
process. psutil answers the same questions on every system. Process groups (what a browser's tree
shares even after its main process died) exist on POSIX only; on Windows a tree is collected from
psutil's children before the first signal, so there is no group to search.
"""

from __future__ import annotations

import contextlib
import os
import sys

import psutil

__all__ = ["PROCESS_GROUPS", "group_members", "pid_alive", "process_started", "reap_child", "release_free_memory"]

#: True where processes have groups (POSIX), False on Windows. Read at each call (a test layer sets it to
#: run Windows' way here).
PROCESS_GROUPS: bool = sys.platform != "win32"


def pid_alive(pid: int) -> bool:
    """A live process has this pid (one that exited but is not reaped yet, a zombie, does not count).
    A process we may not inspect is alive: it exists."""
    if pid <= 0:
        return False
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:
        return True


def process_started(pid: int) -> float | None:
    """When the live process ``pid`` started (epoch seconds); None when there is none (or a zombie).
    A pid and this time name one process: pids are reused, start times are not."""
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return None
        return proc.create_time()
    except psutil.Error:
        return None


def group_members(pgid: int) -> list[psutil.Process]:
    """The processes whose process group is ``pgid`` (POSIX). Empty on Windows, which has no process
    groups: there a tree is what psutil lists as the root's children, collected before any signal."""
    if sys.platform == "win32" or not PROCESS_GROUPS:
        return []
    members: list[psutil.Process] = []
    for proc in psutil.process_iter():
        try:
            if os.getpgid(proc.pid) == pgid:
                members.append(proc)
        except OSError:  # gone meanwhile, or not ours to ask
            continue
    return members


def reap_child(pid: int) -> None:
    """Collect the exit status of an exited child of ours, so it does not linger as a zombie (POSIX;
    Windows keeps no zombies). Never waits."""
    if sys.platform == "win32":
        return
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)


def release_free_memory() -> None:
    """Hand the heap's free pages back to the system (glibc ``malloc_trim``, Linux; nothing elsewhere,
    nor on a C library without it, such as musl)."""
    if sys.platform != "linux":
        return
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)
