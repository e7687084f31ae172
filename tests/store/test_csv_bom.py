"""CSV exports start with the UTF-8 BOM Excel needs to read UTF-8 (without it, Excel on Chinese Windows shows
Chinese as mojibake); ``--no-bom`` leaves it out; other formats never have one. Real SQLite file, real files."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from mediadesk.cli import main as cli_main
from mediadesk.core.states import TaskState
from mediadesk.store import NewTask, TaskStore
from mediadesk.store.export import export_to_file

BOM = b"\xef\xbb\xbf"
PROMPT = "写一首关于秋天的诗，逗号, \"引号\" 和换行\n第二行"
RESULT = "秋风起，落叶黄 🍂"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "t.db"
    store = TaskStore(path)
    store.add_tasks([NewTask("zh-1", "写手", "api", PROMPT), NewTask("plain", "writer", "api", "hello")])
    (rec,) = store.claim(["写手"], 1, lane="api:写手", account=None, owner="test")
    store.finish(rec, TaskState.SUCCESS, result=RESULT)
    store.close()
    return path


def _read_back(path: Path) -> dict[str, dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return {r["task_id"]: r for r in csv.DictReader(fh)}


def test_a_csv_export_starts_with_the_bom_and_reads_back_exactly(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    assert export_to_file(db, out, "csv") == 2
    assert out.read_bytes().startswith(BOM + b"task_id,")
    assert out.read_bytes().count(BOM) == 1
    rows = _read_back(out)
    assert rows["zh-1"]["prompt"] == PROMPT and rows["zh-1"]["result"] == RESULT
    assert rows["zh-1"]["profile"] == "写手" and rows["plain"]["prompt"] == "hello"


def test_no_bom_on_request_and_never_outside_csv(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "plain.csv"
    assert export_to_file(db, out, "csv", bom=False) == 2
    assert out.read_bytes().startswith(b"task_id,")
    assert _read_back(out)["zh-1"]["result"] == RESULT
    for fmt in ("jsonl", "md"):
        other = tmp_path / f"out.{fmt}"
        export_to_file(db, other, fmt)
        assert not other.read_bytes().startswith(BOM), fmt
    first = json.loads((tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert first["task_id"] in ("zh-1", "plain")


def test_the_cli_flag(db: Path, tmp_path: Path) -> None:
    with_bom, without = tmp_path / "cli.csv", tmp_path / "cli-nobom.csv"
    assert cli_main(["export", "--db", str(db), "--format", "csv", "--out", str(with_bom)]) == 0
    assert cli_main(["export", "--db", str(db), "--format", "csv", "--out", str(without), "--no-bom"]) == 0
    assert with_bom.read_bytes() == BOM + without.read_bytes()
    assert _read_back(without)["zh-1"]["prompt"] == PROMPT
