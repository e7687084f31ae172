"""``mediadesk run`` and ``mediadesk demo``: one batch file headless until every task is terminal.

The batch goes in through the scheduler's intake (the console's way too); progress follows the
events and, at most once a second, the database; what is reported at the end is read back from
the database file (see :mod:`~mediadesk.cli.summary`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from collections.abc import Callable
from pathlib import Path

from mediadesk.cli.errors import UserError
from mediadesk.cli.progress import DB_POLL_S, Progress
from mediadesk.cli.spend import budget_stop_message, parse_budget, spend_line
from mediadesk.cli.summary import report_row_errors, storage_failure, summary, write_summary_json
from mediadesk.cli.workspace import db_name, workspace_for
from mediadesk.config.model import AppConfig, load_config
from mediadesk.config.template import default_config_path, no_config_message
from mediadesk.config.workspace import Workspace
from mediadesk.core.batch import ParsedBatch, parse_batch_file, templates_dir
from mediadesk.core.spend import Budget
from mediadesk.core.text import printable
from mediadesk.platform.signals import install_stop_handlers
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.duplicates import Duplicates, Plan
from mediadesk.scheduler.events import Notice, StorageFailed
from mediadesk.scheduler.intake import MissingApiKeysError
from mediadesk.store import TaskReader
from mediadesk.store.errors import StorageError


def _run_config_path(args: argparse.Namespace) -> Path:
    """``--config``, else ``<data dir>/config.toml``; neither: one line with the ways to go on."""
    if args.config is not None:
        return Path(args.config)
    path = default_config_path(args.data_dir)
    if not path.is_file():
        raise UserError(no_config_message(path))
    return path


async def cmd_run(args: argparse.Namespace) -> int:
    args.config = _run_config_path(args)
    return await run_batch(
        args.batch, load_config(args.config), data_dir=args.data_dir, db=args.db, fmt=args.format,
        retry_failed=args.retry_failed, quiet=args.quiet, config_path=args.config,
        summary_json=args.summary_json, resume=args.resume, budget=args.budget,
        template=args.template, profile=args.profile, sheet=args.sheet, duplicates=Duplicates(args.duplicates),
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
    resume: bool = False,
    budget: str | None = None,
    template: str | None = None,
    profile: str | None = None,
    sheet: str | None = None,
    duplicates: Duplicates = Duplicates.SKIP,
) -> int:
    """Run one batch file headless until all its tasks are terminal; returns the exit code.

    ``mediadesk run`` and ``mediadesk demo`` both come here. Counts are read back from the database file, once
    checked to be still the one the run wrote (a storage fault: exit 2). SIGINT, SIGTERM and SIGHUP stop it
    gracefully (130), the summary written all the same. Lanes paused earlier stay paused unless ``resume``."""
    stop = _StopSignals()
    stop.install()  # from here on a signal ends the run the graceful way, whatever it is doing
    try:
        ws = workspace_for(config, data_dir, db)
        parsed = parse_batch_file(
            batch, fmt=fmt, known_profiles=[p.name for p in config.profiles],
            max_prompt_chars=config.scheduler.max_prompt_chars, templates_dir=templates_dir(ws.data_dir),
            template=template, profile=profile, sheet=sheet,
        )
        report_row_errors(parsed, sys.stderr)
        if not parsed.rows:
            what = f"all {len(parsed.errors)} rows were rejected" if parsed.errors else "it has no rows"
            raise UserError(f"nothing to run in {batch}: {what} (read as {parsed.encoding or parsed.format})")
        cap = None if budget is None else parse_budget(budget, config, {p for r in parsed.rows for p in r.targets})
        return await _run_batch(batch, config, ws, parsed, stop, retry_failed=retry_failed, quiet=quiet,
                                config_path=config_path, summary_json=summary_json, resume=resume, cap=cap,
                                duplicates=duplicates)
    finally:
        stop.uninstall()


async def _run_batch(
    batch: Path, config: AppConfig, ws: Workspace, parsed: ParsedBatch, stop: _StopSignals, *,
    retry_failed: bool, quiet: bool, config_path: Path | None, summary_json: Path | None, resume: bool = False,
    cap: tuple[float, str] | None = None, duplicates: Duplicates = Duplicates.SKIP,
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
            await asyncio.sleep(0)  # a signal that came while opening is seen here
            if stop.is_set():
                raise _Interrupted
            try:  # through the console's intake: same caps, same key rule
                done = sched.intake.submit_rows(parsed.rows, batch.name, retry_failed=retry_failed,
                                                duplicates=duplicates)
            except MissingApiKeysError as exc:
                raise UserError("\nmediadesk: ".join(m.message() for m in exc.missing)) from None
            res, ids = done.result, done.ids
            print(
                f"batch {printable(batch.name)}: {len(parsed.rows)} valid rows"
                + (f", {len(ids)} tasks" if len(ids) != len(parsed.rows) else "")  # several profiles, samples
                + f" ({len(res.added)} new, {len(res.existing)} already in {db_name(ws)}), "
                f"{len(parsed.errors)} rejected, read as {parsed.encoding or parsed.format}",
                flush=True,
            )
            if done.plan is not None:
                _say_duplicates(done.plan, duplicates)
            if cap is not None:  # kept with the batch: a later run of it keeps the cap
                sched.set_batch_budget(batch.name, *cap)
                label = Budget("batch", batch.name, "total", *cap).label()
                print(f"budget of {printable(label)}", flush=True)
            if retry_failed:
                n = sched.retry(ids)
                if n:
                    print(f"re-queued {n} failed/canceled task(s)", flush=True)
            await asyncio.sleep(0)
            if stop.is_set():
                raise _Interrupted
            await sched.start()
            _say_kept_pauses(sched, resume)
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
        return storage_failure(failure, ids, parsed, ws, summary_json)
    rc = summary(states, ids, parsed, ws, interrupted)
    spent = _spend_of(ws, ids)
    if spent is not None:
        print(spent, flush=True)
    return write_summary_json(summary_json, rc, ws, ids, states, parsed, interrupted=interrupted)


def _say_duplicates(plan: Plan, choice: Duplicates) -> None:
    """What became of the rows that repeat a finished task or a row above (nothing said when none do)."""
    done = {Duplicates.SKIP: "skipped (use --duplicates again or reuse)",
            Duplicates.AGAIN: "sent again as new tasks",
            Duplicates.REUSE: "their earlier answers reused at no cost, nothing sent"}
    if plan.done:
        print(f"{plan.done} rows repeat finished tasks: {done[choice]}", flush=True)
    if plan.in_batch:
        said = ("run as distinct tasks" if choice is Duplicates.AGAIN
                else "dropped (use --duplicates again to run them)")
        print(f"{plan.in_batch} rows repeat a row above: {said}", flush=True)


def _say_kept_pauses(sched: Scheduler, resume: bool) -> None:
    """Lanes paused in an earlier session stay paused (console, ``serve`` or a run): say which, or
    resume them all with ``--resume``."""
    kept = [lane.name for lane in sched.lanes if lane.paused_kept]
    if not kept:
        return
    if resume:
        sched.pause(None, False)
        print(f"resumed {len(kept)} lane(s) paused in an earlier session: {', '.join(kept)}", flush=True)
    else:
        print(f"paused in an earlier session (the pause is kept): {', '.join(kept)}; their tasks wait. "
              "Resume them in the console, or run again with --resume", file=sys.stderr, flush=True)


class _Interrupted(Exception):
    """A stop signal came before the batch was started."""


class _StopSignals:
    """The stop signals (SIGINT, SIGTERM, SIGHUP; Ctrl+C, Ctrl+Break on Windows) end ``mediadesk run``
    gracefully: the event is set, the run stops its lanes (running attempts go back to pending, refunded)
    and writes its summary. Installed on the loop for the whole run, so a signal during start-up or
    shut-down is not a crash either (:func:`mediadesk.platform.signals.install_stop_handlers`)."""

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.signum: int | None = None
        self._uninstall: Callable[[], None] | None = None

    def install(self) -> None:
        self._uninstall = install_stop_handlers(asyncio.get_running_loop(), self._on_signal)

    def _on_signal(self, signum: int) -> None:
        if self.signum is None:
            self.signum = signum
        self.event.set()

    def is_set(self) -> bool:
        return self.event.is_set()

    def uninstall(self) -> None:
        if self._uninstall is not None:
            self._uninstall()
            self._uninstall = None


def _spend_of(ws: Workspace, ids: list[str]) -> str | None:
    if not ids:
        return None
    reader = TaskReader(ws.location)
    try:
        return spend_line(reader.get_many(ids))
    finally:
        reader.close()


def _states_of(ws: Workspace, ids: list[str]) -> dict[str, tuple[str, str]]:
    if not ids:
        return {}
    reader = TaskReader(ws.location)
    try:
        return {r.task_id: (r.state, r.profile) for r in reader.get_many(ids)}
    finally:
        reader.close()


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
    """Why no account (or API endpoint) can take the tasks of ``profiles``: each, why, and what to do next."""
    config = str(config_path) if config_path is not None else "CONFIG"
    what = "account" if any(ln.account is not None for ln in sched.lanes if set(ln.profiles) & set(profiles)) \
        else "endpoint"
    lines = [f"no {what} can take the tasks of profile(s) {', '.join(profiles)}; they stay pending in the "
             "database and resume on the next run:"]
    stops = sched.stopped_endpoints()
    for profile in profiles:
        lanes = [ln for ln in sched.lanes if profile in ln.profiles]
        if lanes and all(ln.paused for ln in lanes):
            lines.append(f"  {profile}: paused (kept from an earlier session) -> resume it in the console, "
                         "or run again with --resume")
            continue
        blocks = sched.blocked_accounts(profile)
        stopped = [st for st in stops if profile in st.profiles]
        for st in stopped:  # its key rejected, a TLS error: it waits for the operator, not for time
            lines.append(f"  {profile}: {st.line(config)}")
        if stopped:
            continue
        if not blocks:
            lines.append(f"  {profile}: no [[accounts]] entry uses this profile; add one to the config")
        for b in blocks:
            step = (f"log in with `mediadesk login {b.account} --config {config}` (or the console's Log in)"
                    if b.action == "login" else _NEXT_STEP.get(b.action, ""))
            lines.append(f"  {profile} / {b.account}: {b.reason}" + (f" -> {step}" if step else ""))
    return "\n".join(lines)


def _say_waits(sched: Scheduler, said: dict[str, str]) -> dict[str, str]:
    """Print each lane's wait once as it begins (quiet hours: "waits until 22:00"), and when it ends."""
    now = sched.waits()
    stamp = time.strftime("%H:%M:%S")
    for lane, why in now.items():
        if said.get(lane) != why:
            print(f"[{stamp}] {lane}: {printable(why, multiline=False)}; its tasks stay pending until then",
                  file=sys.stderr, flush=True)
    for lane in said.keys() - now.keys():
        print(f"[{stamp}] {lane}: takes tasks again", file=sys.stderr, flush=True)
    return now


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
    progress = Progress(sched, ids, quiet=quiet)

    def on_event(ev: object) -> None:
        progress.on_event(ev)
        if isinstance(ev, Notice):  # a breaker opened, a probe failed, an endpoint stopped: say what it waits for
            print(f"[{time.strftime('%H:%M:%S')}] {printable(ev.message, multiline=False)}", file=sys.stderr,
                  flush=True)
        if isinstance(ev, StorageFailed):
            stop_event.set()  # wake at once; the caller reports it (sched.storage_error)

    unsubscribe = sched.bus.subscribe(on_event)
    next_poll = loop.time() + DB_POLL_S  # Progress has just read them
    said_waits: dict[str, str] = {}
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
                next_poll = loop.time() + max(DB_POLL_S, 20 * (time.perf_counter() - t0))
            if progress.done():
                break
            if stop_event.is_set() and sched.storage_error is None:
                print("\ninterrupted: running tasks go back to pending and resume on the next run",
                      file=sys.stderr)
                return True
            blocked = sched.unservable_profiles()
            if blocked and progress.only_pending_of(blocked):
                print("\n" + printable(cannot_serve_message(sched, blocked, config_path)), file=sys.stderr)
                return False
            stops = sched.budget_stops()
            if stops and progress.only_pending_of(list(stops)):
                where = str(config_path) if config_path is not None else "the config"
                print("\n" + printable(budget_stop_message(stops, where)), file=sys.stderr)
                return False
            said_waits = _say_waits(sched, said_waits)
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
