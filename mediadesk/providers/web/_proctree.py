"""Process-tree helpers shared by the launcher and the self-check: describe, end and verify.

Why a module of its own: ending a Chromium is never "kill one pid". The browser is a tree (zygotes,
renderers, GPU/utility processes); once the main process dies its children are re-parented and can no
longer be found from it. So the tree is always collected BEFORE the first signal, and every collected
process is checked afterwards. A zombie counts as gone: on some machines (this one included) init never
reaps orphans, so zombies of dead Chromium children stay listed forever.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

import psutil

from mediadesk.platform.processes import group_members as _group_members
from mediadesk.platform.processes import reap_child

#: SIGTERM is how Chromium is asked to shut down cleanly; this is how long we wait for it after a grace
#: period already ran out, before SIGKILL. Short on purpose: the grace was the polite part.
TERM_WAIT_S = 1.0
#: SIGKILL is not refusable; this only bounds the wait for the kernel to tear the processes down.
KILL_WAIT_S = 3.0
_POLL_S = 0.05

#: Pids of browsers this process launched and has not closed yet (pid -> profile dir). The self-check
#: consults it so that it never ends a browser an open OwnedBrowser of this very process is using.
LIVE_OWNED: dict[int, str] = {}


@dataclass(frozen=True)
class ProcInfo:
    """A process found on one of our profiles, as shown to the operator (pid, name, command excerpt)."""

    pid: int
    name: str
    cmdline: str
    ppid: int = 0
    create_time: float = 0.0
    #: Why it was listed: "user-data-dir", "port", "singleton-lock" (cmdline unreadable) or "singleton-host".
    matched_by: str = "user-data-dir"
    #: Chromium's ``--type=`` (renderer, zygote, gpu-process, utility...); None for a browser main process.
    process_type: str | None = None
    #: Value of ``--remote-debugging-port``; 0 is MediaDesk's launch signature (the OS picks the port).
    debug_port: int | None = None

    def describe(self) -> str:
        return f"pid {self.pid} ({self.name})"


@dataclass
class EndReport:
    """What ending a set of processes did. ``survivors`` must be empty; anything else is a bug or D-state."""

    pids: list[int] = field(default_factory=list)
    terminated: list[int] = field(default_factory=list)
    killed: list[int] = field(default_factory=list)
    survivors: list[int] = field(default_factory=list)


def excerpt(cmdline: Iterable[str] | None, limit: int = 160) -> str:
    text = " ".join(cmdline or ())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def proc_info(proc: psutil.Process, matched_by: str = "user-data-dir",
              cmdline: list[str] | None = None) -> ProcInfo | None:
    """Snapshot a process for reports; None when it vanished meanwhile.

    ``cmdline``: the command line as already read (the reading that matched the process to a
    profile). Pass it: what the process is (its ``--type``, MediaDesk's launch signature) must come
    from that reading, not from a second one that a loaded machine can find unreadable or half
    rewritten (a process setting its title)."""
    try:
        with proc.oneshot():
            name = proc.name()
            ppid = proc.ppid()
            created = proc.create_time()
            if cmdline is not None:
                cmd = list(cmdline)
            else:
                try:
                    cmd = proc.cmdline()
                except (psutil.AccessDenied, psutil.ZombieProcess):
                    cmd = []
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return None
    ptype = _flag_value(cmd, "--type")
    port = _flag_value(cmd, "--remote-debugging-port")
    return ProcInfo(
        proc.pid, name, excerpt(cmd), ppid, created, matched_by, ptype,
        int(port) if port is not None and port.isdigit() else None,
    )


def _flag_value(cmdline: list[str], flag: str) -> str | None:
    """Value of the last ``flag=value`` (Chromium honours the last occurrence of a switch)."""
    values = [arg.split("=", 1)[1] for arg in cmdline if arg.startswith(flag + "=")]
    return values[-1] if values else None


def protected_pids() -> set[int]:
    """This process and its ancestors: never signalled, whatever their command line says."""
    pids = {os.getpid()}
    with contextlib.suppress(psutil.Error):
        pids.update(p.pid for p in psutil.Process().parents())
    return pids


def collect_tree(pids: Iterable[int]) -> list[psutil.Process]:
    """Each pid plus all its descendants, de-duplicated, collected before anything is signalled."""
    protected = protected_pids()
    seen: dict[int, psutil.Process] = {}
    for pid in pids:
        try:
            root = psutil.Process(pid)
            members = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            continue
        except psutil.AccessDenied:
            members = [root]
        for member in members:
            if member.pid not in protected:
                seen.setdefault(member.pid, member)
    return list(seen.values())


def group_members(pgid: int) -> list[psutil.Process]:
    """Processes whose process group is ``pgid``, ours and our ancestors excluded.

    The launcher starts Chromium in a session of its own, so the group id is the browser's pid and every
    child inherits it, whatever its command line says. The group outlives a crashed main process and
    the kernel never hands out a pid still in use as a group id: a process found here is of our tree,
    even when it is exiting and its command line no longer names the profile. None on Windows (no
    process groups there: the tree collected from the main process before any signal is all of it)."""
    protected = protected_pids()
    return [proc for proc in _group_members(pgid) if proc.pid not in protected]


def _reap_if_child(proc: psutil.Process) -> None:
    """Collect the exit status of a direct child of ours so it does not linger as a zombie."""
    if proc.pid in LIVE_OWNED:
        return  # its Popen reaps it and keeps the exit code
    try:
        if proc.ppid() != os.getpid():
            return
    except psutil.Error:
        return
    reap_child(proc.pid)


def is_gone(proc: psutil.Process) -> bool:
    """True when the process exited (zombies included) or its pid now names another process."""
    try:
        if not proc.is_running():
            return True
        if proc.status() == psutil.STATUS_ZOMBIE:
            _reap_if_child(proc)
            return True
    except psutil.NoSuchProcess:
        return True
    except psutil.AccessDenied:
        return False
    return False


def alive(procs: Iterable[psutil.Process]) -> list[psutil.Process]:
    return [p for p in procs if not is_gone(p)]


def send(procs: Iterable[psutil.Process], *, kill: bool) -> tuple[list[int], list[int]]:
    """SIGTERM (or SIGKILL) each process; returns (pids sent SIGTERM, pids sent SIGKILL).

    A stopped (SIGSTOP) process never acts on SIGTERM, so it gets SIGKILL straight away.
    """
    termed: list[int] = []
    killed: list[int] = []
    for proc in procs:
        try:
            if kill or proc.status() == psutil.STATUS_STOPPED:
                proc.kill()
                killed.append(proc.pid)
            else:
                proc.terminate()
                termed.append(proc.pid)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return termed, killed


def wait_gone_sync(procs: list[psutil.Process], timeout_s: float) -> list[psutil.Process]:
    """Poll until every process is gone or the timeout passes; returns those still alive."""
    deadline = time.monotonic() + max(0.0, timeout_s)
    remaining = alive(procs)
    while remaining and time.monotonic() < deadline:
        time.sleep(_POLL_S)
        remaining = alive(remaining)
    return remaining


def end_processes(
    procs: list[psutil.Process],
    grace_s: float,
    *,
    kill_wait_s: float = KILL_WAIT_S,
) -> EndReport:
    """SIGTERM all, wait up to ``grace_s``, SIGKILL the rest, wait, then verify each one is gone.

    Blocking (it sleeps): run it in a thread from async code.
    """
    report = EndReport(pids=[p.pid for p in procs])
    living = alive(procs)
    if grace_s > 0:
        report.terminated, report.killed = send(living, kill=False)
        living = wait_gone_sync(living, grace_s)
    if living:
        report.killed += send(living, kill=True)[1]
        living = wait_gone_sync(living, kill_wait_s)
    report.survivors = [p.pid for p in living]
    return report
