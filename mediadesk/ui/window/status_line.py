"""The window's status bar and notices: the task counts, the throughput and ETA of all lanes, the
transient status line, non-blocking message boxes, and the storage failure that stays shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from PySide6.QtCore import QCoreApplication, QObject, Qt
from PySide6.QtWidgets import QLabel, QMessageBox, QStatusBar, QWidget

from mediadesk.scheduler.events import StorageFailed
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.ui.format import fmt_count, fmt_eta, fmt_rate
from mediadesk.ui.models.task_model import TaskFilterProxy, TaskTableModel
from mediadesk.ui.panels.desktops_view import alive_count
from mediadesk.ui.panels.lane_panel import LanePanel
from mediadesk.ui.plain import plain
from mediadesk.viewmodel.batches import totals

__all__ = ["Notify", "ShowStatus", "StatusLine"]


class ShowStatus(Protocol):
    """A transient status-bar message (``timeout_ms`` 0: until the next one)."""

    def __call__(self, text: str, timeout_ms: int = 8000) -> None: ...


class Notify(Protocol):
    """A non-blocking message box."""

    def __call__(self, title: str, text: str, *, error: bool = False) -> QMessageBox: ...


class StatusLine(QObject):
    """The permanent labels of ``status_bar`` and the messages; ``parent`` owns the message boxes.

    What it counts is bound to one workspace (:meth:`rebind` on a switch). Texts keep the
    ``MainWindow`` translation context."""

    def __init__(self, status_bar: QStatusBar, parent: QWidget, scheduler: Scheduler, model: TaskTableModel,
                 proxy: TaskFilterProxy, panels: Sequence[LanePanel]) -> None:
        super().__init__(parent)
        self._bar = status_bar
        self._parent = parent
        self._proxy = proxy
        self.rebind(scheduler, model, panels)
        #: The last text shown on the status line (also after it timed out).
        self.last_message = ""
        self.status_label = plain(QLabel())
        status_bar.addPermanentWidget(self.status_label)
        self.totals_label = plain(QLabel())
        self.totals_label.setObjectName("totalsLabel")
        status_bar.addPermanentWidget(self.totals_label)
        self.spend_label = plain(QLabel())
        self.spend_label.setObjectName("spendLabel")
        status_bar.addPermanentWidget(self.spend_label)
        self.update_status()
        self.update_totals()

    def rebind(self, scheduler: Scheduler, model: TaskTableModel, panels: Sequence[LanePanel]) -> None:
        """Count another workspace (its scheduler, task model and lane panels)."""
        self._scheduler = scheduler
        self._model = model
        self._panels = tuple(panels)

    def update_status(self) -> None:
        total = self._model.rowCount()
        shown = self._proxy.rowCount()
        text = QCoreApplication.translate("MainWindow", "{total} tasks").format(total=fmt_count(total))
        if shown != total:
            text = QCoreApplication.translate("MainWindow", "{shown} of {total} tasks shown").format(
                shown=fmt_count(shown), total=fmt_count(total))
        if self._scheduler.team is not None:  # team mode: how many desktops work this queue
            n = alive_count(self._scheduler.desktops())
            desktops = (QCoreApplication.translate("MainWindow", "1 desktop") if n == 1
                        else QCoreApplication.translate("MainWindow", "{n} desktops").format(n=fmt_count(n)))
            text = f"{text} · {desktops}"
        watch = self._scheduler.watch_folder
        if watch is not None:  # the watched intake folder, and the last file it took
            watching = QCoreApplication.translate("MainWindow", "watching {folder}").format(folder=watch.folder) \
                if watch.taken is None else QCoreApplication.translate(
                    "MainWindow", "watching {folder}, last taken: {name}").format(folder=watch.folder, name=watch.taken)
            text = f"{text} · {watching}"
        self.status_label.setText(text)

    def update_totals(self) -> None:
        """Across both lane kinds: combined throughput and the overall ETA (the slower kind's)."""
        t = totals([(p.kind_eta(), p.throughput()) for p in self._panels])
        if t.eta is None:
            eta = (QCoreApplication.translate("MainWindow", "ETA — (no lane can take the queued tasks)") if t.blocked
                   else QCoreApplication.translate("MainWindow", "ETA —"))
        elif t.eta.p90_s <= 0:
            eta = QCoreApplication.translate("MainWindow", "idle")
        else:
            eta = QCoreApplication.translate("MainWindow", "ETA p50 {p50}, p90 {p90}").format(
                p50=fmt_eta(t.eta.p50_s), p90=fmt_eta(t.eta.p90_s))
        text = QCoreApplication.translate("MainWindow", "all lanes: {rate} tasks/min · {eta}").format(
            rate=fmt_rate(t.per_min), eta=eta)
        if self.totals_label.text() != text:
            self.totals_label.setText(text)
        self.update_spend()

    def update_spend(self) -> None:
        """"spent today: $1.23" (one figure per currency; "~" when some usage is estimated), and the
        caps that stop something now, in the tooltip."""
        budgets = self._scheduler.budgets
        today = budgets.today() if budgets is not None else None
        text = ""
        if today is not None and today.money:
            text = QCoreApplication.translate("MainWindow", "spent today: {amount}").format(amount=today.text())
        elif today is not None and today.tokens:
            text = QCoreApplication.translate("MainWindow", "used today: {n} tokens").format(n=fmt_count(today.tokens))
        stops = [] if budgets is None else [s.message() for s in budgets.stops.values()]
        if stops:
            text = QCoreApplication.translate("MainWindow", "{spent} · stopped by a budget").format(spent=text) \
                if text else QCoreApplication.translate("MainWindow", "stopped by a budget")
        tip = "\n".join(stops)
        if self.spend_label.text() != text:
            self.spend_label.setText(text)
        if self.spend_label.toolTip() != tip:
            self.spend_label.setToolTip(tip)

    def show_status(self, text: str, timeout_ms: int = 8000) -> None:
        self.last_message = text
        self._bar.showMessage(text, timeout_ms)

    def on_storage_failed(self, ev: StorageFailed) -> None:
        """The database failed under the scheduler (it dispatches nothing more): say so in the window
        until it is closed, with what to do next."""
        if ev.kind == "lost":
            text = QCoreApplication.translate(
                "MainWindow",
                "The database file {path} was deleted or replaced while MediaDesk was running: "
                "results since then were not saved, and nothing more is dispatched. Close "
                "MediaDesk, restore the file (or choose another data folder), then start again.")
        elif ev.kind == "full":
            text = QCoreApplication.translate(
                "MainWindow",
                "The disk holding the database {path} is full ({detail}). Nothing more is "
                "dispatched; every result stored before is kept. Free some space, then restart "
                "MediaDesk: unfinished tasks resume.")
        else:
            text = QCoreApplication.translate(
                "MainWindow",
                "The database {path} could not be written ({detail}). Nothing more is dispatched; "
                "what was stored is kept. Check the disk and the file's permissions, then restart "
                "MediaDesk: unfinished tasks resume.")
        text = text.format(path=ev.path, detail=ev.detail)
        self.notify(QCoreApplication.translate("MainWindow", "Storage failed"), text, error=True)
        self.show_status(text, timeout_ms=0)  # stays until the window closes

    def notify(self, title: str, text: str, *, error: bool = False) -> QMessageBox:
        """A non-blocking message box (``open()``: the lanes keep running behind it)."""
        self.show_status(f"{title}: {text}")
        box = plain(QMessageBox(QMessageBox.Icon.Warning if error else QMessageBox.Icon.Information, title, text,
                                QMessageBox.StandardButton.Ok, self._parent))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.open()
        return box
