"""The tray icon is made when a tray appears after the console started, so closing then offers
"Keep running in the tray"; a pause set in the console is still there after the console is closed
and opened again on the same data dir (issue 20, item 3). Real console start (``console_main``),
real scheduler, real API simulator, real SQLite."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from mediadesk.config.workspace import Workspace
from mediadesk.sim.api_server import ApiSimServer
from mediadesk.ui.app.start import EXIT_OK, console_main
from mediadesk.ui.dialogs.close_question import CloseChoice, CloseGuard, CloseQuestion, work_in_progress
from mediadesk.ui.window.main_window import MainWindow
from mediadesk.ui.window.tray import TrayController
from tests.support import tasks_of
from tests.ui.test_close_and_tray import _config_toml, slow_sim  # noqa: F401 (a fixture)


def _controller(w: MainWindow) -> TrayController:
    tray = w.findChild(TrayController)
    assert isinstance(tray, TrayController)
    return tray


def test_a_tray_that_appears_later_gets_the_icon_and_the_close_question_offers_it(
    tmp_path: Path, slow_sim: ApiSimServer, qapp: Any, qloop: asyncio.AbstractEventLoop, qtbot: Any,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(TrayController, "TRAY_POLL_MS", 50)
    cfg = tmp_path / "slow.toml"
    cfg.write_text(_config_toml(slow_sim.base_url, tmp_path / "data"), encoding="utf-8")
    panel = {"tray": False}  # the desktop's panel (with its tray) starts after the console
    seen: dict[str, MainWindow] = {}
    run = qloop.create_task(console_main(qapp, cfg, on_window=lambda w: seen.setdefault("w", w),
                                         tray_available=lambda: panel["tray"]))
    qtbot.waitUntil(lambda: "w" in seen and seen["w"].feed.is_loaded, timeout=20_000)
    w = seen["w"]
    tray = _controller(w)
    assert tray.tray is None and not tray.has_tray
    asked: list[CloseQuestion] = []
    assert isinstance(w.close_guard, CloseGuard)
    w.close_guard.ask = lambda q: asked.append(q) or CloseChoice.TRAY  # type: ignore[func-returns-value]

    panel["tray"] = True
    qtbot.waitUntil(lambda: tray.tray is not None, timeout=20_000)
    assert tray.tray is not None and tray.tray.isVisible()
    assert w.submission.submit_rows_from_text("one", "writer") is not None
    qtbot.waitUntil(lambda: work_in_progress(w.scheduler) == (1, 0), timeout=20_000)
    w.close()
    assert asked == [CloseQuestion(1, 0, True)]  # "Keep running in the tray" offered
    qtbot.waitUntil(lambda: not w.isVisible(), timeout=5_000)
    assert not run.done()
    tray.quit()
    qtbot.waitUntil(run.done, timeout=30_000)
    assert run.result() == EXIT_OK


def test_a_paused_lane_stays_paused_after_the_console_restarts(
    tmp_path: Path, api_sim: ApiSimServer, qapp: Any, qloop: asyncio.AbstractEventLoop, qtbot: Any,
) -> None:
    data = tmp_path / "data"
    cfg = tmp_path / "fast.toml"
    cfg.write_text(_config_toml(api_sim.base_url, data), encoding="utf-8")
    seen: list[MainWindow] = []

    run = qloop.create_task(console_main(qapp, cfg, on_window=seen.append, tray_available=False))
    qtbot.waitUntil(lambda: len(seen) == 1 and seen[0].feed.is_loaded, timeout=20_000)
    first = seen[0]
    first.act_pause_api.trigger()  # the operator pauses the API lanes, then closes the console
    qtbot.waitUntil(lambda: first.api_panel.state_label.text() == "paused", timeout=10_000)
    first.close()
    qtbot.waitUntil(run.done, timeout=30_000)

    run = qloop.create_task(console_main(qapp, cfg, on_window=seen.append, tray_available=False))
    qtbot.waitUntil(lambda: len(seen) == 2 and seen[1].feed.is_loaded, timeout=20_000)
    w = seen[1]
    qtbot.waitUntil(lambda: w.api_panel.state_label.text() == "paused (kept from last session)", timeout=10_000)
    # the toolbar says so too, by the same tick at the latest
    qtbot.waitUntil(lambda: w.act_pause_api.isChecked() and w.act_pause_api.text() == "Resume API", timeout=5_000)
    assert w.submission.submit_rows_from_text("a\nb\nc", "writer") is not None
    lane = w.scheduler.lanes[0]
    qtbot.waitUntil(lambda: sum(n for _, n in lane.stats().backlog) == 3, timeout=10_000)  # the lane has seen them
    qtbot.waitUntil(lambda: "3 pending" in w.api_panel.summary_text(), timeout=10_000)
    states = tasks_of(Workspace.resolve(data_dir=data))
    assert [(t.state, t.attempt) for t in states.values()] == [("pending", 0)] * 3  # nothing dispatched

    w.act_pause_api.trigger()  # Resume
    qtbot.waitUntil(lambda: work_in_progress(w.scheduler) == (0, 0), timeout=20_000)
    assert {t.state for t in tasks_of(Workspace.resolve(data_dir=data)).values()} == {"success"}
    qtbot.waitUntil(lambda: w.api_panel.state_label.text() == "", timeout=10_000)
    w.close()
    qtbot.waitUntil(run.done, timeout=30_000)
