"""The ONE place where core events become Qt signals.

The scheduler publishes typed events synchronously on the asyncio loop, which under qasync is the
GUI thread: re-emitting them as signals is cheap and needs no queued connection. Widgets connect to
these signals and never subscribe to the core bus themselves.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from mediadesk.scheduler.events import (
    AccountChanged,
    Event,
    EventBus,
    LaneStats,
    Notice,
    ProfileChanged,
    StorageFailed,
    TaskChanged,
    TaskLogLine,
    TasksAdded,
)


class SchedulerBridge(QObject):
    tasksAdded = Signal(object)      # TasksAdded
    taskChanged = Signal(object)     # TaskChanged
    taskLog = Signal(object)         # TaskLogLine
    laneStats = Signal(object)       # LaneStats
    accountChanged = Signal(object)  # AccountChanged
    profileChanged = Signal(object)  # ProfileChanged
    notice = Signal(object)          # Notice (a breaker opened, a probe failed, ...)
    storageFailed = Signal(object)   # StorageFailed (database deleted/replaced, disk full): fatal

    def __init__(self, bus: EventBus, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._unsubscribe = bus.subscribe(self._on_event)
        self.destroyed.connect(lambda *_: self._unsubscribe())

    def detach(self) -> None:
        self._unsubscribe()

    def _on_event(self, ev: Event) -> None:
        if isinstance(ev, TaskChanged):
            self.taskChanged.emit(ev)
        elif isinstance(ev, TaskLogLine):
            self.taskLog.emit(ev)
        elif isinstance(ev, LaneStats):
            self.laneStats.emit(ev)
        elif isinstance(ev, TasksAdded):
            self.tasksAdded.emit(ev)
        elif isinstance(ev, AccountChanged):
            self.accountChanged.emit(ev)
        elif isinstance(ev, ProfileChanged):
            self.profileChanged.emit(ev)
        elif isinstance(ev, Notice):
            self.notice.emit(ev)
        elif isinstance(ev, StorageFailed):
            self.storageFailed.emit(ev)
