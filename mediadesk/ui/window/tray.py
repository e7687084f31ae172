"""The tray icon (progress, show / pause / quit) and the operator's notices.

:class:`WorkWatcher` turns bridge events into notices, each once: a batch finished (queue dry, with
counts since the last notice), an account needs login, a breaker opened (probes do not repeat it).
Notices go to ``notify`` (tray balloon, else status bar) and are kept in :attr:`sent`.
:class:`TrayController` wires the icon (hidden without a system tray), the close question and the notices.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QMainWindow, QMenu, QStyle, QSystemTrayIcon

from mediadesk.config.workspace import resources_dir
from mediadesk.scheduler.events import AccountChanged, LaneStats, TaskChanged
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.dialogs.close_question import CloseGuard
from mediadesk.ui.format import plain_error, stopped_text
from mediadesk.ui.panels.notices_view import NoticesView
from mediadesk.ui.window.attention import Attention
from mediadesk.ui.window.status_line import StatusLine
from mediadesk.ui.window.task_actions import TaskActions

__all__ = ["TRAY_STATES", "ConsoleWindow", "TrayController", "WorkWatcher", "tray_state"]


class WorkWatcher(QObject):
    """Notices from the scheduler's events, each once (not at every stats tick)."""

    #: (title, text) of a notice.
    notified = Signal(str, str)
    #: The progress changed: (running, pending, ended since the last batch notice).
    progress = Signal(int, int, int)
    #: A batch finished: (succeeded, failed, canceled).
    batchDone = Signal(int, int, int)

    def __init__(self, scheduler: Scheduler, bridge: SchedulerBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.scheduler = scheduler
        self.sent: list[tuple[str, str]] = []
        self._stats: dict[str, LaneStats] = {}
        self._ended: dict[str, int] = {"success": 0, "failed": 0, "canceled": 0}
        self._needs_login: set[str] = set()
        self._open_breakers: set[str] = set()
        self._stopped: set[str] = set()
        self._last_progress: tuple[int, int, int] | None = None
        bridge.taskChanged.connect(self._on_task)
        bridge.laneStats.connect(self._on_stats)
        bridge.accountChanged.connect(self._on_account)

    # ------------------------------------------------------------------ events
    def _on_task(self, ev: TaskChanged) -> None:
        if ev.state in self._ended:
            self._ended[ev.state] += 1
            self._check_done()
            self._emit_progress()

    def _on_stats(self, ev: LaneStats) -> None:
        self._stats[ev.lane] = ev
        cv = ev.callee
        if cv is not None:
            key = f"{cv.kind} {cv.name}"
            if cv.stopped is not None and key not in self._stopped:
                self._stopped.add(key)  # the operator must act: never "resumes by itself"
                self._open_breakers.add(key)
                self._notify(self.tr("Endpoint stopped"), self.tr(
                    "{kind} {name} takes no task and is not probed: {what}. Its tasks wait, nothing is "
                    "charged.").format(kind=cv.kind, name=cv.name, what=stopped_text(cv)))
            elif cv.breaker == "open" and key not in self._open_breakers:
                self._open_breakers.add(key)
                reason = plain_error(cv.breaker_reason).summary or self.tr("too many failures")
                self._notify(self.tr("Breaker open"), self.tr(
                    "{kind} {name} stopped taking tasks ({reason}); it is probed and resumes by itself "
                    "when it answers again.").format(kind=cv.kind, name=cv.name, reason=reason))
            elif cv.breaker == "closed":
                self._open_breakers.discard(key)
                self._stopped.discard(key)
        self._check_done()
        self._emit_progress()

    def _on_account(self, ev: AccountChanged) -> None:
        if ev.health == "needs_login":
            if ev.account not in self._needs_login:
                self._needs_login.add(ev.account)
                self._notify(self.tr("Login needed"), self.tr(
                    "Account {account} is logged out and takes no task until you log in again "
                    "(Accounts: Log in).").format(account=ev.account))
        else:
            self._needs_login.discard(ev.account)

    # ------------------------------------------------------------------ batch done
    def counts(self) -> tuple[int, int]:
        """(running, pending) as the lanes last said (no database read)."""
        lanes = {lane.name for lane in self.scheduler.lanes}
        stats = [s for name, s in self._stats.items() if name in lanes]
        return sum(len(s.running) for s in stats), sum(n for s in stats for _, n in s.backlog)

    def _check_done(self) -> None:
        if not any(self._ended.values()):
            return
        running, pending = self.counts()
        if running or pending:
            return
        try:  # the lanes' last stats may predate a submit: the database decides
            if not self.scheduler.started or self.scheduler.store.unfinished_count() > 0:
                return
        except Exception:
            return
        ok, failed, canceled = self._ended["success"], self._ended["failed"], self._ended["canceled"]
        self._ended = dict.fromkeys(self._ended, 0)
        text = self.tr("{ok} succeeded, {failed} failed").format(ok=ok, failed=failed)
        if canceled:
            text += self.tr(", {n} canceled").format(n=canceled)
        self._notify(self.tr("Batch finished"), text)
        self.batchDone.emit(ok, failed, canceled)

    def _emit_progress(self) -> None:
        running, pending = self.counts()
        now = (running, pending, sum(self._ended.values()))
        if now != self._last_progress:
            self._last_progress = now
            self.progress.emit(*now)

    def _notify(self, title: str, text: str) -> None:
        self.sent.append((title, text))
        self.notified.emit(title, text)


#: The tray icon's states, most urgent first: something needs the operator; every lane paused;
#: tasks running; nothing to do.
TRAY_STATES = ("attention", "paused", "running", "idle")


def tray_state(attention: int, running: int, all_paused: bool) -> str:
    if attention:
        return "attention"
    if all_paused:
        return "paused"
    return "running" if running else "idle"


class ConsoleWindow(Protocol):
    """What the tray needs of the console window, besides it being a QMainWindow."""

    close_guard: Callable[[], bool] | None
    notices_view: NoticesView
    status_line: StatusLine
    task_actions: TaskActions

    def bring_to_front(self) -> None: ...

    def close_or_finish(self) -> None: ...

    def show_attention(self, count: int) -> None: ...

    async def login_account(self, account: str) -> None: ...

    def open_setup_editor(self, path: Path | str | None = None) -> object: ...


class TrayController(QObject):
    """Tray icon + close question + notices for one console window.

    ``tray_available``: whether the system has a tray (default: ask Qt), or a function that says
    it. Without one there is no icon, the close question does not offer "Keep running in the tray",
    and notices go to the window's status bar; it is asked again every :data:`TRAY_POLL_MS` (a
    session whose panel starts after the console), and the icon is made when a tray appears."""

    #: How often a console without a tray looks whether one has appeared (Qt has no signal for it).
    TRAY_POLL_MS = 5000

    def __init__(self, window: ConsoleWindow, scheduler: Scheduler, bridge: SchedulerBridge, *,
                 tray_available: bool | Callable[[], bool] | None = None) -> None:
        assert isinstance(window, QMainWindow)  # the tray's menu and question are its children
        super().__init__(window)
        self.window = window
        self.scheduler = scheduler
        if callable(tray_available):
            self._tray_probe: Callable[[], bool] = tray_available
        elif tray_available is None:
            self._tray_probe = QSystemTrayIcon.isSystemTrayAvailable
        else:
            self._tray_probe = lambda: bool(tray_available)
        self.has_tray = self._tray_probe()
        self.watcher = WorkWatcher(scheduler, bridge, self)
        self.guard = CloseGuard(window, scheduler, tray_available=lambda: self.has_tray,
                                hide_to_tray=self.hide_to_tray)
        window.close_guard = self.guard
        self.tray: QSystemTrayIcon | None = None
        #: The tray icon's state (one of TRAY_STATES), kept also while there is no tray.
        self.state = ""
        self._tooltip = ""
        self.attention = Attention(window.notices_view, bridge, show_count=window.show_attention,
                                   login=window.login_account, open_setup=window.open_setup_editor,
                                   export_all=lambda: window.task_actions.export_dialog("all"), parent=self)
        self.watcher.batchDone.connect(self.attention.on_batch_done)
        self.attention.changed.connect(self._on_attention)
        bridge.laneStats.connect(self._on_stats)  # paused, running
        self._tray_poll = QTimer(self)
        self._tray_poll.setInterval(self.TRAY_POLL_MS)
        self._tray_poll.timeout.connect(self.look_for_tray)
        if self.has_tray:
            self._build_tray()
        else:
            self._tray_poll.start()
        self.watcher.notified.connect(self._show_notice)
        self.watcher.progress.connect(self._show_progress)
        self._show_progress(0, 0, 0)

    def look_for_tray(self) -> bool:
        """Make the tray icon if a tray has appeared since the start; returns whether there is one."""
        if self.tray is None and self._tray_probe():
            self._tray_poll.stop()
            self.has_tray = True
            self._build_tray()
            self._show_progress(*self.watcher.counts(), 0)
        return self.tray is not None

    def _build_tray(self) -> None:
        tray = QSystemTrayIcon(self._icon(self.state or "idle"), self)
        menu = QMenu(self.window)
        self.act_show = QAction(self.tr("Show window"), menu)
        self.act_show.triggered.connect(self.show_window)
        self.act_pause = QAction(self.tr("Pause all lanes"), menu)
        self.act_pause.setCheckable(True)
        self.act_pause.toggled.connect(self._pause_all)
        self.act_quit = QAction(self.tr("Quit"), menu)
        self.act_quit.triggered.connect(self.quit)
        menu.addAction(self.act_show)
        menu.addAction(self.act_pause)
        menu.addSeparator()
        menu.addAction(self.act_quit)
        tray.setContextMenu(menu)
        tray.activated.connect(self._activated)
        tray.show()
        self.menu = menu
        self.tray = tray
        self._show_state()

    def _icon(self, state: str) -> QIcon:
        icon = QIcon(str(resources_dir() / "icons" / f"tray-{state}.svg"))
        return icon if not icon.isNull() else self.window.style().standardIcon(QStyle.StandardPixmap.SP_ComputerIcon)

    def _on_attention(self, _count: int) -> None:
        self._show_state()

    def _on_stats(self, _ev: LaneStats) -> None:
        self._show_state()

    def _show_state(self) -> None:
        """The tray icon of the state now (set only when it changes)."""
        lanes = self.scheduler.lanes
        running, _pending = self.watcher.counts()
        all_paused = bool(lanes) and all(lane.paused for lane in lanes)
        state = tray_state(self.attention.count(), running, all_paused)
        if self.tray is not None and self.act_pause.isChecked() != all_paused:  # also a pause kept from before
            self.act_pause.blockSignals(True)
            self.act_pause.setChecked(all_paused)
            self.act_pause.blockSignals(False)
        if state != self.state:
            self.state = state
            if self.tray is not None:
                self.tray.setIcon(self._icon(state))
        if self.tray is not None:
            self.tray.setToolTip(self.tooltip())

    # ------------------------------------------------------------------ actions
    def hide_to_tray(self) -> None:
        self.window.hide()
        self._show_notice(self.tr("MediaDesk keeps running"), self.tr(
            "The lanes keep working; the tray icon shows the progress. Its menu brings the window back or quits."))

    def show_window(self) -> None:
        self.window.show()
        self.window.bring_to_front()

    def quit(self) -> None:
        """The tray's Quit: no question (the operator chose it where the progress is shown)."""
        self.guard.quit_now()
        self.window.close_or_finish()

    def _pause_all(self, paused: bool) -> None:
        for kind in ("web", "api"):
            self.window.task_actions.set_paused(kind, paused)

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (QSystemTrayIcon.ActivationReason.Trigger, QSystemTrayIcon.ActivationReason.DoubleClick):
            self.show_window()

    # ------------------------------------------------------------------ shown
    def tooltip(self) -> str:
        n = self.attention.count()
        return self._tooltip + (self.tr(" · {n} need you").format(n=n) if n else "")

    def _show_progress(self, running: int, pending: int, ended: int) -> None:
        self._tooltip = self.tr("MediaDesk: {running} running, {pending} pending, {ended} done").format(
            running=running, pending=pending, ended=ended)
        self._show_state()

    def _show_notice(self, title: str, text: str) -> None:
        if self.tray is not None and self.tray.isVisible() and QSystemTrayIcon.supportsMessages():
            self.tray.showMessage(title, text, QSystemTrayIcon.MessageIcon.Information, 10_000)
        self.window.status_line.show_status(f"{title}: {text}")

    def close(self) -> None:
        self._tray_poll.stop()
        self.attention.close()
        if self.tray is not None:
            self.tray.hide()
            self.tray.deleteLater()
            self.tray = None
