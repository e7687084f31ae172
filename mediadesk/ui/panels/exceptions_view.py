"""The Exceptions tab: failed tasks a person must judge (``Scheduler.exceptions``) with their evidence
and the operator's decision (retry, re-route, answer by hand, drop; Drop asks first); above them,
stopped API endpoints with Resume and accounts waiting for a person.

The list is read on the loop thread, logs and evidence in a worker (:class:`TaskJobs`). Scheduler
events alone drive coalesced refreshes, no store poll: a task leaves ``failed`` only through a
scheduler, and this console's scheduler holds the database lock.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from mediadesk.config.location import StoreLocation
from mediadesk.core.paths import evidence_name
from mediadesk.scheduler.events import TaskChanged
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.store.taskstore import LogLine, TaskRecord
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.format import error_kind_label, error_line, plain_error
from mediadesk.ui.jobs.workers import TaskJobs, fetch_task_detail
from mediadesk.ui.panels.account_exceptions import AccountExceptionsBox
from mediadesk.ui.panels.detail_pane import format_log_html
from mediadesk.ui.panels.stopped_endpoints import StoppedEndpoints
from mediadesk.ui.plain import plain, plain_tip

__all__ = ["ExceptionsView", "read_exception_detail"]


def read_exception_detail(location: StoreLocation | Path, evidence_dir: Path,
                          task_id: str) -> tuple[list[LogLine], list[Path]]:
    """Blocking (worker thread): the task's stored log and its evidence files, if any."""
    _rec, logs = fetch_task_detail(location, task_id)
    d = evidence_dir / evidence_name(task_id)
    files = sorted(p for p in d.iterdir() if p.is_file()) if d.is_dir() else []
    return logs, files


class ExceptionsView(QWidget):
    """The table of exceptions, the selected one's detail, and the resolution controls."""

    # The number of unresolved exceptions changed, accounts that need a person included (for the tab title).
    countChanged = Signal(int)
    # The list was re-read.
    refreshed = Signal()
    # The detail (log, evidence) of the selected task was loaded.
    detailLoaded = Signal(str)

    def __init__(self, scheduler: Scheduler, bridge: SchedulerBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scheduler = scheduler
        self.records: list[TaskRecord] = []
        self.count = 0
        self.evidence: list[Path] = []
        # Opens an evidence file or a log link (the desktop's default application); replaceable in tests.
        self.opener: Callable[[QUrl], object] = QDesktopServices.openUrl
        #: Asked before a drop: (task ids) -> go ahead? Replaceable in tests.
        self.confirm_drop: Callable[[list[str]], bool] = self._ask_drop
        self._listed: set[str] = set()
        self._jobs = TaskJobs(owner=self)
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(500)
        self._refresh_timer.timeout.connect(self.refresh)

        self.table = QTableWidget(0, 4)
        self.table.setObjectName("exceptionsTable")
        self.table.setHorizontalHeaderLabels(
            [self.tr("Task"), self.tr("Profile"), self.tr("Kind"), self.tr("Message")])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.currentCellChanged.connect(lambda row, _c, _pr, _pc: self._show_row(row))
        self.show_resolved = QCheckBox(self.tr("Show resolved"))
        self.show_resolved.toggled.connect(lambda _on: self.refresh())

        self.header = QLabel(self.tr("No exception selected."))
        self.header.setTextFormat(Qt.TextFormat.RichText)  # bold id; every value in it is escaped
        self.header.setWordWrap(True)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_view = plain(QLabel())  # a server's error body: shown as text, never as HTML
        self.error_view.setWordWrap(True)
        self.error_view.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_view.setStyleSheet("color: #d32f2f")
        self.prompt_view = QPlainTextEdit()
        self.prompt_view.setReadOnly(True)
        self.prompt_view.setPlaceholderText(self.tr("prompt"))
        self.evidence_view = QLabel()
        self.evidence_view.setTextFormat(Qt.TextFormat.RichText)  # file links; names escaped
        self.evidence_view.setWordWrap(True)
        self.evidence_view.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.evidence_view.linkActivated.connect(self._open_link)
        self.log_view = QTextBrowser()
        self.log_view.setOpenLinks(False)
        self.log_view.anchorClicked.connect(lambda url: self.opener(url))
        self.log_view.setPlaceholderText(self.tr("task log"))

        self.note_edit = QLineEdit()
        self.note_edit.setPlaceholderText(self.tr("note (kept with the decision)"))
        self.answer_edit = QPlainTextEdit()
        self.answer_edit.setPlaceholderText(self.tr("the answer, pasted by hand"))
        self.retry_button = QPushButton(self.tr("Retry"))
        self.reroute_button = QPushButton(self.tr("Re-route to"))
        self.profile_combo = QComboBox()
        self.profile_combo.addItems(scheduler.profile_names())
        self.answer_button = QPushButton(self.tr("Answer by hand"))
        self.drop_button = QPushButton(self.tr("Drop"))
        self.retry_button.clicked.connect(lambda: self.resolve("retry"))
        self.reroute_button.clicked.connect(lambda: self.resolve("reroute"))
        self.answer_button.clicked.connect(lambda: self.resolve("answer"))
        self.drop_button.clicked.connect(lambda: self.resolve("drop"))
        self.status_label = plain(QLabel())
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.show_resolved)
        ll.addWidget(self.table, 1)
        # The decision first: the resolve controls sit under the one-line header, so they are on
        # screen at the default dock height (about 150 px); prompt, log and the answer by hand are
        # tabs below, and only they scroll.
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.setSpacing(3)
        rl.addWidget(self.header)
        buttons = QHBoxLayout()
        for w in (self.retry_button, self.reroute_button, self.profile_combo, self.answer_button, self.drop_button):
            buttons.addWidget(w)
        buttons.addWidget(self.note_edit, 1)
        rl.addLayout(buttons)
        rl.addWidget(self.status_label)
        rl.addWidget(self.error_view)
        self.detail_tabs = QTabWidget()
        self.detail_tabs.setObjectName("exceptionTabs")
        self.detail_tabs.setDocumentMode(True)
        self.detail_tabs.addTab(self.prompt_view, self.tr("Prompt"))
        self.detail_tabs.addTab(self.log_view, self.tr("Task log"))
        self.detail_tabs.addTab(self.answer_edit, self.tr("Answer by hand"))
        rl.addWidget(self.detail_tabs, 1)
        rl.addWidget(self.evidence_view)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("exceptionsSplitter")
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.stopped = StoppedEndpoints(scheduler, bridge)
        self.stopped.countChanged.connect(lambda _n: self._emit_count())
        self.accounts_box = AccountExceptionsBox(scheduler, bridge, self)
        self.accounts_box.countChanged.connect(lambda _n: self._emit_count())
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.stopped)
        lay.addWidget(self.accounts_box)
        lay.addWidget(self.splitter, 1)

        bridge.taskChanged.connect(self._on_changed)
        self._set_actions_enabled(False)
        self.refresh()

    # ------------------------------------------------------------------ API
    @property
    def current(self) -> TaskRecord | None:
        row = self.table.currentRow()
        return self.records[row] if 0 <= row < len(self.records) else None

    def task_ids(self) -> list[str]:
        return [r.task_id for r in self.records]

    def select_task(self, task_id: str) -> bool:
        for i, rec in enumerate(self.records):
            if rec.task_id == task_id:
                self.table.setCurrentCell(i, 0)
                return True
        return False

    def refresh(self) -> None:
        """Re-read the list (a short indexed query) and keep the selection where possible."""
        cur = self.current
        keep = cur.task_id if cur is not None else None
        self.records = self.scheduler.exceptions(include_resolved=self.show_resolved.isChecked())
        self._listed = {r.task_id for r in self.records}
        self.table.blockSignals(True)
        self.table.setRowCount(len(self.records))
        for i, rec in enumerate(self.records):
            said = plain_error(rec.error_message)  # the operator's words; the stored text one hover away
            cells = (rec.task_id, rec.profile, error_kind_label(rec.error_kind), said.summary)
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if col == 2 and rec.error_kind:
                    item.setToolTip(rec.error_kind)
                elif col == 3 and said.has_detail:
                    item.setToolTip(plain_tip(self.tr("Details: {detail}").format(detail=said.detail)))
                if rec.resolution:
                    item.setForeground(Qt.GlobalColor.gray)
                    item.setToolTip(plain_tip(self.tr("resolved: {r}").format(r=rec.resolution)))
                self.table.setItem(i, col, item)
        self.table.blockSignals(False)
        self.count = sum(1 for r in self.records if not r.resolution)
        self.stopped.refresh()  # emits the count with the stopped endpoints
        if keep is None or not self.select_task(keep):
            self.table.setCurrentCell(-1, -1)
            self._show_row(-1)
        else:
            self._show_row(self.table.currentRow())
        self.refreshed.emit()

    def selected(self) -> list[TaskRecord]:
        """The selected unresolved rows in table order (the current row when none is selected)."""
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        recs = [self.records[r] for r in rows if 0 <= r < len(self.records)]
        if not recs and self.current is not None:
            recs = [self.current]
        return [r for r in recs if not r.resolution]

    def resolve(self, action: str) -> bool:
        """Apply the operator's decision to the selected tasks (an answer by hand: exactly one);
        a drop is confirmed first. Errors go to the status label."""
        recs = self.selected()
        if not recs:
            self._say(self.tr("Select an exception first."), error=True)
            return False
        if action == "answer" and len(recs) > 1:
            self._say(self.tr("Select one exception to answer by hand."), error=True)
            return False
        ids = [r.task_id for r in recs]
        if action == "drop" and not self.confirm_drop(ids):
            return False
        note = self.note_edit.text().strip()
        answer = self.answer_edit.toPlainText() if action == "answer" else None
        if answer is not None and not answer.strip():
            self.detail_tabs.setCurrentWidget(self.answer_edit)  # where the answer goes
        profile = self.profile_combo.currentText() if action == "reroute" else None
        errors: list[str] = []
        for tid in ids:
            try:
                self.scheduler.resolve_exception(tid, action, note, answer=answer, profile=profile)
            except ValueError as exc:
                errors.append(self.tr("Could not resolve {id}: {why}").format(id=tid, why=str(exc)))
        done = len(ids) - len(errors)
        if errors:
            self._say("\n".join(errors), error=True)
        elif len(ids) == 1:
            self._say(self.tr("{id}: {action} done.").format(id=ids[0], action=action))
        else:
            self._say(self.tr("{n} tasks: {action} done.").format(n=done, action=action))
        if done:
            self.note_edit.clear()
            self.answer_edit.clear()
            self.refresh()
        return not errors

    def _ask_drop(self, task_ids: list[str]) -> bool:
        n = len(task_ids)
        head = (self.tr("Drop task {id}?").format(id=task_ids[0]) if n == 1
                else self.tr("Drop {n} tasks?").format(n=n))
        lines = [head]
        if n > 1:
            lines.append(self.tr("Tasks: {ids}").format(ids=", ".join(task_ids[:10]) + (", …" if n > 10 else "")))
        lines.append(self.tr("They stay failed, leave this list, and are exported as dropped with your note."))
        box = plain(QMessageBox(self))
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(self.tr("Drop exceptions"))
        box.setText("\n".join(lines))
        drop = box.addButton(self.tr("Drop"), QMessageBox.ButtonRole.DestructiveRole)
        keep = box.addButton(self.tr("Cancel"), QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(keep)
        box.setEscapeButton(keep)
        box.exec()
        return box.clickedButton() is drop

    @property
    def busy(self) -> bool:
        return len(self._jobs) > 0 or self._refresh_timer.isActive()

    def close_jobs(self) -> None:
        self._refresh_timer.stop()
        self._jobs.cancel_all()

    async def drain_jobs(self) -> None:
        """After :meth:`close_jobs`: wait for the worker threads still running (window close)."""
        await self._jobs.drain()

    # ------------------------------------------------------------------ internals
    def _emit_count(self) -> None:
        self.countChanged.emit(self.count + len(self.stopped.stops) + len(self.accounts_box.entries))

    def _say(self, text: str, *, error: bool = False) -> None:
        self.status_label.setStyleSheet("color: #d32f2f" if error else "")
        self.status_label.setText(text)

    def _set_actions_enabled(self, on: bool) -> None:
        for w in (self.retry_button, self.reroute_button, self.answer_button, self.drop_button):
            w.setEnabled(on)

    def _show_row(self, row: int) -> None:
        rec = self.records[row] if 0 <= row < len(self.records) else None
        self.log_view.clear()
        self.evidence_view.clear()
        self.evidence = []
        self._set_actions_enabled(rec is not None and not rec.resolution)
        if rec is None:
            self.header.setText(self.tr("No exception selected."))
            self.error_view.clear()
            self.error_view.setToolTip("")
            self.prompt_view.clear()
            return
        head = self.tr("<b>{id}</b> · {profile} · attempt {attempt}").format(
            id=html.escape(rec.task_id), profile=html.escape(rec.profile), attempt=rec.attempt)
        if rec.resolution:
            head += " · " + self.tr("resolved: {r} {note}").format(
                r=html.escape(rec.resolution), note=html.escape(rec.resolution_note or ""))
        self.header.setText(head)
        said = error_line(rec.error_kind, rec.error_message)
        self.error_view.setText(said.summary)
        self.error_view.setToolTip(plain_tip(self.tr("Details: {detail}").format(detail=said.detail))
                                   if said.has_detail else "")
        self.prompt_view.setPlainText(rec.prompt)
        tid = rec.task_id
        db, ev = self.scheduler.workspace.location, self.scheduler.workspace.evidence_dir
        self._jobs.in_thread(lambda: read_exception_detail(db, ev, tid), f"exceptions:{tid}",
                             lambda res: self._detail_loaded(tid, *res))

    def _detail_loaded(self, tid: str, logs: list[LogLine], files: list[Path]) -> None:
        cur = self.current
        if cur is None or cur.task_id != tid:
            return  # the operator moved on meanwhile
        self.evidence = files
        if files:
            links = ", ".join(f'<a href="{html.escape(QUrl.fromLocalFile(str(p)).toString(), quote=True)}">'
                              f"{html.escape(p.name)}</a>" for p in files)
            self.evidence_view.setText(self.tr("Evidence: {links}").format(links=links))
        else:
            self.evidence_view.setText(self.tr("No evidence files."))
        self.log_view.setHtml("".join(f"<div>{format_log_html(ln.ts, ln.lane, ln.message, ln.text)}</div>"
                                      for ln in sorted(logs, key=lambda ln: ln.ts)))
        self.detailLoaded.emit(tid)

    def _open_link(self, link: str) -> None:
        self.opener(QUrl(link))

    def _on_changed(self, ev: TaskChanged) -> None:
        if (ev.state == "failed" or ev.task_id in self._listed) and not self._refresh_timer.isActive():
            self._refresh_timer.start()
