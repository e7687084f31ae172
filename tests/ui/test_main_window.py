"""The main window end to end: real Scheduler, real ApiSimServer on 127.0.0.1, real SQLite, offscreen.

Web lanes run the in-process FakeWebBackend from conftest (no browser); everything else is real.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QItemSelectionModel, QMimeData, QPointF, QSettings, Qt, QTimer, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication

from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.events import EventBus, TaskLogLine
from mediadesk.store import DatabaseLock, LogLine, TaskReader
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.app.start import EXIT_BUSY, EXIT_CONFIG, EXIT_OK, console_main
from mediadesk.ui.panels.detail_pane import DetailPane, linkify_paths
from mediadesk.ui.panels.log_dock import LogDock
from mediadesk.ui.window.main_window import MainWindow
from tests.support import wait_progressing
from tests.ui.conftest import ARun, ConsoleEnv, open_window

REPO = Path(__file__).resolve().parents[2]


def db_states(env: ConsoleEnv) -> dict[str, str]:
    r = TaskReader(env.workspace.db_path)
    try:
        return {t.task_id: t.state for t in r.iter_tasks()}
    finally:
        r.close()


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def window(console_scheduler: Scheduler, qtbot: Any, arun: ARun, settings: QSettings) -> Iterator[MainWindow]:
    # Not qtbot.addWidget: pytest-qt closes and deletes registered widgets BEFORE fixture teardown,
    # i.e. while the window's background jobs still run. The app's order is: aclose, then delete.
    with open_window(console_scheduler, arun, settings) as w:
        yield w


def publish_soon(s: Scheduler, account: str) -> None:
    """``account``'s lane publishes its stats (its health with them) at the next quarter-second tick, as a
    lane whose numbers moved asks, not at the idle refresh every 2 s: a health the test set is seen sooner."""
    lane = next(ln for ln in s.lanes if ln.account == account)
    lane.on_stats_dirty(lane)


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def select_tasks(w: MainWindow, ids: list[str]) -> None:
    sel = w.table.selectionModel()
    sel.clearSelection()
    w.model.flush()
    deadline = time.monotonic() + 15
    # New rows reach the model from a worker-thread read; let the loop deliver them first.
    while any(w.model.row_of(t) is None for t in ids) and time.monotonic() < deadline:
        QApplication.processEvents()
        time.sleep(0.01)
        w.model.flush()
    for tid in ids:
        row = w.model.row_of(tid)
        assert row is not None, tid
        idx = w.proxy.mapFromSource(w.model.index(row, 0))
        sel.select(idx, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)


def wait_states(qtbot: Any, env: ConsoleEnv, expected: dict[str, str], timeout: int = 15_000) -> None:
    """Wait until the tasks of ``expected`` are in those states, for as long as their states move:
    ``timeout`` (ms) is how long NOTHING may change, not a budget for the whole batch (a loaded
    machine makes a batch slower, never stuck)."""
    def seen() -> dict[str, str | None]:
        states = db_states(env)
        return {k: states.get(k) for k in expected}

    wait_progressing(qtbot, lambda: seen() == expected, lambda: tuple(seen().values()),
                     f"{len(expected)} task(s) to reach their states", stall_s=max(timeout / 1000, 30.0))


# --------------------------------------------------------------------------------------------- tests

def test_submit_batch_through_dialog_runs_to_100_percent(window: MainWindow, console_env: ConsoleEnv,
                                                         qtbot: Any, tmp_path: Path) -> None:
    rows = [{"profile": "writer", "prompt": f"写一句话 {i}"} for i in range(30)]
    rows += [{"profile": "reasoner", "prompt": f"think {i}", "id": f"r-{i}"} for i in range(10)]
    rows += [{"profile": "chat", "prompt": f"网页问题 {i}"} for i in range(6)]
    path = write_jsonl(tmp_path / "batch.jsonl", rows)
    dlg = window.submission.open_batch_dialog(path)
    qtbot.waitUntil(lambda: not dlg.is_busy() and len(dlg.rows()) == 46, timeout=10_000)
    dlg.accept()
    api, web = window.api_panel, window.web_panel
    wait_progressing(qtbot, lambda: api.progress.maximum() == 40 and api.progress.value() == 40,
                     api.progress.value, "the API lane's 40 tasks")
    wait_progressing(qtbot, lambda: web.progress.maximum() == 6 and web.progress.value() == 6,
                     web.progress.value, "the web lane's 6 tasks")
    states = db_states(console_env)
    assert len(states) == 46 and set(states.values()) == {"success"}
    assert api.counts()["success"] == 40 and api.counts()["pending"] == 0
    assert web.counts()["success"] == 6 and web.counts()["pending"] == 0
    assert window.model.rowCount() == 46
    runs = console_env.web_backends
    assert len(runs["acct-a"].runs) + len(runs["acct-b"].runs) == 6  # web rows went to the web lane only
    assert "Submitted 46 tasks" in window.status_line.last_message
    # the log dock carries lane prefixes
    qtbot.waitUntil(lambda: any("[api:writer]" in ln for ln in window.log_dock.lines()), timeout=5_000)
    # after the first runs the ETA is idle/0 and the throughput is positive
    api.refresh()
    assert "tasks/min" in api.eta_text()
    assert api.throughput() > 0


def test_detail_pane_shows_result_and_live_log(window: MainWindow, console_env: ConsoleEnv, qtbot: Any) -> None:
    res = window.submission.submit_rows_from_text("hello detail", "writer")
    assert res is not None and len(res.added) == 1
    tid = res.added[0]
    wait_states(qtbot, console_env, {tid: "success"})
    select_tasks(window, [tid])
    window.table.setCurrentIndex(window.proxy.mapFromSource(window.model.index(window.model.row_of(tid) or 0, 0)))
    d = window.detail
    qtbot.waitUntil(lambda: d.record is not None and d.record.state == "success", timeout=5_000)
    assert d.prompt_view.toPlainText() == "hello detail"
    assert d.result_view.toPlainText() == "答复: hello detail ✅"
    assert d.copy_button.isEnabled()
    d.copy_result()
    assert QApplication.clipboard().text() == "答复: hello detail ✅"
    # the store writes its own lines in batches: they show up within a second
    qtbot.waitUntil(lambda: "success in" in d.log_text(), timeout=5_000)
    log = d.log_text()
    assert "[api:writer] attempt 1 started" in log
    assert "[api:writer] POST /chat/completions" in log  # a backend line (live on the bridge too)
    assert log.count("attempt 1 started") == 1  # merged, not duplicated


def test_cancel_pending_and_running_from_the_table(window: MainWindow, console_env: ConsoleEnv,
                                                    console_scheduler: Scheduler, qtbot: Any) -> None:
    # reasoner runs 2 at a time: two hang (running), the third waits (pending)
    ids = [f"h{i}" for i in range(3)]
    intake = console_scheduler.intake
    intake.submit([intake.new_task(t, "reasoner", f"[[sim:hang]] {t}") for t in ids])
    qtbot.waitUntil(lambda: sorted(db_states(console_env).values()) == ["pending", "running", "running"],
                    timeout=10_000)
    qtbot.waitUntil(lambda: window.model.counts(profile="reasoner")["running"] == 2, timeout=5_000)
    select_tasks(window, ids)
    assert sorted(window.task_actions.selected_task_ids()) == ids
    window.act_cancel.trigger()
    wait_states(qtbot, console_env, dict.fromkeys(ids, "canceled"))
    qtbot.waitUntil(lambda: window.model.counts(profile="reasoner")["canceled"] == 3, timeout=5_000)
    assert all(window.model.state_of(t) == "canceled" for t in ids)


def test_retry_selected_failed_goes_pending_then_success(window: MainWindow, console_env: ConsoleEnv,
                                                         console_scheduler: Scheduler, qtbot: Any) -> None:
    s = console_scheduler
    # 500 three times: all three attempts fail -> failed; the fourth request (the retry) succeeds
    s.intake.submit([s.intake.new_task("f1", "writer", "[[sim:fail=500x3]] flaky"),
                     s.intake.new_task("ok1", "writer", "fine")])
    wait_states(qtbot, console_env, {"f1": "failed", "ok1": "success"})
    qtbot.waitUntil(lambda: window.model.state_of("f1") == "failed", timeout=5_000)
    seen: list[str] = []
    window.bridge.taskChanged.connect(lambda ev: seen.append(ev.state) if ev.task_id == "f1" else None)
    select_tasks(window, ["f1", "ok1"])
    window.act_retry.trigger()
    assert "Queued 1 tasks again" in window.status_line.last_message  # the success was not re-queued
    wait_states(qtbot, console_env, {"f1": "success", "ok1": "success"})
    assert seen[0] == "pending" and seen[-1] == "success"
    qtbot.waitUntil(lambda: window.model.state_of("f1") == "success", timeout=5_000)


def test_web_panel_shows_accounts_and_runs_web_tasks(window: MainWindow, console_env: ConsoleEnv,
                                                      console_scheduler: Scheduler, qtbot: Any) -> None:
    s = console_scheduler
    panel = window.web_panel
    assert [r[0] for r in panel.row_texts()] == ["acct-a", "acct-b"]
    s.intake.submit([s.intake.new_task(f"w{i}", "chat", f"web {i}") for i in range(6)])
    wait_progressing(qtbot, lambda: panel.progress.maximum() == 6 and panel.progress.value() == 6,
                     panel.progress.value, "the web lane's 6 tasks")
    backends = console_env.web_backends
    assert len(backends["acct-a"].runs) + len(backends["acct-b"].runs) == 6
    def row_status(i: int) -> str:
        panel.refresh()
        return panel.row_texts()[i][1]

    backends["acct-b"].health_status = "needs_login"
    publish_soon(s, "acct-b")
    qtbot.waitUntil(lambda: row_status(1) == "needs login", timeout=5_000)
    s.set_account_enabled("acct-a", False)
    qtbot.waitUntil(lambda: row_status(0) == "disabled", timeout=5_000)
    # work queued with no account able to take it: the ETA says so instead of inventing a number
    s.intake.submit([s.intake.new_task("w-stuck", "chat", "nobody can take me")])

    def eta() -> str:
        panel.refresh()
        return panel.eta_text()

    qtbot.waitUntil(lambda: "no lane can take" in eta(), timeout=5_000)


def test_the_eta_says_what_it_waits_for(window: MainWindow, console_scheduler: Scheduler, qtbot: Any) -> None:
    """Fewer than 3 finished runs of a queue with work: the ETA names the queue and its count."""
    s = console_scheduler
    s.intake.submit([s.intake.new_task(f"e{i}", "writer", f"eta {i} [[sim:hang]]") for i in range(4)])  # none finishes
    panel = window.api_panel

    def eta() -> str:
        panel.refresh()
        return panel.eta_text()

    qtbot.waitUntil(lambda: "ETA after 3 finished runs of " in eta(), timeout=5_000)
    assert "writer" in eta() and "(0 so far)" in eta(), eta()
    assert "no finished run" not in eta()


def test_pause_api_stops_dispatch_and_resume_continues(window: MainWindow, console_env: ConsoleEnv,
                                                        console_scheduler: Scheduler, qtbot: Any) -> None:
    window.act_pause_api.trigger()
    assert all(lane.paused for lane in console_scheduler.lanes if lane.kind == "api")
    assert window.act_pause_api.text() == "Resume API"
    res = window.submission.submit_rows_from_text("a\nb\nc", "writer")
    assert res is not None
    # The positive event: a web task submitted after them has run to the end. The API lane was
    # woken by the earlier submit and runs on the same loop, so it has had its chance to dispatch.
    s = console_scheduler
    s.intake.submit([s.intake.new_task("w-probe", "chat", "probe")])
    wait_states(qtbot, console_env, {"w-probe": "success"})
    assert {t: db_states(console_env)[t] for t in res.added} == dict.fromkeys(res.added, "pending")
    qtbot.waitUntil(lambda: window.model.state_of("w-probe") == "success", timeout=5_000)
    assert [window.model.state_of(t) for t in res.added] == ["pending"] * 3
    window.act_pause_api.trigger()
    wait_states(qtbot, console_env, dict.fromkeys(res.added, "success"))


def test_filters_and_search(window: MainWindow, console_env: ConsoleEnv, console_scheduler: Scheduler,
                            qtbot: Any) -> None:
    s = console_scheduler
    s.intake.submit([s.intake.new_task(f"a{i}", "writer", f"apple {i}") for i in range(5)]
             + [s.intake.new_task(f"b{i}", "reasoner", f"banana {i}") for i in range(3)]
             + [s.intake.new_task("bad", "writer", "[[sim:400]] broken")])
    wait_states(qtbot, console_env, {"bad": "failed", "a4": "success", "b2": "success"})
    qtbot.waitUntil(lambda: window.model.state_of("bad") == "failed" and window.model.state_of("b2") == "success",
                    timeout=5_000)
    window.filter_bar.profile_combo.setCurrentIndex(window.filter_bar.profile_combo.findData("reasoner"))
    assert window.proxy.rowCount() == 3
    window.filter_bar.profile_combo.setCurrentIndex(0)
    window.filter_bar.state_combo.setCurrentIndex(window.filter_bar.state_combo.findData("failed"))
    assert window.proxy.task_ids(range(window.proxy.rowCount())) == ["bad"]
    window.filter_bar.state_combo.setCurrentIndex(0)
    window.filter_bar.search.setText("BANANA 1")
    window.filter_bar.apply()
    assert window.proxy.task_ids(range(window.proxy.rowCount())) == ["b1"]
    assert "1 of 9 tasks shown" in window.status_line.status_label.text()
    window.filter_bar.search.setText("")
    window.filter_bar.kind_combo.setCurrentIndex(window.filter_bar.kind_combo.findData("web"))
    window.filter_bar.apply()
    assert window.proxy.rowCount() == 0


def test_export_writes_results_off_the_gui_thread(window: MainWindow, console_env: ConsoleEnv,
                                                  console_scheduler: Scheduler, arun: ARun, qtbot: Any,
                                                  tmp_path: Path) -> None:
    s = console_scheduler
    s.intake.submit([s.intake.new_task(f"e{i}", "writer", f"export {i}") for i in range(4)])
    wait_states(qtbot, console_env, {f"e{i}": "success" for i in range(4)})
    out = tmp_path / "out.jsonl"
    assert arun(window.task_actions.export_to(out, "jsonl")) == 4
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert {r["task_id"]: r["result"] for r in rows}["e2"] == "答复: export 2 ✅"
    out_csv = tmp_path / "out.csv"
    assert arun(window.task_actions.export_to(out_csv, "csv")) == 4
    assert out_csv.read_text(encoding="utf-8-sig").splitlines()[0].startswith("task_id,")
    assert not (tmp_path / "out.csv.part").exists()


def test_drop_a_batch_file_opens_the_staging_dialog(window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "dropped.jsonl", [{"profile": "writer", "prompt": "dropped"}])
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    ev = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
                    Qt.KeyboardModifier.NoModifier)
    window.dropEvent(ev)
    dlg = window.submission.dialog
    assert dlg is not None
    qtbot.waitUntil(lambda: not dlg.is_busy() and len(dlg.rows()) == 1, timeout=5_000)
    assert dlg.rows()[0].prompt == "dropped"
    # not a batch file: ignored
    mime2 = QMimeData()
    mime2.setUrls([QUrl.fromLocalFile(str(tmp_path / "picture.png"))])
    assert window._dropped_file(QDropEvent(QPointF(1, 1), Qt.DropAction.CopyAction, mime2,
                                           Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)) is None
    dlg.reject()


def test_window_state_round_trip(console_scheduler: Scheduler, qtbot: Any, settings: QSettings) -> None:
    bridge = SchedulerBridge(console_scheduler.bus)
    try:
        w1 = MainWindow(console_scheduler, bridge, settings=settings)
        qtbot.addWidget(w1)
        w1.show()
        w1.resize(760, 560)
        qtbot.waitUntil(lambda: w1.main_splitter.height() > 100)
        w1.main_splitter.setSizes([120, 200, 120])
        w1.table.setColumnWidth(0, 123)
        w1.profiles_dock.raise_()
        w1.log_dock.hide()
        want_sizes = w1.main_splitter.sizes()
        want_size = (w1.width(), w1.height())
        assert want_size != (1400, 900)  # the default: the resize really happened
        w1.close()  # closeEvent saves
        assert settings.value("mainWindow/version") is not None

        w2 = MainWindow(console_scheduler, bridge, settings=settings)
        qtbot.addWidget(w2)
        w2.show()
        qtbot.waitUntil(lambda: w2.main_splitter.height() > 100)
        assert (w2.width(), w2.height()) == want_size
        assert w2.main_splitter.sizes() == want_sizes
        assert w2.table.columnWidth(0) == 123
        assert w2.log_dock.isHidden()
        assert not w2.profiles_dock.isHidden()
        w2.close()
    finally:
        bridge.detach()


def test_console_main_starts_loads_and_stops_cleanly(console_env: ConsoleEnv, qapp: Any, arun: ARun,
                                                     qtbot: Any) -> None:
    """The whole app path minus QApplication creation: config file, single instance, scheduler,
    window, table load, close -> scheduler stopped and the database lock released."""
    s = console_env.make_scheduler()
    s.open()
    s.intake.submit([s.intake.new_task("pre", "writer", "there before the window")])
    arun(s.stop())
    seen: dict[str, Any] = {}

    def on_window(w: MainWindow) -> None:
        seen["window"] = w

        def close_when_loaded() -> None:
            if w.feed.is_loaded and w.model.state_of("pre") == "success":
                seen["rows"] = w.model.rowCount()
                w.close()
            else:
                QTimer.singleShot(50, close_when_loaded)

        QTimer.singleShot(0, close_when_loaded)

    rc = arun(console_main(qapp, console_env.config_path, data_dir=console_env.workspace.data_dir,
                           on_window=on_window), timeout=30)
    assert rc == EXIT_OK
    assert seen["rows"] == 1
    lock = DatabaseLock(console_env.workspace.db_path)
    lock.acquire()  # free again
    lock.release()


def test_console_main_database_busy_and_bad_config(console_env: ConsoleEnv, qapp: Any, arun: ARun,
                                                   tmp_path: Path, capsys: Any) -> None:
    lock = DatabaseLock(console_env.workspace.db_path)
    lock.acquire()
    try:
        rc = arun(console_main(qapp, console_env.config_path, data_dir=console_env.workspace.data_dir))
    finally:
        lock.release()
    assert rc == EXIT_BUSY
    assert "in use by" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text('[[profiles]]\nname = "x"\nkind = "api"\nconcurency = 3\n', encoding="utf-8")
    rc = arun(console_main(qapp, bad, data_dir=tmp_path / "d"))
    err = capsys.readouterr().err
    assert rc == EXIT_CONFIG
    assert "concurency" in err and "Traceback" not in err


def test_run_console_bad_config_in_a_real_process(tmp_path: Path) -> None:
    """``run_console`` itself (QApplication + qasync runner) in a child process: a clear message
    and a non-zero exit, no traceback."""
    bad = tmp_path / "bad.toml"
    bad.write_text("this is = = not toml", encoding="utf-8")
    code = textwrap.dedent(f"""
        from pathlib import Path
        from mediadesk.ui.app.start import run_console
        raise SystemExit(run_console(Path({str(bad)!r}), data_dir=Path({str(tmp_path / 'data')!r})))
    """)
    env = {"QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO), "HOME": str(tmp_path),
           "XDG_RUNTIME_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == EXIT_CONFIG, proc.stderr
    assert "invalid TOML" in proc.stderr and "Traceback" not in proc.stderr


def test_log_dock_caps_and_filters(qtbot: Any) -> None:
    dock = LogDock(max_lines=50, flush_ms=10)
    qtbot.addWidget(dock)
    for i in range(120):
        lane = "api:writer" if i % 2 else "web:acct-a"
        dock.on_log(TaskLogLine(f"t{i}", 1_700_000_000.0 + i, lane, f"attempt 1 started #{i}"))
    qtbot.waitUntil(lambda: dock.line_count() == 50, timeout=2_000)
    assert dock.lines()[-1].endswith("[api:writer] t119: attempt 1 started #119")
    dock.set_filter("web:acct-a")
    shown = dock.lines()
    assert len(shown) == 25 and all("[web:acct-a]" in ln for ln in shown)
    dock.on_log(TaskLogLine("x", 1_700_000_999.0, "api:writer", "not shown under the filter"))
    dock.on_log(TaskLogLine("y", 1_700_001_000.0, "web:acct-a", "shown under the filter"))
    assert dock.lines()[-1].endswith("y: shown under the filter") and len(dock.lines()) == 26
    dock.set_filter("")
    assert len(dock.lines()) == 50


def test_evidence_paths_in_the_task_log_are_links(window: MainWindow, console_env: ConsoleEnv,
                                                   console_scheduler: Scheduler, qtbot: Any, tmp_path: Path) -> None:
    shot = tmp_path / "evidence" / "t1" / "failure 1.png"
    assert '<a href="file://' in linkify_paths("screenshot: /tmp/ev/t1/fail.png (page html /tmp/ev/t1/p.html)")
    assert linkify_paths("no <path> here: 3/4 done").count("<a ") == 0
    assert "&lt;path&gt;" in linkify_paths("no <path> here")
    s = console_scheduler
    s.intake.submit([s.intake.new_task("ev1", "writer", "evidence")])
    wait_states(qtbot, console_env, {"ev1": "success"})
    opened: list[str] = []
    window.detail.opener = lambda url: opened.append(url.toLocalFile())
    window.detail.show_task("ev1")
    qtbot.waitUntil(lambda: window.detail.record is not None, timeout=5_000)
    # a web failure logs where it saved its evidence; the line arrives live on the bridge
    s.bus.publish(TaskLogLine("ev1", 1_700_000_000.0, "web:acct-a", f"evidence saved: {shot.parent}/page.html"))
    qtbot.waitUntil(lambda: "[web:acct-a] evidence saved" in window.detail.log_text(), timeout=5_000)
    qtbot.waitUntil(lambda: not window.detail.busy, timeout=5_000)
    assert window.detail.log_text().count("evidence saved") == 1  # a re-read merges, never duplicates
    window.detail.log_view.anchorClicked.emit(QUrl.fromLocalFile(str(shot.parent / "page.html")))
    assert opened == [str(shot.parent / "page.html")]


_DRIVER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication
    from mediadesk.ui.app import start as console
    from mediadesk.ui.window.main_window import MainWindow

    config, data_dir, up, activated = (Path(a) for a in sys.argv[1:5])

    def on_activate(self):
        activated.write_text("yes")
        self.close()

    MainWindow.bring_to_front = on_activate

    def poll():
        wins = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        if wins and wins[0].feed.is_loaded:
            up.write_text("up")
            QTimer.singleShot(20_000, wins[0].close)  # safety net only
        else:
            QTimer.singleShot(50, poll)

    app = QApplication(["mediadesk-test"])
    QTimer.singleShot(0, poll)
    raise SystemExit(console.run_console(config, data_dir=data_dir))
""")


def test_second_instance_hands_over_to_the_first(tmp_path: Path) -> None:
    """Two real console processes on one data dir: the second activates the first and exits 0;
    the first comes to the front (here: closes), stops its scheduler and exits 0."""
    config = tmp_path / "c.toml"
    config.write_text('[[profiles]]\nname = "w"\nkind = "api"\nbase_url = "http://127.0.0.1:9/v1"\n'
                      'model = "m"\n', encoding="utf-8")
    data = tmp_path / "data"
    up, activated = tmp_path / "up", tmp_path / "activated"
    env = {"QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO), "HOME": str(tmp_path),
           "XDG_RUNTIME_DIR": str(tmp_path), "PATH": "/usr/bin:/bin", "MEDIADESK_NO_DIALOGS": "1"}
    args = [sys.executable, "-c", _DRIVER, str(config), str(data), str(up), str(activated)]
    first = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 30
        while not up.exists() and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert up.exists(), first.communicate(timeout=10)
        second = subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)
        assert second.returncode == EXIT_OK, second.stderr
        assert "already open" in second.stderr
        _out, err = first.communicate(timeout=30)
        assert first.returncode == EXIT_OK, err
        assert activated.read_text() == "yes"
        assert "Traceback" not in err
    finally:
        if first.poll() is None:
            first.kill()
            first.communicate()
    lock = DatabaseLock(data / "mediadesk.db")
    lock.acquire()  # released by the first instance on its way out
    lock.release()


def test_detail_log_merges_late_stored_lines_in_time_order(qtbot: Any, tmp_path: Path) -> None:
    """Live lines can arrive before the store's batched ones: the log stays in time order, once."""
    pane = DetailPane(tmp_path / "none.db", SchedulerBridge(EventBus()))
    qtbot.addWidget(pane)
    pane._append(10.0, "api:w", "POST -> 200")
    pane._merge_logs([LogLine("t", 5.0, "api:w", "attempt 1 started"),
                      LogLine("t", 10.0, "api:w", "POST -> 200"), LogLine("t", 12.0, "api:w", "success in 7 s")])
    lines = pane.log_text().splitlines()
    assert [ln.split("] ", 1)[1] for ln in lines] == ["attempt 1 started", "POST -> 200", "success in 7 s"]
    assert all("[api:w]" in ln for ln in lines)


def test_need_empty_prompt_toggle_changes_what_the_api_simulator_receives(
    window: MainWindow, console_env: ConsoleEnv, qtbot: Any
) -> None:
    """The operator flips the toggle in the Profiles editor; the real simulator sees the difference."""
    sim = console_env.sim
    first = window.submission.submit_rows_from_text("with instructions", "writer")
    assert first is not None
    wait_states(qtbot, console_env, {first.added[0]: "success"})
    switch = window.profiles_editor.need_empty_prompt_switch("writer")
    assert not switch.isChecked()
    qtbot.mouseClick(switch, Qt.MouseButton.LeftButton)
    assert switch.isChecked()
    second = window.submission.submit_rows_from_text("content only", "writer")
    assert second is not None
    wait_states(qtbot, console_env, {second.added[0]: "success"})
    per_task = sim.stats()["per_task"]
    assert per_task[first.added[0]]["system_message_seen"] is True
    assert per_task[second.added[0]]["system_message_seen"] is False


def test_log_in_button_goes_through_the_scheduler_and_restores_the_account(
    window: MainWindow, console_env: ConsoleEnv, qtbot: Any
) -> None:
    backend = console_env.web_backends["acct-a"]
    backend.health_status, backend.error = "needs_login", "logged out"
    publish_soon(window.scheduler, "acct-a")
    panel = window.accounts_panel
    qtbot.waitUntil(lambda: "login" in panel.status_text("acct-a").lower(), timeout=5_000)
    res = window.submission.submit_rows_from_text("web after login", "chat")
    assert res is not None
    qtbot.mouseClick(panel.login_button("acct-a"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: getattr(backend, "logins", 0) == 1, timeout=5_000)
    qtbot.waitUntil(lambda: "is logged in" in window.statusBar().currentMessage(), timeout=5_000)
    wait_states(qtbot, console_env, {res.added[0]: "success"})


def test_api_panel_shows_the_endpoint_gate_and_breaker_notices_reach_the_log(
    window: MainWindow, console_env: ConsoleEnv, qtbot: Any
) -> None:
    api = window.api_panel
    qtbot.waitUntil(lambda: "gate" in api.callee_label.text(), timeout=10_000)
    text = api.callee_label.text()
    assert "in flight" in text and "breaker" not in text  # closed breakers are not shouted about
    sched = window.scheduler
    cap = next(iter(c for name, c in sched.capacities.items() if not name.startswith("account:")))
    cap.trip("test: endpoint unreachable")
    qtbot.waitUntil(lambda: any("[capacity]" in ln and "breaker closed -> open" in ln
                                for ln in window.log_dock.lines()), timeout=5_000)
    api.on_lane_stats(next(ln for ln in sched.lanes if ln.capacity_ctl is cap).stats())
    api.refresh()
    assert "breaker open (test: endpoint unreachable), next probe in" in api.callee_label.text()


def test_batch_for_a_profile_with_an_unset_key_variable_is_refused_once(
    window: MainWindow, console_env: ConsoleEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 9, item 16: one message naming the variable and its profiles, not one auth failure
    per task (before: the tasks were submitted and each failed ``auth``)."""
    env_name = "MD_CONSOLE_TEST_UNSET_KEY"
    monkeypatch.delenv(env_name, raising=False)
    cfg = console_env.config
    profiles = tuple(p.model_copy(update={"api_key_env": env_name}) if p.name == "writer" else p
                     for p in cfg.profiles)
    monkeypatch.setattr(window.scheduler, "config", cfg.model_copy(update={"profiles": profiles}))
    assert window.submission.submit_rows_from_text("one\ntwo\nthree", "writer") is None
    assert env_name in window.status_line.last_message and "writer" in window.status_line.last_message
    assert f"export {env_name}=" in window.status_line.last_message
    assert db_states(console_env) == {}  # nothing submitted, nothing attempted
    res = window.submission.submit_rows_from_text("fine", "reasoner")  # its key source is fine: not refused
    assert res is not None and len(res.added) == 1


def test_big_submit_lets_the_loop_run_while_tasks_are_built_and_added(window: MainWindow,
                                                                       console_scheduler: Scheduler,
                                                                       arun: ARun) -> None:
    """A batch bigger than one chunk: the loop runs between the slices in which its tasks are
    built (before anything is in) and between its transactions (partly in); the ids are those of
    a one-shot conversion (identical prompts across slices keep their occurrence numbers), and
    the cyclic GC, paused meanwhile, is on again at the end."""
    import asyncio
    import gc

    from mediadesk.core.batch import BatchRow

    console_scheduler.pause("api")
    n = 2500
    rows = [BatchRow(line=i + 1, profile="writer", prompt=f"same prompt {i % 700}", id=None, system=None,
                     priority=0, route_key=None) for i in range(n)]
    seen: list[int] = []

    async def go() -> Any:
        async def watch() -> None:
            while True:
                seen.append(console_scheduler.store.pending_count(["writer"]))
                await asyncio.sleep(0)

        watcher = asyncio.ensure_future(watch())
        try:
            return await window.submission.submit_rows_async(rows, batch="big", chunk=1000)
        finally:
            watcher.cancel()

    res = arun(go())
    assert res is not None
    assert list(res.added) == [t.task_id for t in console_scheduler.intake.tasks_from_rows(rows, "big")]
    assert len(set(res.added)) == n
    assert seen.count(0) >= 2, seen[:20]  # yielded while building (3 slices of at most 1,000)
    assert sum(1 for c in seen if 0 < c < n) >= 2, seen[-20:]  # and between transactions
    assert gc.isenabled()
