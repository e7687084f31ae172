"""Run-time statistics and ETAs per lane, from quantiles rather than averages.

Run times spread widely, so a mean-based estimate is wrong both ways. A lane keeps a rolling window
of its successful run durations and is simulated with their p50 / p90: ``capacity`` servers, running
tasks finishing after their *conditional* remaining time, pending ones handed greedily to the
earliest-free server. :func:`kind_eta` does this per queue group of a lane kind (an API profile's
lane, or a web profile's accounts sharing its queue) and takes the slowest group.
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Protocol, TypeVar

from mediadesk.core.backend import HealthStatus
from mediadesk.core.hours import ActiveHours, wall_span

__all__ = [
    "MIN_SAMPLES",
    "NO_CAPACITY_HEALTH",
    "Eta",
    "EtaGroup",
    "KindEta",
    "LaneLoad",
    "RunTimeStats",
    "kind_eta",
    "lane_eta",
    "queue_groups",
    "throughput_per_min",
]

#: Below this many samples the prior (if any) is used instead of the samples.
MIN_SAMPLES = 3
_STD_NORMAL = NormalDist()
_Z90 = _STD_NORMAL.inv_cdf(0.9)
_PRIOR_Q_MAX = 0.999  # the lognormal prior has no finite maximum


@dataclass(frozen=True)
class Eta:
    """Seconds from now until the lane's current work is done, at the median and at p90."""

    p50_s: float
    p90_s: float


class _LogNormalPrior:
    """A prior (p50, p90) as the lognormal through both points: durations are right-skewed and
    positive, and this gives conditional quantiles (for running tasks) in closed form."""

    def __init__(self, p50: float, p90: float) -> None:
        if not (math.isfinite(p50) and math.isfinite(p90)) or p50 <= 0 or p90 < p50:
            raise ValueError(f"prior must be finite with 0 < p50 <= p90, got ({p50}, {p90})")
        self.p50 = p50
        self.mu = math.log(p50)
        self.sigma = math.log(p90 / p50) / _Z90

    def quantile(self, q: float) -> float:
        if q <= 0:
            return 0.0
        if self.sigma == 0:
            return self.p50
        return math.exp(self.mu + self.sigma * _STD_NORMAL.inv_cdf(min(q, _PRIOR_Q_MAX)))

    def remaining(self, q: float, elapsed: float) -> float:
        if elapsed <= 0 or self.sigma == 0:
            return max(0.0, self.quantile(q) - elapsed)
        done = _STD_NORMAL.cdf((math.log(elapsed) - self.mu) / self.sigma)
        p = min(done + q * (1.0 - done), _PRIOR_Q_MAX)
        if p <= done:  # so far in the tail that the model has nothing left to say
            return 0.0
        return max(0.0, math.exp(self.mu + self.sigma * _STD_NORMAL.inv_cdf(p)) - elapsed)


def _sorted_quantile(xs: Sequence[float], q: float, lo: int = 0) -> float:
    """Linear-interpolated quantile of the sorted ``xs[lo:]`` (numpy's default method)."""
    n = len(xs) - lo
    h = (n - 1) * q
    i = int(h)
    if i >= n - 1:
        return xs[-1]
    return xs[lo + i] + (h - i) * (xs[lo + i + 1] - xs[lo + i])


class RunTimeStats:
    """Rolling window of the recent successful run durations of one lane."""

    def __init__(self, window: int = 500, prior: tuple[float, float] | None = None) -> None:
        if window < 1:
            raise ValueError("window must be >= 1")
        self.window = window
        self._fifo: deque[float] = deque()
        self._sorted: list[float] = []
        self._prior = _LogNormalPrior(*prior) if prior is not None else None

    def add(self, seconds: float) -> None:
        """Record one successful run. Non-finite values are ignored (they would poison every
        quantile); negative ones (clock steps) count as 0."""
        if not math.isfinite(seconds):
            return
        value = max(0.0, float(seconds))
        self._fifo.append(value)
        bisect.insort(self._sorted, value)
        if len(self._fifo) > self.window:
            old = self._fifo.popleft()
            del self._sorted[bisect.bisect_left(self._sorted, old)]

    @property
    def count(self) -> int:
        return len(self._fifo)

    def _use_prior(self) -> bool:
        return self._prior is not None and len(self._sorted) < MIN_SAMPLES

    def quantile(self, q: float) -> float | None:
        """The q-quantile of run time in seconds; None when there are no samples and no prior."""
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"q must be within 0..1, got {q}")
        if self._prior is not None and self._use_prior():
            return self._prior.quantile(q)
        if not self._sorted:
            return None
        return _sorted_quantile(self._sorted, q)

    def remaining_quantile(self, q: float, elapsed: float) -> float | None:
        """The q-quantile of the time left for a run that has already taken ``elapsed`` seconds:
        the quantile of the durations longer than ``elapsed``, minus ``elapsed``. When no sample
        is that long, ``max(0, quantile(q) - elapsed)``, i.e. 0."""
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"q must be within 0..1, got {q}")
        elapsed = max(0.0, elapsed) if math.isfinite(elapsed) else 0.0
        if self._prior is not None and self._use_prior():
            return self._prior.remaining(q, elapsed)
        if not self._sorted:
            return None
        lo = bisect.bisect_right(self._sorted, elapsed)
        if lo < len(self._sorted):
            return _sorted_quantile(self._sorted, q, lo) - elapsed
        return max(0.0, _sorted_quantile(self._sorted, q) - elapsed)


def _makespan(free_at: list[float], n: int, duration: float) -> float:
    """Greedy list scheduling of ``n`` equal jobs onto servers free at ``free_at``.

    Once the servers' free times lie within one ``duration`` of each other, each round of
    ``len(free_at)`` jobs puts exactly one on every server, so whole rounds are added at once:
    100k pending tasks cost a few heap operations, not 100k."""
    top = max(free_at, default=0.0)
    if n <= 0 or duration <= 0 or not free_at:
        return top
    heap = list(free_at)
    heapq.heapify(heap)
    while n > 0 and top - heap[0] > duration:
        t = heap[0] + duration
        heapq.heapreplace(heap, t)
        top = max(top, t)
        n -= 1
    rounds, rest = divmod(n, len(heap))
    if rounds:
        heap = [x + rounds * duration for x in heap]  # uniform shift keeps the heap property
        top += rounds * duration
    for _ in range(rest):
        t = heap[0] + duration
        heapq.heapreplace(heap, t)
        top = max(top, t)
    return top


def _lane_makespan(
    stats: RunTimeStats, q: float, pending: int, running_elapsed: Sequence[float], capacity: int
) -> float | None:
    remaining: list[float] = []
    for elapsed in running_elapsed:
        r = stats.remaining_quantile(q, elapsed)
        if r is None:
            return None
        remaining.append(r)
    remaining.sort()
    if len(remaining) >= capacity:
        # More running than slots (capacity was lowered): a slot frees only as the shortest finish.
        free_at = remaining[-capacity:]
        done_running = remaining[-1] if remaining else 0.0
    else:
        free_at = remaining + [0.0] * (capacity - len(remaining))
        done_running = max(remaining, default=0.0)
    if pending <= 0:
        return done_running
    d = stats.quantile(q)
    if d is None:
        return None
    return max(done_running, _makespan(free_at, pending, d))


def lane_eta(
    stats: RunTimeStats, *, pending: int, running_elapsed: Sequence[float], capacity: int
) -> Eta | None:
    """Seconds until the lane's pending and running tasks are all done, at p50 and p90.

    None when the lane has no samples and no prior, or when there is work but ``capacity`` is 0
    (e.g. every account disabled): no honest number exists. No work at all -> ``Eta(0, 0)``."""
    if pending <= 0 and not running_elapsed:
        return Eta(0.0, 0.0)
    if capacity <= 0 and pending > 0:
        return None
    capacity = max(capacity, 1)
    p50 = _lane_makespan(stats, 0.5, pending, running_elapsed, capacity)
    p90 = _lane_makespan(stats, 0.9, pending, running_elapsed, capacity)
    if p50 is None or p90 is None:
        return None
    return Eta(p50_s=p50, p90_s=max(p50, p90))


def throughput_per_min(
    finish_times: Sequence[float], now: float, window_s: float = 300, *, since: float | None = None
) -> float:
    """Tasks finished per minute over the last ``window_s`` seconds (finish times at or before
    ``now``). ``since`` (when the lane/batch started) shortens the window early in a run, so
    five tasks done in the first minute read 5/min, not 1/min."""
    if window_s <= 0:
        raise ValueError("window_s must be > 0")
    span = window_s
    if since is not None:
        span = min(window_s, max(now - since, 1.0))
    start = now - span
    n = sum(1 for t in finish_times if start < t <= now)
    return n * 60.0 / span


# --------------------------------------------------------------------------- a lane kind's ETA

#: A lane in one of these health states takes no task, so its capacity does not count.
NO_CAPACITY_HEALTH = frozenset({HealthStatus.NEEDS_LOGIN.value, HealthStatus.DISABLED.value,
                                HealthStatus.ERROR.value, HealthStatus.CHALLENGE.value,
                                HealthStatus.RESTING.value})


class _Started(Protocol):
    @property
    def started_at(self) -> float: ...


class LaneLoad(Protocol):
    """What the ETA reads of one lane's latest stats (``mediadesk.scheduler.events.LaneStats`` fits)."""

    @property
    def durations(self) -> Sequence[float]: ...
    @property
    def running(self) -> Sequence[_Started]: ...
    @property
    def capacity(self) -> int: ...
    @property
    def paused(self) -> bool: ...
    @property
    def health(self) -> str: ...


class _Queued(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def profiles(self) -> Sequence[str]: ...


_L = TypeVar("_L", bound=_Queued)


def queue_groups(kind: str, lanes: Iterable[_L]) -> dict[str, list[_L]]:
    """Lanes grouped by the queue they serve: an API lane alone (its name), a web profile's
    accounts together (the profile, the first of each lane's profiles)."""
    groups: dict[str, list[_L]] = {}
    for lane in lanes:
        key = lane.name if kind == "api" else lane.profiles[0]
        groups.setdefault(key, []).append(lane)
    return groups


@dataclass(frozen=True)
class EtaGroup:
    """One queue: its pending tasks and the latest stats of the lanes serving it (lanes that have
    not reported yet are left out)."""

    pending: int
    lanes: Sequence[LaneLoad]
    #: What the operator calls this queue (a profile), for "ETA after 3 finished runs of <name>".
    name: str = ""


@dataclass(frozen=True)
class KindEta:
    """A lane kind's ETA: the slowest group's. ``eta`` is None when some group has work but no
    honest number (no samples and no prior, or no capacity)."""

    eta: Eta | None
    #: True when work is waiting but no lane of its group can take it (paused, all disabled).
    blocked: bool
    #: Run-time samples behind the estimate, over all groups.
    samples: int
    #: The group with work that has fewer than :data:`MIN_SAMPLES` run times (the fewest first):
    #: no honest number until it has them. None when no group waits for samples.
    waiting_for: str | None = None
    #: The run times that group has so far.
    waiting_samples: int = 0


def _through_hours(eta: Eta, group: EtaGroup, now: float) -> Eta:
    """Quiet hours: the queue's work is done only inside its windows (a lane's ``active_hours``,
    when its stats carry them), so the wait until an opening and every closed stretch are added."""
    text = next((h for st in group.lanes if (h := getattr(st, "active_hours", None))), None)
    if not text or not group.pending:
        return eta
    hours = ActiveHours.parse(text)
    return Eta(wall_span(hours, now, eta.p50_s), wall_span(hours, now, eta.p90_s))


def kind_eta(groups: Iterable[EtaGroup], now: float) -> KindEta:
    """ETA of a lane kind at time ``now``: groups run in parallel, so the slowest one decides.

    A group with work and fewer than :data:`MIN_SAMPLES` run times gives no number (one or two runs
    say little of the next ones): the ETA is None and ``waiting_for`` names that group."""
    worst: Eta | None = Eta(0.0, 0.0)
    blocked = False
    samples = 0
    waiting: tuple[int, str] | None = None
    for group in groups:
        stats = RunTimeStats()
        running: list[float] = []
        capacity = 0
        for st in group.lanes:
            for d in st.durations:
                stats.add(d)
            running.extend(max(0.0, now - r.started_at) for r in st.running)
            if not st.paused and st.health not in NO_CAPACITY_HEALTH:
                capacity += st.capacity
        samples += stats.count
        if group.pending and capacity == 0:
            blocked = True
        if (group.pending or running) and stats.count < MIN_SAMPLES:
            worst = None
            if waiting is None or stats.count < waiting[0]:
                waiting = (stats.count, group.name)
            continue
        eta = lane_eta(stats, pending=group.pending, running_elapsed=running, capacity=capacity)
        if eta is None:
            if group.pending or running:
                worst = None
            continue
        eta = _through_hours(eta, group, now)
        if worst is not None:
            worst = Eta(max(worst.p50_s, eta.p50_s), max(worst.p90_s, eta.p90_s))
    if waiting is not None:
        return KindEta(None, blocked, samples, waiting[1], waiting[0])
    return KindEta(worst, blocked, samples)
