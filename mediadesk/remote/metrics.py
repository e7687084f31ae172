"""``/metrics``: the Prometheus text exposition, written by ``prometheus_client``.

Gauges are read at scrape time (a snapshot of the scheduler taken on the event loop, task counts
read on the reading thread), so they are never stale and cost nothing between scrapes. Run times
are a histogram per lane, fed by the event bus as attempts succeed (since this process started).
Spend has no series: MediaDesk tracks no cost yet. Desktops in team mode: ``mediadesk_team_desktops``
(0 on SQLite).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from mediadesk.scheduler.events import CapacityView, Event, LaneStats, TaskChanged
from mediadesk.store import TaskReader

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
STATES = ("pending", "running", "success", "failed", "canceled")
BREAKER_STATES = ("closed", "open", "half_open")
#: Seconds. API runs take seconds to a minute; web runs half a minute to several minutes.
RUN_BUCKETS = (0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 3600)


@dataclass(frozen=True)
class Snapshot:
    """What the scrape reads of the scheduler, copied on the event loop."""

    kinds: dict[str, str]                 # profile -> "api" | "web"
    lanes: tuple[LaneStats, ...]
    capacities: dict[str, CapacityView]
    desktops: int
    storage_failed: bool
    auth_failures: int
    deliveries: dict[tuple[str, str], int]  # (sink kind, outcome) -> count


class _Collector(Collector):
    def __init__(self, snap: Snapshot, reader: TaskReader) -> None:
        self._snap = snap
        self._reader = reader

    def collect(self) -> Iterator[Metric]:
        s = self._snap
        counts = self._reader.counts()
        tasks = GaugeMetricFamily("mediadesk_tasks", "Tasks in the store by lane kind, profile and state",
                                  labels=["kind", "profile", "state"])
        depth = GaugeMetricFamily("mediadesk_queue_depth", "Pending tasks per profile", labels=["profile"])
        for profile, kind in s.kinds.items():
            for state in STATES:
                tasks.add_metric([kind, profile, state], counts.get((profile, state), 0))
            depth.add_metric([profile], counts.get((profile, "pending"), 0))
        yield tasks
        yield depth
        # running rows, not the lane stats (those are coalesced): live at the scrape
        running: dict[str, int] = {}
        for rec in self._reader.query(states=["running"], limit=100_000):
            running[rec.lane or "?"] = running.get(rec.lane or "?", 0) + 1
        in_flight = GaugeMetricFamily("mediadesk_lane_in_flight", "Attempts running on a lane", labels=["lane", "kind"])
        paused = GaugeMetricFamily("mediadesk_lane_paused", "1 when the lane is paused", labels=["lane"])
        available = GaugeMetricFamily("mediadesk_lane_available", "1 when the lane can take a task",
                                      labels=["lane"])
        for ls in s.lanes:
            in_flight.add_metric([ls.lane, ls.kind], running.get(ls.lane, 0))
            paused.add_metric([ls.lane], int(ls.paused))
            available.add_metric([ls.lane], int(ls.available))
        yield in_flight
        yield paused
        yield available
        labels = ["capacity", "kind"]
        limit = GaugeMetricFamily("mediadesk_gate_limit", "Configured concurrency of a callee", labels=labels)
        learned = GaugeMetricFamily("mediadesk_gate_current_limit", "Concurrency learned from refusals", labels=labels)
        gate_busy = GaugeMetricFamily("mediadesk_gate_in_flight", "Requests holding the callee's gate", labels=labels)
        breaker = GaugeMetricFamily("mediadesk_breaker_state", "1 for the callee breaker's current state",
                                    labels=[*labels, "state"])
        refusals = CounterMetricFamily("mediadesk_refusals", "Refusals (429, 503 with Retry-After) since start",
                                       labels=labels)
        for name, v in s.capacities.items():
            key = [name, v.kind]
            limit.add_metric(key, v.limit)
            learned.add_metric(key, v.current_limit)
            gate_busy.add_metric(key, v.in_flight)
            for state in BREAKER_STATES:
                breaker.add_metric([*key, state], int(v.breaker == state))
            refusals.add_metric(key, v.refusals)
        yield from (limit, learned, gate_busy, breaker, refusals)
        yield GaugeMetricFamily("mediadesk_team_desktops", "Desktops working this queue (team mode)", value=s.desktops)
        yield GaugeMetricFamily("mediadesk_storage_failed", "1 once a storage fault stopped dispatch",
                                value=int(s.storage_failed))
        yield CounterMetricFamily("mediadesk_remote_auth_failures", "Requests refused for a missing or wrong token",
                                  value=s.auth_failures)
        sent = CounterMetricFamily("mediadesk_remote_deliveries", "Webhook and command hook deliveries by outcome",
                                   labels=["sink", "outcome"])
        for (sink, outcome), n in sorted(s.deliveries.items()):
            sent.add_metric([sink, outcome], n)
        yield sent


class RunTimes:
    """Run-time histograms per lane, observed from the bus (successful attempts)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self.histogram = Histogram("mediadesk_run_seconds", "Run time of successful attempts per lane",
                                   ["lane"], buckets=RUN_BUCKETS, registry=self.registry)

    def on_event(self, ev: Event) -> None:
        if isinstance(ev, TaskChanged) and ev.state == "success" and ev.lane and ev.started_at is not None \
                and ev.finished_at is not None:
            self.histogram.labels(ev.lane).observe(max(0.0, ev.finished_at - ev.started_at))


def render(snap: Snapshot, reader: TaskReader, run_times: RunTimes) -> bytes:
    """The exposition text (on the reading thread: it queries the store)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Collector(snap, reader))
    return generate_latest(registry) + generate_latest(run_times.registry)
