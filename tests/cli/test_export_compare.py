"""``mediadesk export --compare`` and ``mediadesk report``: one row per prompt, one column group per profile and
sample, the kept answer named; hostile answers (``<script>``, ``=cmd|...``) escaped in every format. Real SQLite
file, real files, the CLI in-process."""

from __future__ import annotations

import csv
import io
import stat
from pathlib import Path

import openpyxl
import pytest

from mediadesk.cli import main as cli_main
from mediadesk.core.states import TaskState
from mediadesk.store import NewTask, TaskStore

FORMULA = "=cmd|' /C calc'!A0"
SCRIPT = "<script>alert(1)</script>"
PROMPT = "Rate <b>this</b> | well"
BOM = b"\xef\xbb\xbf"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """Batch b1: one prompt to writer and critic, two samples each (writer #1 answers a formula, critic #1 a
    script, critic #1 kept), one prompt of one task; batch b2: another prompt."""
    path = tmp_path / "t.db"
    store = TaskStore(path)
    group = [NewTask(f"g-{p}-{s}", p, "api", PROMPT, batch="b1", group_id="g1", sample=s)
             for p in ("writer", "critic") for s in (1, 2)]
    store.add_tasks([*group, NewTask("solo", "writer", "api", "alone", batch="b1"),
                     NewTask("other", "writer", "api", "elsewhere", batch="b2")])
    answers = {"g-writer-1": FORMULA, "g-critic-1": SCRIPT, "g-writer-2": "fine", "solo": "ok", "other": "x"}
    for profile in ("writer", "critic"):
        for rec in store.claim([profile], 10, lane=f"api:{profile}", account=None, owner="test"):
            if rec.task_id in answers:
                store.finish(rec, TaskState.SUCCESS, result=answers[rec.task_id])
            else:
                store.finish(rec, TaskState.FAILED, error_kind="http", error_message="HTTP 500")
    assert len(store.set_kept("g-critic-1")) == 1
    store.close()
    return path


def _export(db: Path, out: Path, *args: str) -> None:
    assert cli_main(["export", "--db", str(db), "--compare", "--batch", "b1", "--out", str(out), *args]) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o600


def test_the_comparison_csv_has_one_row_per_prompt_with_formulas_escaped(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "cmp.csv"
    _export(db, out, "--format", "csv")
    assert out.read_bytes().startswith(BOM) and out.read_bytes().count(BOM) == 1
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8-sig"))))
    assert [r["prompt"] for r in rows] == [PROMPT, "alone"]  # b2 left out
    first = rows[0]
    assert list(first)[:3] == ["batch", "prompt", "writer #1: answer"] and list(first)[-1] == "kept"
    assert first["writer #1: answer"] == "'" + FORMULA  # text, never a formula
    assert (first["critic #1: answer"], first["critic #2: state"], first["kept"]) == (SCRIPT, "failed", "critic #1")
    assert first["writer #1: time_s"] != "" and rows[1]["writer #1: answer"] == "ok"
    assert rows[1]["critic #1: answer"] == "" and rows[1]["kept"] == ""

    every = tmp_path / "all.csv"
    assert cli_main(["export", "--db", str(db), "--compare", "--format", "csv", "--out", str(every)]) == 0
    assert len(list(csv.DictReader(io.StringIO(every.read_text(encoding="utf-8-sig"))))) == 3


def test_the_comparison_xlsx_and_md(db: Path, tmp_path: Path) -> None:
    xlsx = tmp_path / "cmp.xlsx"
    _export(db, xlsx, "--format", "xlsx")
    ws = openpyxl.load_workbook(xlsx).active
    assert ws is not None
    table = [[c.value for c in row] for row in ws.iter_rows()]
    assert len(table) == 3
    header = table[0]
    formula = ws.cell(row=2, column=header.index("writer #1: answer") + 1)
    assert (formula.value, formula.data_type) == (FORMULA, "s")  # a string cell, not a formula
    md = tmp_path / "cmp.md"
    _export(db, md, "--format", "md")
    text = md.read_text(encoding="utf-8")
    assert "<script>" not in text and "&lt;script&gt;" in text and "Rate &lt;b&gt;this&lt;/b&gt; \\| well" in text
    assert len(text.splitlines()) == 4  # header, rule, two prompts


def test_a_refused_mix_of_flags(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["export", "--db", str(db), "--batch", "b1"]) == 2
    assert "--batch goes with --compare" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_the_report_has_totals_the_comparison_and_the_answers_escaped(db: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"report.{fmt}"
    assert cli_main(["report", "b1", "--db", str(db), "--format", fmt, "--out", str(out)]) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    text = out.read_text(encoding="utf-8")
    assert "<script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    shown = "=cmd|&#x27; /C calc&#x27;!A0" if fmt == "html" else "=cmd\\|' /C calc'!A0"
    assert "<b>" not in text and shown in text
    assert "elsewhere" not in text  # another batch
    if fmt == "md":
        assert "| tasks | 5 |" in text and "| succeeded | 4 |" in text and "| failed | 1 |" in text
        assert "| critic #1 |" in text.replace("| kept |\n", "")  # the kept column names it
        assert "#### writer" in text and "#### critic" in text
    else:
        assert text.startswith("<!DOCTYPE html>") and "<th>tasks</th><td>5</td>" in text
        assert "<th>failed</th><td>1</td>" in text and "<td>critic #1</td></tr>" in text
        assert "<h4>writer</h4>" in text and "<h4>critic</h4>" in text


def test_a_report_of_an_unknown_batch_is_refused(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["report", "nope", "--db", str(db)]) == 2
    assert "has no tasks" in capsys.readouterr().err
