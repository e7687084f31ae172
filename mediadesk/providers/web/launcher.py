"""An owned Chromium per account: we start the process, know its pid, and end its whole tree.

``launch_persistent_context`` exposes no pid, so after a crash of ours nothing would tell the self-check which
processes were ours; owning the process gives the pid, a record on the profile (``.mediadesk-browser.json``)
and a tree we can always end. Over CDP ``browser.close()`` only disconnects: closing is CDP ``Browser.close``,
then SIGTERM/SIGKILL of the tree collected before the first signal. ``PR_SET_PDEATHSIG`` ends the browser
with us, but the kernel ties it to the thread that forked, so ``spawn_chromium`` must run on a thread that
lives as long as the browser (the event-loop thread).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING

import psutil

from mediadesk.core.log_lines import LOG, LogText, LogValue
from mediadesk.files.safe import ensure_private_dir, open_private_for_writing
from mediadesk.platform.browsers import spawn_browser
from mediadesk.providers.web._proctree import (
    KILL_WAIT_S,
    LIVE_OWNED,
    TERM_WAIT_S,
    alive,
    collect_tree,
    group_members,
    is_gone,
    send,
    wait_gone_sync,
)
from mediadesk.providers.web.cookies import CookieJar
from mediadesk.providers.web.errors import BrowserStartError, ProfileInUseError
from mediadesk.providers.web.finder import chromium_flags
from mediadesk.providers.web.selfcheck import (
    BrowserRecord,
    find_profile_processes,
    orphaned_children,
    read_browser_record,
    remove_browser_record,
    singleton_holder,
    write_browser_record,
)

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Playwright

#: Chromium's exit code when another process holds the profile ("Failed to create a ProcessSingleton").
EXIT_PROFILE_IN_USE = 21
_POLL_S = 0.025
#: The close grace for a browser in which a login was just made (by the operator or by the stored
#: credentials): Chromium writes its cookie store as it shuts down cleanly (else only every ~30 s),
#: and a kill before that loses the login. Not a wait in the normal case (the browser exits as soon
#: as it has written it); ``scheduler.kill_grace_s`` still bounds every other close.
LOGGED_IN_CLOSE_GRACE_S = 30.0


def chromium_command(
    executable: Path, profile_dir: Path, *, headless: bool = True, extra_args: Sequence[str] = ()
) -> list[str]:
    return [
        str(executable),
        *chromium_flags(headless),
        *extra_args,
        "--remote-debugging-port=0",
        f"--user-data-dir={profile_dir}",
        "about:blank",
    ]


def default_log_path(profile_dir: Path) -> Path:
    """Chromium's stdout/stderr go next to the profile (not inside it: the profile is Chromium's)."""
    return profile_dir.parent / f"{profile_dir.name}.chromium.log"


def spawn_chromium(
    executable: Path,
    profile_dir: Path,
    *,
    headless: bool = True,
    extra_args: Sequence[str] = (),
    log_path: Path | None = None,
) -> subprocess.Popen[bytes]:
    """Start Chromium on ``profile_dir`` with a debug port chosen by the OS (read ``DevToolsActivePort``).

    Apart from our console (Ctrl-C in a terminal reaches MediaDesk, which then closes its browsers in order),
    and on Linux PDEATHSIG so the browser never outlives MediaDesk
    (:func:`mediadesk.platform.browsers.spawn_browser`). Call it from a long-lived thread (see module doc).
    """
    profile_dir = Path(profile_dir)
    ensure_private_dir(profile_dir, what="browser profile", user_chosen=True)
    with contextlib.suppress(FileNotFoundError):
        (profile_dir / "DevToolsActivePort").unlink()
    out: int | IO[bytes] = subprocess.DEVNULL
    log_file: IO[bytes] | None = None
    if log_path is not None:
        with contextlib.suppress(OSError):
            # 0600, never through a link (UnsafePathError stops the start): the child keeps its own copy
            log_file = os.fdopen(open_private_for_writing(log_path, "browser log"), "wb")
            out = log_file
    try:
        return spawn_browser(chromium_command(executable, profile_dir, headless=headless, extra_args=extra_args), out)
    finally:
        if log_file is not None:
            log_file.close()


def read_devtools_port(profile_dir: Path) -> int | None:
    """First line of ``DevToolsActivePort`` as a port; None while it is missing or half written."""
    try:
        text = (Path(profile_dir) / "DevToolsActivePort").read_text(encoding="utf-8")
    except OSError:
        return None
    first = text.split("\n", 1)[0].strip()
    if not first.isdigit() or "\n" not in text:
        return None
    port = int(first)
    return port if 0 < port < 65536 else None


@dataclass
class CloseReport:
    """What closing did: every pid of the tree, whether force was needed, and that none survived."""

    pids: list[int] = field(default_factory=list)
    graceful: bool = False
    kill_needed: bool = False
    terminated: list[int] = field(default_factory=list)
    killed: list[int] = field(default_factory=list)
    survivors: list[int] = field(default_factory=list)
    exit_code: int | None = None
    duration_s: float = 0.0

    @property
    def clean(self) -> bool:
        return not self.survivors


class OwnedBrowser:
    """One Chromium process on one account profile, connected over CDP, ended as a whole tree.

    ``start`` must run on the event-loop thread (PDEATHSIG is per thread). Not reusable after close.
    """

    def __init__(
        self,
        playwright: Playwright,
        executable: Path,
        profile_dir: Path,
        *,
        headless: bool = True,
        extra_args: Sequence[str] = (),
        start_timeout_s: float = 20.0,
        log: Callable[[LogText], None] | None = None,
        keep_session_cookies: bool = True,
    ) -> None:
        self._pw = playwright
        self.executable = Path(executable)
        self.profile_dir = Path(profile_dir).expanduser().absolute()
        self.headless = headless
        self.extra_args = list(extra_args)
        self.start_timeout_s = start_timeout_s
        self._log = log or (lambda _msg: None)
        self.log_path = default_log_path(self.profile_dir)
        self._proc: subprocess.Popen[bytes] | None = None
        #: When the main process was first seen ended (wall clock), once it was reaped.
        self._exited_at: float | None = None
        self._ps: psutil.Process | None = None
        self._port: int | None = None
        self._browser: Browser | None = None
        self._closed = False
        #: The profile's session-cookie jar: restored at start, saved by the owner and at close.
        self.cookie_jar = CookieJar(self.profile_dir) if keep_session_cookies else None

    # --- accessors -------------------------------------------------------------------------------------

    def _require(self) -> tuple[subprocess.Popen[bytes], Browser]:
        if self._proc is None or self._browser is None:
            state = "closed" if self._closed else "not started (call and await start() first)"
            raise RuntimeError(f"OwnedBrowser is {state}")
        return self._proc, self._browser

    @property
    def pid(self) -> int:
        """The browser main process (stays readable after close, for logs)."""
        if self._proc is None:
            raise RuntimeError("OwnedBrowser is not started (call and await start() first)")
        return self._proc.pid

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("OwnedBrowser is not started (call and await start() first)")
        return self._port

    @property
    def browser(self) -> Browser:
        return self._require()[1]

    @property
    def context(self) -> BrowserContext:
        """The profile's own (default) context: it carries the account's cookies and logins."""
        browser = self._require()[1]
        if not browser.contexts:
            raise RuntimeError("the connected browser has no default context")
        return browser.contexts[0]

    def is_alive(self) -> bool:
        """Process running (not a zombie) and the CDP connection up."""
        if self._proc is None or self._browser is None or self._closed:
            return False
        if self._poll() is not None or (self._ps is not None and is_gone(self._ps)):
            return False
        return self._browser.is_connected()

    # --- start -----------------------------------------------------------------------------------------

    async def start(self) -> None:
        if self._proc is not None or self._closed:
            raise RuntimeError("OwnedBrowser.start() may be called once")
        ensure_private_dir(self.profile_dir, what="browser profile", user_chosen=True)
        holder = singleton_holder(self.profile_dir)
        if holder is not None:
            raise ProfileInUseError(self.profile_dir, [holder], detail="found by Chromium's SingletonLock")
        self._proc = spawn_chromium(
            self.executable, self.profile_dir, headless=self.headless,
            extra_args=self.extra_args, log_path=self.log_path,
        )
        with contextlib.suppress(psutil.Error):
            self._ps = psutil.Process(self._proc.pid)
        LIVE_OWNED[self._proc.pid] = str(self.profile_dir)
        if not self._record_names_live_other():
            self._write_record()  # at once: a crash of ours from here on leaves attributable residue
        self._log(LOG.browser_started(pid=self._proc.pid, path=str(self.profile_dir)))
        try:
            self._port = await self._wait_for_port()
            endpoint = f"http://127.0.0.1:{self._port}"
            try:
                self._browser = await self._pw.chromium.connect_over_cdp(
                    endpoint, timeout=self.start_timeout_s * 1000
                )
            except Exception as exc:
                raise BrowserStartError(f"CDP connect to chromium pid {self._proc.pid} failed: {exc}") from exc
        except BaseException:
            self._kill_tree_now()
            raise
        self._write_record()
        self._log(LOG.browser_listening(pid=self._proc.pid, port=str(self._port)))
        if self.cookie_jar is not None:
            try:  # before anything navigates: the first page load must already carry the login
                await asyncio.wait_for(self.cookie_jar.restore(self.context, self._log), self.start_timeout_s)
            except BaseException as exc:
                self._kill_tree_now()
                if isinstance(exc, TimeoutError):
                    raise BrowserStartError(
                        f"chromium pid {self._proc.pid} did not take the session cookies within "
                        f"{self.start_timeout_s:g} s") from None
                raise

    async def save_session_cookies(self, *, force: bool = False, timeout_s: float = 5.0) -> bool:
        """Save the profile's session cookies to its jar if they changed (see ``cookies.py``); never
        raises for a browser that is gone or slow. True when the jar was written."""
        if self.cookie_jar is None or not self.is_alive():
            return False
        try:
            return await asyncio.wait_for(self.cookie_jar.save(self.context, self._log, force=force), timeout_s)
        except Exception as exc:
            self._log(LOG.cookies_not_saved(error=type(exc).__name__))
            return False

    async def _wait_for_port(self) -> int:
        assert self._proc is not None
        deadline = time.monotonic() + self.start_timeout_s
        while True:
            code = self._poll()
            if code is not None:
                raise self._early_exit_error(code)
            port = read_devtools_port(self.profile_dir)
            if port is not None:
                return port
            if time.monotonic() >= deadline:
                raise BrowserStartError(
                    f"chromium pid {self._proc.pid} wrote no DevToolsActivePort within "
                    f"{self.start_timeout_s:g} s; see {self.log_path}"
                )
            await asyncio.sleep(_POLL_S)

    def _early_exit_error(self, code: int) -> Exception:
        assert self._proc is not None
        ours = self._proc.pid
        holders = [p for p in find_profile_processes(self.profile_dir) if p.pid != ours]
        sing = singleton_holder(self.profile_dir)
        if sing is not None and sing.pid not in {h.pid for h in holders} and sing.pid != ours:
            holders.append(sing)
        # A holder is a browser main process (it owns the SingletonLock); the refused Chromium's own zygotes
        # may still be exiting, orphaned, and must not be named as holders.
        roots = [h for h in holders if h.process_type is None]
        if code == EXIT_PROFILE_IN_USE or roots:
            return ProfileInUseError(self.profile_dir, roots, exit_code=code)
        return BrowserStartError(
            f"chromium exited with code {code} while starting; last output: {self._log_tail()!r} "
            f"(full log: {self.log_path})"
        )

    def _log_tail(self, lines: int = 3) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        kept = [ln for ln in text.splitlines() if ln.strip() and "unexpected operator" not in ln]
        return " | ".join(kept[-lines:])[-400:]

    def _record_names_live_other(self) -> bool:
        """True when the profile's record names another live process (a browser we must not disown)."""
        record = read_browser_record(self.profile_dir)
        if record is None or self._proc is None or record.pid == self._proc.pid:
            return False
        try:
            return psutil.Process(record.pid).status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    def _remove_own_record(self) -> None:
        record = read_browser_record(self.profile_dir)
        if record is not None and self._proc is not None and record.pid == self._proc.pid:
            remove_browser_record(self.profile_dir)

    def _write_record(self) -> None:
        """Who launched which pid on this profile, for the self-check (port 0 until it is known)."""
        assert self._proc is not None
        try:
            created = self._ps.create_time() if self._ps is not None else None
            owner_created = psutil.Process().create_time()
        except psutil.Error:
            created, owner_created = None, None
        record = BrowserRecord(
            pid=self._proc.pid,
            port=self._port or 0,
            profile_dir=str(self.profile_dir),
            started_at=time.time(),
            owner_pid=os.getpid(),
            create_time=created,
            owner_create_time=owner_created,
        )
        try:
            write_browser_record(self.profile_dir, record)
        except OSError as exc:
            self._log(LOG.browser_record_not_written(path=str(self.profile_dir), error=str(exc)))

    # --- close / kill ----------------------------------------------------------------------------------

    def _tree(self, *, orphans: bool = True) -> list[psutil.Process]:
        """Main process + descendants, plus (``orphans``) our children left without a parent: after a crash
        of the main process, or spawned while the tree was being ended. Processes with a live parent on
        the profile that is not ours belong to someone else's browser and are never included."""
        assert self._proc is not None
        # once reaped, the pid may name someone else's process: only the orphans and the group then
        procs = collect_tree([self._proc.pid]) if self._proc.returncode is None else []
        if orphans and self._ps is not None:
            known = {p.pid for p in procs}
            extra = orphaned_children(self.profile_dir, self._ps.create_time(), {self._proc.pid})
            procs += [p for p in collect_tree(o.pid for o in extra) if p.pid not in known]
        return procs + self._group_strays({p.pid for p in procs})

    def _group_strays(self, known: set[int]) -> list[psutil.Process]:
        """Members of the browser's process group not in ``known``: children the profile scan cannot
        name (an exiting process's command line reads empty on a loaded machine), found by the group
        the launcher gave the tree. Only processes started after our browser: never anyone else's."""
        if self._proc is None or self._ps is None:
            return []
        since = self._ps.create_time() - 0.01
        until = math.inf
        if self._proc.returncode is not None:
            # Reaped: the pid is free for a new process, which may lead a group of that number. A live
            # process with our old pid is such a stranger (its group is not ours); and nothing of ours
            # was started after our browser ended.
            if psutil.pid_exists(self._proc.pid):
                return []
            until = (self._exited_at if self._exited_at is not None else time.time()) + 0.5
        strays: list[psutil.Process] = []
        for proc in group_members(self._proc.pid):
            if proc.pid in known:
                continue
            with contextlib.suppress(psutil.Error):
                if since <= proc.create_time() <= until:
                    strays.append(proc)
        return strays

    def _late_children(self, known: set[int]) -> list[psutil.Process]:
        """Processes of ours not in ``known``: orphaned children on the profile (with their trees) and
        strays of the browser's group (a child spawned while the tree was being ended)."""
        assert self._ps is not None
        info = orphaned_children(self.profile_dir, self._ps.create_time(), known)
        late = [p for p in collect_tree(o.pid for o in info) if p.pid not in known]
        return late + self._group_strays(known | {p.pid for p in late})

    def _poll(self) -> int | None:
        """The main process's exit code (reaping it), noting when it was first seen ended."""
        assert self._proc is not None
        code = self._proc.poll()
        if code is not None and self._exited_at is None:
            self._exited_at = time.time()
        return code

    def _alive_now(self, procs: list[psutil.Process]) -> list[psutil.Process]:
        if self._proc is not None:
            self._poll()  # reaps the main process as soon as it exits
        return alive(procs)

    async def _wait_gone(self, procs: list[psutil.Process], deadline: float) -> list[psutil.Process]:
        remaining = self._alive_now(procs)
        while remaining and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
            remaining = self._alive_now(remaining)
        return remaining

    async def _sweep_late_children(
        self, procs: list[psutil.Process], report: CloseReport
    ) -> list[psutil.Process]:
        """Children spawned after the tree was collected (e.g. a renderer starting during shutdown)."""
        assert self._proc is not None
        if self._ps is None:
            return []
        late = self._late_children({p.pid for p in procs})
        if late:
            report.pids += [p.pid for p in late]
            report.killed += send(late, kill=True)[1]
            await self._wait_gone(late, time.monotonic() + KILL_WAIT_S)
        return late

    async def _cdp_close(self, timeout_s: float) -> bool:
        """Ask the browser to shut down (flushes cookies). True when the command was delivered."""
        if self._browser is None or not self._browser.is_connected() or timeout_s <= 0:
            return False
        try:
            session = await asyncio.wait_for(self._browser.new_browser_cdp_session(), timeout_s)
            await asyncio.wait_for(session.send("Browser.close"), timeout_s)
        except TimeoutError:
            return False
        except Exception:
            # The browser may drop the connection before answering: that is success, verified below.
            return True
        return True

    async def _disconnect(self) -> None:
        browser, self._browser = self._browser, None
        if browser is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(browser.close(), 2.0)

    def _finish(self, report: CloseReport, procs: list[psutil.Process], t0: float) -> CloseReport:
        assert self._proc is not None
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=KILL_WAIT_S)  # reap: no zombie, no ResourceWarning
        report.exit_code = self._proc.returncode
        report.survivors = [p.pid for p in alive(procs)]
        if self._proc.returncode is None:
            report.survivors = sorted({*report.survivors, self._proc.pid})
        report.duration_s = time.monotonic() - t0
        LIVE_OWNED.pop(self._proc.pid, None)
        if report.clean:
            self._remove_own_record()
        self._closed = True
        return report

    async def close(self, grace_s: float = 3.0) -> CloseReport:
        """Graceful close (CDP ``Browser.close``), then after ``grace_s`` SIGTERM, then SIGKILL, the tree.

        Idempotent: a second call returns an empty report.
        """
        if self._proc is None or self._closed:
            return CloseReport()
        try:
            return await self._close(grace_s)
        except BaseException:
            # Cancelled (or failed) half-way: never leave the tree running behind an object marked open.
            if not self._closed:
                self._kill_tree_now()
            raise

    async def _close(self, grace_s: float) -> CloseReport:
        assert self._proc is not None
        t0 = time.monotonic()
        deadline = t0 + max(0.0, grace_s)
        procs = self._tree()
        report = CloseReport(pids=[p.pid for p in procs])
        self._log(LOG.browser_closing(pid=self._proc.pid, n=len(procs), seconds=f"{grace_s:g}"))
        # Chromium forgets session cookies as it closes: keep them first (bounded by half the grace).
        await self.save_session_cookies(force=True, timeout_s=max(0.1, grace_s / 2))
        if self._poll() is None:
            delivered = await self._cdp_close(timeout_s=grace_s / 2)
            if not delivered and self._ps is not None:
                with contextlib.suppress(psutil.Error):
                    self._ps.terminate()  # Chromium treats SIGTERM as a clean shutdown too
        remaining = await self._wait_gone(procs, deadline)
        report.graceful = not remaining
        if remaining:
            report.kill_needed = True
            report.terminated, report.killed = send(remaining, kill=False)
            remaining = await self._wait_gone(remaining, time.monotonic() + TERM_WAIT_S)
        if remaining:
            report.killed += send(remaining, kill=True)[1]
            remaining = await self._wait_gone(remaining, time.monotonic() + KILL_WAIT_S)
        procs += await self._sweep_late_children(procs, report)
        await self._disconnect()
        self._finish(report, procs, t0)
        how = LOG.gracefully() if report.graceful else (LOG.after_sigkill() if report.killed else LOG.after_sigterm())
        more: LogValue = LOG.still_running(pids=str(report.survivors)) if report.survivors else ""
        self._log(LOG.browser_closed(pid=self._proc.pid, how=how, n=len(report.pids), more=more))
        return report

    async def kill(self) -> CloseReport:
        """End the tree now (SIGKILL), e.g. when the browser stopped answering during a cancel."""
        if self._proc is None or self._closed:
            return CloseReport()
        t0 = time.monotonic()
        procs = self._tree()
        report = CloseReport(pids=[p.pid for p in procs], kill_needed=True)
        report.killed = send(alive(procs), kill=True)[1]
        await self._wait_gone(procs, time.monotonic() + KILL_WAIT_S)
        procs += await self._sweep_late_children(procs, report)
        await self._disconnect()
        self._finish(report, procs, t0)
        self._log(LOG.browser_killed(pid=self._proc.pid, n=len(report.pids)))
        return report

    def _kill_tree_now(self) -> None:
        """Synchronous kill for failed starts (also safe while the task is being cancelled)."""
        if self._proc is None:
            return
        procs = self._tree(orphans=False)
        send(alive(procs), kill=True)
        wait_gone_sync(procs, KILL_WAIT_S)
        if self._ps is not None:  # children spawned while we were killing (the browser was starting up)
            late = self._late_children({p.pid for p in procs} | {self._proc.pid})
            send(late, kill=True)
            wait_gone_sync(late, KILL_WAIT_S)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=KILL_WAIT_S)
        LIVE_OWNED.pop(self._proc.pid, None)
        if not alive(procs):
            self._remove_own_record()
        self._closed = True

    async def __aenter__(self) -> OwnedBrowser:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    def __repr__(self) -> str:
        pid = self._proc.pid if self._proc is not None else None
        return f"OwnedBrowser(pid={pid}, port={self._port}, profile={str(self.profile_dir)!r})"
