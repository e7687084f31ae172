"""``POST /v1/batches`` with an .xlsx body: the same parser as a file (header row, template and profile
columns, per-row errors by Excel row), the template found in the desk's workspace; the lanes paused, so
nothing is sent and the stored tasks are read back as they went in."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import openpyxl

from mediadesk.core.batch import templates_dir
from mediadesk.remote.intake import XLSX_TYPE
from mediadesk.sim.api_server import ApiSimServer
from tests.remote.conftest import api_profile, remote_config


def _workbook() -> bytes:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    for row in (["template", "profiles", "n", "product"], ["ask", "writer", 2, "kettle"], ["ask", "writer", 1, None]):
        ws.append(row)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


async def test_an_xlsx_body_goes_through_the_same_parser(open_desk: Any, sim: ApiSimServer, tmp_path: Path) -> None:
    folder = templates_dir(tmp_path / "data")  # the desk's workspace (open_desk's default data dir)
    folder.mkdir(parents=True)
    (folder / "ask.txt").write_text("Tell me about {product}.", encoding="utf-8")
    desk = await open_desk(remote_config([api_profile("writer", sim)]))
    await desk.call("POST", "/v1/lanes/pause", json={})
    resp = await desk.call("POST", "/v1/batches", params={"name": "x1"}, content=_workbook(),
                           headers={"Content-Type": XLSX_TYPE})
    assert resp.status_code == 200, resp.text
    doc = resp.json()
    assert doc["added"] == 2 and len(set(doc["task_ids"])) == 2
    (err,) = doc["errors"]
    assert err["line"] == 3 and "missing variable 'product' (cell D3 is empty)" in err["message"]
    recs = [desk.sched.store.get(t) for t in doc["task_ids"]]
    assert [(r.prompt, r.template, r.sample) for r in recs] == [
        ("Tell me about kettle.", "ask", 1), ("Tell me about kettle.", "ask", 2)]
    assert recs[0].group_id == recs[1].group_id is not None


async def test_a_csv_body_is_read_as_csv_by_its_content_type(open_desk: Any, sim: ApiSimServer) -> None:
    desk = await open_desk(remote_config([api_profile("writer", sim)]))
    await desk.call("POST", "/v1/lanes/pause", json={})
    body = "profile,prompt\nwriter,第一个问题\nwriter,second\n".encode("gb18030")  # as Excel saves it in China
    resp = await desk.call("POST", "/v1/batches", params={"name": "c1"}, content=body,
                           headers={"Content-Type": "text/csv"})
    assert resp.status_code == 200, resp.text
    doc = resp.json()
    assert doc["added"] == 2 and doc["errors"] == []
    assert sorted(desk.sched.store.get(t).prompt for t in doc["task_ids"]) == ["second", "第一个问题"]
