"""The other commands: ``init``, ``exceptions``, ``export``, ``cancel``, ``sim`` and ``login``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys

from mediadesk.cli.errors import EXIT_OK, EXIT_TASK_FAILED, EXIT_USAGE, UserError
from mediadesk.cli.workspace import workspace_for
from mediadesk.config.location import StoreLocation
from mediadesk.config.model import load_config
from mediadesk.config.template import default_config_path, write_config_template
from mediadesk.core.batch import templates_dir
from mediadesk.core.paths import evidence_name
from mediadesk.core.text import printable
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.checks import CheckError, Checks, LoginResult
from mediadesk.scheduler.exceptions import (
    EXCEPTION_KINDS,
    NEEDS_A_PERSON,
    STOP_KINDS,
    stored_account_exceptions,
    stored_stops,
)
from mediadesk.store import open_store
from mediadesk.store.export import export_comparison, export_tasks, export_to_file, write_private
from mediadesk.store.into_sheet import export_into_sheet


def cmd_init(args: argparse.Namespace) -> int:
    """`mediadesk init`: the commented config template into the data dir (never over a file)."""
    path = default_config_path(args.data_dir)
    try:
        write_config_template(path)
    except FileExistsError:
        raise UserError(f"{path} already exists; edit it, or move it away to write a fresh template") from None
    print(f"wrote {path}: uncomment the sections you need, then `mediadesk run BATCH` or `mediadesk`")
    return 0


# ---------------------------------------------------------------------------------------- exceptions
def cmd_exceptions(args: argparse.Namespace) -> int:
    if args.exc_cmd == "list":
        ws = workspace_for(None, args.data_dir, args.db)
        if ws.db_url is None and not os.path.lexists(ws.db_path):
            raise UserError(f"database not found: {ws.db_path} (pass --db or --data-dir)")
        config = load_config(args.config) if getattr(args, "config", None) is not None else None
        store = open_store(ws.location)
        try:
            recs = store.exceptions(sorted(EXCEPTION_KINDS), include_resolved=args.all)
            # endpoints the last run stopped (key rejected, TLS): their tasks wait pending, uncharged
            stops = stored_stops(store.stopped_pending(STOP_KINDS), store.pending_count, config)
            people = stored_account_exceptions(store.account_states(), ws)
        finally:
            store.close()
        where = str(args.config) if config is not None else "the config"
        for stop in stops:
            print(printable(stop.line(where), multiline=False))
        for acc in people:  # accounts first: a whole account waits, not one task
            shot = f"\tscreenshot: {acc.screenshot}" if acc.screenshot is not None else ""
            line = f"{acc.title}\t{acc.message}{shot}\tresolve: mediadesk exceptions resolve-account {acc.account}"
            print("\t".join(printable(part, multiline=False) for part in line.split("\t")))
        for rec in recs:
            done = f"  [resolved: {rec.resolution}]" if rec.resolution else ""
            evidence = ws.evidence_dir / evidence_name(rec.task_id)
            ev = f"  evidence: {evidence}" if evidence.is_dir() else ""
            line = f"{rec.task_id}\t{rec.profile}\t{rec.error_kind}: {rec.error_message}{done}{ev}"
            print("\t".join(printable(part, multiline=False) for part in line.split("\t")))
        stopped = f", {len(stops)} stopped endpoint(s)" if stops else ""
        people_n = f", {len(people)} account(s) need a person" if people else ""
        print(f"{len(recs)} exception(s){stopped}{people_n}", file=sys.stderr)
        return EXIT_OK
    if args.exc_cmd == "resolve-account":
        return asyncio.run(_resolve_account(args))
    config = load_config(args.config)
    answer = args.answer
    if args.answer_file is not None:
        try:
            answer = args.answer_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(f"cannot read {args.answer_file}: {exc}") from None
    sched = Scheduler(config, workspace_for(config, args.data_dir, args.db))
    sched.open()
    try:
        try:
            rec = sched.resolve_exception(args.task_id, args.action, args.note, answer=answer, profile=args.profile)
        except ValueError as exc:
            raise UserError(str(exc)) from None
    finally:
        asyncio.run(sched.stop())
    print(f"{printable(rec.task_id, multiline=False)}: {args.action} -> {rec.state}")
    return EXIT_OK


async def _resolve_account(args: argparse.Namespace) -> int:
    """``exceptions resolve-account A``: the account's browser opens visibly at the chat page for the
    person to solve the check; the result is written where the running app would write it."""
    config = load_config(args.config)
    ws = workspace_for(config, args.data_dir, args.db)
    if args.account not in {a.name for a in config.accounts}:
        raise UserError(f"no account {args.account!r} in {args.config}")
    store = open_store(ws.location)
    try:
        enabled, health, _err = store.account_states().get(args.account, (True, "", None))
        if health != NEEDS_A_PERSON:
            print(f"account {printable(args.account, multiline=False)} does not wait for a person "
                  f"({printable(health or 'no state kept', multiline=False)})")
            return EXIT_OK
        name = printable(args.account, multiline=False)
        print(f"opening {name}'s browser at the chat page: solve the check there (the window closes by itself "
              "once it is gone; closing it yourself gives up)")
        try:
            seen = await Checks(config, ws).solve_challenge(args.account, on_status=lambda m: print(
                f"... {printable(m, multiline=False)}", file=sys.stderr))
        except CheckError as exc:
            raise UserError(str(exc)) from None
        store.set_account_health(args.account, seen.health, seen.seen or None, enabled)
    finally:
        store.close()
    if seen.health == NEEDS_A_PERSON or not seen.ok:
        print(f"account {name} still needs a person: the check was not solved")
        return EXIT_TASK_FAILED
    print(f"account {name}: the check is gone ({printable(seen.health, multiline=False)})")
    return EXIT_OK


# ---------------------------------------------------------------------------------------- export
def cmd_export(args: argparse.Namespace) -> int:
    if args.into is not None:
        return _export_into(args)
    ws = workspace_for(None, args.data_dir, args.db)
    if args.out is None and args.format == "xlsx" and sys.stdout.isatty():
        raise UserError("xlsx is a binary format: pass --out FILE.xlsx (or pipe the output into a file)")
    if args.compare:
        return _export_comparison(ws.location, args)
    if args.batch is not None:
        raise UserError("--batch goes with --compare (the plain export writes every task, or --state ones)")
    if args.out is None:
        # text formats on stdout may reach a terminal: control characters of answers shown escaped
        n = export_tasks(ws.location, sys.stdout, args.format, args.state, for_terminal=True,
                         with_reasoning=args.with_reasoning, bom=not args.no_bom and not sys.stdout.isatty())
    else:
        n = export_to_file(ws.location, args.out, args.format, args.state, with_reasoning=args.with_reasoning,
                           bom=not args.no_bom)
        print(f"exported {n} task(s) to {args.out}", file=sys.stderr)
    return EXIT_OK


def _export_into(args: argparse.Namespace) -> int:
    """``export --into SHEET``: a copy of the batch's spreadsheet or CSV with its rows' results."""
    path = args.config if args.config is not None else default_config_path(args.data_dir)
    config = load_config(path) if args.config is not None or path.is_file() else None
    ws = workspace_for(config, args.data_dir, args.db)
    done = export_into_sheet(
        ws.location, args.into, args.out, templates_dir=templates_dir(ws.data_dir), template=args.template,
        profile=args.profile, sheet=args.sheet,
        known_profiles=[p.name for p in config.profiles] if config is not None else None,
        max_prompt_chars=config.scheduler.max_prompt_chars if config is not None else 200_000)
    print(f"wrote {printable(str(done.path), multiline=False)}: {done.rows} row(s), {done.found} of {done.tasks} "
          f"task(s) found, {done.errors} rejected row(s)", file=sys.stderr)
    return EXIT_OK


def _export_comparison(location: StoreLocation, args: argparse.Namespace) -> int:
    """``export --compare``: one row per prompt (see :func:`mediadesk.store.export.export_comparison`)."""
    if args.state or args.with_reasoning:
        raise UserError("--compare shows every task of the prompts: --state and --with-reasoning do not apply")
    if args.out is None:
        n = export_comparison(location, sys.stdout, args.format, batch=args.batch, for_terminal=True,
                              bom=not args.no_bom and not sys.stdout.isatty())
    else:
        n = write_private(args.out, lambda fh: export_comparison(location, fh, args.format, batch=args.batch,
                                                                 bom=not args.no_bom))
        print(f"exported {n} prompt(s) to {args.out}", file=sys.stderr)
    return EXIT_OK


def cmd_cancel(args: argparse.Namespace) -> int:
    ws = workspace_for(None, args.data_dir, args.db)
    if ws.db_url is None and not os.path.lexists(ws.db_path):
        raise UserError(f"database not found: {ws.db_path}")
    store = open_store(ws.location)
    try:
        changed = store.request_cancel(args.task_ids)
    finally:
        store.close()
    for rec in changed:
        what = "canceled" if rec.state == "canceled" else "cancel requested (running; stops at next checkpoint)"
        print(f"{printable(rec.task_id, multiline=False)}: {what}")
    missing = set(args.task_ids) - {r.task_id for r in changed}
    for tid in sorted(missing):
        print(f"{printable(tid, multiline=False)}: not found or already finished", file=sys.stderr)
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
    ws = workspace_for(config, args.data_dir, None)
    names = [a.name for a in config.accounts]
    if args.account not in names:
        raise UserError(f"no account {args.account!r} in {args.config} (accounts: {', '.join(names) or 'none'})")
    try:
        result = await Checks(config, ws).login(args.account)
    except CheckError as exc:
        hint = ""
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            hint = " (no display: log in from a desktop session; the browser window must be visible)"
        raise UserError(f"could not open the login browser: {exc}{hint}") from None
    return {LoginResult.LOGGED_IN: EXIT_OK, LoginResult.NOT_COMPLETED: EXIT_TASK_FAILED}.get(result, EXIT_USAGE)
