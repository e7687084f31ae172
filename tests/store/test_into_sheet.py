"""Results back into the operator's spreadsheet: a real batch (a workbook through a template, one row on two
profiles, one bad row) run on the API simulator, then ``export --into``: the copy keeps the original's columns,
formulas and other sheets and adds answers, states and costs (a hostile answer stays text); the original is
untouched. A GB18030 CSV comes back as UTF-8 with a BOM."""

from __future__ import annotations

import asyncio
import csv
import io
from pathlib import Path

import openpyxl
import pytest

from mediadesk.cli import main
from mediadesk.config.model import AppConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.batch import parse_batch_file, templates_dir
from mediadesk.files.safe import UnsafePathError
from mediadesk.scheduler import Scheduler
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer, answer_for
from mediadesk.store.export import ExportError
from mediadesk.store.into_sheet import default_copy_path, export_into_sheet
from tests.support import make_config, tasks_of

HOSTILE = '=HYPERLINK("http://127.0.0.1/","click")'
FORMULA = '=CONCAT("a","b")'


def _config(sim: ApiSimServer) -> AppConfig:
    return make_config(
        [{"name": name, "kind": "api", "base_url": sim.base_url, "model": "m", "concurrency": 2}
         for name in ("writer", "critic")],
        prices={"m": {"input": 1000.0, "output": 1000.0, "currency": "EUR"}})


def _workbook(path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "batch"
    ws.append(["product", "tone", "profiles"])
    ws.append(["teapot", "warm", None])
    ws.append(["kettle", "bright", "writer,critic"])
    ws.append([FORMULA, "odd", None])  # a formula never calculated: the reader rejects the row
    ws.append(["mug [[sim:400]]", "cold", None])  # refused by the endpoint, then answered by hand
    ws["A1"].font = openpyxl.styles.Font(italic=True)
    notes = wb.create_sheet("notes")
    notes["A1"] = "=SUM(1,2)"
    wb.save(path)


async def _run(sched: Scheduler, source: Path, folder: Path) -> None:
    parsed = parse_batch_file(source, known_profiles=["writer", "critic"], templates_dir=folder,
                              template="blurb", profile="writer")
    assert len(parsed.rows) == 3 and [e.line for e in parsed.errors] == [4]
    await sched.intake.submit_rows_async(parsed.rows, source.name)
    await sched.start()
    await asyncio.wait_for(sched.wait_idle(), 60)  # what it waits for: every task terminal (60 s: a safety net)


async def test_xlsx_copy_has_results_and_the_original_is_untouched(workspace: Workspace, tmp_path: Path) -> None:
    folder = templates_dir(workspace.data_dir)
    folder.mkdir(parents=True)
    (folder / "blurb.txt").write_text("A {tone} blurb for {product}.", encoding="utf-8")
    source = tmp_path / "sheet.xlsx"
    _workbook(source)
    original = source.read_bytes()
    async with ApiSimServer(ApiSimConfig(seed=1)) as sim:
        sched = Scheduler(_config(sim), workspace)
        sched.open()
        try:
            await _run(sched, source, folder)
            failed = [t for t in tasks_of(workspace).values() if t.state == "failed"]
            assert len(failed) == 1
            sched.resolve_exception(failed[0].task_id, "answer", "by hand", answer=HOSTILE)
            kettle = [t for t in tasks_of(workspace).values() if "kettle" in t.prompt]
            sched.keep(next(t.task_id for t in kettle if t.profile == "critic"))
        finally:
            await sched.stop()

    done = export_into_sheet(workspace.location, source, templates_dir=folder, template="blurb", profile="writer",
                             known_profiles=["writer", "critic"])
    assert done.path == default_copy_path(source) == tmp_path / "sheet.results.xlsx"
    assert (done.rows, done.tasks, done.found, done.errors) == (4, 4, 4, 1)
    assert source.read_bytes() == original
    assert done.path.stat().st_mode & 0o077 == 0

    wb = openpyxl.load_workbook(done.path)
    ws = wb["batch"]
    header = [c.value for c in ws[1]]
    assert header == ["product", "tone", "profiles",
                      "answer [writer]", "state [writer]", "cost (EUR) [writer]",
                      "answer [critic]", "state [critic]", "cost (EUR) [critic]"]
    assert ws["A1"].font.i  # the original's formats kept
    assert (ws["A4"].value, ws["A4"].data_type) == (FORMULA, "f")  # its formulas kept as formulas
    assert wb["notes"]["A1"].value == "=SUM(1,2)"
    assert [c.value for c in ws[2]][:6] == ["teapot", "warm", None, answer_for("A warm blurb for teapot."),
                                            "success", ws["F2"].value]
    assert isinstance(ws["F2"].value, float) and ws["F2"].value > 0
    assert ws["D3"].value == answer_for("A bright blurb for kettle.") == ws["G3"].value
    assert (ws["E3"].value, ws["H3"].value) == ("success", "success (kept)")
    assert ws["E4"].value.startswith("error: ") and "formula without a cached value" in ws["E4"].value
    assert ws["D4"].value is None
    assert (ws["D5"].value, ws["D5"].data_type) == (HOSTILE, "s")  # text, never a formula
    assert ws["E5"].value.startswith("success")
    assert ws["G2"].value is None and ws["G5"].value is None  # one-profile rows fill the first triple only


async def test_csv_in_gb18030_comes_back_as_utf8_with_a_bom(workspace: Workspace, tmp_path: Path) -> None:
    source = tmp_path / "批次.csv"
    text = "profile,prompt,priority\r\nwriter,写一首诗,1\r\nwriter,,2\r\n"
    source.write_bytes(text.encode("gb18030"))
    out = tmp_path / "copy.csv"
    with pytest.raises(ExportError, match="database not found"):
        export_into_sheet(workspace.location, source, out)
    sched = Scheduler(make_config([{"name": "writer", "kind": "api", "base_url": "http://127.0.0.1:9/v1",
                                    "model": "m"}]), workspace)
    sched.open()
    try:  # submitted, never started: the task waits
        sched.intake.submit_rows(parse_batch_file(source).rows, source.name)
    finally:
        await sched.stop()
    done = export_into_sheet(workspace.location, source, out)
    data = out.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and (done.rows, done.found, done.errors) == (2, 1, 1)
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    assert rows == [["profile", "prompt", "priority", "answer", "state", "cost"],
                    ["writer", "写一首诗", "1", "", "pending", ""],
                    ["writer", "", "2", "", "error: prompt is empty", ""]]
    assert source.read_bytes() == text.encode("gb18030")
    with pytest.raises(ExportError, match="the original"):
        export_into_sheet(workspace.location, source, source)
    victim = tmp_path / "victim.csv"
    victim.write_text("keep me", encoding="utf-8")
    planted = tmp_path / "planted.csv"
    planted.symlink_to(victim)
    with pytest.raises(UnsafePathError):  # a link at the copy's name: refused, never followed
        export_into_sheet(workspace.location, source, planted)
    assert victim.read_text(encoding="utf-8") == "keep me"
    bad = tmp_path / "bad.csv"
    bad.write_text("profile,wording\nwriter,x\n", encoding="utf-8")
    with pytest.raises(ExportError, match="bad header"):  # no column to line results up with: no copy
        export_into_sheet(workspace.location, bad)
    assert not default_copy_path(bad).exists()
    # the command line writes the same copy (its default name beside the original)
    assert main(["export", "--data-dir", str(workspace.data_dir), "--into", str(source)]) == 0
    assert default_copy_path(source).read_bytes() == data
