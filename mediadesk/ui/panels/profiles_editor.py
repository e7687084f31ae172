"""Model profiles grouped by the endpoint whose quota they share; the ``need_empty_prompt`` toggle and
API concurrency, edited live.

A tree: one node per API endpoint with its gate (configured and learned concurrency) and its
profiles' shares; web profiles are top-level rows. Grouping comes from ``AppConfig.api_endpoints``,
gates from the scheduler: nothing is recomputed here. Edits apply to the next task a lane starts.
Web profiles get no concurrency knob on purpose: a chat account runs one generation at a time.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QInputDialog,
    QLabel,
    QPushButton,
    QSpinBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mediadesk.config.model import API_CONCURRENCY_MAX, ResolvedEndpoint
from mediadesk.scheduler.events import CapacityView, LaneStats, ProfileChanged
from mediadesk.scheduler.scheduler import ProfileView, Scheduler
from mediadesk.store.metrics import MetricsReader
from mediadesk.store.usage import UsageSum, by_endpoint
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.format import fmt_count, fmt_tokens, fmt_waits_until, stopped_text
from mediadesk.ui.jobs.workers import TaskJobs
from mediadesk.ui.plain import plain, plain_tip
from mediadesk.ui.style import ToggleSwitch, centered, icon, is_dark, state_color

log = logging.getLogger(__name__)

__all__ = ["ProfilesEditor"]

_COL_NAME, _COL_KIND, _COL_NEP, _COL_CONC, _COL_GATE, _COL_NOTE, _COL_TOKENS, _COL_SPENT = range(8)


class ProfilesEditor(QWidget):
    """Endpoints and their profiles (name, kind, empty-prompt switch, concurrency, gate or share)."""

    def __init__(self, scheduler: Scheduler, bridge: SchedulerBridge, parent: QWidget | None = None, *,
                 usage_refresh_ms: int = 5000) -> None:
        super().__init__(parent)
        self._scheduler = scheduler
        self._items: dict[str, QTreeWidgetItem] = {}
        self._nep: dict[str, ToggleSwitch] = {}
        self._spins: dict[str, QSpinBox] = {}
        self._conc_widgets: dict[str, QWidget] = {}
        self._endpoints: dict[str, ResolvedEndpoint] = {}
        self._endpoint_items: dict[str, QTreeWidgetItem] = {}
        self._endpoint_of: dict[str, str] = {}
        self._views: dict[str, CapacityView] = {}
        self._spend_shown = 0.0
        #: Quiet hours: lane -> (its profile, when its next window opens or None).
        self._lane_waits: dict[str, tuple[str, float | None]] = {}

        self.tree = QTreeWidget(self)
        self.tree.setObjectName("profilesTree")
        self.tree.setColumnCount(8)
        self.tree.setHeaderLabels([self.tr("Endpoint / profile"), self.tr("Kind"), self.tr("Empty prompt"),
                                   self.tr("Concurrency"), self.tr("Gate / share"), self.tr("Hours"),
                                   self.tr("Tokens"), self.tr("Spent (today · in all)")])
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.tree.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the cell widgets take focus, not cells
        hh = self.tree.header()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        hh.setStretchLastSection(True)
        header = self.tree.headerItem()
        header.setToolTip(_COL_NEP, self._nep_tooltip())
        header.setToolTip(_COL_GATE, self._gate_tooltip())
        header.setToolTip(_COL_TOKENS, self.tr(
            "Tokens used so far, prompt in / answer out (a ~ marks a sum that holds estimates: web tasks, "
            "servers that report no usage)"))
        self._usage: dict[str, UsageSum] = {}
        self._jobs = TaskJobs(owner=self)
        self._reading = False
        self._usage_timer = QTimer(self)
        self._usage_timer.setInterval(usage_refresh_ms)
        self._usage_timer.timeout.connect(self.refresh_usage)
        self._usage_timer.start()
        self._message = plain(QLabel(self))
        self._message.setWordWrap(True)
        self._message.hide()
        self.raise_button = QPushButton(self.tr("Raise a budget cap…"), self)
        self.raise_button.setObjectName("raiseCapButton")
        self.raise_button.setToolTip(self.tr("A cap stops its endpoint, profile or batch before a task would "
                                             "pass it (its tasks stay pending); raise it to go on at once"))
        self.raise_button.clicked.connect(self._ask_raise)
        self.raise_button.setVisible(bool(scheduler.config.budgets) or scheduler.budgets is not None)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.tree)
        lay.addWidget(self._message)
        lay.addWidget(self.raise_button, 0, Qt.AlignmentFlag.AlignLeft)

        self.refresh()
        bridge.profileChanged.connect(self._on_profile_changed)
        bridge.laneStats.connect(self._on_lane_stats)

    # ------------------------------------------------------------------ public API
    def refresh(self) -> None:
        """Rebuild the tree from the config's endpoints and ``scheduler.profile_view``."""
        self.tree.clear()
        for d in (self._items, self._nep, self._spins, self._conc_widgets, self._endpoint_items, self._endpoint_of):
            d.clear()
        self._endpoints = {ep.name: ep for ep in self._scheduler.config.api_endpoints()}
        self._views = self._scheduler.capacity_views()  # empty until the scheduler has started
        for ep in self._endpoints.values():
            node = QTreeWidgetItem(self.tree)
            self._endpoint_items[ep.name] = node
            self._build_endpoint(node, ep)
            for name in ep.profiles:
                self._endpoint_of[name] = ep.name
                self._build_profile(QTreeWidgetItem(node), self._scheduler.profile_view(name))
        for name in self._scheduler.profile_names():
            if name not in self._endpoint_of:
                self._build_profile(QTreeWidgetItem(self.tree), self._scheduler.profile_view(name))
        self.tree.expandAll()
        for name in self._endpoints:
            self._show_endpoint(name)
        self._show_spend()
        self.show_usage(self._usage)

    def refresh_usage(self, force: bool = False) -> bool:
        """Read the tokens per profile in a worker thread (while on screen, or with ``force``)."""
        if self._reading or not (force or (self.isVisible() and not self.visibleRegion().isEmpty())):
            return False
        self._reading = True
        location = self._scheduler.workspace.location

        def read() -> dict[str, UsageSum]:
            with MetricsReader(location) as r:
                return {str(k): v for k, v in r.usage("profile").items()}

        def done(per_profile: dict[str, UsageSum]) -> None:
            self._reading = False
            self.show_usage(per_profile)

        def failed(_exc: BaseException) -> None:
            self._reading = False

        self._jobs.in_thread(read, "profiles:usage", done, failed)
        return True

    def show_usage(self, per_profile: Mapping[str, UsageSum]) -> None:
        """Tokens per profile, and per endpoint (the sum of its profiles)."""
        self._usage = dict(per_profile)
        for name, item in self._items.items():
            item.setText(_COL_TOKENS, self._tokens_text(self._usage.get(name)))
        for ep, s in by_endpoint(self._usage, self._endpoint_of).items():
            node = self._endpoint_items.get(ep)
            if node is not None:
                node.setText(_COL_TOKENS, self._tokens_text(s))

    def _tokens_text(self, s: UsageSum | None) -> str:
        if s is None or not s.tasks:
            return ""
        mark = "~" if s.estimated_tasks else ""
        return self.tr("{mark}{prompt} in / {mark}{completion} out").format(
            mark=mark, prompt=fmt_tokens(s.prompt_tokens), completion=fmt_tokens(s.completion_tokens))

    def tokens_text(self, name: str) -> str:
        """The Tokens cell of a profile or an endpoint (tests)."""
        item = self._items.get(name) or self._endpoint_items.get(name)
        return "" if item is None else item.text(_COL_TOKENS)

    def close_jobs(self) -> None:
        self._usage_timer.stop()
        self._jobs.cancel_all()

    async def drain_jobs(self) -> None:
        await self._jobs.drain()

    def profiles(self) -> list[str]:
        return self._scheduler.profile_names()

    def endpoints(self) -> list[str]:
        """The API endpoints, as the scheduler names them (declared first, then implicit ones)."""
        return list(self._endpoints)

    def endpoint_of(self, profile: str) -> str | None:
        """The endpoint an API profile goes through; None for a web profile."""
        return self._endpoint_of.get(profile)

    def endpoint_item(self, endpoint: str) -> QTreeWidgetItem:
        return self._endpoint_items[endpoint]

    def gate_text(self, endpoint: str) -> str:
        return self._endpoint_items[endpoint].text(_COL_GATE)

    def share_text(self, profile: str) -> str:
        return self._items[profile].text(_COL_GATE)

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

    def spent_text(self, name: str) -> str:
        """The Spent cell of a profile or an endpoint."""
        item = self._items.get(name) or self._endpoint_items[name]
        return item.text(_COL_SPENT)

    def raise_cap(self, key: str, cap: float) -> bool:
        """Raise (or lower) the cap ``key`` to ``cap``: in effect at once, kept in the database."""
        try:
            self._scheduler.raise_cap(key, cap)
        except (ValueError, RuntimeError) as exc:
            self._show_error(key, exc)
            return False
        self._show_error(key, None)
        self._show_spend()
        return True

    def _ask_raise(self) -> None:
        budgets = self._scheduler.budgets
        if budgets is None or not budgets.budgets:
            return
        stops = budgets.stops
        choices = sorted(budgets.budgets, key=lambda b: (b.key not in stops, b.key))
        labels = [(self.tr("{label} (stopping now)") if b.key in stops else "{label}").format(label=b.label())
                  for b in choices]
        label, ok = QInputDialog.getItem(self, self.tr("Raise a budget cap"), self.tr("Cap:"), labels, 0, False)
        if not ok:
            return
        b = choices[labels.index(label)]
        value, ok = QInputDialog.getDouble(self, self.tr("Raise a budget cap"),
                                           self.tr("New cap for {label}:").format(label=b.label()),
                                           b.limit * 2, 0.000001, 1e12, 2 if b.unit != "tokens" else 0)
        if ok:
            self.raise_cap(b.key, value)

    def _show_spend(self) -> None:
        """Each endpoint's and profile's spend today and in all (per currency; "~": estimated), and the
        cap that stops it now."""
        budgets = self._scheduler.budgets
        if budgets is None:
            return
        self._spend_shown = time.monotonic()
        self.raise_button.setVisible(bool(budgets.budgets))
        stopped = {(s.budget.scope, s.budget.name) for s in budgets.stops.values()}
        rows = [("endpoint", n, i) for n, i in self._endpoint_items.items()]
        rows += [("profile", n, i) for n, i in self._items.items()]
        for scope, name, item in rows:
            today, total = budgets.totals(scope, name, "day"), budgets.totals(scope, name)
            text = ""
            if total.money or total.tokens:
                text = self.tr("{today} · {total}").format(today=today.text() or self._tokens(today.tokens),
                                                           total=total.text() or self._tokens(total.tokens))
            if (scope, name) in stopped:
                text = self.tr("{spent} · stopped by its budget").format(spent=text) if text else self.tr(
                    "stopped by its budget")
            if item.text(_COL_SPENT) != text:
                item.setText(_COL_SPENT, text)
                item.setToolTip(_COL_SPENT, plain_tip("\n".join(
                    s.message() for s in budgets.stops.values() if (s.budget.scope, s.budget.name) == (scope, name))))

    def _tokens(self, n: int) -> str:
        return self.tr("{n} tokens").format(n=fmt_count(n))

    def note_text(self, profile: str) -> str:
        """The Hours cell: the profile's active hours and, outside them, when it starts again."""
        return self._items[profile].text(_COL_NOTE)

    # ------------------------------------------------------------------ rows
    def _nep_tooltip(self) -> str:
        return self.tr("Reasoning models: send only the user's content, no instructions; "
                       "applies to tasks dispatched after the change")

    def _gate_tooltip(self) -> str:
        return self.tr("Endpoint: how many requests it may serve at once for all its profiles together "
                       "(learned: the lower limit found from the provider's refusals). Profile: its share, "
                       "at most this many of its own requests at once, within the endpoint's gate.")

    def _build_endpoint(self, node: QTreeWidgetItem, ep: ResolvedEndpoint) -> None:
        label = self.tr("implicit: {url}").format(url=ep.base_url) if ep.implicit else ep.name
        node.setText(_COL_NAME, label)
        node.setText(_COL_KIND, self.tr("endpoint"))
        if ep.implicit:
            tip = self.tr("Profiles {profiles} give this base URL and key source themselves: they share one "
                          "implicit endpoint, whose gate is the smallest of their concurrencies.")
        else:
            tip = self.tr("Endpoint {name} ({url}) from [[endpoints]]: one gate for {profiles}.")
        node.setToolTip(_COL_NAME, plain_tip(tip.format(name=ep.name, url=ep.base_url,
                                                        profiles=", ".join(ep.profiles))))
        node.setToolTip(_COL_GATE, self._gate_tooltip())
        font = node.font(_COL_NAME)
        font.setBold(True)
        node.setFont(_COL_NAME, font)

    def _build_profile(self, item: QTreeWidgetItem, view: ProfileView) -> None:
        self._items[view.name] = item
        item.setIcon(_COL_NAME, icon("profile"))
        item.setText(_COL_NAME, view.name)
        item.setText(_COL_KIND, self.tr("web") if view.kind == "web" else self.tr("API"))
        self._show_note(view.name)

        switch = ToggleSwitch()
        switch.setChecked(view.need_empty_prompt)
        switch.setToolTip(self._nep_tooltip())
        switch.setAccessibleName(self.tr("Empty prompt for {name}").format(name=view.name))
        switch.clicked.connect(lambda checked, n=view.name: self._set_nep(n, checked))
        self._nep[view.name] = switch
        self.tree.setItemWidget(item, _COL_NEP, centered(switch))

        if view.kind == "api":
            spin = QSpinBox()
            spin.setRange(1, API_CONCURRENCY_MAX)
            spin.setValue(view.concurrency)
            spin.setKeyboardTracking(False)  # typing "5" must not apply "" or intermediate values
            spin.setToolTip(self.tr("How many of this profile's requests may run at once (1..{max}), within "
                                    "its endpoint's gate; set it to the provider's quota").format(
                                        max=API_CONCURRENCY_MAX))
            spin.valueChanged.connect(lambda v, n=view.name: self._set_concurrency(n, v))
            self._spins[view.name] = spin
            self._conc_widgets[view.name] = spin
            self.tree.setItemWidget(item, _COL_CONC, centered(spin, Qt.AlignmentFlag.AlignLeft))
        else:
            label = QLabel(self.tr("1 per account"))
            label.setToolTip(self.tr("A chat account allows exactly one generation at a time; a second "
                                     "one at the same moment breaks both. Add accounts to go faster."))
            label.setContentsMargins(4, 0, 4, 0)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
            self._conc_widgets[view.name] = label
            self.tree.setItemWidget(item, _COL_CONC, label)

    def _show_endpoint(self, endpoint: str) -> None:
        """The endpoint's gate, and each of its profiles' share of it."""
        node = self._endpoint_items.get(endpoint)
        ep = self._endpoints.get(endpoint)
        if node is None or ep is None:
            return
        limit = self._scheduler.endpoint_limit(endpoint)
        parts = [self.tr("gate {n}").format(n=limit)]
        view = self._views.get(endpoint)
        if view is not None:
            if view.current_limit != view.limit:
                parts.append(self.tr("learned {n}").format(n=view.current_limit))
            parts.append(self.tr("{n} in flight").format(n=view.in_flight))
            if view.stopped is not None:  # its key rejected, a TLS error: the operator acts (Exceptions)
                parts.append(self.tr("stopped: {reason}").format(reason=view.stopped))
            elif view.breaker != "closed":
                parts.append(self.tr("breaker open") if view.breaker == "open" else self.tr("breaker half-open"))
        text = " · ".join(parts)
        if node.text(_COL_GATE) != text:
            node.setText(_COL_GATE, text)
            node.setToolTip(_COL_GATE, plain_tip(stopped_text(view)) if view is not None and view.stopped else "")
        for name in ep.profiles:
            share = self._scheduler.profile_view(name).concurrency
            item = self._items[name]
            share_text = self.tr("share {share} · up to {n} at once").format(share=share, n=min(share, limit))
            if item.text(_COL_GATE) != share_text:
                item.setText(_COL_GATE, share_text)

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
        if ev.profile not in self._items:
            return
        kind = self._scheduler.profile_view(ev.profile).kind
        self._show_view(ProfileView(ev.profile, kind, ev.need_empty_prompt, ev.concurrency))
        ep = self._endpoint_of.get(ev.profile)
        if ep is not None:
            view = self._scheduler.capacity_views().get(ep)  # the gate may have moved with the edit
            if view is not None:
                self._views[ep] = view
            self._show_endpoint(ep)

    def _show_note(self, profile: str) -> None:
        item = self._items.get(profile)
        if item is None:
            return
        hours = self._scheduler.config.profile(profile).active_hours
        waits = [w for p, w in self._lane_waits.values() if p == profile]
        parts = [hours] if hours else []
        if waits and all(w is not None for w in waits):  # no lane of the profile may start a task now
            parts.append(fmt_waits_until(min(w for w in waits if w is not None)))
        text = " · ".join(parts)
        if item.text(_COL_NOTE) != text:
            item.setText(_COL_NOTE, text)

    def _on_lane_stats(self, st: LaneStats) -> None:
        if time.monotonic() - self._spend_shown >= 1.0:  # stats come several times a second
            self._show_spend()
        if st.profiles and self._lane_waits.get(st.lane) != (st.profiles[0], st.waits_until):
            self._lane_waits[st.lane] = (st.profiles[0], st.waits_until)
            self._show_note(st.profiles[0])
        c = st.callee
        if c is None or c.kind != "endpoint" or c.name not in self._endpoint_items:
            return
        if self._views.get(c.name) != c:
            self._views[c.name] = c
            self._show_endpoint(c.name)

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
