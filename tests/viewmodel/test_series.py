"""Chart series and run-time distributions from store reads (pure: FinishedBuckets built by hand)."""

from __future__ import annotations

import math
import random

import pytest

from mediadesk.store.metrics import FinishedBuckets
from mediadesk.viewmodel.series import RANGES, SeriesCache, distribution, log_edges, weighted_quantile

T0 = 1_700_000_040.0  # a multiple of 60
R5, R1H, R24H = RANGES


def fb(since: float, until: float, bucket: float, counts: dict, durations: dict | None = None) -> FinishedBuckets:
    return FinishedBuckets(since, until, bucket, counts, durations or {})


@pytest.mark.parametrize("q", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_weighted_quantile_matches_the_expanded_list(q: float) -> None:
    rng = random.Random(7)
    pairs = sorted({round(rng.uniform(5, 400), 1): rng.randint(1, 9) for _ in range(60)}.items())
    flat = sorted(v for v, c in pairs for _ in range(c))
    h = (len(flat) - 1) * q
    i = int(h)
    expected = flat[i] if i + 1 >= len(flat) else flat[i] + (h - i) * (flat[i + 1] - flat[i])
    assert weighted_quantile(pairs, q) == pytest.approx(expected)
    assert weighted_quantile([], q) is None


def test_log_edges_cover_the_range_and_grow_geometrically() -> None:
    e = log_edges(31.0, 370.0, 12)
    assert len(e) == 13 and e[0] < 31.0 and e[-1] > 370.0
    ratios = {round(e[i + 1] / e[i], 9) for i in range(12)}
    assert len(ratios) == 1
    assert log_edges(12.0, 12.0) == pytest.approx((12.0 / 1.05, 12.0 * 1.05))  # one bin around equal values


def test_distribution_puts_every_run_in_one_bin_with_its_quantiles() -> None:
    pairs = [(8.0, 3), (10.0, 5), (19.5, 2)]
    d = distribution("api:writer", pairs)
    assert d.n == 10 and sum(d.counts) == 10 and len(d.edges) == len(d.counts) + 1
    assert d.p50 == 10.0 and d.max == 19.5 and d.p90 == 19.5  # flat[8.1]: the 9th of 10 runs
    for v, c in pairs:  # each value's count sits in the bin that contains it
        i = max(k for k in range(len(d.counts)) if d.edges[k] <= v)
        assert d.counts[i] >= c
    empty = distribution("web:acct-a", [], d.edges)
    assert empty.n == 0 and empty.p50 is None and sum(empty.counts) == 0 and len(empty.counts) == len(d.counts)


def test_full_read_builds_every_bucket_and_rates_the_newest_on_its_elapsed_part() -> None:
    cache = SeriesCache(R5)
    now = T0 + 295.0  # 5 s into the bucket starting at T0+290
    since, until, full = cache.query_span(now)
    assert full and since == T0 and until == T0 + 300  # 30 buckets of 10 s, aligned
    cache.merge(fb(since, until, 10, {"api:writer": {T0: (2, 1), T0 + 150: (5, 0), T0 + 290: (1, 0)}},
                   {"api:writer": {T0: [(8.0, 2)], T0 + 150: [(12.0, 5)], T0 + 290: [(9.0, 1)]}}), now, full=True)
    data = cache.build(now, lanes=["web:acct-a"])
    assert data.lanes == ("api:writer", "web:acct-a")  # an idle configured lane gets a flat line
    s = data.series["api:writer"]
    assert len(s.x) == 30 and s.x[0] == T0 and s.x[-1] == T0 + 290
    assert s.per_min[0] == 18.0 and s.per_min[15] == 30.0  # 3 in 10 s, 5 in 10 s
    assert s.per_min[-1] == 12.0  # 1 in the 5 s elapsed so far
    assert (s.succeeded, s.failed) == (8, 1)
    assert data.series["web:acct-a"].per_min == (0.0,) * 30
    assert data.total.per_min == s.per_min and data.finished() == 9
    d = data.distributions["api:writer"]
    assert d.n == 8 and d.p50 == 12.0 and d.edges == data.edges
    assert data.distributions["web:acct-a"].n == 0


def test_partial_reads_replace_the_newest_buckets_and_old_ones_leave_the_range() -> None:
    cache = SeriesCache(R5, full_every_s=300)
    now = T0 + 295.0
    since, until, _ = cache.query_span(now)
    cache.merge(fb(since, until, 10, {"api:writer": {T0: (4, 0), T0 + 280: (1, 0), T0 + 290: (1, 0)}},
                   {"api:writer": {T0: [(20.0, 4)], T0 + 280: [(9.0, 1)], T0 + 290: [(9.0, 1)]}}), now, full=True)
    now2 = T0 + 312.0
    since2, until2, full2 = cache.query_span(now2)
    assert not full2 and since2 == T0 + 280 and until2 == T0 + 320  # one bucket before the newest read
    # the read sees the bucket at T0+290 complete now (3 tasks) and one task in the new bucket
    cache.merge(fb(since2, until2, 10, {"api:writer": {T0 + 290: (3, 0), T0 + 310: (1, 0)}},
                   {"api:writer": {T0 + 290: [(9.0, 3)], T0 + 310: [(30.0, 1)]}}), now2, full=False)
    data = cache.build(now2)
    s = data.series["api:writer"]
    assert s.x[0] == T0 + 20 and s.x[-1] == T0 + 310  # T0 and T0+10 left the 5-minute range
    per = dict(zip(s.x, s.per_min, strict=True))
    assert per[T0 + 280] == 0.0  # gone from the second read: replaced, not kept
    assert per[T0 + 290] == 18.0 and per[T0 + 310] == 30.0
    assert (s.succeeded, s.failed) == (4, 0)
    d = data.distributions["api:writer"]  # the 20 s runs left with their bucket
    assert d.n == 4 and d.max == 30.0 and d.p50 == 9.0
    assert cache.reads == [1, 1]
    assert cache.query_span(T0 + 295.0 + 300)[2]  # a full read again after full_every_s


def test_24h_of_per_minute_buckets() -> None:
    cache = SeriesCache(R24H)
    now = T0 + 86_400 * 3 + 30.0
    since, until, full = cache.query_span(now)
    assert full and until - since == 86_400 and math.isclose(since % 60, 0.0)
    counts = {"api:writer": {since + 60 * i: (i % 7, i % 2) for i in range(1440)}}
    durations = {"api:writer": {since + 60 * i: [(8.0 + i % 13, 1)] for i in range(1440)}}
    cache.merge(fb(since, until, 60, counts, durations), now, full=True)
    data = cache.build(now)
    s = data.series["api:writer"]
    assert len(s.x) == 1440 and s.per_min[1] == 2.0 and s.per_min[7] == 1.0
    assert s.succeeded == sum(i % 7 for i in range(1440)) and data.distributions["api:writer"].n == 1440
