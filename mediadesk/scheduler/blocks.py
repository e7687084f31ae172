"""Why a web account takes no task now, and what would change that (the "cannot serve" message)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
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


def quiet_reason(lane: Lane, now: float) -> str | None:
    """"outside its active hours (22:00-07:00); waits until 22:00", or None inside them."""
    opening = lane.opens_at(now)
    if opening is None or lane.settings.hours is None:
        return None
    return f"outside its active hours ({lane.settings.hours.text}); waits until {_hm(opening, now)}"


def _hm(ts: float, now: float) -> str:
    """A local time, with the day when it is not within the next 24 hours' same date."""
    same_day = time.localtime(ts)[:3] == time.localtime(now)[:3]
    return time.strftime("%H:%M" if same_day else "%a %H:%M", time.localtime(ts))


def account_blocks(
    lanes: Iterable[Lane], capacities: Mapping[str, Capacity], team: TeamLink | None, profile: str,
    now: float | None = None,
) -> list[AccountBlock]:
    """Every account of ``profile`` with why it takes no task now (for the "cannot serve" message):
    the operator's switch first, then what the backend says (needs login since ..., profile held,
    ...), then its quiet hours, then an open breaker. A running task is never cut by quiet hours."""
    now = time.time() if now is None else now
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
        quiet = quiet_reason(lane, now)
        if said is None and quiet is not None:
            said = (quiet, "wait")
        cap = capacities.get(f"account:{lane.account}")
        if said is None and cap is not None and cap.view().breaker != "closed":
            view = cap.view()
            said = (f"breaker {view.breaker.replace('_', '-')} ({view.breaker_reason or 'failures'}); "
                    f"next probe at {_at(view.next_probe_at)}", "wait")
        if said is None:
            said = (f"{health}" + (f" ({err})" if err else ""), "none")
        out.append(AccountBlock(lane.account, said[0], said[1]))
    return out


def lane_waits(lanes: Iterable[Lane], now: float, has_pending: Callable[[tuple[str, ...]], bool]) -> dict[str, str]:
    """{lane name: what it waits for} for the enabled lanes that have pending work and start none of
    it now for a reason that passes by itself (quiet hours): what ``mediadesk run`` prints."""
    out: dict[str, str] = {}
    for lane in lanes:
        if not lane.enabled:
            continue
        quiet = quiet_reason(lane, now)
        if quiet is not None and has_pending(lane.profiles):
            out[lane.name] = quiet
    return out
