"""Token usage summed per batch, profile, endpoint or day, straight from the task table's usage
columns (``prompt_tokens``, ``completion_tokens``, ``cached_tokens``, ``usage_estimated``).

Read through :meth:`mediadesk.store.metrics.MetricsReader.usage` (one reader per thread, never the
GUI thread). The task table has no endpoint column: a profile's endpoint comes from the config, so
:func:`by_endpoint` folds the per-profile sums with the caller's profile -> endpoint map.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["DAY_S", "UsageBy", "UsageSum", "by_endpoint", "usage_sums"]

DAY_S = 86400.0
#: What the sums are grouped by.
UsageBy = Literal["batch", "profile", "day"]


@dataclass(frozen=True)
class UsageSum:
    """Tokens of the tasks in one group that reported (or were estimated) any usage."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    #: tasks with usage
    tasks: int = 0
    #: of those, tasks whose usage is MediaDesk's estimate
    estimated_tasks: int = 0

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: UsageSum) -> UsageSum:
        return UsageSum(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens,
                        self.cached_tokens + other.cached_tokens, self.tasks + other.tasks,
                        self.estimated_tasks + other.estimated_tasks)


_KEYS: dict[str, str] = {"batch": "batch", "profile": "profile"}


def usage_sums(conn: Any, by: UsageBy, *, since: float | None = None, utc_offset_s: float = 0.0,
               pg: bool = False) -> dict[Any, UsageSum]:
    """``by`` -> its :class:`UsageSum`. ``day``: the start (epoch s) of the day the task finished,
    days counted in the zone ``utc_offset_s`` east of UTC (pass the local offset for local days);
    tasks not finished are left out of ``day`` only. ``since``: tasks finished at or after it only."""
    if by == "day":
        day = "CAST(floor((finished_at + ?) / ?) AS BIGINT)" if pg else "CAST((finished_at + ?) / ? AS INTEGER)"
        key, params = day, [utc_offset_s, DAY_S]
    elif by in _KEYS:
        key, params = _KEYS[by], []
    else:
        raise ValueError(f"usage sums by {by!r}: expected one of batch, profile, day")
    where = "(prompt_tokens IS NOT NULL OR completion_tokens IS NOT NULL)"
    if by == "day":
        where += " AND finished_at IS NOT NULL"
    if since is not None:
        where += " AND finished_at >= ?"
        params.append(since)
    estimated = "CASE WHEN usage_estimated THEN 1 ELSE 0 END"
    rows = conn.execute(
        f"SELECT {key}, COALESCE(sum(prompt_tokens), 0), COALESCE(sum(completion_tokens), 0),"
        f" COALESCE(sum(cached_tokens), 0), count(*), sum({estimated}) FROM task WHERE {where} GROUP BY 1",
        params,
    ).fetchall()
    out: dict[Any, UsageSum] = {}
    for k, prompt, completion, cached, n, est in rows:
        if by == "day":
            k = int(k) * DAY_S - utc_offset_s
        out[k] = UsageSum(int(prompt), int(completion), int(cached), int(n), int(est or 0))
    return out


def by_endpoint(per_profile: Mapping[str, UsageSum], endpoint_of: Mapping[str, str | None]) -> dict[str, UsageSum]:
    """Per-profile sums folded by the profiles' endpoints (a profile with no endpoint, a web one or one
    no longer configured, is left out)."""
    out: dict[str, UsageSum] = {}
    for profile, s in per_profile.items():
        endpoint = endpoint_of.get(profile)
        if endpoint is not None:
            out[endpoint] = out.get(endpoint, UsageSum()) + s
    return out
