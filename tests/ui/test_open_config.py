"""File > Open config… and File > Recent configs in a running console: switch to another workspace in
the same window. Real console (``console_main``), real schedulers, real SQLite files, the real API
simulator on 127.0.0.1 behind both workspaces; only the dialogs are answered by the test."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QMessageBox, QWidget

from mediadesk.config.model import load_config
from mediadesk.config.workspace import Workspace
from mediadesk.files.db_lock import DatabaseLock
from mediadesk.providers.web import InstanceLock
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from mediadesk.ui.app.start import EXIT_OK, console_main
from mediadesk.ui.app.workspace_session import EXIT_BUSY, WorkspaceStartError
from mediadesk.ui.app.workspace_switch import (
    StartFailed,
    StartFailedChoice,
    SwitchQuestion,
    WorkspaceSwitcher,
    ask_start_failed,
)
from mediadesk.ui.dialogs.close_question import work_in_progress
from mediadesk.ui.dialogs.welcome import WelcomePanel
from mediadesk.ui.window.main_window import MainWindow
from mediadesk.ui.window.window_state import RECENT_CONFIGS_MAX, forget_config, recent_configs, remember_config
from tests.support import tasks_of, until
from tests.ui.conftest import ARun


def _config(path: Path, url: str, data_dir: Path, profile: str, concurrency: int = 2, extra: str = "") -> Path:
    path.write_text(f"""
data_dir = "{data_dir}"
[retry]
max_retries = 2
backoff_base_s = 0.01
backoff_max_s = 0.2
[heartbeat]
interval_s = 0.05
stale_after_s = 30
[scheduler]
poll_interval_s = 0.05
kill_grace_s = 1.0
[[profiles]]
name = "{profile}"
kind = "api"
base_url = "{url}"
model = "sim-model"
concurrency = {concurrency}
timeout_s = 600
{extra}
""", encoding="utf-8")
    return path


@pytest.fixture
def slow_sim(qloop: asyncio.AbstractEventLoop, arun: ARun) -> Iterator[ApiSimServer]:
    """An API that takes its time: a task stays running until its scheduler stops."""
    sim = ApiSimServer(ApiSimConfig(latency=(120.0, 120.0), seed=1))
    arun(sim.start())
    try:
        yield sim
    finally:
        arun(sim.stop(), timeout=20)


class Console:
    """``console_main`` on config A, running on the test's loop until :meth:`close`."""

    def __init__(self, qapp: Any, qloop: asyncio.AbstractEventLoop, qtbot: Any, config: Path | None,
                 **kwargs: Any) -> None:
        self.qtbot = qtbot
        self.seen: dict[str, Any] = {}
        self.run = qloop.create_task(console_main(qapp, config, on_window=self._on_window, tray_available=False,
                                                  **kwargs))
        qtbot.waitUntil(lambda: "w" in self.seen and self.w.feed.is_loaded, timeout=120_000)  # a start, not a speed

    def _on_window(self, w: MainWindow) -> None:
        self.seen["w"] = w

    @property
    def w(self) -> MainWindow:
        w = self.seen["w"]
        assert isinstance(w, MainWindow)
        return w

    @property
    def switcher(self) -> WorkspaceSwitcher:
        sw = self.w.findChild(WorkspaceSwitcher)
        assert isinstance(sw, WorkspaceSwitcher)
        return sw

    def close(self) -> int:
        if not self.run.done():
            self.switcher.tray.guard.quit_now()
            self.w.close()
        self.qtbot.waitUntil(self.run.done, timeout=30_000)
        rc = self.run.result()
        assert isinstance(rc, int)
        return rc


def _lanes(w: MainWindow) -> list[str]:
    return [row[0] for row in w.api_panel.row_texts()]


def _model_ids(w: MainWindow) -> set[str]:
    return {w.model.task_id(r) for r in range(w.model.rowCount())}


def _fill(cfg: Path, arun: ARun, prompts: list[str], profile: str) -> set[str]:
    """Run ``prompts`` to the end in the workspace of ``cfg`` (a headless scheduler, as `mediadesk run`)."""
    s = Scheduler(load_config(cfg), Workspace.resolve(data_dir=load_config(cfg).data_dir))

    async def go() -> set[str]:
        await s.start()
        try:
            _res, ids = s.submit_rows(_rows(prompts, profile), "seed")
            await until(lambda: all(t.state == "success" for t in tasks_of(s.workspace).values()),
                        "the seeded tasks to succeed", limit_s=20)
            return set(ids)
        finally:
            await s.stop()

    ids = arun(go(), timeout=30)
    assert isinstance(ids, set)
    return ids


def _rows(prompts: list[str], profile: str) -> list[Any]:
    from mediadesk.core.batch import parse_pasted

    return list(parse_pasted("\n".join(prompts), profile=profile).rows)


def test_switch_from_a_with_tasks_to_b_shows_b_tasks_lanes_and_tabs_and_b_runs(
    tmp_path: Path, api_sim: ApiSimServer, qapp: Any, qloop: asyncio.AbstractEventLoop, qtbot: Any, arun: ARun,
) -> None:
    cfg_a = _config(tmp_path / "a.toml", api_sim.base_url, tmp_path / "data-a", "writer")
    cfg_b = _config(tmp_path / "b.toml", api_sim.base_url, tmp_path / "data-b", "drafter", concurrency=3)
    b_ids = _fill(cfg_b, arun, ["b one", "b two"], "drafter")
    c = Console(qapp, qloop, qtbot, cfg_a)
    w, sw = c.w, c.switcher
    a_sched = w.scheduler
    res = w.submission.submit_rows_from_text("a one\na two\na three", "writer")
    assert res is not None
    a_ids = set(res.added)
    qtbot.waitUntil(lambda: all(w.model.state_of(t) == "success" for t in a_ids), timeout=20_000)
    assert _lanes(w) == ["writer"] and _model_ids(w) == a_ids

    sw.choose_file = lambda: cfg_b
    w.window_actions.open_config.trigger()  # File > Open config…
    qtbot.waitUntil(lambda: w.scheduler is not a_sched and w.feed.is_loaded and not sw.busy, timeout=20_000)

    assert not a_sched.started  # A stopped (its locks let go), B runs in the same window
    assert w.scheduler.started and w.scheduler.workspace.data_dir == (tmp_path / "data-b").resolve()
    assert _model_ids(w) == b_ids and all(w.model.state_of(t) == "success" for t in b_ids)
    assert _lanes(w) == ["drafter"]
    combo = w.filter_bar.profile_combo
    assert [combo.itemData(i) for i in range(combo.count())] == [None, "drafter"]
    assert w.exceptions_view.scheduler is w.scheduler
    db_b = w.scheduler.workspace.location
    assert w.location == db_b and db_b.display == str(w.scheduler.workspace.db_path)
    assert w.detail.location == w.charts_view.location == w.batches_view.location == w.table_menu.location == db_b
    w.batches_view.refresh(force=True)  # B's batch ("seed", from the headless run) in the Batches tab
    qtbot.waitUntil(lambda: w.batches_view.row_of("seed") is not None, timeout=10_000)
    assert w.profiles_dock.widget() is not None and w.batches_dock.widget() is not None
    assert w.isEnabled() and "b.toml" in w.windowTitle()
    assert "Opened" in w.status_line.last_message

    # the window works on B: a task submitted now runs on B's lane and lands in B's database
    res_b = w.submission.submit_rows_from_text("b three", "drafter")
    assert res_b is not None and len(res_b.added) == 1
    qtbot.waitUntil(lambda: w.model.state_of(res_b.added[0]) == "success", timeout=20_000)
    assert set(tasks_of(Workspace.resolve(data_dir=tmp_path / "data-b"))) == b_ids | set(res_b.added)
    assert set(tasks_of(Workspace.resolve(data_dir=tmp_path / "data-a"))) == a_ids
    assert c.close() == EXIT_OK


def test_a_bad_config_leaves_a_running_untouched_and_names_the_key(
    tmp_path: Path, slow_sim: ApiSimServer, qapp: Any, qloop: asyncio.AbstractEventLoop, qtbot: Any, arun: ARun,
) -> None:
    cfg_a = _config(tmp_path / "a.toml", slow_sim.base_url, tmp_path / "data-a", "writer")
    bad = _config(tmp_path / "bad.toml", slow_sim.base_url, tmp_path / "data-b", "drafter",
                  extra='concurency = 3\n')  # a typo'd key
    c = Console(qapp, qloop, qtbot, cfg_a)
    w, sw = c.w, c.switcher
    a_sched = w.scheduler
    w.submission.submit_rows_from_text("one\ntwo\nthree", "writer")
    qtbot.waitUntil(lambda: work_in_progress(a_sched) == (2, 1), timeout=20_000)

    def never(q: SwitchQuestion) -> bool:
        raise AssertionError("asked before the config was checked")

    sw.ask = never
    assert arun(sw.open_config(bad)) is False
    assert "concurency" in sw.last_error and "bad.toml" in sw.last_error
    assert "concurency" in w.status_line.last_message  # shown in the window (a message box and the status bar)
    assert w.scheduler is a_sched and a_sched.started and work_in_progress(a_sched) == (2, 1)
    assert w.isEnabled() and "a.toml" in w.windowTitle()
    assert recent_configs(QSettings())[0] == cfg_a.resolve()
    assert c.close() == EXIT_OK


def test_switching_with_pending_work_asks_and_cancel_keeps_a(
    tmp_path: Path, slow_sim: ApiSimServer, api_sim: ApiSimServer, qapp: Any, qloop: asyncio.AbstractEventLoop,
    qtbot: Any, arun: ARun,
) -> None:
    cfg_a = _config(tmp_path / "a.toml", slow_sim.base_url, tmp_path / "data-a", "writer")
    cfg_b = _config(tmp_path / "b.toml", api_sim.base_url, tmp_path / "data-b", "drafter")
    c = Console(qapp, qloop, qtbot, cfg_a)
    w, sw = c.w, c.switcher
    a_sched = w.scheduler
    w.submission.submit_rows_from_text("one\ntwo\nthree", "writer")
    qtbot.waitUntil(lambda: work_in_progress(a_sched) == (2, 1), timeout=20_000)
    asked: list[SwitchQuestion] = []

    def cancel(q: SwitchQuestion) -> bool:
        asked.append(q)
        return False

    sw.ask = cancel
    assert arun(sw.open_config(cfg_b)) is False
    assert [(q.running, q.pending) for q in asked] == [(2, 1)] and str(cfg_b) in asked[0].target
    assert w.scheduler is a_sched and a_sched.started and work_in_progress(a_sched) == (2, 1)
    assert "a.toml" in w.windowTitle() and "Nothing changed" in w.status_line.last_message
    assert c.close() == EXIT_OK


def test_after_switching_back_to_a_its_pending_tasks_are_still_there_and_run(
    tmp_path: Path, slow_sim: ApiSimServer, api_sim: ApiSimServer, qapp: Any, qloop: asyncio.AbstractEventLoop,
    qtbot: Any, arun: ARun,
) -> None:
    data_a = tmp_path / "data-a"
    cfg_a = _config(tmp_path / "a.toml", slow_sim.base_url, data_a, "writer")
    cfg_b = _config(tmp_path / "b.toml", api_sim.base_url, tmp_path / "data-b", "drafter")
    c = Console(qapp, qloop, qtbot, cfg_a)
    w, sw = c.w, c.switcher
    res = w.submission.submit_rows_from_text("one\ntwo\nthree", "writer")
    assert res is not None
    a_ids = set(res.added)
    qtbot.waitUntil(lambda: work_in_progress(w.scheduler) == (2, 1), timeout=20_000)
    sw.ask = lambda q: True  # Switch
    assert arun(sw.open_config(cfg_b), timeout=30) is True
    assert "b.toml" in w.windowTitle() and sw.asked and (sw.asked[0].running, sw.asked[0].pending) == (2, 1)
    # A's running attempts went back to the queue, their attempt refunded
    stored = tasks_of(Workspace.resolve(data_dir=data_a))
    assert {t.state for t in stored.values()} == {"pending"} and all(t.attempt == 0 for t in stored.values())

    # A's API answers now; back to A from File > Recent configs
    _config(cfg_a, api_sim.base_url, data_a, "writer")
    sw.fill_recent_menu()
    texts = {a.data(): a for a in w.window_actions.recent_menu.actions() if a.data()}
    texts[str(cfg_a.resolve())].trigger()
    qtbot.waitUntil(lambda: "a.toml" in w.windowTitle() and w.feed.is_loaded and not sw.busy, timeout=20_000)
    assert _model_ids(w) == a_ids and _lanes(w) == ["writer"]
    qtbot.waitUntil(lambda: all(w.model.state_of(t) == "success" for t in a_ids), timeout=20_000)
    assert {t.state for t in tasks_of(Workspace.resolve(data_dir=data_a)).values()} == {"success"}
    assert c.close() == EXIT_OK


def test_recent_configs_are_remembered_and_the_title_names_the_config(
    tmp_path: Path, api_sim: ApiSimServer, qapp: Any, qloop: asyncio.AbstractEventLoop, qtbot: Any, arun: ARun,
) -> None:
    cfg_a = _config(tmp_path / "a.toml", api_sim.base_url, tmp_path / "data-a", "writer")
    cfg_b = _config(tmp_path / "b.toml", api_sim.base_url, tmp_path / "data-b", "drafter")
    gone = _config(tmp_path / "gone.toml", api_sim.base_url, tmp_path / "data-g", "g")
    remember_config(QSettings(), gone)
    gone.unlink()
    c = Console(qapp, qloop, qtbot, cfg_a)
    w, sw = c.w, c.switcher
    assert "a.toml" in w.windowTitle() and str((tmp_path / "data-a").resolve()) in w.windowTitle()
    assert recent_configs(QSettings()) == [cfg_a.resolve(), gone.resolve()]
    assert arun(sw.open_config(cfg_b), timeout=30) is True
    assert "b.toml" in w.windowTitle() and "a.toml" not in w.windowTitle()
    assert recent_configs(QSettings()) == [cfg_b.resolve(), cfg_a.resolve(), gone.resolve()]  # a new reader

    menu = w.window_actions.recent_menu
    menu.aboutToShow.emit()
    entries = [a for a in menu.actions() if a.data()]
    assert [a.data() for a in entries] == [str(p) for p in (cfg_b.resolve(), cfg_a.resolve(), gone.resolve())]
    assert [a.isEnabled() for a in entries] == [True, True, False]
    assert "not found" in entries[2].text()
    assert sw.open_recent(gone.resolve()) is None  # a file no longer there: removed, with a note
    assert "no longer there" in w.status_line.last_message
    assert recent_configs(QSettings()) == [cfg_b.resolve(), cfg_a.resolve()]
    assert arun(sw.open_config(cfg_b)) is False and "already open" in w.status_line.last_message
    assert w.window_actions.open_config.shortcut().toString() == "Ctrl+Shift+O"
    assert c.close() == EXIT_OK


def test_the_recent_list_keeps_the_last_eight(tmp_path: Path) -> None:
    s = QSettings()
    paths = [tmp_path / f"c{i}.toml" for i in range(11)]
    for p in paths:
        remember_config(s, p)
    remember_config(s, paths[5])  # opened again: first, not twice
    want = [paths[5], *reversed(paths[6:]), paths[4], paths[3]]  # c5, c10..c6, c4, c3
    assert len(want) == RECENT_CONFIGS_MAX
    assert recent_configs(QSettings()) == [p.resolve() for p in want]
    forget_config(s, paths[5])
    assert paths[5].resolve() not in recent_configs(QSettings())


@pytest.mark.parametrize("trouble", ["held", "not-a-database"])
def test_a_workspace_that_cannot_start_says_so_and_the_previous_one_is_reopened(
    trouble: str, tmp_path: Path, slow_sim: ApiSimServer, api_sim: ApiSimServer, qapp: Any,
    qloop: asyncio.AbstractEventLoop, qtbot: Any, arun: ARun,
) -> None:
    data_a, data_b = tmp_path / "data-a", tmp_path / "data-b"
    cfg_a = _config(tmp_path / "a.toml", slow_sim.base_url, data_a, "writer")
    cfg_b = _config(tmp_path / "b.toml", api_sim.base_url, data_b, "drafter")
    c = Console(qapp, qloop, qtbot, cfg_a)
    w, sw = c.w, c.switcher
    res = w.submission.submit_rows_from_text("one\ntwo\nthree", "writer")
    assert res is not None
    qtbot.waitUntil(lambda: work_in_progress(w.scheduler) == (2, 1), timeout=20_000)
    sw.ask = lambda q: True
    failures: list[StartFailed] = []

    def reopen(f: StartFailed) -> StartFailedChoice:
        failures.append(f)
        return StartFailedChoice.REOPEN

    sw.ask_failed = reopen
    ws_b = Workspace.resolve(data_dir=data_b).ensure()
    if trouble == "held":  # another MediaDesk (e.g. `mediadesk run --db elsewhere`) holds B's data folder
        with InstanceLock(ws_b.data_dir):
            assert arun(sw.open_config(cfg_b), timeout=30) is False
    else:
        ws_b.db_path.write_bytes(b"this is not a MediaDesk database, just some bytes " * 100)
        assert arun(sw.open_config(cfg_b), timeout=30) is False
    assert len(failures) == 1 and "b.toml" in failures[0].target and "a.toml" in (failures[0].previous or "")
    want = "already running" if trouble == "held" else "cannot open the workspace"
    assert want in failures[0].error.title
    # A is back, in the same window, with its three tasks (the two that ran are queued again)
    assert w.scheduler.started and w.scheduler.workspace.data_dir == data_a.resolve()
    assert "a.toml" in w.windowTitle() and w.isEnabled()
    qtbot.waitUntil(lambda: w.feed.is_loaded and _model_ids(w) == set(res.added), timeout=20_000)
    qtbot.waitUntil(lambda: work_in_progress(w.scheduler) == (2, 1), timeout=20_000)
    if trouble == "not-a-database":
        assert ws_b.db_path.read_bytes().startswith(b"this is not")  # left as it was
    assert c.close() == EXIT_OK


def test_the_welcome_panels_open_goes_the_same_way(
    tmp_path: Path, api_sim: ApiSimServer, qapp: Any, qloop: asyncio.AbstractEventLoop, qtbot: Any, arun: ARun,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEDIADESK_DATA_DIR", str(tmp_path / "nothing-here"))
    cfg_a = _config(tmp_path / "a.toml", api_sim.base_url, tmp_path / "data-a", "writer")
    bad = _config(tmp_path / "bad.toml", api_sim.base_url, tmp_path / "data-b", "drafter",
                  extra='concurency = 3\n')
    picks = [bad, cfg_a]
    seen: dict[str, Any] = {}

    def on_welcome(panel: WelcomePanel) -> None:
        panel.choose_file = lambda: picks.pop(0)
        panel.choose_open()
        seen["error"] = panel.error_text()
        panel.choose_open()

    c = Console(qapp, qloop, qtbot, None, welcome=True, on_welcome=on_welcome)
    assert "concurency" in seen["error"]
    assert "a.toml" in c.w.windowTitle() and recent_configs(QSettings()) == [cfg_a.resolve()]
    assert c.close() == EXIT_OK


def test_the_real_switch_question_says_the_counts_and_cancel_is_the_default(
    tmp_path: Path, slow_sim: ApiSimServer, api_sim: ApiSimServer, qapp: Any, qloop: asyncio.AbstractEventLoop,
    qtbot: Any, arun: ARun,
) -> None:
    cfg_a = _config(tmp_path / "a.toml", slow_sim.base_url, tmp_path / "data-a", "writer")
    cfg_b = _config(tmp_path / "b.toml", api_sim.base_url, tmp_path / "data-b", "drafter")
    c = Console(qapp, qloop, qtbot, cfg_a)
    w = c.w
    a_sched = w.scheduler
    w.submission.submit_rows_from_text("one\ntwo\nthree", "writer")
    qtbot.waitUntil(lambda: work_in_progress(a_sched) == (2, 1), timeout=20_000)
    seen: dict[str, Any] = {}

    def answer() -> None:  # the operator presses Enter: the default button
        box = w.findChild(QMessageBox, "switchQuestion")
        if not isinstance(box, QMessageBox) or not box.isVisible():  # not shown yet: the switch is a task
            QTimer.singleShot(10, answer)
            return
        seen["text"] = box.text()
        seen["buttons"] = [b.text() for b in box.buttons()]
        default = box.defaultButton()
        assert default is not None
        seen["default"] = default.text()
        default.click()

    QTimer.singleShot(0, answer)
    assert arun(c.switcher.open_config(cfg_b)) is False
    assert "2 running, 1 pending." in seen["text"] and "resume when this workspace is opened again" in seen["text"]
    assert "Switch" in seen["buttons"] and seen["default"] == "Cancel"
    assert w.scheduler is a_sched and work_in_progress(a_sched) == (2, 1)
    assert c.close() == EXIT_OK


@pytest.mark.parametrize("answer", [StartFailedChoice.OTHER, StartFailedChoice.QUIT])
def test_after_a_failed_start_another_config_or_quit(
    answer: StartFailedChoice, tmp_path: Path, api_sim: ApiSimServer, qapp: Any, qloop: asyncio.AbstractEventLoop,
    qtbot: Any, arun: ARun,
) -> None:
    data_a, data_b, data_c = tmp_path / "data-a", tmp_path / "data-b", tmp_path / "data-c"
    cfg_a = _config(tmp_path / "a.toml", api_sim.base_url, data_a, "writer")
    cfg_b = _config(tmp_path / "b.toml", api_sim.base_url, data_b, "drafter")
    cfg_c = _config(tmp_path / "c.toml", api_sim.base_url, data_c, "third")
    c = Console(qapp, qloop, qtbot, cfg_a)
    w, sw = c.w, c.switcher
    asked: list[StartFailed] = []

    def ask_failed(f: StartFailed) -> StartFailedChoice:
        asked.append(f)
        return answer

    picks: list[Path | None] = [None, cfg_c]  # the file dialog cancelled once: the question comes again
    sw.ask_failed = ask_failed
    sw.choose_file = lambda: picks.pop(0)
    with InstanceLock(Workspace.resolve(data_dir=data_b).ensure().data_dir):
        assert arun(sw.open_config(cfg_b), timeout=30) is False
    assert len(sw.failures) == 1
    if answer is StartFailedChoice.OTHER:  # the window shows C
        assert len(asked) == 2 and picks == []
        assert w.scheduler.started and w.scheduler.workspace.data_dir == data_c.resolve()
        assert "c.toml" in w.windowTitle() and _lanes(w) == ["third"] and w.isEnabled()
        assert c.close() == EXIT_OK
    else:  # Quit: the console ends, nothing held (another MediaDesk can take A's folder and database)
        qtbot.waitUntil(c.run.done, timeout=30_000)
        assert c.run.result() == EXIT_OK and sw.gave_up
        ws_a = Workspace.resolve(data_dir=data_a)
        with InstanceLock(ws_a.data_dir), DatabaseLock(ws_a.db_path):
            pass


def test_the_window_does_not_close_halfway_through_a_switch(
    tmp_path: Path, api_sim: ApiSimServer, qapp: Any, qloop: asyncio.AbstractEventLoop, qtbot: Any, arun: ARun,
) -> None:
    data_a, data_b = tmp_path / "data-a", tmp_path / "data-b"
    cfg_a = _config(tmp_path / "a.toml", api_sim.base_url, data_a, "writer")
    cfg_b = _config(tmp_path / "b.toml", api_sim.base_url, data_b, "drafter")
    c = Console(qapp, qloop, qtbot, cfg_a)
    w, sw = c.w, c.switcher
    decided: asyncio.Future[StartFailedChoice] = qloop.create_future()
    sw.ask_failed = lambda f: decided  # the operator has not answered yet
    with InstanceLock(Workspace.resolve(data_dir=data_b).ensure().data_dir):
        switch = sw.open_later(cfg_b)
        assert switch is not None
        qtbot.waitUntil(lambda: len(sw.failures) == 1, timeout=20_000)
    assert sw.open_later(cfg_b) is None and "already under way" in w.status_line.last_message
    w.close()  # A is stopped, B did not start: closing now would leave nothing to reopen
    assert w.isVisible() and not c.run.done() and "Wait until" in w.status_line.last_message
    decided.set_result(StartFailedChoice.REOPEN)
    qtbot.waitUntil(switch.done, timeout=20_000)
    assert switch.result() is False and w.scheduler.started and w.scheduler.workspace.data_dir == data_a.resolve()
    assert c.close() == EXIT_OK


def test_from_the_demo_to_a_config_stops_the_demo_and_its_simulators(
    tmp_path: Path, api_sim: ApiSimServer, qapp: Any, qloop: asyncio.AbstractEventLoop, qtbot: Any, arun: ARun,
) -> None:
    """The demo (both simulators, its web accounts in real Chromium) is a workspace like any other."""
    cfg_b = _config(tmp_path / "b.toml", api_sim.base_url, tmp_path / "data-b", "drafter")
    c = Console(qapp, qloop, qtbot, None, demo=True, data_dir=tmp_path / "demo")
    w, sw = c.w, c.switcher
    demo_sched = w.scheduler
    assert w.act_demo.isVisible() and w.submission.dialog is not None
    assert sorted(_lanes(w)) == ["reasoner", "writer"] and recent_configs(QSettings()) == []
    demo_api = load_config(tmp_path / "demo" / "config.toml").profiles[0].base_url
    assert demo_api is not None

    async def reachable(url: str) -> bool:
        host, port = url.split("//")[1].split("/")[0].split(":")
        try:
            _r, wr = await asyncio.open_connection(host, int(port))
        except OSError:
            return False
        wr.close()
        await wr.wait_closed()
        return True

    assert arun(reachable(demo_api)) is True
    assert arun(sw.open_config(cfg_b), timeout=60) is True
    assert not demo_sched.started and arun(reachable(demo_api)) is False  # the demo's API simulator stopped
    assert _lanes(w) == ["drafter"] and w.web_panel.row_texts() == []
    assert not w.act_demo.isVisible() and w.submission.dialog is None and "b.toml" in w.windowTitle()
    assert recent_configs(QSettings()) == [cfg_b.resolve()]  # the demo is not a config to come back to
    assert c.close() == EXIT_OK


def test_setup_with_unsaved_edits_keeps_the_workspace_until_it_is_saved_or_closed(
    tmp_path: Path, api_sim: ApiSimServer, qapp: Any, qloop: asyncio.AbstractEventLoop, qtbot: Any, arun: ARun,
) -> None:
    cfg_a = _config(tmp_path / "a.toml", api_sim.base_url, tmp_path / "data-a", "writer")
    cfg_b = _config(tmp_path / "b.toml", api_sim.base_url, tmp_path / "data-b", "drafter")
    before = cfg_a.read_text(encoding="utf-8")
    c = Console(qapp, qloop, qtbot, cfg_a)
    w, sw = c.w, c.switcher
    a_sched = w.scheduler
    editor = w.open_setup_editor()
    assert editor is not None
    editor.entries.add_entry("profiles")  # an edit not saved yet
    assert editor.dirty
    assert arun(sw.open_config(cfg_b)) is False
    assert "not saved" in w.status_line.last_message and w.scheduler is a_sched and a_sched.started
    assert w.setup_editor is editor and editor.isVisible()

    editor.confirm_discard = lambda: True  # the operator closes Setup, discarding the edit
    editor.close()
    qtbot.waitUntil(lambda: w.setup_editor is None, timeout=5_000)
    assert arun(sw.open_config(cfg_b), timeout=30) is True and "b.toml" in w.windowTitle()
    assert cfg_a.read_text(encoding="utf-8") == before
    assert c.close() == EXIT_OK


@pytest.mark.parametrize("previous", ["/w/a.toml", None])
def test_the_real_failed_start_question_offers_the_previous_workspace_first(
    previous: str | None, qapp: Any, qloop: asyncio.AbstractEventLoop, qtbot: Any, arun: ARun,
) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    err = WorkspaceStartError("MediaDesk: database in use", "the database is used by pid 1", EXIT_BUSY)
    seen: dict[str, Any] = {}

    def answer() -> None:  # Enter: the default button
        box = parent.findChild(QMessageBox, "switchFailed")
        if not isinstance(box, QMessageBox) or not box.isVisible():
            QTimer.singleShot(10, answer)
            return
        seen["text"], seen["title"] = box.text(), box.windowTitle()
        seen["buttons"] = [b.text() for b in box.buttons()]
        default = box.defaultButton()
        assert default is not None
        default.click()

    QTimer.singleShot(0, answer)
    choice = arun(ask_start_failed(parent, StartFailed(err, "/w/b.toml", previous)))
    assert "/w/b.toml could not be opened" in seen["text"] and "pid 1" in seen["text"]
    assert seen["title"] == "MediaDesk: database in use" and "Quit" in seen["buttons"]
    if previous is not None:
        assert "Reopen /w/a.toml" in seen["buttons"] and choice is StartFailedChoice.REOPEN
    else:
        assert not any(b.startswith("Reopen") for b in seen["buttons"]) and choice is StartFailedChoice.OTHER


def test_setup_restart_lanes_applies_a_profile_change_without_closing_the_window(
    tmp_path: Path, api_sim: ApiSimServer, qapp: Any, qloop: asyncio.AbstractEventLoop, qtbot: Any, arun: ARun,
) -> None:
    """A change that cannot apply live (a new profile): Setup offers "Restart lanes"; the lanes stop
    cleanly and start again from the saved file, in the same window, and the new profile runs."""
    cfg = _config(tmp_path / "a.toml", api_sim.base_url, tmp_path / "data-a", "writer")
    c = Console(qapp, qloop, qtbot, cfg)
    w, sw = c.w, c.switcher
    before = w.scheduler
    dlg = w.open_setup_editor()
    assert dlg is not None and dlg.can_restart_lanes
    dlg.select("profiles", "writer")
    dlg.entries.duplicate_entry("profiles")  # "writer-copy": a lane the running scheduler does not have
    assert dlg.saver.save()
    assert "Restart lanes" in dlg.status.text() and "writer-copy" in dlg.status.text(), dlg.status.text()
    assert dlg.restart_button.isVisible()
    dlg.restart_button.click()
    qtbot.waitUntil(lambda: w.scheduler is not before and w.feed.is_loaded and not sw.busy, timeout=30_000)
    assert not before.started and w.scheduler.started
    assert sorted(w.scheduler.profile_names()) == ["writer", "writer-copy"]
    assert _lanes(w) == ["writer", "writer-copy"]
    assert "Lanes restarted" in w.status_line.last_message
    res = w.submission.submit_rows_from_text("on the new lane", "writer-copy")
    assert res is not None
    qtbot.waitUntil(lambda: w.model.state_of(res.added[0]) == "success", timeout=20_000)
    assert c.close() == EXIT_OK
