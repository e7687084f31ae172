"""Starting the demo: Return on the welcome panel, what is starting shown at once, the window before
the accounts' logins (they log themselves in), and a second demo on the same folder handed over to
the console already running there (two real processes) without touching its config."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from mediadesk.files.db_lock import DatabaseLock
from mediadesk.providers.web.profile_lock import InstanceLock
from mediadesk.ui.app.start import EXIT_OK, console_main
from mediadesk.ui.dialogs.welcome import WelcomePanel
from mediadesk.ui.window.main_window import MainWindow
from tests.support import ROOT, require
from tests.ui.conftest import ARun
from tests.ui.test_first_run import _close_when_loaded, _later, fresh_home  # noqa: F401 - a fixture


def test_return_on_the_welcome_panel_tries_the_demo(tmp_path: Path, qtbot: Any) -> None:
    from PySide6.QtTest import QTest

    panel = WelcomePanel(tmp_path / "config.toml")
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    assert panel.demo_button.isDefault()  # drawn as the main action
    QTest.keyClick(panel, Qt.Key.Key_Return)
    assert panel.choice is not None and panel.choice.kind == "demo"


def test_return_on_another_focused_choice_takes_that_one(tmp_path: Path, qtbot: Any) -> None:
    from PySide6.QtTest import QTest

    panel = WelcomePanel(tmp_path / "config.toml")
    qtbot.addWidget(panel)
    chosen: list[Path | None] = []
    panel.choose_file = lambda: chosen.append(None)  # type: ignore[func-returns-value]
    panel.show()
    qtbot.waitExposed(panel)
    panel.open_button.setFocus()
    QTest.keyClick(panel.open_button, Qt.Key.Key_Return)
    assert chosen == [None] and panel.choice is None  # the file dialog was asked, nothing chosen


def test_try_the_demo_shows_what_is_starting_then_a_window_whose_accounts_log_themselves_in(
    fresh_home: Path, tmp_path: Path, qapp: QApplication, arun: ARun,  # noqa: F811 - the fixture
) -> None:
    require(shutil.which("chromium") or Path("/usr/bin/chromium").exists(), "the demo's web lanes need Chromium")
    seen: dict[str, Any] = {"steps": [], "window_at": None}
    watch = QTimer()
    watch.setInterval(5)

    def look() -> None:  # what an operator sees between the click and the window
        for w in qapp.topLevelWidgets():
            if w.objectName() == "startingWindow":
                # the window's own record of every step it painted: a step shown for a few
                # milliseconds is in it even when no sample of this timer fell on it
                steps = list(w.steps)  # type: ignore[attr-defined]
                if len(steps) >= len(seen["steps"]):
                    seen["steps"] = steps
                seen["shown"] = seen.get("shown", False) or w.isVisible()

    watch.timeout.connect(look)

    def on_welcome(panel: WelcomePanel) -> None:
        def click() -> None:
            watch.start()
            panel.demo_button.click()
        _later(click)

    def on_window(w: MainWindow) -> None:
        look()
        watch.stop()
        seen["window_steps"] = list(seen["steps"])
        if not seen["steps"]:  # nothing said what was starting: no need to wait for the rest
            _close_when_loaded(w)
            return

        async def when_ready() -> None:
            await w.scheduler.wait_ready()
            while "Demo ready" not in w.status_line.last_message:  # noqa: ASYNC110 - the console says it once it has seen it
                await asyncio.sleep(0.02)
            lanes = [lane for lane in w.scheduler.lanes if lane.account]
            seen["health"] = {lane.account: lane.backend.health()[0] for lane in lanes}
            seen["status"] = w.status_line.last_message
            _close_when_loaded(w)

        asyncio.get_running_loop().create_task(when_ready())

    rc = arun(console_main(qapp, None, data_dir=tmp_path / "demo", welcome=True, on_welcome=on_welcome,
                           on_window=on_window, tray_available=False), timeout=180)
    assert rc == EXIT_OK
    steps = seen["window_steps"]
    assert seen["shown"]  # the starting window was on screen
    assert any("simulators" in s for s in steps), steps  # said before the window was there
    assert any("lanes" in s for s in steps), steps
    # the demo accounts logged themselves in while their lanes warmed up
    assert seen["health"] == {"demo-a": "ready", "demo-b": "ready"}, seen["health"]
    assert "Demo ready" in seen["status"]


def _console(data_dir: Path, home: Path) -> list[str]:
    return [sys.executable, "-m", "mediadesk", "--demo", "--data-dir", str(data_dir)]


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen",
            "MEDIADESK_NO_DIALOGS": "1", "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local/share"), "XDG_STATE_HOME": str(home / ".local/state")}


def _wait_running(proc: subprocess.Popen[str], data_dir: Path) -> None:
    """Until ``proc``'s scheduler holds the database lock (taken after its single-instance socket
    listens: its window is being built); fails with its output if it ends first."""
    lock = DatabaseLock(data_dir / "mediadesk.db")
    while lock.holder_pid() != proc.pid:
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the first console ended ({proc.returncode}):\n{out[-2000:]}\n{err[-3000:]}")
        time.sleep(0.1)


@pytest.mark.timeout(300)
def test_a_second_demo_on_the_same_folder_hands_over_and_leaves_the_config_alone(tmp_path: Path) -> None:
    data_dir = tmp_path / "demo"
    home = tmp_path / "home"
    home.mkdir()
    first = subprocess.Popen(_console(data_dir, home), cwd=ROOT, env=_env(home), text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _wait_running(first, data_dir)
        config = (data_dir / "config.toml").read_bytes()
        second = subprocess.run(_console(data_dir, home), cwd=ROOT, env=_env(home), text=True,
                                capture_output=True, timeout=240, check=False)
        assert "Traceback" not in second.stderr, second.stderr
        assert second.returncode == EXIT_OK, second.stderr
        assert "already open" in second.stderr and str(data_dir) in second.stderr, second.stderr
        # the running console's config (its simulators' ports) is as it wrote it
        assert (data_dir / "config.toml").read_bytes() == config
        assert first.poll() is None  # and it runs on
        assert InstanceLock(data_dir).holder_pid() == first.pid
    finally:
        first.terminate()
        try:
            first.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            first.kill()
            first.communicate()


def test_a_demo_on_a_folder_a_headless_run_holds_is_refused_before_writing(tmp_path: Path, arun: ARun) -> None:
    """No console to hand over to (another MediaDesk without a window holds the folder): a clear
    refusal, and nothing written there."""
    from mediadesk.files.locks import LockHeldError
    from mediadesk.ui.app.workspace_session import EXIT_BUSY, WorkspaceSession, WorkspaceSpec, WorkspaceStartError

    data_dir = tmp_path / "demo"
    data_dir.mkdir()
    holder = InstanceLock(data_dir)
    holder.acquire()
    try:
        session = WorkspaceSession(WorkspaceSpec(None, data_dir, demo=True))
        with pytest.raises(WorkspaceStartError) as err:
            arun(session.start(), timeout=60)
        assert err.value.exit_code == EXIT_BUSY
        assert isinstance(err.value.__cause__, LockHeldError)
        assert str(data_dir) in err.value.text
        assert not (data_dir / "config.toml").exists()
        assert not (data_dir / "demo-batch.jsonl").exists()
    finally:
        holder.release()
