"""The chat simulator's answer transports over plain HTTP / a WebSocket client (no browser): SSE and
WebSocket frames carry the same events as the NDJSON stream, refusals included; a pause mid-answer
keeps the stream open with keep-alives only."""

from __future__ import annotations

import argparse
import json
import ssl
import time

import aiohttp
import httpx
import pytest

from mediadesk.sim.web_server import (
    SESSION_COOKIE,
    WebSimConfig,
    WebSimServer,
    add_arguments,
    answer_tokens,
    config_from_args,
)

#: The simulators speak plain HTTP; httpx builds a TLS context for every client (~0.2 s each on a loaded
#: machine) unless given one: this one serves them all.
TLS = ssl.create_default_context()


async def login(sim: WebSimServer) -> str:
    async with httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c:
        r = await c.post("/login", data={"account": "a", "password": "pw"})
        return r.cookies[SESSION_COOKIE]


async def test_sse_carries_the_answer_as_data_events() -> None:
    async with WebSimServer(WebSimConfig(time_scale=0.01, fixed_run_s=10, answer_tokens=6, transport="sse")) as sim:
        token = await login(sim)
        async with httpx.AsyncClient(verify=TLS, base_url=sim.base_url, cookies={SESSION_COOKIE: token}) as c:
            r = await c.post("/api/generate/sse", json={"prompt": "sse please", "request_id": "r1"})
            assert r.headers["content-type"].startswith("text/event-stream")
            events = [json.loads(line[6:]) for line in r.text.split("\n\n") if line.startswith("data: ")]
        assert events[0]["t"] == "start" and events[-1] == {"t": "done"}
        assert "".join(e["d"] for e in events if e["t"] == "token") == "".join(answer_tokens("sse please", 6))
        async with httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as anon:  # no session: the same 401
            r = await anon.post("/api/generate/sse", json={"prompt": "x"})
            assert r.status_code == 401 and r.json()["error"] == "session_expired"
        assert sim.stats()["generations_completed"] == 1


async def test_websocket_frames_per_run_and_refusals() -> None:
    config = WebSimConfig(time_scale=0.01, fixed_run_s=10, answer_tokens=6, transport="websocket", pause_mid_s=0.6)
    async with WebSimServer(config) as sim:
        token = await login(sim)
        async with (
            aiohttp.ClientSession(headers={"Cookie": f"{SESSION_COOKIE}={token}"}) as s,
            s.ws_connect(f"{sim.base_url}/api/ws") as ws,
        ):
            await ws.send_str(json.dumps({"t": "generate", "prompt": "ws please", "request_id": "r1"}))
            frames, gaps, last = [], [], time.monotonic()
            while not frames or frames[-1]["t"] != "eof":
                frames.append(json.loads((await ws.receive()).data))
                now = time.monotonic()
                if frames[-1]["t"] == "token":
                    gaps.append(now - last)
                    last = now
            assert {f["rid"] for f in frames} == {"r1"}
            kinds = [f["t"] for f in frames]
            assert kinds[0] == "start" and kinds[-2:] == ["done", "eof"] and "ping" in kinds  # pings in the pause
            assert "".join(f["d"] for f in frames if f["t"] == "token") == "".join(answer_tokens("ws please", 6))
            assert max(gaps) >= 0.6  # the pause, in real seconds
        async with aiohttp.ClientSession() as anon, anon.ws_connect(f"{sim.base_url}/api/ws") as ws:
            await ws.send_str(json.dumps({"t": "generate", "prompt": "x", "request_id": "r2"}))
            frame = json.loads((await ws.receive()).data)
            assert frame["t"] == "http_error" and frame["status"] == 401 and frame["rid"] == "r2"


def test_transport_options_and_validation() -> None:
    p = argparse.ArgumentParser()
    add_arguments(p)
    cfg = config_from_args(p.parse_args(["--transport", "websocket", "--pause-mid-s", "3"]))
    assert cfg.transport == "websocket" and cfg.pause_mid_s == 3.0
    with pytest.raises(ValueError, match="transport"):
        WebSimConfig(transport="carrier-pigeon")
