"""Showing another workspace in the same window (File > Open config…): what is bound to a
scheduler is made anew, the layout, toolbars, actions and log stay.

:class:`~mediadesk.ui.app.workspace_switch.WorkspaceSwitcher` decides when (and what if the new
config does not open); this module only rebinds the window.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.jobs.workers import TaskFeed
from mediadesk.ui.models.task_model import TaskTableModel
from mediadesk.ui.panels.accounts_panel import AccountsPanel
from mediadesk.ui.panels.batches_view import BatchesView
from mediadesk.ui.panels.detail_pane import DetailPane
from mediadesk.ui.panels.exceptions_view import ExceptionsView
from mediadesk.ui.panels.profiles_editor import ProfilesEditor
from mediadesk.ui.window.panes import bind_desktops, exceptions_title, lane_panels, rescroll

if TYPE_CHECKING:
    from mediadesk.ui.window.main_window import MainWindow

__all__ = ["rebind_workspace"]


def rebind_workspace(w: MainWindow, scheduler: Scheduler, bridge: SchedulerBridge, *,
                     demo_batch: Path | None = None) -> None:
    """See :meth:`MainWindow.rebind_workspace <mediadesk.ui.window.main_window.MainWindow.rebind_workspace>`."""
    for dlg in (w.batch_dialog, w.setup_editor):
        if dlg is not None:
            dlg.close()
    w.scheduler, w.bridge = scheduler, bridge
    w.location = scheduler.workspace.location
    old: list[QWidget | QObject | None] = [w.model, w.feed, w.web_panel, w.api_panel]
    w.model = TaskTableModel(heartbeat_interval_s=scheduler.config.heartbeat.interval_s, parent=w)
    w.model.rows.own_owner = scheduler.owner
    w.proxy.setSourceModel(w.model)
    w.grouped.rebind()
    w.feed = TaskFeed(w.location, w.model, bridge, w)
    w.feed.loaded.connect(lambda st: w._update_status())
    w.feed.loaded.connect(lambda st: w.apply_sort())
    w.web_panel, w.api_panel = lane_panels(w)
    w.lane_splitter.replaceWidget(0, w.web_panel)
    w.lane_splitter.replaceWidget(1, w.api_panel)
    w.small_screen.panels = [w.web_panel, w.api_panel]
    for panel in w.small_screen.panels:
        panel.set_compact(w.small_screen.compact)
    detail_state = w.detail.splitter.saveState()
    w.detail = DetailPane(w.location, bridge, w)
    w.detail.splitter.restoreState(detail_state)
    old.append(rescroll(w.main_splitter.widget(2), w.detail))
    w.accounts_panel = AccountsPanel(scheduler, bridge, w, login=w.login_account)
    w.profiles_editor = ProfilesEditor(scheduler, bridge, w)
    w.exceptions_view = ExceptionsView(scheduler, bridge, w)
    w.exceptions_view.countChanged.connect(lambda n: w.exceptions_dock.setWindowTitle(exceptions_title(n)))
    w.exceptions_dock.setWindowTitle(exceptions_title(w.exceptions_view.count))
    from mediadesk.ui.panels.charts import ChartsView  # here too: the module may be imported lazily

    lanes = scheduler.lanes
    w.charts_view = ChartsView(w.location, [lane.name for lane in lanes], w)
    w.batches_view = BatchesView(w.location, lanes, bridge, w)
    for dock, view in ((w.accounts_dock, w.accounts_panel), (w.profiles_dock, w.profiles_editor),
                       (w.exceptions_dock, w.exceptions_view), (w.charts_dock, w.charts_view),
                       (w.batches_dock, w.batches_view)):
        old.append(rescroll(dock.widget(), view))
    w.table_menu.location = w.location
    bind_desktops(w)
    w._show_desktop_column()
    w.table_menu.evidence_dir = scheduler.workspace.evidence_dir
    combo = w.filter_bar.profile_combo
    combo.blockSignals(True)
    while combo.count() > 1:
        combo.removeItem(1)
    for name in scheduler.profile_names():
        combo.addItem(name, name)
    combo.blockSignals(False)
    w.filter_bar.clear_all()
    w._on_filters_changed()
    w._connect_bridge()
    w.demo_batch = demo_batch
    w.act_demo.setVisible(demo_batch is not None)
    if demo_batch is not None:
        w.set_demo_batch(demo_batch)
    else:
        w.statusBar().clearMessage()
    for gone in old:
        if gone is None:
            continue
        if isinstance(gone, QWidget):
            gone.hide()
        gone.deleteLater()
    w._sync_pause_actions(None)
    w.show_workspace_title()
    w._update_status()
    w._update_totals()
    w._tick.start()
