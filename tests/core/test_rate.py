"""TokenBucket and RateGates: budget bound over any horizon, steady rate, global + per-domain."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mediadesk.core.rate import DEFAULT_BURST, RateGates, TokenBucket

rates = st.floats(0.5, 6000.0)
bursts = st.one_of(st.none(), st.floats(1.0, 10.0))
starts = st.floats(0.0, 1e7)


@pytest.mark.parametrize(("rate", "burst", "match"),
                         [(-1.0, None, r"^rate_per_min must be finite and >= 0"),
                          (math.inf, None, r"^rate_per_min must be finite and >= 0"),
                          (math.nan, None, r"^rate_per_min must be finite and >= 0"),
                          (10.0, 0.5, r"^burst must be finite and >= 1"),
                          (10.0, math.inf, r"^burst must be finite and >= 1")])
def test_bad_parameters_are_refused(rate: float, burst: float | None, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        TokenBucket(rate, burst)


def test_asking_more_than_the_burst_is_a_bug() -> None:
    b = TokenBucket(60.0, burst=2.0)
    for n in (0.0, -1.0, 2.5):
        with pytest.raises(ValueError, match=r"^n must be within \(0, burst="):
            b.try_take(0.0, n)
        with pytest.raises(ValueError, match=r"^n must be within \(0, burst="):
            b.wait_time(0.0, n)


def test_default_burst_spreads_requests_evenly() -> None:
    b = TokenBucket(30.0)  # one every 2 s
    assert b.burst == DEFAULT_BURST == 1.0
    assert b.try_take(100.0)
    assert not b.try_take(100.0)
    assert b.wait_time(100.0) == pytest.approx(2.0)
    assert b.wait_time(101.5) == pytest.approx(0.5)
    assert not b.try_take(101.9) and b.try_take(102.0)


def test_burst_is_banked_up_to_its_size() -> None:
    b = TokenBucket(60.0, burst=3.0)
    assert all(b.try_take(0.0) for _ in range(3)) and not b.try_take(0.0)
    assert b.tokens(1000.0) == 3.0  # a long idle spell banks no more than the burst
    assert b.try_take(1000.0, 3) and b.wait_time(1000.0, 2) == pytest.approx(2.0)


def test_zero_rate_is_unlimited() -> None:
    b = TokenBucket(0.0)
    assert b.unlimited and all(b.try_take(0.0) for _ in range(1000)) and b.wait_time(0.0) == 0.0


def test_a_clock_going_back_earns_nothing() -> None:
    b = TokenBucket(60.0)
    assert b.try_take(10.0)
    assert not b.try_take(5.0) and b.wait_time(5.0) == pytest.approx(1.0)
    assert b.try_take(11.0)


@settings(max_examples=200, deadline=None)
@given(rate=rates, burst=bursts, start=starts, first=st.floats(0.0, 5.0))
def test_taking_after_exactly_the_wait_succeeds(rate: float, burst: float | None, start: float, first: float) -> None:
    b = TokenBucket(rate, burst)
    n = b.burst  # the worst case: the whole bucket
    b.try_take(start, n)
    now = start + first
    wait = b.wait_time(now, n)
    assert wait >= 0.0
    assert b.try_take(now + wait, n)


@settings(max_examples=200, deadline=None)
@given(
    rate=rates,
    burst=bursts,
    start=starts,
    steps=st.lists(st.tuples(st.floats(0.0, 3.0), st.sampled_from([1.0, 0.5])), min_size=1, max_size=300),
)
def test_never_more_than_burst_plus_rate_times_horizon(
    rate: float, burst: float | None, start: float, steps: list[tuple[float, float]]
) -> None:
    b = TokenBucket(rate, burst)
    now, taken, takes = start, 0.0, 0
    for dt, n in steps:
        now += dt
        if b.try_take(now, n):
            taken += n
            takes += 1
    horizon = now - start
    assert taken <= b.burst + rate * horizon / 60.0 + 1e-6 * takes + 1e-9


@settings(max_examples=100, deadline=None)
@given(rate=rates, burst=bursts, start=starts, horizon=st.floats(10.0, 600.0))
def test_a_steady_taker_gets_the_rate(rate: float, burst: float | None, start: float, horizon: float) -> None:
    b = TokenBucket(rate, burst)
    now, takes = start, 0
    while True:
        now += b.wait_time(now)
        if now > start + horizon:
            break
        assert b.try_take(now)
        takes += 1
    budget = b.burst + rate * horizon / 60.0
    assert budget - 1.0 - 1e-6 * takes <= takes <= budget + 1e-6 * takes


def test_rate_gates_combine_global_and_domain() -> None:
    g = RateGates(60.0, {"API.example.com": 20.0, "free.example.org": 0.0})  # global 1/s, domain 1 per 3 s
    assert g.wait_time("api.example.com", 0.0) == 0.0
    assert g.take("api.example.com", 0.0)
    assert g.wait_time("api.example.com", 0.0) == pytest.approx(3.0)  # the domain is the tighter one
    assert g.wait_time(None, 0.0) == pytest.approx(1.0)  # the global bucket only
    assert g.wait_time("other.example.net", 0.5) == pytest.approx(0.5)  # unlisted: global only
    assert g.take("other.example.net", 1.0)
    assert not g.take("Api.Example.com", 2.0)  # case-insensitive; domain still empty at 2 s
    assert g.take(None, 2.0)  # ... and the failed take above consumed no global token
    assert g.take("free.example.org", 3.0) and not g.take("free.example.org", 3.0)  # unlimited domain, global 1/s
    assert g.take("api.example.com", 4.0)


def test_rate_gates_with_no_limits_never_wait() -> None:
    g = RateGates(0.0, {})
    assert all(g.take("x", 0.0) for _ in range(100)) and g.wait_time("x", 0.0) == 0.0


@settings(max_examples=100, deadline=None)
@given(
    global_rpm=st.floats(1.0, 600.0),
    domain_rpm=st.floats(1.0, 600.0),
    times=st.lists(st.floats(0.0, 2.0), min_size=1, max_size=200),
)
def test_rate_gates_respect_both_budgets(global_rpm: float, domain_rpm: float, times: list[float]) -> None:
    g = RateGates(global_rpm, {"d": domain_rpm})
    now, to_domain, total = 0.0, 0, 0
    for i, dt in enumerate(times):
        now += dt
        domain = "d" if i % 2 else None
        if g.wait_time(domain, now) == 0.0:
            assert g.take(domain, now)
            total += 1
            to_domain += domain == "d"
    assert total <= 1 + global_rpm * now / 60.0 + 1e-6 * total
    assert to_domain <= 1 + domain_rpm * now / 60.0 + 1e-6 * to_domain


def test_limits_names_only_the_domains_a_bucket_applies_to() -> None:
    gates = RateGates(0, {"api.example.com": 60})
    assert gates.limits("API.example.com") and not gates.limits("other.example.com")
    assert not gates.limits(None)
    assert RateGates(30, {}).limits(None)
