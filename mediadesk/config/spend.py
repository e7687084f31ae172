"""Prices and budgets: ``[prices."MODEL"]``, ``[endpoints.prices."MODEL"]`` and ``[[budgets]]``.

A price is per million tokens (input, output, cached input) in one currency; an endpoint's own table
(a reseller's prices) wins over the top-level one for the same model. A budget caps what one
endpoint or profile may spend (money, in one currency) or use (tokens), per local day or in total;
a batch's cap is given when it is submitted (``mediadesk run --budget``), not here.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from mediadesk.config.errors import problem
from mediadesk.core.spend import Price

__all__ = ["BudgetConfig", "PriceConfig"]

_CURRENCY = re.compile(r"^[A-Z]{3}$")


class _Strict(BaseModel):
    # the same strictness as every other table (mediadesk.config.model._Strict)
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


def _currency(v: str) -> str:
    if not _CURRENCY.match(v):
        raise problem("currency must be a three-letter code such as \"USD\", \"EUR\" or \"CNY\"")
    return v


class PriceConfig(_Strict):
    """One model's price per million tokens. ``cached`` (cached input tokens) defaults to ``input``."""

    input: float = Field(..., ge=0, le=1_000_000)
    output: float = Field(..., ge=0, le=1_000_000)
    cached: float | None = Field(None, ge=0, le=1_000_000)
    currency: str = "USD"

    _cur = field_validator("currency")(classmethod(lambda cls, v: _currency(v)))

    def price(self) -> Price:
        return Price(self.input, self.output, self.input if self.cached is None else self.cached, self.currency)


class BudgetConfig(_Strict):
    """``[[budgets]]``: a cap on one endpoint or profile, per local day or in total, in money
    (``max_cost`` in ``currency``) or in tokens (``max_tokens``, prompt plus completion)."""

    endpoint: str | None = None
    profile: str | None = None
    per: Literal["day", "total"] = "day"
    max_cost: float | None = Field(None, gt=0, le=1e12)
    currency: str = "USD"
    max_tokens: int | None = Field(None, gt=0, le=10**15)

    _cur = field_validator("currency")(classmethod(lambda cls, v: _currency(v)))

    @model_validator(mode="after")
    def _one_of_each(self) -> BudgetConfig:
        if (self.endpoint is None) == (self.profile is None):
            raise problem("a budget names exactly one of endpoint or profile")
        if (self.max_cost is None) == (self.max_tokens is None):
            raise problem("a budget has exactly one of max_cost (money) or max_tokens")
        return self
