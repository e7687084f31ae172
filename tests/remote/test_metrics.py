"""``/metrics`` read back with prometheus_client's own parser after a real batch."""

from __future__ import annotations

import json
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from mediadesk.sim.api_server import ApiSimServer
from tests.remote.conftest import api_profile, remote_config
from tests.support import until


def samples(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out.setdefault(s.name, []).append((dict(s.labels), s.value))
    return out


def value(got: dict[str, list[tuple[dict[str, str], float]]], name: str, **labels: str) -> float:
    hits = [v for lab, v in got[name] if all(lab.get(k) == want for k, want in labels.items())]
    assert len(hits) == 1, (name, labels, got.get(name))
    return hits[0]


async def test_metrics_parse_and_match_the_store(open_desk: Any, sim: ApiSimServer) -> None:
    cfg = remote_config([api_profile("writer", sim, concurrency=2), api_profile("spare", sim)])
    desk = await open_desk(cfg)
    body = "".join(json.dumps({"profile": "writer", "prompt": f"m{i}"}) + "\n" for i in range(6))
    body += json.dumps({"profile": "writer", "prompt": "bad [[sim:fail=302x9]]"}) + "\n"
    assert (await desk.call("POST", "/v1/batches", content=body.encode())).status_code == 200
    await desk.call("POST", "/v1/lanes/pause", json={"lane": "api:spare"})
    await desk.call("POST", "/v1/batches", content=b'{"profile": "spare", "prompt": "later"}\n')
    await until(lambda: desk.sched.store.counts().get(("writer", "success"), 0) == 6
                and desk.sched.store.counts().get(("writer", "failed"), 0) == 1, "the writer batch to end")
    await until(lambda: getattr(desk.server.ctx.lanes.get("api:spare"), "paused", False), "the paused lane's stats")
    resp = await desk.call("GET", "/metrics")
    assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/plain; version=0.0.4")
    got = samples(resp.text)
    assert value(got, "mediadesk_tasks", kind="api", profile="writer", state="success") == 6
    assert value(got, "mediadesk_tasks", kind="api", profile="writer", state="failed") == 1
    assert value(got, "mediadesk_tasks", kind="api", profile="spare", state="pending") == 1
    assert value(got, "mediadesk_queue_depth", profile="spare") == 1
    assert value(got, "mediadesk_queue_depth", profile="writer") == 0
    assert value(got, "mediadesk_lane_paused", lane="api:spare") == 1
    assert value(got, "mediadesk_lane_in_flight", lane="api:writer") == 0
    endpoint = next(iter(desk.sched.capacity_views()))
    assert value(got, "mediadesk_gate_limit", capacity=endpoint) == 2  # the smallest concurrency on it
    assert value(got, "mediadesk_gate_current_limit", capacity=endpoint) == 2
    assert value(got, "mediadesk_breaker_state", capacity=endpoint, state="closed") == 1
    assert value(got, "mediadesk_refusals_total", capacity=endpoint) == 0
    assert value(got, "mediadesk_team_desktops") == 0
    assert value(got, "mediadesk_run_seconds_count", lane="api:writer") == 6
    buckets = [(float(lab["le"]), v) for lab, v in got["mediadesk_run_seconds_bucket"] if lab["lane"] == "api:writer"]
    assert buckets == sorted(buckets) and buckets[-1] == (float("inf"), 6)
    assert value(got, "mediadesk_remote_auth_failures_total") == 0
    await desk.call("GET", "/metrics", token="not-the-token-at-all")
    got = samples((await desk.call("GET", "/metrics")).text)
    assert value(got, "mediadesk_remote_auth_failures_total") == 1
