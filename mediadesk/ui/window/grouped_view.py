"""The task table's "Group by batch" view: a tree beside the flat table, one collapsible row per
batch with its progress, its tasks under it with the flat table's columns.

A toggle in the filter toolbar and in the table's row menu switches the two (the choice is
remembered). The tree's model (:class:`TaskGroupModel`) groups the flat model's mirror in its display
order with the filter bar's filter, so a header click sorts inside the groups and the filters narrow
them. Selecting a batch row selects every task it shows. The tree model follows the flat one only
while the tree is shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QModelIndex, QObject, QPoint, QSettings, Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QMenu, QStackedWidget, QTableView, QTreeView

from mediadesk.store.metrics import MetricsReader
from mediadesk.ui.jobs.workers import TaskJobs
from mediadesk.ui.models.group_model import ProgressDelegate, TaskGroupModel
from mediadesk.ui.models.task_model import Col, TaskFilterProxy, TaskTableModel
from mediadesk.ui.style import icon
from mediadesk.ui.window.actions import WindowActions
from mediadesk.ui.window.filter_bar import FilterBar
from mediadesk.ui.window.status_line import ShowStatus
from mediadesk.ui.window.table_menu import TableMenu, tsv_cell

if TYPE_CHECKING:
    from pathlib import Path

    from mediadesk.config.location import StoreLocation

__all__ = ["GROUPED_KEY", "GroupedTable", "read_batch_times"]

translate = QCoreApplication.translate

#: QSettings key: the grouped view was shown when the console closed.
GROUPED_KEY = "taskTable/groupByBatch"


def read_batch_times(location: StoreLocation | Path) -> dict[str | None, float]:
    """Blocking (worker thread): when each batch was submitted (its first task's creation)."""
    with MetricsReader(location) as r:
        return {c.batch: c.submitted_at for c in r.batches(with_ahead=False)}


class GroupedTable(QObject):
    """Owns the tree, its model and the toggle; ``stack`` holds the flat ``table`` and the tree.

    The task model and the store are one workspace's (:meth:`rebind` on a switch)."""

    #: The tree's current row is this task (the detail pane shows it).
    taskChosen = Signal(str)

    def __init__(self, stack: QStackedWidget, table: QTableView, proxy: TaskFilterProxy, model: TaskTableModel,
                 location: StoreLocation | Path, *, actions: WindowActions, filter_bar: FilterBar,
                 table_menu: TableMenu, settings: QSettings, show_status: ShowStatus, parent: QObject) -> None:
        super().__init__(parent)
        self.stack = stack
        self._table = table
        self._proxy = proxy
        self._location = location
        self._actions = actions
        self._table_menu = table_menu
        self._settings = settings
        self._show_status = show_status
        self.model = TaskGroupModel(model, self)
        self.tree = self._build_tree()
        stack.addWidget(self.tree)
        self._jobs = TaskJobs(owner=self)
        self._times_pending = False
        self.action = QAction(icon("group"), translate("GroupedTable", "Group by batch"), parent)
        self.action.setObjectName("actGroupByBatch")
        self.action.setCheckable(True)
        self.action.setToolTip(translate("GroupedTable", "Show the tasks grouped under their batch, each batch "
                                                         "with its progress (click again for the flat list)"))
        self.action.toggled.connect(self.set_grouped)
        filter_bar.addAction(self.action)
        table_menu.extra_actions.append(self.action)
        self.copy_action = QAction(translate("GroupedTable", "Copy rows"), self.tree)
        self.copy_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Copy))
        self.copy_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.copy_action.triggered.connect(self.copy_rows)
        self.tree.addAction(self.copy_action)
        self.tree.addAction(actions.cancel)  # Del, as in the flat table
        filter_bar.changed.connect(lambda: self.model.set_filter(filter_bar.row_filter()))
        self.model.set_filter(filter_bar.row_filter())
        self.model.rowsInserted.connect(self._on_groups_inserted)

    def _build_tree(self) -> QTreeView:
        t = QTreeView()
        t.setObjectName("taskTree")
        t.setModel(self.model)
        t.setUniformRowHeights(True)  # 100k children: no per-row size questions
        t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        t.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        t.setAlternatingRowColors(True)
        t.setTextElideMode(Qt.TextElideMode.ElideRight)
        t.setItemDelegateForColumn(Col.STATE, ProgressDelegate(t))
        t.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        t.customContextMenuRequested.connect(self._on_menu)
        hh = t.header()
        hh.setSectionsClickable(True)
        hh.setSortIndicatorShown(True)
        hh.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        hh.sortIndicatorChanged.connect(self._on_sort)
        t.selectionModel().currentRowChanged.connect(lambda cur, _prev: self._show_current(cur))
        return t

    # ------------------------------------------------------------------ the toggle
    @property
    def active(self) -> bool:
        return self.model.active

    def set_grouped(self, on: bool) -> None:
        """Show the grouped tree (True) or the flat table; remembered in the settings."""
        if self.action.isChecked() != on:
            self.action.setChecked(on)  # toggled -> here again
            return
        self._settings.setValue(GROUPED_KEY, on)
        if on == self.model.active:
            return
        flat, tree = self._table.horizontalHeader(), self.tree.header()
        _copy_header(*((flat, tree) if on else (tree, flat)))
        self.model.set_active(on)
        self.stack.setCurrentWidget(self.tree if on else self._table)
        if on:
            self.read_batch_times()

    def restore(self) -> None:
        """Show the view the operator chose last time (after the flat header was restored)."""
        self.set_grouped(_truthy(self._settings.value(GROUPED_KEY, False)))

    def sync_flat_header(self) -> None:
        """Before the layout is saved: the flat header takes the tree's widths, order and sort."""
        if self.active:
            _copy_header(self.tree.header(), self._table.horizontalHeader())

    def rebind(self, model: TaskTableModel, location: StoreLocation | Path) -> None:
        """The window shows another workspace: group its model."""
        self._location = location
        self.model.set_source(model)
        if self.active:
            self.read_batch_times()

    # ------------------------------------------------------------------ selection and actions
    def selected_task_ids(self) -> list[str]:
        """Every selected task; a batch row stands for each task it shows."""
        return self.model.task_ids_of(self.tree.selectionModel().selectedRows())

    def _show_current(self, index: QModelIndex) -> None:
        task_id = index.data(TaskGroupModel.TaskIdRole) if index.isValid() else None
        if task_id is not None:
            self.taskChosen.emit(task_id)

    def _on_sort(self, column: int, order: Qt.SortOrder) -> None:
        """A header click sorts the mirror (inside every group); the flat header shows the same."""
        hh = self._table.horizontalHeader()
        hh.blockSignals(True)
        hh.setSortIndicator(column, order)
        hh.blockSignals(False)
        self._proxy.sort(column, order)

    def copy_rows(self) -> int:
        """Ctrl+C: the selected tasks as tab-separated rows (the flat table's visible columns)."""
        header = self.tree.header()
        cols = [header.logicalIndex(v) for v in range(header.count())]
        cols = [c for c in cols if not header.isSectionHidden(c)]
        model = self.model.source
        lines = []
        for tid in self.selected_task_ids():
            row = model.row_of(tid)
            if row is not None:
                lines.append("\t".join(tsv_cell(model.index(row, c).data()) for c in cols))
        if lines:
            QGuiApplication.clipboard().setText("\n".join(lines))
            self._show_status(translate("GroupedTable", "Copied {n} rows").format(n=len(lines)))
        return len(lines)

    def _on_menu(self, pos: QPoint) -> None:
        index = self.tree.indexAt(pos)
        sel = self.tree.selectionModel()
        if index.isValid() and not sel.isRowSelected(index.row(), index.parent()):
            sel.setCurrentIndex(index, sel.SelectionFlag.ClearAndSelect | sel.SelectionFlag.Rows)
        self.menu().popup(self.tree.viewport().mapToGlobal(pos))

    def menu(self) -> QMenu:
        """The tree's row menu: the table actions, expand or collapse every batch, the toggle."""
        a = self._actions
        menu = QMenu(self.tree)
        menu.setObjectName("taskTreeMenu")
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        menu.addAction(a.retry)
        menu.addAction(a.cancel)
        ids = self.selected_task_ids()
        copy_ids = menu.addAction(translate("GroupedTable", "Copy {n} ids").format(n=len(ids)))
        copy_ids.triggered.connect(lambda: self._table_menu.copy_ids(ids))
        copy_ids.setEnabled(bool(ids))
        menu.addAction(self.copy_action)
        menu.addSeparator()
        expand = menu.addAction(translate("GroupedTable", "Expand all batches"))
        expand.triggered.connect(self.tree.expandAll)
        collapse = menu.addAction(translate("GroupedTable", "Collapse all batches"))
        collapse.triggered.connect(self.tree.collapseAll)
        menu.addSeparator()
        menu.addAction(a.export_selected)
        menu.addAction(self.action)
        return menu

    # ------------------------------------------------------------------ batch submission times
    def _on_groups_inserted(self, parent: QModelIndex, _first: int, _last: int) -> None:
        if not parent.isValid():  # a new batch: when was it submitted?
            self.read_batch_times()

    def read_batch_times(self) -> None:
        """Read when each batch was submitted (worker thread); one read at a time."""
        if self._times_pending:
            return
        self._times_pending = True
        location = self._location

        def done(times: dict[str | None, float]) -> None:
            self._times_pending = False
            self.model.batch_times = times
            n = self.model.rowCount()
            if n:
                self.model.dataChanged.emit(self.model.index(0, Col.STARTED), self.model.index(n - 1, Col.STARTED))

        def failed(_exc: BaseException) -> None:
            self._times_pending = False  # the times stay empty; the tasks are still grouped

        self._jobs.in_thread(lambda: read_batch_times(location), "console:batch-times", done, failed)

    def close_jobs(self) -> None:
        self._jobs.cancel_all()

    async def drain_jobs(self) -> None:
        await self._jobs.drain()


def _copy_header(src: QHeaderView, dst: QHeaderView) -> None:
    """Widths, order, hidden columns and the sort indicator, without a sort."""
    dst.blockSignals(True)
    dst.restoreState(src.saveState())
    dst.blockSignals(False)


def _truthy(value: object) -> bool:
    """A QSettings boolean (an INI file gives the string "true")."""
    return value is True or (isinstance(value, str) and value.lower() == "true")

