"""The window's panes: the two lane panels, the task table, and the bottom docks' helpers.

The window owns every widget made here; titles keep the ``MainWindow`` translation context.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QHeaderView,
    QMainWindow,
    QScrollArea,
    QSplitter,
    QTableView,
    QWidget,
)

from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.ui.models.task_model import Col, TaskFilterProxy, TaskTableModel
from mediadesk.ui.panels.lane_panel import LanePanel
from mediadesk.ui.window.small_screen import scrolling

__all__ = ["add_dock", "build_table", "exceptions_title", "lane_panels", "lane_splitter", "rescroll"]

COLUMN_WIDTHS = {Col.ID: 170, Col.LANE: 110, Col.PROFILE: 90, Col.ACCOUNT: 80, Col.STATE: 80, Col.ATTEMPT: 60,
                 Col.STARTED: 75, Col.HEARTBEAT: 75, Col.DURATION: 75, Col.PROMPT: 380, Col.DESKTOP: 110}


def lane_panels(scheduler: Scheduler, model: TaskTableModel, parent: QWidget) -> tuple[LanePanel, LanePanel]:
    """The web and API lane panels of ``scheduler``'s lanes, with their first stats."""
    views = [scheduler.profile_view(n) for n in scheduler.profile_names()]
    web, api = LanePanel("web", model, parent), LanePanel("api", model, parent)
    for panel in (web, api):
        panel.set_lanes(scheduler.lanes, views)
    for lane in scheduler.lanes:  # the first stats now, not at the next 2 s tick
        st = lane.stats()
        web.on_lane_stats(st)
        api.on_lane_stats(st)
    return web, api


def lane_splitter(web: LanePanel, api: LanePanel) -> QSplitter:
    splitter = QSplitter(Qt.Orientation.Horizontal)
    splitter.setObjectName("laneSplitter")
    splitter.addWidget(web)
    splitter.addWidget(api)
    return splitter


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
    # each insert into a 100k-row view several times slower.
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


def exceptions_title(count: int) -> str:
    return QCoreApplication.translate("MainWindow", "Exceptions ({n})").format(n=count)


def add_dock(window: QMainWindow, title: str, name: str, widget: QWidget) -> QDockWidget:
    dock = QDockWidget(title, window)
    dock.setObjectName(name)
    dock.setWidget(scrolling(widget))  # the exceptions view alone needs ~420 px: scroll, not a taller window
    window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    return dock


def rescroll(scroll: QWidget | None, widget: QWidget) -> QWidget | None:
    """Put ``widget`` in the scroll area :func:`scrolling` made (kept, with its place in the
    layout); returns the widget it held before."""
    assert isinstance(scroll, QScrollArea)
    was = scroll.takeWidget()
    scroll.setWidget(widget)
    return was
