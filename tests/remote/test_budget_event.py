"""``budget_reached``: the event router announces a cap that stopped a lane once, and again only after
the cap was raised and reached anew (lane stats as the scheduler publishes them)."""

from __future__ import annotations

from typing import Any

from mediadesk.remote.outbound import EventRouter
from mediadesk.scheduler.events import LaneStats

KEY = "endpoint:reseller:day:USD"


def stats(lane: str, key: str | None) -> LaneStats:
    return LaneStats(lane=lane, kind="api", profiles=(lane.split(":")[1],), capacity=2, running=(), paused=False,
                     available=True, health="ready", last_error=None, completed=0,
                     budget_stop=None if key is None else "budget reached: endpoint reseller: $5.00 per day",
                     budget_key=key)


def test_budget_reached_once_per_stop() -> None:
    out: list[dict[str, Any]] = []
    router = EventRouter(None, out.append)  # type: ignore[arg-type]  # on_event needs no context
    router.on_event(stats("api:a", None))
    assert out == []
    router.on_event(stats("api:a", KEY))
    router.on_event(stats("api:a", KEY))
    router.on_event(stats("api:b", KEY))  # the same cap stopping the endpoint's other lane: no news
    assert [e["event"] for e in out] == ["budget_reached"]
    assert out[0]["data"] == {"budget": KEY, "lane": "api:a", "profiles": ["a"],
                              "message": "budget reached: endpoint reseller: $5.00 per day"}
    router.on_event(stats("api:a", None))
    router.on_event(stats("api:b", None))  # raised: both lanes go on
    router.on_event(stats("api:a", KEY))  # reached again
    assert [e["event"] for e in out] == ["budget_reached", "budget_reached"]
