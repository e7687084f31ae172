"""Prices, the cost of a task, sums that never add two currencies, and budgets that stop dispatch.

Prices are per million tokens. Providers' ``prompt_tokens`` include cached ones, so a task costs
``(prompt - cached) * input + cached * cached_price + completion * output``. A budget caps what an
endpoint, profile or batch may spend (one currency or tokens, per local day or in total);
:func:`budget_state` decides before a dispatch, counting running tasks and the next task's expected
cost: a task that would pass the cap stays pending, uncharged. Pure: no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

__all__ = ["NOTICE_AT", "TOKENS", "Budget", "BudgetState", "Price", "Totals", "budget_state", "fmt_amount",
           "sum_by_currency"]

#: The share of a cap at which the operator gets a notice (once per cap and window).
NOTICE_AT = 0.8
#: A budget's unit when it counts tokens instead of money.
TOKENS = "tokens"
_SYMBOL = {"USD": "$", "EUR": "€", "GBP": "£", "CNY": "¥", "JPY": "¥"}


@dataclass(frozen=True)
class Price:
    """Per million tokens, in ``currency``."""

    input: float
    output: float
    cached: float
    currency: str

    def cost(self, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0) -> float:
        cached = min(max(0, cached_tokens), max(0, prompt_tokens))
        fresh = max(0, prompt_tokens) - cached
        return (fresh * self.input + cached * self.cached + max(0, completion_tokens) * self.output) / 1e6


def fmt_amount(amount: float, currency: str) -> str:
    """``$1.23``, ``€0.0042`` (small amounts keep two significant digits), ``1.50 CHF``."""
    if amount != 0 and abs(amount) < 0.01:
        digits = f"{amount:.2g}"
        text = f"{float(digits):.6f}".rstrip("0")
    else:
        text = f"{amount:,.2f}"
    sym = _SYMBOL.get(currency)
    return f"{sym}{text}" if sym is not None else f"{text} {currency}"


def sum_by_currency(items: Iterable[tuple[float | None, str | None]]) -> dict[str, float]:
    """Costs summed per currency (never added across currencies); unpriced items are left out."""
    out: dict[str, float] = {}
    for amount, currency in items:
        if amount is not None and currency:
            out[currency] = out.get(currency, 0.0) + amount
    return out


@dataclass
class Totals:
    """What a scope has used: money per currency, tokens, tasks, and how many of them were
    estimated (web tasks: characters, not the provider's count)."""

    money: dict[str, float]
    tokens: int = 0
    tasks: int = 0
    estimated: int = 0

    @classmethod
    def empty(cls) -> Totals:
        return cls({})

    def add(self, cost: float | None, currency: str | None, tokens: int, estimated: bool) -> None:
        if cost is not None and currency:
            self.money[currency] = self.money.get(currency, 0.0) + cost
        self.tokens += max(0, tokens)
        self.tasks += 1
        self.estimated += 1 if estimated else 0

    def merge(self, other: Totals) -> None:
        for cur, amount in other.money.items():
            self.money[cur] = self.money.get(cur, 0.0) + amount
        self.tokens += other.tokens
        self.tasks += other.tasks
        self.estimated += other.estimated

    def used(self, unit: str) -> float:
        return float(self.tokens) if unit == TOKENS else self.money.get(unit, 0.0)

    def text(self) -> str:
        """``$1.23 + €0.40`` (one figure per currency), ``~`` in front when some are estimates."""
        if not self.money:
            return ""
        mark = "~" if self.estimated else ""
        return " + ".join(mark + fmt_amount(a, c) for c, a in sorted(self.money.items()))


@dataclass(frozen=True)
class Budget:
    """A cap: ``scope`` "endpoint" | "profile" | "batch", its ``name``, ``per`` "day" | "total",
    ``limit`` in ``unit`` (a currency code, or :data:`TOKENS`). ``source``: where it was set, for
    the "how to raise it" message (a config key, or "--budget" for a batch)."""

    scope: str
    name: str
    per: str
    limit: float
    unit: str
    source: str = ""

    @property
    def key(self) -> str:
        return f"{self.scope}:{self.name}:{self.per}:{self.unit}"

    def amount(self, value: float) -> str:
        return f"{value:,.0f} tokens" if self.unit == TOKENS else fmt_amount(value, self.unit)

    def label(self) -> str:
        """``endpoint reseller: $5.00 per day`` / ``batch b1: 200,000 tokens in total``."""
        when = "per day" if self.per == "day" else "in total"
        return f"{self.scope} {self.name}: {self.amount(self.limit)} {when}"


class BudgetState(str, Enum):
    OK = "ok"
    NOTICE = "notice"   # at or past NOTICE_AT of the cap: dispatch goes on, the operator is told
    STOP = "stop"       # the next task would pass the cap: nothing more starts in this scope


def budget_state(limit: float, used: float, in_flight: float, expected: float) -> BudgetState:
    """The decision before a dispatch: STOP when ``used`` (stored), plus ``in_flight`` (expected for
    the running tasks, not stored yet) plus ``expected`` (the next task) would pass ``limit``."""
    if used + in_flight + expected > limit or used >= limit:
        return BudgetState.STOP
    if used + in_flight >= NOTICE_AT * limit:
        return BudgetState.NOTICE
    return BudgetState.OK
