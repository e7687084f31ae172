"""Prices, costs, sums per currency and the budget decision (pure)."""

from __future__ import annotations

import pytest

from mediadesk.core.spend import TOKENS, Budget, BudgetState, Price, Totals, budget_state, fmt_amount, sum_by_currency


def test_cost_counts_cached_prompt_tokens_at_their_own_price() -> None:
    p = Price(input=0.15, output=0.60, cached=0.075, currency="USD")
    assert p.cost(1_000_000, 0) == pytest.approx(0.15)
    assert p.cost(0, 1_000_000) == pytest.approx(0.60)
    # 1,000 prompt tokens of which 400 cached, 500 completion tokens
    assert p.cost(1000, 500, 400) == pytest.approx((600 * 0.15 + 400 * 0.075 + 500 * 0.60) / 1e6)
    assert p.cost(100, 0, 500) == pytest.approx(100 * 0.075 / 1e6)  # cached never above the prompt


def test_amounts_and_currencies_are_never_added_together() -> None:
    assert fmt_amount(1.234, "USD") == "$1.23"
    assert fmt_amount(0.00423, "EUR") == "€0.0042"
    assert fmt_amount(12.5, "CHF") == "12.50 CHF"
    assert sum_by_currency([(1.0, "USD"), (2.0, "EUR"), (0.5, "USD"), (None, None), (3.0, None)]) == {
        "USD": 1.5, "EUR": 2.0}
    t = Totals.empty()
    t.add(1.0, "USD", 100, False)
    t.add(2.0, "EUR", 50, True)
    assert t.text() == "~€2.00 + ~$1.00" and t.tokens == 150 and t.used("USD") == 1.0 and t.used(TOKENS) == 150


def test_budget_state_stops_before_a_task_would_pass_the_cap_and_notices_at_80_percent() -> None:
    assert budget_state(10.0, 5.0, 0.0, 1.0) is BudgetState.OK
    assert budget_state(10.0, 7.0, 1.0, 1.0) is BudgetState.NOTICE      # 80 % used or in flight
    assert budget_state(10.0, 8.5, 0.0, 1.0) is BudgetState.NOTICE
    assert budget_state(10.0, 8.5, 1.0, 1.0) is BudgetState.STOP        # 10.5 would pass 10
    assert budget_state(10.0, 10.0, 0.0, 0.0) is BudgetState.STOP
    b = Budget("endpoint", "reseller", "day", 5.0, "USD", source="s")
    assert b.label() == "endpoint reseller: $5.00 per day" and b.key == "endpoint:reseller:day:USD"
    assert Budget("batch", "b1", "total", 200_000, TOKENS).label() == "batch b1: 200,000 tokens in total"
