"""Spend summed from the task table's ``cost`` and ``currency`` columns (and the usage columns beside
them): per profile and batch for the budgets, per batch, profile or day for the views and exports.

Money in different currencies is never added: every sum is per currency. A task whose profile has
no price has tokens but no cost; it counts toward token caps only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["SpendBy", "SpendRow", "spend_rows"]

SpendBy = Literal["profile_batch", "batch", "profile", "day"]
_DAY_S = 86400.0


@dataclass(frozen=True)
class SpendRow:
    """One group: its key (a profile, a batch, (profile, batch), or a day's start), the currency
    (None for tasks without a price), the cost, the tokens, the tasks and how many were estimated."""

    key: Any
    currency: str | None
    cost: float
    tokens: int
    tasks: int
    estimated: int


def spend_rows(conn: Any, by: SpendBy, *, since: float | None = None, utc_offset_s: float = 0.0,
               pg: bool = False) -> list[SpendRow]:
    """Tasks with any usage, grouped by ``by`` and currency. ``day``: the start (epoch s) of the day the
    task finished, in the zone ``utc_offset_s`` east of UTC. ``since``: finished at or after it only."""
    params: list[Any] = []
    if by == "day":
        key = "CAST(floor((finished_at + ?) / ?) AS BIGINT)" if pg else "CAST((finished_at + ?) / ? AS INTEGER)"
        params += [utc_offset_s, _DAY_S]
    else:
        key = {"profile_batch": "profile, batch", "batch": "batch", "profile": "profile"}[by]
    where = "(prompt_tokens IS NOT NULL OR completion_tokens IS NOT NULL)"
    if by == "day":
        where += " AND finished_at IS NOT NULL"
    if since is not None:
        where += " AND finished_at >= ?"
        params.append(since)
    width = 2 if by == "profile_batch" else 1
    groups = ", ".join(str(i) for i in range(1, width + 2))
    rows = conn.execute(
        f"SELECT {key}, currency, COALESCE(sum(cost), 0), COALESCE(sum(prompt_tokens), 0)"
        f" + COALESCE(sum(completion_tokens), 0), count(*), sum(CASE WHEN usage_estimated THEN 1 ELSE 0 END)"
        f" FROM task WHERE {where} GROUP BY {groups}",
        params,
    ).fetchall()
    out: list[SpendRow] = []
    for row in rows:
        k: Any = (row[0], row[1]) if width == 2 else row[0]
        if by == "day":
            k = int(k) * _DAY_S - utc_offset_s
        cur, cost, tokens, n, est = row[width:]
        out.append(SpendRow(k, cur, float(cost), int(tokens), int(n), int(est or 0)))
    return out
