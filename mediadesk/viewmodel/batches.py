"""The Batches tab and the status bar totals, without Qt.

A batch's ETA reuses :func:`mediadesk.core.eta.kind_eta`: each queue (profile) holding some of
the batch's pending tasks is one group, whose work is everything at or ahead of the batch's last
pending task in that queue (the store counts it, :attr:`BatchCounts.ahead`), served by the lanes
of that profile with their latest stats; the slowest queue decides. Fallback moves and priority
channel interleaving are not modelled: it is an estimate, shown as p50 and p90.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from mediadesk.core.eta import MIN_SAMPLES, Eta, EtaGroup, KindEta, LaneLoad, kind_eta
from mediadesk.store.metrics import BatchCounts

__all__ = ["BatchRow", "LaneInfo", "Totals", "batch_rows", "totals", "with_store_run_times"]


class LaneInfo(Protocol):
    """What is read of a scheduler lane (``mediadesk.scheduler.lane.Lane`` fits)."""

    name: str
    profiles: tuple[str, ...]


@dataclass(frozen=True)
class BatchRow:
    batch: str | None
    total: int
    pending: int
    running: int
    succeeded: int
    failed: int
    canceled: int
    submitted_at: float
    #: when its last task finished, once all are terminal
    done_at: float | None
    #: None when done, or when no honest number exists (see ``blocked``)
    eta: Eta | None
    #: queued work that no lane can take now (paused, every account disabled or logged out)
    blocked: bool
    #: no ETA yet because this profile has fewer than MIN_SAMPLES run times (with ``waiting_samples``)
    waiting_for: str | None = None
    waiting_samples: int = 0

    @property
    def finished(self) -> int:
        return self.succeeded + self.failed + self.canceled

    @property
    def fraction(self) -> float:
        return self.finished / self.total if self.total else 0.0

    @property
    def is_done(self) -> bool:
        return self.done_at is not None


@dataclass(frozen=True)
class _WithRunTimes:
    """A lane's latest stats with run times from the store in place of its own too few ones."""

    durations: Sequence[float]
    running: Sequence[Any]
    capacity: int
    paused: bool
    health: str


def with_store_run_times(stats: Mapping[str, LaneLoad], run_times: Mapping[str, Sequence[float]]
                         ) -> dict[str, LaneLoad]:
    """Lanes that have finished fewer than ``MIN_SAMPLES`` runs since start (a console just
    restarted) take their recent run times from the store instead, so an ETA exists at once."""
    out: dict[str, LaneLoad] = {}
    for name, st in stats.items():
        stored = run_times.get(name, ())
        if len(st.durations) < MIN_SAMPLES and len(stored) >= MIN_SAMPLES:
            out[name] = _WithRunTimes(tuple(stored), st.running, st.capacity, st.paused, st.health)
        else:
            out[name] = st
    return out


def batch_eta(counts: BatchCounts, lanes: Sequence[LaneInfo], stats: Mapping[str, LaneLoad], now: float) -> KindEta:
    """The batch's ETA: one group per profile holding its open tasks (see the module doc)."""
    groups = []
    for profile, (_pending, _running) in counts.open_by_profile.items():
        serving = [st for lane in lanes if profile in lane.profiles and (st := stats.get(lane.name)) is not None]
        groups.append(EtaGroup(counts.ahead.get(profile, 0), serving, name=profile))
    return kind_eta(groups, now)


def batch_rows(batches: Iterable[BatchCounts], lanes: Sequence[LaneInfo], stats: Mapping[str, LaneLoad],
               now: float, run_times: Mapping[str, Sequence[float]] | None = None) -> list[BatchRow]:
    """One row per batch, newest first. ``run_times``: recent run times per lane from the store
    (see :func:`with_store_run_times`)."""
    if run_times:
        stats = with_store_run_times(stats, run_times)
    rows = []
    for c in batches:
        s = c.states
        eta: Eta | None = None
        blocked = False
        waiting: tuple[str | None, int] = (None, 0)
        if c.open:
            ke = batch_eta(c, lanes, stats, now)
            eta, blocked, waiting = ke.eta, ke.blocked, (ke.waiting_for, ke.waiting_samples)
        rows.append(BatchRow(
            batch=c.batch, total=c.total, pending=s.get("pending", 0), running=s.get("running", 0),
            succeeded=s.get("success", 0), failed=s.get("failed", 0), canceled=s.get("canceled", 0),
            submitted_at=c.submitted_at, done_at=c.done_at, eta=eta, blocked=blocked,
            waiting_for=waiting[0], waiting_samples=waiting[1],
        ))
    rows.sort(key=lambda r: r.submitted_at, reverse=True)
    return rows


@dataclass(frozen=True)
class Totals:
    """Across lane kinds: combined throughput and the overall ETA (kinds run in parallel, so the
    slowest decides; unknown when any kind with work has no honest number)."""

    per_min: float
    eta: Eta | None
    blocked: bool


def totals(kinds: Iterable[tuple[KindEta, float]]) -> Totals:
    """``kinds``: (the kind's ETA, its throughput in tasks/min) per lane kind."""
    per_min = 0.0
    worst: Eta | None = Eta(0.0, 0.0)
    blocked = False
    for ke, rate in kinds:
        per_min += rate
        blocked = blocked or ke.blocked
        if ke.eta is None:
            worst = None
        elif worst is not None:
            worst = Eta(max(worst.p50_s, ke.eta.p50_s), max(worst.p90_s, ke.eta.p90_s))
    return Totals(per_min, worst, blocked)
