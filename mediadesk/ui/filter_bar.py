"""The task table's filter toolbar: lane kind, state, profile and a debounced search box."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QComboBox, QLineEdit, QToolBar, QWidget

from mediadesk.ui.format import state_labels
from mediadesk.viewmodel.task_rows import DISPLAY_STATES, RowFilter

__all__ = ["FilterBar"]

#: Typing pauses this long before the table is filtered (each pass over 100k rows costs ~0.2 s).
SEARCH_DEBOUNCE_MS = 250


class FilterBar(QToolBar):
    """Emits ``changed`` when the filters should be applied: at once for a combo box, after a
    typing pause (or Enter) for the search text; :meth:`row_filter` is what they say."""

    changed = Signal()

    def __init__(self, profiles: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Filter"))
        self.setObjectName("filterToolbar")
        self.kind_combo = QComboBox()
        self.kind_combo.addItem(self.tr("All lanes"), None)
        self.kind_combo.addItem(self.tr("Web"), "web")
        self.kind_combo.addItem(self.tr("API"), "api")
        self.state_combo = QComboBox()
        self.state_combo.addItem(self.tr("All states"), None)
        labels = state_labels()
        for st in DISPLAY_STATES:
            self.state_combo.addItem(labels[st], st)
        self.profile_combo = QComboBox()
        self.profile_combo.addItem(self.tr("All profiles"), None)
        for name in profiles:
            self.profile_combo.addItem(name, name)
        self.search = QLineEdit()
        self.search.setObjectName("search")
        self.search.setClearButtonEnabled(True)
        self.search.setPlaceholderText(self.tr("Search id, prompt, error… (Ctrl+F)"))
        self.search.setMinimumWidth(260)
        for w in (self.kind_combo, self.state_combo, self.profile_combo):
            self.addWidget(w)
            w.currentIndexChanged.connect(lambda _i: self.apply())
        self.addWidget(self.search)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DEBOUNCE_MS)
        self._search_timer.timeout.connect(self.apply)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.search.returnPressed.connect(self.apply)

    def row_filter(self) -> RowFilter:
        state = self.state_combo.currentData()
        return RowFilter.of(kind=self.kind_combo.currentData(), states=[state] if state else None,
                            profile=self.profile_combo.currentData(), text=self.search.text())

    def apply(self) -> None:
        """Apply now (a pending search debounce is dropped)."""
        self._search_timer.stop()
        self.changed.emit()

    def focus_search(self) -> None:
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()
