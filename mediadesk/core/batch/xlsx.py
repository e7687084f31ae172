"""An ``.xlsx`` batch: one sheet's rows as text cells, with what a spreadsheet can hide reported by row.

Read with openpyxl in read-only mode (streamed, any size) and ``data_only``: a formula reads as the value Excel
cached when it saved the file. Nothing is guessed: a row that is part of merged cells, a formula without a
cached value (a file written by a library and never opened in Excel), a cell holding an error value (``#N/A``)
and an empty row between rows are problems of that row (the Excel row number is the line). openpyxl's read-only
mode does not report merged cells or uncached formulas, so one more streamed pass over the sheet's XML finds them.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from mediadesk.core.batch.rows import BatchFileError

__all__ = ["SheetRow", "XlsxSheet", "cell_label", "is_xlsx", "read_sheet", "sheet_names"]

_ZIP_MAGIC = b"PK\x03\x04"
_MAIN_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_TAG_CELL, _TAG_FORMULA, _TAG_VALUE = f"{_MAIN_NS}c", f"{_MAIN_NS}f", f"{_MAIN_NS}v"
_TAG_ROW, _TAG_MERGE = f"{_MAIN_NS}row", f"{_MAIN_NS}mergeCell"


def is_xlsx(data: bytes) -> bool:
    """The bytes are a zip archive (an .xlsx is one; no text batch starts so)."""
    return data.startswith(_ZIP_MAGIC)


def cell_label(column: int, row: int) -> str:
    """``C5`` for column 3 of row 5."""
    from openpyxl.utils import get_column_letter

    return f"{get_column_letter(column)}{row}"


@dataclass
class SheetRow:
    #: The Excel row number (what the operator sees at the left of the sheet).
    line: int
    #: The cells as text (a number as Excel shows it without formatting, a date in ISO form).
    cells: list[str]
    #: What is wrong with the row as read (merged cells, an uncached formula, an error value, empty).
    problems: list[str] = field(default_factory=list)


@dataclass
class XlsxSheet:
    title: str
    #: The sheets of the workbook, in order (the staging dialog offers them).
    sheets: list[str]
    rows: Iterator[SheetRow]


def _open(data: bytes) -> Any:
    import openpyxl

    try:
        return openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError, TypeError) as exc:
        raise BatchFileError(f"not an Excel workbook (.xlsx) that can be read: {exc}") from None


def sheet_names(data: bytes) -> list[str]:
    """The workbook's sheets, in order (raises :class:`BatchFileError`)."""
    wb = _open(data)
    try:
        return list(wb.sheetnames)
    finally:
        wb.close()


def read_sheet(data: bytes, sheet: str | None = None) -> XlsxSheet:
    """Sheet ``sheet`` (None: the first) of the workbook in ``data``: its non-empty rows, each with its
    problems; an empty row before a later non-empty one is reported, trailing ones are not. Raises
    :class:`BatchFileError` for bytes that are no workbook and for a sheet it does not have."""
    wb = _open(data)
    try:
        names = list(wb.sheetnames)
        if sheet is None:
            if not names:
                raise BatchFileError("the workbook has no sheets")
            sheet = names[0]
        if sheet not in names:
            raise BatchFileError(f"the workbook has no sheet {sheet!r} (its sheets: {', '.join(map(repr, names))})")
        ws = wb[sheet]
        flags = _scan_xml(data, getattr(ws, "_worksheet_path", ""))
    except BaseException:
        wb.close()
        raise
    return XlsxSheet(sheet, names, _rows(wb, ws, flags))


@dataclass
class _Flags:
    #: Row -> problems the sheet's XML shows (merged cells, formulas without a cached value).
    by_row: dict[int, list[str]] = field(default_factory=dict)

    def add(self, row: int, problem: str) -> None:
        self.by_row.setdefault(row, []).append(problem)


def _scan_xml(data: bytes, path: str) -> _Flags:
    """Merged cells and formulas without a cached value, from the sheet's XML (streamed)."""
    from openpyxl.utils.cell import range_boundaries
    from openpyxl.xml.functions import iterparse  # defusedxml's when it is installed

    flags = _Flags()
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf, zf.open(path) as src:
            for _event, el in iterparse(src):
                tag = el.tag
                if tag == _TAG_CELL:
                    ref = el.get("r")
                    if ref and el.find(_TAG_FORMULA) is not None and not _cached(el):
                        row = int("".join(ch for ch in ref if ch.isdigit()) or 0)
                        flags.add(row, f"cell {ref} holds a formula without a cached value (the file was saved "
                                       "by a program that does not calculate; open it in Excel and save it again)")
                elif tag == _TAG_ROW:
                    el.clear()
                elif tag == _TAG_MERGE:
                    ref = el.get("ref") or ""
                    try:
                        _c1, r1, _c2, r2 = range_boundaries(ref)
                    except (ValueError, TypeError):
                        continue
                    for row in range(r1 or 1, (r2 or r1 or 1) + 1):
                        flags.add(row, f"row is part of merged cells {ref}: unmerge them and fill in each row")
    except (KeyError, zipfile.BadZipFile, OSError, SyntaxError) as exc:
        raise BatchFileError(f"cannot read the sheet of the workbook: {exc}") from None
    return flags


def _cached(cell: Any) -> bool:
    """A formula cell holds the value it last computed: a ``<v>`` with text, or an empty one typed as a
    string (a formula whose result is ""). openpyxl itself writes an empty ``<v/>``: nothing computed."""
    value = cell.find(_TAG_VALUE)
    return value is not None and (bool(value.text) or cell.get("t") == "str")


def _rows(wb: Any, ws: Any, flags: _Flags) -> Iterator[SheetRow]:
    from openpyxl.cell.cell import ERROR_CODES

    try:
        ws.reset_dimensions()  # a file's own dimension may be wrong (some writers always say A1)
        pending: list[int] = []  # empty rows not yet known to be between rows
        started = False  # empty rows above the first one (the header) are no rows
        for line, values in enumerate(ws.iter_rows(values_only=True), start=1):
            cells = [_cell_text(v) for v in values]
            while cells and not cells[-1].strip():
                cells.pop()
            problems = list(flags.by_row.get(line, ()))
            if not cells and not problems:
                if started:
                    pending.append(line)
                continue
            started = True
            for empty in pending:
                yield SheetRow(empty, [], ["empty row: delete it, or fill it in"])
            pending.clear()
            for col, value in enumerate(values, start=1):
                if isinstance(value, str) and value in ERROR_CODES:
                    problems.append(f"cell {cell_label(col, line)} holds the error value {value}")
            yield SheetRow(line, cells, problems)
    finally:
        wb.close()


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return str(value)
