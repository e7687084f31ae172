"""The Exceptions tab's "account X needs a person": a real scheduler on a real Chromium meets the chat
simulator's bot check; the entry appears with the check's screenshot (scaled, openable full size); its
action opens the account's browser visibly (a real X server) on the same profile at the chat page; once
the check is gone the entry disappears and the task succeeds on its first attempt."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl

from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler
from mediadesk.sim.web_server import WebSimConfig, WebSimServer
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.panels.exceptions_view import ExceptionsView
from tests.providers.web.test_web_capacity import cap_config, login_all
from tests.providers.web.xserver import xvfb
from tests.support import require, tasks_of
from tests.ui.conftest import ARun

pytestmark = [pytest.mark.browser]


@pytest.fixture
def xdisplay(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    """A private X server for the person's visible window (the console itself stays offscreen)."""
    require(shutil.which("Xvfb") is not None, "needs Xvfb (./dev installs it)")
    with xvfb(tmp_path / "xvfb.log") as display:
        monkeypatch.setenv("DISPLAY", display)
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
        yield display


@pytest.fixture
def sim(arun: ARun) -> Iterator[WebSimServer]:
    server = WebSimServer(WebSimConfig(time_scale=0.005, seed=9, answer_tokens=12))
    arun(server.start())
    try:
        yield server
    finally:
        arun(server.stop())


def test_an_account_that_needs_a_person_is_listed_with_its_screenshot_and_resolved_from_the_view(
    xdisplay: str, sim: WebSimServer, tmp_path: Path, qtbot: Any, arun: ARun
) -> None:
    ws = Workspace.resolve(data_dir=tmp_path / "data").ensure()
    cfg = cap_config(sim, ["acct-a"])
    arun(login_all(cfg, ws, sim), timeout=120)
    s = Scheduler(cfg, ws)
    arun(s.start(), timeout=30)
    bridge = SchedulerBridge(s.bus)
    view = ExceptionsView(s, bridge)
    qtbot.addWidget(view)
    view.show()
    counts: list[int] = []
    view.countChanged.connect(counts.append)
    box = view.accounts_box
    opened: list[QUrl] = []
    box.opener = opened.append
    try:
        arun(s.lanes[0].started.wait(), timeout=120)
        assert box.accounts() == [] and not box.isVisibleTo(view)
        sim.set_challenge("turnstile", account="acct-a")
        s.intake.submit([s.intake.new_task("q", "chat", "what is a bot check?")])
        qtbot.waitUntil(lambda: box.accounts() == ["acct-a"], timeout=120_000)
        assert box.isVisibleTo(view) and counts[-1] == 1
        assert box.table.item(0, 0).text() == "acct-a"
        shot = ws.challenge_screenshot("acct-a")
        assert box.current is not None and box.current.screenshot == shot and shot.is_file()
        pix = box.shot.pixmap()
        assert not pix.isNull() and pix.width() <= 360 and pix.height() <= 220  # scaled preview
        assert box.shot_path.text() == str(shot)
        box.open_shot.click()
        assert opened == [QUrl.fromLocalFile(str(shot))]  # full size, in the desktop's viewer
        # the action: the account's browser opens visibly on its profile at the chat page
        pages_before = sim.stats()["challenge_pages"]
        box.solve_button.click()
        assert not box.solve_button.isEnabled()
        assert "solve the check there" in box.status.text()
        qtbot.waitUntil(lambda: sim.stats()["challenge_pages"] > pages_before, timeout=120_000)
        assert box.accounts() == ["acct-a"]  # still waiting for the person
        solved: list[tuple[str, bool]] = []
        box.resolved.connect(lambda a, ok: solved.append((a, ok)))
        sim.set_challenge(None, account="acct-a")  # the person solved it
        qtbot.waitUntil(lambda: solved != [], timeout=120_000)
        assert solved == [("acct-a", True)], box.status.text()
        assert box.accounts() == [] and not box.isVisibleTo(view) and counts[-1] == 0
        assert "takes tasks again" in box.status.text()
        qtbot.waitUntil(lambda: tasks_of(ws)["q"].state == "success", timeout=120_000)
        t = tasks_of(ws)["q"]
        assert t.attempt == 1, (t.error_kind, t.error_message)
    finally:
        view.close_jobs()
        arun(view.drain_jobs())
        bridge.detach()
        arun(s.stop(), timeout=60)
