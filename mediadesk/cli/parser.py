"""The command line: ``mediadesk [console | run | export | cancel | sim | demo | exceptions | init | login |
adapter]``."""

from __future__ import annotations

import argparse
from pathlib import Path

from mediadesk.cli import adapter_cmd, report_cmd, serve_cmd
from mediadesk.core.states import TaskState
from mediadesk.store.export import EXPORT_FORMATS

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
    r.add_argument("batch", type=Path, help="JSONL, CSV or XLSX batch file")
    r.add_argument("--config", type=Path, help="config TOML (default: <data dir>/config.toml)")
    r.add_argument("--db", help=_DB_HELP)
    r.add_argument("--data-dir", type=Path, help="workspace folder (default: config data_dir or platform dir)")
    r.add_argument("--format", choices=["jsonl", "csv", "xlsx"], help="batch format (default: by extension/content)")
    r.add_argument("--template", metavar="NAME",
                   help="render each row's prompt from <data dir>/templates/NAME.txt (the other columns fill it)")
    r.add_argument("--profile", metavar="P", help="the profile of the rows that name none")
    r.add_argument("--sheet", metavar="NAME", help="XLSX: the sheet to read (default: the first)")
    r.add_argument("--retry-failed", action="store_true", help="re-queue this batch's failed/canceled tasks")
    r.add_argument("--duplicates", choices=["skip", "again", "reuse"], default="skip",
                   help="rows that repeat a finished task (same profile, instructions and prompt) or a row above: "
                   "skip them (default), run them again as new tasks, or reuse the earlier answer at no cost")
    r.add_argument("--resume", action="store_true", help="resume lanes paused in an earlier session (a pause is kept)")
    r.add_argument("--quiet", action="store_true", help="no progress, summary only")
    r.add_argument("--budget", metavar="CAP",
                   help="most this batch may spend in all: 2.50 (the currency of its profiles' prices), "
                   "\"2.50 EUR\" or \"200k tokens\"; kept with the batch; past it its tasks stay pending")
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
    e.add_argument("--with-reasoning", action="store_true",
                   help="also export the model's thinking and its token count (columns reasoning_tokens, reasoning)")
    e.add_argument("--no-bom", action="store_true",
                   help="CSV without the UTF-8 byte order mark it starts with by default (Excel needs the mark to "
                   "read UTF-8; a terminal never gets it)")
    e.add_argument("--compare", action="store_true",
                   help="several models side by side: one row per prompt, one column group per profile (and "
                   "sample) with its answer, state, time and cost, and a kept column naming the kept answer's")
    e.add_argument("--batch", metavar="NAME", help="with --compare: only this batch (default: every task)")
    e.add_argument("--into", type=Path, metavar="SHEET",
                   help="the .xlsx or .csv batch the tasks came from: write a copy of it with each row's answers, "
                   "states and costs in new columns at the right (--out: the copy; default SHEET.results.xlsx/.csv)")
    e.add_argument("--config", type=Path, help="with --into: the config the batch ran with (its profiles and "
                   "prompt limit; default: <data dir>/config.toml when there is one)")
    e.add_argument("--template", metavar="NAME", help="with --into: the template the batch was run with")
    e.add_argument("--profile", metavar="P", help="with --into: the profile of the rows that name none")
    e.add_argument("--sheet", metavar="NAME", help="with --into: the sheet of the workbook (default: the first)")

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

    x = sub.add_parser("exceptions", help="failed tasks and accounts a person must see to: list them, resolve one")
    xsub = x.add_subparsers(dest="exc_cmd", metavar="ACTION", required=True)
    xl = xsub.add_parser("list", help="list unresolved exceptions (--all: resolved ones too)")
    xl.add_argument("--db", help=_DB_HELP)
    xl.add_argument("--data-dir", type=Path)
    xl.add_argument("--all", action="store_true")
    xl.add_argument("--config", type=Path, help="names the endpoint and its key source of a stopped endpoint")
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

    xa = xsub.add_parser("resolve-account", help="an account that needs a person (a bot check): open its browser "
                         "visibly at the chat page to solve the check; the account is ready again once it is gone")
    xa.add_argument("account")
    xa.add_argument("--config", type=Path, required=True)
    xa.add_argument("--db", help=_DB_HELP)
    xa.add_argument("--data-dir", type=Path)

    i = sub.add_parser("init", help="write a commented config template to <data dir>/config.toml")
    i.add_argument("--data-dir", type=Path, help="workspace folder (default: $MEDIADESK_DATA_DIR or platform dir)")

    lg = sub.add_parser("login", help="open a visible browser on an account's profile to log in once")
    lg.add_argument("account")
    lg.add_argument("--config", type=Path, required=True)
    lg.add_argument("--data-dir", type=Path)
    adapter_cmd.add_parser(sub)
    serve_cmd.add_parser(sub, _DB_HELP)
    report_cmd.add_parser(sub, _DB_HELP)
    return p
