"""The console on a small screen (a 1024x640 laptop, a window beside another): the task table
keeps at least :data:`MIN_TABLE_ROWS` visible rows and the search box stays on screen.

Below :data:`COMPACT_BELOW_HEIGHT` the lane panels fold to one-line summaries and the detail pane
and docks give way (they scroll). When the two toolbars do not fit side by side, the main toolbar
shows icons only, then the search box narrows (not a second toolbar line: that changes the
window's height while a resize is applied). Each layout keeps its own splitter sizes (saved as
``mainSplitter`` and ``mainSplitterCompact``), so a restart on a large screen never comes back squeezed.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QByteArray, QEvent, QObject, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QMainWindow, QSplitter, QTableView, QToolBar, QWidget

from mediadesk.ui.panels.lane_panel import LanePanel
from mediadesk.ui.screen_fit import scrolling

__all__ = ["COMPACT_BELOW_HEIGHT", "MIN_TABLE_ROWS", "SMALL_SCREEN_HEIGHT", "SmallScreenLayout", "scrolling"]

#: Window heights below this get the compact layout (the full one needs ~760 px for 12 rows).
COMPACT_BELOW_HEIGHT = 760
#: Room left between and around the two toolbars (handles, margins), in pixels.
_TOOLBAR_SLACK = 24
#: The search box's minimum width when even an icon-only main toolbar leaves too little room.
_NARROW_SEARCH = 140
#: Rows the task table keeps visible in the compact layout when the rest of the window leaves room
#: for them (it does in a window :data:`SMALL_SCREEN_HEIGHT` tall); else as many as fit, so the
#: table's minimum never holds the window taller than the operator or the screen made it.
MIN_TABLE_ROWS = 12
SMALL_SCREEN_HEIGHT = 640
_FEWEST_ROWS = 3


class SmallScreenLayout(QObject):
    """Watches ``window``'s size and switches the compact layout on and off."""

    def __init__(self, window: QMainWindow, panels: Sequence[LanePanel], lane_splitter: QSplitter,
                 main_splitter: QSplitter, table: QTableView, main_toolbar: QToolBar, filter_bar: QToolBar) -> None:
        super().__init__(window)
        self.window = window
        self.panels = list(panels)
        self.lane_splitter = lane_splitter
        self.main_splitter = main_splitter
        self.table = table
        self.main_toolbar = main_toolbar
        self.filter_bar = filter_bar
        self.compact = False
        self.icon_only = False
        self.search: QWidget = getattr(filter_bar, "search", filter_bar)
        self._search_width = self.search.minimumWidth()
        self._full_state: QByteArray | None = None
        #: The compact layout's splitter state, from the last time it was left (or the settings).
        self.compact_state: QByteArray | None = None
        # The main toolbar's width with texts and with icons only, measured once each.
        self._toolbar_widths: dict[bool, int] = {}
        #: The compact sizes wait for the splitter's first layout (before it, its sizes are zeros).
        self._sizes_pending = False
        window.installEventFilter(self)
        main_splitter.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and isinstance(event, QResizeEvent):
            if watched is self.window:
                self.fit(event.size())
            elif watched is self.main_splitter and self._sizes_pending:
                self._apply_compact_sizes()
        return False

    def fit(self, size: QSize | None = None) -> None:
        """Choose the layout for a window of ``size`` (default: its size now)."""
        size = self.window.size() if size is None else size
        compact = size.height() < COMPACT_BELOW_HEIGHT
        if compact != self.compact:
            self._set_compact(compact, size.height())
        elif compact:
            self.table.setMinimumHeight(self.table_min_height(size.height()))
        self._fit_toolbars(size.width())

    def _toolbar_width(self, icon_only: bool) -> int:
        """The main toolbar's width in one style (measured by switching to it, once)."""
        if icon_only not in self._toolbar_widths:
            self._set_style(icon_only)
            layout = self.main_toolbar.layout()
            if layout is not None:
                layout.invalidate()  # else its size hint is the previous style's
            self._toolbar_widths[icon_only] = self.main_toolbar.sizeHint().width()
        return self._toolbar_widths[icon_only]

    def _set_style(self, icon_only: bool) -> None:
        style = Qt.ToolButtonStyle.ToolButtonIconOnly if icon_only else Qt.ToolButtonStyle.ToolButtonTextBesideIcon
        if self.main_toolbar.toolButtonStyle() != style:
            self.main_toolbar.setToolButtonStyle(style)

    def _fit_toolbars(self, width: int) -> None:
        """Texts or icons only on the main toolbar, whichever lets the filter toolbar (with the
        search box) fit beside it; when even icons do not make room, the search box narrows."""
        layout = self.filter_bar.layout()
        if layout is not None:
            layout.invalidate()  # the scope button may just have appeared or gone
        room = width - self.filter_bar.sizeHint().width() - _TOOLBAR_SLACK
        self.icon_only = self._toolbar_width(False) > room
        self._set_style(self.icon_only)
        self.search.setMinimumWidth(_NARROW_SEARCH if self._toolbar_width(True) > room else self._search_width)

    def table_min_height(self, window_height: int = SMALL_SCREEN_HEIGHT) -> int:
        """Header, :data:`MIN_TABLE_ROWS` rows, a horizontal scroll bar and the frame; fewer rows
        when the rest of a window ``window_height`` tall leaves less room (a taller font, as Chinese
        text gets, made 12 rows hold the window taller than the screen; the window then grew, and
        with it the rows it allowed)."""
        t = self.table
        row = t.verticalHeader().defaultSectionSize()
        rest = (t.horizontalHeader().sizeHint().height() + t.horizontalScrollBar().sizeHint().height()
                + 2 * t.frameWidth())
        # the window's minimum without the table's (the table's is its set minimum, else its hint)
        part = t.parentWidget()
        while part is not None and part is not self.window:  # else their cached minimums are stale
            part.updateGeometry()
            part = part.parentWidget()
        others = self.window.minimumSizeHint().height() - (t.minimumHeight() or t.minimumSizeHint().height())
        rows_px = max(_FEWEST_ROWS * row, min(MIN_TABLE_ROWS * row, window_height - others - rest))
        return rest + rows_px

    def _set_compact(self, compact: bool, window_height: int) -> None:
        self.compact = compact
        if compact:
            self._full_state = self.main_splitter.saveState()
            for p in self.panels:
                p.set_compact(True)
            self.table.setMinimumHeight(self.table_min_height(window_height))
            if self.compact_state is not None:
                self.main_splitter.restoreState(self.compact_state)
            else:
                self._sizes_pending = True
                self._apply_compact_sizes()
        else:
            self._sizes_pending = False
            self.compact_state = self.main_splitter.saveState()
            for p in self.panels:
                p.set_compact(False)
            self.table.setMinimumHeight(0)
            if self._full_state is not None:
                self.main_splitter.restoreState(self._full_state)
            self._full_state = None

    def _apply_compact_sizes(self) -> None:
        """Lane panels one line high, the table its minimum, the detail pane the rest."""
        lanes = max((p.compact_height() for p in self.panels), default=0)
        table = self.table.minimumHeight()
        total = sum(self.main_splitter.sizes())
        if total > lanes + table:  # else not laid out yet: wait for the splitter's resize
            self._sizes_pending = False
            self.main_splitter.setSizes([lanes, table, total - lanes - table])

    def saved_states(self) -> dict[str, QByteArray]:
        """Splitter states to save: while compact, ``mainSplitter`` is the full layout's (not the
        current one) and ``mainSplitterCompact`` the current one."""
        if self.compact:
            out = {"mainSplitterCompact": self.main_splitter.saveState()}
            if self._full_state is not None:
                out["mainSplitter"] = self._full_state
            return out
        return {"mainSplitterCompact": self.compact_state} if self.compact_state is not None else {}
