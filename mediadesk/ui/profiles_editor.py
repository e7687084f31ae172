"""Model profiles: the ``need_empty_prompt`` toggle and API concurrency, edited live.

Both settings are persisted by the scheduler and resolved per dispatch, so an edit applies to the
next task a lane starts (never to one already running). Web profiles have no concurrency knob on
purpose: a chat account allows exactly one generation at a time, and the row says so instead of
offering a control that would break both runs.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mediadesk.config import API_CONCURRENCY_MAX
from mediadesk.scheduler.events import ProfileChanged
from mediadesk.scheduler.scheduler import ProfileView, Scheduler
from mediadesk.ui.bridge import SchedulerBridge
from mediadesk.ui.style import ToggleSwitch, centered, icon, is_dark, state_color

log = logging.getLogger(__name__)

__all__ = ["ProfilesEditor"]

_COL_NAME, _COL_KIND, _COL_NEP, _COL_CONC = range(4)


class ProfilesEditor(QWidget):
    """One row per profile: name, kind, empty-prompt switch, concurrency (API) or "1 per account"."""

    def __init__(self, scheduler: Scheduler, bridge: SchedulerBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._scheduler = scheduler
        self._rows: dict[str, int] = {}
        self._nep: dict[str, ToggleSwitch] = {}
        self._spins: dict[str, QSpinBox] = {}
        self._conc_widgets: dict[str, QWidget] = {}

        self._table = QTableWidget(0, 4, self)
        self._table.setHorizontalHeaderLabels(
            [self.tr("Profile"), self.tr("Kind"), self.tr("Empty prompt"), self.tr("Concurrency")]
        )
        self._table.verticalHeader().setVisible(False)
        self._table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self._table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self._table.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the cell widgets take focus, not cells
        hh = self._table.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        hh.setStretchLastSection(True)
        nep_header = self._table.horizontalHeaderItem(_COL_NEP)
        if nep_header is not None:
            nep_header.setToolTip(self._nep_tooltip())
        self._message = QLabel(self)
        self._message.setWordWrap(True)
        self._message.hide()

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self._table)
        lay.addWidget(self._message)

        self.refresh()
        bridge.profileChanged.connect(self._on_profile_changed)

    # ------------------------------------------------------------------ public API
    def refresh(self) -> None:
        """Rebuild every row from ``scheduler.profile_view`` (e.g. after the scheduler opened)."""
        names = self._scheduler.profile_names()
        self._rows = {n: i for i, n in enumerate(names)}
        self._nep.clear()
        self._spins.clear()
        self._conc_widgets.clear()
        self._table.setRowCount(len(names))
        for name in names:
            self._build_row(self._scheduler.profile_view(name))

    def profiles(self) -> list[str]:
        return list(self._rows)

    def need_empty_prompt_switch(self, profile: str) -> ToggleSwitch:
        return self._nep[profile]

    def concurrency_spin(self, profile: str) -> QSpinBox | None:
        """The concurrency spin box of an API profile; None for a web profile."""
        return self._spins.get(profile)

    def concurrency_widget(self, profile: str) -> QWidget:
        """What the concurrency cell shows: a spin box (API) or a read-only label (web)."""
        return self._conc_widgets[profile]

    def message(self) -> str:
        return self._message.text()

    # ------------------------------------------------------------------ rows
    def _nep_tooltip(self) -> str:
        return self.tr("Reasoning models: send only the user's content, no instructions; "
                       "applies to tasks dispatched after the change")

    def _build_row(self, view: ProfileView) -> None:
        r = self._rows[view.name]
        t = self._table
        t.setItem(r, _COL_NAME, QTableWidgetItem(icon("profile"), view.name))
        kind_text = self.tr("web") if view.kind == "web" else self.tr("API")
        t.setItem(r, _COL_KIND, QTableWidgetItem(kind_text))

        switch = ToggleSwitch()
        switch.setChecked(view.need_empty_prompt)
        switch.setToolTip(self._nep_tooltip())
        switch.setAccessibleName(self.tr("Empty prompt for {name}").format(name=view.name))
        switch.clicked.connect(lambda checked, n=view.name: self._set_nep(n, checked))
        self._nep[view.name] = switch
        t.setCellWidget(r, _COL_NEP, centered(switch))

        if view.kind == "api":
            spin = QSpinBox()
            spin.setRange(1, API_CONCURRENCY_MAX)
            spin.setValue(view.concurrency)
            spin.setKeyboardTracking(False)  # typing "5" must not apply "" or intermediate values
            spin.setToolTip(self.tr("How many requests this endpoint may run at once (1..{max}); "
                                    "set it to the provider's quota").format(max=API_CONCURRENCY_MAX))
            spin.valueChanged.connect(lambda v, n=view.name: self._set_concurrency(n, v))
            self._spins[view.name] = spin
            self._conc_widgets[view.name] = spin
            t.setCellWidget(r, _COL_CONC, centered(spin, Qt.AlignmentFlag.AlignLeft))
        else:
            label = QLabel(self.tr("1 per account"))
            label.setToolTip(self.tr("A chat account allows exactly one generation at a time; a second "
                                     "one at the same moment breaks both. Add accounts to go faster."))
            label.setContentsMargins(4, 0, 4, 0)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
            self._conc_widgets[view.name] = label
            t.setCellWidget(r, _COL_CONC, label)

    # ------------------------------------------------------------------ operator edits
    def _set_nep(self, profile: str, on: bool) -> None:
        try:
            self._scheduler.set_profile_setting(profile, need_empty_prompt=on)
        except (ValueError, RuntimeError) as exc:
            self._show_error(profile, exc)
            self._show_view(self._scheduler.profile_view(profile))
            return
        self._show_error(profile, None)

    def _set_concurrency(self, profile: str, value: int) -> None:
        if self._scheduler.profile_view(profile).concurrency == value:
            return
        try:
            self._scheduler.set_profile_setting(profile, concurrency=value)
        except (ValueError, RuntimeError) as exc:
            self._show_error(profile, exc)
            self._show_view(self._scheduler.profile_view(profile))
            return
        self._show_error(profile, None)

    def _show_error(self, profile: str, exc: Exception | None) -> None:
        if exc is None:
            self._message.setText("")
            self._message.hide()
            return
        self._message.setText(self.tr("Could not change {name}: {error}").format(name=profile, error=exc))
        self._message.setStyleSheet(f"color: {state_color('failed', is_dark(self.palette())).name()}")
        self._message.show()

    # ------------------------------------------------------------------ events from the core
    def _on_profile_changed(self, ev: ProfileChanged) -> None:
        if ev.profile not in self._rows:
            return
        kind = self._scheduler.profile_view(ev.profile).kind
        self._show_view(ProfileView(ev.profile, kind, ev.need_empty_prompt, ev.concurrency))

    def _show_view(self, view: ProfileView) -> None:
        switch = self._nep.get(view.name)
        if switch is not None and switch.isChecked() != view.need_empty_prompt:
            switch.blockSignals(True)
            switch.setChecked(view.need_empty_prompt)
            switch.blockSignals(False)
            switch.update()
        spin = self._spins.get(view.name)
        if spin is not None and spin.value() != view.concurrency:
            spin.blockSignals(True)
            spin.setValue(view.concurrency)
            spin.blockSignals(False)
