"""Spend in ``mediadesk run``: the ``--budget`` of a batch, what the batch cost in the summary, and
the message when caps stop the run (its tasks stay pending; which cap, how to raise it)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from mediadesk.cli.errors import UserError
from mediadesk.config.model import AppConfig
from mediadesk.core.spend import TOKENS, Totals
from mediadesk.store import TaskRecord

__all__ = ["budget_stop_message", "parse_budget", "spend_line"]

_BUDGET = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmM])?\s*([A-Za-z]*)\s*$")


def parse_budget(text: str, config: AppConfig, profiles: Iterable[str]) -> tuple[float, str]:
    """``--budget``: ``2.50`` (in the currency the batch's profiles are priced in), ``2.50 EUR``,
    ``200000 tokens`` or ``200k tokens``. Returns (cap, unit)."""
    m = _BUDGET.match(text)
    if m is None or float(m[1]) <= 0:
        raise UserError(f"--budget {text!r}: give an amount greater than 0, e.g. --budget 2.50, --budget \"2.50 EUR\" "
                        "or --budget \"200k tokens\"")
    amount = float(m[1]) * {"": 1, "k": 1e3, "m": 1e6}[(m[2] or "").lower()]
    unit = m[3]
    if unit.lower() in ("tokens", "token", "tok"):
        return amount, TOKENS
    if unit:
        if not re.fullmatch(r"[A-Za-z]{3}", unit):
            raise UserError(f"--budget {text!r}: the unit is a three-letter currency (USD, EUR...) or tokens")
        return amount, unit.upper()
    currencies = {p.currency for name in set(profiles) if (p := config.price_of(name)) is not None}
    if len(currencies) != 1:
        found = ", ".join(sorted(currencies)) or "none of its profiles has a price ([prices] in the config)"
        raise UserError(f"--budget {text!r}: say the currency or tokens (e.g. --budget \"{m[1]} USD\"); "
                        f"the batch's prices are in: {found}")
    return amount, currencies.pop()


def spend_line(records: Sequence[TaskRecord]) -> str | None:
    """``spent: $0.42 (12,345 tokens, 40 tasks; ~ = some are estimates)``, None when no task of
    the batch has usage. One figure per currency: never added across currencies."""
    totals = Totals.empty()
    unpriced = 0
    for r in records:
        if r.prompt_tokens is None and r.completion_tokens is None:
            continue
        if r.cost is None:
            unpriced += 1
        totals.add(r.cost, r.currency, (r.prompt_tokens or 0) + (r.completion_tokens or 0), r.usage_estimated)
    if not totals.tasks:
        return None
    money = totals.text() if totals.money else "no price"
    parts = [f"{totals.tokens:,} tokens", f"{totals.tasks} tasks"]
    if unpriced:
        parts.append(f"{unpriced} without a price")
    if totals.estimated:
        parts.append("~ = estimated from characters")
    return f"spent: {money} ({', '.join(parts)})"


def budget_stop_message(stops: dict[str, list[str]], config_path: str) -> str:
    """The caps that stopped the run, per profile (the faces' words: what, how much, how to raise it)."""
    lines = [f"stopped by a budget: the tasks of profile(s) {', '.join(stops)} stay pending in the database "
             "(nothing failed, nothing charged) and resume on the next run:"]
    for profile, reasons in stops.items():
        for reason in reasons:
            lines.append(f"  {profile}: {reason.replace('the config', config_path)}")
    return "\n".join(lines)
