"""``mediadesk run FILE.xlsx --template NAME --profile P --sheet S``: a real subprocess, a real simulator on
127.0.0.1 and a real SQLite file; each rendered prompt is sent and stored with its template, a row missing a
variable is reported by its line and cell while the others run."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import openpyxl
import pytest

from mediadesk.core.batch import templates_dir
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.cli.test_cli import write_config
from tests.support import mediadesk_async


@pytest.fixture
async def sim() -> AsyncIterator[ApiSimServer]:
    async with ApiSimServer(ApiSimConfig(latency=(0.01, 0.02), quota=3, seed=7)) as server:
        yield server


async def test_a_workbook_sheet_renders_the_template_and_runs(tmp_path: Path, sim: ApiSimServer) -> None:
    cfg = write_config(tmp_path, sim.base_url)
    folder = templates_dir(tmp_path / "data")
    folder.mkdir(parents=True)
    (folder / "blurb.txt").write_text("Blurb for {product}, {words} chars.", encoding="utf-8")
    wb = openpyxl.Workbook()
    cover = wb.active
    assert cover is not None
    cover.title = "Cover"
    sheet = wb.create_sheet("Rows")
    for row in (["product", "words", "n"], ["kettle", 80, 2], ["lamp", None, None], ["mug", 40, None]):
        sheet.append(row)
    batch = tmp_path / "products.xlsx"
    wb.save(batch)
    db = tmp_path / "t.db"
    rc, out, err = await mediadesk_async("run", str(batch), "--config", str(cfg), "--db", str(db),
                                         "--template", "blurb", "--profile", "writer", "--sheet", "Rows")
    assert rc == 3, (out, err)  # every task succeeded, a row was rejected
    assert "products.xlsx:3:" in err and "missing variable 'words' (cell B3 is empty)" in err
    assert "2 valid rows, 3 tasks (3 new" in out
    con = sqlite3.connect(db)
    try:
        got = sorted(con.execute("SELECT prompt, template, template_vars, sample, state FROM task"))
    finally:
        con.close()
    assert got == [
        ("Blurb for kettle, 80 chars.", "blurb", json.dumps({"product": "kettle", "words": "80"},
                                                            separators=(",", ":")), 1, "success"),
        ("Blurb for kettle, 80 chars.", "blurb", json.dumps({"product": "kettle", "words": "80"},
                                                            separators=(",", ":")), 2, "success"),
        ("Blurb for mug, 40 chars.", "blurb", json.dumps({"product": "mug", "words": "40"}, separators=(",", ":")),
         None, "success"),
    ]
