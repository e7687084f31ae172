"""Chart data without Qt: per-lane throughput and run-time distribution over a time range.

The numbers come from the store (:meth:`mediadesk.store.metrics.MetricsReader.finished`), so they
survive a restart. :class:`SeriesCache` keeps one range's buckets and asks for as little as it
can: a full read when the range is first shown (and every ``full_every_s``, which also picks up
the rare retroactive change such as a failed task re-queued by the operator), otherwise only the
newest buckets (with 24 h of history a full read visits every task finished that day; the newest
two minutes are a few rows). It is not thread-safe: merge and build on one thread.
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from mediadesk.store.metrics import FinishedBuckets

__all__ = [
    "RANGES",
    "ChartData",
    "ChartRange",
    "Distribution",
    "LaneSeries",
    "SeriesCache",
    "distribution",
    "log_edges",
    "weighted_quantile",
]


@dataclass(frozen=True)
class ChartRange:
    key: str          # "5m", "1h", "24h"
    span_s: float
    bucket_s: float

    @property
    def buckets(self) -> int:
        return math.ceil(self.span_s / self.bucket_s)


#: The ranges the console offers: 5 min in 10 s buckets, 1 h and 24 h in 1 min buckets.
RANGES: tuple[ChartRange, ...] = (
    ChartRange("5m", 300.0, 10.0),
    ChartRange("1h", 3600.0, 60.0),
    ChartRange("24h", 86400.0, 60.0),
)


@dataclass(frozen=True)
class LaneSeries:
    """Throughput of one lane (or of all lanes: ``lane`` ``""``), one point per bucket."""

    lane: str
    #: bucket starts (epoch seconds), oldest first, every bucket of the range (zeros included)
    x: tuple[float, ...]
    #: tasks finished (succeeded + failed) per minute in that bucket; the newest bucket, still
    #: filling, is rated over the part that has elapsed
    per_min: tuple[float, ...]
    succeeded: int
    failed: int


@dataclass(frozen=True)
class Distribution:
    """Run times of one lane's successes: a histogram on log-spaced bins, and its quantiles."""

    lane: str
    n: int
    p50: float | None
    p90: float | None
    max: float | None
    #: bin edges in seconds (len(counts) + 1)
    edges: tuple[float, ...]
    counts: tuple[int, ...]


@dataclass(frozen=True)
class ChartData:
    range: ChartRange
    now: float
    since: float
    lanes: tuple[str, ...]
    series: dict[str, LaneSeries]
    total: LaneSeries
    distributions: dict[str, Distribution]
    #: every lane's run times on the same bins (for an overlay of all lanes)
    edges: tuple[float, ...] = field(default=())

    def finished(self) -> int:
        return self.total.succeeded + self.total.failed


def weighted_quantile(values: Sequence[tuple[float, int]], q: float) -> float | None:
    """Linear-interpolated q-quantile (numpy's default) of ``(value, count)`` pairs sorted by value."""
    n = sum(c for _, c in values)
    if n == 0:
        return None
    h = (n - 1) * q
    lo = int(h)
    frac = h - lo

    def at(i: int) -> float:
        seen = 0
        for v, c in values:
            seen += c
            if i < seen:
                return v
        return values[-1][0]

    a = at(lo)
    return a if frac == 0 or lo + 1 >= n else a + frac * (at(lo + 1) - a)


def log_edges(lo: float, hi: float, bins: int = 24) -> tuple[float, ...]:
    """``bins`` log-spaced bins covering ``[lo, hi]`` (web and API run times differ by an order of
    magnitude, so linear bins would squash one or the other). Values at or under 0.05 s go to the
    first bin."""
    lo = max(lo, 0.05)
    hi = max(hi, lo)
    if hi / lo < 1.05:  # all (nearly) equal: one bin around them
        return (lo / 1.05, hi * 1.05)
    a, b = math.log(lo / 1.001), math.log(hi * 1.001)
    step = (b - a) / bins
    return tuple(math.exp(a + i * step) for i in range(bins + 1))


def distribution(lane: str, values: Sequence[tuple[float, int]], edges: Sequence[float] | None = None,
                 bins: int = 24) -> Distribution:
    """Histogram and quantiles of ``(seconds, count)`` pairs sorted by seconds; ``edges`` (from
    :func:`log_edges`) to share bins between lanes, else the lane's own range."""
    n = sum(c for _, c in values)
    if n == 0:
        shared = tuple(edges or ())
        return Distribution(lane, 0, None, None, None, shared, (0,) * max(len(shared) - 1, 0))
    if edges is None:
        edges = log_edges(values[0][0], values[-1][0], bins)
    counts = [0] * (len(edges) - 1)
    last = len(counts) - 1
    for v, c in values:
        i = bisect.bisect_right(edges, v) - 1
        counts[min(max(i, 0), last)] += c
    return Distribution(lane, n, weighted_quantile(values, 0.5), weighted_quantile(values, 0.9), values[-1][0],
                        tuple(edges), tuple(counts))


class SeriesCache:
    """One range's buckets per lane, merged from store reads. Use :meth:`query_span` to know what
    to read, :meth:`merge` the result, then :meth:`build` what to draw."""

    def __init__(self, rng: ChartRange, *, full_every_s: float = 300.0) -> None:
        self.range = rng
        self.full_every_s = full_every_s
        #: lane -> bucket start -> (succeeded, failed)
        self._counts: dict[str, dict[float, tuple[int, int]]] = {}
        #: lane -> bucket start -> [(seconds, n)]
        self._durations: dict[str, dict[float, list[tuple[float, int]]]] = {}
        #: lane -> run times of every cached bucket, kept in step with _durations
        self._dur_total: dict[str, Counter[float]] = {}
        self._last_full: float | None = None
        self._newest_read: float | None = None
        #: store reads merged so far: (full reads, partial reads)
        self.reads = [0, 0]

    def window_start(self, now: float) -> float:
        b = self.range.bucket_s
        return math.floor((now - self.range.span_s) / b) * b + b

    def query_span(self, now: float) -> tuple[float, float, bool]:
        """``(since, until, full)`` for the next read. A partial read starts one bucket before
        the newest bucket read last time (a finish written just after that read lands there)."""
        b = self.range.bucket_s
        until = (math.floor(now / b) + 1) * b
        if self._last_full is None or self._newest_read is None or now - self._last_full >= self.full_every_s:
            return self.window_start(now), until, True
        since = max(self.window_start(now), math.floor(self._newest_read / b) * b - b)
        return since, until, False

    def merge(self, fb: FinishedBuckets, now: float, *, full: bool) -> None:
        """Take a read of ``[fb.since, fb.until)`` (bucket-aligned): its buckets replace the cached
        ones in that span (a bucket with nothing in the read becomes empty); buckets that left
        the range are dropped."""
        if full:
            self._counts.clear()
            self._durations.clear()
            self._dur_total.clear()
            self._last_full = now
            self.reads[0] += 1
        else:
            self._drop(lambda t: fb.since <= t < fb.until)
            self.reads[1] += 1
        for lane, buckets in fb.counts.items():
            self._counts.setdefault(lane, {}).update(buckets)
        for lane, dbuckets in fb.durations.items():
            mine = self._durations.setdefault(lane, {})
            total = self._dur_total.setdefault(lane, Counter())
            for t, pairs in dbuckets.items():
                mine[t] = pairs
                for v, c in pairs:
                    total[v] += c
        self._newest_read = now
        start = self.window_start(now)
        self._drop(lambda t: t < start)

    def _drop(self, gone: Callable[[float], bool]) -> None:
        for per in self._counts.values():
            for t in [t for t in per if gone(t)]:
                del per[t]
        for lane, dper in self._durations.items():
            total = self._dur_total[lane]
            for t in [t for t in dper if gone(t)]:
                for v, c in dper.pop(t):
                    total[v] -= c
                    if total[v] <= 0:
                        del total[v]

    def lanes(self) -> tuple[str, ...]:
        return tuple(sorted(lane for lane in set(self._counts) | set(self._durations)
                            if self._counts.get(lane) or self._dur_total.get(lane)))

    def build(self, now: float, lanes: Iterable[str] | None = None, bins: int = 24) -> ChartData:
        """What to draw at ``now``: every lane's series (every bucket of the range, zeros too), the
        all-lanes total, and run-time histograms on shared log bins. ``lanes``: always include
        these (e.g. the configured lanes, idle ones show a flat zero line)."""
        b = self.range.bucket_s
        start = self.window_start(now)
        n_b = max(1, math.floor(now / b) - math.floor(start / b) + 1)
        xs = tuple(start + i * b for i in range(n_b))
        newest_elapsed = max(now - xs[-1], 1.0)
        names = tuple(sorted(set(self.lanes()) | set(lanes or ())))
        series: dict[str, LaneSeries] = {}
        tot = [0.0] * n_b
        tot_ok = tot_bad = 0
        for lane in names:
            per = self._counts.get(lane, {})
            ys = [0.0] * n_b
            ok_n = bad_n = 0
            for t, (ok, bad) in per.items():
                i = round((t - start) / b)
                if 0 <= i < n_b:
                    span = newest_elapsed if i == n_b - 1 else b
                    ys[i] = (ok + bad) * 60.0 / min(span, b)
                    tot[i] += ys[i]
                    ok_n += ok
                    bad_n += bad
            tot_ok += ok_n
            tot_bad += bad_n
            series[lane] = LaneSeries(lane, xs, tuple(ys), ok_n, bad_n)
        sorted_values = {lane: sorted(self._dur_total.get(lane, Counter()).items()) for lane in names}
        present = [v for v in sorted_values.values() if v]
        edges = log_edges(min(v[0][0] for v in present), max(v[-1][0] for v in present), bins) if present else ()
        dists = {lane: distribution(lane, vals, edges if edges else None) for lane, vals in sorted_values.items()}
        return ChartData(self.range, now, start, names, series, LaneSeries("", xs, tuple(tot), tot_ok, tot_bad),
                         dists, edges)
