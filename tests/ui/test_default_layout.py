"""The first-run layout (no saved state) at 1600x1000 and 1024x640 shows what the operator looks
for without scrolling: the selected task's result in the detail pane, the Exceptions tab's resolve
buttons at the default dock height, and a Charts legend beside the plot rather than over it.

Real Scheduler, real ApiSimServer on 127.0.0.1, real SQLite; offscreen Qt; geometry asserted.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings
from PySide6.QtWidgets import QDockWidget, QScrollArea, QWidget

from mediadesk.scheduler import Scheduler
from mediadesk.ui.window.main_window import MainWindow
from tests.ui.conftest import ARun, ConsoleEnv, open_window
from tests.ui.test_main_window import wait_states

SIZES = [(1600, 1000), (1024, 640)]


@pytest.fixture(params=SIZES, ids=["1600x1000", "1024x640"])
def window(request: pytest.FixtureRequest, console_scheduler: Scheduler, arun: ARun,
           tmp_path: Path) -> Iterator[MainWindow]:
    settings = QSettings(str(tmp_path / "first-run.ini"), QSettings.Format.IniFormat)  # nothing saved
    with open_window(console_scheduler, arun, settings, size=request.param) as w:
        yield w


def rect_in(widget: QWidget, ancestor: QWidget) -> QRect:
    """``widget``'s rectangle in ``ancestor``'s coordinates."""
    return QRect(widget.mapTo(ancestor, QPoint(0, 0)), widget.size())


def scroll_viewport(widget: QWidget) -> QWidget:
    """The viewport of the innermost scroll area (not a text view) holding ``widget``."""
    p = widget.parentWidget()
    while p is not None:
        if isinstance(p, QScrollArea):
            vp = p.viewport()
            assert vp is not None
            return vp
        p = p.parentWidget()
    raise AssertionError(f"{widget!r} is not in a scroll area")


def on_screen(widget: QWidget, min_height: int = 0) -> bool:
    """``widget`` lies wholly inside its scroll area's viewport (nothing to scroll to see it), at
    least ``min_height`` tall, and is not hidden behind anything."""
    vp = scroll_viewport(widget)
    r = rect_in(widget, vp)
    return (widget.isVisible() and not widget.visibleRegion().isEmpty() and vp.rect().contains(r)
            and r.height() >= min_height)


def settle(qtbot: Any, w: MainWindow, size: tuple[int, int]) -> None:
    qtbot.waitUntil(lambda: (w.width(), w.height()) == size, timeout=5_000)
    qtbot.waitUntil(lambda: w.main_splitter.widget(2).height() > 0, timeout=5_000)


def raise_dock(qtbot: Any, dock: QDockWidget) -> None:
    dock.raise_()
    inner = dock.widget()
    assert inner is not None
    qtbot.waitUntil(lambda: inner.isVisible() and not inner.visibleRegion().isEmpty(), timeout=5_000)


def test_detail_pane_shows_the_result_without_scrolling(window: MainWindow, console_env: ConsoleEnv,
                                                        console_scheduler: Scheduler, qtbot: Any,
                                                        request: pytest.FixtureRequest) -> None:
    size = request.node.callspec.params["window"]
    settle(qtbot, window, size)
    s = console_scheduler
    s.intake.submit([s.intake.new_task("r1", "writer", "show me the result")])
    wait_states(qtbot, console_env, {"r1": "success"})
    qtbot.waitUntil(lambda: window.model.row_of("r1") is not None, timeout=5_000)
    window.table.selectRow(window.proxy.mapFromSource(window.model.index(window.model.row_of("r1") or 0, 0)).row())
    d = window.detail
    qtbot.waitUntil(lambda: "show me the result" in d.result_view.toPlainText(), timeout=10_000)
    lines = d.result_view.fontMetrics().lineSpacing()
    qtbot.waitUntil(lambda: on_screen(d.result_view, 3 * lines), timeout=5_000)
    assert d.copy_button.isVisible() and on_screen(d.copy_button)
    # the result has the larger share of the pane's width
    assert d.result_view.width() > d.splitter.width() // 2


def test_exception_resolve_buttons_are_on_screen_at_the_default_dock_height(
        window: MainWindow, qtbot: Any, request: pytest.FixtureRequest) -> None:
    size = request.node.callspec.params["window"]
    settle(qtbot, window, size)
    raise_dock(qtbot, window.exceptions_dock)
    view = window.exceptions_view
    buttons = [view.retry_button, view.reroute_button, view.profile_combo, view.answer_button, view.drop_button]
    qtbot.waitUntil(lambda: all(on_screen(b) for b in buttons), timeout=5_000)
    assert on_screen(view.note_edit)  # the note goes with the decision: beside the buttons


def test_charts_legend_does_not_cover_the_plot(window: MainWindow, console_env: ConsoleEnv,
                                               console_scheduler: Scheduler, qtbot: Any,
                                               request: pytest.FixtureRequest) -> None:
    size = request.node.callspec.params["window"]
    settle(qtbot, window, size)
    s = console_scheduler
    s.intake.submit([s.intake.new_task(f"c{i}", "writer", f"chart {i}") for i in range(4)])
    wait_states(qtbot, console_env, {f"c{i}": "success" for i in range(4)})
    raise_dock(qtbot, window.charts_dock)
    view = window.charts_view
    qtbot.waitUntil(lambda: view.plots_built and view.data is not None and bool(view.data.lanes),
                    timeout=15_000)
    plot = view.throughput_plot
    assert plot is not None
    data_area = plot.getPlotItem().getViewBox()

    def legend_and_plot() -> tuple[QRect, QRect]:
        """The legend's rectangle and the plot's data area, in window coordinates."""
        area = plot.mapFromScene(data_area.sceneBoundingRect()).boundingRect()
        area.translate(plot.viewport().mapTo(window, QPoint(0, 0)))
        legend = view.legend
        if isinstance(legend, QWidget):
            return rect_in(legend, window), area
        # a legend drawn by the plotting library, in the plot's scene
        shown = plot.mapFromScene(legend.sceneBoundingRect()).boundingRect()
        return shown.translated(plot.viewport().mapTo(window, QPoint(0, 0))), area

    qtbot.waitUntil(lambda: all(r.width() > 0 and r.height() > 0 for r in legend_and_plot()), timeout=5_000)
    qtbot.waitUntil(lambda: not legend_and_plot()[0].intersects(legend_and_plot()[1]), timeout=5_000)
    # and the plot is there to be seen: a data area of a few text lines, not squeezed to a sliver
    assert legend_and_plot()[1].height() >= 2 * view.fontMetrics().height()
    if isinstance(view.legend, QWidget):
        assert view.legend.isVisible() and view.data is not None
        assert all(lane in view.legend.text() for lane in view.data.lanes)
