"""``mediadesk adapter check SITE [--account A]``: does a site adapter still fit its site?
``mediadesk adapter check --all``: the same on every enabled web account, one table.
``mediadesk adapter new URL --account A``: teach mode, an adapter written from the operator's clicks.

Prints one line per adapter key (found / missing / ambiguous / covered / invalid / not shown), the
screenshots with each element found outlined, the test prompt's answer, which completion rule
decided and whether the adapter is verified on the live site. Exit code 0 when every key fits and the
test prompt was answered (with ``--all``: on every account), 1 otherwise, 2 for a usage error.
Whatever came from the page is printed with its control characters escaped.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from mediadesk.config.model import ConfigError, load_config
from mediadesk.config.workspace import Workspace
from mediadesk.core.text import printable
from mediadesk.scheduler.adapter_check import (
    AccountCheckRow,
    AdapterCheckError,
    check_adapter,
    check_all_accounts,
    teach_adapter,
    verified,
    verified_text,
)

__all__ = ["add_parser", "render", "render_all", "run"]

_ANSWER_LINES = 12


def add_parser(sub: Any) -> None:
    """Add ``adapter`` (with ``check``) to the CLI's subcommands."""
    a = sub.add_parser("adapter", help="check a site adapter against its site")
    asub = a.add_subparsers(dest="adapter_cmd", metavar="ACTION", required=True)
    c = asub.add_parser("check", help="open the site on an account's profile, report each key, send one test prompt")
    c.add_argument("site", nargs="?", help="site adapter name (or a .toml file)")
    c.add_argument("--all", action="store_true", help="check every enabled web account, one after another, "
                   "and print one table")
    c.add_argument("--account", help="whose browser profile (login) to use (default: the first account on the site)")
    c.add_argument("--config", type=Path, required=True)
    c.add_argument("--data-dir", type=Path)
    c.add_argument("--prompt", help="the test prompt (default: a one-sentence request)")
    c.add_argument("--no-prompt", action="store_true", help="only look at the page; send nothing")
    c.add_argument("--out", type=Path, help="folder for the screenshots (default: <data dir>/evidence/adapter-check)")
    n = asub.add_parser("new", help="teach mode: click the message box, send button and answer in a visible "
                        "browser; writes an adapter TOML and checks it")
    n.add_argument("url", help="the chat page")
    n.add_argument("--account", required=True, help="whose browser profile (login) to use")
    n.add_argument("--config", type=Path, required=True)
    n.add_argument("--data-dir", type=Path)
    n.add_argument("--name", help="adapter name (default: from the host name)")
    n.add_argument("--out", type=Path, help="the TOML to write (default: <sites dir>/<name>.toml)")
    n.add_argument("--force", action="store_true", help="replace an existing file")


def _table(rows: Sequence[Sequence[str]], out: TextIO, *, indent: str = "") -> None:
    """``rows`` (the first one the heading) in columns, every cell escaped; the last column unpadded."""
    cells = [[printable(c, multiline=False) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]) - 1)]
    for r in cells:
        print(indent + "  ".join(c.ljust(w) for c, w in zip(r[:-1], widths, strict=True)) + "  " + r[-1], file=out)


def render(result: Any, out: TextIO) -> None:
    who = f" on account {result.account}" if result.account else ""
    site, url = printable(result.site, multiline=False), printable(result.url, multiline=False)
    version = f" (version {printable(result.version, multiline=False)})" if result.version else ""
    print(f"adapter check: {site}{version}{who} ({url})", file=out)
    rows = [("key", "status", "selector", "detail")]
    rows += [(k.key, k.status, k.selector, k.detail) for k in result.keys]
    _table(rows, out, indent="  ")
    for shot in result.screenshots:
        print(f"screenshot: {shot}", file=out)
    if result.prompt:
        print(f"test prompt: {printable(result.prompt, multiline=False)}", file=out)
    if result.answer is not None:
        lines = result.answer.splitlines() or [""]
        print(f"answer ({len(result.answer)} chars):", file=out)
        for line in lines[:_ANSWER_LINES]:
            print(f"  | {printable(line, multiline=False)}", file=out)
        if len(lines) > _ANSWER_LINES:
            print(f"  | ... ({len(lines) - _ANSWER_LINES} more lines)", file=out)
    if result.answer_source == "stream":
        print("answer source: stream (the adapter's [stream] decoder read it from the site's own stream)", file=out)
    elif result.answer_source is not None:
        print("answer source: page (the page's answer element)", file=out)
    if result.done_reason:
        print(f"done: {result.done_reason}", file=out)
    for ev in result.stream_events:
        print(f"  network: {printable(ev, multiline=False)}", file=out)
    for note in result.notes:
        print(f"note: {printable(note, multiline=False)}", file=out)
    if result.error:
        print(f"error: {printable(result.error, multiline=False)}", file=out)
    bad = [k for k in result.keys if k.status in ("missing", "ambiguous", "covered", "invalid")]
    verdict = "OK: the adapter fits the page" if result.ok else (
        f"NOT OK: {len(bad)} key(s) do not fit" + ("; the test prompt failed" if result.error else ""))
    print(verdict, file=out)


def _say(message: str) -> None:
    print(f"... {printable(message, multiline=False)}", file=sys.stderr)


def render_all(rows: list[AccountCheckRow], out: TextIO) -> None:
    """The table of ``adapter check --all``, then why each row that is not ok is not."""

    def when(row: AccountCheckRow) -> str:
        v = row.verified
        return "no" if v is None else v.on if v.version == row.version else f"{v.on} (older version)"

    table = [("account", "adapter", "keys", "source", "verdict", "verified")]
    table += [(row.account, f"{row.site} {row.version or '-'}", row.keys or "-", row.source or "-", row.verdict,
               when(row)) for row in rows]  # fmt: skip
    _table(table, out)
    for row in rows:
        if row.detail:
            print(f"{printable(row.account, multiline=False)}: {row.verdict}: {printable(row.detail, multiline=False)}",
                  file=out)
    n_ok = sum(row.verdict == "ok" for row in rows)
    print(f"{n_ok} of {len(rows)} account(s) ok", file=out)


def _usage(args: argparse.Namespace) -> str | None:
    """Why these ``adapter check`` arguments do not go together (None: they do)."""
    if not args.all:
        return None if args.site else "adapter check needs a SITE, or --all for every account"
    given = [name for name, on in (("a SITE", args.site), ("--account", args.account),
                                   ("--no-prompt", args.no_prompt), ("--out", args.out)) if on]  # fmt: skip
    return f"--all checks every enabled web account: it takes no {', '.join(given)}" if given else None


async def _check(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    ws = Workspace.resolve(data_dir=args.data_dir or config.data_dir).ensure()
    if args.all:
        def row_said(row: AccountCheckRow) -> None:
            _say(f"{row.account}: {row.verdict}")

        rows = await check_all_accounts(config, ws, prompt=args.prompt, say=_say, on_row=row_said)
        if not rows:
            print("mediadesk: no enabled web account in the config: nothing to check", file=sys.stderr)
            return 2
        render_all(rows, sys.stdout)
        return 0 if all(row.verdict == "ok" for row in rows) else 1
    result = await check_adapter(config, ws, args.site, account=args.account, prompt=args.prompt,
                                 send_prompt=not args.no_prompt, out_dir=args.out,
                                 say=_say)
    render(result, sys.stdout)
    v = verified(ws, result.account) if result.account else None
    print(printable(verified_text(v if v is not None and v.site == result.site else None, result.version),
                    multiline=False))
    return 0 if result.ok else 1


async def _new(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    ws = Workspace.resolve(data_dir=args.data_dir or config.data_dir).ensure()
    path, result = await teach_adapter(config, ws, args.url, account=args.account, name=args.name, out=args.out,
                                       force=args.force, say=_say)
    print(f"adapter written: {path}")
    if result is None:
        return 1
    render(result, sys.stdout)
    return 0 if result.ok else 1


def run(args: argparse.Namespace) -> int:
    """Run ``mediadesk adapter ...``."""
    if args.adapter_cmd == "check" and (usage := _usage(args)) is not None:
        print(f"mediadesk: {usage}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_new(args) if args.adapter_cmd == "new" else _check(args))
    except (ConfigError, AdapterCheckError) as exc:
        print(f"mediadesk: {printable(exc, multiline=False)}", file=sys.stderr)
        return 2
