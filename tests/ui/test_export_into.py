"""The console's "Export into the original spreadsheet…": a workbook batch run through a template on the real
console (API simulator on 127.0.0.1, real SQLite, offscreen Qt), then the action, with the file chosen, writes
the copy beside the workbook off the event loop and says where."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openpyxl
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog

from mediadesk.core.batch import parse_batch_file, templates_dir
from mediadesk.scheduler import Scheduler
from mediadesk.sim.api_server import answer_for
from mediadesk.store.into_sheet import default_copy_path
from tests.ui.conftest import ARun, ConsoleEnv, open_window
from tests.ui.test_main_window import wait_states


def test_the_action_writes_the_copy_beside_the_workbook(console_env: ConsoleEnv, console_scheduler: Scheduler,
                                                        arun: ARun, qtbot: Any, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    folder = templates_dir(console_env.workspace.data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ask.txt").write_text("Name a {thing}.", encoding="utf-8")
    source = tmp_path / "things.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["thing"])
    ws.append(["colour"])
    ws.append(["river"])
    wb.save(source)
    parsed = parse_batch_file(source, known_profiles=console_scheduler.profile_names(), templates_dir=folder,
                              template="ask", profile="writer")
    assert len(parsed.rows) == 2
    with open_window(console_scheduler, arun, QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)) as w:
        res = w.submission.submit_rows(parsed.rows, batch=source.name)  # the staging dialog names it so
        assert res is not None and len(res.added) == 2
        wait_states(qtbot, console_env, dict.fromkeys(res.added, "success"))
        monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *_a, **_k: (str(source), ""))
        menu = w.act_export.menu()
        assert menu is not None
        act = next(a for a in menu.actions() if a.objectName() == "actExportInto")
        act.trigger()
        qtbot.waitUntil(lambda: "Wrote the results" in w.status_line.last_message, timeout=30_000)
        assert str(default_copy_path(source)) in w.status_line.last_message
    sheet = openpyxl.load_workbook(default_copy_path(source)).active
    assert sheet is not None
    assert [c.value for c in sheet[1]] == ["thing", "answer", "state", "cost"]
    assert [(r[1], r[2]) for r in sheet.iter_rows(min_row=2, values_only=True)] == [
        (answer_for("Name a colour."), "success"), (answer_for("Name a river."), "success")]
