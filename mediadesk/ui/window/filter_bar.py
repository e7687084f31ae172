"""The task table's filter toolbar: lane kind, state, profile, a debounced search box, and the
account/batch scope set from the table's row menu ("show only this account / batch")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QComboBox, QLineEdit, QToolBar, QToolButton, QWidget

from mediadesk.ui.format import state_labels
from mediadesk.viewmodel.row_display import DISPLAY_STATES, RowFilter

__all__ = ["FilterBar"]

#: Typing pauses this long before the table is filtered (a pass over a big table is not free).
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
        #: "Show only this account / batch" (from the row menu): shown while set; a click clears it.
        self.account: str | None = None
        self.batch: str | None = None
        self.scope_button = QToolButton()
        self.scope_button.setObjectName("filterScope")
        self.scope_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.scope_button.setToolTip(self.tr("Click to show every account and batch again"))
        self.scope_button.clicked.connect(self.clear_scope)
        self._scope_action = self.addWidget(self.scope_button)
        self._scope_action.setVisible(False)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DEBOUNCE_MS)
        self._search_timer.timeout.connect(self.apply)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.search.returnPressed.connect(self.apply)

    def row_filter(self) -> RowFilter:
        state = self.state_combo.currentData()
        return RowFilter.of(kind=self.kind_combo.currentData(), states=[state] if state else None,
                            profile=self.profile_combo.currentData(), text=self.search.text(),
                            account=self.account, batch=self.batch)

    def apply(self) -> None:
        """Apply now (a pending search debounce is dropped)."""
        self._search_timer.stop()
        self.changed.emit()

    def focus_search(self) -> None:
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    # ------------------------------------------------------------------ scope ("show only ...")
    def show_only(self, *, account: str | None = None, profile: str | None = None, batch: str | None = None) -> None:
        """Narrow the table to this account / profile / batch (the others stay as they are)."""
        if account is not None:
            self.account = account
        if batch is not None:
            self.batch = batch
        if profile is not None:
            i = self.profile_combo.findData(profile)
            if i >= 0:
                self.profile_combo.blockSignals(True)
                self.profile_combo.setCurrentIndex(i)
                self.profile_combo.blockSignals(False)
        self._show_scope()
        self.apply()

    def clear_scope(self) -> None:
        self.account = self.batch = None
        self._show_scope()
        self.apply()

    def clear_all(self) -> None:
        """Every filter off: all lanes, states and profiles, no search text, no scope."""
        for combo in (self.kind_combo, self.state_combo, self.profile_combo):
            combo.blockSignals(True)
            combo.setCurrentIndex(0)
            combo.blockSignals(False)
        self.search.blockSignals(True)
        self.search.clear()
        self.search.blockSignals(False)
        self.clear_scope()

    def _show_scope(self) -> None:
        parts = []
        if self.account:
            parts.append(self.tr("account {name}").format(name=self.account))
        if self.batch:
            parts.append(self.tr("batch {name}").format(name=self.batch))
        self.scope_button.setText(self.tr("Only {what} ✕").format(what=" · ".join(parts)) if parts else "")
        self._scope_action.setVisible(bool(parts))

    # ------------------------------------------------------------------ remembered between sessions
    def state(self) -> dict[str, str]:
        """What to remember (plain strings for QSettings)."""
        return {"kind": self.kind_combo.currentData() or "", "state": self.state_combo.currentData() or "",
                "profile": self.profile_combo.currentData() or "", "text": self.search.text(),
                "account": self.account or "", "batch": self.batch or ""}

    def set_state(self, values: Mapping[str, str]) -> None:
        """Restore :meth:`state` (a value that no longer exists, e.g. a removed profile, is skipped)
        and apply it at once."""
        for key, combo in (("kind", self.kind_combo), ("state", self.state_combo), ("profile", self.profile_combo)):
            value = values.get(key) or None
            i = combo.findData(value) if value is not None else 0
            combo.blockSignals(True)
            combo.setCurrentIndex(max(i, 0))
            combo.blockSignals(False)
        self.search.blockSignals(True)
        self.search.setText(values.get("text", ""))
        self.search.blockSignals(False)
        self.account = values.get("account") or None
        self.batch = values.get("batch") or None
        self._show_scope()
        self.apply()
