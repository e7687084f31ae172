"""Building the window's panes: the two lane panels, the task table, and the bottom docks (log,
accounts, profiles, exceptions, batches, charts and, in team mode, desktops).

The window owns every widget made here (each is an attribute of it); titles keep the
``MainWindow`` translation context.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QAbstractItemView, QDockWidget, QHeaderView, QScrollArea, QSplitter, QTableView, QWidget

from mediadesk.ui.models.task_model import Col, TaskFilterProxy
from mediadesk.ui.panels.accounts_panel import AccountsPanel
from mediadesk.ui.panels.batches_view import BatchesView
from mediadesk.ui.panels.charts import ChartsView
from mediadesk.ui.panels.desktops_view import DesktopsView
from mediadesk.ui.panels.exceptions_view import ExceptionsView
from mediadesk.ui.panels.lane_panel import LanePanel
from mediadesk.ui.panels.log_dock import LogDock
from mediadesk.ui.panels.profiles_editor import ProfilesEditor
from mediadesk.ui.window.small_screen import scrolling

if TYPE_CHECKING:
    from mediadesk.ui.window.main_window import MainWindow

__all__ = ["build_chart_docks", "build_docks", "build_panels", "build_table", "lane_panels", "rescroll"]

COLUMN_WIDTHS = {Col.ID: 170, Col.LANE: 110, Col.PROFILE: 90, Col.ACCOUNT: 80, Col.STATE: 80, Col.ATTEMPT: 60,
                 Col.STARTED: 75, Col.HEARTBEAT: 75, Col.DURATION: 75, Col.PROMPT: 380, Col.DESKTOP: 110}


def build_panels(w: MainWindow) -> None:
    w.web_panel, w.api_panel = lane_panels(w)
    w.lane_splitter = QSplitter(Qt.Orientation.Horizontal)
    w.lane_splitter.setObjectName("laneSplitter")
    w.lane_splitter.addWidget(w.web_panel)
    w.lane_splitter.addWidget(w.api_panel)


def lane_panels(w: MainWindow) -> tuple[LanePanel, LanePanel]:
    views = [w.scheduler.profile_view(n) for n in w.scheduler.profile_names()]
    web, api = LanePanel("web", w.model, w), LanePanel("api", w.model, w)
    for panel in (web, api):
        panel.set_lanes(w.scheduler.lanes, views)
    for lane in w.scheduler.lanes:  # the first stats now, not at the next 2 s tick
        st = lane.stats()
        web.on_lane_stats(st)
        api.on_lane_stats(st)
    return web, api


def build_table(proxy: TaskFilterProxy) -> QTableView:
    t = QTableView()
    t.setObjectName("taskTable")
    t.setModel(proxy)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.setWordWrap(False)
    t.setTextElideMode(Qt.TextElideMode.ElideRight)
    t.setShowGrid(False)
    t.setAlternatingRowColors(True)
    # Uniform row heights and no row header: a vertical header keeps per-row state and made
    # each insert into a 100k-row view several times slower (measured).
    vh = t.verticalHeader()
    vh.setVisible(False)
    vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    vh.setDefaultSectionSize(t.fontMetrics().height() + 6)
    hh = t.horizontalHeader()
    hh.setSectionsMovable(True)
    hh.setStretchLastSection(True)
    hh.setSectionsClickable(True)
    hh.setSortIndicatorShown(True)
    hh.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
    hh.sortIndicatorChanged.connect(proxy.sort)
    for col, width in COLUMN_WIDTHS.items():
        t.setColumnWidth(col, width)
    hh.moveSection(hh.visualIndex(Col.DESKTOP), hh.visualIndex(Col.ERROR))  # the error column stays last
    return t


def build_docks(w: MainWindow) -> None:
    w.log_dock = LogDock(w)
    w.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, w.log_dock)
    w.accounts_panel = AccountsPanel(w.scheduler, w.bridge, w, login=w.login_account)
    w.accounts_dock = add_dock(w, QCoreApplication.translate("MainWindow", "Accounts"), "accountsDock",
                               w.accounts_panel)
    w.profiles_editor = ProfilesEditor(w.scheduler, w.bridge, w)
    w.profiles_dock = add_dock(w, QCoreApplication.translate("MainWindow", "Profiles"), "profilesDock",
                               w.profiles_editor)
    w.tabifyDockWidget(w.log_dock, w.accounts_dock)
    w.exceptions_view = ExceptionsView(w.scheduler, w.bridge, w)
    w.exceptions_dock = add_dock(w, exceptions_title(w.exceptions_view.count), "exceptionsDock", w.exceptions_view)
    w.exceptions_view.countChanged.connect(lambda n: w.exceptions_dock.setWindowTitle(exceptions_title(n)))
    w.tabifyDockWidget(w.accounts_dock, w.profiles_dock)
    w.tabifyDockWidget(w.profiles_dock, w.exceptions_dock)
    w.log_dock.raise_()
    w.resizeDocks([w.log_dock], [150], Qt.Orientation.Vertical)


def build_chart_docks(w: MainWindow) -> None:
    """Charts (throughput and run times per lane, from the store) and Batches, as two more
    tabs of the bottom dock area."""
    lanes = w.scheduler.lanes
    w.charts_view = ChartsView(w.location, [lane.name for lane in lanes], w)
    w.charts_dock = add_dock(w, QCoreApplication.translate("MainWindow", "Charts"), "chartsDock", w.charts_view)
    w.batches_view = BatchesView(w.location, lanes, w.bridge, w)
    w.batches_dock = add_dock(w, QCoreApplication.translate("MainWindow", "Batches"), "batchesDock", w.batches_view)
    w.tabifyDockWidget(w.exceptions_dock, w.batches_dock)
    w.tabifyDockWidget(w.batches_dock, w.charts_dock)
    # a dock tab brought to the front is not "shown" again (tabs are moved off-screen): read now
    w.charts_dock.visibilityChanged.connect(lambda on: on and w.charts_view.refresh(force=True))
    w.batches_dock.visibilityChanged.connect(lambda on: on and w.batches_view.refresh(force=True))
    w.desktops_view = None
    w.desktops_dock = None
    bind_desktops(w)
    w.log_dock.raise_()


def bind_desktops(w: MainWindow) -> None:
    """Team mode (a PostgreSQL queue shared by several desktops): the Desktops tab, next to
    Charts; on SQLite there is none (one desktop)."""
    s = w.scheduler
    if s.team is None:
        if w.desktops_dock is not None:  # a switch from a team workspace
            was = rescroll(w.desktops_dock.widget(), QWidget())
            if was is not None:
                was.deleteLater()
            w.desktops_dock.hide()
            w.desktops_dock.toggleViewAction().setVisible(False)
        w.desktops_view = None
        return
    view = DesktopsView(s.desktops, s.owner, w)
    w.desktops_view = view
    if w.desktops_dock is None:
        w.desktops_dock = add_dock(w, QCoreApplication.translate("MainWindow", "Desktops"), "desktopsDock", view)
        w.tabifyDockWidget(w.charts_dock, w.desktops_dock)
        w.desktops_dock.visibilityChanged.connect(lambda on: _desktops_shown(w, on))
    else:
        was = rescroll(w.desktops_dock.widget(), view)
        if was is not None:
            was.deleteLater()
        w.desktops_dock.toggleViewAction().setVisible(True)
        w.desktops_dock.show()


def _desktops_shown(w: MainWindow, on: bool) -> None:
    if on and w.desktops_view is not None:  # a tab brought to the front: read now
        w.desktops_view.refresh()


def exceptions_title(count: int) -> str:
    return QCoreApplication.translate("MainWindow", "Exceptions ({n})").format(n=count)


def add_dock(w: MainWindow, title: str, name: str, widget: QWidget) -> QDockWidget:
    dock = QDockWidget(title, w)
    dock.setObjectName(name)
    dock.setWidget(scrolling(widget))  # the exceptions view alone needs ~420 px: scroll, not a taller window
    w.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    return dock


def rescroll(scroll: QWidget | None, widget: QWidget) -> QWidget | None:
    """Put ``widget`` in the scroll area :func:`scrolling` made (kept, with its place in the
    layout); returns the widget it held before."""
    assert isinstance(scroll, QScrollArea)
    was = scroll.takeWidget()
    scroll.setWidget(widget)
    return was
