"""The pure parts of usage and token gates: estimates, reservations, true-up, the provider's hints."""

from __future__ import annotations

import pytest

from mediadesk.core.log_lines import english
from mediadesk.core.token_rate import (
    DEFAULT_COMPLETION_TOKENS,
    CompletionHistory,
    RateHints,
    TokenGate,
    TokenRateBucket,
    expected_tokens,
    p90,
    parse_duration_s,
    rate_hints,
)
from mediadesk.core.usage import Usage, estimate_tokens, estimate_usage, usage_of_json


def test_estimates_from_characters() -> None:
    assert estimate_tokens("") == 0 and estimate_tokens("a") == 1
    assert estimate_tokens("x" * 400) == 100  # ~4 characters a token for Latin text
    assert estimate_tokens("你好世界") == 4  # one token per CJK character
    assert estimate_tokens("你好 world!!") == 2 + 2  # 2 CJK + 7 others / 4
    u = estimate_usage("x" * 40, "y" * 8, system="z" * 4, history=(("q" * 4, "a" * 4),))
    assert u == Usage(prompt_tokens=13, completion_tokens=2, estimated=True) and u.total == 15


def test_usage_of_the_providers_json() -> None:
    assert usage_of_json({"prompt_tokens": 12, "completion_tokens": 5,
                          "prompt_tokens_details": {"cached_tokens": 4}}) == Usage(12, 5, 4)
    assert usage_of_json({"prompt_tokens": 12, "completion_tokens": 5}) == Usage(12, 5, None)
    for junk in (None, "12", {}, {"prompt_tokens": "12"}, {"prompt_tokens": -1}, {"prompt_tokens": True}):
        assert usage_of_json(junk) is None, junk


def test_a_reservation_is_the_prompt_plus_the_expected_completion() -> None:
    base = expected_tokens("x" * 400)
    assert base == 100 + 4 + DEFAULT_COMPLETION_TOKENS
    assert expected_tokens("x" * 400, max_tokens=50) == 154
    assert expected_tokens("x" * 400, recent_p90=30) == 134
    assert expected_tokens("x" * 400, max_tokens=50, recent_p90=30) == 154  # max_tokens wins
    assert expected_tokens("x" * 400, "s" * 40, recent_p90=0) == 100 + 4 + 10 + 4
    h = CompletionHistory(size=10)
    assert h.p90("p") is None
    for n in range(1, 11):
        h.add("p", n * 10)
    assert h.p90("p") == 90 and p90([5]) == 5 and p90([]) is None


@pytest.mark.parametrize(("text", "seconds"), [
    ("6m0s", 360.0), ("1.5s", 1.5), ("20ms", 0.02), ("1h2m3s", 3723.0), ("2", 2.0), ("0.5", 0.5), ("7m12.5s", 432.5)])
def test_durations_as_providers_write_them(text: str, seconds: float) -> None:
    assert parse_duration_s(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "soon", "5 s", "-1", "1x", "s", "1e9"])
def test_what_is_not_a_duration(text: str) -> None:
    assert parse_duration_s(text) is None


def test_the_hints_of_a_providers_headers() -> None:
    hints = rate_hints({"x-ratelimit-limit-tokens": "40000", "x-ratelimit-remaining-tokens": "39000",
                        "x-ratelimit-reset-tokens": "1.5s", "x-ratelimit-remaining-requests": "abc"})
    assert hints == RateHints(limit_tokens=40000, remaining_tokens=39000, reset_tokens_s=1.5)
    assert rate_hints({}).empty


def test_the_bucket_reserves_trues_up_and_may_owe() -> None:
    b = TokenRateBucket(600)  # 10 tokens a second
    assert b.wait_time(0.0, 500) == 0.0
    b.reserve(0.0, 500)
    assert b.level(0.0) == 100 and b.wait_time(0.0, 300) == pytest.approx(20.0)
    b.true_up(0.0, 500, 200)  # the answer used 200: 300 back
    assert b.level(0.0) == 400
    b.true_up(0.0, 100, 900)  # it used 800 more than reserved: a debt
    assert b.level(0.0) == -400 and b.wait_time(0.0, 100) == pytest.approx(50.0)
    assert b.wait_time(0.0, 10_000) == pytest.approx(100.0)  # more than the bucket: wait for a full one
    assert b.clamp(0.0, 1000) is False and b.clamp(10.0, -350) is True and b.level(10.0) == -350


def test_the_gate_learns_the_providers_limits_from_its_headers() -> None:
    g = TokenGate()
    assert not g.limits and g.wait_time(0.0, 5000) == 0.0
    note = g.settle(0.0, 0.0, 300, profile="p", completion=100, hints=RateHints(
        limit_tokens=6000, remaining_tokens=200, limit_requests=60, remaining_requests=0))
    assert note is not None and "6000 tokens a minute" in english(note) and "60 requests a minute" in english(note)
    assert g.limits_tokens and g.completions.p90("p") == 100
    assert g.wait_time(0.0, 300) == pytest.approx(1.0)  # 100 more tokens at 100 a second; a request in 1 s
    assert g.wait_time(0.0, 1200) == pytest.approx(10.0)
    ignoring = TokenGate(honour_headers=False)
    assert ignoring.settle(0.0, 0.0, 1, hints=RateHints(limit_tokens=6000, remaining_tokens=0)) is None
    assert not ignoring.limits


def test_a_window_of_unknown_size_holds_until_its_reset() -> None:
    g = TokenGate()
    g.settle(0.0, 0.0, None, hints=RateHints(remaining_requests=0, reset_requests_s=2.5), next_need=10)
    assert g.wait_time(1.0, 10) == pytest.approx(1.5) and g.wait_time(2.5, 10) == 0.0
    g.settle(0.0, 0.0, None, hints=RateHints(remaining_tokens=5, reset_tokens_s=4.0), next_need=10)
    assert g.wait_time(0.0, 10) == pytest.approx(4.0)


def test_a_declared_tpm_is_not_replaced_by_a_header_but_lowered_by_what_is_left() -> None:
    g = TokenGate(1200)
    g.reserve(0.0, 200)
    g.settle(0.0, 200, 150, hints=RateHints(limit_tokens=999_999, remaining_tokens=500))
    assert g.bucket is not None and g.bucket.tpm == 1200 and g.bucket.level(0.0) == 500
