"""What needs the operator, shown where they look and kept until seen or handled: a count in the
window title ("(2) MediaDesk — ..."), a button in the status bar, the tray icon (its "needs you"
state: :mod:`mediadesk.ui.window.tray`), and the Notices dock listing each item with what to do.

:func:`build_notices` makes the dock and the status-bar button once per window; an
:class:`Attention` (one per workspace, made by the tray controller) feeds the board
(:class:`~mediadesk.viewmodel.attention.AttentionBoard`) from the bridge's events and the batch
notices, and answers the dock's buttons.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtWidgets import QDockWidget, QToolButton

from mediadesk.scheduler.events import AccountChanged, LaneStats, StorageFailed, TaskChanged
from mediadesk.ui.panels.notices_view import NoticesView
from mediadesk.ui.screen_fit import scrolling
from mediadesk.viewmodel.attention import AttentionBoard

if TYPE_CHECKING:
    from mediadesk.ui.app.bridge import SchedulerBridge
    from mediadesk.ui.window.main_window import MainWindow

__all__ = ["Attention", "attention_title", "build_notices", "show_attention"]


def attention_title(count: int) -> str:
    return QCoreApplication.translate("MainWindow", "Notices ({n})").format(n=count) if count \
        else QCoreApplication.translate("MainWindow", "Notices")


def build_notices(w: MainWindow) -> None:
    """The Notices dock (a tab beside the log) and the status bar's "N need you" button."""
    w.notices_view = NoticesView(w)
    dock = QDockWidget(attention_title(0), w)
    dock.setObjectName("noticesDock")
    dock.setWidget(scrolling(w.notices_view))
    w.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    w.tabifyDockWidget(w.log_dock, dock)
    w.log_dock.raise_()
    w.notices_dock = dock
    button = QToolButton(w)
    button.setObjectName("attentionButton")
    button.setAutoRaise(True)
    button.setStyleSheet("QToolButton#attentionButton { color: #c0392b; font-weight: bold; }")
    button.setToolTip(QCoreApplication.translate("MainWindow", "Show the notices that need you"))
    button.clicked.connect(lambda: show_notices(w))
    button.hide()
    w.statusBar().insertPermanentWidget(0, button)
    w.attention_button = button
    w.attention_count = 0


def show_notices(w: MainWindow) -> None:
    w.notices_dock.show()
    w.notices_dock.raise_()


def show_attention(w: MainWindow, count: int) -> None:
    """The count in the title, the status bar and the dock's tab."""
    w.attention_count = count
    w.show_workspace_title()
    w.notices_dock.setWindowTitle(attention_title(count))
    if count:
        w.attention_button.setText(QCoreApplication.translate("MainWindow", "⚑ {n} need you").format(n=count))
    w.attention_button.setVisible(count > 0)


class Attention(QObject):
    """The board of one workspace, fed by its bridge; ``changed(count)`` after every change."""

    changed = Signal(int)

    def __init__(self, window: MainWindow, bridge: SchedulerBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.w = window
        self.board = AttentionBoard()
        self._tasks: set[asyncio.Future[None]] = set()
        self._bridge = bridge
        bridge.accountChanged.connect(self._on_account)
        bridge.laneStats.connect(self._on_stats)
        bridge.taskChanged.connect(self._on_task)
        bridge.storageFailed.connect(self._on_storage)
        view = window.notices_view
        view.markAllSeen.connect(self.mark_all_seen)
        view.clearSeen.connect(self.clear_seen)
        view.actionRequested.connect(self.act)
        self._refresh()

    def close(self) -> None:
        """Stop feeding the window (the workspace is going; its bridge may be gone already)."""
        view = self.w.notices_view
        pairs = ((self._bridge.accountChanged, self._on_account), (self._bridge.laneStats, self._on_stats),
                 (self._bridge.taskChanged, self._on_task), (self._bridge.storageFailed, self._on_storage),
                 (view.markAllSeen, self.mark_all_seen), (view.clearSeen, self.clear_seen),
                 (view.actionRequested, self.act))
        for signal, slot in pairs:
            with contextlib.suppress(RuntimeError, TypeError):  # already disconnected or deleted
                signal.disconnect(slot)

    def count(self) -> int:
        return self.board.count()

    # ------------------------------------------------------------------ events
    def _changed(self, changed: bool) -> None:
        if changed:
            self._refresh()

    def _refresh(self) -> None:
        self.w.notices_view.show_items(self.board.items())
        show_attention(self.w, self.board.count())
        self.changed.emit(self.board.count())

    def _on_account(self, ev: AccountChanged) -> None:
        self._changed(self.board.on_account(ev.account, ev.health, ev.last_error, time.time()))

    def _on_stats(self, ev: LaneStats) -> None:
        now = time.time()
        changed = False
        if ev.kind == "web" and ev.lane.startswith("web:"):
            changed = self.board.on_account(ev.lane[len("web:"):], ev.health, ev.last_error, now)
        cv = ev.callee
        if cv is not None:
            changed = self.board.on_callee(f"{cv.kind} {cv.name}", cv.breaker, cv.breaker_reason, now) or changed
        self._changed(changed)

    def _on_task(self, ev: TaskChanged) -> None:
        self._changed(self.board.on_task(ev.lane, ev.state, ev.error_kind, ev.error_message, time.time()))

    def _on_storage(self, ev: StorageFailed) -> None:
        self._changed(self.board.on_storage_failed(ev.path, ev.detail, ev.ts))

    def on_batch_done(self, ok: int, failed: int, canceled: int) -> None:
        self._changed(self.board.on_batch_done(ok, failed, canceled, time.time()))

    # ------------------------------------------------------------------ the operator
    def mark_all_seen(self) -> None:
        self._changed(self.board.mark_seen())

    def clear_seen(self) -> None:
        self._changed(self.board.clear_seen())

    def act(self, key: str) -> None:
        """A row's button: do what it says, and the row counts as seen."""
        item = self.board.get(key)
        if item is None:
            return
        self._changed(self.board.mark_seen([key]))
        if item.kind in ("login", "challenge"):
            task = asyncio.ensure_future(self.w.login_account(item.subject))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif item.kind in ("stopped", "key_rejected"):
            self.w.open_setup_editor()
        elif item.kind == "batch_done":
            self.w.export_dialog("all")
