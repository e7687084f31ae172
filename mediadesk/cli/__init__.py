"""The headless face: ``mediadesk run | export | cancel | sim | demo | login``.

Same store, same scheduler as the console. User errors (bad config, bad batch rows, a database in
use) print a clear message and exit non-zero, never a traceback.

Exit codes of ``run``: 0 every task of the batch succeeded; 1 a task failed or was canceled (or
could not be served); 2 usage / config / database error; 3 all submitted tasks succeeded but some
batch rows were rejected; 130 interrupted (running tasks go back to pending and resume next time).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from mediadesk.config.model import AppConfig, ConfigError, load_config, missing_api_keys
from mediadesk.config.template import default_config_path, no_config_message, write_config_template
from mediadesk.config.workspace import Workspace
from mediadesk.core.batch import BatchFileError, ParsedBatch, parse_batch_file
from mediadesk.core.paths import evidence_name
from mediadesk.core.states import TERMINAL_STATES, TaskState
from mediadesk.files.locks import LockError
from mediadesk.files.safe import UnsafePathError
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.events import StorageFailed, TaskChanged
from mediadesk.scheduler.scheduler import EXCEPTION_KINDS, QueueFullError
from mediadesk.store import SchemaError, TaskReader, open_store
from mediadesk.store.errors import StorageError, StoreLostError
from mediadesk.store.export import EXPORT_FORMATS, ExportError, export_tasks, export_to_file
from mediadesk.store.open_errors import StoreOpenError, storage_error

EXIT_OK, EXIT_TASK_FAILED, EXIT_USAGE, EXIT_ROWS_REJECTED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


class UserError(Exception):
    """Printed as ``mediadesk: <message>`` with exit code 2."""


#: Errors whose message is the whole story for the user: printed, exit 2, no traceback.
USER_ERRORS = (
    UserError, ConfigError, LockError, SchemaError, StoreOpenError, UnsafePathError, BatchFileError, ExportError,
    QueueFullError,
)
#: The database the running command works on (named when a storage error does not name a file).
_current_db: Path | None = None


# ---------------------------------------------------------------------------------------- parser
_DB_HELP = "database: a file (default: <data dir>/mediadesk.db) or postgresql://user@host/db (team mode)"

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mediadesk",
        description="MediaDesk: batch text generation over web (browser) and API models. "
        "With no command, opens the console.",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging to stderr")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    c = sub.add_parser("console", help="open the operator console (the default with no command)")
    c.add_argument("--config", type=Path, help="config TOML (default: <data dir>/config.toml)")
    c.add_argument("--data-dir", type=Path, help="workspace folder (database, browser profiles)")
    c.add_argument("--db", help=_DB_HELP)
    c.add_argument("--demo", action="store_true", help="bundled demo workspace with local simulators")

    r = sub.add_parser("run", help="run a batch file headless until every task is terminal")
    r.add_argument("batch", type=Path, help="JSONL or CSV batch file")
    r.add_argument("--config", type=Path, help="config TOML (default: <data dir>/config.toml)")
    r.add_argument("--db", help=_DB_HELP)
    r.add_argument("--data-dir", type=Path, help="workspace folder (default: config data_dir or platform dir)")
    r.add_argument("--format", choices=["jsonl", "csv"], help="batch format (default: by extension/content)")
    r.add_argument("--retry-failed", action="store_true", help="re-queue this batch's failed/canceled tasks")
    r.add_argument("--quiet", action="store_true", help="no progress, summary only")
    r.add_argument("--summary-json", type=Path, metavar="FILE",
                   help="also write the outcome as JSON: exit code, storage error, and each task's state "
                   "as read back from the database file at the end")

    e = sub.add_parser("export", help="write results as JSONL, CSV, XLSX or a Markdown table")
    e.add_argument("--db", help=_DB_HELP)
    e.add_argument("--data-dir", type=Path)
    e.add_argument("--format", choices=list(EXPORT_FORMATS), default="jsonl",
                   help="jsonl (default), csv, xlsx (needs --out or a pipe) or md")
    e.add_argument("--out", type=Path, help="output file (default: stdout)")
    e.add_argument("--state", action="append", choices=[s.value for s in TaskState],
                   help="only tasks in this state (repeatable; default: all)")

    k = sub.add_parser("cancel", help="cancel tasks by id (works while another process runs them)")
    k.add_argument("task_ids", nargs="+")
    k.add_argument("--db", help=_DB_HELP)
    k.add_argument("--data-dir", type=Path)

    s = sub.add_parser("sim", help="start a simulator on 127.0.0.1")
    ssub = s.add_subparsers(dest="sim_kind", metavar="KIND", required=True)
    from mediadesk.sim import api_cli, web_server

    api_cli.add_arguments(ssub.add_parser("api", help="OpenAI-compatible API simulator"))
    web_server.add_arguments(ssub.add_parser("web", help="chat web site simulator"))

    d = sub.add_parser("demo", help="run the bundled demo batch headless against local simulators")
    d.add_argument("--data-dir", type=Path, help="demo workspace (default: a fresh temporary folder)")

    x = sub.add_parser("exceptions", help="failed tasks a person must judge: list them, resolve one")
    xsub = x.add_subparsers(dest="exc_cmd", metavar="ACTION", required=True)
    xl = xsub.add_parser("list", help="list unresolved exceptions (--all: resolved ones too)")
    xl.add_argument("--db", help=_DB_HELP)
    xl.add_argument("--data-dir", type=Path)
    xl.add_argument("--all", action="store_true")
    xr = xsub.add_parser("resolve", help="retry / reroute / answer by hand / drop one failed task, with a note")
    xr.add_argument("task_id")
    xr.add_argument("action", choices=["retry", "reroute", "answer", "drop"])
    xr.add_argument("--config", type=Path, required=True)
    xr.add_argument("--db", help=_DB_HELP)
    xr.add_argument("--data-dir", type=Path)
    xr.add_argument("--note", default="", help="why (kept with the task and exported)")
    xr.add_argument("--profile", help="with reroute: the profile to send it to")
    xr.add_argument("--answer", help="with answer: the answer text (or --answer-file)")
    xr.add_argument("--answer-file", type=Path, help="with answer: a UTF-8 file holding the answer")

    i = sub.add_parser("init", help="write a commented config template to <data dir>/config.toml")
    i.add_argument("--data-dir", type=Path, help="workspace folder (default: $MEDIADESK_DATA_DIR or platform dir)")

    lg = sub.add_parser("login", help="open a visible browser on an account's profile to log in once")
    lg.add_argument("account")
    lg.add_argument("--config", type=Path, required=True)
    lg.add_argument("--data-dir", type=Path)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        if args.command == "run":
            return asyncio.run(cmd_run(args))
        if args.command == "export":
            return cmd_export(args)
        if args.command == "cancel":
            return cmd_cancel(args)
        if args.command == "sim":
            return run_sim(args)
        if args.command == "demo":
            return asyncio.run(run_demo(args.data_dir))
        if args.command == "exceptions":
            return cmd_exceptions(args)
        if args.command == "login":
            return asyncio.run(cmd_login(args))
        if args.command == "init":
            return cmd_init(args)
        parser.print_help()
        return EXIT_USAGE
    except USER_ERRORS as exc:
        print(f"mediadesk: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:
        # a storage fault wherever it surfaced (disk full at submit, read-only disk, permission denied, a
        # database server gone...); anything else is a bug and keeps its traceback
        err = storage_error(exc, _current_db)
        if err is None:
            raise
        print(f"mediadesk: {err}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:  # a signal before the run's own handlers (see mediadesk.main)
        return int(getattr(exc, "exit_code", EXIT_INTERRUPTED))


def _workspace(config: AppConfig | None, data_dir: Path | None, db: str | Path | None) -> Workspace:
    """``db``: ``--db`` as given (a file, or a ``postgresql://`` URL), else the config's ``db_url``."""
    global _current_db
    base = data_dir or (config.data_dir if config is not None else None)
    ws = Workspace.resolve(data_dir=base, db=db, db_url=config.db_url if config is not None else None)
    _current_db = ws.db_path if ws.db_url is None else None
    return ws


def _db_name(ws: Workspace) -> str:
    return ws.db_path.name if ws.db_url is None else ws.db_url.display


# ---------------------------------------------------------------------------------------- run
def _run_config_path(args: argparse.Namespace) -> Path:
    """``--config``, else ``<data dir>/config.toml``; neither: one line with the ways to go on."""
    if args.config is not None:
        return Path(args.config)
    path = default_config_path(args.data_dir)
    if not path.is_file():
        raise UserError(no_config_message(path))
    return path


def cmd_init(args: argparse.Namespace) -> int:
    """`mediadesk init`: the commented config template into the data dir (never over a file)."""
    path = default_config_path(args.data_dir)
    try:
        write_config_template(path)
    except FileExistsError:
        raise UserError(f"{path} already exists; edit it, or move it away to write a fresh template") from None
    print(f"wrote {path}: uncomment the sections you need, then `mediadesk run BATCH` or `mediadesk`")
    return 0


async def cmd_run(args: argparse.Namespace) -> int:
    args.config = _run_config_path(args)
    return await run_batch(
        args.batch, load_config(args.config), data_dir=args.data_dir, db=args.db, fmt=args.format,
        retry_failed=args.retry_failed, quiet=args.quiet, config_path=args.config,
        summary_json=args.summary_json,
    )


async def run_batch(
    batch: Path,
    config: AppConfig,
    *,
    data_dir: Path | None = None,
    db: str | Path | None = None,
    fmt: str | None = None,
    retry_failed: bool = False,
    quiet: bool = False,
    config_path: Path | None = None,
    summary_json: Path | None = None,
) -> int:
    """Run one batch file headless until every task of it is terminal; returns the exit code.
    ``mediadesk run`` and ``mediadesk demo`` both come here.

    Nothing is reported that is not in the database file: the counts are read back from it, after
    checking (again after the scheduler has stopped) that the file at the path is still the one the
    run wrote. A storage fault (file deleted or replaced, disk full, I/O error) ends the run with
    its message and exit code 2.

    SIGINT, SIGTERM and SIGHUP stop it gracefully at any moment (exit code 130), and the summary
    (``--summary-json`` too) is written all the same."""
    stop = _StopSignals()
    stop.install()  # from here on a signal ends the run the graceful way, whatever it is doing
    try:
        ws = _workspace(config, data_dir, db)
        parsed = parse_batch_file(
            batch, fmt=fmt, known_profiles=[p.name for p in config.profiles],
            max_prompt_chars=config.scheduler.max_prompt_chars,
        )
        report_row_errors(parsed, sys.stderr)
        if not parsed.rows:
            what = f"all {len(parsed.errors)} rows were rejected" if parsed.errors else "it has no rows"
            raise UserError(f"nothing to run in {batch}: {what}")
        return await _run_batch(batch, config, ws, parsed, stop, retry_failed=retry_failed, quiet=quiet,
                                config_path=config_path, summary_json=summary_json)
    finally:
        stop.uninstall()


async def _run_batch(
    batch: Path, config: AppConfig, ws: Workspace, parsed: ParsedBatch, stop: _StopSignals, *,
    retry_failed: bool, quiet: bool, config_path: Path | None, summary_json: Path | None,
) -> int:
    sched = Scheduler(config, ws)
    sched.open()  # a LockError (database or data dir in use) before any work
    store = sched.store  # kept past stop(): its file identity check needs no connection
    ids: list[str] = []
    states: dict[str, tuple[str, str]] = {}
    interrupted = False
    failure: StorageError | None = None
    try:
        try:
            _check_api_keys(sched, parsed, batch.name, retry_failed)
            await asyncio.sleep(0)  # a signal that came while opening is seen here
            if stop.is_set():
                raise _Interrupted
            res, ids = sched.submit_rows(parsed.rows, batch=batch.name)
            print(
                f"batch {batch.name}: {len(parsed.rows)} valid rows ({len(res.added)} new, "
                f"{len(res.existing)} already in {_db_name(ws)}), {len(parsed.errors)} rejected",
                flush=True,
            )
            if retry_failed:
                n = sched.retry(ids)
                if n:
                    print(f"re-queued {n} failed/canceled task(s)", flush=True)
            await asyncio.sleep(0)
            if stop.is_set():
                raise _Interrupted
            await sched.start()
            interrupted = await _run_until_done(sched, ids, quiet=quiet, config_path=config_path, stop=stop)
        except StorageError as exc:
            failure = exc
        except _Interrupted:
            interrupted = True
            print("\ninterrupted before the batch started: nothing was run", file=sys.stderr)
    finally:
        await sched.stop()
    failure = sched.storage_error or failure
    if failure is None:
        try:
            store.verify()  # one last time, after the last write: the file at the path is ours
            # read after the lanes have stopped: interrupted attempts are back to pending by now
            states = _states_of(ws, ids)
        except StorageError as exc:
            failure = exc
    if failure is not None:
        return _storage_failure(failure, ids, parsed, ws, summary_json)
    rc = _summary(states, ids, parsed, ws, interrupted)
    return _write_summary_json(summary_json, rc, ws, ids, states, parsed, interrupted=interrupted)


class _Interrupted(Exception):
    """A stop signal came before the batch was started."""


class _StopSignals:
    """SIGINT, SIGTERM and SIGHUP end ``mediadesk run`` gracefully: the event is set, the run stops
    its lanes (running attempts go back to pending, refunded) and writes its summary. Installed on
    the loop for the whole run, so a signal during start-up or shut-down is not a crash either.
    Windows' loops have no add_signal_handler; there Ctrl+C arrives as KeyboardInterrupt."""

    SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.signum: int | None = None
        self._installed: list[int] = []
        self._previous: dict[int, Any] = {}

    def install(self) -> None:
        if sys.platform == "win32":
            return
        loop = asyncio.get_running_loop()
        for sig in self.SIGNALS:
            self._previous[sig] = signal.getsignal(sig)
            loop.add_signal_handler(sig, self._on_signal, sig)
            self._installed.append(sig)

    def _on_signal(self, signum: int) -> None:
        if self.signum is None:
            self.signum = signum
        self.event.set()

    def is_set(self) -> bool:
        return self.event.is_set()

    def uninstall(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in self._installed:
            loop.remove_signal_handler(sig)
            # back to the process's own handler (mediadesk.main's: no traceback, no silent death)
            with contextlib.suppress(TypeError, ValueError):
                signal.signal(sig, self._previous.get(sig) or signal.SIG_DFL)
        self._installed.clear()


def _states_of(ws: Workspace, ids: list[str]) -> dict[str, tuple[str, str]]:
    if not ids:
        return {}
    reader = TaskReader(ws.location)
    try:
        return {r.task_id: (r.state, r.profile) for r in reader.get_many(ids)}
    finally:
        reader.close()


def _check_api_keys(sched: Scheduler, parsed: ParsedBatch, batch: str, retry_failed: bool) -> None:
    """Refuse the run, before anything is submitted or sent, when an ``api_key_env`` variable is
    unset for a profile that has work in this run: the batch's tasks still to do, and what is
    already queued in the database. One message per variable, naming its profiles."""
    runnable = {TaskState.PENDING.value, TaskState.RUNNING.value}
    if retry_failed:
        runnable |= {TaskState.FAILED.value, TaskState.CANCELED.value}
    tasks = sched.tasks_from_rows(parsed.rows, batch)
    known = sched.store.states_of([t.task_id for t in tasks])
    profiles = {t.profile for t in tasks if t.task_id not in known}
    profiles |= {profile for state, profile in known.values() if state in runnable}
    queued = (TaskState.PENDING.value, TaskState.RUNNING.value)
    profiles |= {profile for (profile, state), n in sched.store.counts().items() if n and state in queued}
    missing = missing_api_keys(sched.config, profiles)
    if missing:
        raise UserError("\nmediadesk: ".join(m.message() for m in missing))


async def run_demo(data_dir: Path | None = None) -> int:
    """`mediadesk demo`: the bundled demo batch through the same path as `mediadesk run`."""
    from mediadesk.demo import demo_environment

    async with demo_environment(data_dir) as env:
        print(f"demo workspace: {env.workspace.data_dir}", flush=True)
        print(f"API simulator {env.api.base_url}, chat simulator {env.web.chat_url}", flush=True)
        rc = await run_batch(env.batch_path, env.config, data_dir=env.workspace.data_dir)
        web_stats = env.web.stats()
        print(
            f"chat simulator: {web_stats['generations_completed']} generations, "
            f"concurrent violations {web_stats['concurrent_violations']}; "
            f"API simulator: max concurrent {env.api.stats()['max_concurrent']}",
            file=sys.stderr, flush=True,
        )
        return rc


_NEXT_STEP = {
    "enable": "switch it on in the console (Accounts tab); the switch is kept in the database",
    "wait": "it retries by itself; run again later",
    "fix": "fix the cause above, then run again",
    "none": "",
}


def cannot_serve_message(sched: Scheduler, profiles: list[str], config_path: Path | None = None) -> str:
    """Why no account can take the tasks of ``profiles``: each account, why, and what to do next."""
    config = str(config_path) if config_path is not None else "CONFIG"
    lines = [f"no account can take the tasks of profile(s) {', '.join(profiles)}; they stay pending in the "
             "database and resume on the next run:"]
    for profile in profiles:
        blocks = sched.blocked_accounts(profile)
        if not blocks:
            lines.append(f"  {profile}: no [[accounts]] entry uses this profile; add one to the config")
        for b in blocks:
            step = (f"log in with `mediadesk login {b.account} --config {config}` (or the console's Log in)"
                    if b.action == "login" else _NEXT_STEP.get(b.action, ""))
            lines.append(f"  {profile} / {b.account}: {b.reason}" + (f" -> {step}" if step else ""))
    return "\n".join(lines)


async def _run_until_done(
    sched: Scheduler, ids: list[str], *, quiet: bool, config_path: Path | None = None,
    stop: _StopSignals | None = None,
) -> bool:
    loop = asyncio.get_running_loop()
    own = stop is None
    signals = stop if stop is not None else _StopSignals()
    if own:
        signals.install()
    stop_event = signals.event
    progress = _Progress(sched, ids, quiet=quiet)

    def on_event(ev: object) -> None:
        progress.on_event(ev)
        if isinstance(ev, StorageFailed):
            stop_event.set()  # wake at once; the caller reports it (sched.storage_error)

    unsubscribe = sched.bus.subscribe(on_event)
    next_poll = loop.time() + _DB_POLL_S  # _Progress has just read them
    storage_failed = False
    try:
        while True:
            if sched.storage_error is not None:
                return False
            if loop.time() >= next_poll:
                # Follow the database, not only our own events: another process may end our tasks
                # (`mediadesk cancel ID`), and only the table says so. Polled at most once a second,
                # and never more than ~5 % of the time on a big batch.
                t0 = time.perf_counter()
                progress.poll_db()
                next_poll = loop.time() + max(_DB_POLL_S, 20 * (time.perf_counter() - t0))
            if progress.done():
                break
            if stop_event.is_set() and sched.storage_error is None:
                print("\ninterrupted: running tasks go back to pending and resume on the next run",
                      file=sys.stderr)
                return True
            blocked = sched.unservable_profiles()
            if blocked and progress.only_pending_of(blocked):
                print("\n" + cannot_serve_message(sched, blocked, config_path), file=sys.stderr)
                return False
            progress.render()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop_event.wait(), timeout=0.5)
        sched.store.verify()  # the last progress line only for a file that is still ours
        progress.render(final=True)
        return False
    except StorageError:
        storage_failed = True
        raise
    finally:
        unsubscribe()
        progress.close(storage_failed=storage_failed or sched.storage_error is not None)
        if own:
            signals.uninstall()


#: How often the run reads its tasks' states back from the database (seconds, at least).
_DB_POLL_S = 1.0


class _Progress:
    """Per-lane-kind progress: a live bar on a terminal, a plain line every few seconds otherwise."""

    def __init__(self, sched: Scheduler, ids: list[str], *, quiet: bool) -> None:
        self._sched = sched
        self._kind_of = {p.name: p.kind for p in sched.config.profiles}
        self._state: dict[str, str] = {}
        self._task_kind: dict[str, str] = {}
        self._task_profile: dict[str, str] = {}
        for tid, (state, profile) in sched.store.states_of(ids).items():
            self._state[tid] = state
            self._task_profile[tid] = profile
            self._task_kind[tid] = self._kind_of.get(profile, "?")
        self._quiet = quiet
        self._tty = sys.stdout.isatty()
        self._last_plain = 0.0
        self._t0 = time.monotonic()
        self._live: Any = None
        if not quiet and self._tty:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._live = Progress(
                TextColumn("{task.description:>4}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[detail]}"), TimeElapsedColumn(),
            )
            self._bars = {
                k: self._live.add_task(k, total=self._total(k), detail="")
                for k in ("web", "api") if self._total(k)
            }
            self._live.start()

    def _total(self, kind: str) -> int:
        return sum(1 for k in self._task_kind.values() if k == kind)

    def on_event(self, ev: object) -> None:
        if isinstance(ev, TaskChanged) and ev.task_id in self._state:
            self._state[ev.task_id] = ev.state

    def poll_db(self) -> None:
        """Read back the states of the tasks not yet terminal here (terminal ones stay terminal:
        only a scheduler re-queues a task, and this run holds the database's one scheduler lock)."""
        open_ids = [t for t, s in self._state.items() if s not in TERMINAL_STATES]
        if open_ids:
            for tid, (state, _profile) in self._sched.store.states_of(open_ids).items():
                self._state[tid] = state

    def done(self) -> bool:
        return all(TaskState(s).terminal for s in self._state.values())

    def only_pending_of(self, profiles: list[str]) -> bool:
        blocked = set(profiles)
        return all(
            TaskState(s).terminal or (s == "pending" and self._task_profile[t] in blocked)
            for t, s in self._state.items()
        )

    def _counts(self, kind: str) -> Counter[str]:
        return Counter(s for t, s in self._state.items() if self._task_kind[t] == kind)

    def render(self, final: bool = False) -> None:
        if self._quiet:
            return
        if self._live is not None:
            for kind, bar in self._bars.items():
                c = self._counts(kind)
                done = c["success"] + c["failed"] + c["canceled"]
                self._live.update(
                    bar, completed=done,
                    detail=f"run {c['running']} pend {c['pending']} ok {c['success']} fail {c['failed']}"
                    + (f" cxl {c['canceled']}" if c["canceled"] else ""),
                )
            return
        now = time.monotonic()
        if final or now - self._last_plain >= 2.0:
            self._last_plain = now
            parts = []
            for kind in ("web", "api"):
                total = self._total(kind)
                if total:
                    c = self._counts(kind)
                    done = c["success"] + c["failed"] + c["canceled"]
                    parts.append(f"{kind} {done}/{total} (run {c['running']} pend {c['pending']} "
                                 f"fail {c['failed']})")
            print(f"[{now - self._t0:6.1f}s] " + " | ".join(parts), flush=True)

    def close(self, *, storage_failed: bool = False) -> None:
        if self._live is not None:
            if storage_failed:  # the bars' counts are not what the file holds: do not leave them shown
                for bar in self._bars.values():
                    self._live.update(bar, detail="stopped: the database failed")
            self._live.stop()


def report_row_errors(parsed: ParsedBatch, out: TextIO, limit: int = 50) -> None:
    for err in parsed.errors[:limit]:
        print(f"{parsed.source}:{err.line}: {err.message}  [{err.excerpt}]", file=out)
    if len(parsed.errors) > limit:
        print(f"... and {len(parsed.errors) - limit} more rejected rows", file=out)


def _storage_failure(
    exc: StorageError, ids: list[str], parsed: ParsedBatch, ws: Workspace, summary_json: Path | None
) -> int:
    """The run stopped on a storage fault: say what happened and what to do, report only what the
    database file really holds (nothing at all when the file was lost), exit 2."""
    print(f"mediadesk: {exc}", file=sys.stderr, flush=True)
    states: dict[str, tuple[str, str]] = {}
    if not isinstance(exc, StoreLostError) and ids:
        try:  # a fresh read-only connection: what the file at the path holds
            reader = TaskReader(ws.location)
            try:
                states = {r.task_id: (r.state, r.profile) for r in reader.get_many(ids)}
            finally:
                reader.close()
        except (sqlite3.Error, OSError, StoreOpenError) as read_exc:
            print(f"mediadesk: could not read {ws.location.display} back either ({read_exc})", file=sys.stderr)
    if states:
        counts = Counter(s for s, _ in states.values())
        print(
            "stored in the database: " + ", ".join(f"{k} {counts[k]}" for k in
                                                   ("success", "failed", "canceled", "pending", "running")
                                                   if counts[k])
            + f" of {len(ids)} (database {ws.location.display}); unfinished tasks resume on the next run",
            file=sys.stderr, flush=True,
        )
    return _write_summary_json(summary_json, EXIT_USAGE, ws, ids, states, parsed, storage_error=exc)


def _write_summary_json(
    path: Path | None,
    rc: int,
    ws: Workspace,
    ids: list[str],
    states: dict[str, tuple[str, str]],
    parsed: ParsedBatch,
    *,
    interrupted: bool = False,
    storage_error: StorageError | None = None,
) -> int:
    """``--summary-json``: the run's outcome for scripts and benchmarks. ``tasks`` holds only
    states read back from the database file at the end (empty when the file was lost), so a task
    listed ``success`` here is a success on disk. Private file (0600), written whole or not at all."""
    if path is None:
        return rc
    doc = {
        "exit_code": rc,
        "database": ws.location.display,
        "storage_error": None if storage_error is None else {"kind": storage_error.kind, "message": str(storage_error)},
        "interrupted": interrupted,
        "rejected_rows": len(parsed.errors),
        "counts": dict(Counter(s for s, _ in states.values())),
        "tasks": {t: states[t][0] for t in ids if t in states},
    }
    tmp = path.with_name(path.name + ".part")
    try:
        tmp.unlink(missing_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with open(fd, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, ensure_ascii=False, indent=1)
        tmp.replace(path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        print(f"mediadesk: could not write the summary {path}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return rc


def _summary(
    states: dict[str, tuple[str, str]], ids: list[str], parsed: ParsedBatch, ws: Workspace, interrupted: bool
) -> int:
    counts = Counter(s for s, _ in states.values())
    print(
        "summary: " + ", ".join(f"{k} {counts[k]}" for k in ("success", "failed", "canceled", "pending", "running")
                                if counts[k])
        + f" (database {ws.location.display})",
        flush=True,
    )
    bad = [t for t in ids if states.get(t, ("?", ""))[0] in ("failed", "canceled")]
    if bad:
        reader = TaskReader(ws.location)
        try:
            for tid in bad[:20]:
                rec = reader.get(tid)
                if rec is not None:
                    print(f"  {rec.state:8} {tid}  {rec.error_kind}: {rec.error_message}", flush=True)
        finally:
            reader.close()
        if len(bad) > 20:
            print(f"  ... and {len(bad) - 20} more", flush=True)
    if interrupted:
        return EXIT_INTERRUPTED
    if bad or counts["pending"] or counts["running"]:
        return EXIT_TASK_FAILED
    return EXIT_ROWS_REJECTED if parsed.errors else EXIT_OK


# ---------------------------------------------------------------------------------------- exceptions
def cmd_exceptions(args: argparse.Namespace) -> int:
    if args.exc_cmd == "list":
        ws = _workspace(None, args.data_dir, args.db)
        if ws.db_url is None and not os.path.lexists(ws.db_path):
            raise UserError(f"database not found: {ws.db_path} (pass --db or --data-dir)")
        store = open_store(ws.location)
        try:
            recs = store.exceptions(sorted(EXCEPTION_KINDS), include_resolved=args.all)
        finally:
            store.close()
        for rec in recs:
            done = f"  [resolved: {rec.resolution}]" if rec.resolution else ""
            evidence = ws.evidence_dir / evidence_name(rec.task_id)
            ev = f"  evidence: {evidence}" if evidence.is_dir() else ""
            print(f"{rec.task_id}\t{rec.profile}\t{rec.error_kind}: {rec.error_message}{done}{ev}")
        print(f"{len(recs)} exception(s)", file=sys.stderr)
        return EXIT_OK
    config = load_config(args.config)
    answer = args.answer
    if args.answer_file is not None:
        try:
            answer = args.answer_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(f"cannot read {args.answer_file}: {exc}") from None
    sched = Scheduler(config, _workspace(config, args.data_dir, args.db))
    sched.open()
    try:
        try:
            rec = sched.resolve_exception(args.task_id, args.action, args.note, answer=answer, profile=args.profile)
        except ValueError as exc:
            raise UserError(str(exc)) from None
    finally:
        asyncio.run(sched.stop())
    print(f"{rec.task_id}: {args.action} -> {rec.state}")
    return EXIT_OK


# ---------------------------------------------------------------------------------------- export
def cmd_export(args: argparse.Namespace) -> int:
    ws = _workspace(None, args.data_dir, args.db)
    if args.out is None and args.format == "xlsx" and sys.stdout.isatty():
        raise UserError("xlsx is a binary format: pass --out FILE.xlsx (or pipe the output into a file)")
    if args.out is None:
        n = export_tasks(ws.location, sys.stdout, args.format, args.state)
    else:
        n = export_to_file(ws.location, args.out, args.format, args.state)
        print(f"exported {n} task(s) to {args.out}", file=sys.stderr)
    return EXIT_OK


def cmd_cancel(args: argparse.Namespace) -> int:
    ws = _workspace(None, args.data_dir, args.db)
    if ws.db_url is None and not os.path.lexists(ws.db_path):
        raise UserError(f"database not found: {ws.db_path}")
    store = open_store(ws.location)
    try:
        changed = store.request_cancel(args.task_ids)
    finally:
        store.close()
    for rec in changed:
        what = "canceled" if rec.state == "canceled" else "cancel requested (running; stops at next checkpoint)"
        print(f"{rec.task_id}: {what}")
    missing = set(args.task_ids) - {r.task_id for r in changed}
    for tid in sorted(missing):
        print(f"{tid}: not found or already finished", file=sys.stderr)
    return EXIT_OK if changed else EXIT_TASK_FAILED


# ---------------------------------------------------------------------------------------- sim, login
def run_sim(args: argparse.Namespace) -> int:
    from mediadesk.sim import api_cli, web_server

    serve = api_cli.serve_from_args if args.sim_kind == "api" else web_server.serve_from_args
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args))
    return EXIT_OK


async def cmd_login(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    ws = _workspace(config, args.data_dir, None)
    names = [a.name for a in config.accounts]
    if args.account not in names:
        raise UserError(f"no account {args.account!r} in {args.config} (accounts: {', '.join(names) or 'none'})")
    from mediadesk.providers.web.errors import WebLaneError
    from mediadesk.providers.web.login import interactive_login

    try:
        return await interactive_login(config, ws, args.account)
    except WebLaneError as exc:
        hint = ""
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            hint = " (no display: log in from a desktop session; the browser window must be visible)"
        raise UserError(f"could not open the login browser: {exc}{hint}") from None
