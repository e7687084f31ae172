"""The API simulator, driven over real HTTP with httpx (it is a test instrument: it must not lie)."""

from __future__ import annotations

import argparse
import asyncio
import json
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest
from httpx_sse import aconnect_sse

from mediadesk.sim.api_cli import add_arguments, config_from_args, serve_from_args
from mediadesk.sim.api_server import (
    TASK_HEADER,
    ApiSimConfig,
    ApiSimServer,
    answer_for,
    key_hash,
    prompt_key,
)
from tests.support import until

#: The simulators speak plain HTTP; httpx builds a TLS context for every client (~0.2 s each on a loaded
#: machine) unless given one: this one serves them all.
TLS = ssl.create_default_context()

SimFactory = Callable[..., Awaitable[ApiSimServer]]


@pytest.fixture
async def make_sim() -> AsyncIterator[SimFactory]:
    servers: list[ApiSimServer] = []

    async def factory(**kwargs: Any) -> ApiSimServer:
        sim = ApiSimServer(ApiSimConfig(**kwargs))
        await sim.start()
        servers.append(sim)
        return sim

    yield factory
    for sim in servers:
        await sim.stop()


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(verify=TLS, timeout=10.0) as c:
        yield c


def body(prompt: str, *, system: str | None = None, stream: bool = False) -> dict[str, Any]:
    messages = [{"role": "system", "content": system}] if system is not None else []
    messages.append({"role": "user", "content": prompt})
    return {"model": "sim-model", "messages": messages, "stream": stream}


async def test_non_stream_answer_and_usage(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim()
    r = await client.post(f"{sim.base_url}/chat/completions", json=body("写一首诗"))
    assert r.status_code == 200
    data = r.json()
    content = data["choices"][0]["message"]["content"]
    assert content == answer_for("写一首诗") == "答复: 写一首诗 ✅"
    assert data["choices"][0]["finish_reason"] == "stop"
    assert data["usage"]["total_tokens"] > 0
    task = sim.stats()["per_task"][prompt_key("写一首诗")]
    assert task["last_answer"] == content
    assert task["system_message_seen"] is False


async def test_stream_answer_in_chunks(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim(chunks=5, latency=(0.01, 0.02))
    parts: list[str] = []
    finish: list[str] = []
    done = False
    async with aconnect_sse(
        client, "POST", f"{sim.base_url}/chat/completions", json=body("stream me", stream=True)
    ) as es:
        assert es.response.status_code == 200
        async for sse in es.aiter_sse():
            if sse.data == "[DONE]":
                done = True
                break
            choice = json.loads(sse.data)["choices"][0]
            if choice["delta"].get("content"):
                parts.append(choice["delta"]["content"])
            if choice["finish_reason"]:
                finish.append(choice["finish_reason"])
    assert done
    assert finish == ["stop"]
    assert len(parts) == 5
    assert "".join(parts) == answer_for("stream me")
    assert sim.stats()["per_task"][prompt_key("stream me")]["last_answer"] == "".join(parts)


async def test_quota_refuses_with_retry_after(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim(quota=2, retry_after_s=1.5)
    url = f"{sim.base_url}/chat/completions"
    # Two hanging requests hold both slots, deterministically.
    holders = [asyncio.create_task(client.post(url, json=body(f"hold {i} [[sim:hang]]"))) for i in range(2)]
    await until(lambda: sim.stats()["in_flight"] == 2, "2 requests in flight")
    r = await client.post(url, json=body("third"))
    assert r.status_code == 429
    assert r.headers["Retry-After"] == "1.5"
    assert "error" in r.json()
    for t in holders:
        t.cancel()
    await asyncio.gather(*holders, return_exceptions=True)
    await until(lambda: sim.stats()["in_flight"] == 0, "no request in flight")
    r = await client.post(url, json=body("third"))
    assert r.status_code == 200
    stats = sim.stats()
    assert stats["max_concurrent"] == 2
    assert stats["refused_429"] == 1
    assert stats["status_counts"]["429"] == 1


async def test_quota_never_exceeded_under_burst(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim(quota=3, latency=(0.02, 0.05), seed=7)
    url = f"{sim.base_url}/chat/completions"
    results = await asyncio.gather(*(client.post(url, json=body(f"b{i}")) for i in range(20)))
    codes = [r.status_code for r in results]
    assert set(codes) <= {200, 429}
    stats = sim.stats()
    assert 1 <= stats["max_concurrent"] <= 3
    assert stats["refused_429"] == codes.count(429)
    assert stats["status_counts"].get("200", 0) == codes.count(200)
    assert stats["in_flight"] == 0


async def test_fail_markers_fail_first_n_then_succeed(
    make_sim: SimFactory, client: httpx.AsyncClient
) -> None:
    sim = await make_sim(retry_after_s=2)
    url = f"{sim.base_url}/chat/completions"
    codes = [(await client.post(url, json=body("x [[sim:fail=500x2]]"))).status_code for _ in range(3)]
    assert codes == [500, 500, 200]

    r = await client.post(url, json=body("y [[sim:fail=429x1]]"))
    assert r.status_code == 429
    assert r.headers["Retry-After"] == "2"
    assert (await client.post(url, json=body("y [[sim:fail=429x1]]"))).status_code == 200

    for _ in range(2):
        with pytest.raises(httpx.TransportError):
            await client.post(url, json=body("z [[sim:fail=resetx2]]"))
    r = await client.post(url, json=body("z [[sim:fail=resetx2]]"))
    assert r.json()["choices"][0]["message"]["content"] == answer_for("z [[sim:fail=resetx2]]")
    assert sim.stats()["status_counts"]["reset"] == 2


async def test_status_markers(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim()
    url = f"{sim.base_url}/chat/completions"
    assert (await client.post(url, json=body("[[sim:400]] bad"))).status_code == 400
    assert (await client.post(url, json=body("[[sim:401]] who"))).status_code == 401
    assert (await client.post(url, content=b"{not json")).status_code == 400
    assert (await client.post(url, json={"model": "m", "messages": []})).status_code == 400


async def test_reset_marker_is_a_connection_error(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim()
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        await client.post(f"{sim.base_url}/chat/completions", json=body("[[sim:reset]]", stream=True))
    await until(lambda: sim.stats()["in_flight"] == 0, "no request in flight")


async def test_hang_marker_until_client_timeout(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim()
    with pytest.raises(httpx.ReadTimeout):
        await client.post(f"{sim.base_url}/chat/completions", json=body("[[sim:hang]]"), timeout=0.2)
    # The client gave up: the simulator notices and the request stops counting as in flight.
    await until(lambda: sim.stats()["in_flight"] == 0, "no request in flight")
    assert sim.stats()["status_counts"]["hang"] == 1


async def test_sleep_marker_is_scaled(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim(time_scale=0.0)
    # 1000 s of sleep at time_scale 0 answers at once; the client timeout would fire otherwise.
    r = await client.post(f"{sim.base_url}/chat/completions", json=body("[[sim:sleep=1000]]"), timeout=5)
    assert r.status_code == 200


async def test_random_faults_with_rates(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim(fail_rate=1.0, seed=1)
    assert (await client.post(f"{sim.base_url}/chat/completions", json=body("a"))).status_code == 500
    sim2 = await make_sim(reset_rate=1.0, seed=1)
    with pytest.raises(httpx.TransportError):
        await client.post(f"{sim2.base_url}/chat/completions", json=body("a"))


async def test_stats_per_task_and_endpoints(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim()
    url = f"{sim.base_url}/chat/completions"
    await client.post(url, json=body("p", system="be brief"), headers={TASK_HEADER: "t-1"})
    await client.post(url, json=body("p"), headers={TASK_HEADER: "t-1"})
    await client.post(url, json=body("q"), headers={TASK_HEADER: "t-2"})
    stats = sim.stats()
    assert stats["requests_total"] == 3
    assert stats["system_messages"] == 1
    assert stats["per_task"]["t-1"]["requests"] == 2
    assert stats["per_task"]["t-1"]["system_message_seen"] is True
    assert stats["per_task"]["t-2"]["system_message_seen"] is False
    assert stats["per_task"]["t-2"]["last_answer"] == answer_for("q")
    root = sim.base_url.removesuffix("/v1")
    assert (await client.get(f"{root}/stats")).json() == stats
    models = (await client.get(f"{sim.base_url}/models")).json()
    assert models["data"][0]["id"]
    assert (await client.post(f"{root}/stats/reset")).status_code == 200
    assert sim.stats()["requests_total"] == 0
    assert sim.stats()["per_task"] == {}


async def test_api_key_required(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim(api_key="sk-sim-secret")
    url = f"{sim.base_url}/chat/completions"
    assert (await client.post(url, json=body("a"))).status_code == 401
    bad = {"Authorization": "Bearer wrong"}
    assert (await client.post(url, json=body("a"), headers=bad)).status_code == 401
    good = {"Authorization": "Bearer sk-sim-secret"}
    assert (await client.post(url, json=body("a"), headers=good)).status_code == 200
    # as many servers, the model listing is open to anyone: a wrong key gets 200 there
    assert (await client.get(f"{sim.base_url}/models", headers=bad)).status_code == 200
    assert sim.stats()["status_counts"] == {"401": 2, "200": 1}


async def test_stop_with_hanging_request_returns(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim()
    pending = asyncio.create_task(
        client.post(f"{sim.base_url}/chat/completions", json=body("[[sim:hang]]"), timeout=60)
    )
    await until(lambda: sim.stats()["in_flight"] == 1, "1 request in flight")
    # aiohttp's default graceful shutdown would wait 60 s for this handler; ours must not.
    await asyncio.wait_for(sim.stop(), timeout=10)
    with pytest.raises(httpx.TransportError):
        await asyncio.wait_for(pending, timeout=10)


async def test_config_validation() -> None:
    with pytest.raises(ValueError, match="latency"):
        ApiSimConfig(latency=(2.0, 1.0))
    with pytest.raises(ValueError, match="fail_rate"):
        ApiSimConfig(fail_rate=1.5)
    with pytest.raises(ValueError, match="quota"):
        ApiSimConfig(quota=0)
    with pytest.raises(ValueError, match="per_key_quota"):
        ApiSimConfig(per_key_quota=0)
    with pytest.raises(ValueError, match="retry_after_s"):
        ApiSimConfig(retry_after_s=-1.0)
    with pytest.raises(ValueError, match="outage_mode"):
        ApiSimConfig(outage_after_s=1.0, outage_mode="down")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="outage_after_s"):
        ApiSimConfig(outage_for_s=5.0)
    with pytest.raises(ValueError, match="outage_for_s"):
        ApiSimConfig(outage_after_s=1.0, outage_for_s=0.0)
    assert ApiSimConfig(retry_after_s=None).retry_after_header is None
    assert ApiSimConfig(retry_after_s=2.5, send_retry_after=False).retry_after_header is None
    assert ApiSimConfig(retry_after_s=2.5).retry_after_header == "2.5"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mediadesk sim api")
    add_arguments(parser)
    return parser


def test_cli_arguments_parse_and_reject(capsys: pytest.CaptureFixture[str]) -> None:
    args = _parser().parse_args(["--latency", "0.5,2", "--quota", "3", "--fail-rate", "0.1", "--seed", "4"])
    assert args.latency == (0.5, 2.0)
    assert args.quota == 3
    bads = (["--latency", "2,1"], ["--latency", "x"], ["--fail-rate", "2"], ["--quota", "0"])
    for bad in (*bads, ["--port", "-1"]):
        with pytest.raises(SystemExit) as info:
            _parser().parse_args(bad)
        assert info.value.code == 2
    assert "error:" in capsys.readouterr().err


async def test_serve_from_args_prints_url_and_serves(
    capsys: pytest.CaptureFixture[str], client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIM_TEST_KEY", "k-123")
    args = _parser().parse_args(["--api-key-env", "SIM_TEST_KEY", "--chunks", "2"])
    task = asyncio.create_task(serve_from_args(args))
    out = ""

    def printed() -> bool:
        nonlocal out
        out += capsys.readouterr().out
        return "API simulator on " in out

    try:
        await until(printed, "the simulator to print its URL")
        base_url = out.split("API simulator on ", 1)[1].split()[0]
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        headers = {"Authorization": "Bearer k-123"}
        r = await client.post(f"{base_url}/chat/completions", json=body("cli"), headers=headers)
        assert r.status_code == 200
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    with pytest.raises(httpx.ConnectError):
        await client.post(f"{base_url}/chat/completions", json=body("cli"))


async def test_serve_from_args_missing_key_env(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SIM_TEST_MISSING", raising=False)
    args = _parser().parse_args(["--api-key-env", "SIM_TEST_MISSING"])
    with pytest.raises(SystemExit) as info:
        await serve_from_args(args)
    assert info.value.code == 2
    assert "SIM_TEST_MISSING is not set" in capsys.readouterr().err


# --------------------------------------------------------------------------- capacity and faults
#: What a client sees when the connection is reset before any HTTP answer (never a status code).
CONNECTION_ERRORS = (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def root_of(sim: ApiSimServer) -> str:
    return sim.base_url.removesuffix("/v1")


async def hold(
    sim: ApiSimServer, client: httpx.AsyncClient, n: int, headers: dict[str, str] | None = None
) -> list[asyncio.Task[httpx.Response]]:
    """``n`` more hanging requests that occupy slots until released (deterministic, no timing)."""
    before = sim.stats()["in_flight"]
    url = f"{sim.base_url}/chat/completions"
    tasks = [
        asyncio.create_task(client.post(url, json=body(f"hold {before + i} [[sim:hang]]"), headers=headers))
        for i in range(n)
    ]
    await until(lambda: sim.stats()["in_flight"] == before + n, f"{before + n} requests in flight")
    return tasks


async def release(sim: ApiSimServer, tasks: list[asyncio.Task[httpx.Response]]) -> None:
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await until(lambda: sim.stats()["in_flight"] == 0, "no request in flight")


@pytest.mark.parametrize("bare", [{"send_retry_after": False}, {"retry_after_s": None}])
async def test_bare_429_has_no_retry_after(
    make_sim: SimFactory, client: httpx.AsyncClient, bare: dict[str, Any]
) -> None:
    sim = await make_sim(quota=1, **bare)
    url = f"{sim.base_url}/chat/completions"
    holders = await hold(sim, client, 1)
    r = await client.post(url, json=body("second"))
    assert r.status_code == 429
    assert "retry-after" not in r.headers
    assert r.json()["error"]["type"] == "rate_limit_error"
    # Injected 429s follow the same setting.
    r = await client.post(url, json=body("m [[sim:fail=429x1]]"))
    assert r.status_code == 429
    assert "retry-after" not in r.headers
    await release(sim, holders)
    assert sim.stats()["refused_429"] == 2


async def test_set_quota_at_runtime_changes_refusals(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim()
    url = f"{sim.base_url}/chat/completions"
    holders = await hold(sim, client, 1)
    assert (await client.post(url, json=body("a"))).status_code == 200  # no quota yet

    sim.set_quota(1)
    r = await client.post(url, json=body("b"))
    assert r.status_code == 429
    assert r.headers["Retry-After"] == "1"

    sim.set_quota(1, send_retry_after=False)
    r = await client.post(url, json=body("c"))
    assert r.status_code == 429
    assert "retry-after" not in r.headers

    sim.set_quota(2, retry_after_s=0.25, send_retry_after=True)
    assert (await client.post(url, json=body("d"))).status_code == 200
    holders += await hold(sim, client, 1)
    r = await client.post(url, json=body("e"))
    assert r.status_code == 429
    assert r.headers["Retry-After"] == "0.25"

    # Lowering the quota below what is in flight cuts nothing: it drains.
    sim.set_quota(1)
    assert sim.stats()["in_flight"] == 2
    assert not any(t.done() for t in holders)

    with pytest.raises(ValueError, match="quota"):
        sim.set_quota(0)
    assert sim.config.quota == 1  # a bad value changes nothing

    sim.set_quota(None)
    assert (await client.post(url, json=body("f"))).status_code == 200
    await release(sim, holders)
    assert sim.stats()["refused_429"] == 3


async def test_per_key_quota_refuses_same_key_only(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim(quota=10, per_key_quota=1)
    url = f"{sim.base_url}/chat/completions"
    holders = await hold(sim, client, 1, headers=auth("sk-alpha"))

    r = await client.post(url, json=body("alpha again"), headers=auth("sk-alpha"))
    assert r.status_code == 429
    assert "API key" in r.json()["error"]["message"]
    assert (await client.post(url, json=body("beta"), headers=auth("sk-beta"))).status_code == 200
    assert (await client.post(url, json=body("no key"))).status_code == 200

    stats = sim.stats()
    assert stats["refused_429"] == stats["refused_429_per_key"] == 1
    assert stats["max_in_flight_per_key"][key_hash("sk-alpha")] == 1
    assert stats["max_in_flight_per_key"][key_hash("sk-beta")] == 1
    served = (await client.get(f"{root_of(sim)}/stats")).text
    assert "sk-alpha" not in json.dumps(stats) + served
    assert "sk-beta" not in json.dumps(stats) + served

    await release(sim, holders)
    assert (await client.post(url, json=body("alpha free"), headers=auth("sk-alpha"))).status_code == 200


async def test_max_in_flight_per_key_is_counted_without_a_limit(
    make_sim: SimFactory, client: httpx.AsyncClient
) -> None:
    sim = await make_sim()
    holders = await hold(sim, client, 2, headers=auth("key-a"))
    holders += await hold(sim, client, 1, headers=auth("key-b"))
    assert sim.stats()["max_in_flight_per_key"] == {key_hash("key-a"): 2, key_hash("key-b"): 1}
    await release(sim, holders)
    sim.reset_stats()
    assert sim.stats()["max_in_flight_per_key"] == {}


async def test_outage_refuse_is_a_connection_error(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim()
    url = f"{sim.base_url}/chat/completions"
    assert (await client.post(url, json=body("before"))).status_code == 200  # leaves a pooled connection
    sim.set_outage("refuse")
    pooled = await client.post(url, json=body("pooled"))  # a connection opened before: unavailable, closed
    assert pooled.status_code == 503 and pooled.headers["Connection"] == "close"
    assert "Retry-After" not in pooled.headers
    async with httpx.AsyncClient(verify=TLS, timeout=10.0) as fresh:
        with pytest.raises(CONNECTION_ERRORS):
            await fresh.post(url, json=body("fresh"))
        with pytest.raises(CONNECTION_ERRORS):
            await fresh.get(f"{sim.base_url}/models")
    with pytest.raises(httpx.ConnectError):  # the port itself is closed (/stats too): ECONNREFUSED
        await client.get(f"{root_of(sim)}/stats")
    stats = sim.stats()  # the control plane stays up in-process
    assert stats["outage"] == "refuse" and stats["listening"] is False
    # refused connects never reach the server: only the request on the old connection is counted
    assert stats["requests_during_outage"] == 1
    assert stats["chat_requests_total"] == 2
    assert stats["models_requests"] == 0
    assert stats["status_counts"] == {"200": 1, "503": 1}

    sim.set_outage(None)  # the same port listens again at once
    assert (await client.post(url, json=body("after"))).status_code == 200
    assert (await client.get(f"{sim.base_url}/models")).status_code == 200
    stats = sim.stats()
    assert stats["outage"] is None and stats["listening"] is True
    [outage] = stats["outages"]
    assert outage["mode"] == "refuse"
    assert outage["requests"] == 1
    assert outage["ended_at"] >= outage["started_at"]


async def test_outage_503_with_and_without_retry_after(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim()
    url = f"{sim.base_url}/chat/completions"
    assert (await client.get(f"{sim.base_url}/models")).status_code == 200
    sim.set_outage("503", retry_after_s=3)
    r = await client.post(url, json=body("x"))
    assert r.status_code == 503
    assert r.headers["Retry-After"] == "3"
    assert r.json()["error"]["type"] == "server_error"
    r = await client.get(f"{sim.base_url}/models")
    assert r.status_code == 503  # the health probe sees the outage too

    sim.set_outage("503", retry_after_s=None)
    r = await client.post(url, json=body("x"))
    assert r.status_code == 503
    assert "retry-after" not in r.headers
    stats = sim.stats()
    assert stats["status_counts"] == {"503": 2}  # /models answers are not chat outcomes
    assert stats["requests_during_outage"] == 3
    assert [o["mode"] for o in stats["outages"]] == ["503", "503"]


async def test_outage_ends_after_duration(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim()
    url = f"{sim.base_url}/chat/completions"
    sim.set_outage("503", duration_s=3600)
    assert (await client.post(url, json=body("long"))).status_code == 503

    sim.set_outage("503", duration_s=0.2)

    async def healthy() -> bool:
        return (await client.get(f"{sim.base_url}/models")).status_code == 200

    await until(healthy, "/models to answer 200 after the outage", step_s=0.02)
    assert (await client.post(url, json=body("back"))).status_code == 200
    stats = sim.stats()
    assert stats["outage"] is None
    last = stats["outages"][-1]
    # The end time is the planned one, not whenever the server noticed.
    assert last["ended_at"] - last["started_at"] == pytest.approx(0.2)


async def test_outage_429_answers_chat_not_models(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim(retry_after_s=4)
    sim.set_outage("429")
    r = await client.post(f"{sim.base_url}/chat/completions", json=body("x"))
    assert r.status_code == 429
    assert r.headers["Retry-After"] == "4"  # by default the config's, as a quota 429
    assert r.json()["error"]["type"] == "rate_limit_error"
    assert (await client.get(f"{sim.base_url}/models")).status_code == 200
    stats = sim.stats()
    assert stats["refused_429"] == 1
    assert stats["requests_during_outage"] == 2


async def test_insufficient_quota_body(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim(retry_after_s=2)
    sim.set_outage("insufficient_quota")
    r = await client.post(f"{sim.base_url}/chat/completions", json=body("x", stream=True))
    assert r.status_code == 429
    assert "retry-after" not in r.headers  # OpenAI sends none: waiting does not add credit
    error = r.json()["error"]
    assert error["code"] == "insufficient_quota"
    assert error["type"] == "insufficient_quota"
    assert "quota" in error["message"]
    assert (await client.get(f"{sim.base_url}/models")).status_code == 200
    assert sim.stats()["refused_429"] == 1


async def test_set_outage_rejects_bad_arguments(make_sim: SimFactory) -> None:
    sim = await make_sim()
    with pytest.raises(ValueError, match="mode"):
        sim.set_outage("down")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="duration_s"):
        sim.set_outage("503", duration_s=0)
    with pytest.raises(ValueError, match="duration_s"):
        sim.set_outage(None, duration_s=5)
    with pytest.raises(ValueError, match="retry_after_s"):
        sim.set_outage("503", retry_after_s=-1)
    assert sim.stats()["outage"] is None
    assert sim.stats()["outages"] == []


async def test_reset_stats_keeps_the_outage(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim()
    sim.set_outage("503")
    assert (await client.post(f"{sim.base_url}/chat/completions", json=body("x"))).status_code == 503
    sim.reset_stats()
    stats = sim.stats()
    assert stats["outage"] == "503"
    assert stats["requests_during_outage"] == 0
    assert [o["requests"] for o in stats["outages"]] == [0]
    assert (await client.post(f"{sim.base_url}/chat/completions", json=body("x"))).status_code == 503


async def test_scheduled_outage_from_config(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    now = await make_sim(outage_after_s=0.0, outage_for_s=3600.0, outage_mode="refuse")
    with pytest.raises(CONNECTION_ERRORS):
        await client.post(f"{now.base_url}/chat/completions", json=body("x"))
    assert now.stats()["outage"] == "refuse"

    later = await make_sim(outage_after_s=3600.0, outage_mode="503")
    assert (await client.post(f"{later.base_url}/chat/completions", json=body("x"))).status_code == 200
    assert later.stats()["outage"] is None

    brief = await make_sim(outage_after_s=0.0, outage_for_s=0.1, outage_mode="429")

    async def served() -> bool:
        r = await client.post(f"{brief.base_url}/chat/completions", json=body("x"))
        return r.status_code == 200

    await until(served, "a request served after the brief 429 outage", step_s=0.02)
    [outage] = brief.stats()["outages"]
    assert outage["mode"] == "429"
    assert outage["ended_at"] - outage["started_at"] == pytest.approx(0.1)


async def test_admin_endpoints(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim()
    url, root = f"{sim.base_url}/chat/completions", root_of(sim)

    r = await client.post(f"{root}/admin/outage", json={"mode": "503", "duration_s": 3600, "retry_after_s": 5})
    assert r.status_code == 200
    assert r.json()["outage"] == "503"
    r = await client.post(url, json=body("x"))
    assert (r.status_code, r.headers["Retry-After"]) == (503, "5")
    state = (await client.get(f"{root}/admin/outage")).json()
    assert (state["outage"], state["requests_during_outage"]) == ("503", 1)
    r = await client.post(f"{root}/admin/outage", json={"mode": None})
    assert r.json()["outage"] is None
    assert (await client.post(url, json=body("x"))).status_code == 200

    r = await client.post(f"{root}/admin/quota", json={"quota": 1, "send_retry_after": False})
    expected = {"ok": True, "quota": 1, "per_key_quota": None, "retry_after_s": 1.0, "send_retry_after": False}
    assert r.json() == expected
    assert (await client.get(f"{root}/admin/quota")).json() == expected
    holders = await hold(sim, client, 1)
    r = await client.post(url, json=body("y"))
    assert r.status_code == 429
    assert "retry-after" not in r.headers
    # Absent fields stay as they are.
    r = await client.post(f"{root}/admin/quota", json={"per_key_quota": 2})
    assert (r.json()["quota"], r.json()["per_key_quota"]) == (1, 2)
    await release(sim, holders)

    bad_requests: list[tuple[str, dict[str, Any], str]] = [
        ("quota", {"content": b"{nope"}, "JSON"),
        ("quota", {"json": {"quota": 0}}, "quota"),
        ("quota", {"json": {"quota": True}}, "quota"),
        ("quota", {"json": {"qouta": 2}}, "unknown"),
        ("quota", {"json": [1]}, "object"),
        ("outage", {"json": {}}, "mode"),
        ("outage", {"json": {"mode": "down"}}, "mode"),
        ("outage", {"json": {"mode": "503", "duration_s": -1}}, "duration_s"),
        ("outage", {"json": {"mode": "503", "retry_after_s": "soon"}}, "retry_after_s"),
    ]
    for endpoint, kwargs, word in bad_requests:
        r = await client.post(f"{root}/admin/{endpoint}", **kwargs)
        assert r.status_code == 400, (endpoint, kwargs)
        assert word in r.json()["error"]["message"], (endpoint, kwargs)
    assert sim.config.quota == 1
    assert sim.stats()["outage"] is None
    # Admin calls are not traffic: only the chat requests above were counted.
    assert sim.stats()["chat_requests_total"] == 4


async def test_stats_count_chat_and_model_requests(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim()
    for _ in range(2):
        assert (await client.post(f"{sim.base_url}/chat/completions", json=body("x"))).status_code == 200
    for _ in range(3):
        r = await client.get(f"{sim.base_url}/models")
        assert r.json()["data"][0]["id"]
    sim.set_outage("503")
    sim.set_outage(None)
    stats = sim.stats()
    assert stats["chat_requests_total"] == stats["requests_total"] == 2
    assert stats["models_requests"] == 3
    assert stats["max_concurrent"] == 1
    # The served stats and the method agree, outage times included.
    assert (await client.get(f"{root_of(sim)}/stats")).json() == stats


def test_cli_capacity_flags(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--per-key-quota", "2", "--no-retry-after", "--outage-after", "5", "--outage-for", "2.5",
            "--outage-mode", "refuse"]
    config = config_from_args(_parser().parse_args(argv))
    assert config.per_key_quota == 2
    assert config.send_retry_after is False
    assert config.retry_after_header is None
    assert (config.outage_after_s, config.outage_for_s, config.outage_mode) == (5.0, 2.5, "refuse")

    default = config_from_args(_parser().parse_args([]))
    assert (default.send_retry_after, default.per_key_quota, default.outage_after_s) == (True, None, None)
    assert config_from_args(_parser().parse_args(["--outage-after", "1"])).outage_mode == "503"

    bads = (
        ["--per-key-quota", "0"],
        ["--outage-mode", "down"],
        ["--outage-for", "0"],
        ["--outage-after", "-1"],
        ["--retry-after", "2", "--no-retry-after"],
    )
    for bad in bads:
        with pytest.raises(SystemExit) as info:
            _parser().parse_args(bad)
        assert info.value.code == 2
        assert "error:" in capsys.readouterr().err
    for lonely in (["--outage-for", "3"], ["--outage-mode", "429"]):
        with pytest.raises(ValueError, match="--outage-after"):
            config_from_args(_parser().parse_args(lonely))


async def test_serve_from_args_rejects_outage_without_start(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        await serve_from_args(_parser().parse_args(["--outage-for", "3"]))
    assert info.value.code == 2
    assert "--outage-for needs --outage-after" in capsys.readouterr().err


async def test_the_same_task_requested_twice_at_once_is_counted(make_sim: SimFactory,
                                                                client: httpx.AsyncClient) -> None:
    """``per_task[...]["max_in_flight"]`` is what proves no task runs twice at once across processes."""
    sim = await make_sim(latency=(0.3, 0.3))
    url = f"{sim.base_url}/chat/completions"
    await asyncio.gather(*(client.post(url, json=body("twice"), headers={TASK_HEADER: "t1"}) for _ in range(2)))
    await client.post(url, json=body("once"), headers={TASK_HEADER: "t2"})
    await client.post(url, json=body("once"), headers={TASK_HEADER: "t2"})
    per_task = sim.stats()["per_task"]
    assert per_task["t1"]["max_in_flight"] == 2 and per_task["t1"]["in_flight"] == 0
    assert per_task["t2"]["max_in_flight"] == 1 and per_task["t2"]["requests"] == 2
