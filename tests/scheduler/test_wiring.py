"""One owner for each concurrency: a profile's share lives in the scheduler's wiring (its lane reads
it there), an endpoint's gate in the endpoint's capacity; a console or Setup edit changes the owner
and every reader follows at once."""

from __future__ import annotations

from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler
from tests.support import make_config


def _lane(s: Scheduler, name: str):  # type: ignore[no-untyped-def]
    return next(lane for lane in s.lanes if lane.name == name)


async def test_a_profile_share_and_an_endpoint_gate_each_have_one_owner(workspace: Workspace) -> None:
    cfg = make_config(
        [
            {"name": "a", "kind": "api", "endpoint": "x", "model": "m", "concurrency": 2},
            {"name": "b", "kind": "api", "endpoint": "x", "model": "m"},
            {"name": "c", "kind": "api", "base_url": "http://127.0.0.1:9/v1", "model": "m", "concurrency": 4},
            {"name": "d", "kind": "api", "base_url": "http://127.0.0.1:9/v1", "model": "m", "concurrency": 3},
        ],
        endpoints=[{"name": "x", "base_url": "http://127.0.0.1:9/v1", "concurrency": 4}],
    )
    async with Scheduler(cfg, workspace) as s:
        implicit = s.wiring.endpoint_of["c"]
        assert (_lane(s, "api:a").capacity, _lane(s, "api:b").capacity) == (2, 3)
        assert (s.endpoint_limit("x"), s.capacities["x"].limit) == (4, 4)
        assert (s.endpoint_limit(implicit), s.capacities[implicit].limit) == (3, 3)  # the smallest share

        s.set_profile_setting("a", concurrency=5)
        assert (_lane(s, "api:a").capacity, s.profile_view("a").concurrency) == (5, 5)
        assert s.capacities["x"].limit == 4  # an explicit endpoint's gate is its own

        s.set_endpoint_concurrency("x", 1)
        assert (s.endpoint_limit("x"), s.capacities["x"].limit, s.capacity_views()["x"].limit) == (1, 1, 1)
        assert _lane(s, "api:a").capacity == 5

        s.set_profile_setting("d", concurrency=2)  # an implicit endpoint's gate follows its smallest share
        assert (_lane(s, "api:d").capacity, s.endpoint_limit(implicit), s.capacities[implicit].limit) == (2, 2, 2)
        s.set_endpoint_concurrency(implicit, 5)  # Setup edits explicit endpoints only
        assert s.capacities[implicit].limit == 2
