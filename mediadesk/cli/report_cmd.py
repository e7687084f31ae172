"""``mediadesk report BATCH``: one batch's comparison as a Markdown or HTML page: its totals, one table row per
prompt (each profile's and sample's state, time and cost, the kept answer), then each prompt's answers grouped
by profile. Every value from outside is escaped: Markdown as the Markdown export escapes its cells, HTML with
:func:`html.escape` (no script, no style sheet from outside)."""

from __future__ import annotations

import argparse
import html
import sys
from collections.abc import Iterator
from pathlib import Path

from mediadesk.cli.errors import EXIT_OK, UserError
from mediadesk.cli.workspace import workspace_for
from mediadesk.core.spend import fmt_amount
from mediadesk.core.text import printable
from mediadesk.store.comparison import CompareCell, Comparison, comparison_of, totals_of
from mediadesk.store.export import markdown_cell, open_reader, write_private

REPORT_FORMATS = ("md", "html")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser], db_help: str) -> None:
    r = sub.add_parser("report", help="one batch's comparison of profiles and samples, with totals (md or html)")
    r.add_argument("batch", help="the batch's name")
    r.add_argument("--format", choices=list(REPORT_FORMATS), default="md", help="md (default) or html")
    r.add_argument("--out", type=Path, help="output file, created private (default: stdout)")
    r.add_argument("--db", help=db_help)
    r.add_argument("--data-dir", type=Path)


def main(args: argparse.Namespace) -> int:
    ws = workspace_for(None, args.data_dir, args.db)
    reader = open_reader(ws.location)
    try:
        comparison = comparison_of(reader.iter_tasks(batch=args.batch))
    finally:
        reader.close()
    if not comparison.rows:
        raise UserError(f"batch {printable(args.batch, multiline=False)!r} has no tasks in {ws.location.display}")
    write = write_html if args.format == "html" else write_markdown_report
    if args.out is None:
        text = "".join(write(comparison, args.batch))
        sys.stdout.write(printable(text))  # an answer's control characters never reach the terminal
        return EXIT_OK
    write_private(args.out, lambda fh: fh.write("".join(write(comparison, args.batch))))
    print(f"wrote the report of {len(comparison.rows)} prompt(s) to {args.out}", file=sys.stderr)
    return EXIT_OK


# ------------------------------------------------------------------------------------------ values
def seconds_text(seconds: float | None) -> str:
    return "" if seconds is None else f"{seconds:.1f} s"


def cost_text(cell: CompareCell) -> str:
    return fmt_amount(cell.cost, cell.currency) if cell.cost is not None and cell.currency else ""


def _cost_totals(cost: dict[str, float]) -> str:
    return " + ".join(fmt_amount(a, c) for c, a in sorted(cost.items())) or "-"


def _summary(cell: CompareCell | None) -> str:
    """A cell of the table: state, time and cost (its answer is in the prompt's section)."""
    if cell is None:
        return ""
    return ", ".join(p for p in (cell.state, seconds_text(cell.seconds), cost_text(cell)) if p)


def _totals_lines(comparison: Comparison) -> list[tuple[str, str]]:
    t = totals_of(comparison)
    return [("prompts", str(len(comparison.rows))), ("tasks", str(t.tasks)), ("succeeded", str(t.succeeded)),
            ("failed", str(t.failed)), ("cost", _cost_totals(dict(t.cost))), ("time", seconds_text(t.seconds))]


def _grouped(comparison: Comparison, cells: tuple[CompareCell, ...]) -> Iterator[tuple[str, list[CompareCell]]]:
    """A prompt's cells grouped by profile, profiles in column order."""
    profiles = dict.fromkeys(p for p, _ in comparison.columns)
    for profile in profiles:
        mine = sorted((c for c in cells if c.profile == profile), key=lambda c: c.sample or 1)
        if mine:
            yield profile, mine


# ------------------------------------------------------------------------------------------ Markdown
def write_markdown_report(comparison: Comparison, batch: str) -> Iterator[str]:
    md = markdown_cell
    yield f"# Batch {md(batch)}\n\n## Totals\n\n| | |\n|---|---|\n"
    yield from (f"| {name} | {md(value)} |\n" for name, value in _totals_lines(comparison))
    labels = [comparison.label(col) for col in comparison.columns]
    yield "\n## Comparison\n\n| # | prompt | " + " | ".join(md(x) for x in labels) + " | kept |\n"
    yield "|" + "---|" * (len(labels) + 3) + "\n"
    for i, row in enumerate(comparison.rows, start=1):
        summaries = " | ".join(md(_summary(row.cell(col))) for col in comparison.columns)
        yield f"| {i} | {md(row.prompt)} | {summaries} | {md(comparison.kept_label(row))} |\n"
    yield "\n## Answers\n"
    for i, row in enumerate(comparison.rows, start=1):
        yield f"\n### {i}. {md(row.prompt)}\n"
        for profile, cells in _grouped(comparison, row.cells):
            yield f"\n#### {md(profile)}\n\n| sample | state | time | cost | kept | answer |\n" + "|---" * 6 + "|\n"
            for c in cells:
                answer = c.answer if c.answer is not None else (c.error_message or "")
                yield (f"| {c.sample or 1} | {md(c.state)} | {seconds_text(c.seconds)} | {md(cost_text(c))} | "
                       f"{'kept' if c.kept else ''} | {md(answer)} |\n")


# ------------------------------------------------------------------------------------------ HTML
def e(value: object) -> str:
    """``value`` as HTML text (quotes too: safe in an attribute)."""
    return html.escape("" if value is None else str(value), quote=True)


def write_html(comparison: Comparison, batch: str) -> Iterator[str]:
    yield ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
           f"<title>Batch {e(batch)}</title><style>{_CSS}</style></head><body>\n")
    yield f"<h1>Batch {e(batch)}</h1>\n<h2>Totals</h2>\n<table>\n"
    yield from (f"<tr><th>{e(name)}</th><td>{e(value)}</td></tr>\n" for name, value in _totals_lines(comparison))
    yield "</table>\n<h2>Comparison</h2>\n<table>\n<tr><th>#</th><th>prompt</th>"
    yield "".join(f"<th>{e(comparison.label(col))}</th>" for col in comparison.columns) + "<th>kept</th></tr>\n"
    for i, row in enumerate(comparison.rows, start=1):
        tds = "".join(f"<td>{e(_summary(row.cell(col)))}</td>" for col in comparison.columns)
        yield f"<tr><td>{i}</td><td>{e(row.prompt)}</td>{tds}<td>{e(comparison.kept_label(row))}</td></tr>\n"
    yield "</table>\n<h2>Answers</h2>\n"
    for i, row in enumerate(comparison.rows, start=1):
        yield f"<h3>{i}. {e(row.prompt)}</h3>\n"
        for profile, cells in _grouped(comparison, row.cells):
            yield (f"<h4>{e(profile)}</h4>\n<table>\n<tr><th>sample</th><th>state</th><th>time</th><th>cost</th>"
                   "<th>kept</th><th>answer</th></tr>\n")
            for c in cells:
                answer = c.answer if c.answer is not None else (c.error_message or "")
                yield (f"<tr><td>{c.sample or 1}</td><td>{e(c.state)}</td><td>{e(seconds_text(c.seconds))}</td>"
                       f"<td>{e(cost_text(c))}</td><td>{'kept' if c.kept else ''}</td>"
                       f"<td class=\"answer\">{e(answer)}</td></tr>\n")
            yield "</table>\n"
    yield "</body></html>\n"


_CSS = ("body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:0.5em 0}"
        "th,td{border:1px solid #ccc;padding:4px 8px;vertical-align:top;text-align:left}"
        "td.answer{white-space:pre-wrap}")
