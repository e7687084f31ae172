"""The selected task in full: its result first (selectable, Copy), then prompt and log as tabs, attempts, error.

The record and the stored log are read in a worker thread (never on the GUI thread); while that
read is in flight, live ``taskLog`` lines for the task are buffered and merged by timestamp, so a
line is neither lost nor shown twice. Paths in log lines (evidence screenshots and HTML from web
failures) become links that open with the desktop's default application.
"""

from __future__ import annotations

import asyncio
import html
import re
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mediadesk.config.location import StoreLocation
from mediadesk.core.log_lines import LogText
from mediadesk.scheduler.events import TaskChanged, TaskLogLine
from mediadesk.store.taskstore import LogLine, TaskRecord
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.format import error_line, fmt_stamp, state_labels
from mediadesk.ui.jobs.workers import TaskJobs, fetch_task_detail
from mediadesk.ui.panels.log_dock import shown_log_message
from mediadesk.ui.plain import plain, plain_tip

__all__ = ["DetailPane", "FlatLabel", "format_log_html", "linkify_paths"]

# An absolute POSIX or Windows path ending in a file extension (evidence files, traces, dumps).
_PATH_RE = re.compile(r"(?:(?<=\s)|(?<=^)|(?<=[(\[=:'\"（：]))((?:/|[A-Za-z]:[\\/])[^\s'\"<>|]*\.[A-Za-z0-9]{1,6})")


def linkify_paths(text: str) -> str:
    """HTML-escape ``text`` and turn file paths into ``file://`` links."""
    out: list[str] = []
    pos = 0
    for m in _PATH_RE.finditer(text):
        out.append(html.escape(text[pos:m.start(1)]))
        path = m.group(1)
        url = QUrl.fromLocalFile(path).toString()
        out.append(f'<a href="{html.escape(url, quote=True)}">{html.escape(path)}</a>')
        pos = m.end(1)
    out.append(html.escape(text[pos:]))
    return "".join(out)


def format_log_html(ts: float, lane: str, message: str, text: LogText | None = None) -> str:
    stamp = fmt_stamp(ts, millis=True)
    return (f'<span style="color:gray">{stamp}</span> <b>[{html.escape(lane)}]</b> '
            f"{linkify_paths(shown_log_message(message, text))}")


class FlatLabel(QLabel):
    """A word-wrapped label that gives no height-for-width: with one, the scroll area around the
    pane sizes it to its preferred height (about 250 px) and the result scrolls out of view."""

    def hasHeightForWidth(self) -> bool:
        return False


class DetailPane(QWidget):
    """Shows one task. ``show_task(None)`` clears it."""

    #: A file path from the log was clicked (after it was handed to the desktop to open).
    pathActivated = Signal(str)
    #: The record for the current task was (re)loaded.
    loaded = Signal(str)

    def __init__(self, location: StoreLocation | Path, bridge: SchedulerBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.location = location
        self.current_task_id: str | None = None
        #: Opens a clicked path (the desktop's default application); replaceable in tests.
        self.opener: Callable[[QUrl], object] = QDesktopServices.openUrl
        self.record: TaskRecord | None = None
        self._jobs = TaskJobs()
        self._loading: str | None = None
        self._shown_log: set[tuple[float, str]] = set()
        self._log_lines: list[tuple[float, str, str]] = []
        self._buffer: list[TaskLogLine] = []
        self._reload = QTimer(self)
        self._reload.setSingleShot(True)
        self._reload.setInterval(200)
        self._reload.timeout.connect(self._start_load)
        # The store writes its own log lines (claim, success, retry) in batches a few times a
        # second, so a read right after a state change can miss the newest lines: a record that
        # changed in the last second is read once more, half a second later.
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(500)
        self._settle.timeout.connect(self._start_settle_load)

        self.header = QLabel(self.tr("No task selected."))
        self.header.setTextFormat(Qt.TextFormat.RichText)  # bold id; every value in it is escaped
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # one line (a wrapped header asked for three and pushed the result down); never widens the window
        self.header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        #: What the task used, in tokens ("tokens: 120 in (20 cached) / 340 out"); hidden when unknown.
        self.usage_label = plain(QLabel())
        self.usage_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.usage_label.setVisible(False)
        self.error_label = plain(FlatLabel())  # a server's error body: shown as text, never as HTML
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.setStyleSheet("color: #d32f2f")
        self.error_label.setVisible(False)
        self.prompt_view = QPlainTextEdit()
        self.prompt_view.setReadOnly(True)
        self.prompt_view.setPlaceholderText(self.tr("prompt"))
        self.result_view = QPlainTextEdit()
        self.result_view.setReadOnly(True)
        self.result_view.setPlaceholderText(self.tr("result"))
        #: A reasoning model's thinking, folded above the answer (kept apart from it by the lanes);
        #: the button says how long it is and opens it; both hidden for a task without any.
        self.reasoning_button = QToolButton()
        self.reasoning_button.setObjectName("reasoningToggle")
        self.reasoning_button.setCheckable(True)
        self.reasoning_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.reasoning_button.setArrowType(Qt.ArrowType.RightArrow)
        self.reasoning_button.setAutoRaise(True)
        self.reasoning_button.toggled.connect(self._fold_reasoning)
        self.reasoning_button.setVisible(False)
        self.reasoning_view = QPlainTextEdit()
        self.reasoning_view.setObjectName("reasoningView")
        self.reasoning_view.setReadOnly(True)
        self.reasoning_view.setAccessibleName(self.tr("Reasoning"))
        self.reasoning_view.setVisible(False)
        self.copy_button = QPushButton(self.tr("Copy result"))
        self.copy_button.setEnabled(False)
        self.copy_button.clicked.connect(self.copy_result)
        self.log_view = QTextBrowser()
        self.log_view.setOpenLinks(False)
        self.log_view.setOpenExternalLinks(False)
        self.log_view.anchorClicked.connect(self._open_link)
        self.log_view.setPlaceholderText(self.tr("task log"))

        # The result first and given the room (the first column, the larger share); the prompt and
        # the task log share the second column as tabs, so at the default splitter height (about
        # 200 px, less on a small screen) the result is on screen without scrolling.
        # No caption row of its own: "Copy result" sits at the end of the header line, so on a
        # 1024x640 screen (menu bar, toolbars and docks take their share) the result keeps 3 lines.
        self.result_view.setAccessibleName(self.tr("Result"))
        self.result_view.setToolTip(self.tr("Result"))
        self.side_tabs = QTabWidget()
        self.side_tabs.setObjectName("detailTabs")
        self.side_tabs.setDocumentMode(True)
        self.side_tabs.addTab(self.prompt_view, self.tr("Prompt"))
        self.side_tabs.addTab(self.log_view, self.tr("Task log"))
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("detailSplitter")
        answer_column = QWidget()
        column = QVBoxLayout(answer_column)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.reasoning_button)
        column.addWidget(self.reasoning_view, 1)
        column.addWidget(self.result_view, 3)
        self.splitter.addWidget(answer_column)
        self.splitter.addWidget(self.side_tabs)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        # never squeezed to nothing: the result keeps 3 lines, the tabbed views (under a tab bar) 2,
        # so the whole pane fits the ~95 px a 1024x640 screen leaves it without scrolling
        self.result_view.setMinimumHeight(3 * self.result_view.fontMetrics().lineSpacing())
        for view in (self.prompt_view, self.log_view):
            view.setMinimumHeight(2 * view.fontMetrics().lineSpacing())
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        top = QHBoxLayout()  # the header, the usage and Copy on one line: the result keeps the room
        top.addWidget(self.header, 1)
        top.addWidget(self.usage_label)
        top.addWidget(self.copy_button)
        lay.addLayout(top)
        lay.addWidget(self.error_label)
        lay.addWidget(self.splitter, 1)

        bridge.taskLog.connect(self._on_log)
        bridge.taskChanged.connect(self._on_changed)

    # ------------------------------------------------------------------ API
    def show_task(self, task_id: str | None) -> None:
        if task_id == self.current_task_id:
            return
        self.current_task_id = task_id
        self.record = None
        self._shown_log.clear()
        self._log_lines.clear()
        self._buffer.clear()
        self.log_view.clear()
        self.prompt_view.clear()
        self.result_view.clear()
        self.error_label.clear()
        self.error_label.setVisible(False)
        self.usage_label.clear()
        self.usage_label.setVisible(False)
        self._show_reasoning(None)
        self.copy_button.setEnabled(False)
        if task_id is None:
            self.header.setText(self.tr("No task selected."))
            return
        self.header.setText(self.tr("{id} — loading…").format(id=html.escape(task_id)))
        self._start_load()

    def copy_result(self) -> None:
        QGuiApplication.clipboard().setText(self.result_view.toPlainText())

    def log_text(self) -> str:
        return self.log_view.toPlainText()

    @property
    def busy(self) -> bool:
        return self._loading is not None or self._reload.isActive() or self._settle.isActive()

    def close_jobs(self) -> None:
        self._reload.stop()
        self._settle.stop()
        self._jobs.cancel_all()

    async def drain_jobs(self) -> None:
        """After :meth:`close_jobs`: wait for the worker threads still running (window close)."""
        await self._jobs.drain()

    # ------------------------------------------------------------------ loading
    def _start_settle_load(self) -> None:
        self._start_load(settle=True)

    def _start_load(self, settle: bool = False) -> None:
        tid = self.current_task_id
        if tid is None:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop yet (e.g. during construction): try again shortly
            self._reload.start()
            return
        self._loading = tid
        self._jobs.spawn(self._load(tid, settle), f"detail:{tid}")

    async def _load(self, tid: str, settle: bool = False) -> None:
        try:
            rec, logs = await asyncio.to_thread(fetch_task_detail, self.location, tid)
        finally:
            if self._loading == tid:
                self._loading = None
        if tid != self.current_task_id:
            return  # the operator moved on meanwhile
        self.record = rec
        self._render_record(rec)
        self._merge_logs(logs)
        if not settle and rec is not None and time.time() - rec.updated_at < 1.0:
            self._settle.start()
        self.loaded.emit(tid)

    def _render_record(self, rec: TaskRecord | None) -> None:
        if rec is None:
            self.header.setText(self.tr("{id} — not found").format(id=html.escape(self.current_task_id or "")))
            return
        where = rec.lane or rec.profile
        if rec.account and rec.lane is None:
            where += f" / {rec.account}"
        self.header.setText(self.tr("<b>{id}</b> · {state} · attempt {attempt} · {profile} · {where}").format(
            id=html.escape(rec.task_id), state=html.escape(state_labels().get(rec.state, rec.state)),
            attempt=rec.attempt, profile=html.escape(rec.profile), where=html.escape(where)))
        if self.prompt_view.toPlainText() != rec.prompt:
            self.prompt_view.setPlainText(rec.prompt)
        result = rec.result or ""
        if self.result_view.toPlainText() != result:
            self.result_view.setPlainText(result)
        self.copy_button.setEnabled(bool(result))
        self._show_reasoning(rec.reasoning)
        usage = self.usage_text(rec)
        self.usage_label.setText(usage)
        self.usage_label.setVisible(bool(usage))
        if rec.error_kind or rec.error_message:
            said = error_line(rec.error_kind, rec.error_message)  # the stored words one hover away
            self.error_label.setText(said.summary)
            self.error_label.setToolTip(plain_tip(self.tr("Details: {detail}").format(detail=said.detail))
                                        if said.has_detail else "")
            self.error_label.setVisible(True)
        elif rec.truncated:
            self.error_label.setToolTip("")
            self.error_label.setText(self.tr(
                "truncated: the provider stopped this answer at its length limit (finish_reason \"length\"); "
                "the result is incomplete"))
            self.error_label.setVisible(True)
        else:
            self.error_label.clear()
            self.error_label.setVisible(False)

    def _show_reasoning(self, reasoning: str | None) -> None:
        """The fold above the answer: shown for a task with thinking, closed for each new task."""
        text = reasoning or ""
        if not text:
            self.reasoning_button.setChecked(False)
        self.reasoning_button.setVisible(bool(text))
        self.reasoning_button.setText(self.tr("Reasoning ({n} characters)").format(n=len(text)))
        if self.reasoning_view.toPlainText() != text:
            self.reasoning_view.setPlainText(text)

    def _fold_reasoning(self, open_: bool) -> None:
        self.reasoning_button.setArrowType(Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow)
        self.reasoning_view.setVisible(open_)

    def usage_text(self, rec: TaskRecord) -> str:
        """``tokens: 120 in (20 cached) / 340 out``, marked ``~ estimate`` when MediaDesk estimated
        them from characters; empty when the task has no usage yet."""
        if rec.prompt_tokens is None and rec.completion_tokens is None:
            return ""
        cached = self.tr(" ({n} cached)").format(n=rec.cached_tokens) if rec.cached_tokens else ""
        text = self.tr("tokens: {prompt} in{cached} / {completion} out").format(
            prompt=rec.prompt_tokens if rec.prompt_tokens is not None else "?", cached=cached,
            completion=rec.completion_tokens if rec.completion_tokens is not None else "?")
        if rec.usage_estimated:
            text += self.tr(" (~ estimate from characters)")
        return text

    def _merge_logs(self, logs: list[LogLine]) -> None:
        """Add stored and buffered lines not shown yet; if one is older than the newest shown (the
        store's batched lines can arrive after live ones), re-render the log in time order."""
        # each line in the console's language from here on (the same line stored and live renders alike)
        lines = [(ln.ts, ln.lane, shown_log_message(ln.message, ln.text)) for ln in logs]
        lines += [(ev.ts, ev.lane, shown_log_message(ev.message, ev.text)) for ev in self._buffer]
        self._buffer.clear()
        fresh = sorted({(round(ts, 6), msg): (ts, lane, msg) for ts, lane, msg in lines
                        if (round(ts, 6), msg) not in self._shown_log}.values())
        if not fresh:
            return
        newest = max(self._log_lines, default=(0.0, "", ""))[0]
        for ts, lane, msg in fresh:
            self._shown_log.add((round(ts, 6), msg))
            self._log_lines.append((ts, lane, msg))
        if fresh[0][0] < newest:
            self._log_lines.sort()
            self.log_view.setHtml("".join(f"<div>{format_log_html(*ln)}</div>" for ln in self._log_lines))
        else:
            for ln in fresh:
                self.log_view.append(format_log_html(*ln))

    def _append(self, ts: float, lane: str, message: str, text: LogText | None = None) -> None:
        self._merge_logs([LogLine("", ts, lane, message, text)])

    # ------------------------------------------------------------------ live events
    def _on_log(self, ev: TaskLogLine) -> None:
        if ev.task_id != self.current_task_id:
            return
        if self._loading is not None:
            self._buffer.append(ev)
        else:
            self._append(ev.ts, ev.lane, ev.message, ev.text)

    def _on_changed(self, ev: TaskChanged) -> None:
        # State, attempt, result and the store's own log lines (claim, success, retry) are read
        # again, debounced: a task changes a few times per attempt, never hundreds of times.
        if ev.task_id == self.current_task_id and not self._reload.isActive():
            self._reload.start()

    def _open_link(self, url: QUrl) -> None:
        self.opener(url)
        self.pathActivated.emit(url.toLocalFile() if url.isLocalFile() else url.toString())
