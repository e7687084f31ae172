"""The Charts tab: per-lane throughput and run-time distribution over 5 min / 1 h / 24 h, live.

Everything drawn comes from the task table (:class:`~mediadesk.store.metrics.MetricsReader`), so a
restart loses nothing; reads run in a worker thread, one at a time, while the tab is visible. The
plots are pyqtgraph rather than the deprecated Qt Charts (which needs PySide6-Addons and is slower
on per-second data; see docs/benchmarks.md, "Charts"). pyqtgraph and numpy are imported only when
the plots are first shown: they cost resident memory an operator who never opens the tab should not pay.
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from mediadesk.config.location import StoreLocation
from mediadesk.store.metrics import FinishedBuckets, MetricsReader, ensure_metrics_indexes
from mediadesk.ui.format import fmt_seconds
from mediadesk.ui.jobs.workers import TaskJobs
from mediadesk.ui.style import is_dark
from mediadesk.viewmodel.series import RANGES, ChartData, ChartRange, SeriesCache

if TYPE_CHECKING:
    import pyqtgraph as pg

__all__ = ["ChartsView", "lane_color", "read_finished", "tune_curve"]


def __getattr__(name: str) -> Any:
    # SecondsLogAxis subclasses pyqtgraph: imported on first use only (see the module doc)
    if name == "SecondsLogAxis":
        from mediadesk.ui.panels.chart_axes import SecondsLogAxis

        return SecondsLogAxis
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

#: (light, dark) per lane, in order of appearance; the total is drawn in the text colour.
_LANE_COLORS = (("#2f6fca", "#5c9cf5"), ("#2e9a57", "#4cc47c"), ("#c98a12", "#e8b04a"),
                ("#8a6d9e", "#b79bd0"), ("#cc3b3b", "#f07070"), ("#178a8a", "#4cc4c4"))


def lane_color(index: int, dark: bool) -> QColor:
    light_c, dark_c = _LANE_COLORS[index % len(_LANE_COLORS)]
    return QColor(dark_c if dark else light_c)


def tune_curve(item: pg.PlotDataItem) -> pg.PlotDataItem:
    """Draw only what the pixels can show: peak downsampling and clipping to the visible range
    (what keeps pyqtgraph fast on long per-second series)."""
    item.setDownsampling(auto=True, method="peak")
    item.setClipToView(True)
    return item


def read_finished(location: StoreLocation | Path, since: float, until: float, bucket_s: float, *,
                  ensure_indexes: bool = False) -> tuple[FinishedBuckets, float]:
    """The store read (worker thread): buckets and how long the read took (s)."""
    t = time.perf_counter()
    if ensure_indexes:
        ensure_metrics_indexes(location)
    with MetricsReader(location) as r:
        fb = r.finished(since, until, bucket_s)
    return fb, time.perf_counter() - t


class ChartsView(QWidget):
    """Throughput per lane (one line each, plus the total) and the run-time histogram of the lanes
    shown, on shared log-spaced bins. ``lanes``: the configured lanes (idle ones are listed too)."""

    #: A refresh was drawn (tests, bench).
    updated = Signal()

    def __init__(self, location: StoreLocation | Path, lanes: Sequence[str] = (), parent: QWidget | None = None, *,
                 clock: Callable[[], float] = time.time, refresh_ms: int = 2000) -> None:
        super().__init__(parent)
        self.setObjectName("chartsView")
        self.location = location
        self._clock = clock
        self._configured = tuple(lanes)
        self._jobs = TaskJobs(owner=self)
        self._busy = False
        self._indexes_checked = False
        self.cache = SeriesCache(RANGES[0])
        self.data: ChartData | None = None
        #: seconds per refresh: the store read (worker thread) and the drawing (GUI thread)
        self.read_times: list[float] = []
        self.apply_times: list[float] = []

        self.range_box = QComboBox()
        self.range_box.setObjectName("chartRange")
        for rng, label in zip(RANGES, (self.tr("Last 5 minutes"), self.tr("Last hour"), self.tr("Last 24 hours")),
                              strict=True):
            self.range_box.addItem(label, rng.key)
        self.lane_box = QComboBox()
        self.lane_box.setObjectName("chartLane")
        self.lane_box.addItem(self.tr("All lanes"), "")
        for name in self._configured:
            self.lane_box.addItem(name, name)
        self.summary = QLabel()
        self.summary.setObjectName("chartSummary")
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)  # one line per lane; never widens the window
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        # beside the plots, not under them: under them it took the plots' height at the default
        # dock height (a line per lane), leaving a data area a few pixels tall
        self._summary_scroll = QScrollArea()
        self._summary_scroll.setWidgetResizable(True)
        self._summary_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._summary_scroll.setWidget(self.summary)
        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("Range:")))
        top.addWidget(self.range_box)
        top.addSpacing(12)
        top.addWidget(QLabel(self.tr("Lane:")))
        top.addWidget(self.lane_box)
        top.addSpacing(12)
        # The legend is a line of its own beside the controls, never over the plot: at the default
        # dock height (a plot ~70 px tall) one drawn inside the data area covered most of it.
        self.legend = QLabel()
        self.legend.setObjectName("chartLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)  # colour marks; lane names escaped
        self.legend.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        top.addWidget(self.legend, 1)

        self._dark = is_dark(self.palette())
        # the plots: built on first draw on screen (:meth:`_build_plots`, imports pyqtgraph)
        self.throughput_plot: pg.PlotWidget | None = None
        self.dist_plot: pg.PlotWidget | None = None
        self._curves: dict[str, pg.PlotDataItem] = {}
        self._hists: dict[str, pg.PlotDataItem] = {}
        self._total_curve: pg.PlotDataItem | None = None

        self._split = QSplitter(Qt.Orientation.Horizontal)
        self._split.setObjectName("chartsSplitter")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(top)
        lay.addWidget(self._split, 1)
        self._split.addWidget(self._summary_scroll)

        self.range_box.currentIndexChanged.connect(lambda _i: self._range_changed())
        self.lane_box.currentIndexChanged.connect(lambda _i: self._draw())
        self._timer = QTimer(self)
        self._timer.setInterval(refresh_ms)
        self._timer.timeout.connect(self.refresh)
        self._timer.start()

    @property
    def plots_built(self) -> bool:
        """Whether the pyqtgraph plots exist yet (they are built when first drawn on screen)."""
        return self.throughput_plot is not None

    def _build_plots(self) -> None:
        import pyqtgraph as pg

        from mediadesk.ui.panels.chart_axes import SecondsLogAxis

        bg = self.palette().color(self.backgroundRole())
        fg = self.palette().color(self.foregroundRole())
        self.throughput_plot = pg.PlotWidget(axisItems={"bottom": pg.DateAxisItem(orientation="bottom")},
                                             background=bg)
        self.throughput_plot.setObjectName("throughputPlot")
        tp = self.throughput_plot.getPlotItem()
        # the titles are tooltips: a title row costs a third of the plot at the default dock height
        self.throughput_plot.setToolTip(self.tr("Throughput (tasks finished per minute)"))
        tp.setLabel("left", self.tr("tasks/min"))
        # no grid: translucent grid lines doubled to tripled the cost of a repaint (measured)
        tp.setMouseEnabled(x=False, y=False)
        tp.hideButtons()
        tp.disableAutoRange()  # ranges are set from the data we already have (no bounds scan per paint)
        self.dist_plot = pg.PlotWidget(axisItems={"bottom": SecondsLogAxis(orientation="bottom")}, background=bg)
        self.dist_plot.setObjectName("runTimePlot")
        dp = self.dist_plot.getPlotItem()
        self.dist_plot.setToolTip(self.tr("Run-time distribution (successes)"))
        dp.setLabel("bottom", self.tr("run time (s, log scale)"))
        dp.setLabel("left", self.tr("tasks"))
        dp.setLogMode(x=True, y=False)
        dp.setMouseEnabled(x=False, y=False)
        dp.hideButtons()
        dp.disableAutoRange()
        for plot in (tp, dp):
            for side in ("left", "bottom"):
                axis = plot.getAxis(side)
                axis.setTextPen(fg)
                axis.setPen(fg)
        self._total_curve = tp.plot([], [], pen=pg.mkPen(fg, width=1, style=Qt.PenStyle.DashLine),
                                    name=self.tr("all lanes"))
        self._split.insertWidget(0, self.throughput_plot)
        self._split.insertWidget(1, self.dist_plot)
        for i, share in enumerate((3, 2, 1)):
            self._split.setStretchFactor(i, share)
        width = max(self._split.width(), 600)
        self._split.setSizes([width * 3 // 6, width * 2 // 6, width // 6])

    # ------------------------------------------------------------------ controls
    @property
    def range(self) -> ChartRange:
        return self.cache.range

    def set_range(self, key: str) -> None:
        i = self.range_box.findData(key)
        if i < 0:
            raise ValueError(f"unknown range {key!r}")
        self.range_box.setCurrentIndex(i)

    def set_lane(self, lane: str) -> None:
        """Show one lane (``""``: all lanes)."""
        i = self.lane_box.findData(lane)
        if i < 0:
            self.lane_box.addItem(lane, lane)
            i = self.lane_box.count() - 1
        self.lane_box.setCurrentIndex(i)

    def selected_lane(self) -> str:
        return str(self.lane_box.currentData() or "")

    def _range_changed(self) -> None:
        key = self.range_box.currentData()
        rng = next(r for r in RANGES if r.key == key)
        if rng != self.cache.range:
            self.cache = SeriesCache(rng)
            self.data = None
            self.refresh(force=True)

    # ------------------------------------------------------------------ refresh
    def is_shown(self) -> bool:
        """On screen: a dock in a tab that is not the current one stays "visible" to Qt (it is
        moved off the window), so the visible region is what counts."""
        return self.isVisible() and not self.visibleRegion().isEmpty()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh(force=True)

    def refresh(self, force: bool = False) -> bool:
        """Start a store read unless one is under way or (without ``force``) it is not on screen.
        True when a read was started."""
        if self._busy or not (force or self.is_shown()):
            return False
        now = self._clock()
        cache = self.cache
        since, until, full = cache.query_span(now)
        ensure = not self._indexes_checked
        self._indexes_checked = True
        self._busy = True
        db = self.location

        def done(result: tuple[FinishedBuckets, float]) -> None:
            self._busy = False
            fb, read_s = result
            if cache is not self.cache:  # the range changed meanwhile: read again for the new one
                self.refresh(force=True)
                return
            self.read_times.append(read_s)
            cache.merge(fb, now, full=full)
            self.data = cache.build(self._clock(), self._configured)
            self._draw()

        def failed(_exc: BaseException) -> None:
            self._busy = False

        self._jobs.in_thread(lambda: read_finished(db, since, until, cache.range.bucket_s, ensure_indexes=ensure),
                             "charts:read", done, failed)
        return True

    @property
    def busy(self) -> bool:
        return self._busy

    def close_jobs(self) -> None:
        self._timer.stop()
        self._jobs.cancel_all()
        self._busy = False  # a cancelled read calls back neither done nor failed: none is under way now

    async def drain_jobs(self) -> None:
        """After :meth:`close_jobs`: wait for the worker threads still running (window close)."""
        await self._jobs.drain()

    # ------------------------------------------------------------------ drawing
    def _lane_index(self, lane: str) -> int:
        names = sorted(set(self._configured) | set(self._curves))
        return names.index(lane) if lane in names else len(names)

    def _draw(self) -> None:
        data = self.data
        if data is None:
            return
        t = time.perf_counter()
        lanes = [lane for lane in data.lanes if lane not in self._curves]
        if lanes:
            self._configured = tuple(sorted(set(self._configured) | set(lanes)))
            for lane in lanes:
                if self.lane_box.findData(lane) < 0:
                    self.lane_box.addItem(lane, lane)
        if not self.plots_built:
            if not self.is_shown():  # off screen: the plots (and pyqtgraph) wait until it is shown
                self.summary.setText(self.summary_text())
                self.updated.emit()
                return
            self._build_plots()
        import pyqtgraph as pg  # already imported by _build_plots: a dict look-up

        assert self.throughput_plot is not None and self.dist_plot is not None and self._total_curve is not None
        pick = self.selected_lane()
        y_max = h_max = 0.0
        tp = self.throughput_plot.getPlotItem()
        dp = self.dist_plot.getPlotItem()
        for lane in data.lanes:
            color = lane_color(self._lane_index(lane), self._dark)
            curve = self._curves.get(lane)
            if curve is None:
                curve = self._curves[lane] = tune_curve(tp.plot([], [], pen=pg.mkPen(color, width=2), name=lane))
                fill = QColor(color)
                fill.setAlpha(70)
                self._hists[lane] = dp.plot([], [], stepMode="center", fillLevel=0, brush=fill,
                                            pen=pg.mkPen(color, width=1.5))
            shown = not pick or pick == lane
            s = data.series[lane]
            curve.setData(s.x, s.per_min, skipFiniteCheck=True)
            curve.setVisible(shown)
            if shown:
                y_max = max(y_max, max(s.per_min, default=0.0))
            d = data.distributions[lane]
            hist = self._hists[lane]
            if shown and d.n and d.edges:
                hist.setData(d.edges, d.counts, skipFiniteCheck=True)
                hist.setVisible(True)
                h_max = max(h_max, max(d.counts))
            else:
                hist.setVisible(False)
        with_total = not pick and len(data.lanes) > 1
        self._total_curve.setData(data.total.x, data.total.per_min, skipFiniteCheck=True)
        self._total_curve.setVisible(with_total)
        if with_total:
            y_max = max(y_max, max(data.total.per_min, default=0.0))
        tp.setRange(xRange=(data.since, data.now), yRange=(0, max(y_max, 1.0) * 1.1), padding=0)
        if data.edges:
            dp.setRange(xRange=(math.log10(data.edges[0]), math.log10(data.edges[-1])),
                        yRange=(0, max(h_max, 1.0) * 1.1), padding=0)
        self.summary.setText(self.summary_text())
        self.legend.setText(self.legend_html(data.lanes, with_total))
        self.apply_times.append(time.perf_counter() - t)
        self.updated.emit()

    def legend_html(self, lanes: Sequence[str], with_total: bool) -> str:
        """A colour mark and the name of each lane drawn, and the dashed all-lanes line."""
        pick = self.selected_lane()
        parts = [f'<span style="color:{lane_color(self._lane_index(lane), self._dark).name()}">&#9632;</span>'
                 f"&nbsp;{html.escape(lane)}" for lane in lanes if not pick or pick == lane]
        if with_total:
            parts.append("&#8230;&nbsp;" + html.escape(self.tr("all lanes")))
        return "&nbsp;&nbsp; ".join(parts)

    def summary_text(self) -> str:
        data = self.data
        if data is None:
            return ""
        parts = []
        pick = self.selected_lane()
        for lane in data.lanes:
            if pick and lane != pick:
                continue
            s, d = data.series[lane], data.distributions[lane]
            text = self.tr("{lane}: {ok} done, {bad} failed").format(lane=lane, ok=s.succeeded, bad=s.failed)
            if d.n:
                text += self.tr(" · run time p50 {p50}, p90 {p90}, max {mx}").format(
                    p50=fmt_seconds(d.p50), p90=fmt_seconds(d.p90), mx=fmt_seconds(d.max))
            parts.append(text)
        if not parts:
            return self.tr("No lane finished a task in this range.")
        return "\n".join(parts)

    def curve_data(self, lane: str) -> tuple[list[float], list[float]]:
        """What the throughput line of ``lane`` shows now (tests): x, y."""
        curve = self._curves.get(lane)
        if curve is None:
            return [], []
        x, y = curve.getData()
        return ([] if x is None else [float(v) for v in x]), ([] if y is None else [float(v) for v in y])

    def histogram_total(self, lane: str) -> int:
        """Tasks in the run-time histogram of ``lane`` as drawn (tests)."""
        hist = self._hists.get(lane)
        if hist is None or not hist.isVisible():
            return 0
        _x, y = hist.getData()
        return 0 if y is None else int(sum(y))
