"""Saving and restoring the main window's layout (geometry, docks, splitters, table header)."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QByteArray, QSettings, Qt
from PySide6.QtWidgets import QHeaderView, QMainWindow, QSplitter

__all__ = ["SETTINGS_VERSION", "restore_window_state", "save_window_state"]

#: Bumped when the saved layout no longer fits the window; an older one is then ignored.
SETTINGS_VERSION = 1
_GROUP = "mainWindow"


def save_window_state(settings: QSettings, window: QMainWindow, splitters: Mapping[str, QSplitter],
                      header: QHeaderView) -> None:
    s = settings
    s.beginGroup(_GROUP)
    s.setValue("version", SETTINGS_VERSION)
    s.setValue("geometry", window.saveGeometry())
    s.setValue("state", window.saveState(SETTINGS_VERSION))
    for key, splitter in splitters.items():
        s.setValue(key, splitter.saveState())
    s.setValue("tableHeader", header.saveState())
    s.endGroup()
    s.sync()


def _bytes(value: object) -> QByteArray | None:
    return QByteArray(value) if isinstance(value, QByteArray | bytes) else None


def restore_window_state(settings: QSettings, window: QMainWindow, splitters: Mapping[str, QSplitter],
                         header: QHeaderView) -> bool:
    """Restore what :func:`save_window_state` wrote; False when nothing (or an old format) was saved."""
    s = settings
    s.beginGroup(_GROUP)
    try:
        if int(s.value("version", 0) or 0) != SETTINGS_VERSION:  # type: ignore[call-overload]
            return False
        if (geometry := _bytes(s.value("geometry"))) is not None:
            window.restoreGeometry(geometry)
        for key, splitter in splitters.items():
            if (value := _bytes(s.value(key))) is not None:
                splitter.restoreState(value)
        if (state := _bytes(s.value("state"))) is not None:
            window.restoreState(state, SETTINGS_VERSION)
        if (saved := _bytes(s.value("tableHeader"))) is not None:
            header.restoreState(saved)
            # A saved sort indicator would re-sort on every start: keep insertion order.
            header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        return True
    finally:
        s.endGroup()
