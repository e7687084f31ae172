"""Before a launch: is anything still running on this account's profile, and is it ours to end?

Residue of a crash (a browser recorded by us or by a dead MediaDesk, one launched the MediaDesk way while
nobody held the account lock, an orphaned Chromium child) is ended; anything else is a HOLDER, reported and
left alone: when in doubt we do not kill, we explain (rules: :func:`_classify`). Matching is by the exact,
resolved ``--user-data-dir`` (``/p/acct-a`` never matches ``/p/acct-ab``); a process found only by the
recorded debug port is ended only when it is exactly the recorded one (pid and start time): ports are reused.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import socket
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from mediadesk.core.log_lines import LOG, LogText, LogValue
from mediadesk.files.safe import write_private_file
from mediadesk.platform.processes import process_started
from mediadesk.providers.web._proctree import (
    LIVE_OWNED,
    EndReport,
    ProcInfo,
    collect_tree,
    end_processes,
    proc_info,
    protected_pids,
)
from mediadesk.providers.web.profile_lock import AccountLock

RECORD_NAME = ".mediadesk-browser.json"
SINGLETON_FILES = ("SingletonLock", "SingletonSocket", "SingletonCookie")
_UDD_FLAGS = ("--user-data-dir", "-user-data-dir")


# --- the record a launcher leaves on its profile --------------------------------------------------------


@dataclass(frozen=True)
class BrowserRecord:
    """Written by ``OwnedBrowser.start`` and removed on a clean close: who launched what, when."""

    pid: int
    port: int
    profile_dir: str
    started_at: float
    owner_pid: int
    create_time: float | None = None
    owner_create_time: float | None = None


def read_browser_record(profile_dir: Path) -> BrowserRecord | None:
    try:
        data = json.loads((Path(profile_dir) / RECORD_NAME).read_text(encoding="utf-8"))
        return BrowserRecord(
            pid=int(data["pid"]),
            port=int(data["port"]),
            profile_dir=str(data["profile_dir"]),
            started_at=float(data["started_at"]),
            owner_pid=int(data["owner_pid"]),
            create_time=_opt_float(data.get("create_time")),
            owner_create_time=_opt_float(data.get("owner_create_time")),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _opt_float(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def write_browser_record(profile_dir: Path, record: BrowserRecord) -> None:
    # private, through a fresh temp file renamed into place (never through a link)
    write_private_file(Path(profile_dir) / RECORD_NAME, json.dumps(dataclasses.asdict(record)), "browser record")


def remove_browser_record(profile_dir: Path) -> None:
    with contextlib.suppress(OSError):
        (Path(profile_dir) / RECORD_NAME).unlink()


# --- finding processes on a profile ----------------------------------------------------------------------


def _norm(path: str, cwd: str | None = None) -> str | None:
    if not os.path.isabs(path):
        if cwd is None:
            return None
        path = os.path.join(cwd, path)
    return os.path.realpath(path)


def user_data_dirs(cmdline: list[str]) -> list[str]:
    """Values of ``--user-data-dir=X`` / ``--user-data-dir X`` (and single-dash forms), raw."""
    out: list[str] = []
    for i, arg in enumerate(cmdline):
        for flag in _UDD_FLAGS:
            if arg.startswith(flag + "="):
                out.append(arg[len(flag) + 1:].strip('"'))
            elif arg == flag and i + 1 < len(cmdline):
                out.append(cmdline[i + 1])
    return out


def _scan(match: Callable[[list[str], str], bool]) -> list[tuple[psutil.Process, list[str]]]:
    """Processes whose resolved user-data-dir satisfies ``match``; ours and our ancestors excluded."""
    protected = protected_pids()
    found: list[tuple[psutil.Process, list[str]]] = []
    for proc in psutil.process_iter(["pid", "name", "cmdline"]):
        if proc.pid in protected:
            continue
        cmdline = proc.info.get("cmdline") or []
        raw_dirs = user_data_dirs(cmdline)
        if not raw_dirs:
            continue
        cwd: str | None = None
        resolved: list[str] = []
        for raw in raw_dirs:
            if not os.path.isabs(raw) and cwd is None:
                with contextlib.suppress(psutil.Error):
                    cwd = proc.cwd()
            norm = _norm(raw, cwd)
            if norm is not None:
                resolved.append(norm)
        # Chromium honours the last occurrence of a switch.
        if resolved and match(cmdline, resolved[-1]):
            found.append((proc, cmdline))
    return found


def _listening_pids(port: int) -> set[int]:
    pids: set[int] = set()
    with contextlib.suppress(psutil.Error, OSError):
        for conn in psutil.net_connections(kind="tcp"):
            if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port and conn.pid:
                pids.add(conn.pid)
    return pids


def find_profile_processes(profile_dir: Path, port: int | None = None) -> list[ProcInfo]:
    """Processes whose command line names exactly this profile dir, plus (when ``port`` is given) those
    started with ``--remote-debugging-port=<port>`` or listening on it. AccessDenied, vanished processes and
    zombies are skipped."""
    target = os.path.realpath(Path(profile_dir).expanduser())
    found = {p.pid: proc_info(p, cmdline=cmd) for p, cmd in _scan(lambda _cmd, udd: udd == target)}
    if port:
        protected = protected_pids()
        flag = f"--remote-debugging-port={port}"
        by_port = set(_listening_pids(port))
        for proc in psutil.process_iter(["pid", "cmdline"]):
            if flag in (proc.info.get("cmdline") or []):
                by_port.add(proc.pid)
        for pid in by_port - set(found) - protected:
            with contextlib.suppress(psutil.Error):
                found[pid] = proc_info(psutil.Process(pid), matched_by="port")
    return [info for info in found.values() if info is not None]


def _parent_gone(ppid: int) -> bool:
    return ppid <= 1 or not _alive_as(ppid, None)


def orphaned_children(profile_dir: Path, since: float, parents: Iterable[int] = ()) -> list[ProcInfo]:
    """Chromium child processes (``--type=...``) on the profile, started at or after ``since``, whose parent
    is gone, is init, or is one of ``parents`` (pids just ended). A child spawned while its browser was being
    ended is missed by the tree collected before the first signal; this finds it. Such a process serves no
    browser, so ending it can never take a profile away from anyone."""
    known = set(parents)
    return [
        info for info in find_profile_processes(profile_dir)
        if info.process_type is not None and info.create_time >= since - 0.01
        and (info.ppid in known or _parent_gone(info.ppid))
    ]


def end_browser_tree(pid: int, profile_dir: Path, grace_s: float = 3.0) -> EndReport:
    """End a Chromium tree we own (SIGTERM, grace, SIGKILL), then sweep children it spawned after the tree
    was collected. Blocking. For cleanup paths that have a pid but no ``OwnedBrowser`` (tests, tools)."""
    try:
        since = psutil.Process(pid).create_time()
    except psutil.Error:
        since = time.time() - 3600.0
    procs = collect_tree([pid])
    report = end_processes(procs, grace_s)
    known = set(report.pids) | {pid}
    for _ in range(3):
        late = [p for p in collect_tree(o.pid for o in orphaned_children(profile_dir, since, known))
                if p.pid not in known]
        if not late:
            break
        extra = end_processes(late, 0)
        report.pids += extra.pids
        report.killed += extra.killed
        report.survivors += extra.survivors
        known.update(extra.pids)
    return report


def find_our_residue(profile_root: Path) -> list[ProcInfo]:
    """Processes whose user-data-dir is ``profile_root`` or anywhere under it (a cleanup/test utility)."""
    root = Path(os.path.realpath(Path(profile_root).expanduser()))
    hits = _scan(lambda _cmd, udd: Path(udd) == root or Path(udd).is_relative_to(root))
    return [info for info in (proc_info(p, cmdline=cmd) for p, cmd in hits) if info is not None]


def read_singleton_lock(profile_dir: Path) -> tuple[str, int] | None:
    """(hostname, pid) from Chromium's ``SingletonLock`` symlink (target ``<hostname>-<pid>``), or None."""
    try:
        target = os.readlink(Path(profile_dir) / "SingletonLock")
    except OSError:
        return None
    host, sep, pid = target.rpartition("-")
    if not sep or not pid.isdigit():
        return None
    return host, int(pid)


def singleton_holder(profile_dir: Path) -> ProcInfo | None:
    """The process Chromium's own lock names, when it is a live process that may hold this profile.

    A pid on another host is reported as is (Chromium refuses that profile too). A local pid whose command
    line we can read and that does not name this profile is a reused pid: the lock is stale, not held.
    """
    entry = read_singleton_lock(profile_dir)
    if entry is None:
        return None
    host, pid = entry
    if host != socket.gethostname():
        return ProcInfo(pid, f"chromium on host {host}", "", matched_by="singleton-host")
    if pid in protected_pids():
        return None
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return None
        try:
            cmdline = proc.cmdline()
        except psutil.AccessDenied:
            return proc_info(proc, matched_by="singleton-lock")
    except psutil.Error:
        return None
    target = os.path.realpath(Path(profile_dir).expanduser())
    dirs = user_data_dirs(cmdline)
    if dirs and _norm(dirs[-1]) == target:
        return proc_info(proc)
    return None


# --- the decision ------------------------------------------------------------------------------------------


@dataclass
class SelfCheckResult:
    """What the self-check found and did. ``ok`` means the launch may go ahead."""

    profile_dir: Path
    residue: list[ProcInfo] = field(default_factory=list)
    ended_pids: list[int] = field(default_factory=list)
    killed_pids: list[int] = field(default_factory=list)
    survivors: list[int] = field(default_factory=list)
    holders: list[ProcInfo] = field(default_factory=list)
    removed_files: list[str] = field(default_factory=list)
    messages: list[LogText] = field(default_factory=list)

    @property
    def holder(self) -> ProcInfo | None:
        return self.holders[0] if self.holders else None

    @property
    def clean(self) -> bool:
        """Nothing was found on the profile at all."""
        return not (self.residue or self.holders or self.survivors)

    @property
    def ok(self) -> bool:
        return not self.holders and not self.survivors


def _same_start(a: float | None, b: float) -> bool:
    return a is None or abs(a - b) < 0.5


def _alive_as(pid: int, create_time: float | None) -> bool:
    started = process_started(pid)
    return started is not None and _same_start(create_time, started)


def _roots(procs: Iterable[ProcInfo]) -> dict[int, list[ProcInfo]]:
    """Group processes by their top-most ancestor within the set (the browser main process)."""
    by_pid = {p.pid: p for p in procs}
    groups: dict[int, list[ProcInfo]] = {}
    for info in by_pid.values():
        top = info
        hops = 0
        while top.ppid in by_pid and top.ppid != top.pid and hops < 64:
            top = by_pid[top.ppid]
            hops += 1
        groups.setdefault(top.pid, []).append(info)
    return groups


def _classify(
    root: ProcInfo,
    record: BrowserRecord | None,
    account_lock: AccountLock,
    lock_was_free: bool,
) -> tuple[bool, LogText]:
    """(is_residue, reason). Residue: a browser recorded (pid + start time) by us or by a MediaDesk now gone; with
    the account lock free, one launched with ``--remote-debugging-port=0`` whose launcher is gone or is us (and
    no open ``OwnedBrowser`` has it); a Chromium child (``--type=...``) whose parent is gone. Anything else, and
    anything while another live process holds the account lock, is a holder."""
    if root.pid in LIVE_OWNED:
        return False, LOG.in_use_by_open_browser()
    if root.matched_by == "singleton-host":
        return False, LOG.singleton_other_computer()
    if root.matched_by == "singleton-lock":
        return False, LOG.singleton_unreadable()
    if not account_lock.held:
        other = account_lock.holder_pid()
        if other is not None and other != os.getpid():
            return False, LOG.lock_held_by(pid=other)
    if root.process_type is not None and _parent_gone(root.ppid):
        return True, LOG.orphaned_process(type=root.process_type)
    recorded = record is not None and record.pid == root.pid and _same_start(record.create_time, root.create_time)
    if recorded and record is not None:
        if record.owner_pid == os.getpid() and _alive_as(record.owner_pid, record.owner_create_time):
            return True, LOG.recorded_by_us()
        if not _alive_as(record.owner_pid, record.owner_create_time):
            return True, LOG.recorded_by_gone(pid=record.owner_pid)
        return False, LOG.belongs_to_running(pid=record.owner_pid)
    if root.matched_by == "port":
        return False, LOG.holds_our_port_only()
    if account_lock.held and lock_was_free and root.debug_port == 0:
        # Launched the way MediaDesk launches (debug port 0), and nobody alive claims the account.
        if root.ppid == os.getpid():
            return True, LOG.started_by_us_not_open()
        if _parent_gone(root.ppid):
            return True, LOG.started_by_gone()
    return False, LOG.not_attributable()


def _remove_stale_files(profile_dir: Path, record: BrowserRecord | None) -> list[str]:
    removed: list[str] = []
    for name in (*SINGLETON_FILES, "DevToolsActivePort"):
        path = Path(profile_dir) / name
        if os.path.lexists(path):
            with contextlib.suppress(OSError):
                path.unlink()
                removed.append(name)
    if record is not None:
        remove_browser_record(profile_dir)
        removed.append(RECORD_NAME)
    return removed


def self_check(
    profile_dir: Path,
    account_lock: AccountLock,
    log: Callable[[LogText], None],
    grace_s: float = 3.0,
    *,
    lock_was_free: bool = False,
) -> SelfCheckResult:
    """Run before every launch, normally while holding ``account_lock``. Blocking: call it in a thread.

    ``lock_was_free``: True when the caller just took the account lock and it was free (so no live process
    claimed the account). With False, an unrecorded process on the profile is a holder.
    """
    profile_dir = Path(profile_dir)
    result = SelfCheckResult(profile_dir)
    record = read_browser_record(profile_dir)
    port = record.port if record is not None else None
    seen: set[int] = set()
    # Several passes: ending a browser that was still starting can orphan a child it spawned meanwhile.
    for _ in range(3):
        found = [p for p in find_profile_processes(profile_dir, port=port) if p.pid not in seen]
        sing = singleton_holder(profile_dir)
        if sing is not None and sing.pid not in seen and sing.pid not in {p.pid for p in found}:
            found.append(sing)
        if not found:
            break
        seen.update(p.pid for p in found)
        ended_before = len(result.residue)
        for root_pid, group in _roots(found).items():
            root = next(p for p in group if p.pid == root_pid)
            _handle(root, group, record, port, account_lock, lock_was_free, grace_s, log, result)
        if len(result.residue) == ended_before:
            break

    if result.ok:
        still = find_profile_processes(profile_dir)
        if not still and singleton_holder(profile_dir) is None:
            result.removed_files = _remove_stale_files(profile_dir, record)
        if not seen:
            more: LogValue = LOG.removed_stale(files=", ".join(result.removed_files)) if result.removed_files else ""
            msg = LOG.selfcheck_clean(more=more)
            result.messages.append(msg)
            log(msg)
    return result


def _handle(
    root: ProcInfo,
    group: list[ProcInfo],
    record: BrowserRecord | None,
    port: int | None,
    account_lock: AccountLock,
    lock_was_free: bool,
    grace_s: float,
    log: Callable[[LogText], None],
    result: SelfCheckResult,
) -> None:
    """Classify one process group (a browser and its children) and act: end it, or report it."""
    profile_dir = result.profile_dir
    is_residue, reason = _classify(root, record, account_lock, lock_was_free)
    if not is_residue:
        if root.matched_by == "port":
            msg = LOG.selfcheck_port_not_ours(port=str(port), process=root.describe())
        else:
            result.holders.append(root)
            msg = LOG.selfcheck_profile_in_use(path=str(profile_dir), process=root.describe(), reason=reason)
        result.messages.append(msg)
        log(msg)
        return
    procs = collect_tree(p.pid for p in group)
    report = end_processes(procs, grace_s)
    result.residue.append(root)
    result.ended_pids += report.pids
    result.killed_pids += report.killed
    result.survivors += report.survivors
    outcome = LOG.terminated() if not report.killed else LOG.killed_after_grace(seconds=f"{grace_s:g}")
    if report.survivors:
        outcome = LOG.could_not_end(pids=str(report.survivors))
    msg = LOG.selfcheck_residue(name=root.name, pid=root.pid, path=str(profile_dir), outcome=outcome,
                                n=len(report.pids), reason=reason)
    result.messages.append(msg)
    log(msg)


def wait_profile_free(profile_dir: Path, timeout_s: float) -> list[ProcInfo]:
    """Poll until nothing runs on the profile; returns what is left when the timeout passes."""
    deadline = time.monotonic() + timeout_s
    left = find_profile_processes(profile_dir)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = find_profile_processes(profile_dir)
    return left
