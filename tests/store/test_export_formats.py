"""Export formats on a real store (an SQLite file, and a PostgreSQL database): JSONL, CSV, XLSX (read
back with openpyxl), Markdown; ISO-8601 timestamps; a task-id subset (the console's "selected" /
"filtered"); the CLI's --format."""

from __future__ import annotations

import csv
import io
import json
import os
import stat
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import openpyxl
import pytest

from mediadesk.cli import main as cli_main
from mediadesk.config.location import StoreLocation
from mediadesk.core.states import TaskState
from mediadesk.store import NewTask, open_store
from mediadesk.store.export import (
    EXPORT_FIELDS,
    EXPORT_FORMATS,
    XLSX_CELL_MAX,
    ExportError,
    export_tasks,
    export_to_file,
    iso_time,
)

ROOT = Path(__file__).resolve().parents[2]
T0 = 1_760_000_000.25  # a fixed moment with a fraction of a second

LONG = "x" * 40_000  # more than one spreadsheet cell takes


@pytest.fixture
def db(store_location: StoreLocation) -> StoreLocation:
    """Four tasks: two succeeded (one with a formula-like prompt, control characters and a long
    result), one failed, one still pending. On each back-end."""
    s = open_store(store_location)
    s.add_tasks([
        NewTask("ok-1", "writer", "api", "=1+1 | pipe\nsecond line <b>", batch="b1"),
        NewTask("ok-2", "writer", "api", "plain", batch="b1"),
        NewTask("bad-1", "writer", "api", "will fail", batch="b2"),
        NewTask("wait-1", "writer", "api", "waiting"),
    ], now=T0)
    recs = s.claim(["writer"], 3, lane="api:writer", account=None, owner="test", now=T0 + 1)
    by_id = {r.task_id: r for r in recs}
    s.finish(by_id["ok-1"], TaskState.SUCCESS, result="answer\x07 with a bell\nand a line", now=T0 + 2.5)
    s.finish(by_id["ok-2"], TaskState.SUCCESS, result=LONG, now=T0 + 3)
    s.finish(by_id["bad-1"], TaskState.FAILED, error_kind="bad_request", error_message="400 | no", now=T0 + 4)
    s.close()
    return store_location


def test_formats_offered() -> None:
    assert EXPORT_FORMATS == ("jsonl", "csv", "xlsx", "md")


def test_iso_time_is_iso_8601_with_offset_and_milliseconds() -> None:
    text = iso_time(T0)
    assert text is not None
    parsed = datetime.fromisoformat(text)
    assert parsed.tzinfo is not None  # unambiguous: the offset is written
    assert parsed.timestamp() == pytest.approx(T0, abs=0.001)
    assert text[10] == "T" and "." in text  # 2025-10-09T08:53:20.250+00:00
    assert iso_time(None) is None


def test_jsonl_and_csv_carry_iso_timestamps(db: StoreLocation) -> None:
    out = io.StringIO()
    assert export_tasks(db, out, "jsonl") == 4
    rows = {r["task_id"]: r for r in map(json.loads, out.getvalue().splitlines())}
    ok = rows["ok-1"]
    assert datetime.fromisoformat(ok["created_at"]).timestamp() == pytest.approx(T0, abs=0.001)
    assert datetime.fromisoformat(ok["started_at"]).timestamp() == pytest.approx(T0 + 1, abs=0.001)
    assert datetime.fromisoformat(ok["finished_at"]).timestamp() == pytest.approx(T0 + 2.5, abs=0.001)
    assert rows["wait-1"]["finished_at"] is None and rows["wait-1"]["started_at"] is None
    assert rows["ok-2"]["result"] == LONG  # text formats are never cut
    out = io.StringIO()
    export_tasks(db, out, "csv")
    crows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert tuple(crows[0]) == EXPORT_FIELDS
    assert crows[0]["created_at"] == ok["created_at"]


def test_task_id_subset_in_the_given_order(db: StoreLocation, tmp_path: Path) -> None:
    out = io.StringIO()
    assert export_tasks(db, out, "jsonl", task_ids=["bad-1", "missing", "ok-1"]) == 2
    assert [json.loads(x)["task_id"] for x in out.getvalue().splitlines()] == ["bad-1", "ok-1"]
    out = io.StringIO()  # states and ids together: both must hold
    assert export_tasks(db, out, "jsonl", ["success"], task_ids=["bad-1", "ok-2"]) == 1
    assert json.loads(out.getvalue())["task_id"] == "ok-2"
    path = tmp_path / "sel.csv"
    assert export_to_file(db, path, "csv", task_ids=["wait-1"]) == 1
    assert [r["task_id"] for r in csv.DictReader(path.open(encoding="utf-8-sig"))] == ["wait-1"]
    out = io.StringIO()
    assert export_tasks(db, out, "jsonl", task_ids=[]) == 0  # an empty selection is an empty export
    assert out.getvalue() == ""


def test_xlsx_is_a_real_workbook_with_text_cells(db: StoreLocation, tmp_path: Path) -> None:
    path = tmp_path / "out.xlsx"
    assert export_to_file(db, path, "xlsx") == 4
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    wb = openpyxl.load_workbook(path)
    ws = wb.active
    assert ws is not None
    rows = list(ws.iter_rows(values_only=True))
    assert rows[0] == EXPORT_FIELDS
    by_id = {r[0]: dict(zip(EXPORT_FIELDS, r, strict=True)) for r in rows[1:]}
    assert set(by_id) == {"ok-1", "ok-2", "bad-1", "wait-1"}
    ok = by_id["ok-1"]
    # A prompt that looks like a formula stays text (no formula injection into the operator's sheet).
    assert ok["prompt"] == "=1+1 | pipe\nsecond line <b>"
    prompt_cell = next(c for c in ws[2] if c.value == ok["prompt"])
    assert prompt_cell.data_type == "s"
    assert ok["result"] == "answer with a bell\nand a line"  # control characters a sheet refuses are dropped
    assert datetime.fromisoformat(str(ok["finished_at"])).timestamp() == pytest.approx(T0 + 2.5, abs=0.001)
    assert ok["attempt"] == 1  # numbers stay numbers
    long = str(by_id["ok-2"]["result"])
    assert len(long) <= XLSX_CELL_MAX and "40000" in long  # cut to the cell limit, and it says so
    assert by_id["wait-1"]["finished_at"] is None
    assert ws.freeze_panes == "A2"


def test_xlsx_needs_a_binary_target(db: StoreLocation) -> None:
    with pytest.raises(ExportError, match="xlsx"):
        export_tasks(db, io.StringIO(), "xlsx")


def test_markdown_table_escapes_cells(db: StoreLocation, tmp_path: Path) -> None:
    path = tmp_path / "out.md"
    assert export_to_file(db, path, "md", task_ids=["ok-1", "bad-1"]) == 2
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "| " + " | ".join(EXPORT_FIELDS) + " |"
    assert lines[1] == "|" + "---|" * len(EXPORT_FIELDS)
    assert len(lines) == 4  # header, rule, one line per task (newlines in cells become <br>)
    ok = lines[2]
    assert ok.startswith("| ok-1 | success |")
    assert "=1+1 \\| pipe<br>second line &lt;b&gt;" in ok
    assert "400 \\| no" in lines[3]
    # every line has the same number of unescaped cell separators
    counts = {ln.replace("\\|", "").count("|") for ln in lines}
    assert counts == {len(EXPORT_FIELDS) + 1}


def test_cli_export_formats(db: StoreLocation, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli.xlsx"
    assert cli_main(["export", "--db", str(db), "--format", "xlsx", "--out", str(out)]) == 0
    assert "exported 4 task(s)" in capsys.readouterr().err
    ws = openpyxl.load_workbook(out).active
    assert ws is not None and ws.max_row == 5
    assert cli_main(["export", "--db", str(db), "--format", "md", "--state", "failed"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 3 and printed[2].startswith("| bad-1 |")
    assert cli_main(["export", "--db", str(tmp_path / "nope.db"), "--format", "md"]) == 2
    assert "database not found" in capsys.readouterr().err


def test_cli_xlsx_refuses_a_terminal_and_writes_to_a_pipe(db: StoreLocation, tmp_path: Path) -> None:
    """A workbook is binary: to a pipe it goes as bytes; to a terminal the CLI asks for --out."""
    proc = subprocess.run([sys.executable, "-m", "mediadesk", "export", "--db", str(db), "--format", "xlsx"],
                          capture_output=True, cwd=ROOT, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    piped = tmp_path / "piped.xlsx"
    piped.write_bytes(proc.stdout)
    ws = openpyxl.load_workbook(piped).active
    assert ws is not None and ws.max_row == 5
    if not hasattr(os, "openpty"):
        return
    primary, secondary = os.openpty()
    try:
        proc = subprocess.run([sys.executable, "-m", "mediadesk", "export", "--db", str(db), "--format", "xlsx"],
                              stdout=secondary, stderr=subprocess.PIPE, cwd=ROOT, timeout=60, check=False)
    finally:
        os.close(secondary)
        os.close(primary)
    assert proc.returncode == 2
    assert b"--out" in proc.stderr and b"Traceback" not in proc.stderr


def test_csv_cells_that_a_spreadsheet_would_run_are_text(store_location: StoreLocation, tmp_path: Path) -> None:
    """Before: CSV wrote ``=HYPERLINK(...)``, ``+cmd|...``, ``-2+3``, ``@SUM(...)`` (and the same after a
    tab or CR) as they were: a spreadsheet opening the file ran them as formulas."""
    hostile = {
        "f-eq": '=HYPERLINK("http://127.0.0.1/x?"&A1,"click")', "f-plus": "+cmd|' /C calc'!A0",
        "f-minus": "-2+3", "f-at": "@SUM(A1:A9)", "f-tab": "\t=1+1", "f-cr": "\r=1+1",
    }
    s = open_store(store_location)
    s.add_tasks([NewTask(tid, "writer", "api", prompt) for tid, prompt in hostile.items()]
                + [NewTask("plain", "writer", "api", "a - b = c")], now=T0)
    recs = s.claim(["writer"], 10, lane="api:writer", account=None, owner="test", now=T0 + 1)
    for rec in recs:
        s.finish(rec, TaskState.SUCCESS, result="=1+1" if rec.task_id == "f-eq" else "fine", now=T0 + 2)
    s.close()
    path = tmp_path / "out.csv"
    assert export_to_file(store_location, path, "csv") == 7
    with path.open(encoding="utf-8-sig", newline="") as fh:
        rows = {r["task_id"]: r for r in csv.DictReader(fh)}
    for tid, prompt in hostile.items():
        assert rows[tid]["prompt"] == "'" + prompt, tid
    assert rows["f-eq"]["result"] == "'=1+1"
    assert rows["plain"]["prompt"] == "a - b = c" and rows["plain"]["result"] == "fine"  # only the first character
    assert rows["plain"]["attempt"] == "1"  # numbers are not text cells
