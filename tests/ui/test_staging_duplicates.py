"""The staging preview flags a row that repeats a finished task (with that task's id) and a row that repeats
a row above; the "reuse" choice stores the repeat as a success with the earlier answer, at no cost, and sends
nothing to the API simulator (offscreen, real scheduler and SQLite)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from mediadesk.core.batch import BatchRow
from mediadesk.core.states import TaskState
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.duplicates import Duplicates
from mediadesk.sim.api_server import ApiSimServer
from mediadesk.store import TaskReader
from mediadesk.ui.jobs.workers import TaskJobs
from mediadesk.ui.window.submission import BatchSubmission
from tests.ui.conftest import ARun, ConsoleEnv


def test_the_preview_flags_a_repeat_and_reuse_stores_it_at_no_cost(
        console_scheduler: Scheduler, console_env: ConsoleEnv, api_sim: ApiSimServer, arun: ARun, qtbot: Any,
        tmp_path: Path) -> None:
    s = console_scheduler
    first = s.intake.submit_rows([BatchRow(line=1, profile="writer", prompt="a tagline for tea", id=None,
                                           system=None, priority=0, route_key=None)], "monday.csv")
    arun(s.wait_idle())
    (earlier,) = first.ids
    sent = api_sim.stats()["requests_total"]
    assert sent == 1

    parent = QWidget()
    statuses: list[str] = []
    sub = BatchSubmission(s, parent, QAction(parent), TaskJobs(owner=parent),
                          show_status=lambda text, *_a: statuses.append(text),
                          notify=lambda title, text, **_k: statuses.append(f"{title}: {text}"))
    path = tmp_path / "tuesday.csv"
    path.write_text("profile,prompt\nwriter,a tagline for tea\nwriter,a slogan\nwriter,a slogan\n", encoding="utf-8")
    try:
        dlg = sub.open_batch_dialog(path)
        qtbot.waitUntil(lambda: not dlg.is_busy() and len(dlg.rows()) == 3, timeout=10_000)
        model = dlg.preview_model()
        status = [model.data(model.index(i, 4)) for i in range(3)]
        assert earlier in status[0] and "monday.csv" in status[0]
        assert status[1] == model.tr("OK") and "3" in status[2]  # the last row repeats line 3 (the header is 1)
        assert dlg.duplicates() is Duplicates.SKIP  # the default, as the CLI's
        dlg.set_duplicates(Duplicates.REUSE)
        dlg.accept()  # a small batch is submitted at once, in one transaction
        assert any("reused" in t for t in statuses), statuses
    finally:
        sub.close_dialog()
        parent.deleteLater()
    arun(s.wait_idle())
    reader = TaskReader(console_env.workspace.location)
    try:
        recs = {r.task_id: r for r in reader.iter_tasks()}
    finally:
        reader.close()
    (copy,) = [r for r in recs.values() if r.reused_from == earlier]
    assert copy.state is TaskState.SUCCESS and copy.result == recs[earlier].result and copy.cost == 0
    assert copy.batch == "tuesday.csv" and len(recs) == 3  # the slogan once: its repeat was dropped
    assert api_sim.stats()["requests_total"] == sent + 1  # only the slogan was sent
