"""BatchDialog, AccountsPanel and ProfilesEditor (pytest-qt, offscreen).

The panels run against a real Scheduler on a tmp SQLite workspace, driven on the qasync loop from
``tests/ui/conftest.py`` (``qloop``/``arun``); web accounts and API endpoints are in-process
scripted backends (no browser, no network), so what is checked is the scheduling and the UI.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import (
    QCoreApplication,
    QLocale,
    QMimeData,
    QPoint,
    QPointF,
    Qt,
    QTimer,
    QTranslator,
    QUrl,
)
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QFontDatabase
from PySide6.QtWidgets import QApplication, QDialog, QLabel, QPlainTextEdit

from mediadesk.config.model import AccountConfig, ProfileConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import RunContext, TaskSpec
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.scheduler import ProfileView
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.dialogs import batch_dialog
from mediadesk.ui.dialogs.batch_dialog import BatchDialog
from mediadesk.ui.format import fmt_eta, health_label
from mediadesk.ui.panels.accounts_panel import AccountsPanel, DisableChoice, DisableQuestion
from mediadesk.ui.panels.profiles_editor import ProfilesEditor
from mediadesk.ui.style import apply_style, health_color, icon, is_dark, resources_dir, state_color
from tests.support import make_config, require

PROFILES = [
    ProfileView("writer", "api", False, 3),
    ProfileView("reasoner", "api", True, 2),
    ProfileView("chat", "web", False, 1),
]


# --------------------------------------------------------------------------- scheduler harness

class Backend:
    """One API endpoint or one web account, in-process: records specs, concurrency, cancels."""

    #: Optional LaneBackend abilities this stand-in has not got.
    attempt_deadline_s = None
    domain = None
    probe = None
    login = None
    unavailable_reason = None
    max_run_s = None
    check = None
    check_adapter = None
    resolve_challenge = None
    challenge_screenshot = None

    def __init__(self, capacity: int, delay_s: float = 0.03) -> None:
        self.capacity = capacity
        self.delay_s = delay_s
        self.health_status = "ready"
        self.error: str | None = None
        self.seen: list[TaskSpec] = []
        self.cancelled: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        pass

    def available(self) -> bool:
        return self.health_status in ("ready", "busy")

    def health(self) -> tuple[str, str | None]:
        return self.health_status, self.error

    async def run(self, task: TaskSpec, ctx: RunContext) -> str:
        self.seen.append(task)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay_s)
            return f"answer to {task.prompt}"
        except asyncio.CancelledError:
            self.cancelled.append(task.task_id)
            raise
        finally:
            self.in_flight -= 1


class Env:
    def __init__(self, workspace: Workspace, arun: Callable[..., Any]) -> None:
        self.workspace = workspace
        self.arun = arun
        self.config = make_config(
            [
                {"name": "writer", "kind": "api", "base_url": "http://127.0.0.1:9/v1", "model": "m",
                 "concurrency": 3, "instructions": "be brief"},
                {"name": "reasoner", "kind": "api", "base_url": "http://127.0.0.1:9/v1", "model": "m",
                 "concurrency": 2, "need_empty_prompt": True},
                {"name": "chat", "kind": "web", "site": "sim"},
            ],
            [{"name": "acct-a", "profile": "chat"}, {"name": "acct-b", "profile": "chat"}],
        )
        self.backends: dict[str, Backend] = {}
        self.running: list[Scheduler] = []

    def _factory(self, prof: ProfileConfig, acc: AccountConfig | None) -> Backend:
        key = acc.name if acc is not None else prof.name
        self.backends[key] = Backend(1 if acc is not None else prof.api_concurrency)
        return self.backends[key]

    def start(self) -> Scheduler:
        s = Scheduler(self.config, self.workspace, backend_factory=self._factory)
        self.arun(s.start())
        self.running.append(s)
        return s

    def stop(self, s: Scheduler) -> None:
        self.running.remove(s)
        self.arun(s.stop(), timeout=20)

    def idle(self, s: Scheduler) -> None:
        self.arun(asyncio.wait_for(s.wait_idle(0.05), 20), timeout=25)


@pytest.fixture
def env(tmp_path: Path, qloop: asyncio.AbstractEventLoop, arun: Callable[..., Any]) -> Iterator[Env]:
    e = Env(Workspace.resolve(data_dir=tmp_path / "data").ensure(), arun)
    yield e
    for s in list(e.running):
        e.stop(s)


def _lane(s: Scheduler, name: str) -> Any:
    return next(lane for lane in s.lanes if lane.name == name)


# --------------------------------------------------------------------------- BatchDialog

def _jsonl(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def dialog(qtbot: Any, qloop: asyncio.AbstractEventLoop) -> BatchDialog:
    dlg = BatchDialog(PROFILES)
    qtbot.addWidget(dlg)
    return dlg


def test_file_preview_shows_row_errors_and_submits_valid_rows(dialog: BatchDialog, qtbot: Any,
                                                              tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "batch.jsonl", [
        json.dumps({"profile": "writer", "prompt": "hello\nworld"}),
        json.dumps({"profile": "writer", "prompt": "x", "priority": "high"}),
        "",
        json.dumps({"profile": "nope", "prompt": "y"}),
        "not json at all",
        json.dumps({"profile": "chat", "prompt": "web one", "priority": 5, "id": "w1"}),
    ])
    with qtbot.waitSignal(dialog.parsed, timeout=10_000):
        dialog.load_file(path)
    assert not dialog.is_busy()
    assert dialog.summary_text() == "2 valid, 3 errors"
    assert dialog.submit_button().isEnabled()
    assert dialog.submit_button().text() == "Submit 2 tasks"

    model = dialog.preview_model()
    assert model.rowCount() == 5
    lines = [model.data(model.index(r, 0)) for r in range(5)]
    assert lines == [1, 2, 4, 5, 6]  # file order, blank line skipped
    status = {model.data(model.index(r, 0)): model.data(model.index(r, 4)) for r in range(5)}
    assert status[1] == "OK" and status[6] == "OK"
    assert "priority" in status[2]
    assert "unknown profile 'nope'" in status[4]
    assert "invalid JSON" in status[5]
    assert model.data(model.index(1, 0), Qt.ItemDataRole.BackgroundRole) is not None  # error highlighted
    assert model.data(model.index(0, 0), Qt.ItemDataRole.BackgroundRole) is None
    assert "⏎" in model.data(model.index(0, 3))  # a multi-line prompt stays on one table line

    dialog.set_errors_only(True)
    assert [model.data(model.index(r, 0)) for r in range(model.rowCount())] == [2, 4, 5]
    dialog.set_errors_only(False)
    assert model.rowCount() == 5

    assert [e.line for e in dialog.errors()] == [2, 4, 5]
    dialog.accept()
    assert dialog.result() == QDialog.DialogCode.Accepted
    rows = dialog.rows()
    assert [(r.line, r.profile, r.priority, r.id) for r in rows] == [(1, "writer", 0, None), (6, "chat", 5, "w1")]
    assert rows[0].prompt == "hello\nworld"
    assert dialog.source_name() == "batch.jsonl"


def test_no_valid_rows_means_no_submit(dialog: BatchDialog, qtbot: Any, tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("profile,prompt\nnope,a\nwriter,\n", encoding="utf-8")
    with qtbot.waitSignal(dialog.parsed, timeout=10_000):
        dialog.load_file(path)
    assert dialog.summary_text() == "0 valid, 2 errors"
    assert not dialog.submit_button().isEnabled()
    assert dialog.submit_button().text() == "Submit 0 tasks"
    dialog.accept()  # e.g. Enter pressed: must not close with nothing to submit
    assert dialog.result() != QDialog.DialogCode.Accepted
    assert dialog.rows() == []


def test_a_file_not_in_utf8_says_its_encoding(dialog: BatchDialog, qtbot: Any, tmp_path: Path) -> None:
    path = tmp_path / "excel.csv"
    path.write_bytes("profile,prompt\r\nwriter,写一首诗\r\nnope,x\r\n".encode("gb18030"))  # Excel on Chinese Windows
    with qtbot.waitSignal(dialog.parsed, timeout=10_000):
        dialog.load_file(path)
    assert dialog.summary_text() == "1 valid, 1 errors, read as GB18030"
    assert [r.prompt for r in dialog.rows()] == ["写一首诗"]


def test_missing_file_is_reported_not_raised(dialog: BatchDialog, qtbot: Any, tmp_path: Path) -> None:
    with qtbot.waitSignal(dialog.parsed, timeout=10_000):
        dialog.load_file(tmp_path / "nowhere.jsonl")
    assert "not found" in (dialog.load_error() or "")
    assert not dialog.submit_button().isEnabled()
    assert dialog.rows() == []


def test_pasted_prompts(dialog: BatchDialog, qtbot: Any) -> None:
    with qtbot.waitSignal(dialog.parsed, timeout=10_000):
        dialog.set_pasted("first\n\n  second  \nthird", "reasoner", 7, system="sys")
    rows = dialog.rows()
    assert [(r.line, r.prompt, r.profile, r.priority, r.system) for r in rows] == [
        (1, "first", "reasoner", 7, "sys"), (3, "second", "reasoner", 7, "sys"), (4, "third", "reasoner", 7, "sys"),
    ]
    assert dialog.source_name() is None
    assert dialog.submit_button().text() == "Submit 3 tasks"
    with pytest.raises(ValueError, match="unknown profile 'no-such-profile'"):
        dialog.set_pasted("x", "no-such-profile", 0)

    with qtbot.waitSignal(dialog.parsed, timeout=10_000):
        dialog.set_pasted("only one", "writer", 0)
    assert dialog.submit_button().text() == "Submit 1 task"
    assert dialog.rows()[0].system is None  # empty instructions field = the profile's default


def test_pasted_over_the_limit_is_a_row_error(qtbot: Any, qloop: asyncio.AbstractEventLoop) -> None:
    dlg = BatchDialog(PROFILES, max_prompt_chars=10)
    qtbot.addWidget(dlg)
    with qtbot.waitSignal(dlg.parsed, timeout=10_000):
        dlg.set_pasted("short\n" + "y" * 11, "writer", 0)
    assert [r.prompt for r in dlg.rows()] == ["short"]
    assert [e.line for e in dlg.errors()] == [2]
    assert dlg.summary_text() == "1 valid, 1 errors"


def _drag_events(path: Path) -> tuple[QMimeData, QDragEnterEvent, QDropEvent]:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    enter = QDragEnterEvent(QPoint(5, 5), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    drop = QDropEvent(QPointF(5, 5), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    return mime, enter, drop


def test_drop_a_file_on_the_dialog(dialog: BatchDialog, qtbot: Any, tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "dropped.jsonl", [json.dumps({"profile": "writer", "prompt": f"p{i}"}) for i in range(3)])
    _mime, enter, drop = _drag_events(path)
    QApplication.sendEvent(dialog, enter)
    assert enter.isAccepted()
    with qtbot.waitSignal(dialog.parsed, timeout=10_000):
        QApplication.sendEvent(dialog, drop)
    assert drop.isAccepted()
    assert dialog.source_name() == "dropped.jsonl"
    assert len(dialog.rows()) == 3

    # Plain text dragged in is not a file: refused.
    text = QMimeData()
    text.setText("hello")
    refuse = QDragEnterEvent(QPoint(5, 5), Qt.DropAction.CopyAction, text, Qt.MouseButton.LeftButton,
                             Qt.KeyboardModifier.NoModifier)
    refuse.ignore()
    QApplication.sendEvent(dialog, refuse)
    assert not refuse.isAccepted()


def test_drop_on_the_paste_box_loads_the_file_instead_of_its_url(dialog: BatchDialog, qtbot: Any,
                                                                 tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "onbox.jsonl", [json.dumps({"profile": "chat", "prompt": "q"})])
    with qtbot.waitSignal(dialog.parsed, timeout=10_000):
        dialog.set_pasted("typed prompt", "writer", 0)
    edit = dialog.findChild(QPlainTextEdit)
    assert edit is not None
    _mime, enter, drop = _drag_events(path)
    QApplication.sendEvent(edit.viewport(), enter)
    with qtbot.waitSignal(dialog.parsed, timeout=10_000):
        QApplication.sendEvent(edit.viewport(), drop)
    assert edit.toPlainText() == "typed prompt"
    assert dialog.source_name() == "onbox.jsonl"
    assert [r.prompt for r in dialog.rows()] == ["q"]


def test_large_file_parses_off_the_gui_thread(dialog: BatchDialog, qtbot: Any, tmp_path: Path) -> None:
    n = 20_000
    lines = [json.dumps({"profile": "writer", "prompt": f"prompt number {i} " + "lorem ipsum " * 20})
             for i in range(n)]
    lines[100] = "{broken"
    path = _jsonl(tmp_path / "big.jsonl", lines)

    ticks_while_parsing = 0

    def tick() -> None:
        nonlocal ticks_while_parsing
        if dialog.is_busy():
            ticks_while_parsing += 1

    timer = QTimer()
    timer.setInterval(0)
    timer.timeout.connect(tick)
    timer.start()
    try:
        with qtbot.waitSignal(dialog.parsed, timeout=60_000):
            dialog.load_file(path)
            assert dialog.is_busy()  # load_file returned before the parse finished
            assert not dialog.submit_button().isEnabled()
    finally:
        timer.stop()
    assert ticks_while_parsing >= 1  # the GUI thread kept running its timers during the parse
    assert len(dialog.rows()) == n - 1
    assert [e.line for e in dialog.errors()] == [101]
    assert dialog.submit_button().isEnabled()


class ParseGate:
    """Holds the parse of the files named in ``held`` in its worker thread until ``release`` is
    set (so a test decides which result arrives last)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.held: set[str] = set()
        self.release = threading.Event()
        self.entered = threading.Event()
        real = batch_dialog.parse_batch_file

        def gated(path: Path, **kw: Any) -> Any:
            if Path(path).name in self.held:
                self.entered.set()
                assert self.release.wait(30), "parse gate never released"
            return real(path, **kw)

        monkeypatch.setattr(batch_dialog, "parse_batch_file", gated)


@pytest.fixture
def parse_gate(qloop: asyncio.AbstractEventLoop, monkeypatch: pytest.MonkeyPatch) -> Iterator[ParseGate]:
    gate = ParseGate(monkeypatch)
    yield gate
    gate.release.set()  # before the loop's teardown waits for the jobs


def test_superseded_parse_is_dropped(dialog: BatchDialog, qtbot: Any, tmp_path: Path, parse_gate: ParseGate) -> None:
    first = _jsonl(tmp_path / "first.jsonl", [json.dumps({"profile": "writer", "prompt": "a"})] * 3)
    second = _jsonl(tmp_path / "second.jsonl", [json.dumps({"profile": "writer", "prompt": "b"})])
    gate = parse_gate
    gate.held.add("first.jsonl")
    dialog.load_file(first)
    qtbot.waitUntil(gate.entered.is_set, timeout=10_000)  # the first parse is held in its thread
    with qtbot.waitSignal(dialog.parsed, timeout=10_000):
        dialog.load_file(second)
    assert dialog.source_name() == "second.jsonl"
    gate.release.set()
    # The positive event: the first parse's job has ended (its result was handed back or dropped).
    qtbot.waitUntil(lambda: len(dialog.jobs) == 0, timeout=10_000)
    assert dialog.source_name() == "second.jsonl"
    assert [r.prompt for r in dialog.rows()] == ["b"]


def test_result_arriving_after_the_dialog_is_gone_is_dropped(qtbot: Any, tmp_path: Path, parse_gate: ParseGate,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    path = _jsonl(tmp_path / "late.jsonl", [json.dumps({"profile": "writer", "prompt": f"p{i}"}) for i in range(50)])
    gate = parse_gate
    gate.held.add("late.jsonl")
    other = BatchDialog(PROFILES)  # a second dialog must not receive the first one's result
    qtbot.addWidget(other)
    dlg = BatchDialog(PROFILES)
    jobs = dlg.jobs
    dlg.load_file(path)
    qtbot.waitUntil(gate.entered.is_set, timeout=10_000)
    dlg.deleteLater()
    qtbot.waitUntil(lambda: not shiboken6.isValid(dlg), timeout=5000)
    gate.release.set()
    # The positive event: the gone dialog's parse job has ended; its result had nowhere to go.
    qtbot.waitUntil(lambda: len(jobs) == 0, timeout=10_000)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert other.rows() == [] and other.source_name() is None
    gate.held.clear()
    with qtbot.waitSignal(other.parsed, timeout=10_000):
        other.load_file(path)
    assert len(other.rows()) == 50


def _lrelease() -> Path | None:
    exe = Path(sys.executable).with_name("pyside6-lrelease")
    return exe if exe.exists() else (Path(p) if (p := shutil.which("pyside6-lrelease")) else None)


def test_chinese_translation_applies_to_the_dialogs(qtbot: Any, tmp_path: Path) -> None:
    ts = resources_dir() / "i18n" / "mediadesk_zh_CN.ts"
    tool = _lrelease()
    require(tool is not None, "pyside6-lrelease is not installed (it comes with PySide6-Essentials)")
    assert tool is not None
    qm = tmp_path / "mediadesk_zh_CN.qm"
    subprocess.run([str(tool), str(ts), "-qm", str(qm)], check=True, capture_output=True, timeout=60)
    tr = QTranslator()
    assert tr.load(QLocale(QLocale.Language.Chinese, QLocale.Country.China), "mediadesk", "_", str(tmp_path))
    QCoreApplication.installTranslator(tr)
    try:
        dlg = BatchDialog(PROFILES)
        qtbot.addWidget(dlg)
        assert dlg.windowTitle() == "提交批次"
        assert dlg.summary_text() == "尚未暂存任何内容"
        # strings of the plain formatting functions (context "Format") are translated too
        assert health_label("needs_login") == "需要登录"
        assert fmt_eta(30) == "30 秒"
    finally:
        QCoreApplication.removeTranslator(tr)


def test_icons_exist_and_render(qapp: Any) -> None:
    for name in ("submit", "start", "pause", "cancel", "retry", "export", "login", "account", "profile"):
        ic = icon(name)
        assert not ic.isNull(), name
        assert not ic.pixmap(24, 24).isNull(), name


# --------------------------------------------------------------------------- AccountsPanel

def _answer(asked: list[tuple[str, int]], choice: DisableChoice) -> Callable[[DisableQuestion], DisableChoice]:
    """A scripted operator for the disable question: records (account, running count) and answers."""

    def confirm(question: DisableQuestion) -> DisableChoice:
        asked.append((question.account, len(question.running)))
        return choice

    return confirm


def _accounts_of(env: Env, ids: list[str]) -> dict[str, str | None]:
    s = env.running[0]
    return {i: s.store.get(i).account for i in ids}  # type: ignore[union-attr]


def test_switch_off_stops_dispatch_to_that_account_and_persists(env: Env, qtbot: Any) -> None:
    s = env.start()
    bridge = SchedulerBridge(s.bus)
    panel = AccountsPanel(s, bridge)
    qtbot.addWidget(panel)
    panel.show()
    asked: list[tuple[str, int]] = []
    panel.confirm = _answer(asked, DisableChoice.KEEP)
    assert panel.accounts() == ["acct-a", "acct-b"]
    assert panel.switch("acct-b").isChecked()

    early = [f"early{i}" for i in range(4)]
    s.intake.submit([s.intake.new_task(t, "chat", t) for t in early])
    env.idle(s)
    assert set(_accounts_of(env, early).values()) == {"acct-a", "acct-b"}  # both took work before

    qtbot.mouseClick(panel.switch("acct-b"), Qt.MouseButton.LeftButton)
    assert asked == []  # nothing was running: no question
    assert not panel.switch("acct-b").isChecked()
    assert _lane(s, "web:acct-b").enabled is False
    assert panel.status_text("acct-b") == "disabled"

    late = [f"late{i}" for i in range(6)]
    s.intake.submit([s.intake.new_task(t, "chat", t) for t in late])
    env.idle(s)
    assert set(_accounts_of(env, late).values()) == {"acct-a"}
    assert {s.store.get(t).state for t in late} == {"success"}  # type: ignore[union-attr]
    assert not any(sp.task_id in late for sp in env.backends["acct-b"].seen)

    # Persisted: a new scheduler on the same database starts with acct-b off.
    bridge.detach()
    env.stop(s)
    s2 = env.start()
    panel2 = AccountsPanel(s2, SchedulerBridge(s2.bus))
    qtbot.addWidget(panel2)
    assert panel2.switch("acct-a").isChecked()
    assert not panel2.switch("acct-b").isChecked()
    assert _lane(s2, "web:acct-b").enabled is False
    assert panel2.status_text("acct-b") == "disabled"

    qtbot.mouseClick(panel2.switch("acct-b"), Qt.MouseButton.LeftButton)  # and back on
    assert panel2.switch("acct-b").isChecked()
    assert _lane(s2, "web:acct-b").enabled is True


def test_health_updates_from_events_and_never_flips_the_switch(env: Env, qtbot: Any) -> None:
    s = env.start()
    panel = AccountsPanel(s, SchedulerBridge(s.bus))
    qtbot.addWidget(panel)
    assert panel.status_text("acct-a") == "ready"
    err = "logged out at 12:03: the site shows its login page again " + "(details) " * 20
    lane = _lane(s, "web:acct-a")
    env.backends["acct-a"].health_status = "needs_login"
    env.backends["acct-a"].error = err
    lane.on_stats_dirty(lane)  # its health is read at the next quarter-second tick, not the idle 2 s refresh
    qtbot.waitUntil(lambda: panel.status_text("acct-a") == "needs login", timeout=10_000)
    assert panel.last_error_text("acct-a") == err  # full text in the tooltip
    assert panel.switch("acct-a").isChecked()  # health is not the operator's switch
    assert _lane(s, "web:acct-a").enabled is True

    env.backends["acct-a"].health_status = "ready"
    env.backends["acct-a"].error = None
    lane.on_stats_dirty(lane)
    qtbot.waitUntil(lambda: panel.status_text("acct-a") == "ready", timeout=10_000)
    assert panel.last_error_text("acct-a") == ""

    # A running task shows as busy (lane stats), whatever the raw backend health says.
    env.backends["acct-a"].delay_s = 30
    s.set_account_enabled("acct-b", False)
    s.intake.submit([s.intake.new_task("slow", "chat", "x")])
    qtbot.waitUntil(lambda: panel.status_text("acct-a").startswith("busy"), timeout=10_000)
    assert panel.status_text("acct-b") == "disabled"
    assert not panel.switch("acct-b").isChecked()  # reflected from the AccountChanged event


def test_disable_with_a_running_task_asks_keep_then_cancel(env: Env, qtbot: Any) -> None:
    s = env.start()
    panel = AccountsPanel(s, SchedulerBridge(s.bus))
    qtbot.addWidget(panel)
    panel.show()
    s.set_account_enabled("acct-a", False)  # so the task lands on acct-b
    env.backends["acct-b"].delay_s = 60
    s.intake.submit([s.intake.new_task("long", "chat", "think hard")])
    lane_b = _lane(s, "web:acct-b")
    qtbot.waitUntil(lambda: lane_b.running_count == 1, timeout=10_000)

    asked: list[tuple[str, int]] = []
    panel.confirm = _answer(asked, DisableChoice.KEEP)
    qtbot.mouseClick(panel.switch("acct-b"), Qt.MouseButton.LeftButton)
    assert asked == [("acct-b", 1)]
    assert panel.switch("acct-b").isChecked()  # kept
    assert lane_b.enabled is True
    assert s.store.get("long").state == "running"  # type: ignore[union-attr]

    panel.confirm = _answer(asked, DisableChoice.CANCEL)
    qtbot.mouseClick(panel.switch("acct-b"), Qt.MouseButton.LeftButton)
    assert len(asked) == 2
    assert not panel.switch("acct-b").isChecked()
    assert lane_b.enabled is False
    qtbot.waitUntil(lambda: s.store.get("long").state == "canceled", timeout=10_000)  # type: ignore[union-attr]
    assert env.backends["acct-b"].cancelled == ["long"]


def test_disable_with_a_running_task_can_let_it_finish(env: Env, qtbot: Any) -> None:
    s = env.start()
    panel = AccountsPanel(s, SchedulerBridge(s.bus))
    qtbot.addWidget(panel)
    panel.show()
    s.set_account_enabled("acct-a", False)
    env.backends["acct-b"].delay_s = 0.5
    s.intake.submit([s.intake.new_task("t1", "chat", "x"), s.intake.new_task("t2", "chat", "y")])
    lane_b = _lane(s, "web:acct-b")
    qtbot.waitUntil(lambda: lane_b.running_count == 1, timeout=10_000)
    first = lane_b.stats().running[0].task_id
    panel.confirm = _answer([], DisableChoice.FINISH)
    qtbot.mouseClick(panel.switch("acct-b"), Qt.MouseButton.LeftButton)
    assert lane_b.enabled is False
    other = "t2" if first == "t1" else "t1"
    qtbot.waitUntil(lambda: s.store.get(first).state == "success", timeout=10_000)  # type: ignore[union-attr]
    assert s.store.get(other).state == "pending"  # type: ignore[union-attr]  # nobody enabled to take it


def test_login_button_runs_the_login_coroutine(env: Env, qtbot: Any) -> None:
    s = env.start()
    calls: list[str] = []

    async def login(account: str) -> None:
        calls.append(account)
        await asyncio.sleep(0.05)
        if account == "acct-b":
            raise RuntimeError("browser window closed")

    panel = AccountsPanel(s, SchedulerBridge(s.bus), login=login)
    qtbot.addWidget(panel)
    panel.show()
    button = panel.login_button("acct-a")
    assert button.isEnabled()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert not button.isEnabled()  # one login at a time per account
    qtbot.waitUntil(lambda: calls == ["acct-a"] and button.isEnabled(), timeout=10_000)
    assert panel.message() == ""

    qtbot.mouseClick(panel.login_button("acct-b"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "browser window closed" in panel.message(), timeout=10_000)
    assert panel.login_button("acct-b").isEnabled()

    no_login = AccountsPanel(s, SchedulerBridge(s.bus))
    qtbot.addWidget(no_login)
    assert not no_login.login_button("acct-a").isEnabled()


# --------------------------------------------------------------------------- ProfilesEditor

def test_need_empty_prompt_toggle_persists_and_applies_to_next_dispatch(env: Env, qtbot: Any) -> None:
    s = env.start()
    editor = ProfilesEditor(s, SchedulerBridge(s.bus))
    qtbot.addWidget(editor)
    editor.show()
    assert editor.profiles() == ["writer", "reasoner", "chat"]
    switch = editor.need_empty_prompt_switch("writer")
    assert not switch.isChecked()
    assert "no instructions" in switch.toolTip()

    s.intake.submit([s.intake.new_task("before", "writer", "q")])
    env.idle(s)
    qtbot.mouseClick(switch, Qt.MouseButton.LeftButton)
    assert switch.isChecked()
    assert s.profile_view("writer").need_empty_prompt is True
    s.intake.submit([s.intake.new_task("after", "writer", "q")])
    env.idle(s)
    specs = {sp.task_id: sp for sp in env.backends["writer"].seen}
    assert specs["before"].effective_instructions() == "be brief"
    assert specs["after"].need_empty_prompt is True
    assert specs["after"].effective_instructions() is None

    env.stop(s)  # persisted: a new scheduler on the same database keeps it
    s2 = env.start()
    assert s2.profile_view("writer").need_empty_prompt is True
    editor2 = ProfilesEditor(s2, SchedulerBridge(s2.bus))
    qtbot.addWidget(editor2)
    assert editor2.need_empty_prompt_switch("writer").isChecked()
    assert editor2.need_empty_prompt_switch("reasoner").isChecked()  # from the config


def test_concurrency_spin_changes_lane_capacity(env: Env, qtbot: Any) -> None:
    s = env.start()
    editor = ProfilesEditor(s, SchedulerBridge(s.bus))
    qtbot.addWidget(editor)
    spin = editor.concurrency_spin("writer")
    assert spin is not None
    assert (spin.minimum(), spin.maximum(), spin.value()) == (1, 5, 3)
    spin.setValue(1)
    assert _lane(s, "api:writer").capacity == 1
    assert s.profile_view("writer").concurrency == 1
    env.backends["writer"].delay_s = 0.05
    s.intake.submit([s.intake.new_task(f"c{i}", "writer", f"q{i}") for i in range(5)])
    env.idle(s)
    assert env.backends["writer"].max_in_flight == 1
    spin.setValue(5)
    assert _lane(s, "api:writer").capacity == 5
    assert s.store.profile_settings()["writer"][1] == 5


def test_editor_reflects_profile_changed_events(env: Env, qtbot: Any) -> None:
    s = env.start()
    editor = ProfilesEditor(s, SchedulerBridge(s.bus))
    qtbot.addWidget(editor)
    assert editor.need_empty_prompt_switch("reasoner").isChecked()
    s.set_profile_setting("reasoner", need_empty_prompt=False, concurrency=4)  # e.g. from another view
    assert not editor.need_empty_prompt_switch("reasoner").isChecked()
    spin = editor.concurrency_spin("reasoner")
    assert spin is not None and spin.value() == 4


def test_web_profile_concurrency_is_read_only_and_says_why(env: Env, qtbot: Any) -> None:
    s = env.start()
    editor = ProfilesEditor(s, SchedulerBridge(s.bus))
    qtbot.addWidget(editor)
    assert editor.concurrency_spin("chat") is None
    cell = editor.concurrency_widget("chat")
    assert isinstance(cell, QLabel)
    assert cell.text() == "1 per account"
    assert "one generation at a time" in cell.toolTip()
    assert "Add accounts" in cell.toolTip()
    # The web profile still has its own need_empty_prompt switch.
    qtbot.mouseClick(editor.need_empty_prompt_switch("chat"), Qt.MouseButton.LeftButton)
    assert s.profile_view("chat").need_empty_prompt is True


def test_apply_style_and_colours(qapp: Any) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    old_style, old_palette = app.style().name(), app.palette()
    try:
        apply_style(app)
        assert app.style().name().lower() == "fusion"
        scheme = app.styleHints().colorScheme()
        if scheme == Qt.ColorScheme.Dark:
            assert is_dark()
        elif scheme == Qt.ColorScheme.Light:
            assert not is_dark()
    finally:
        app.setStyle(old_style)
        app.setPalette(old_palette)
    states = ("pending", "running", "stalled", "success", "failed", "canceled")
    light = {state_color(s, False).name() for s in states}
    assert len(light) == len(states)  # every state has its own colour
    for s in states:  # dark-theme variants are lighter, for contrast on a dark base
        assert state_color(s, True).lightness() > state_color(s, False).lightness()
    assert health_color("needs_login", False) != health_color("ready", False)
    assert state_color("no-such-state", False).isValid()


def test_the_fonts_the_console_needs_are_reported_only_when_missing(qapp: Any) -> None:
    from mediadesk.ui.style import missing_fonts

    have_cjk = bool(QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese))
    have_emoji = any("emoji" in f.lower() for f in QFontDatabase.families())
    advice = missing_fonts()
    assert any("fonts-noto-cjk" in a for a in advice) is not have_cjk
    assert any("fonts-noto-color-emoji" in a for a in advice) is not have_emoji
