"""``bench gui --part groups``: the task table grouped by batch at 100,000 rows, side by side with
the flat table in the same run (same rows, same shown size, 1400x600 offscreen).

Measured: building the groups (the toggle), a repaint, expanding a batch of 5,000 and one of all
the rows, 10,000 state changes, a sort, a text filter, and 100 appends of 1,000 rows, each with the
grouped view and with the flat one.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QApplication, QTreeView

from mediadesk.scheduler.events import TaskChanged
from mediadesk.store.taskstore import TaskRecord
from mediadesk.ui.models.group_model import ProgressDelegate, TaskGroupModel
from mediadesk.ui.models.task_model import Col, TaskFilterProxy, TaskTableModel

__all__ = ["group_costs", "print_group_costs"]


def _tree(app: QApplication, model: TaskGroupModel) -> QTreeView:
    tree = QTreeView()
    tree.setUniformRowHeights(True)
    tree.setModel(model)
    tree.setItemDelegateForColumn(Col.STATE, ProgressDelegate(tree))
    tree.resize(1400, 600)
    tree.show()
    app.processEvents()
    return tree


def _timed(app: QApplication, fn: Any) -> float:
    t = time.perf_counter()
    fn()
    app.processEvents()
    return time.perf_counter() - t


def group_costs(app: QApplication, n_rows: int, n_batches: int = 20) -> list[tuple[str, str, str, str]]:
    """(operation, flat, grouped, note) rows."""
    from bench.gui_responsiveness import _rec, _view

    recs: list[TaskRecord] = [replace(_rec(i), batch=f"batch-{i * n_batches // n_rows:02d}") for i in range(n_rows)]
    model, proxy, view = _view(app)
    flat: dict[str, float] = {}
    grouped: dict[str, float] = {}
    flat["load"] = _timed(app, lambda: (model.add_records(recs), model.flush(), view.viewport().repaint()))
    groups = TaskGroupModel(model)
    tree = _tree(app, groups)
    grouped["load"] = _timed(app, lambda: (groups.set_active(True), tree.viewport().repaint()))
    flat["repaint"] = _timed(app, view.viewport().repaint)
    grouped["repaint"] = _timed(app, tree.viewport().repaint)
    small = groups.index(0, 0)
    expand_small = _timed(app, lambda: (tree.expand(small), tree.viewport().repaint()))
    grouped["changes"], flat["changes"] = _changes(app, model, groups)
    grouped["sort"] = _timed(app, lambda: proxy.sort(Col.STATE, Qt.SortOrder.DescendingOrder))
    groups.set_active(False)
    flat["sort"] = _timed(app, lambda: proxy.sort(Col.ID, Qt.SortOrder.AscendingOrder))
    flat["filter"] = _timed(app, lambda: _filter(proxy, None, "number 4242"))
    _filter(proxy, None, "")
    groups.set_active(True)
    grouped["filter"] = _timed(app, lambda: _filter(proxy, groups, "number 4242"))
    _filter(proxy, groups, "")
    view.deleteLater()
    tree.deleteLater()
    out = [
        (f"show {n_rows:,} rows ({n_batches} batches): load / build the groups + repaint",
         _ms(flat["load"]), _ms(grouped["load"]), "grouped: the toggle, rows already loaded"),
        ("full repaint of the visible rows", _ms(flat["repaint"]), _ms(grouped["repaint"]), ""),
        (f"expand a batch of {n_rows // n_batches:,} + repaint", "-", _ms(expand_small), ""),
        ("10,000 state changes (one flush) + repaint", _ms(flat["changes"]), _ms(grouped["changes"]), ""),
        (f"sort {n_rows:,} rows", _ms(flat["sort"]), _ms(grouped["sort"]), "grouped: sort + regroup"),
        (f"filter {n_rows:,} rows by text", _ms(flat["filter"]), _ms(grouped["filter"]), ""),
    ]
    out += _appends_and_big_batch(app, n_rows)
    return out


def _filter(proxy: TaskFilterProxy, groups: TaskGroupModel | None, text: str) -> None:
    proxy.set_text(text)
    if groups is not None:
        groups.set_filter(proxy.row_filter)


def _changes(app: QApplication, model: TaskTableModel, groups: TaskGroupModel) -> tuple[float, float]:
    """10,000 state changes with the grouped view following the model, then without it."""
    n = len(model.rows)
    stride = max(1, n // 10_000)
    now = time.time()
    times = []
    for version, state in ((1, "running"), (2, "success")):
        t = time.perf_counter()
        for i in range(0, n, stride):
            model.apply_change(TaskChanged(f"m{i:06d}", state, 1, "api:writer", None, now, now, None, None, version))
        model.flush()
        app.processEvents()
        times.append(time.perf_counter() - t)
        if version == 1:
            groups.set_active(False)
    groups.set_active(True)
    return times[0], times[1]


def _appends_and_big_batch(app: QApplication, n_rows: int, n_batches: int = 20) -> list[tuple[str, str, str, str]]:
    """100 appends of 1,000 rows (20 batches; grouped: the first batch expanded, as an operator
    watching a submit would), then expanding one batch holding every row."""
    from bench.gui_responsiveness import _rec, _view

    recs = [replace(_rec(i), batch=f"batch-{i * n_batches // n_rows:02d}") for i in range(n_rows)]
    worst: dict[str, float] = {}
    total: dict[str, float] = {}
    for mode in ("flat", "grouped"):
        model, _proxy, view = _view(app)
        holder = QObject()
        groups = TaskGroupModel(model, holder)
        tree = _tree(app, groups) if mode == "grouped" else None
        if tree is not None:
            groups.set_active(True)
        worst[mode] = 0.0
        t = time.perf_counter()
        for b in range(0, n_rows, 1000):
            t1 = time.perf_counter()
            model.add_records(recs[b:b + 1000])
            model.flush()
            if tree is not None and b == 0:
                tree.expand(groups.index(0, 0))
            app.processEvents()
            worst[mode] = max(worst[mode], time.perf_counter() - t1)
        total[mode] = time.perf_counter() - t
        if tree is not None:
            tree.deleteLater()
        view.deleteLater()
        holder.deleteLater()
    model, _proxy, view = _view(app)
    model.add_records([_rec(i) for i in range(n_rows)])  # one batch, "bench"
    model.flush()
    groups = TaskGroupModel(model)
    tree = _tree(app, groups)
    groups.set_active(True)
    app.processEvents()
    expand_all = _timed(app, lambda: (tree.expand(groups.index(0, 0)), tree.viewport().repaint()))
    tree.deleteLater()
    view.deleteLater()
    return [
        (f"append {n_rows:,} rows in 100 steps of 1,000 (+ repaint each)", _ms(total["flat"]),
         _ms(total["grouped"]), f"worst step flat {_ms(worst['flat'])}, grouped {_ms(worst['grouped'])} "
                                f"(a batch of {n_rows // n_batches:,} expanded)"),
        (f"expand one batch of {n_rows:,} + repaint", "-", _ms(expand_all), "QTreeView asks for every child"),
    ]


def _ms(s: float) -> str:
    return f"{s * 1000:,.0f} ms"


def print_group_costs(app: QApplication, n_rows: int) -> None:
    from bench.common import table

    rows = group_costs(app, n_rows)
    print(f"\nGroups: {n_rows:,} rows, the flat table (TaskTableModel + proxy + QTableView) and the grouped tree "
          "(TaskGroupModel + QTreeView) over the same mirror, both shown 1400x600")
    print(table([("operation", "flat", "grouped", "note"), *rows]), flush=True)
