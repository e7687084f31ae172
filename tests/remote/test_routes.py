"""Every route of the remote API with a valid, a missing and a wrong token, on a real server on
127.0.0.1; what no response may carry (the token, the API key, CORS headers); the refusals."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import socket
import ssl
from pathlib import Path
from typing import Any

import httpx
import pytest

from mediadesk.config.remote import RemoteConfig
from mediadesk.remote import RemoteSetupError, check_binding
from mediadesk.remote.auth import FailureLimiter, read_token
from mediadesk.sim.api_server import ApiSimServer
from tests.remote.conftest import API_KEY, TOKEN, TOKEN_ENV, Desk, api_profile, remote_config
from tests.support import require, until

WEB = {"name": "chat", "kind": "web", "site": "sim"}

#: (method, path, JSON body, the status a valid token gets). Filled with ids made in the test.
ROUTES: list[tuple[str, str, Any, int]] = [
    ("GET", "/openapi.json", None, 200),
    ("GET", "/metrics", None, 200),
    ("GET", "/v1/status", None, 200),
    ("GET", "/v1/lanes", None, 200),
    ("GET", "/v1/endpoints", None, 200),
    ("POST", "/v1/lanes/pause", {"lane": "api"}, 200),
    ("POST", "/v1/lanes/resume", {"lane": "api"}, 200),
    ("GET", "/v1/accounts", None, 200),
    ("POST", "/v1/accounts/acct-a/disable", {}, 200),
    ("POST", "/v1/accounts/acct-a/enable", None, 200),
    ("POST", "/v1/accounts/acct-a/pause", None, 200),
    ("POST", "/v1/accounts/acct-a/resume", None, 200),
    ("GET", "/v1/tasks", None, 200),
    ("GET", "/v1/tasks/{task}", None, 200),
    ("POST", "/v1/tasks/cancel", {"task_ids": ["{task}"]}, 200),
    ("POST", "/v1/tasks/retry", {"task_ids": ["{task}"]}, 200),
    ("POST", "/v1/batches", "jsonl", 200),
    ("GET", "/v1/exceptions", None, 200),
    ("GET", "/v1/events?limit=0", None, 200),
    ("POST", "/v1/exceptions/{failed}/resolve", {"action": "drop", "note": "seen"}, 200),
]


async def _desk(open_desk: Any, sim: ApiSimServer, **remote: object) -> Desk:
    cfg = remote_config([api_profile("writer", sim, concurrency=2), WEB],
                        [{"name": "acct-a", "profile": "chat"}], **remote)
    return await open_desk(cfg)


def _fill(value: Any, ids: dict[str, str]) -> Any:
    text = json.dumps(value)
    for k, v in ids.items():
        text = text.replace("{" + k + "}", v)
    return json.loads(text)


async def _send(desk: Desk, route: tuple[str, str, Any, int], ids: dict[str, str], token: str | None,
                n: int) -> httpx.Response:
    method, path, body, _ = route
    path = _fill(path, ids)
    if body == "jsonl":
        line = json.dumps({"profile": "writer", "prompt": f"submitted over HTTP {n}"}) + "\n"
        return await desk.call(method, path, token=token, content=line.encode(),
                               headers={"Content-Type": "application/x-ndjson"})
    return await desk.call(method, path, token=token, json=_fill(body, ids) if body is not None else None)


async def test_every_route_wants_the_token(open_desk: Any, sim: ApiSimServer) -> None:
    desk = await _desk(open_desk, sim, auth_failures=1000)
    # one task that succeeds, one that fails to the exception queue (a bad request: the sim answers 400)
    sub = await desk.call("POST", "/v1/batches", params={"name": "seed.jsonl"}, content=(
        json.dumps({"profile": "writer", "prompt": "hello"}) + "\n"
        + json.dumps({"profile": "writer", "prompt": "broken [[sim:fail=302x9]]"}) + "\n").encode())
    assert sub.status_code == 200, sub.text
    ok_id, bad_id = sub.json()["task_ids"]
    await until(lambda: len(desk.sched.exceptions()) == 1, "the failed task in the exception queue")
    ids = {"task": ok_id, "failed": bad_id}

    doc = (await desk.call("GET", "/openapi.json")).json()
    assert doc["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer" and doc["security"] == [{"bearer": []}]
    documented = {(m.upper(), p) for p, item in doc["paths"].items() for m in item}
    assert documented | {("GET", "/openapi.json")} == {(m, p.split("?")[0].replace("{failed}", "{task_id}")
                                                        .replace("{task}", "{task_id}").replace("acct-a", "{name}"))
                                                       for m, p, _, _ in ROUTES}, "a route without a token test"
    for n, route in enumerate(ROUTES):
        missing = await _send(desk, route, ids, None, n)
        wrong = await _send(desk, route, ids, TOKEN[:-1] + ("x" if TOKEN[-1] != "x" else "y"), n)
        valid = await _send(desk, route, ids, TOKEN, n)
        assert (missing.status_code, wrong.status_code) == (401, 401), route
        assert missing.headers["www-authenticate"].startswith("Bearer")
        assert valid.status_code == route[3], (route, valid.text)
    # what the valid calls did
    rec = (await desk.call("GET", f"/v1/tasks/{bad_id}")).json()
    assert (rec["state"], rec["resolution"], rec["resolution_note"]) == ("failed", "drop", "seen")
    assert (await desk.call("GET", "/v1/exceptions")).json() == []
    detail = (await desk.call("GET", f"/v1/tasks/{ok_id}")).json()
    assert detail["result"] and detail["log"]
    # a wrong scheme is a wrong token too; nothing ever echoed the token or the API key
    basic = await desk.call("GET", "/v1/status", token=None, headers={"Authorization": f"Basic {TOKEN}"})
    assert basic.status_code == 401
    for body in desk.bodies:
        assert TOKEN.encode() not in body and API_KEY.encode() not in body
        assert TOKEN[4:].encode() not in body


async def test_the_actions_reach_the_scheduler(open_desk: Any, sim: ApiSimServer) -> None:
    desk = await _desk(open_desk, sim)
    await desk.call("POST", "/v1/lanes/pause", json={"lane": "api:writer"})
    sub = await desk.call("POST", "/v1/batches", content=b'{"profile": "writer", "prompt": "wait"}\n')
    tid = sub.json()["task_ids"][0]
    page = (await desk.call("GET", "/v1/tasks", params={"state": "pending", "profile": "writer"})).json()
    assert [t["task_id"] for t in page["tasks"]] == [tid]
    await until(lambda: any(ln.lane == "api:writer" and ln.paused for ln in desk.server.ctx.lanes.values()),
                "the paused lane in the stats")
    lanes = (await desk.call("GET", "/v1/lanes")).json()
    assert {ln["lane"]: ln["paused"] for ln in lanes} == {"api:writer": True, "web:acct-a": False}
    assert (await desk.call("POST", "/v1/tasks/cancel", json={"task_ids": [tid, "nope"]})).json() == {"changed": 1}
    assert (await desk.call("GET", f"/v1/tasks/{tid}")).json()["state"] == "canceled"
    assert (await desk.call("POST", "/v1/tasks/retry", json={"task_ids": [tid]})).json() == {"changed": 1}
    await desk.call("POST", "/v1/lanes/resume", json={})
    await until(lambda: desk.sched.store.states_of([tid])[tid][0] == "success", "the retried task to succeed")
    await desk.call("POST", "/v1/accounts/acct-a/disable", json={"cancel_running": True})
    acc = (await desk.call("GET", "/v1/accounts")).json()
    assert acc == [{"account": "acct-a", "enabled": False, "health": "ready", "last_error": None}]
    assert desk.sched.account_states()["acct-a"][0] is False
    caps = {c["name"]: c for c in (await desk.call("GET", "/v1/endpoints")).json()}
    assert caps["account:acct-a"]["limit"] == 1 and caps[next(k for k in caps if k != "account:acct-a")]["limit"] == 2
    # unknown things are 404 (never 401: the token was right), bad bodies 422
    assert (await desk.call("POST", "/v1/accounts/nope/enable")).status_code == 404
    assert (await desk.call("POST", "/v1/lanes/pause", json={"lane": "api:nope"})).status_code == 404
    assert (await desk.call("GET", "/v1/tasks/nope")).status_code == 404
    assert (await desk.call("POST", "/v1/tasks/cancel", json={"task_ids": []})).status_code == 422
    assert (await desk.call("POST", f"/v1/exceptions/{tid}/resolve", json={"action": "drop"})).status_code == 409


async def test_paging_and_filters(open_desk: Any, sim: ApiSimServer) -> None:
    desk = await _desk(open_desk, sim)
    await desk.call("POST", "/v1/lanes/pause", json={})
    body = "".join(json.dumps({"profile": "writer", "prompt": f"p{i}"}) + "\n" for i in range(25)).encode()
    ids = (await desk.call("POST", "/v1/batches", params={"name": "b1"}, content=body)).json()["task_ids"]
    seen: list[str] = []
    after = 0
    while True:
        page = (await desk.call("GET", "/v1/tasks", params={"batch": "b1", "limit": 10, "after": after})).json()
        seen += [t["task_id"] for t in page["tasks"]]
        if page["next_after"] is None:
            break
        after = page["next_after"]
    assert seen == ids
    assert (await desk.call("GET", "/v1/tasks", params={"batch": "other"})).json()["tasks"] == []
    assert (await desk.call("GET", "/v1/tasks", params={"limit": 1001})).status_code == 422


async def test_cors_stays_closed(open_desk: Any, sim: ApiSimServer) -> None:
    desk = await _desk(open_desk, sim)
    pre = await desk.call("OPTIONS", "/v1/status", token=None, headers={
        "Origin": "http://evil.example", "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "authorization"})
    assert pre.status_code == 405
    got = await desk.call("GET", "/v1/status", headers={"Origin": "http://evil.example"})
    assert got.status_code == 200
    for resp in (pre, got):
        assert not [h for h in resp.headers if h.lower().startswith("access-control-")]
    assert got.headers["cache-control"] == "no-store"


async def test_failed_tokens_are_rate_limited_per_address(open_desk: Any, sim: ApiSimServer) -> None:
    desk = await _desk(open_desk, sim, auth_failures=3, auth_window_s=30)
    codes = [(await desk.call("GET", "/v1/status", token="wrong-token-value")).status_code for _ in range(3)]
    assert codes == [401, 401, 401]
    limited = await desk.call("GET", "/v1/status", token="wrong-token-value")
    assert limited.status_code == 429 and 1 <= int(limited.headers["retry-after"]) <= 30
    # the right token from that address waits too: guessing cannot go on behind a valid client
    assert (await desk.call("GET", "/v1/status")).status_code == 429
    assert desk.server.limiter.total == 3


def test_limiter_window_slides() -> None:
    now = [100.0]
    lim = FailureLimiter(2, 10.0, clock=lambda: now[0])
    lim.fail("a")
    now[0] = 104.0
    lim.fail("a")
    assert lim.blocked_for("a") == pytest.approx(6.0) and lim.blocked_for("b") == 0
    now[0] = 110.5
    assert lim.blocked_for("a") == 0


def test_binding_beyond_loopback_needs_tls_or_the_flag() -> None:
    for host in ("127.0.0.1", "::1", "localhost", "127.0.0.2"):
        check_binding(host, tls=False, allow_remote=False)
    for host in ("0.0.0.0", "192.168.1.5", "::", "desk.example"):
        with pytest.raises(RemoteSetupError, match="refusing to listen"):
            check_binding(host, tls=False, allow_remote=False)
        check_binding(host, tls=True, allow_remote=False)
        check_binding(host, tls=False, allow_remote=True)


async def test_the_server_refuses_to_start_beyond_loopback(open_desk: Any, sim: ApiSimServer) -> None:
    desk = await _desk(open_desk, sim)
    from mediadesk.remote import RemoteServer

    with pytest.raises(RemoteSetupError, match=r"refusing to listen on 0\.0\.0\.0"):
        await RemoteServer(desk.sched, host="0.0.0.0", port=0).start()


def test_the_token_is_read_like_the_api_keys() -> None:
    with pytest.raises(RemoteSetupError, match="needs a token"):
        read_token(RemoteConfig())
    cfg = RemoteConfig(token_env=TOKEN_ENV)
    with pytest.raises(RemoteSetupError, match=f"set the environment variable {TOKEN_ENV}") as err:
        read_token(cfg, {})
    assert TOKEN not in str(err.value)
    with pytest.raises(RemoteSetupError, match="too short"):
        read_token(cfg, {TOKEN_ENV: "short"})
    assert read_token(cfg, {TOKEN_ENV: f"  {TOKEN}\n"}) == TOKEN


async def test_a_taken_port_is_a_clear_error(open_desk: Any, sim: ApiSimServer) -> None:
    desk = await _desk(open_desk, sim)
    from mediadesk.remote import RemoteServer

    port = int(desk.server.url.rsplit(":", 1)[1])
    with pytest.raises(RemoteSetupError, match=f"cannot listen on 127.0.0.1:{port}"):
        await RemoteServer(desk.sched, port=port).start()
    await asyncio.sleep(0)


async def test_the_console_setting_tells_why_the_api_did_not_start(open_desk: Any, sim: ApiSimServer,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from mediadesk.remote import start_for_console
    from mediadesk.scheduler.events import Notice

    desk = await _desk(open_desk, sim)
    notices: list[str] = []
    desk.sched.bus.subscribe(lambda ev: notices.append(ev.message) if isinstance(ev, Notice) else None)
    assert await start_for_console(desk.sched) is None  # [remote] enabled is false
    cfg = desk.sched.config.remote.model_copy(update={"enabled": True})
    monkeypatch.setattr(desk.sched, "config", desk.sched.config.model_copy(update={"remote": cfg}))
    monkeypatch.delenv(TOKEN_ENV)
    assert await start_for_console(desk.sched) is None
    assert notices == ["remote API not started: the remote API token is empty: set the environment variable "
                       + TOKEN_ENV]


def _self_signed(tmp: Path) -> tuple[Path, Path]:
    import datetime
    import ipaddress

    require(importlib.util.find_spec("cryptography"), "cryptography (keyring's SecretStorage brings it) makes the cert")
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = tmp / "cert.pem", tmp / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


async def test_tls_when_configured(open_desk: Any, sim: ApiSimServer, tmp_path: Path) -> None:
    cert, key = _self_signed(tmp_path)
    desk = await _desk(open_desk, sim, tls_cert=str(cert), tls_key=str(key))
    assert desk.server.url.startswith("https://127.0.0.1:")
    async with httpx.AsyncClient(base_url=desk.server.url, verify=ssl.create_default_context(cafile=cert),
                                 trust_env=False) as c:
        ok = await c.get("/v1/status", headers={"Authorization": f"Bearer {TOKEN}"})
        assert ok.status_code == 200
        assert (await c.get("/v1/status")).status_code == 401
    async with httpx.AsyncClient(base_url=desk.server.url.replace("https", "http"), trust_env=False) as plain:
        with pytest.raises(httpx.HTTPError):
            await plain.get("/v1/status", headers={"Authorization": f"Bearer {TOKEN}"})


async def test_answers_are_not_held_back_by_nagle(open_desk: Any, sim: ApiSimServer) -> None:
    """A small answer goes out in two writes (headers, body): without TCP_NODELAY on the accepted
    socket the second waits for the client's delayed ACK, ~40 ms per request on a kept-alive one."""
    desk = await _desk(open_desk, sim)
    assert (await desk.call("GET", "/v1/status")).status_code == 200  # a kept-alive connection now
    assert desk.server._server is not None
    conns = list(desk.server._server.server_state.connections)
    assert conns
    for proto in conns:
        sock = proto.transport.get_extra_info("socket")
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
