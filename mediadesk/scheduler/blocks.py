"""Why a web account takes no task now, and what would change that (the "cannot serve" message)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from mediadesk.scheduler.capacity import Capacity
from mediadesk.scheduler.lane import Lane
from mediadesk.scheduler.team_link import TeamLink


@dataclass(frozen=True)
class AccountBlock:
    """Why one web account takes no task now, and what would change that. ``action``: "enable"
    (switched off by the operator), "login" (an operator must log in), "wait" (it recovers by itself:
    breaker probe, profile held by someone else, a login in progress), "fix" (something to repair),
    "none" (it can take tasks)."""

    account: str
    reason: str
    action: str


def _at(ts: float | None) -> str:
    if ts is None:
        return "?"
    return time.strftime("%H:%M:%S", time.localtime(ts))


def account_blocks(
    lanes: Iterable[Lane], capacities: Mapping[str, Capacity], team: TeamLink | None, profile: str
) -> list[AccountBlock]:
    """Every account of ``profile`` with why it takes no task now (for the "cannot serve" message):
    the operator's switch first, then what the backend says (needs login since ..., profile held,
    ...), then an open breaker."""
    out: list[AccountBlock] = []
    for lane in lanes:
        if lane.account is None or profile not in lane.profiles:
            continue
        if not lane.enabled:
            out.append(AccountBlock(lane.account, "disabled by the operator", "enable"))
            continue
        explain = lane.backend.unavailable_reason
        said = explain() if explain is not None else None
        health, err = lane.backend.health()
        holder = None if team is None else team.holders.get(lane.account)
        if said is None and team is not None and holder is not None and not team.holds(lane.account):
            said = (f"in use by the desktop on {holder.host} (its lease ends in {holder.expires_in_s:.0f} s "
                    "unless it renews it)", "wait")
        if said is None and health == "needs_login":
            said = (f"needs login ({err})" if err else "needs login", "login")
        cap = capacities.get(f"account:{lane.account}")
        if said is None and cap is not None and cap.view().breaker != "closed":
            view = cap.view()
            said = (f"breaker {view.breaker.replace('_', '-')} ({view.breaker_reason or 'failures'}); "
                    f"next probe at {_at(view.next_probe_at)}", "wait")
        if said is None:
            said = (f"{health}" + (f" ({err})" if err else ""), "none")
        out.append(AccountBlock(lane.account, said[0], said[1]))
    return out
