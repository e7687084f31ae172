"""A child that ends with MediaDesk where the system has no parent-death signal.

Linux ends a browser with the thread that started it (``PR_SET_PDEATHSIG``, see :mod:`.browsers`). Elsewhere
:func:`end_with_us` ties a child just started to this process:

- Windows: a Job Object with ``JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE``, one for the whole process, whose handle
  only this process holds: when it ends, however it ends, the system closes the handle and ends every process
  of the job (what the child starts after joining it is in the job too).
- Elsewhere (macOS), or where the job cannot be had: a watchdog, a small process of its own
  (``python -m mediadesk.platform.reaper --parent PID --parent-started T --child PID --child-started T``; the
  packaged app runs itself with ``--reaper`` first) that waits for the parent to end and then ends the child's
  whole tree (collected before the first signal: terminate, a grace, kill). Each process is named by its pid
  AND its start time, so a reused pid never fools it; it exits by itself when the child ends first.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import functools
import os
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import psutil

from mediadesk.platform.processes import process_started

__all__ = ["end_tree", "end_with_us", "main", "watch", "watchdog_command"]

#: How often the watchdog looks at the two processes (it has nothing else to do).
POLL_S = 0.1
#: How long the child's tree has, once asked to end, before it is killed.
GRACE_S = 3.0
#: Two start times of one process, read by two processes, differ by less than this; a reused pid starts later.
_SAME_START_S = 0.05
#: The argument that makes the packaged app a watchdog (``mediadesk --reaper ...``).
FROZEN_FLAG = "--reaper"
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]


def end_with_us(pid: int) -> None:
    """End the child ``pid`` (just started by this process) when this process ends, whatever ends it: a Job
    Object on Windows (a watchdog when none can be had), a watchdog elsewhere. Never raises: a child that
    could not be tied is left to the self-check of the next start."""
    if sys.platform == "win32" and _join_kill_on_close_job(pid):
        return
    started = process_started(pid)
    me = process_started(os.getpid())
    if started is None or me is None:
        return
    command = watchdog_command(os.getpid(), me, pid, started)
    cwd = None if getattr(sys, "frozen", False) else _PACKAGE_ROOT  # where ``-m`` finds this package
    try:
        if sys.platform == "win32":
            proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, close_fds=True, cwd=cwd,
                                    creationflags=subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.CREATE_NO_WINDOW)
        else:  # a session of its own: a Ctrl-C in our terminal does not end the watchdog with us
            proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, close_fds=True, cwd=cwd,
                                    start_new_session=True)
    except OSError:
        return
    # collect its exit status when it ends before us (no zombie left behind)
    threading.Thread(target=proc.wait, name=f"reaper-{pid}", daemon=True).start()


def watchdog_command(parent: int, parent_started: float, child: int, child_started: float) -> list[str]:
    """The command line of a watchdog over ``child`` for ``parent`` (start times as :func:`process_started`
    gives them): this interpreter with ``-m``, or the packaged app with ``--reaper``."""
    head = [sys.executable, FROZEN_FLAG] if getattr(sys, "frozen", False) else \
        [sys.executable, "-m", "mediadesk.platform.reaper"]
    return [*head, "--parent", str(parent), "--parent-started", repr(parent_started),
            "--child", str(child), "--child-started", repr(child_started)]


def _the_same(pid: int, started: float) -> bool:
    """``pid`` is still the live process that started at ``started`` (not a zombie, not a reused pid)."""
    now = process_started(pid)
    return now is not None and abs(now - started) < _SAME_START_S


def end_tree(root: psutil.Process, grace_s: float = GRACE_S) -> list[psutil.Process]:
    """End ``root`` and all its descendants (collected before the first signal: a tree whose root died can
    no longer be found from it): terminate, wait up to ``grace_s``, kill what is left. Returns the processes
    still alive after that (none, unless the system refused)."""
    procs = [root]
    with contextlib.suppress(psutil.Error):
        procs += root.children(recursive=True)
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.terminate()
    _gone, alive = psutil.wait_procs(procs, timeout=grace_s)
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    _gone, alive = psutil.wait_procs(alive, timeout=grace_s)
    return alive


def watch(parent: int, parent_started: float, child: int, child_started: float, *, poll_s: float = POLL_S,
          grace_s: float = GRACE_S) -> int:
    """Wait until the parent or the child ends; when the parent ended first, end the child's tree. Returns the
    exit code of the watchdog: 0, or 1 when part of the tree outlived the kill."""
    try:
        root = psutil.Process(child)
    except psutil.Error:
        return 0
    while _the_same(child, child_started):
        if not _the_same(parent, parent_started):
            # the parent is gone: the child is ours to end (checked once more, now with its tree)
            return 1 if _the_same(child, child_started) and end_tree(root, grace_s) else 0
        time.sleep(poll_s)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mediadesk.platform.reaper`` (or ``mediadesk --reaper``): :func:`watch` over the arguments."""
    parser = argparse.ArgumentParser(prog="mediadesk --reaper", description="end a child when its parent ends")
    parser.add_argument("--parent", type=int, required=True)
    parser.add_argument("--parent-started", type=float, required=True)
    parser.add_argument("--child", type=int, required=True)
    parser.add_argument("--child-started", type=float, required=True)
    args = parser.parse_args(argv)
    return watch(args.parent, args.parent_started, args.child, args.child_started)


# --- Windows: a Job Object that ends its processes when its last handle closes ------------------------------

_JOB_OBJECT_EXTENDED_LIMIT_INFORMATION = 9
_JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x2000
_PROCESS_TERMINATE = 0x0001
_PROCESS_SET_QUOTA = 0x0100


@functools.cache
def _kernel32() -> ctypes.CDLL | None:
    """kernel32 with the signatures used here (None off Windows)."""
    if sys.platform != "win32":
        return None
    from ctypes import wintypes

    k32 = ctypes.WinDLL("kernel32", use_last_error=True)
    k32.CreateJobObjectW.argtypes = [wintypes.LPVOID, wintypes.LPCWSTR]
    k32.CreateJobObjectW.restype = wintypes.HANDLE
    k32.SetInformationJobObject.argtypes = [wintypes.HANDLE, ctypes.c_int, wintypes.LPVOID, wintypes.DWORD]
    k32.SetInformationJobObject.restype = wintypes.BOOL
    k32.OpenProcess.argtypes = [wintypes.DWORD, wintypes.BOOL, wintypes.DWORD]
    k32.OpenProcess.restype = wintypes.HANDLE
    k32.AssignProcessToJobObject.argtypes = [wintypes.HANDLE, wintypes.HANDLE]
    k32.AssignProcessToJobObject.restype = wintypes.BOOL
    k32.CloseHandle.argtypes = [wintypes.HANDLE]
    k32.CloseHandle.restype = wintypes.BOOL
    return k32


@functools.cache
def _kill_on_close_job() -> int | None:
    """This process's Job Object that ends its members when this process ends (None off Windows, or when the
    system refuses one). Its handle is never closed (nor inherited): the system closes it as we end."""
    k32 = _kernel32()
    if sys.platform != "win32" or k32 is None:
        return None
    from ctypes import wintypes

    class BasicLimits(ctypes.Structure):
        _fields_ = [("PerProcessUserTimeLimit", ctypes.c_int64), ("PerJobUserTimeLimit", ctypes.c_int64),
                    ("LimitFlags", wintypes.DWORD), ("MinimumWorkingSetSize", ctypes.c_size_t),
                    ("MaximumWorkingSetSize", ctypes.c_size_t), ("ActiveProcessLimit", wintypes.DWORD),
                    ("Affinity", ctypes.c_size_t), ("PriorityClass", wintypes.DWORD),
                    ("SchedulingClass", wintypes.DWORD)]

    class IoCounters(ctypes.Structure):
        _fields_ = [(name, ctypes.c_uint64) for name in (
            "ReadOperationCount", "WriteOperationCount", "OtherOperationCount", "ReadTransferCount",
            "WriteTransferCount", "OtherTransferCount")]

    class ExtendedLimits(ctypes.Structure):
        _fields_ = [("BasicLimitInformation", BasicLimits), ("IoInfo", IoCounters),
                    ("ProcessMemoryLimit", ctypes.c_size_t), ("JobMemoryLimit", ctypes.c_size_t),
                    ("PeakProcessMemoryUsed", ctypes.c_size_t), ("PeakJobMemoryUsed", ctypes.c_size_t)]

    job = k32.CreateJobObjectW(None, None)
    if not job:
        return None
    info = ExtendedLimits()
    info.BasicLimitInformation.LimitFlags = _JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
    if not k32.SetInformationJobObject(job, _JOB_OBJECT_EXTENDED_LIMIT_INFORMATION, ctypes.byref(info),
                                       ctypes.sizeof(info)):
        k32.CloseHandle(job)
        return None
    return int(job)


def _join_kill_on_close_job(pid: int) -> bool:
    """Put ``pid`` into :func:`_kill_on_close_job`; False when that cannot be done (off Windows, no job, the
    process gone or not ours to assign)."""
    k32 = _kernel32()
    job = _kill_on_close_job()
    if sys.platform != "win32" or k32 is None or job is None:
        return False
    handle = k32.OpenProcess(_PROCESS_SET_QUOTA | _PROCESS_TERMINATE, False, pid)
    if not handle:
        return False
    try:
        return bool(k32.AssignProcessToJobObject(job, handle))
    finally:
        k32.CloseHandle(handle)


if __name__ == "__main__":
    raise SystemExit(main())
