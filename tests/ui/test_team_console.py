"""The console on PostgreSQL (team mode): the table, the detail pane, the Batches and Charts tabs read
the shared database; the Desktops tab lists every desktop working the queue; the Desktop column says
whose desktop ran each task. Real schedulers, a real API simulator, a throw-away PostgreSQL server."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt

from mediadesk.cli import build_parser
from mediadesk.config.location import PgLocation
from mediadesk.config.workspace import Workspace
from mediadesk.core.batch import BatchRow
from mediadesk.scheduler import Scheduler
from mediadesk.store.export import export_to_file
from mediadesk.store.metrics import METRICS_INDEXES
from mediadesk.store.pgconn import connect as pg_connect
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.app.start import console_main
from mediadesk.ui.jobs.workers import read_all_columns
from mediadesk.ui.models.task_model import Col
from mediadesk.ui.window.main_window import MainWindow
from tests.support import make_config, tasks_of, until
from tests.ui.conftest import ARun, ConsoleEnv, open_window


def _pg_env(env: ConsoleEnv, url: str, data_dir: Path) -> ConsoleEnv:
    """``env``'s config and simulator on a workspace whose store is ``url`` (its own data dir)."""
    ws = Workspace.resolve(data_dir=data_dir, db=url).ensure()
    return ConsoleEnv(config=env.config, workspace=ws, sim=env.sim, config_path=env.config_path)


@pytest.fixture
def team_env(console_env: ConsoleEnv, pg_url: str, tmp_path: Path) -> ConsoleEnv:
    return _pg_env(console_env, pg_url, tmp_path / "desk-a")


@pytest.fixture
def team_scheduler(team_env: ConsoleEnv, arun: ARun) -> Iterator[Scheduler]:
    s = team_env.make_scheduler()
    arun(s.start())
    try:
        yield s
    finally:
        arun(s.stop(), timeout=20.0)


def _rows(profile: str, prompts: list[str]) -> list[BatchRow]:
    return [BatchRow(line=i + 1, profile=profile, prompt=p, id=None, system=None, priority=0, route_key=None)
            for i, p in enumerate(prompts)]


def _done(ws: Workspace, n: int) -> bool:
    tasks = tasks_of(ws)
    return len(tasks) >= n and all(t.state in ("success", "failed", "canceled") for t in tasks.values())


def _desktop_cell(w: MainWindow, task_id: str, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
    row = w.model.row_of(task_id)
    assert row is not None
    return w.model.data(w.model.index(row, Col.DESKTOP), role)


def test_console_on_postgresql_reads_the_shared_database(team_scheduler: Scheduler, team_env: ConsoleEnv,
                                                         arun: ARun, qtbot: Any) -> None:
    assert isinstance(team_scheduler.workspace.location, PgLocation)
    with open_window(team_scheduler, arun, QSettings()) as w:
        assert w.location == team_scheduler.workspace.location
        long_prompt = "a long prompt for the detail pane " + "x" * 500
        res = w.submission.submit_rows(_rows("writer", [long_prompt, "two", "three"]), batch="pg-batch")
        assert res is not None and len(res.added) == 3
        qtbot.waitUntil(lambda: _done(team_env.workspace, 3), timeout=15_000)
        qtbot.waitUntil(lambda: all(w.model.state_of(t) == "success" for t in res.added), timeout=10_000)
        assert w.model.rowCount() == 3
        tid = next(t for t in res.added if tasks_of(team_env.workspace)[t].prompt == long_prompt)
        row = w.model.row_of(tid)
        assert row is not None
        w.table.setCurrentIndex(w.proxy.mapFromSource(w.model.index(row, 0)))
        d = w.detail
        qtbot.waitUntil(lambda: d.record is not None and d.record.state == "success", timeout=5_000)
        assert d.prompt_view.toPlainText() == long_prompt  # the full text, read from PostgreSQL
        w.batches_view.refresh(force=True)
        qtbot.waitUntil(lambda: w.batches_view.row_of("pg-batch") is not None, timeout=10_000)
        w.charts_dock.raise_()
        w.charts_view.refresh(force=True)
        qtbot.waitUntil(lambda: w.charts_view.data is not None and w.charts_view.data.finished() == 3,
                        timeout=10_000)
        # a restarted console (a fresh table load) reads the same rows from the database
        assert sorted(read_all_columns(w.location).task_id) == sorted(res.added)
    # the tabs made their indexes in PostgreSQL, and no SQLite file appeared in the data folder
    assert team_env.workspace.db_url is not None
    conn = pg_connect(team_env.workspace.db_url)
    try:
        have = {r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'task'")}
    finally:
        conn.close()
    assert {name for name, _sql in METRICS_INDEXES} <= have
    assert not (team_env.workspace.data_dir / "mediadesk.db").exists()


def test_desktops_tab_lists_every_desktop_and_marks_one_gone(team_scheduler: Scheduler, team_env: ConsoleEnv,
                                                             pg_url: str, tmp_path: Path, arun: ARun,
                                                             qtbot: Any) -> None:
    with open_window(team_scheduler, arun, QSettings()) as w:
        view = w.desktops_view
        assert view is not None
        w.desktops_dock.raise_()
        other = _pg_env(team_env, pg_url, tmp_path / "desk-b").make_scheduler()
        arun(other.start())
        try:
            def listed() -> dict[str, Any]:
                view.refresh()
                return {d.owner: d for d in view.rows}

            qtbot.waitUntil(lambda: other.owner in listed() and listed()[other.owner].alive, timeout=10_000)
            rows = listed()
            assert rows[team_scheduler.owner].alive
            assert rows[other.owner].host == socket.gethostname()
            assert rows[other.owner].operator == rows[team_scheduler.owner].operator != ""
            assert set(rows[other.owner].accounts) == {"acct-a", "acct-b"}
            own_row = [d.owner for d in view.rows].index(team_scheduler.owner)
            other_row = [d.owner for d in view.rows].index(other.owner)
            assert "(this desktop)" in view.table.item(own_row, 0).text()
            assert "(this desktop)" not in view.table.item(other_row, 0).text()
            assert view.table.item(other_row, 5).text() == "working"
            assert view.table.item(other_row, 1).text() == rows[other.owner].operator
            w.status_line.update_status()
            assert "2 desktops" in w.status_line.status_label.text()
        finally:
            arun(other.stop(), timeout=20.0)
        qtbot.waitUntil(lambda: not listed()[other.owner].alive, timeout=10_000)
        other_row = [d.owner for d in view.rows].index(other.owner)
        assert view.table.item(other_row, 5).text() == "gone"
        w.status_line.update_status()
        assert "1 desktops" in w.status_line.status_label.text() or "1 desktop" in w.status_line.status_label.text()


def test_no_desktops_tab_and_no_desktop_column_on_sqlite(console_scheduler: Scheduler, arun: ARun) -> None:
    assert console_scheduler.team is None
    with open_window(console_scheduler, arun, QSettings()) as w:
        assert w.desktops_view is None
        assert w.table.isColumnHidden(Col.DESKTOP)
        assert "desktops" not in w.status_line.status_label.text()


def test_desktop_column_shows_whose_desktop_ran_each_task(team_env: ConsoleEnv, pg_url: str, tmp_path: Path,
                                                          arun: ARun, qtbot: Any) -> None:
    # another desktop runs b1 alone (this one is not started yet: the queue is shared)
    other_env = _pg_env(team_env, pg_url, tmp_path / "desk-b")
    other = other_env.make_scheduler()
    arun(other.start())
    try:
        other.intake.submit([other.intake.new_task("b1", "writer", "run by the other desktop")])
        arun(until(lambda: tasks_of(other_env.workspace)["b1"].state == "success", "b1 done"))
    finally:
        arun(other.stop(), timeout=20.0)
    here = team_env.make_scheduler()
    arun(here.start())
    try:
        with open_window(here, arun, QSettings()) as w:
            assert not w.table.isColumnHidden(Col.DESKTOP)  # shown in team mode
            res = w.submission.submit_rows(_rows("writer", ["run here"]))
            assert res is not None
            a1 = res.added[0]
            qtbot.waitUntil(lambda: w.model.state_of(a1) == "success", timeout=15_000)
            host = socket.gethostname()
            # live: the claim event of this desktop's scheduler
            assert _desktop_cell(w, a1) == host
            assert _desktop_cell(w, a1, Qt.ItemDataRole.ToolTipRole) == here.owner
            # loaded from the database
            assert _desktop_cell(w, "b1") == host
            assert _desktop_cell(w, "b1", Qt.ItemDataRole.ToolTipRole) == other.owner
            assert w.model.headerData(Col.DESKTOP, Qt.Orientation.Horizontal) == "desktop"
            # a fresh load reads the same owners from the database
            cols = read_all_columns(w.location)
            assert dict(zip(cols.task_id, cols.owner, strict=True)) == {a1: here.owner, "b1": other.owner}
            # exported too
            out = tmp_path / "tasks.jsonl"
            assert export_to_file(w.location, out, "jsonl") == 2
            exported = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
            assert {r["task_id"]: r["owner"] for r in exported} == {a1: here.owner, "b1": other.owner}
            # sortable and searchable by it
            w.proxy.set_text(other.owner.rsplit(":", 1)[1])
            assert w.proxy.rowCount() == 1
    finally:
        arun(here.stop(), timeout=20.0)


@pytest.mark.parametrize("how", ["db_url", "--db"])
def test_console_opens_the_postgresql_queue_of_db_url_or_db(how: str, console_env: ConsoleEnv, pg_url: str,
                                                            tmp_path: Path, qapp: Any, qloop: Any, qtbot: Any,
                                                            arun: ARun) -> None:
    cfg = tmp_path / "team.toml"
    text = console_env.config_path.read_text(encoding="utf-8")
    cfg.write_text((f'db_url = "{pg_url}"\n' + text) if how == "db_url" else text, encoding="utf-8")
    seen: dict[str, MainWindow] = {}
    run = qloop.create_task(console_main(qapp, cfg, data_dir=tmp_path / "desk", tray_available=False,
                                         db=pg_url if how == "--db" else None,
                                         on_window=lambda w: seen.setdefault("w", w)))
    qtbot.waitUntil(lambda: "w" in seen and seen["w"].feed.is_loaded, timeout=20_000)
    w = seen["w"]
    assert w.location == PgLocation(pg_url) and w.scheduler.team is not None
    assert w.desktops_view is not None
    res = w.submission.submit_rows(_rows("writer", ["through the console"]))
    assert res is not None
    qtbot.waitUntil(lambda: w.model.state_of(res.added[0]) == "success", timeout=15_000)
    w.close()
    qtbot.waitUntil(run.done, timeout=20_000)
    assert run.result() == 0
    assert not (tmp_path / "desk" / "mediadesk.db").exists()
    assert [t.state for t in tasks_of(Workspace.resolve(data_dir=tmp_path / "x", db=pg_url)).values()] == ["success"]


def test_console_command_line_takes_db() -> None:
    ns = build_parser().parse_args(["console", "--db", "postgresql://me@127.0.0.1:5/q"])
    assert ns.db == "postgresql://me@127.0.0.1:5/q"


def test_switching_between_a_sqlite_and_a_team_workspace_rebinds_the_desktops_tab(
        console_scheduler: Scheduler, team_env: ConsoleEnv, arun: ARun, qtbot: Any) -> None:
    with open_window(console_scheduler, arun, QSettings()) as w:
        assert w.desktops_view is None and w.desktops_dock is None
        team = team_env.make_scheduler()
        arun(team.start())
        bridges = [SchedulerBridge(team.bus), SchedulerBridge(console_scheduler.bus)]
        try:
            arun(w.aclose())
            w.rebind_workspace(team, bridges[0])
            arun(w.start())
            view, dock = w.desktops_view, w.desktops_dock
            assert view is not None and dock is not None and not dock.isHidden()
            view.refresh()
            assert [d.owner for d in view.rows] == [team.owner]
            assert not w.table.isColumnHidden(Col.DESKTOP)
            assert w.location == team.workspace.location
            assert w.detail.location == w.charts_view.location == w.batches_view.location == w.location
            assert w.table_menu.location == w.feed.location == w.location
            # and back to the SQLite workspace: no Desktops tab, no Desktop column
            arun(w.aclose())
            w.rebind_workspace(console_scheduler, bridges[1])
            arun(w.start())
            assert w.desktops_view is None and dock.isHidden() and not dock.toggleViewAction().isVisible()
            assert w.table.isColumnHidden(Col.DESKTOP)
            assert w.location == console_scheduler.workspace.location
        finally:
            arun(team.stop(), timeout=20.0)
            for b in bridges:
                b.detach()


def test_the_console_follows_the_work_of_the_other_desktops(team_scheduler: Scheduler, team_env: ConsoleEnv,
                                                            pg_url: str, tmp_path: Path, arun: ARun,
                                                            qtbot: Any) -> None:
    # the other desktop has a profile this one lacks: what runs there runs only there
    url = team_env.sim.base_url
    config = make_config([{"name": "elsewhere", "kind": "api", "base_url": url, "model": "sim-model",
                           "concurrency": 2}])
    ws = Workspace.resolve(data_dir=tmp_path / "desk-b", db=pg_url).ensure()
    other = ConsoleEnv(config=config, workspace=ws, sim=team_env.sim, config_path=team_env.config_path
                       ).make_scheduler()
    with open_window(team_scheduler, arun, QSettings()) as w:
        arun(other.start())
        try:
            other.intake.submit([other.intake.new_task("c1", "elsewhere", "done over there"),
                          other.intake.new_task("c2", "elsewhere", "[[sim:hang]] still running over there")])
            # new rows, their claims and results, written by the other desktop, show up here
            qtbot.waitUntil(lambda: w.model.state_of("c1") == "success", timeout=15_000)
            qtbot.waitUntil(lambda: w.model.state_of("c2") == "running", timeout=15_000)
            assert _desktop_cell(w, "c1", Qt.ItemDataRole.ToolTipRole) == other.owner
            assert _desktop_cell(w, "c2", Qt.ItemDataRole.ToolTipRole) == other.owner
            # its heartbeats do not reach this console: its running task is not shown as stalled
            row = w.model.row_of("c2")
            assert row is not None
            started = w.model.rows.row_at(row).started_at
            assert started is not None
            qtbot.waitUntil(lambda: time.time() - started > 4 * w.model.rows.stalled_after_s, timeout=5_000)
            assert w.model.display_state_of("c2") == "running"
            assert w.model.data(w.model.index(row, Col.HEARTBEAT)) == ""
        finally:
            arun(other.stop(), timeout=20.0)
        # its stop gave the hung task back to the queue
        qtbot.waitUntil(lambda: w.model.state_of("c2") == "pending", timeout=15_000)
