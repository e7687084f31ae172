"""Usage from the API answer (plain and streamed), and the rate-limit headers, against the API simulator."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from mediadesk.core.backend import Answer, TaskSpec, answer_usage
from mediadesk.core.token_rate import RateHints
from mediadesk.core.usage import Usage
from mediadesk.providers.api import ApiBackend
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.providers.conftest import RecordingContext

SYSTEM = "You answer in one sentence, politely, and never use lists."


def spec(prompt: str, task_id: str, instructions: str | None = SYSTEM) -> TaskSpec:
    return TaskSpec(task_id=task_id, profile="writer", prompt=prompt, attempt=1, instructions=instructions)


async def run(sim: ApiSimServer, ctx: RecordingContext, task: TaskSpec, **kwargs: Any) -> Answer:
    async with ApiBackend(name="writer", base_url=sim.base_url, model="m", **kwargs) as backend:
        answer = await backend.run(task, ctx)
    assert isinstance(answer, Answer)
    return answer


def provider_usage(sim: ApiSimServer, task_id: str) -> Usage:
    u = sim.stats()["per_task"][task_id]["last_usage"]
    return Usage(u["prompt_tokens"], u["completion_tokens"], u["prompt_tokens_details"]["cached_tokens"])


@pytest.fixture
async def sim() -> AsyncIterator[ApiSimServer]:
    async with ApiSimServer(ApiSimConfig(chunks=4, tpm=100_000, rpm=1000)) as server:
        yield server


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_the_providers_usage_comes_with_the_answer(sim: ApiSimServer, run_ctx: RecordingContext,
                                                         stream: bool) -> None:
    first = await run(sim, run_ctx, spec("Summarise the plot of Hamlet 请简短", "t-1"), stream=stream)
    second = await run(sim, run_ctx, spec("And Macbeth?", "t-2"), stream=stream)
    assert first.usage == provider_usage(sim, "t-1") and first.usage is not None
    assert first.usage.prompt_tokens and first.usage.completion_tokens and not first.usage.estimated
    # the same system prompt again: the provider served it from its prompt cache
    assert second.usage == provider_usage(sim, "t-2") and second.usage is not None
    assert first.usage.cached_tokens == 0 and second.usage.cached_tokens and second.usage.cached_tokens > 0
    assert "usage " in run_ctx.lines[-1] and " in (" in run_ctx.lines[-1]  # "usage 40 in (18 cached) / 12 out"
    assert answer_usage(second, spec("And Macbeth?", "t-2")) == second.usage


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_a_server_that_reports_no_usage_is_estimated_and_marked(run_ctx: RecordingContext, stream: bool) -> None:
    async with ApiSimServer(ApiSimConfig(report_usage=False, stream_usage=False)) as sim:
        task = spec("Write two words about the sea, please.", "t-1")
        answer = await run(sim, run_ctx, task, stream=stream)
    assert answer.usage is None
    assert "no usage reported" in run_ctx.lines[-1]
    usage = answer_usage(answer, task)
    assert usage.estimated and usage.prompt_tokens and usage.completion_tokens
    assert abs(usage.completion_tokens - len(answer) / 4) <= 3


async def test_streamed_usage_is_asked_for_only_where_configured(run_ctx: RecordingContext) -> None:
    """``stream_usage = false`` (a server that refuses the option): no ``stream_options`` is sent, so
    the simulator sends no usage chunk and the answer is estimated."""
    async with ApiSimServer(ApiSimConfig()) as sim:
        asked = await run(sim, run_ctx, spec("q1", "t-1"), stream=True)
        not_asked = await run(sim, run_ctx, spec("q2", "t-2"), stream=True, stream_usage=False)
    assert asked.usage is not None and not_asked.usage is None


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_rate_limit_headers_come_with_the_answer(sim: ApiSimServer, run_ctx: RecordingContext,
                                                       stream: bool) -> None:
    answer = await run(sim, run_ctx, spec("hello there", "t-1"), stream=stream)
    hints = answer.hints
    assert isinstance(hints, RateHints)
    assert hints.limit_tokens == 100_000 and hints.limit_requests == 1000
    assert hints.remaining_tokens is not None and 100_000 - 100 < hints.remaining_tokens < 100_000
    assert hints.remaining_requests == 999
    assert hints.reset_tokens_s is not None and 0 < hints.reset_tokens_s < 1
    assert hints.reset_requests_s is not None and 0 < hints.reset_requests_s <= 0.1


async def test_max_tokens_is_sent_when_set(sim: ApiSimServer, run_ctx: RecordingContext) -> None:
    task = TaskSpec(task_id="t-1", profile="writer", prompt="q", attempt=1, instructions=None, max_tokens=7)
    await run(sim, run_ctx, task)
    assert sim.stats()["per_task"]["t-1"]["last_max_tokens"] == 7
