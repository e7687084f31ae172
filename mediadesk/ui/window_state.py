"""Saving and restoring the main window's layout (geometry, docks, splitters, table header: column
widths, order, hidden columns and the sort) and the task table's filters."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QHeaderView, QMainWindow, QSplitter

__all__ = ["SETTINGS_VERSION", "restore_table_filters", "restore_window_state", "save_table_filters",
           "save_window_state", "saved_state"]

#: Bumped when the saved layout no longer fits the window; an older one is then ignored.
SETTINGS_VERSION = 1
_GROUP = "mainWindow"


def save_window_state(settings: QSettings, window: QMainWindow, splitters: Mapping[str, QSplitter],
                      header: QHeaderView, overrides: Mapping[str, QByteArray] | None = None) -> None:
    """``overrides``: states to save instead of the splitters' current ones (the full layout's,
    while the window is squeezed into its small-screen layout), or besides them (new keys: read
    them back with :func:`saved_state`)."""
    s = settings
    s.beginGroup(_GROUP)
    s.setValue("version", SETTINGS_VERSION)
    s.setValue("geometry", window.saveGeometry())
    s.setValue("state", window.saveState(SETTINGS_VERSION))
    for key, splitter in splitters.items():
        s.setValue(key, (overrides or {}).get(key) or splitter.saveState())
    for key, value in (overrides or {}).items():
        if key not in splitters:
            s.setValue(key, value)
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
            # Widths, order, hidden columns and the sort indicator; the window sorts the rows by it
            # once they are loaded (rows are not sorted as they arrive).
            header.restoreState(saved)
        return True
    finally:
        s.endGroup()


def saved_state(settings: QSettings, key: str) -> QByteArray | None:
    """A state that :func:`save_window_state` wrote under ``key`` (None: none, or an old format)."""
    settings.beginGroup(_GROUP)
    try:
        if int(settings.value("version", 0) or 0) != SETTINGS_VERSION:  # type: ignore[call-overload]
            return None
        return _bytes(settings.value(key))
    finally:
        settings.endGroup()


_FILTERS = "taskTableFilters"


def save_table_filters(settings: QSettings, values: Mapping[str, str]) -> None:
    settings.beginGroup(_FILTERS)
    settings.remove("")
    for key, value in values.items():
        settings.setValue(key, value)
    settings.endGroup()
    settings.sync()


def restore_table_filters(settings: QSettings) -> dict[str, str]:
    """What :func:`save_table_filters` wrote (empty when nothing was saved)."""
    settings.beginGroup(_FILTERS)
    try:
        return {key: str(settings.value(key) or "") for key in settings.childKeys()}
    finally:
        settings.endGroup()
