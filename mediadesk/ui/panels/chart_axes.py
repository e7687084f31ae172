"""pyqtgraph pieces of the Charts tab that must subclass pyqtgraph (imported only when the tab is
first drawn: see :mod:`mediadesk.ui.panels.charts`)."""

from __future__ import annotations

import math
import os

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")  # before pyqtgraph picks a binding

import pyqtgraph as pg

__all__ = ["SecondsLogAxis"]


class SecondsLogAxis(pg.AxisItem):
    """A log-scale axis of seconds labelled 1, 2, 5, 10, 20, 50, ... (the default puts a label on
    every minor tick, and they overlap)."""

    def logTickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        out = []
        for v in values:
            x = 10 ** (v * scale)
            lead = round(x / 10 ** math.floor(math.log10(x) + 1e-9), 6) if x > 0 else 0
            out.append(f"{x:g}" if lead in (1, 2, 5) else "")
        return out
