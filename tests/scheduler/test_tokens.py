"""Tokens end to end: real scheduler, real store, the API simulator over real HTTP. The provider's
usage lands on the task (streamed and not); a provider TPM limit is held by the token gate (declared,
or learned from the ``x-ratelimit-*`` headers) instead of being found by 429s."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.support import log_messages, make_config, tasks_of

WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
         "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango")


def long_prompt(i: int, words: int) -> str:
    rng = random.Random(i)
    return f"task {i}: " + " ".join(rng.choice(WORDS) for _ in range(words))


async def run_all(s: Scheduler, items: list[tuple[str, str, str]], limit_s: float = 120) -> None:
    s.intake.submit([s.intake.new_task(tid, prof, prompt) for tid, prof, prompt in items])
    await asyncio.wait_for(s.wait_idle(), limit_s)


def endpoint_config(sim: ApiSimServer, *, stream: bool = False, **endpoint: Any) -> Any:
    return make_config(
        [{"name": "w", "kind": "api", "endpoint": "x", "model": "m", "stream": stream,
          "instructions": "Answer briefly."}],
        endpoints=[{"name": "x", "base_url": sim.base_url, "concurrency": 4, **endpoint}],
        retry={"backoff_base_s": 0.05, "backoff_max_s": 2.0},
    )


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_the_providers_usage_is_stored_on_the_task(any_workspace: Workspace, stream: bool) -> None:
    async with ApiSimServer(ApiSimConfig(latency=(0.01, 0.02), chunks=3)) as sim:
        async with Scheduler(endpoint_config(sim, stream=stream), any_workspace) as s:
            await run_all(s, [(f"t{i}", "w", long_prompt(i, 20 + 10 * i)) for i in range(4)])
        per_task = sim.stats()["per_task"]
    tasks = tasks_of(any_workspace)
    for tid, t in tasks.items():
        u = per_task[tid]["last_usage"]
        assert (t.prompt_tokens, t.completion_tokens, t.cached_tokens, t.usage_estimated) == (
            u["prompt_tokens"], u["completion_tokens"], u["prompt_tokens_details"]["cached_tokens"], False), tid
    # the same instructions on every task: from the second one on, the provider's cache served them
    assert sum(1 for t in tasks.values() if t.cached_tokens) >= 3
    assert any("usage " in m for m in log_messages(any_workspace, "t0"))


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_a_server_without_usage_gets_an_estimate_marked_so(workspace: Workspace, stream: bool) -> None:
    async with ApiSimServer(ApiSimConfig(report_usage=False, stream_usage=False)) as sim, \
            Scheduler(endpoint_config(sim, stream=stream), workspace) as s:
        await run_all(s, [("t0", "w", long_prompt(0, 40))])
    t = tasks_of(workspace)["t0"]
    assert t.state == "success" and t.usage_estimated is True
    assert t.prompt_tokens is not None and t.prompt_tokens > 40 and t.completion_tokens and t.cached_tokens is None


async def _tpm_batch(ws: Workspace, *, tpm_declared: float, rate_headers: bool) -> dict[str, Any]:
    """12 long prompts (~150-300 tokens each way) against a provider that allows 4000 tokens a
    minute: about 1.2 minutes' worth (~4,800 tokens), so the bucket runs dry before the batch ends."""
    sim_cfg = ApiSimConfig(latency=(0.05, 0.05), tpm=4000, retry_after_s=1.0)
    async with ApiSimServer(sim_cfg) as sim:
        cfg = endpoint_config(sim, tpm=tpm_declared, rate_headers=rate_headers)
        async with Scheduler(cfg, ws) as s:
            await run_all(s, [(f"t{i}", "w", long_prompt(i, 100 + (i * 37) % 100)) for i in range(12)], 300)
        return sim.stats()


async def test_a_declared_tpm_holds_the_providers_limit_with_long_prompts(workspace: Workspace) -> None:
    stats = await _tpm_batch(workspace, tpm_declared=4000, rate_headers=False)
    tasks = tasks_of(workspace)
    assert {t.state for t in tasks.values()} == {"success"} and all(t.attempt == 1 for t in tasks.values())
    assert stats["tokens_charged"] > 4000  # the batch did need more than the provider's minute
    assert stats["refused_429_tokens"] <= 1, stats["refused_429_tokens"]


async def test_the_rate_limit_headers_alone_hold_the_providers_limit(workspace: Workspace) -> None:
    """No ``tpm`` in the config: the first answer's ``x-ratelimit-limit-tokens`` makes the bucket,
    every answer's ``x-ratelimit-remaining-tokens`` keeps it honest, and the gate waits before the 429."""
    stats = await _tpm_batch(workspace, tpm_declared=0, rate_headers=True)
    tasks = tasks_of(workspace)
    assert {t.state for t in tasks.values()} == {"success"}
    assert stats["refused_429_tokens"] <= 1, stats["refused_429_tokens"]
    notes = [m for tid in tasks for m in log_messages(workspace, tid) if m.startswith("rate limits:")]
    assert any("the provider allows 4000 tokens a minute" in m for m in notes), notes


async def test_remaining_requests_zero_holds_dispatch_until_the_window_has_room(workspace: Workspace) -> None:
    """A provider allowing 30 requests a minute, no ``rpm`` in the config: after the first 30 the
    headers say none is left, and the gate waits for the next one instead of collecting 429s."""
    async with ApiSimServer(ApiSimConfig(latency=(0.02, 0.02), rpm=30, retry_after_s=1.0)) as sim:
        async with Scheduler(endpoint_config(sim), workspace) as s:
            await run_all(s, [(f"t{i}", "w", f"q{i}") for i in range(33)])
        stats = sim.stats()
    assert {t.state for t in tasks_of(workspace).values()} == {"success"}
    assert stats["refused_429_requests"] == 0
