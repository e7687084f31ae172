"""Is the console smooth while a fast batch runs? Event-loop lag, and the cost of a 100k-row table.

Part 1 (live): the real main window (offscreen, 1400x900, table + lane panels + log dock live) runs
an instant 10,000-task batch through the API lane (simulator in its own process at zero latency,
concurrency 5). A 10 ms Qt timer measures its own lateness the whole time: under qasync the
asyncio loop *is* the GUI thread, so any lateness is what the operator feels as a stutter.

Part 2 (model): 100,000 rows into the task model with a shown view: one insert, 100 inserts of
1,000 (with a repaint after each), 10,000 state changes, a sort, a filter; and the initial load
of 100,000 rows from a real database through the worker thread (read time off-thread, apply time
on the GUI thread, and the lag meanwhile).

    python -m bench gui [--tasks 10000] [--concurrency 5] [--rows 100000] [--part all|live|model]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import qasync
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication, QHeaderView, QTableView

from bench.common import sim_process, table
from mediadesk.config import parse_config
from mediadesk.core.batch import BatchRow
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.store.taskstore import NewTask, TaskRecord, TaskStore
from mediadesk.ui.app import install_asyncgen_hooks
from mediadesk.ui.bridge import SchedulerBridge
from mediadesk.ui.main_window import MainWindow
from mediadesk.ui.task_model import Col, TaskFilterProxy, TaskTableModel
from mediadesk.ui.workers import TaskFeed
from mediadesk.workspace import Workspace

GOAL_P99_MS = 50.0


class LagMonitor:
    """A 10 ms precise timer that records how late each tick fires (ms)."""

    def __init__(self, interval_ms: int = 10) -> None:
        self.interval = interval_ms / 1000
        self.lags: list[float] = []
        self._last = 0.0
        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)

    def start(self) -> None:
        self.lags.clear()
        self._last = time.perf_counter()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.lags.append(max(0.0, (now - self._last - self.interval) * 1000))
        self._last = now

    def summary(self) -> tuple[float, float, float, int]:
        xs = sorted(self.lags) or [0.0]
        p99 = xs[min(len(xs) - 1, int(len(xs) * 0.99))]
        return statistics.median(xs), p99, xs[-1], len(self.lags)


async def wait_for(cond: Callable[[], bool], limit_s: float, step_s: float = 0.05) -> None:
    deadline = time.monotonic() + limit_s
    while not cond():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(step_s)


# ----------------------------------------------------------------------------------- part 1: live batch

async def live_batch(url: str, tmp: Path, n_tasks: int, concurrency: int) -> dict[str, Any]:
    config = parse_config({"profiles": [{"name": "writer", "kind": "api", "base_url": url, "model": "sim",
                                         "concurrency": concurrency}]}, "bench")
    ws = Workspace.resolve(data_dir=tmp / "live").ensure()
    sched = Scheduler(config, ws)
    await sched.start()
    bridge = SchedulerBridge(sched.bus)
    window = MainWindow(sched, bridge, settings=QSettings(str(tmp / "bench.ini"), QSettings.Format.IniFormat))
    window.resize(1400, 900)
    window.show()
    await window.start()
    mon = LagMonitor()
    try:
        await asyncio.sleep(0.5)  # let the first paint and lane stats settle
        mon.start()
        t0 = time.perf_counter()
        rows = [BatchRow(line=i + 1, profile="writer", prompt=f"bench prompt {i}", id=f"g{i:06d}", system=None,
                         priority=0, route_key=None) for i in range(n_tasks)]
        await window.submit_rows_async(rows, batch="bench")
        t_submit = time.perf_counter() - t0
        panel = window.api_panel
        await wait_for(lambda: panel.progress.maximum() == n_tasks and panel.progress.value() == n_tasks,
                       limit_s=600, step_s=0.2)
        elapsed = time.perf_counter() - t0
        mon.stop()
        p50, p99, mx, ticks = mon.summary()
        counts = window.model.counts()
        return {"p50": p50, "p99": p99, "max": mx, "ticks": ticks, "elapsed": elapsed, "submit": t_submit,
                "rate": n_tasks / elapsed, "success": counts["success"], "log_lines": window.log_dock.line_count()}
    finally:
        mon.stop()
        await window.aclose()
        bridge.detach()
        window.close()
        window.deleteLater()
        await sched.stop()


# ----------------------------------------------------------------------------------- part 2: 100k rows

def _rec(i: int) -> TaskRecord:
    return TaskRecord(
        task_id=f"m{i:06d}", model_kind="api" if i % 4 else "web", state="pending", attempt=0, started_at=None,
        heartbeat_at=None, profile="writer" if i % 4 else "chat", account=None, lane=None,
        prompt=f"a synthetic prompt number {i} with some words to fill the column", system=None, priority=0,
        route_key=None, batch="bench", result=None, error_kind=None, error_message=None, created_at=0.0,
        updated_at=0.0, finished_at=None, cancel_requested=False, version=0, not_before=0.0, seq=i,
        attempt_base=0, owner=None,
    )


def _view(app: QApplication) -> tuple[TaskTableModel, TaskFilterProxy, QTableView]:
    model = TaskTableModel()
    proxy = TaskFilterProxy()
    proxy.setSourceModel(model)
    view = QTableView()
    view.setModel(proxy)
    vh = view.verticalHeader()
    vh.setVisible(False)
    vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    vh.setDefaultSectionSize(view.fontMetrics().height() + 6)
    view.setWordWrap(False)
    view.resize(1400, 600)
    view.show()
    app.processEvents()
    return model, proxy, view


def model_costs(app: QApplication, n_rows: int) -> list[tuple[str, float, str]]:
    from mediadesk.scheduler.events import TaskChanged

    out: list[tuple[str, float, str]] = []
    recs = [_rec(i) for i in range(n_rows)]

    model, proxy, view = _view(app)
    t = time.perf_counter()
    model.add_records(recs)
    model.flush()
    view.viewport().repaint()
    out.append((f"insert {n_rows:,} rows at once + repaint", time.perf_counter() - t, ""))
    view.deleteLater()

    model, proxy, view = _view(app)
    worst = 0.0
    t = time.perf_counter()
    step = 1000
    for b in range(0, n_rows, step):
        t1 = time.perf_counter()
        model.add_records(recs[b:b + step])
        model.flush()
        app.processEvents()
        worst = max(worst, time.perf_counter() - t1)
    out.append((f"insert {n_rows:,} rows in batches of {step:,} (+ repaint each)", time.perf_counter() - t,
                f"worst batch {worst * 1000:.0f} ms"))

    now = time.time()
    t = time.perf_counter()
    n_changes = min(10_000, n_rows)
    stride = max(1, n_rows // n_changes)
    for i in range(0, n_rows, stride):
        model.apply_change(TaskChanged(f"m{i:06d}", "running", 1, "api:writer", None, now, now, None, None, 1))
    model.flush()
    app.processEvents()
    out.append((f"{n_changes:,} state changes (one flush) + repaint", time.perf_counter() - t, ""))

    t = time.perf_counter()
    model.flush()
    view.viewport().repaint()
    out.append(("full repaint of the visible table", time.perf_counter() - t, ""))

    t = time.perf_counter()
    proxy.sort(Col.STATE, Qt.SortOrder.DescendingOrder)
    app.processEvents()
    out.append((f"sort {n_rows:,} rows by state", time.perf_counter() - t, ""))
    t = time.perf_counter()
    proxy.set_text("number 4242")
    app.processEvents()
    out.append((f"filter {n_rows:,} rows by text", time.perf_counter() - t, f"{proxy.rowCount()} match"))
    t = time.perf_counter()
    proxy.set_text("")
    app.processEvents()
    out.append(("clear the filter", time.perf_counter() - t, ""))
    view.deleteLater()
    return out


async def db_load(app: QApplication, tmp: Path, n_rows: int) -> tuple[float, float, float, float]:
    """Initial load of ``n_rows`` from a real database through TaskFeed (worker thread)."""
    ws = Workspace.resolve(data_dir=tmp / "load").ensure()
    store = TaskStore(ws.db_path)
    store.add_tasks([NewTask(f"d{i:06d}", "writer", "api", f"stored prompt {i}") for i in range(n_rows)])
    store.close()
    model, _proxy, view = _view(app)

    class _NoBridge:
        class _Sig:
            def connect(self, *_a: object) -> None:
                pass
        taskChanged = tasksAdded = laneStats = _Sig()

    feed = TaskFeed(ws.db_path, model, _NoBridge())  # type: ignore[arg-type]
    mon = LagMonitor()
    mon.start()
    t = time.perf_counter()
    stats = await feed.load()
    view.viewport().repaint()
    total = time.perf_counter() - t
    await asyncio.sleep(0.05)
    mon.stop()
    _p50, _p99, mx, _n = mon.summary()
    view.deleteLater()
    return stats.read_s, stats.apply_s, total, mx


# ----------------------------------------------------------------------------------- main

async def main_async(app: QApplication, args: argparse.Namespace) -> None:
    install_asyncgen_hooks(asyncio.get_running_loop())  # qasync does not (see mediadesk.ui.app)
    with tempfile.TemporaryDirectory() as tmpd:
        tmp = Path(tmpd)
        if args.part in ("all", "live"):
            with sim_process("api", "--latency", "0,0") as url:
                live = await live_batch(url, tmp, args.tasks, args.concurrency)
            print(f"\nLive: {args.tasks:,}-task instant batch, API lane concurrency {args.concurrency}, zero-latency "
                  f"simulator (own process), window 1400x900 offscreen; 10 ms lag timer ({live['ticks']:,} ticks)")
            print(table([
                ("event-loop lag p50", "p99", "max", "batch wall time", "tasks/s", "submit (GUI thread)",
                 "succeeded"),
                (f"{live['p50']:.1f} ms", f"{live['p99']:.1f} ms", f"{live['max']:.0f} ms",
                 f"{live['elapsed']:.1f} s", f"{live['rate']:,.0f}", f"{live['submit'] * 1000:.0f} ms",
                 f"{live['success']:,}"),
            ]))
            verdict = "OK" if live["p99"] < GOAL_P99_MS else "OVER GOAL"
            print(f"goal p99 < {GOAL_P99_MS:.0f} ms: {verdict}", flush=True)
        if args.part in ("all", "model"):
            costs = model_costs(app, args.rows)
            read_s, apply_s, total_s, load_max = await db_load(app, tmp, args.rows)
            print(f"\nModel: {args.rows:,} rows, TaskTableModel + TaskFilterProxy + shown QTableView (1400x600)")
            rows: list[tuple[str, ...]] = [("operation", "time", "note")]
            rows += [(name, f"{s * 1000:,.0f} ms", note) for name, s, note in costs]
            print(table(rows))
            print(f"\nInitial load of {args.rows:,} rows from SQLite: read {read_s * 1000:,.0f} ms in a worker "
                  f"thread, apply {apply_s * 1000:,.0f} ms on the GUI thread (chunks of 5,000), "
                  f"{total_s * 1000:,.0f} ms total; worst GUI-loop lag meanwhile {load_max:.0f} ms")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="bench gui")
    p.add_argument("--tasks", type=int, default=10_000)
    p.add_argument("--concurrency", type=int, default=5)
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--part", choices=["all", "live", "model"], default="all")
    args = p.parse_args(argv)
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(["bench-gui"])
    app.setQuitOnLastWindowClosed(False)  # closing the bench window must not end the loop
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        runner.run(main_async(app, args))


if __name__ == "__main__":
    main()
