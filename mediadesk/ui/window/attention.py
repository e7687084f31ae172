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
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtWidgets import QDockWidget, QMainWindow, QToolButton

from mediadesk.scheduler.events import AccountChanged, LaneStats, StorageFailed, TaskChanged
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.panels.notices_view import NoticesView
from mediadesk.ui.screen_fit import scrolling
from mediadesk.viewmodel.attention import AttentionBoard

__all__ = ["Attention", "attention_title", "build_notices", "show_attention"]


def attention_title(count: int) -> str:
    return QCoreApplication.translate("MainWindow", "Notices ({n})").format(n=count) if count \
        else QCoreApplication.translate("MainWindow", "Notices")


def build_notices(window: QMainWindow, beside: QDockWidget) -> tuple[NoticesView, QDockWidget, QToolButton]:
    """The Notices dock (a tab ``beside`` the log) and the status bar's "N need you" button."""
    view = NoticesView(window)
    dock = QDockWidget(attention_title(0), window)
    dock.setObjectName("noticesDock")
    dock.setWidget(scrolling(view))
    window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    window.tabifyDockWidget(beside, dock)
    beside.raise_()
    button = QToolButton(window)
    button.setObjectName("attentionButton")
    button.setAutoRaise(True)
    button.setStyleSheet("QToolButton#attentionButton { color: #c0392b; font-weight: bold; }")
    button.setToolTip(QCoreApplication.translate("MainWindow", "Show the notices that need you"))
    button.clicked.connect(lambda: _show_dock(dock))
    button.hide()
    window.statusBar().insertPermanentWidget(0, button)
    return view, dock, button


def _show_dock(dock: QDockWidget) -> None:
    dock.show()
    dock.raise_()


def show_attention(dock: QDockWidget, button: QToolButton, count: int) -> None:
    """The count on the dock's tab and the status bar's button."""
    dock.setWindowTitle(attention_title(count))
    if count:
        button.setText(QCoreApplication.translate("MainWindow", "⚑ {n} need you").format(n=count))
    button.setVisible(count > 0)


class Attention(QObject):
    """The board of one workspace, fed by its bridge and shown in ``view``; ``changed(count)``
    after every change (``show_count`` shows it in the window first).

    A row's button does what it says: ``login`` an account, ``open_setup`` (a stopped endpoint, a
    rejected key) or ``export_all`` (a finished batch)."""

    changed = Signal(int)

    def __init__(self, view: NoticesView, bridge: SchedulerBridge, *, show_count: Callable[[int], None],
                 login: Callable[[str], Coroutine[Any, Any, None]], open_setup: Callable[[], object],
                 export_all: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.board = AttentionBoard()
        self._view = view
        self._show_count = show_count
        self._login = login
        self._open_setup = open_setup
        self._export_all = export_all
        self._tasks: set[asyncio.Future[None]] = set()
        self._bridge = bridge
        bridge.accountChanged.connect(self._on_account)
        bridge.laneStats.connect(self._on_stats)
        bridge.taskChanged.connect(self._on_task)
        bridge.storageFailed.connect(self._on_storage)
        view.markAllSeen.connect(self.mark_all_seen)
        view.clearSeen.connect(self.clear_seen)
        view.actionRequested.connect(self.act)
        self._refresh()

    def close(self) -> None:
        """Stop feeding the window (the workspace is going; its bridge may be gone already)."""
        view = self._view
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
        self._view.show_items(self.board.items())
        self._show_count(self.board.count())
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
            task = asyncio.ensure_future(self._login(item.subject))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif item.kind in ("stopped", "key_rejected"):
            self._open_setup()
        elif item.kind == "batch_done":
            self._export_all()
