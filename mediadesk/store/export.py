"""Results out of the task table as JSONL, CSV, XLSX or a Markdown table: one writer for the console
and the CLI, so both produce the same file. Timestamps are ISO-8601 with the local UTC offset
(``2025-10-09T10:53:20.250+02:00``): readable, sortable and unambiguous in every format."""

from __future__ import annotations

import csv
import json
import math
import os
import re
import secrets
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import BinaryIO, TextIO

from mediadesk.config.location import SqliteLocation, StoreLocation, as_location
from mediadesk.core.text import printable
from mediadesk.files.safe import create_private_file, refuse_symlink
from mediadesk.store.comparison import compare_fields, compare_rows, comparison_of
from mediadesk.store.open_errors import OlderSchemaError
from mediadesk.store.reader import TaskReader
from mediadesk.store.schema import migrate
from mediadesk.store.taskstore import TaskRecord

EXPORT_FORMATS = ("jsonl", "csv", "xlsx", "md")

EXPORT_FIELDS = (
    "task_id", "state", "model_kind", "profile", "account", "attempt", "prompt", "result",
    "error_kind", "error_message", "created_at", "started_at", "finished_at", "batch",
    "served_by", "origin_profile", "route_key", "resolution", "resolution_note", "truncated",
    # the desktop (scheduler process, ``host:pid:uuid8``) that last ran the task: team mode's "who ran it"
    "owner",
    # tokens used (summed over attempts; usage_estimated: MediaDesk's estimate, not the provider's count)
    "prompt_tokens", "completion_tokens", "cached_tokens", "usage_estimated",
    # what it cost at its profile's price (an estimate when usage_estimated), in currency
    "cost", "currency",
    # the batch row it came from: its group (several profiles or samples), template, sample 1..n; the keep mark
    "group_id", "template", "sample", "kept",
)
#: Added at the end by ``with_reasoning``: a reasoning model's thinking, kept apart from ``result``, and
#: the tokens the provider counted for it (off by default: the thinking is often longer than the answer).
REASONING_FIELDS = ("reasoning_tokens", "reasoning")


def export_fields(*, with_reasoning: bool = False) -> tuple[str, ...]:
    """The exported columns, in order."""
    return EXPORT_FIELDS + REASONING_FIELDS if with_reasoning else EXPORT_FIELDS


class ExportError(Exception):
    """A user-level export problem (no database, unknown format); the message says what to do."""


def export_tasks(db: StoreLocation | Path, out: TextIO, fmt: str, states: Sequence[str] | None = None, *,
                 task_ids: Sequence[str] | None = None, for_terminal: bool = False,
                 with_reasoning: bool = False, bom: bool = False) -> int:
    """Write the tasks of ``db`` to ``out``; returns the row count. ``states``: only tasks in these
    states; ``task_ids``: only these tasks, in this order (the console's selected or filtered
    rows; ids not in the database are skipped). XLSX is written to ``out.buffer`` (a file opened by
    :func:`export_to_file`, or a piped stdout). ``for_terminal`` (stdout): no control character
    of a prompt or an answer reaches the terminal: CSV cells show them escaped (see
    :func:`mediadesk.core.text.printable`), JSONL writes them as ``\\uXXXX`` (the same data once
    parsed); Markdown always escapes them. ``with_reasoning``: the :data:`REASONING_FIELDS` too. ``bom``: CSV
    starts with the UTF-8 byte order mark, without which Excel reads UTF-8 as the local code page (mojibake
    for Chinese on Chinese Windows); the other formats never have one."""
    _check_format(fmt)
    reader = open_reader(db)
    fields = export_fields(with_reasoning=with_reasoning)
    try:
        rows = (export_row(rec, fields) for rec in _export_records(reader, states, task_ids))
        return write_rows(rows, out, fmt, fields, for_terminal=for_terminal, bom=bom)
    finally:
        reader.close()


def export_comparison(db: StoreLocation | Path, out: TextIO, fmt: str, *, batch: str | None = None,
                      for_terminal: bool = False, bom: bool = False) -> int:
    """Write the comparison of ``batch`` (None: every task; :mod:`mediadesk.store.comparison`) to ``out``: one
    row per prompt, one column group per profile and sample, a ``kept`` column; returns the row count. Cells
    are escaped as :func:`export_tasks` escapes them."""
    _check_format(fmt)
    reader = open_reader(db)
    try:
        comparison = comparison_of(reader.iter_tasks(batch=batch))
    finally:
        reader.close()
    return write_rows(compare_rows(comparison), out, fmt, compare_fields(comparison), for_terminal=for_terminal,
                      bom=bom)


def _check_format(fmt: str) -> None:
    if fmt not in EXPORT_FORMATS:
        raise ExportError(f"unknown export format {fmt!r}: use one of {', '.join(EXPORT_FORMATS)}")


def open_reader(db: StoreLocation | Path) -> TaskReader:
    """A reader for an export: a missing database file named, an older SQLite database upgraded once
    (backup kept)."""
    loc = as_location(db)
    if isinstance(loc, SqliteLocation) and not os.path.lexists(loc.path):
        raise ExportError(f"database not found: {loc.path} (pass --db or --data-dir of the workspace to export)")
    try:
        return TaskReader(loc)  # reads only: a current database exports from a read-only disk too
    except OlderSchemaError:
        if not isinstance(loc, SqliteLocation):
            raise
        migrate(loc.path)  # an older MediaDesk's database lacks newer columns: upgrade it once (backup kept)
        return TaskReader(loc)


def write_rows(rows: Iterable[Mapping[str, object]], out: TextIO, fmt: str, fields: Sequence[str], *,
               for_terminal: bool = False, bom: bool = False) -> int:
    """``rows`` in ``fmt`` (XLSX into ``out.buffer``); returns the row count."""
    if fmt == "xlsx":
        binary = _binary_target(out)
        out.flush()
        return write_xlsx(rows, binary, fields)
    if fmt == "md":
        return write_markdown(rows, out, fields)
    if fmt == "csv":
        return write_csv(rows, out, for_terminal=for_terminal, fields=fields, bom=bom)
    return write_jsonl(rows, out, for_terminal=for_terminal)


def export_to_file(db: StoreLocation | Path, path: Path, fmt: str, states: Sequence[str] | None = None, *,
                   task_ids: Sequence[str] | None = None, with_reasoning: bool = False, bom: bool = True) -> int:
    """Export into ``path`` through a private temp file that is renamed into place, so a failed
    export never leaves half a file under the chosen name. The file is created 0600 (results can be
    confidential) whatever the umask; a symlink at ``path`` is refused (never followed nor replaced).
    UTF-8, a CSV file with a BOM unless ``bom`` is False (see :func:`export_tasks`)."""
    return write_private(path, lambda fh: export_tasks(db, fh, fmt, states, task_ids=task_ids,
                                                        with_reasoning=with_reasoning, bom=bom))


def write_private(path: Path, write: Callable[[TextIO], int]) -> int:
    """``write`` into ``path`` (UTF-8) through a private temp file renamed into place (see
    :func:`export_to_file`); returns what ``write`` returns."""
    refuse_symlink(path, "export")
    if path.is_dir():
        raise ExportError(f"{path} is a directory: give --out a file name")
    if not path.parent.is_dir():
        raise ExportError(f"folder {path.parent} does not exist: create it, or choose another --out")
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.part")
    try:
        fd = create_private_file(tmp)
    except OSError as exc:  # (read-only or full disk, no permission): name the file the user chose
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    try:
        with open(fd, "w", encoding="utf-8", newline="") as fh:
            n = write(fh)
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return n


# ------------------------------------------------------------------------------------------ rows
#: Fields holding epoch seconds in the store, written as ISO-8601 text.
TIME_FIELDS = frozenset({"created_at", "started_at", "finished_at"})
#: Ids per query when exporting a subset.
_IDS_PER_QUERY = 500


def iso_time(ts: float | None) -> str | None:
    """Epoch seconds as ISO-8601 local time with its UTC offset, to the millisecond:
    ``2025-10-09T10:53:20.250+02:00`` (``time.localtime`` knows the offset of that moment, DST
    included; half the cost of ``datetime.astimezone``, which counts at 300k timestamps)."""
    if ts is None:
        return None
    whole = math.floor(ts)
    ms = min(999, round((ts - whole) * 1000))
    lt = time.localtime(whole)
    off = lt.tm_gmtoff // 60
    sign = "-" if off < 0 else "+"
    off = abs(off)
    return f"{time.strftime('%Y-%m-%dT%H:%M:%S', lt)}.{ms:03d}{sign}{off // 60:02d}:{off % 60:02d}"


def export_row(rec: TaskRecord, fields: Sequence[str] = EXPORT_FIELDS) -> dict[str, object]:
    """One task as exported: ``fields`` (:data:`EXPORT_FIELDS`), timestamps as ISO-8601 text."""
    row: dict[str, object] = {f: getattr(rec, f) for f in fields}
    for f in TIME_FIELDS.intersection(row):
        value = row[f]
        row[f] = iso_time(value) if isinstance(value, int | float) else value
    return row


def _export_records(reader: TaskReader, states: Sequence[str] | None,
                    task_ids: Sequence[str] | None) -> Iterator[TaskRecord]:
    if task_ids is None:
        yield from reader.iter_tasks(states=states)
        return
    wanted = set(states) if states else None
    for i in range(0, len(task_ids), _IDS_PER_QUERY):
        for rec in reader.get_many(task_ids[i:i + _IDS_PER_QUERY]):
            if wanted is None or rec.state in wanted:
                yield rec


# ------------------------------------------------------------------------------------------ writers
#: What ``json.dumps(ensure_ascii=False)`` leaves raw that a terminal may still act on: DEL, C1
#: controls, bidirectional overrides (C0 controls it already writes as ``\\u00XX``).
_JSON_RAW_CONTROLS = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _json_escape(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group(0)):04x}"


def write_jsonl(rows: Iterable[Mapping[str, object]], out: TextIO, *, for_terminal: bool = False) -> int:
    n = 0
    for row in rows:
        line = json.dumps(row, ensure_ascii=False)
        if for_terminal:
            line = _JSON_RAW_CONTROLS.sub(_json_escape, line)
        out.write(line + "\n")
        n += 1
    return n


#: First characters a spreadsheet reads as the start of a formula (or that hide one after them).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object, *, for_terminal: bool = False) -> object:
    """A value as one CSV cell: text a spreadsheet would run as a formula (``=HYPERLINK(...)``,
    ``+cmd|...``, ``@SUM``, ``-2+3``, or one of those after a tab or CR) gets a leading ``'``,
    the usual mark of "text, not a formula" (the XLSX writer types its cells as text instead).
    ``for_terminal``: control characters shown escaped."""
    if not isinstance(value, str):
        return value
    if for_terminal:
        value = printable(value)
    if value.startswith(_FORMULA_START):
        value = "'" + value
    return value


def write_csv(rows: Iterable[Mapping[str, object]], out: TextIO, *, for_terminal: bool = False,
              fields: Sequence[str] = EXPORT_FIELDS, bom: bool = False) -> int:
    if bom:
        out.write("\ufeff")
    writer = csv.DictWriter(out, fieldnames=fields)
    writer.writeheader()
    n = 0
    for row in rows:
        writer.writerow({k: csv_cell(v, for_terminal=for_terminal) for k, v in row.items()})
        n += 1
    return n


_MD_ESCAPES = str.maketrans({"\\": "\\\\", "|": "\\|", "&": "&amp;", "<": "&lt;", ">": "&gt;"})
_NEWLINES = re.compile(r"\r\n|\r|\n")


def markdown_cell(value: object) -> str:
    """A value as one Markdown table cell: pipes and backslashes escaped, HTML shown as text,
    line breaks as ``<br>`` (a table row is one line), other control characters shown escaped
    (a table is read on a terminal too)."""
    if value is None:
        return ""
    return printable(_NEWLINES.sub("<br>", str(value).translate(_MD_ESCAPES)), multiline=False)


def write_markdown(rows: Iterable[Mapping[str, object]], out: TextIO, fields: Sequence[str] = EXPORT_FIELDS) -> int:
    """A GitHub-flavoured Markdown table, one line per task."""
    out.write("| " + " | ".join(fields) + " |\n")
    out.write("|" + "---|" * len(fields) + "\n")
    n = 0
    for row in rows:
        out.write("| " + " | ".join(markdown_cell(row.get(f)) for f in fields) + " |\n")
        n += 1
    return n


#: The most characters a spreadsheet cell holds (Excel's limit; openpyxl would write more and
#: the file would then be "repaired" on opening).
XLSX_CELL_MAX = 32_767
#: Control characters the XLSX format cannot hold (tab, newline and carriage return are allowed).
_XLSX_ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_XLSX_WIDTHS = {"task_id": 28, "prompt": 60, "result": 60, "error_message": 40, "created_at": 30,
                "started_at": 30, "finished_at": 30, "resolution_note": 30, "reasoning": 60}


def xlsx_text(text: str) -> str:
    """``text`` as a cell holds it: illegal control characters dropped, and cut to
    :data:`XLSX_CELL_MAX` with a note saying so (the JSONL/CSV exports carry it whole)."""
    text = _XLSX_ILLEGAL.sub("", text)
    if len(text) <= XLSX_CELL_MAX:
        return text
    note = f" … [cut: {len(text)} characters, a cell holds {XLSX_CELL_MAX}; the JSONL export has all]"
    return text[:XLSX_CELL_MAX - len(note)] + note


def write_xlsx(rows: Iterable[Mapping[str, object]], out: BinaryIO, fields: Sequence[str] = EXPORT_FIELDS) -> int:
    """One sheet, a bold frozen header row, one row per task. Every text is a string cell, never
    a formula: a prompt that starts with ``=`` must not run in the operator's spreadsheet."""
    from openpyxl import Workbook  # imported here: only this format needs it (~0.2 s)
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    wb = Workbook(write_only=True)
    ws = wb.create_sheet("tasks")
    ws.freeze_panes = "A2"
    for i, name in enumerate(fields, start=1):
        ws.column_dimensions[get_column_letter(i)].width = _XLSX_WIDTHS.get(name, 14)
    bold = Font(bold=True)
    header = []
    for name in fields:
        cell = WriteOnlyCell(ws, value=name)
        cell.font = bold
        header.append(cell)
    ws.append(header)
    n = 0
    for row in rows:
        cells = []
        for f in fields:
            value = row.get(f)
            if isinstance(value, str):
                cell = WriteOnlyCell(ws, value=xlsx_text(value))
                cell.data_type = "s"  # not "f" for "=...", not "e" for "#N/A"
            else:
                cell = WriteOnlyCell(ws, value=value)
            cells.append(cell)
        ws.append(cells)
        n += 1
    wb.save(out)
    return n


def _binary_target(out: TextIO) -> BinaryIO:
    binary = getattr(out, "buffer", None)
    if binary is None:
        raise ExportError("xlsx is a binary format: write it to a file (--out FILE.xlsx)")
    return binary
