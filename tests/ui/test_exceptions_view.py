"""The Exceptions tab end to end: a real Scheduler whose web lane fails a task for good with
``site_error`` (an exception kind), the tab listing it, and the operator's decisions on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings

from mediadesk.core.backend import RunContext, TaskSpec
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.core.log_lines import LOG
from mediadesk.scheduler import Scheduler
from mediadesk.store import TaskReader
from mediadesk.store.taskstore import TaskRecord
from mediadesk.ui.window.main_window import MainWindow
from tests.ui.conftest import ARun, ConsoleEnv, FakeWebBackend, open_window


class FailingWebBackend(FakeWebBackend):
    """Fails every prompt containing ``[[fail]]`` with a non-retryable site error."""

    async def run(self, task: TaskSpec, ctx: RunContext) -> str:
        if "[[fail]]" in task.prompt:
            self.runs.append(task.task_id)
            ctx.log(LOG.as_is(text="fake browser: the chat page showed an error"))
            raise TaskFailure(ErrorKind.SITE_ERROR, "the chat page showed an error", retryable=False)
        return await super().run(task, ctx)


@pytest.fixture
def console_scheduler(console_env: ConsoleEnv, arun: ARun) -> Iterator[Scheduler]:
    for name in ("acct-a", "acct-b"):
        console_env.web_backends[name] = FailingWebBackend(name)
    s = console_env.make_scheduler()
    arun(s.start())
    try:
        yield s
    finally:
        arun(s.stop(), timeout=20.0)


@pytest.fixture
def window(console_scheduler: Scheduler, qtbot: Any, arun: ARun, tmp_path: Path) -> Iterator[MainWindow]:
    with open_window(console_scheduler, arun, QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)) as w:
        yield w


def db_record(env: ConsoleEnv, task_id: str) -> TaskRecord:
    r = TaskReader(env.workspace.db_path)
    try:
        rec = r.get(task_id)
    finally:
        r.close()
    assert rec is not None
    return rec


def fail_tasks(s: Scheduler, qtbot: Any, env: ConsoleEnv, ids: list[str]) -> None:
    s.intake.submit([s.intake.new_task(tid, "chat", f"question {tid} [[fail]]") for tid in ids])
    qtbot.waitUntil(lambda: all(db_record(env, t).state == "failed" for t in ids), timeout=15_000)


def test_exceptions_tab_lists_failed_tasks_and_resolves_them(
        window: MainWindow, console_env: ConsoleEnv, console_scheduler: Scheduler, qtbot: Any) -> None:
    view = window.exceptions_view
    assert view.count == 0 and window.exceptions_dock.windowTitle() == "Exceptions (0)"
    # evidence saved by a web failure is listed as a link
    ev_dir = console_env.workspace.evidence_dir / "x1"
    ev_dir.mkdir(parents=True, exist_ok=True)
    (ev_dir / "page.html").write_text("<html>oops</html>", encoding="utf-8")
    fail_tasks(console_scheduler, qtbot, console_env, ["x1", "x2", "x3"])
    # the tab refreshes by itself (taskChanged -> failed, coalesced)
    qtbot.waitUntil(lambda: view.task_ids() == ["x1", "x2", "x3"], timeout=5_000)
    assert window.exceptions_dock.windowTitle() == "Exceptions (3)"
    assert db_record(console_env, "x1").error_kind == "site_error"

    # the detail: prompt, error, evidence, log (read off the GUI thread)
    opened: list[str] = []
    view.opener = lambda url: opened.append(url.toLocalFile())
    with qtbot.waitSignal(view.detailLoaded, timeout=5_000):
        assert view.select_task("x1")
    assert "question x1" in view.prompt_view.toPlainText()
    # the kind in the operator's words, the stored kind one hover away
    assert "the site showed an error" in view.error_view.text()
    assert "site_error" not in view.error_view.text()
    assert "site_error" in view.error_view.toolTip()
    assert view.table.item(0, 2).text() == "the site showed an error"
    assert [p.name for p in view.evidence] == ["page.html"]
    assert "chat page showed an error" in view.log_view.toPlainText()
    view.evidence_view.linkActivated.emit(ev_dir.joinpath("page.html").as_uri())
    assert opened == [str(ev_dir / "page.html")]

    # a bad decision is shown in the view, not raised
    view.answer_edit.setPlainText("   ")
    assert not view.resolve("answer")
    assert "needs the answer text" in view.status_label.text()
    assert view.task_ids() == ["x1", "x2", "x3"]

    # answer by hand: success, served by the operator, gone from the list
    view.note_edit.setText("checked by hand")
    view.answer_edit.setPlainText("the real answer")
    assert view.resolve("answer")
    rec = db_record(console_env, "x1")
    assert (rec.state, rec.served_by, rec.result) == ("success", "operator", "the real answer")
    assert rec.resolution == "answer" and rec.resolution_note == "checked by hand"
    assert view.task_ids() == ["x2", "x3"]
    assert window.exceptions_dock.windowTitle() == "Exceptions (2)"

    # re-route to an API profile: it runs there and succeeds
    assert view.select_task("x2")
    view.profile_combo.setCurrentText("writer")
    assert view.resolve("reroute")
    assert view.task_ids() == ["x3"]
    qtbot.waitUntil(lambda: db_record(console_env, "x2").state == "success", timeout=15_000)
    assert db_record(console_env, "x2").profile == "writer"

    # drop: stays failed, resolved; listed again with "show resolved"
    assert view.select_task("x3")
    asked: list[list[str]] = []
    view.confirm_drop = lambda ids: asked.append(ids) is None  # the operator says yes
    assert view.resolve("drop")
    assert asked == [["x3"]]
    assert view.task_ids() == [] and window.exceptions_dock.windowTitle() == "Exceptions (0)"
    assert db_record(console_env, "x3").state == "failed"
    view.show_resolved.setChecked(True)
    assert "x3" in view.task_ids()  # still failed, dropped (answered ones are successes now)
    assert view.count == 0
    qtbot.waitUntil(lambda: not view.busy, timeout=5_000)
