"""The batch dialog with a spreadsheet and a template (offscreen Qt): the preview shows each rendered prompt (not
the template), the row errors with their line and column, and a row's fan-out; the template, profile and sheet
pickers show for a table and re-read it when changed; the submit button counts tasks, not rows."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from PySide6.QtWidgets import QComboBox

from mediadesk.core.batch import templates_dir
from mediadesk.scheduler.scheduler import ProfileView
from mediadesk.ui.dialogs.batch_dialog import BatchDialog

PROFILES = [ProfileView("writer", "api", False, 3), ProfileView("critic", "api", False, 2)]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    tdir = templates_dir(tmp_path / "data")
    tdir.mkdir(parents=True)
    (tdir / "blurb.txt").write_text("A blurb for {product}, tone {tone}.", encoding="utf-8")
    return tdir


@pytest.fixture
def dialog(qtbot: Any, qloop: asyncio.AbstractEventLoop, folder: Path) -> BatchDialog:
    dlg = BatchDialog(PROFILES, templates_dir=folder)
    qtbot.addWidget(dlg)
    return dlg


def _choose(dialog: BatchDialog, qtbot: Any, name: str, value: str) -> None:
    combo = dialog.findChild(QComboBox, name)
    assert isinstance(combo, QComboBox)
    idx = combo.findData(value)
    assert idx >= 0, (name, value)
    combo.setCurrentIndex(idx)
    with qtbot.waitSignal(dialog.parsed, timeout=10_000):
        combo.activated.emit(idx)  # what a click on the item does


def _table(dialog: BatchDialog) -> list[tuple[Any, ...]]:
    model = dialog.preview_model()
    return [tuple(model.data(model.index(r, c)) for c in range(model.columnCount())) for r in range(model.rowCount())]


def test_a_workbook_with_a_template_previews_rendered_prompts_and_the_fan_out(
        dialog: BatchDialog, qtbot: Any, tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Sheet A"
    for row in (["product", "tone", "profiles", "n"], ["kettle", "calm", "writer, critic", 2],
                ["lamp", None, None, None], ["mug", "bold", None, 3]):
        ws.append(row)
    other = wb.create_sheet("Sheet B")
    other.append(["product", "tone"])
    other.append(["pen", "dry"])
    path = tmp_path / "products.xlsx"
    wb.save(path)

    with qtbot.waitSignal(dialog.parsed, timeout=10_000):
        dialog.load_file(path)
    # no template chosen yet: the variable columns are unknown columns of the header
    (header_error,) = _table(dialog)
    assert header_error[0] == 1 and "unknown column 'product'" in header_error[4]
    template_combo = dialog.findChild(QComboBox, "batchTemplate")
    sheet_combo = dialog.findChild(QComboBox, "batchSheet")
    assert isinstance(template_combo, QComboBox) and isinstance(sheet_combo, QComboBox)
    assert template_combo.isVisibleTo(dialog) and sheet_combo.isVisibleTo(dialog)
    assert [sheet_combo.itemData(i) for i in range(sheet_combo.count())] == ["Sheet A", "Sheet B"]

    _choose(dialog, qtbot, "batchTemplate", "blurb")
    _choose(dialog, qtbot, "batchProfile", "writer")
    rows = _table(dialog)
    assert [r[0] for r in rows] == [2, 3, 4]
    assert rows[0][1:] == ("writer, critic", 0, "A blurb for kettle, tone calm.", "OK",
                           "2 profiles x 2 samples = 4 tasks")
    assert rows[1][4] == "missing variable 'tone' (cell B3 is empty): template 'blurb' uses it" and rows[1][5] == ""
    assert rows[2][1:] == ("writer", 0, "A blurb for mug, tone bold.", "OK", "3 samples = 3 tasks")
    assert dialog.summary_text() == "2 valid, 1 errors"
    assert dialog.submit_button().text() == "Submit 7 tasks"
    assert [r.prompt for r in dialog.rows()] == ["A blurb for kettle, tone calm.", "A blurb for mug, tone bold."]

    _choose(dialog, qtbot, "batchSheet", "Sheet B")
    assert [r[1:5] for r in _table(dialog)] == [("writer", 0, "A blurb for pen, tone dry.", "OK")]
    assert dialog.submit_button().text() == "Submit 1 task"


def test_the_pickers_are_for_tables_only(dialog: BatchDialog, qtbot: Any, tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    path.write_text('{"template": "blurb", "vars": {"product": "p", "tone": "t"}, "profiles": ["writer", "critic"]}\n',
                    encoding="utf-8")
    with qtbot.waitSignal(dialog.parsed, timeout=10_000):
        dialog.load_file(path)
    template_combo = dialog.findChild(QComboBox, "batchTemplate")
    assert isinstance(template_combo, QComboBox) and not template_combo.isVisibleTo(dialog)
    assert _table(dialog) == [(1, "writer, critic", 0, "A blurb for p, tone t.", "OK", "2 profiles = 2 tasks")]
    assert dialog.submit_button().text() == "Submit 2 tasks"
