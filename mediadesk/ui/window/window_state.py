"""Saving and restoring the main window's layout (geometry, docks, splitters, table header: column
widths, order, hidden columns and the sort), the task table's filters, and the recent configs
(File > Recent configs)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QHeaderView, QMainWindow, QSplitter

__all__ = ["RECENT_CONFIGS_MAX", "SETTINGS_VERSION", "forget_config", "recent_configs", "remember_config",
           "restore_table_filters", "restore_window_state", "save_table_filters", "save_window_state",
           "saved_state"]

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


# --------------------------------------------------------------------------- recent configs
#: How many configs File > Recent configs remembers.
RECENT_CONFIGS_MAX = 8
_RECENT = "recentConfigs"


def recent_configs(settings: QSettings) -> list[Path]:
    """The configs opened last, newest first (at most :data:`RECENT_CONFIGS_MAX`)."""
    n = settings.beginReadArray(_RECENT)
    try:
        out: list[Path] = []
        for i in range(n):
            settings.setArrayIndex(i)
            value = settings.value("path")
            if isinstance(value, str) and value and Path(value) not in out:
                out.append(Path(value))
        return out[:RECENT_CONFIGS_MAX]
    finally:
        settings.endArray()


def _write_recent(settings: QSettings, paths: list[Path]) -> None:
    settings.remove(_RECENT)
    settings.beginWriteArray(_RECENT, len(paths))
    for i, path in enumerate(paths):
        settings.setArrayIndex(i)
        settings.setValue("path", str(path))
    settings.endArray()
    settings.sync()


def _absolute(path: Path) -> Path:
    try:
        return path.expanduser().resolve()
    except OSError:
        return path.absolute()


def remember_config(settings: QSettings, path: Path) -> list[Path]:
    """Put ``path`` (made absolute) first in the recent configs; returns the new list."""
    path = _absolute(path)
    paths = [path, *(p for p in recent_configs(settings) if p != path)][:RECENT_CONFIGS_MAX]
    _write_recent(settings, paths)
    return paths


def forget_config(settings: QSettings, path: Path) -> list[Path]:
    """Take ``path`` off the recent configs (a file no longer there); returns the new list."""
    gone = {path, _absolute(path)}
    paths = [p for p in recent_configs(settings) if p not in gone]
    _write_recent(settings, paths)
    return paths
