"""All task-log lines, with lane prefixes, capped and filterable.

Lines are buffered and appended every ``flush_ms`` in one call: in a fast batch one
``appendPlainText`` per line would cost more than the lanes do. The widget keeps the last
``max_lines`` lines; the filter re-renders from that same ring.
"""

from __future__ import annotations

from collections import deque

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QDockWidget,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from mediadesk.core.log_lines import LogText
from mediadesk.scheduler.events import Notice, TaskLogLine
from mediadesk.ui.format import fmt_stamp
from mediadesk.viewmodel.log_text import CONTEXT as LOG_CONTEXT
from mediadesk.viewmodel.log_text import shown_line

__all__ = ["LogDock", "format_log_line", "shown_log_message"]


def _translate_template(template: str) -> str:
    return QCoreApplication.translate(LOG_CONTEXT, template)


def shown_log_message(message: str, text: LogText | None = None) -> str:
    """A task-log line in the console's language: its phrase translated, its values (ids, numbers,
    paths, servers' error texts) as stored; a line without a known phrase as its stored English."""
    return shown_line(message, text, _translate_template)


def format_log_line(ev: TaskLogLine) -> str:
    stamp = fmt_stamp(ev.ts)
    return f"{stamp} [{ev.lane}] {ev.task_id}: {shown_log_message(ev.message, ev.text)}"


class LogDock(QDockWidget):
    def __init__(self, parent: QWidget | None = None, *, max_lines: int = 5000, flush_ms: int = 200) -> None:
        super().__init__(self.tr("Log"), parent)
        self.setObjectName("logDock")
        self.max_lines = max_lines
        self._lines: deque[str] = deque(maxlen=max_lines)
        self._pending: list[str] = []
        self._needle = ""
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText(self.tr("Filter log (text, lane, task id)…"))
        self.filter_edit.setClearButtonEnabled(True)
        self.follow = QCheckBox(self.tr("Follow"))
        self.follow.setChecked(True)
        self.view = QPlainTextEdit()
        self.view.setReadOnly(True)
        self.view.setMaximumBlockCount(max_lines)
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.view.setFont(QFont("monospace"))
        top = QHBoxLayout()
        top.addWidget(self.filter_edit, 1)
        top.addWidget(self.follow)
        body = QWidget()
        lay = QVBoxLayout(body)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addLayout(top)
        lay.addWidget(self.view, 1)
        self.setWidget(body)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(flush_ms)
        self._timer.timeout.connect(self.flush)
        self._filter_timer = QTimer(self)
        self._filter_timer.setSingleShot(True)
        self._filter_timer.setInterval(200)
        self._filter_timer.timeout.connect(self._apply_filter)
        self.filter_edit.textChanged.connect(lambda _t: self._filter_timer.start())

    def on_log(self, ev: TaskLogLine) -> None:
        self._pending.append(format_log_line(ev))
        if not self._timer.isActive():
            self._timer.start()

    def on_notice(self, ev: Notice) -> None:
        """A callee's state changed (breaker opened, probe failed): shown among the task lines."""
        self._pending.append(f"{fmt_stamp(ev.ts)} [capacity] {shown_log_message(ev.message, ev.text)}")
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        self._timer.stop()
        if not self._pending:
            return
        new, self._pending = self._pending, []
        if len(new) > self.max_lines:
            new = new[-self.max_lines:]
        self._lines.extend(new)
        shown = [ln for ln in new if self._needle in ln.casefold()] if self._needle else new
        if shown:
            bar = self.view.verticalScrollBar()
            self.view.appendPlainText("\n".join(shown))
            if self.follow.isChecked():
                bar.setValue(bar.maximum())

    def set_filter(self, text: str) -> None:
        """Apply a filter now (the line edit applies it shortly after the last keystroke)."""
        if self.filter_edit.text() != text:
            self.filter_edit.blockSignals(True)
            self.filter_edit.setText(text)
            self.filter_edit.blockSignals(False)
        self._apply_filter()

    def _apply_filter(self) -> None:
        self.flush()
        self._needle = self.filter_edit.text().strip().casefold()
        lines = [ln for ln in self._lines if self._needle in ln.casefold()] if self._needle else list(self._lines)
        self.view.setPlainText("\n".join(lines))
        bar = self.view.verticalScrollBar()
        bar.setValue(bar.maximum())

    def lines(self) -> list[str]:
        """Lines currently shown (after the filter)."""
        self.flush()
        text = self.view.toPlainText()
        return text.split("\n") if text else []

    def line_count(self) -> int:
        self.flush()
        return len(self._lines)
