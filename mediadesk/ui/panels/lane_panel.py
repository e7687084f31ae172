"""A live panel per lane kind (Web, API): progress, counts, running tasks, throughput and an ETA.

The ETA itself is :func:`mediadesk.core.eta.kind_eta` (quantiles per queue group, the slowest
group wins); the panel only feeds it the model's pending counts and the lanes' latest stats, and
writes the result. Everything shown comes from the task model's counts and the lane stats
events: no database reads here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Protocol

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QSizePolicy,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mediadesk.core.backend import effective_health
from mediadesk.core.eta import MIN_SAMPLES, EtaGroup, KindEta, kind_eta, queue_groups, throughput_per_min
from mediadesk.scheduler.events import AccountChanged, LaneStats, ProfileChanged
from mediadesk.ui.format import fmt_eta, fmt_rate, fmt_seconds, fmt_waits_until, health_label, plain_error, stopped_text
from mediadesk.ui.models.task_model import TaskTableModel
from mediadesk.ui.plain import plain, plain_tip

__all__ = ["LaneLike", "LanePanel", "ProfileLike"]

class LaneLike(Protocol):
    """What the panel reads of a scheduler lane (``mediadesk.scheduler.lane.Lane`` fits)."""

    name: str
    account: str | None
    profiles: tuple[str, ...]

    @property
    def kind(self) -> str: ...


class ProfileLike(Protocol):
    """``mediadesk.scheduler.scheduler.ProfileView`` fits."""

    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def need_empty_prompt(self) -> bool: ...
    @property
    def concurrency(self) -> int: ...


class _ElidedLabel(QLabel):
    """One line that ends in "…" when it does not fit (the full text is the tooltip)."""

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        text = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, self.width())
        painter.drawText(self.rect(), int(self.alignment()), text)


class LanePanel(QWidget):
    """One kind's lanes. Feed it ``on_lane_stats`` / ``on_account_changed`` / ``on_profile_changed``
    (the bridge signals); counts come from the model's ``countsChanged``.

    :meth:`set_compact` folds it to one line (title, progress, counts, ETA) for small screens:
    the task table keeps the height; the full text is the summary's tooltip."""

    COLS = 6  # name, status, task, elapsed, heartbeat, settings

    def __init__(
        self,
        kind: str,
        model: TaskTableModel,
        parent: QWidget | None = None,
        *,
        clock: Callable[[], float] = time.time,
        refresh_ms: int = 1000,
    ) -> None:
        super().__init__(parent)
        if kind not in ("web", "api"):
            raise ValueError(f"kind must be 'web' or 'api', got {kind!r}")
        self.kind = kind
        self.model = model
        self._clock = clock
        self._lanes: list[LaneLike] = []
        self._stats: dict[str, LaneStats] = {}
        self._accounts: dict[str, AccountChanged] = {}
        self._profiles: dict[str, ProfileLike | ProfileChanged] = {}
        self.setObjectName(f"lanePanel_{kind}")

        self.title = QLabel(self.tr("Web lane") if kind == "web" else self.tr("API lane"))
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.state_label = plain(QLabel())
        #: The one-line summary shown instead of everything below the title in compact mode.
        self.summary_label = plain(_ElidedLabel())
        self.summary_label.setObjectName(f"laneSummary_{kind}")
        self.summary_label.setVisible(False)
        self.is_compact = False
        self._head = head = QHBoxLayout()
        head.addWidget(self.title)
        head.addWidget(self.summary_label, 1)
        head.addStretch(1)
        head.addWidget(self.state_label)

        self.progress = QProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setFormat("%v/%m  (%p%)")
        self.counts_label = plain(QLabel())
        self.eta_label = plain(QLabel())
        #: The callees' gates and breakers (an API endpoint is shared by its profiles) and backlog.
        self.callee_label = plain(QLabel())  # breaker reasons quote servers
        self.callee_label.setWordWrap(True)
        self.callee_label.setToolTip(self.tr(
            "gate: requests allowed at once now / configured (an adaptive gate learns the provider's "
            "real limit from its refusals); breaker: open = nothing is sent there until a probe succeeds"))
        self.eta_label.setToolTip(self.tr(
            "Estimated time until this lane's queued and running tasks are done, from the lane's own "
            "recent run times: p50 = median case, p90 = slow case."))
        self.rows = QTreeWidget()
        self.rows.setColumnCount(self.COLS)
        self.rows.setHeaderLabels([
            self.tr("account") if kind == "web" else self.tr("profile"), self.tr("status"), self.tr("task"),
            self.tr("elapsed"), self.tr("heartbeat"), self.tr("settings"),
        ])
        self.rows.setRootIsDecorated(kind == "api")
        self.rows.setUniformRowHeights(True)
        self.rows.header().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.rows.setMinimumHeight(80)
        self.empty_hint = QLabel(self.tr("No web accounts configured.") if kind == "web"
                                 else self.tr("No API profiles configured."))
        self.empty_hint.setVisible(False)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(head)
        lay.addWidget(self.progress)
        lay.addWidget(self.counts_label)
        lay.addWidget(self.eta_label)
        lay.addWidget(self.callee_label)
        lay.addWidget(self.empty_hint)
        lay.addWidget(self.rows, 1)

        # Counts change on every model flush (~10/s per panel in a fast batch). QProgressBar.setValue
        # repaints synchronously and a label whose text width changes re-lays out the window: both
        # cost milliseconds, so updates are coalesced to 4/s and the labels never drive the layout.
        self._counts_timer = QTimer(self)
        self._counts_timer.setSingleShot(True)
        self._counts_timer.setInterval(250)
        self._counts_timer.timeout.connect(self.refresh_counts)
        model.countsChanged.connect(self._counts_changed)
        for label in (self.counts_label, self.eta_label, self.state_label, self.summary_label):
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._timer = QTimer(self)
        self._timer.setInterval(refresh_ms)
        self._timer.timeout.connect(self.refresh)
        self._timer.start()
        self.refresh()

    # ------------------------------------------------------------------ inputs
    def _counts_changed(self) -> None:
        if not self._counts_timer.isActive():
            self._counts_timer.start()

    def set_lanes(self, lanes: Sequence[LaneLike], profiles: Sequence[ProfileLike] = ()) -> None:
        self._lanes = [lane for lane in lanes if lane.kind == self.kind]
        for p in profiles:
            if p.kind == self.kind:
                self._profiles[p.name] = p
        self._show_parts()
        self.refresh()

    def set_compact(self, compact: bool) -> None:
        """One line (compact) or the full panel."""
        if compact == self.is_compact:
            return
        self.is_compact = compact
        self._show_parts()
        self.refresh()

    def compact_height(self) -> int:
        """The panel's height as one line: the title row and the margins."""
        m = self.contentsMargins()
        lay = self.layout()
        margins = lay.contentsMargins() if lay is not None else m
        return self._head.sizeHint().height() + margins.top() + margins.bottom() + m.top() + m.bottom()

    def _show_parts(self) -> None:
        full = not self.is_compact
        for w in (self.progress, self.counts_label, self.eta_label, self.callee_label):
            w.setVisible(full)
        self.empty_hint.setVisible(full and not self._lanes)
        self.rows.setVisible(full and bool(self._lanes))
        self.summary_label.setVisible(not full)

    def on_lane_stats(self, ev: LaneStats) -> None:
        if ev.kind == self.kind:
            self._stats[ev.lane] = ev

    def on_account_changed(self, ev: AccountChanged) -> None:
        if self.kind == "web":
            self._accounts[ev.account] = ev
            self.refresh()

    def on_profile_changed(self, ev: ProfileChanged) -> None:
        if self._lane_of_profile(ev.profile) is not None:
            self._profiles[ev.profile] = ev
            self.refresh()

    def _lane_of_profile(self, profile: str) -> LaneLike | None:
        for lane in self._lanes:
            if profile in lane.profiles:
                return lane
        return None

    # ------------------------------------------------------------------ derived numbers
    def _kind_profiles(self) -> list[str]:
        seen: list[str] = []
        for lane in self._lanes:
            for p in lane.profiles:
                if p not in seen:
                    seen.append(p)
        return seen

    def counts(self) -> dict[str, int]:
        """State counts over this kind's current work: the batches that have had work since its
        lanes were last idle (:mod:`mediadesk.viewmodel.current_work`), not the whole workspace."""
        return self.model.current_counts(self.kind)

    def progress_fraction(self) -> float:
        total = self.progress.maximum()
        return 0.0 if total <= 0 or self.progress.value() < 0 else self.progress.value() / total

    def kind_eta(self, now: float | None = None) -> KindEta:
        """This kind's ETA from the model's pending counts and the lanes' latest stats."""
        now = self._clock() if now is None else now
        groups = []
        for lanes in queue_groups(self.kind, self._lanes).values():
            profiles = {p for lane in lanes for p in lane.profiles}
            pending = sum(self.model.counts(profile=p)["pending"] for p in profiles)
            loads = [st for lane in lanes if (st := self._stats.get(lane.name)) is not None]
            groups.append(EtaGroup(pending, loads, name=", ".join(sorted(profiles))))
        return kind_eta(groups, now)

    def throughput(self, now: float | None = None) -> float:
        now = self._clock() if now is None else now
        window = 300.0
        recent = [(s, f) for s, f in self.model.finishes(self.kind) if now - window < f <= now]
        if not recent:
            return 0.0
        since = min(s for s, _ in recent)
        return throughput_per_min([f for _, f in recent], now, window, since=since)

    # ------------------------------------------------------------------ display
    def refresh_counts(self) -> None:
        self._counts_timer.stop()
        c = self.counts()
        total = sum(c.values())
        done = c.get("success", 0) + c.get("failed", 0) + c.get("canceled", 0)
        if self.progress.maximum() != max(total, 1):
            self.progress.setRange(0, max(total, 1))
        fmt = "%v/%m  (%p%)" if total else self.tr("no current work")
        if self.progress.format() != fmt:
            self.progress.setFormat(fmt)
            self.progress.setToolTip(self.tr(
                "The current work: the batches that have had tasks on these lanes since they were last idle "
                "(a finished run stays until new work arrives). Every batch ever run is in the Batches tab."))
        if self.progress.value() != (done if total else 0):
            self.progress.setValue(done if total else 0)
        text = self.tr("running {run} · pending {pend} · done {ok} · failed {fail} · canceled {canc}").format(
            run=c.get("running", 0), pend=c.get("pending", 0), ok=c.get("success", 0),
            fail=c.get("failed", 0), canc=c.get("canceled", 0))
        if self.counts_label.text() != text:
            self.counts_label.setText(text)
        if self.is_compact:
            self._refresh_summary()

    def summary_text(self) -> str:
        """The compact line: done/total, then the counts that need attention, then the ETA."""
        c = self.counts()
        total = sum(c.values())
        done = c.get("success", 0) + c.get("failed", 0) + c.get("canceled", 0)
        text = self.tr("{done}/{total} done · {run} running · {pend} pending").format(
            done=done, total=total, run=c.get("running", 0), pend=c.get("pending", 0))
        if c.get("failed", 0):
            text += self.tr(" · {n} failed").format(n=c["failed"])
        if self.eta_label.text():
            text += " · " + self.eta_label.text()
        return text

    def _refresh_summary(self) -> None:
        text = self.summary_text()
        if self.summary_label.text() != text:
            self.summary_label.setText(text)
            details = [t for t in (self.counts_label.text(), self.eta_label.text(), self.callee_label.text()) if t]
            self.summary_label.setToolTip(plain_tip("\n".join(details)))

    def refresh(self) -> None:
        """The 1 s tick: counts, ETA, throughput, rows (elapsed and heartbeat ages move)."""
        now = self._clock()
        self.refresh_counts()
        paused = [s for s in self._stats.values() if s.paused]
        if self._stats and len(paused) == len(self._stats):
            kept = all(s.paused_kept for s in paused)  # paused in an earlier session, not by this one
            self.state_label.setText(self.tr("paused (kept from last session)") if kept else self.tr("paused"))
        elif paused:
            self.state_label.setText(self.tr("partly paused"))
        else:
            self.state_label.setText("")
        eta = self._eta_text(now)
        if self.eta_label.text() != eta:
            self.eta_label.setText(eta)
        callees = self.callee_text(now)
        if self.callee_label.text() != callees:
            self.callee_label.setText(callees)
        if self.is_compact:
            self._refresh_summary()
            return  # the rows are hidden: no need to fill them
        self._fill_rows(now)

    def callee_text(self, now: float) -> str:
        """One line per callee whose state matters (an endpoint always; an account when its breaker
        is not closed), then the backlog per priority channel."""
        lines: list[str] = []
        seen: set[str] = set()
        backlog: dict[str, int] = {}
        for st in self._stats.values():
            for ch, n in st.backlog:
                backlog[ch] = max(backlog.get(ch, 0), n)
            c = st.callee
            if c is None or c.name in seen:
                continue
            seen.add(c.name)
            if c.kind == "account" and c.breaker == "closed":
                continue
            parts = [self.tr("{name}: gate {cur}/{limit}, {n} in flight").format(
                name=c.name, cur=c.current_limit, limit=c.limit, n=c.in_flight)]
            if c.paused_until > now:
                parts.append(self.tr("paused {s}").format(s=fmt_seconds(c.paused_until - now)))
            if c.stopped is not None:  # its key rejected, a TLS error: it waits for the operator, not for time
                parts.append(stopped_text(c))
            elif c.breaker != "closed":
                state = self.tr("breaker open") if c.breaker == "open" else self.tr("breaker half-open")
                text = f"{state} ({c.breaker_reason})" if c.breaker_reason else state
                if c.next_probe_at is not None:
                    text += self.tr(", next probe in {s}").format(s=fmt_seconds(max(0.0, c.next_probe_at - now)))
                parts.append(text)
            lines.append(" · ".join(parts))
        if any(backlog.get(ch) for ch in ("high", "low")):
            lines.append(self.tr("backlog: high {h} · normal {n} · low {low}").format(
                h=backlog.get("high", 0), n=backlog.get("normal", 0), low=backlog.get("low", 0)))
        return "\n".join(lines)

    def _eta_text(self, now: float) -> str:
        ke = self.kind_eta(now)
        tput = self.throughput(now)
        rate = self.tr("{n} tasks/min").format(n=fmt_rate(tput))
        if ke.eta is None:
            if ke.blocked:
                return self.tr("ETA — (no lane can take the queued tasks) · {rate}").format(rate=rate)
            if ke.waiting_for is not None:  # fewer than MIN_SAMPLES run times of that queue: say so
                return self.tr("ETA after {need} finished runs of {group} ({have} so far) · {rate}").format(
                    need=MIN_SAMPLES, group=ke.waiting_for, have=ke.waiting_samples, rate=rate)
            return self.tr("ETA — (no lane has reported yet) · {rate}").format(rate=rate)
        if ke.eta.p90_s <= 0:
            return self.tr("idle · {rate}").format(rate=rate)
        return self.tr("ETA p50 {p50}, p90 {p90} · {rate}").format(
            p50=fmt_eta(ke.eta.p50_s), p90=fmt_eta(ke.eta.p90_s), rate=rate)

    def eta_text(self) -> str:
        return self.eta_label.text()

    def _fill_rows(self, now: float) -> None:
        self.rows.setUpdatesEnabled(False)
        try:
            wanted = len(self._lanes)
            while self.rows.topLevelItemCount() > wanted:
                self.rows.takeTopLevelItem(self.rows.topLevelItemCount() - 1)
            while self.rows.topLevelItemCount() < wanted:
                self.rows.addTopLevelItem(QTreeWidgetItem())
            for i, lane in enumerate(self._lanes):
                item = self.rows.topLevelItem(i)
                assert item is not None
                if self.kind == "web":
                    self._fill_account(item, lane, now)
                else:
                    self._fill_profile(item, lane, now)
        finally:
            self.rows.setUpdatesEnabled(True)

    def _fill_account(self, item: QTreeWidgetItem, lane: LaneLike, now: float) -> None:
        st = self._stats.get(lane.name)
        acc = self._accounts.get(lane.account or "")
        health = self._account_health(st, acc)
        status = health_label(health)
        if st is not None and st.paused:
            status = self.tr("{status} (paused)").format(status=status)
        if st is not None and st.waits_until is not None and not st.running:
            status = fmt_waits_until(st.waits_until, now)  # quiet hours: nothing starts before then
        if st is not None and st.budget_stop is not None and not st.running:
            status = self.tr("stopped by a budget")
        texts = [lane.account or lane.name, status, "", "", "", lane.profiles[0]]
        if st is not None and st.running:
            r = st.running[0]
            texts[2] = r.task_id
            texts[3] = fmt_seconds(now - r.started_at)
            texts[4] = fmt_seconds(now - r.heartbeat_at)
        for c, t in enumerate(texts):
            item.setText(c, t)
        err = (st.last_error if st is not None else None) or (acc.last_error if acc is not None else None)
        item.setToolTip(1, plain_tip(plain_error(err).summary))

    @staticmethod
    def _account_health(st: LaneStats | None, acc: AccountChanged | None) -> str:
        """The lane stats' health (already the effective one) or, before the first stats, the
        account's; the operator's switch from the newest account event wins either way."""
        base = st.health if st is not None else (acc.health if acc is not None else "starting")
        enabled = acc.enabled if acc is not None else True
        try:
            return effective_health(enabled, base, len(st.running) if st is not None else 0).value
        except ValueError:  # a health value this console does not know: show it as it is
            return base

    def _fill_profile(self, item: QTreeWidgetItem, lane: LaneLike, now: float) -> None:
        st = self._stats.get(lane.name)
        name = lane.profiles[0]
        prof = self._profiles.get(name)
        running = st.running if st is not None else ()
        cap = st.capacity if st is not None else (prof.concurrency if prof is not None else 0)
        status = self.tr("{n}/{cap} running").format(n=len(running), cap=cap)
        if st is not None and st.paused:
            status = self.tr("{status} (paused)").format(status=status)
        if st is not None and st.waits_until is not None:
            status = self.tr("{status} · {waits}").format(status=status, waits=fmt_waits_until(st.waits_until, now))
        if st is not None and st.budget_stop is not None:
            status = self.tr("{status} · stopped by a budget").format(status=status)
        settings = ""
        if prof is not None:
            nep = prof.need_empty_prompt
            settings = (self.tr("empty prompt: on") if nep else self.tr("empty prompt: off"))
        for c, t in enumerate([name, status, "", "", "", settings]):
            item.setText(c, t)
        why = (st.budget_stop or plain_error(st.last_error).summary) if st is not None else None
        item.setToolTip(1, plain_tip(why))
        while item.childCount() > len(running):
            item.takeChild(item.childCount() - 1)
        while item.childCount() < len(running):
            item.addChild(QTreeWidgetItem())
        for i, r in enumerate(running):
            child = item.child(i)
            assert child is not None
            for c, t in enumerate(["", self.tr("running"), r.task_id, fmt_seconds(now - r.started_at),
                                   fmt_seconds(now - r.heartbeat_at), ""]):
                child.setText(c, t)
        if running and not item.isExpanded():
            item.setExpanded(True)

    def row_texts(self) -> list[list[str]]:
        """Top-level rows as text (tests, screenshots)."""
        out = []
        for i in range(self.rows.topLevelItemCount()):
            item = self.rows.topLevelItem(i)
            assert item is not None
            out.append([item.text(c) for c in range(self.COLS)])
        return out
