"""The task table's comforts: the row menu (retry, cancel, copy id / prompt / result, open the
evidence folder, show only this account / profile / batch, export the selection), the header menu
(show or hide columns), Ctrl+C as tab-separated rows, the question before cancelling many rows,
and the export file dialog.

Retry, Cancel, Copy rows and Export are the window's own actions (:class:`WindowActions`), so the
menu, the toolbar and the shortcuts run one code path. Full prompts and results are not in the
table's mirror (it keeps an 80-character head): they are read in a worker thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QCoreApplication, QItemSelectionModel, QObject, QPoint, Qt, QUrl
from PySide6.QtGui import QAction, QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QTableView, QWidget

from mediadesk.config.location import StoreLocation
from mediadesk.core.paths import evidence_name
from mediadesk.store.reader import TaskReader
from mediadesk.ui.jobs.workers import TaskJobs
from mediadesk.ui.models.task_model import TaskFilterProxy, TaskTableModel
from mediadesk.ui.window.actions import WindowActions
from mediadesk.ui.window.filter_bar import FilterBar
from mediadesk.ui.window.status_line import ShowStatus
from mediadesk.viewmodel.columns import Row

__all__ = [
    "CONFIRM_CANCEL_ABOVE",
    "EXPORT_SCOPES",
    "TableHost",
    "TableMenu",
    "ask_cancel_many",
    "cancel_many_text",
    "choose_export_file",
    "export_format_for",
    "fetch_texts",
    "tsv_cell",
]

#: Cancelling more rows than this at once asks first (a stray Del on a select-all is costly).
CONFIRM_CANCEL_ABOVE = 20
#: What an export covers: every task, the rows the filters show, or the selected rows.
EXPORT_SCOPES = ("all", "filtered", "selected")
_SUFFIX_FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".xlsx": "xlsx", ".md": "md"}


class TableHost(Protocol):
    """What the menus need of the main window (its ``model`` is the workspace's shown now)."""

    table: QTableView
    proxy: TaskFilterProxy
    model: TaskTableModel
    window_actions: WindowActions
    filter_bar: FilterBar


def fetch_texts(location: StoreLocation | Path, task_ids: Sequence[str], field: str) -> list[str]:
    """Blocking (worker thread): ``field`` ("prompt" or "result") of each task, in the given order;
    a task without one (no result yet) gives an empty string."""
    reader = TaskReader(location)
    try:
        return [getattr(rec, field) or "" for rec in reader.get_many(task_ids)]
    finally:
        reader.close()


def tsv_cell(value: object) -> str:
    """A cell of a tab-separated line: tabs and line breaks would shift the columns."""
    text = "" if value is None else str(value)
    return text.replace("\t", " ").replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


class TableMenu(QObject):
    """Installs the row and header menus and the Ctrl+C action on ``host.table``; ``selected``
    gives the selected tasks.

    ``opener`` opens the evidence folder (the desktop's file manager); replaceable in tests."""

    def __init__(self, host: TableHost, location: StoreLocation | Path, evidence_dir: Path, *,
                 selected: Callable[[], list[str]], show_status: ShowStatus, parent: QObject | None = None) -> None:
        super().__init__(parent if parent is not None else host.table)
        self.host = host
        self._selected = selected
        self._show_status = show_status
        self.location = location
        self.evidence_dir = evidence_dir
        self.opener: Callable[[QUrl], object] = QDesktopServices.openUrl
        self._jobs = TaskJobs(owner=self)
        self._menu: QMenu | None = None
        #: More entries at the end of the row menu (the grouped view's toggle).
        self.extra_actions: list[QAction] = []
        table = host.table
        table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        table.customContextMenuRequested.connect(self._on_row_menu)
        header = table.horizontalHeader()
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._on_header_menu)
        host.window_actions.copy_rows.triggered.connect(lambda: self.copy_rows())

    def close_jobs(self) -> None:
        self._jobs.cancel_all()

    async def drain_jobs(self) -> None:
        """After :meth:`close_jobs`: wait for the worker threads still running (window close)."""
        await self._jobs.drain()

    # ------------------------------------------------------------------ menus
    def _replace_menu(self, menu: QMenu) -> QMenu:
        if self._menu is not None:
            self._menu.deleteLater()
        self._menu = menu
        return menu

    def _on_row_menu(self, pos: QPoint) -> None:
        index = self.host.table.indexAt(pos)
        if not index.isValid():
            return
        self.row_menu(index.row()).popup(self.host.table.viewport().mapToGlobal(pos))

    def _on_header_menu(self, pos: QPoint) -> None:
        header = self.host.table.horizontalHeader()
        self.header_menu().popup(header.mapToGlobal(pos))

    def row_menu(self, proxy_row: int) -> QMenu:
        """The menu for a right-click on ``proxy_row``: a row outside the selection becomes the
        selection (as in a file manager); inside it, the selection stays."""
        host = self.host
        table = host.table
        sel = table.selectionModel()
        index = host.proxy.index(proxy_row, 0)
        if not sel.isRowSelected(proxy_row):
            sel.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                | QItemSelectionModel.SelectionFlag.Rows)
        ids = self._selected()
        row = self._row(proxy_row)
        n = len(ids)
        a = host.window_actions
        menu = QMenu(table)
        menu.setObjectName("taskRowMenu")
        menu.addAction(a.retry)
        menu.addAction(a.cancel)
        menu.addSeparator()
        self._add(menu, "menuCopyId", self.tr("Copy id") if n == 1 else self.tr("Copy {n} ids").format(n=n),
                  lambda: self.copy_ids(ids))
        self._add(menu, "menuCopyPrompt",
                  self.tr("Copy prompt") if n == 1 else self.tr("Copy {n} prompts").format(n=n),
                  lambda: self.copy_texts(ids, "prompt"))
        self._add(menu, "menuCopyResult",
                  self.tr("Copy result") if n == 1 else self.tr("Copy {n} results").format(n=n),
                  lambda: self.copy_texts(ids, "result"))
        menu.addAction(a.copy_rows)
        menu.addSeparator()
        evidence = self.evidence_dir / evidence_name(row.task_id) if row is not None else None
        act = self._add(menu, "menuOpenEvidence", self.tr("Open evidence folder"),
                        lambda: self.open_evidence(evidence))
        act.setEnabled(evidence is not None and evidence.is_dir())
        if not act.isEnabled():
            act.setToolTip(self.tr("This task saved no screenshot or page (only failed web runs do)"))
        menu.addSeparator()
        account = row.account if row is not None else None
        profile = row.profile if row is not None else None
        batch = row.batch if row is not None else None
        fb = host.filter_bar
        self._add(menu, "menuOnlyAccount",
                  self.tr("Show only account “{name}”").format(name=account) if account
                  else self.tr("Show only this account"),
                  lambda: fb.show_only(account=account)).setEnabled(bool(account))
        self._add(menu, "menuOnlyProfile",
                  self.tr("Show only profile “{name}”").format(name=profile) if profile
                  else self.tr("Show only this profile"),
                  lambda: fb.show_only(profile=profile)).setEnabled(bool(profile))
        self._add(menu, "menuOnlyBatch",
                  self.tr("Show only batch “{name}”").format(name=batch) if batch
                  else self.tr("Show only this batch"),
                  lambda: fb.show_only(batch=batch)).setEnabled(bool(batch))
        self._add(menu, "menuShowAll", self.tr("Show all tasks"), fb.clear_all).setEnabled(host.proxy.active)
        menu.addSeparator()
        menu.addAction(a.export_selected)
        for act in self.extra_actions:
            menu.addAction(act)
        return self._replace_menu(menu)

    def header_menu(self) -> QMenu:
        """One check per column (in the order shown): unchecked columns are hidden. The last
        visible column cannot be hidden."""
        table = self.host.table
        header = table.horizontalHeader()
        model = self.host.model
        menu = QMenu(header)
        menu.setObjectName("taskHeaderMenu")
        visible = [c for c in range(header.count()) if not header.isSectionHidden(c)]
        for v in range(header.count()):
            col = header.logicalIndex(v)
            name = str(model.headerData(col, Qt.Orientation.Horizontal))
            act = QAction(name, menu)
            act.setObjectName(f"headerColumn_{col}")
            act.setCheckable(True)
            act.setChecked(not header.isSectionHidden(col))
            act.setEnabled(not (act.isChecked() and len(visible) == 1))
            act.toggled.connect(lambda on, c=col: table.setColumnHidden(c, not on))
            menu.addAction(act)
        return self._replace_menu(menu)

    @staticmethod
    def _add(menu: QMenu, name: str, text: str, slot: Callable[[], object]) -> QAction:
        act = QAction(text, menu)
        act.setObjectName(name)
        act.triggered.connect(lambda _checked=False: slot())
        menu.addAction(act)
        return act

    def _row(self, proxy_row: int) -> Row | None:
        src = self.host.proxy.mapToSource(self.host.proxy.index(proxy_row, 0)).row()
        return self.host.model.rows.row_at(src) if src >= 0 else None

    # ------------------------------------------------------------------ what the entries do
    def copy_ids(self, ids: Sequence[str]) -> None:
        QGuiApplication.clipboard().setText("\n".join(ids))
        self._show_status(self.tr("Copied {n} ids").format(n=len(ids)))

    def copy_texts(self, ids: Sequence[str], field: str) -> None:
        """Full prompts or results (read in a worker thread), separated by a blank line."""
        ids = list(ids)

        def done(texts: list[str]) -> None:
            QGuiApplication.clipboard().setText("\n\n".join(texts))
            if field == "prompt":
                self._show_status(self.tr("Copied {n} prompts").format(n=len(texts)))
            else:
                self._show_status(self.tr("Copied {n} results").format(n=len(texts)))

        def failed(exc: BaseException) -> None:
            self._show_status(self.tr("Could not read the tasks: {error}").format(error=exc))

        self._jobs.in_thread(lambda: fetch_texts(self.location, ids, field), f"console:copy-{field}", done, failed)

    def copy_rows(self) -> int:
        """Ctrl+C: the selected rows as tab-separated text, the visible columns in their shown
        order, one line per row in table order. Returns the number of rows copied."""
        table = self.host.table
        proxy = self.host.proxy
        header = table.horizontalHeader()
        cols = [header.logicalIndex(v) for v in range(header.count())]
        cols = [c for c in cols if not header.isSectionHidden(c)]
        rows = sorted({i.row() for i in table.selectionModel().selectedRows()})
        lines = ["\t".join(tsv_cell(proxy.index(r, c).data()) for c in cols) for r in rows]
        if lines:
            QGuiApplication.clipboard().setText("\n".join(lines))
            self._show_status(self.tr("Copied {n} rows").format(n=len(lines)))
        return len(lines)

    def open_evidence(self, folder: Path | None) -> None:
        if folder is None or not folder.is_dir():
            self._show_status(self.tr("No evidence folder for this task"))
            return
        self.opener(QUrl.fromLocalFile(str(folder)))


# ---------------------------------------------------------------------------------------- dialogs

def cancel_many_text(n: int, finished: int) -> str:
    """"Cancel 10 tasks? (30 already finished are left as they are) ...": the count is what will
    really be canceled, not the selection."""
    translate = QCoreApplication.translate
    text = translate("TableMenu", "Cancel {n} tasks?").format(n=n)
    if finished:
        text += " " + translate("TableMenu", "({finished} already finished are left as they are)").format(
            finished=finished)
    return text + " " + translate("TableMenu", "Running ones stop at their next checkpoint; canceled tasks can "
                                               "be retried later.")


def ask_cancel_many(parent: QWidget, n: int, finished: int = 0) -> bool:
    """The question before cancelling from more than :data:`CONFIRM_CANCEL_ABOVE` selected rows;
    "keep" is the default (Enter or Esc keeps them)."""
    translate = QCoreApplication.translate
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle(translate("TableMenu", "Cancel tasks"))
    box.setText(cancel_many_text(n, finished))
    go = box.addButton(translate("TableMenu", "Cancel {n} tasks").format(n=n), QMessageBox.ButtonRole.DestructiveRole)
    keep = box.addButton(translate("TableMenu", "Keep them"), QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(keep)
    box.setEscapeButton(keep)
    box.exec()
    return box.clickedButton() is go


def export_format_for(path: str, selected_filter: str = "") -> tuple[Path, str]:
    """The format of an export file: by its suffix, else by the chosen file-type filter (whose
    suffix is then added). JSONL when neither says."""
    p = Path(path)
    fmt = _SUFFIX_FORMATS.get(p.suffix.lower())
    if fmt is not None:
        return p, fmt
    for suffix, f in _SUFFIX_FORMATS.items():
        if f"*{suffix}" in selected_filter:
            return p.with_name(p.name + suffix), f
    return p.with_name(p.name + ".jsonl"), "jsonl"


def choose_export_file(parent: QWidget, scope: str) -> tuple[Path, str] | None:
    """The save dialog for an export of ``scope``; None when the operator cancels."""
    translate = QCoreApplication.translate
    titles = {"all": translate("TableMenu", "Export all tasks"),
              "filtered": translate("TableMenu", "Export filtered rows"),
              "selected": translate("TableMenu", "Export selected rows")}
    names = {"all": "mediadesk-results.jsonl", "filtered": "mediadesk-filtered.jsonl",
             "selected": "mediadesk-selected.jsonl"}
    filters = ";;".join([translate("TableMenu", "JSON Lines (*.jsonl)"), translate("TableMenu", "CSV (*.csv)"),
                         translate("TableMenu", "Excel workbook (*.xlsx)"),
                         translate("TableMenu", "Markdown table (*.md)")])
    path, flt = QFileDialog.getSaveFileName(parent, titles.get(scope, titles["all"]),
                                            str(Path.home() / names.get(scope, names["all"])), filters)
    if not path:
        return None
    return export_format_for(path, flt)
