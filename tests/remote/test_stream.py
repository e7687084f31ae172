"""``GET /v1/events``: Server-Sent Events on a real server, read by httpx as a script would."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from mediadesk.sim.api_server import ApiSimServer
from tests.remote.conftest import TOKEN, api_profile, remote_config
from tests.support import until

AUTH = {"Authorization": f"Bearer {TOKEN}"}


async def sse(lines: AsyncIterator[str]) -> AsyncIterator[tuple[str, dict[str, Any]]]:
    event, data = "", ""
    async for line in lines:
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            data = line[6:]
        elif not line and event:
            yield event, json.loads(data)
            event, data = "", ""


async def test_a_script_follows_a_batch_on_the_event_stream(open_desk: Any, sim: ApiSimServer) -> None:
    desk = await open_desk(remote_config([api_profile("writer", sim)]))
    got: list[tuple[str, dict[str, Any]]] = []
    async with desk.client.stream("GET", "/v1/events", params={"events": "batch_done,task_changed"},
                                  headers=AUTH) as resp:
        assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/event-stream")
        events = sse(resp.aiter_lines())
        assert await anext(events) == ("ready", {})
        body = b'{"profile": "writer", "prompt": "a"}\n{"profile": "writer", "prompt": "b"}\n'
        ids = (await desk.call("POST", "/v1/batches", params={"name": "s1"}, content=body)).json()["task_ids"]
        async for kind, env in events:
            got.append((kind, env))
            if kind == "batch_done":
                break
    changes = [(e["data"]["task_id"], e["data"]["state"]) for k, e in got if k == "task_changed"]
    for tid in ids:
        assert [s for t, s in changes if t == tid][-1] == "success"
        assert "running" in [s for t, s in changes if t == tid]
    assert got[-1][1]["data"] == {"batch": "s1", "counts": {"success": 2}, "tasks": 2}
    await until(lambda: desk.server.streams._subs == {}, "the closed stream to leave nothing behind")


async def test_the_stream_checks_its_kinds_and_ends_after_limit(open_desk: Any, sim: ApiSimServer) -> None:
    desk = await open_desk(remote_config([api_profile("writer", sim)]))
    bad = await desk.call("GET", "/v1/events", params={"events": "batch_done,nope"})
    assert bad.status_code == 422 and "nope" in bad.text
    async with desk.client.stream("GET", "/v1/events", params={"events": "task_changed", "limit": 1},
                                  headers=AUTH) as resp:
        events = sse(resp.aiter_lines())
        assert await anext(events) == ("ready", {})
        await desk.call("POST", "/v1/batches", content=b'{"profile": "writer", "prompt": "one"}\n')
        rest = [kind async for kind, _ in events]
    assert rest == ["task_changed"]  # one event, then the end of the stream
