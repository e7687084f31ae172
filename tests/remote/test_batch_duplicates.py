"""``POST /v1/batches?duplicates=...``: the same choice as the console's and the CLI's for rows that repeat a
finished task (a real scheduler, the API on 127.0.0.1, a real simulator)."""

from __future__ import annotations

from typing import Any

from mediadesk.sim.api_server import ApiSimServer
from tests.remote.conftest import api_profile, remote_config

BODY = b'{"profile": "writer", "prompt": "a tagline for tea"}\n'


async def test_reuse_and_again_as_a_query_parameter(open_desk: Any, sim: ApiSimServer) -> None:
    desk = await open_desk(remote_config([api_profile("writer", sim)]))
    (first,) = (await desk.call("POST", "/v1/batches", params={"name": "monday"}, content=BODY)).json()["task_ids"]
    await desk.sched.wait_idle()
    sent = sim.stats()["requests_total"]

    skipped = (await desk.call("POST", "/v1/batches", content=BODY)).json()
    assert (skipped["task_ids"], skipped["added"], skipped["existing"]) == ([first], 0, 1)  # the default: skip
    reused = await desk.call("POST", "/v1/batches", params={"duplicates": "reuse"}, content=BODY)
    (copy,) = reused.json()["task_ids"]
    assert reused.status_code == 200 and copy != first
    rec, old = [(await desk.call("GET", f"/v1/tasks/{t}")).json() for t in (copy, first)]
    assert rec["state"] == "success" and rec["result"] == old["result"] and rec["result"]
    await desk.sched.wait_idle()
    assert sim.stats()["requests_total"] == sent  # nothing sent

    (again,) = (await desk.call("POST", "/v1/batches", params={"duplicates": "again"}, content=BODY)).json()["task_ids"]
    await desk.sched.wait_idle()
    assert again not in (first, copy) and sim.stats()["requests_total"] == sent + 1
    assert (await desk.call("POST", "/v1/batches", params={"duplicates": "twice"}, content=BODY)).status_code == 422
