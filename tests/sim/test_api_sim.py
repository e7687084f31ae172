"""The API simulator, driven over real HTTP with httpx (it is a test instrument: it must not lie)."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest
from httpx_sse import aconnect_sse

from mediadesk.sim.api_server import (
    TASK_HEADER,
    ApiSimConfig,
    ApiSimServer,
    add_arguments,
    answer_for,
    prompt_key,
    serve_from_args,
)

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
    async with httpx.AsyncClient(timeout=10.0) as c:
        yield c


def body(prompt: str, *, system: str | None = None, stream: bool = False) -> dict[str, Any]:
    messages = [{"role": "system", "content": system}] if system is not None else []
    messages.append({"role": "user", "content": prompt})
    return {"model": "sim-model", "messages": messages, "stream": stream}


async def wait_until(cond: Callable[[], bool], timeout: float = 5.0) -> None:
    """Poll a condition; the timeout is only a safety net."""
    async with asyncio.timeout(timeout):
        while not cond():
            await asyncio.sleep(0.01)


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
    await wait_until(lambda: sim.stats()["in_flight"] == 2)
    r = await client.post(url, json=body("third"))
    assert r.status_code == 429
    assert r.headers["Retry-After"] == "1.5"
    assert "error" in r.json()
    for t in holders:
        t.cancel()
    await asyncio.gather(*holders, return_exceptions=True)
    await wait_until(lambda: sim.stats()["in_flight"] == 0)
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
    await wait_until(lambda: sim.stats()["in_flight"] == 0)


async def test_hang_marker_until_client_timeout(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim()
    with pytest.raises(httpx.ReadTimeout):
        await client.post(f"{sim.base_url}/chat/completions", json=body("[[sim:hang]]"), timeout=0.2)
    # The client gave up: the simulator notices and the request stops counting as in flight.
    await wait_until(lambda: sim.stats()["in_flight"] == 0)
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


async def test_stop_with_hanging_request_returns(make_sim: SimFactory, client: httpx.AsyncClient) -> None:
    sim = await make_sim()
    pending = asyncio.create_task(
        client.post(f"{sim.base_url}/chat/completions", json=body("[[sim:hang]]"), timeout=60)
    )
    await wait_until(lambda: sim.stats()["in_flight"] == 1)
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
        await wait_until(printed)
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
