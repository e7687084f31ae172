"""An endpoint that rejects the API key, in the console (issue 19, item 16): the lane panel, the
Profiles endpoint tree and a notice say it is stopped and why (never "resumes by itself"), the
Exceptions tab lists it with its waiting tasks, and "Check and resume" brings it back once the key is
accepted; every task then succeeds on attempt 1. The real API simulator on 127.0.0.1 answers the
first request of one prompt with 401 (``[[sim:fail=401x1]]``), as a server does to a wrong key."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings

from mediadesk.scheduler import Scheduler
from mediadesk.ui.window.main_window import MainWindow
from mediadesk.ui.window.tray import WorkWatcher
from tests.support import tasks_of, until
from tests.ui.conftest import ARun, ConsoleEnv, open_window


@pytest.fixture
def window(console_scheduler: Scheduler, arun: ARun, tmp_path: Path) -> Iterator[MainWindow]:
    with open_window(console_scheduler, arun, QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)) as w:
        yield w


def test_a_rejected_key_is_shown_listed_and_resumed(window: MainWindow, console_env: ConsoleEnv,
                                                    arun: ARun, qtbot: Any) -> None:
    w = window
    watcher = WorkWatcher(w.scheduler, w.bridge)
    view = w.exceptions_view
    assert not view.stopped.isVisibleTo(view) and w.exceptions_dock.windowTitle() == "Exceptions (0)"
    assert w.submission.submit_rows_from_text("first [[sim:fail=401x1]]", "writer") is not None
    arun(until(lambda: bool(view.stopped.stops), "the Exceptions tab to list the stopped endpoint"), timeout=30)
    assert w.submission.submit_rows_from_text("\n".join(f"later {i}" for i in range(5)), "writer") is not None

    [stop] = view.stopped.stops
    assert view.stopped.isVisibleTo(view) and w.exceptions_dock.windowTitle() == "Exceptions (1)"
    why = view.stopped.table.item(0, 1).text()
    assert why.startswith("key rejected (HTTP 401)") and "the key comes from" in why, why
    # the lane panel and the Profiles tree say it, and the notice does not promise it resumes by itself
    arun(until(lambda: "stopped since" in w.api_panel.callee_label.text(), "the lane panel to show the stop"),
         timeout=20)
    assert "set the right API key" in w.api_panel.callee_label.text()
    arun(until(lambda: "stopped: key rejected" in w.profiles_editor.gate_text(stop.endpoint),
               "the Profiles tree to show the stop"), timeout=20)
    arun(until(lambda: any(t == "Endpoint stopped" for t, _ in watcher.sent), "the stop notice"), timeout=20)
    said = [text for title, text in watcher.sent if title in ("Endpoint stopped", "Breaker open")]
    assert len(said) == 1 and "resumes by itself" not in said[0] and "key rejected" in said[0], said
    # nothing else was sent to it: the other tasks wait, uncharged
    tasks = tasks_of(console_env.workspace)
    assert {(t.state, t.attempt) for t in tasks.values()} == {("pending", 0)}, tasks
    assert console_env.sim.stats()["status_counts"].get("200", 0) == 0

    task = view.stopped.resume_current()  # the key is accepted now (the 401 was that prompt's first only)
    assert task is not None
    arun(asyncio.wait_for(asyncio.shield(task), 30))
    assert view.stopped.stops == [] and not view.stopped.isVisibleTo(view)
    assert "resumed" in view.stopped.status_label.text()
    arun(until(lambda: all(t.state == "success" for t in tasks_of(console_env.workspace).values()),
               "every task to succeed"), timeout=60)
    assert {t.attempt for t in tasks_of(console_env.workspace).values()} == {1}
    assert w.exceptions_dock.windowTitle() == "Exceptions (0)"
    watcher.deleteLater()
