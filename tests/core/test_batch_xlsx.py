""".xlsx batches: a sheet's header names its columns (fields, or a template's variables), each row is one batch
row at its Excel row number; formulas read as their cached values; merged cells, uncached formulas, error
values and empty rows are errors of their rows, and the good rows still go in."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import openpyxl
import pytest

from mediadesk.core.batch import BatchFileError, detect_format, parse_batch, parse_batch_file, templates_dir

PROFILES = ("writer", "critic")
BLURB = "Write a product blurb for {product} in the tone of {tone}, under {words} characters."


@pytest.fixture
def tdir(tmp_path: Path) -> Path:
    folder = templates_dir(tmp_path / "data")
    folder.mkdir(parents=True)
    (folder / "blurb.txt").write_text(BLURB, encoding="utf-8")
    return folder


def _book(path: Path, rows: list[list[object]], *, title: str = "Products") -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = title
    for r in rows:
        ws.append(r)
    wb.save(path)
    return path


def _patch_sheet(path: Path, change: dict[str, str]) -> None:
    """Rewrite the first sheet's XML of a saved workbook (what Excel would have written)."""
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                text = data.decode()
                for old, new in change.items():
                    assert old in text, old
                    text = text.replace(old, new)
                data = text.encode()
            dst.writestr(item, data)
    tmp.replace(path)


def test_two_hundred_rows_render_their_template_and_a_missing_variable_names_row_and_cell(
        tmp_path: Path, tdir: Path) -> None:
    rows: list[list[object]] = [["product", "tone", "words"]]
    rows += [[f"item {i}", "warm", 100 + i] for i in range(1, 201)]
    rows[57][1] = None  # Excel row 58: no tone
    path = _book(tmp_path / "products.xlsx", rows)
    parsed = parse_batch_file(path, known_profiles=PROFILES, templates_dir=tdir, template="blurb", profile="writer")
    assert (parsed.format, parsed.sheet, parsed.sheets) == ("xlsx", "Products", ("Products",))
    assert parsed.variables == ("product", "tone", "words")
    assert len(parsed.rows) == 199
    first = parsed.rows[0]
    assert (first.line, first.profile, first.template) == (2, "writer", "blurb")
    assert first.prompt == "Write a product blurb for item 1 in the tone of warm, under 101 characters."
    assert parsed.rows[-1].prompt == "Write a product blurb for item 200 in the tone of warm, under 300 characters."
    assert dict(parsed.rows[-1].template_vars) == {"product": "item 200", "tone": "warm", "words": "300"}
    (err,) = parsed.errors
    assert err.line == 58 and err.message == "missing variable 'tone' (cell B58 is empty): template 'blurb' uses it"
    # the same bytes through the HTTP intake's parser (by content: a zip is a workbook)
    data = path.read_bytes()
    assert detect_format(data) == "xlsx"
    again = parse_batch(data, known_profiles=PROFILES, templates_dir=tdir, template="blurb", profile="writer")
    assert [r.prompt for r in again.rows] == [r.prompt for r in parsed.rows]


def test_formulas_read_as_the_values_excel_cached_and_an_uncached_one_is_an_error(tmp_path: Path) -> None:
    path = _book(tmp_path / "f.xlsx", [
        ["prompt", "profile", "priority"],
        ["hello", "writer", "=2*21"],
        ["uncached", "writer", "=1+1"],
        ["plain", "critic", 3],
    ])
    # openpyxl writes formulas without a value (<v />); Excel saves the value it computed beside it
    _patch_sheet(path, {"<f>2*21</f><v />": "<f>2*21</f><v>42</v>"})
    parsed = parse_batch_file(path, known_profiles=PROFILES)
    assert [(r.line, r.prompt, r.priority) for r in parsed.rows] == [(2, "hello", 42), (4, "plain", 3)]
    (err,) = parsed.errors
    assert err.line == 3 and "cell C3 holds a formula without a cached value" in err.message


def test_merged_cells_empty_rows_and_error_values_are_reported_by_row(tmp_path: Path) -> None:
    path = tmp_path / "m.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    for r in (["prompt", "profile"], ["a", "writer"], ["b", "writer"], ["c", None], [None, None],
              ["d", "critic"], ["#N/A", "writer"], [None, None], [None, None]):
        ws.append(r)
    ws.merge_cells("B3:B4")  # "writer" for rows 3 and 4? not guessed
    wb.save(path)  # (openpyxl writes "#N/A" as an error cell, as Excel does: <c t="e"><v>#N/A</v></c>)
    with zipfile.ZipFile(path) as zf:
        assert '<c r="A7" t="e"><v>#N/A</v></c>' in zf.read("xl/worksheets/sheet1.xml").decode()
    parsed = parse_batch_file(path, known_profiles=PROFILES)
    assert [(r.line, r.prompt) for r in parsed.rows] == [(2, "a"), (6, "d")]
    errors = {e.line: e.message for e in parsed.errors}
    assert set(errors) == {3, 4, 5, 7}  # trailing empty rows 8 and 9 are no rows
    assert "merged cells B3:B4" in errors[3] and "merged cells B3:B4" in errors[4]
    assert errors[5].startswith("empty row")
    assert errors[7] == "cell A7 holds the error value #N/A"


def test_a_sheet_by_name_and_the_file_level_problems(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    first = wb.active
    assert first is not None
    first.title = "Notes"
    first.append(["just notes"])
    second = wb.create_sheet("Batch")
    second.append(["prompt", "profile"])
    second.append(["hi", "critic"])
    path = tmp_path / "two.xlsx"
    wb.save(path)
    parsed = parse_batch_file(path, known_profiles=PROFILES, sheet="Batch")
    assert [(r.line, r.prompt, r.profile) for r in parsed.rows] == [(2, "hi", "critic")]
    assert parsed.sheets == ("Notes", "Batch")
    # the first sheet is read by default: its header is reported, not guessed
    notes = parse_batch_file(path, known_profiles=PROFILES)
    assert notes.rows == [] and notes.errors[0].line == 1 and "unknown column 'just notes'" in notes.errors[0].message
    with pytest.raises(BatchFileError, match=re.escape("no sheet 'Other' (its sheets: 'Notes', 'Batch')")):
        parse_batch_file(path, sheet="Other")
    bad = tmp_path / "bad.xlsx"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(BatchFileError, match="not an Excel workbook"):
        parse_batch_file(bad)
    assert "not an Excel workbook" in parse_batch(bad.read_bytes()).errors[0].message
