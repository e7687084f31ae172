"""Reading a batch: JSONL, CSV and pasted text into rows and per-row errors, never raising on the data."""

from __future__ import annotations

import csv
import json
import os
import stat
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

from mediadesk.core.batch.encoding import ASCII_SPACE, BatchText, decode_batch
from mediadesk.core.batch.rows import (
    ALL_FIELDS,
    DEFAULT_MAX_FILE_BYTES,
    EXCERPT_CHARS,
    PRIORITY_MAX,
    PRIORITY_MIN,
    BatchFileError,
    BatchRow,
    ParsedBatch,
    RowChecker,
    RowError,
    excerpt,
    fmt_count,
    split_lines,
    suggest,
    type_name,
)
from mediadesk.core.batch.templates import TemplateLibrary
from mediadesk.core.batch.xlsx import cell_label, is_xlsx, read_sheet

# The csv module's default field limit (128 KiB) turns one big prompt into a csv.Error that
# desynchronises the reader; the file-size limit bounds fields instead, and the prompt-size check
# turns a big field into a clean row error.
_CSV_FIELD_LIMIT = 2**31 - 1
#: The row fields a CSV or XLSX column can fill (``vars`` is JSONL's: a table's variables are its columns).
TABLE_FIELDS = tuple(f for f in ALL_FIELDS if f != "vars")
#: The batch formats, by the name ``fmt`` takes.
FORMATS = ("jsonl", "csv", "xlsx")

class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _pairs_no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs_no_duplicates)


def _load_json_line(text: str) -> dict[str, object] | str:
    """The line's object, or the message saying why it is not one."""
    try:
        obj = _DECODER.decode(text)
    except _DuplicateKey as exc:
        return f"duplicate key {exc.key[:100]!r}"
    except json.JSONDecodeError as exc:
        return f"invalid JSON: {exc.msg} (column {exc.colno})"
    except (ValueError, RecursionError) as exc:  # 5000-digit integers, absurd nesting
        return f"invalid JSON: {str(exc)[:120]}"
    if not isinstance(obj, dict):
        return f"expected a JSON object, got {type_name(obj)}"
    return obj


def _parse_jsonl(text: BatchText, checker: RowChecker, out: ParsedBatch) -> None:
    """One record per line, so one line the encoding cannot read costs that line only."""
    for lineno, line in enumerate(text.lines, start=1):
        stripped = line.strip(ASCII_SPACE)
        if not stripped or stripped.startswith("#"):
            continue
        body = line.rstrip("\r\n")
        if lineno in text.bad:
            out.errors.append(RowError(lineno, f"invalid {text.encoding.name} at byte {text.bad[lineno]} of the line",
                                       excerpt(body)))
            continue
        obj = _load_json_line(body)
        result = obj if isinstance(obj, str) else checker.check(obj, lineno, from_csv=False,
                                                                escapes="\\u" in body)
        if isinstance(result, BatchRow):
            out.rows.append(result)
        else:
            message = result if isinstance(result, str) else "; ".join(result)
            out.errors.append(RowError(lineno, message, excerpt(body)))


def _csv_records(lines: list[str]) -> Iterator[tuple[int, int, list[str] | csv.Error]]:
    """Yield (first line, last line, fields or the csv.Error) per record."""
    if csv.field_size_limit() < _CSV_FIELD_LIMIT:
        csv.field_size_limit(_CSV_FIELD_LIMIT)
    reader = csv.reader(iter(lines), strict=True)
    prev = 0
    while True:
        try:
            rec: list[str] | csv.Error = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            rec = exc
        yield prev + 1, reader.line_num, rec
        prev = reader.line_num


@dataclass
class _Header:
    """A CSV or XLSX header: per column, the row field it fills, or the template variable it names."""

    fields: list[str | None]
    variables: list[str | None]
    #: Fields whose empty cell is kept (so the row says "profile is empty"), not dropped as absent.
    keep_empty: frozenset[str]


def _check_header(fields: list[str], checker: RowChecker) -> tuple[_Header, list[str]]:
    """Columns named like a row field fill it; when a template is in play (the caller's, or a ``template``
    column) every other column is a variable of the template, named as written (case kept)."""
    raw = [f.strip() for f in fields]
    names = [r.casefold() for r in raw]
    has_template = checker.default_template is not None or "template" in names
    problems: list[str] = []
    seen: set[str] = set()
    header = _Header([], [], frozenset())
    for pos, (text, name) in enumerate(zip(raw, names, strict=True), start=1):
        field: str | None = None
        variable: str | None = None
        if not name:
            problems.append(f"empty column name in column {pos}")
        elif name in TABLE_FIELDS:
            field = name
            if name in seen:
                problems.append(f"duplicate column {name!r}")
            seen.add(name)
        elif has_template:
            variable = text
            if text in seen:
                problems.append(f"duplicate column {text[:100]!r}")
            seen.add(text)
        else:
            problems.append(f"unknown column {name[:100]!r}{suggest(name, TABLE_FIELDS)}")
        header.fields.append(field)
        header.variables.append(variable)
    required = []
    if checker.default_profile is None and "profiles" not in seen:
        required.append("profile")
    if not has_template:
        required.append("prompt")
    for req in required:
        if req not in seen:
            problems.append(f"missing required column {req!r}")
    header.keep_empty = frozenset(required)
    return header, problems


def _check_table_row(
    header: _Header, cells: list[str], line: int, checker: RowChecker, out: ParsedBatch, raw: str,
    label: Callable[[int], str],
) -> None:
    """One CSV or XLSX data row (as many cells as the header) through the row checker. ``label``: the
    name of column N of this row in messages (``column 3``, ``cell C5``)."""
    values: dict[str, object] = {}
    variables: dict[str, object] = {}
    cell_of: dict[str, str] = {}
    for pos, (field, variable, value) in enumerate(zip(header.fields, header.variables, cells, strict=True),
                                                  start=1):
        if field is not None and (value != "" or field in header.keep_empty):
            values[field] = value
        elif variable is not None:
            variables[variable] = value
            cell_of[variable] = label(pos)
    result = checker.check(values, line, from_csv=True, variables=variables, cells=cell_of)
    if isinstance(result, BatchRow):
        out.rows.append(result)
    else:
        out.errors.append(RowError(line, "; ".join(result), excerpt(raw)))


def _parse_csv(text: BatchText, checker: RowChecker, out: ParsedBatch) -> None:
    lines = text.lines

    def raw(first: int, last: int) -> str:
        acc: list[str] = []
        n = 0
        for ln in lines[first - 1 : last]:
            acc.append(ln)
            n += len(ln)
            if n >= EXCERPT_CHARS:
                break
        return "".join(acc).rstrip("\r\n")

    header: _Header | None = None
    for first, last, rec in _csv_records(lines):
        if isinstance(rec, csv.Error):
            msg = (f"unterminated quoted field (runs to the end of the file, line {last})"
                   if "unexpected end of data" in str(rec) else f"malformed CSV: {rec}")
            out.errors.append(RowError(first, msg, excerpt(raw(first, last))))
            if header is None:
                return
            continue
        if not rec or all(not f.strip() for f in rec):
            continue
        if text.bad and any(n in text.bad for n in range(first, last + 1)):
            out.errors.append(RowError(first, f"invalid {text.encoding.name} on this line",
                                       excerpt(raw(first, last))))
            if header is None:
                return
            continue
        if header is None:
            header, problems = _check_header(rec, checker)
            if problems:
                message = "bad header: " + "; ".join(problems)
                out.errors.append(RowError(first, message, excerpt(raw(first, last))))
                return
            out.variables = tuple(v for v in header.variables if v is not None)
            continue
        if len(rec) != len(header.fields):  # a lost quote or delimiter: never guess which cell moved
            out.errors.append(RowError(first, f"row has {len(rec)} fields, the header has {len(header.fields)}",
                                       excerpt(raw(first, last))))
            continue
        _check_table_row(header, rec, first, checker, out, raw(first, last), lambda pos: f"column {pos}")
    if header is None:
        out.errors.append(RowError(1, "empty file: a CSV batch needs a header row with at least "
                                      "'profile' and 'prompt'", ""))


# --------------------------------------------------------------------------- public API

def detect_format(data: bytes, filename: str | None = None) -> str:
    """``jsonl``, ``csv`` or ``xlsx``: by extension first, else by content (a zip archive is a workbook,
    else the first meaningful character)."""
    return _format_by_name(filename) or ("xlsx" if is_xlsx(data) else _format_by_content(decode_batch(data)))


def _format_by_name(filename: str | None) -> str | None:
    suffix = Path(filename).suffix.lower() if filename else ""
    if suffix in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    if suffix in (".csv", ".tsv"):
        return "csv"
    if suffix == ".xlsx":
        return "xlsx"
    return None


def _format_by_content(text: BatchText) -> str:
    """By the first character that is no blank and no JSONL comment line."""
    for line in text.lines:
        stripped = line.strip(ASCII_SPACE)
        if stripped and not stripped.startswith("#"):
            return "jsonl" if stripped[0] in "{[" else "csv"
    return "jsonl"


def _checker(known_profiles: Collection[str] | None, max_prompt_chars: int, templates_dir: Path | None,
             template: str | None, profile: str | None) -> RowChecker:
    return RowChecker(known_profiles, max_prompt_chars, templates=TemplateLibrary(templates_dir),
                      template=template, profile=profile)


def _is_xlsx(data: bytes, fmt: str | None, source: str) -> bool:
    if fmt is not None:
        if fmt not in FORMATS:
            raise ValueError(f"unknown batch format {fmt!r} (expected one of {', '.join(map(repr, FORMATS))})")
        return fmt == "xlsx"
    return (_format_by_name(source) or ("xlsx" if is_xlsx(data) else None)) == "xlsx"


def parse_batch(
    data: bytes,
    *,
    fmt: str | None = None,
    known_profiles: Collection[str] | None = None,
    max_prompt_chars: int = 200_000,
    source: str = "<batch>",
    templates_dir: Path | None = None,
    template: str | None = None,
    profile: str | None = None,
    sheet: str | None = None,
) -> ParsedBatch:
    """Parse a whole batch in the encoding :func:`~mediadesk.core.batch.encoding.detect_encoding` finds
    (an XLSX workbook: its sheet ``sheet``, else the first). Never raises on ``data`` (a workbook that
    cannot be read is an error at line 1); ``fmt`` None = :func:`detect_format` (which also looks at
    ``source`` as a file name). Raises ValueError only for a bad ``fmt``. ``templates_dir``: where a
    row's template is found; ``template`` / ``profile``: for the rows that name none."""
    checker = _checker(known_profiles, max_prompt_chars, templates_dir, template, profile)
    if _is_xlsx(data, fmt, source):
        try:
            return _parse_xlsx(data, checker, source, sheet)
        except BatchFileError as exc:
            return ParsedBatch(rows=[], errors=[RowError(1, str(exc), "")], format="xlsx", source=source)
    return _parse_text(decode_batch(data), fmt=fmt, checker=checker, source=source)


def _parse_text(text: BatchText, *, fmt: str | None, checker: RowChecker, source: str) -> ParsedBatch:
    if fmt is None:
        fmt = _format_by_name(source) or _format_by_content(text)
    out = ParsedBatch(rows=[], errors=[], format=fmt, source=source, encoding=text.encoding.name)
    if fmt == "jsonl":
        _parse_jsonl(text, checker, out)
    else:
        _parse_csv(text, checker, out)
    return out


def _parse_xlsx(data: bytes, checker: RowChecker, source: str, sheet: str | None) -> ParsedBatch:
    """Raises :class:`BatchFileError` for bytes that are no workbook, or a sheet it does not have."""
    book = read_sheet(data, sheet)
    out = ParsedBatch(rows=[], errors=[], format="xlsx", source=source, sheet=book.title, sheets=tuple(book.sheets))
    header: _Header | None = None
    for row in book.rows:
        raw = "\t".join(row.cells)
        if header is None:
            header, problems = _check_header(row.cells, checker)
            problems = row.problems + problems
            if problems:
                out.errors.append(RowError(row.line, "bad header: " + "; ".join(problems), excerpt(raw)))
                return out
            out.variables = tuple(v for v in header.variables if v is not None)
            continue
        problems = list(row.problems)
        if len(row.cells) > len(header.fields):
            problems.append(f"cell {cell_label(len(header.fields) + 1, row.line)} has a value right of the "
                            "header's last column")
        if problems:
            out.errors.append(RowError(row.line, "; ".join(problems), excerpt(raw)))
            continue
        cells = row.cells + [""] * (len(header.fields) - len(row.cells))
        _check_table_row(header, cells, row.line, checker, out, raw, _cells_of_row(row.line))
    if header is None:
        out.errors.append(RowError(1, f"sheet {book.title!r} is empty: an XLSX batch needs a header row (the first "
                                      "row) naming its columns", ""))
    return out


def _cells_of_row(line: int) -> Callable[[int], str]:
    return lambda pos: f"cell {cell_label(pos, line)}"


def parse_batch_file(
    path: Path | str,
    *,
    fmt: str | None = None,
    known_profiles: Collection[str] | None = None,
    max_prompt_chars: int = 200_000,
    max_bytes: int = DEFAULT_MAX_FILE_BYTES,
    templates_dir: Path | None = None,
    template: str | None = None,
    profile: str | None = None,
    sheet: str | None = None,
) -> ParsedBatch:
    """Read and parse a batch file; file-level problems raise :class:`BatchFileError`, among them a file
    that is no text in any encoding we read (more lines unreadable than readable), a workbook that cannot
    be read and a sheet it does not have. The other arguments: see :func:`parse_batch`."""
    p = Path(path)
    try:
        if p.is_dir():
            raise BatchFileError(f"batch file {p} is a directory")
        # O_NONBLOCK: opening a FIFO (or a named pipe nobody writes to) must not hang before the
        # check below can refuse it; on a regular file the flag changes nothing.
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with open(fd, "rb") as fh:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise BatchFileError(
                    f"batch file {p} is not a regular file (it is {_file_kind(mode)}): MediaDesk reads "
                    "batches from files only, so that a batch can be checked whole before anything runs; "
                    "write the rows to a file first")
            data = fh.read(max_bytes + 1)  # bounded even if the file grows while we read
    except FileNotFoundError as exc:
        raise BatchFileError(f"batch file not found: {p}") from exc
    except OSError as exc:
        raise BatchFileError(f"cannot read batch file {p}: {exc.strerror or exc}") from exc
    if len(data) > max_bytes:
        raise BatchFileError(f"batch file {p} is over the size limit of {max_bytes / 2**20:.0f} MiB "
                             f"({max_bytes:,} bytes); split it into smaller batches")
    checker = _checker(known_profiles, max_prompt_chars, templates_dir, template, profile)
    if _is_xlsx(data, fmt, str(p)):
        return _parse_xlsx(data, checker, str(p), sheet)
    text = decode_batch(data)
    if text.unreadable():
        tried = "UTF-8, UTF-16 or GB18030" if text.encoding.bom == 0 else f"{text.encoding.name} (its BOM says so)"
        offset = text.first_bad or 0
        raise BatchFileError(
            f"batch file {p} is not text in {tried}: the byte at offset {offset:,} (0x{offset:x}) cannot be read "
            f"as {text.encoding.name}; save it as UTF-8 text (Excel: \"CSV UTF-8\") and load it again")
    return _parse_text(text, fmt=fmt, checker=checker, source=str(p))


def _file_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


def parse_pasted(
    text: str, *, profile: str, priority: int = 0, system: str | None = None,
    max_prompt_chars: int = 200_000,
) -> ParsedBatch:
    """One prompt per non-empty line (trimmed). ``profile``/``priority`` come from the dialog's
    own widgets, so bad values there are programming errors (ValueError), not row errors."""
    if not profile.strip():
        raise ValueError("profile is empty")
    if isinstance(priority, bool) or not PRIORITY_MIN <= priority <= PRIORITY_MAX:
        raise ValueError(f"priority {priority!r} is out of range {PRIORITY_MIN}..{PRIORITY_MAX}")
    out = ParsedBatch(rows=[], errors=[], format="pasted", source="<pasted>")
    for lineno, line in enumerate(split_lines(text), start=1):
        prompt = line.strip()
        if not prompt:
            continue
        if len(prompt) > max_prompt_chars:
            out.errors.append(RowError(lineno, f"prompt is {fmt_count(len(prompt))} chars, over the "
                                               f"limit of {fmt_count(max_prompt_chars)}", excerpt(prompt)))
            continue
        out.rows.append(BatchRow(line=lineno, profile=profile.strip(), prompt=prompt, id=None,
                                 system=system, priority=priority, route_key=None))
    return out


