"""The Setup editor's "Check adapter" on real Chromium and the chat simulator: without a running
scheduler (a browser of its own on the account's profile), and in the console with the account busy
running a task (the check waits for that task, in the account's own browser: never two generations on
one account). The report: each key's status, how completion was decided, the outlined screenshots
(scaled, each opens full size), page text shown as plain text."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QUrl

from mediadesk.config.model import load_config
from mediadesk.config.workspace import Workspace
from mediadesk.providers.web.login import login_with_form
from mediadesk.scheduler import Scheduler
from mediadesk.sim.web_server import WebSimConfig, WebSimServer
from mediadesk.ui.dialogs.setup.adapter_checker import SHOT_H, SHOT_W, AdapterCheckDialog
from mediadesk.ui.dialogs.setup_editor import SetupEditor
from tests.support import tasks_of
from tests.ui.conftest import ARun

pytestmark = [pytest.mark.browser]

PNG = b"\x89PNG\r\n\x1a\n"
CONFIG = """\
[retry]
max_retries = 1

[[profiles]]
name = "chat"
kind = "web"
site = "simchat"
url = "{url}"

[[accounts]]
name = "acct-a"
profile = "chat"
"""


@pytest.fixture
def sim(arun: ARun) -> Iterator[WebSimServer]:
    # every answer pauses 2 s (real) in the middle: a task is still running when the check is asked for
    # (a test may turn the pause off once that is seen: ``sim.config.pause_mid_s`` is read per answer)
    server = WebSimServer(WebSimConfig(time_scale=0.005, seed=3, answer_tokens=12, pause_mid_s=2.0))
    arun(server.start())
    try:
        yield server
    finally:
        arun(server.stop())


def setup(tmp_path: Path, sim: WebSimServer, arun: ARun) -> tuple[Path, Workspace]:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG.format(url=sim.chat_url), encoding="utf-8")
    ws = Workspace.resolve(data_dir=tmp_path / "data").ensure()
    arun(login_with_form(load_config(path), ws, "acct-a", sim.login_url,
                         fields={"#account": "acct-a", "#password": "pw"}, submit="button.login",
                         logged_in=".avatar"), timeout=120)
    return path, ws


def open_editor(path: Path, ws: Workspace, qtbot: Any, scheduler: Scheduler | None = None) -> SetupEditor:
    dlg = SetupEditor(path, workspace=ws, scheduler=scheduler)
    dlg.confirm_discard = lambda: True
    qtbot.addWidget(dlg)
    dlg.show()
    return dlg


def start_check(dlg: SetupEditor, section: str) -> asyncio.Task[None]:
    task = dlg.checker.start(section)  # type: ignore[arg-type]
    assert task is not None
    assert not dlg.check_buttons[section].isEnabled()  # type: ignore[index]
    return task


def run_check(dlg: SetupEditor, section: str, arun: ARun,
              task: asyncio.Task[None] | None = None) -> AdapterCheckDialog:
    """Run the check of ``section`` (or finish ``task``, one :func:`start_check` started) to its report."""
    if task is None:
        task = start_check(dlg, section)
    arun(asyncio.wait_for(asyncio.shield(task), 150), timeout=160)
    assert dlg.check_buttons[section].isEnabled()  # type: ignore[index]
    report = dlg.checker.dialog
    assert report is not None and report.isVisible()
    return report


def statuses(report: AdapterCheckDialog) -> dict[str, str]:
    return {report.keys.item(r, 0).text(): report.keys.item(r, 1).text() for r in range(report.keys.rowCount())}


def test_check_adapter_without_a_scheduler_shows_progress_keys_completion_and_screenshots(
    sim: WebSimServer, tmp_path: Path, qtbot: Any, arun: ARun
) -> None:
    path, ws = setup(tmp_path, sim, arun)
    dlg = open_editor(path, ws, qtbot)
    dlg.select("profiles", "chat")  # a web profile is checked through its first account
    report = run_check(dlg, "profiles", arun)
    progress = report.progress.toPlainText()
    assert "Opening the site… " + sim.chat_url in progress, progress
    assert "Sending the test prompt…" in progress and progress.rstrip().endswith("Done."), progress
    got = statuses(report)
    assert got["prompt"] == got["send"] == got["logged_in"] == got["answer"] == "found", got
    assert got["busy"] == "found" and got["error"] == "not shown", got
    assert report.summary.textFormat() == Qt.TextFormat.PlainText  # page text never rich text
    assert "OK: the adapter fits the page." in report.summary.text(), report.summary.text()
    assert "on account acct-a" in report.summary.text()
    details = report.details.toPlainText()
    assert "Completion decided by the site's own stream" in details, details
    assert "answer (" in details
    assert dlg.test_results["profiles"].text() == "Adapter check: OK"
    # the outlined screenshots: scaled in the report, each opens full size
    assert len(report.shot_paths) == 2
    opened: list[QUrl] = []
    report.opener = opened.append
    for i, shot in enumerate(report.shot_paths):
        assert shot.read_bytes().startswith(PNG) and shot.parent == ws.evidence_dir / "adapter-check"
        pix = report.shot_labels[i].pixmap()
        assert not pix.isNull() and pix.width() <= SHOT_W and pix.height() <= SHOT_H
        report.shot_buttons[i].click()
    assert opened == [QUrl.fromLocalFile(str(p)) for p in report.shot_paths]
    assert sim.stats()["concurrent_violations"] == 0


def test_check_adapter_in_the_console_waits_for_the_accounts_running_task(
    sim: WebSimServer, tmp_path: Path, qtbot: Any, arun: ARun
) -> None:
    path, ws = setup(tmp_path, sim, arun)
    s = Scheduler(load_config(path), ws)
    arun(s.start(), timeout=30)
    try:
        lane = s.lanes[0]
        arun(lane.started.wait(), timeout=120)
        s.intake.submit([s.intake.new_task("q", "chat", "a question that takes a while")])
        qtbot.waitUntil(lambda: lane.running_count == 1 and sim.stats()["generations_started"] == 1,
                        timeout=120_000)
        dlg = open_editor(path, ws, qtbot, scheduler=s)
        dlg.select("accounts", "acct-a")
        task = start_check(dlg, "accounts")
        report = dlg.checker.dialog
        assert report is not None
        qtbot.waitUntil(lambda: "busy running task q" in report.progress.toPlainText(), timeout=120_000)
        # the check waits for q (still running: it is in its 2 s pause or before it); what follows needs
        # no pause: the check's own answer and q2 stream straight through
        sim.config.pause_mid_s = 0.0
        assert run_check(dlg, "accounts", arun, task) is report
        progress = report.progress.toPlainText()
        assert ("Account acct-a is busy running task q; the check waits until it has ended (the account takes "
                "no new task meanwhile).") in progress, progress
        assert progress.index("busy running task q") < progress.index("Sending the test prompt…")
        assert tasks_of(ws)["q"].state == "success"  # it ended first...
        st = sim.stats()
        assert st["concurrent_violations"] == 0  # ...never two generations on the account at once
        assert st["generations_completed"] == 2  # the task's and the check's
        assert "OK: the adapter fits the page." in report.summary.text(), report.summary.text()
        assert statuses(report)["answer"] == "found"
        # the account takes tasks again once the check is over
        s.intake.submit([s.intake.new_task("q2", "chat", "and another")])
        qtbot.waitUntil(lambda: tasks_of(ws)["q2"].state == "success", timeout=120_000)
        assert sim.stats()["concurrent_violations"] == 0
    finally:
        arun(s.stop(), timeout=60)
