"""Events out, end to end: a real receiver on 127.0.0.1 that is down when the events happen and up
later; deliveries arrive signed, after retries; a command hook gets the event JSON on stdin."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import socket
import sys
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from mediadesk.remote.delivery import SIGNATURE_HEADER, backoff_s
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.remote.conftest import API_KEY, TOKEN, api_profile, remote_config
from tests.support import until

SECRET_ENV = "MEDIADESK_TEST_HOOK_SECRET"
SECRET = "hook-secret-for-tests-0123456789"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Receiver:
    """A webhook receiver (aiohttp) that records what it got; started when the test says so."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.got: list[tuple[dict[str, str], bytes]] = []
        self._runner: web.AppRunner | None = None

    async def _hook(self, request: web.Request) -> web.Response:
        self.got.append((dict(request.headers), await request.read()))
        return web.Response(status=204)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/hook", self._hook)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def events(self) -> dict[str, dict[str, Any]]:
        return {json.loads(body)["event"]: json.loads(body) for _h, body in self.got}


@pytest.fixture
async def down_sim() -> Any:
    """An endpoint that is down (503 without Retry-After: its breaker opens at once)."""
    async with ApiSimServer(ApiSimConfig(api_key=API_KEY, retry_after_s=None)) as server:
        server.set_outage("503")
        yield server


async def test_webhooks_arrive_signed_after_the_receiver_comes_up(
    open_desk: Any, sim: ApiSimServer, down_sim: ApiSimServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SECRET_ENV, SECRET)
    port = free_port()
    out_dir = tmp_path / "hook-out"
    out_dir.mkdir()
    program = [sys.executable, "-c",
               "import sys, json, pathlib; body = sys.stdin.buffer.read(); e = json.loads(body); "
               f"pathlib.Path({str(out_dir)!r}, e['id'] + '.json').write_bytes(body)"]
    cfg = remote_config(
        [api_profile("writer", sim), api_profile("down", down_sim), {"name": "chat", "kind": "web", "site": "sim"}],
        [{"name": "acct-a", "profile": "chat"}],
        webhooks=[{"url": f"http://127.0.0.1:{port}/hook", "secret_env": SECRET_ENV, "max_attempts": 100,
                   "backoff_base_s": 0.05, "backoff_max_s": 0.2,
                   "events": ["batch_done", "task_failed", "account_needs_person", "endpoint_stopped"]}],
        commands=[{"program": program, "events": ["batch_done", "account_needs_person"]}],
    )
    desk = await open_desk(cfg)
    rows = [{"profile": "writer", "prompt": "one"}, {"profile": "writer", "prompt": "two"},
            {"profile": "writer", "prompt": "bad [[sim:fail=302x9]]"}]
    body = "".join(json.dumps(r) + "\n" for r in rows).encode()
    sub = await desk.call("POST", "/v1/batches", params={"name": "night.jsonl"}, content=body)
    assert sub.status_code == 200, sub.text
    await desk.call("POST", "/v1/batches", params={"name": "other"}, content=b'{"profile": "down", "prompt": "x"}\n')
    desk.web.state = ("needs_login", "the site logged us out")

    counts = desk.server.outbox.counts
    await until(lambda: counts[("webhook", "retried")] >= 3, "a few failed delivery attempts", limit_s=30)
    assert counts[("webhook", "delivered")] == 0
    receiver = Receiver(port)
    await receiver.start()
    try:
        await until(lambda: {"batch_done", "task_failed", "account_needs_person", "endpoint_stopped"}
                    <= set(receiver.events()), "the four events at the receiver", limit_s=30)
    finally:
        await receiver.stop()
    for headers, raw in receiver.got:
        want = "sha256=" + hmac.new(SECRET.encode(), raw, hashlib.sha256).hexdigest()
        assert hmac.compare_digest(headers[SIGNATURE_HEADER], want)
        assert headers["X-MediaDesk-Event"] == json.loads(raw)["event"]
        assert headers["X-MediaDesk-Delivery"] == json.loads(raw)["id"]
        assert TOKEN.encode() not in raw and API_KEY.encode() not in raw and SECRET.encode() not in raw
    assert int(receiver.got[0][0]["X-MediaDesk-Attempt"]) > 1  # it was down: delivered on a retry
    ev = receiver.events()
    assert ev["batch_done"]["data"] == {"batch": "night.jsonl", "counts": {"success": 2, "failed": 1}, "tasks": 3}
    bad_id = sub.json()["task_ids"][2]
    assert ev["task_failed"]["data"]["task_id"] == bad_id
    assert ev["task_failed"]["data"]["error_kind"] == "config"
    assert ev["account_needs_person"]["data"]["account"] == "acct-a"
    assert ev["endpoint_stopped"]["data"]["endpoint"] == next(
        k for k in desk.sched.capacity_views() if k.startswith("127.0.0.1") and str(down_sim.port) in k)
    # the command hook: the same envelopes, on stdin, for the kinds it asked for
    await until(lambda: counts[("command", "delivered")] == 2, "the command hook's two runs")
    got = sorted(json.loads(p.read_bytes())["event"] for p in out_dir.glob("*.json"))
    assert got == ["account_needs_person", "batch_done"]


def test_backoff_grows_capped_with_jitter() -> None:
    rng = random.Random(3)
    pauses = [[backoff_s(n, 1.0, 30.0, rng) for _ in range(200)] for n in (1, 2, 3, 6, 20)]
    for n, (cap, got) in enumerate(zip((1, 2, 4, 30, 30), pauses, strict=True)):
        assert min(got) >= cap / 2 and max(got) <= cap, n
        assert max(got) - min(got) > cap / 4  # spread: senders do not come back together
