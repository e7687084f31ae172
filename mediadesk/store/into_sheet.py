"""Results back into the operator's own spreadsheet: a copy of the batch's .xlsx or .csv with, at the right of
its columns, each row's answers, states and costs.

The file is read again exactly as the batch reader read it (:func:`~mediadesk.core.batch.parse_batch_file`, with
the same template, profile and sheet), so each row's task ids come out as they did at submit
(:func:`~mediadesk.core.batch.assign_task_ids`, :func:`~mediadesk.core.batch.row_tasks`); the tasks are looked up
in the store. A row that makes several tasks (several profiles, samples) gets one answer/state/cost triple per
task, the profile (and sample) named in the header; the task the operator kept is marked in its state. A row
the reader rejects gets its error in the state column.

The original is never written: the copy (default ``<name>.results.xlsx`` / ``.results.csv`` beside it) is
private and replaced atomically, a symlink at its path refused (:func:`~mediadesk.files.safe.write_private_file`).
A workbook keeps its other sheets, formats and formulas (openpyxl, not read-only); the new cells are text cells,
never formulas. A CSV keeps its columns as read (in the encoding detected) and is written as UTF-8 with a BOM,
the new cells escaped as :func:`~mediadesk.store.export.csv_cell` does.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mediadesk.config.location import SqliteLocation, StoreLocation, as_location
from mediadesk.core.batch import ParsedBatch, RowTask, assign_task_ids, parse_batch_file, row_tasks
from mediadesk.core.batch.encoding import decode_batch
from mediadesk.core.batch.formats import _csv_records
from mediadesk.files.safe import write_private_file
from mediadesk.store.export import ExportError, csv_cell, xlsx_text
from mediadesk.store.reader import TaskReader
from mediadesk.store.record import TaskRecord

__all__ = ["INTO_FORMATS", "IntoSheet", "batch_choices", "default_copy_path", "export_into_sheet"]

#: The files results can go back into, by suffix.
INTO_FORMATS = (".xlsx", ".csv")
#: What the state column says of a task the store does not have (the row was never submitted).
NOT_SUBMITTED = "not submitted"
_KEPT = " (kept)"


@dataclass(frozen=True)
class IntoSheet:
    """What :func:`export_into_sheet` wrote."""

    path: Path
    #: Data rows of the batch (good and rejected), tasks they make, and those found in the store.
    rows: int
    tasks: int
    found: int
    #: Rows the reader rejected (their error is in the state column).
    errors: int


def default_copy_path(source: Path) -> Path:
    """``sheet.results.xlsx`` beside ``sheet.xlsx`` (``.csv`` likewise)."""
    return source.with_name(f"{source.stem}.results{source.suffix.lower()}")


def _slot_headers(per_row: Sequence[list[RowTask]]) -> list[str]:
    """The suffix of each triple's headers: none when every row makes one task; else the profile (and the
    sample) that slot holds on every row that fills it, or its number when rows differ."""
    width = max((len(tasks) for tasks in per_row), default=1)
    if width <= 1:
        return [""]
    out: list[str] = []
    for k in range(width):
        seen = {(tasks[k].profile, tasks[k].sample) for tasks in per_row if len(tasks) > k and len(tasks) > 1}
        if len(seen) == 1:
            profile, sample = next(iter(seen))
            out.append(f" [{profile}]" if sample is None or _one_sample(per_row) else f" [{profile} #{sample}]")
        else:
            out.append(f" {k + 1}")
    return out


def _one_sample(per_row: Sequence[list[RowTask]]) -> bool:
    return all(t.sample in (None, 1) for tasks in per_row for t in tasks)


def _cells(tasks: list[RowTask], found: dict[str, TaskRecord], width: int, currency: str | None) -> list[object]:
    """A row's new cells: answer, state, cost per task, padded to ``width`` triples."""
    out: list[object] = []
    for t in tasks:
        rec = found.get(t.task_id)
        if rec is None:
            out += [None, NOT_SUBMITTED, None]
            continue
        state = str(rec.state.value) + (_KEPT if rec.kept else "")
        if rec.error_message and rec.state.value != "success":
            state += f": {rec.error_message}"
        cost: object = rec.cost
        if rec.cost is not None and rec.currency != currency:
            cost = f"{rec.cost:g} {rec.currency or ''}".strip()
        out += [rec.result, state, cost]
    return out + [None] * (3 * (width - len(tasks)))


def export_into_sheet(
    db: StoreLocation | Path, source: Path, out: Path | None = None, *,
    known_profiles: Collection[str] | None = None, max_prompt_chars: int = 200_000,
    templates_dir: Path | None = None, template: str | None = None, profile: str | None = None,
    sheet: str | None = None,
) -> IntoSheet:
    """Write the copy of ``source`` (an .xlsx or .csv batch) with its rows' results; see the module. ``out``:
    where (default :func:`default_copy_path`); never ``source`` itself. The reader's options as at submit.
    Raises :class:`~mediadesk.store.export.ExportError` for a file that is no spreadsheet or CSV, or the
    original as the copy; :class:`~mediadesk.core.batch.BatchFileError` for a file the reader cannot read."""
    suffix = source.suffix.lower()
    if suffix not in INTO_FORMATS:
        raise ExportError(f"{source} is no .xlsx or .csv file: results go back into a spreadsheet or CSV batch")
    target = out if out is not None else default_copy_path(source)
    if target.suffix.lower() != suffix:
        raise ExportError(f"the copy of {source.name} must be a {suffix} file too, not {target.name}")
    if target.exists() and source.exists() and target.resolve() == source.resolve():
        raise ExportError(f"{target} is the original: the results go into a copy, never over it")
    parsed = parse_batch_file(source, fmt=suffix[1:], known_profiles=known_profiles,
                              max_prompt_chars=max_prompt_chars, templates_dir=templates_dir, template=template,
                              profile=profile, sheet=sheet)
    header_error = next((e for e in parsed.errors if e.message.startswith("bad header:")
                         or "needs a header row" in e.message), None)
    if header_error is not None:  # a bad header, an empty sheet: no row to put results on
        raise ExportError(f"{source}, line {header_error.line}: {header_error.message}")
    tasks_of: dict[int, list[RowTask]] = {row.line: row_tasks(base, row) for base, row in assign_task_ids(parsed.rows)}
    errors = {e.line: e.message for e in parsed.errors}
    found = _lookup(db, [t.task_id for tasks in tasks_of.values() for t in tasks])
    currencies = {r.currency for r in found.values() if r.cost is not None}
    currency = next(iter(currencies)) if len(currencies) == 1 else None
    suffixes = _slot_headers(list(tasks_of.values()))
    cost_name = f"cost ({currency})" if currency else "cost"
    headers = [f"{name}{s}" for s in suffixes for name in ("answer", "state", cost_name)]
    new: dict[int, list[object]] = {line: _cells(tasks, found, len(suffixes), currency)
                                    for line, tasks in tasks_of.items()}
    for line, message in errors.items():
        blank: list[object] = [None] * (3 * len(suffixes))
        blank[1] = f"error: {message}"
        new.setdefault(line, blank)
    data = source.read_bytes()
    body = _into_xlsx(data, parsed, headers, new) if suffix == ".xlsx" else _into_csv(data, headers, new)
    write_private_file(target, body, "results copy")
    return IntoSheet(target, len(tasks_of) + len(errors), sum(map(len, tasks_of.values())), len(found), len(errors))


def batch_choices(db: StoreLocation | Path, source: Path) -> tuple[str | None, str | None]:
    """The template and the profile the batch read from ``source`` was staged with, as its first task shows
    them (the console names a batch after its file; the staging dialog's choices are not kept otherwise):
    (None, None) when no task has that batch name. The profile only matters for rows that name none."""
    reader = _reader(db)
    try:
        first = reader.query(batch=source.name, limit=1)
    finally:
        reader.close()
    if not first:
        return None, None
    return first[0].template, first[0].origin_profile or first[0].profile


def _reader(db: StoreLocation | Path) -> TaskReader:
    loc = as_location(db)
    if isinstance(loc, SqliteLocation) and not loc.path.exists():
        raise ExportError(f"database not found: {loc.path} (pass --db or --data-dir of the workspace that ran it)")
    return TaskReader(loc)


def _lookup(db: StoreLocation | Path, ids: list[str]) -> dict[str, TaskRecord]:
    reader = _reader(db)
    try:
        return {r.task_id: r for r in reader.get_many(ids)}
    finally:
        reader.close()


def _into_xlsx(data: bytes, parsed: ParsedBatch, headers: list[str], new: dict[int, list[object]]) -> bytes:
    """The workbook as it was (loaded whole: formats, formulas, other sheets kept) with the new columns at
    the right of the batch sheet's used range; every new text is a string cell, never a formula."""
    import openpyxl
    from openpyxl.styles import Font

    wb = openpyxl.load_workbook(io.BytesIO(data))
    ws = wb[parsed.sheet] if parsed.sheet is not None else wb.worksheets[0]
    first = ws.max_column + 1
    header_line = next((line for line, values in enumerate(ws.iter_rows(values_only=True), start=1)
                        if any(v is not None and str(v).strip() for v in values)), 1)
    bold = Font(bold=True)
    for i, name in enumerate(headers):
        cell = ws.cell(row=header_line, column=first + i)
        _set_text(cell, name)
        cell.font = bold
    for line, values in new.items():
        for i, value in enumerate(values):
            if value is not None:
                _set_text(ws.cell(row=line, column=first + i), value)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _set_text(cell: Any, value: object) -> None:
    if isinstance(value, str):
        cell.value = xlsx_text(value)
        cell.data_type = "s"  # not "f" for "=...", not "e" for "#N/A" (as the XLSX export writes text)
    else:
        cell.value = value


def _into_csv(data: bytes, headers: list[str], new: dict[int, list[object]]) -> bytes:
    """The records as read (the detected encoding decoded), each with its new cells; UTF-8 with a BOM."""
    text = decode_batch(data)
    buf = io.StringIO()
    buf.write("\ufeff")
    writer = csv.writer(buf, lineterminator="\r\n")
    header_seen = False
    width = 0
    for first, _last, rec in _csv_records(text.lines):
        fields = rec if isinstance(rec, list) else []
        if not header_seen:
            if not fields or all(not f.strip() for f in fields):
                writer.writerow(fields)
                continue
            header_seen, width = True, len(fields)
            writer.writerow([*fields, *headers])
            continue
        extra = new.get(first)
        if extra is None:
            writer.writerow(fields)
            continue
        row: list[object] = [*fields, *[""] * (width - len(fields))]
        writer.writerow(row + [csv_cell(v) for v in extra])
    return buf.getvalue().encode("utf-8")
