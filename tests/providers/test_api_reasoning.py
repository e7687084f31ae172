"""A reasoning model's thinking on the API lane, end to end: the real scheduler and store (SQLite, and
PostgreSQL where ``any_workspace`` runs), the API simulator over real HTTP on 127.0.0.1. The thinking
(``reasoning_content`` fields and deltas, a ``<think>`` block at the start of the content, split across
stream chunks or not) lands in the task's ``reasoning``, never in its answer; ``reasoning_tokens`` is the
provider's count; a ``max_tokens`` all spent thinking fails ``answer_cut`` at once."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

import httpx
import pytest

from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import Answer
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.core.usage import Usage, usage_of_json
from mediadesk.providers.api.backend import thought_out
from mediadesk.providers.api.failures import Scrubber
from mediadesk.providers.api.reading import ThinkSplitter, parse_completion, split_think
from mediadesk.scheduler import Scheduler
from mediadesk.sim.api_cli import add_arguments, config_from_args
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer, answer_for, thought_for
from tests.support import log_messages, make_config, tasks_of

MODES = ("field", "think_tag")


def endpoint_config(sim: ApiSimServer, *, stream: bool, **profile: Any) -> Any:
    return make_config(
        [{"name": "w", "kind": "api", "endpoint": "x", "model": "m", "stream": stream, **profile}],
        endpoints=[{"name": "x", "base_url": sim.base_url, "concurrency": 4}],
        retry={"backoff_base_s": 0.05, "backoff_max_s": 0.5},
    )


async def run_all(sim: ApiSimServer, ws: Workspace, items: list[tuple[str, str]], *, stream: bool,
                  **profile: Any) -> dict[str, Any]:
    """Run ``(task id, prompt)`` on profile ``w`` until idle; the simulator's per-task stats."""
    async with Scheduler(endpoint_config(sim, stream=stream, **profile), ws) as s:
        s.intake.submit([s.intake.new_task(tid, "w", prompt) for tid, prompt in items])
        await asyncio.wait_for(s.wait_idle(), 60)
    per_task: dict[str, Any] = sim.stats()["per_task"]
    return per_task


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("mode", MODES)
async def test_the_thinking_is_stored_apart_from_the_answer(any_workspace: Workspace, mode: str,
                                                            stream: bool) -> None:
    prompts = {"t0": "what is two and two", "t1": "name a colour 红色"}
    async with ApiSimServer(ApiSimConfig(reasoning=mode, chunks=5)) as sim:  # type: ignore[arg-type]
        per_task = await run_all(sim, any_workspace, list(prompts.items()), stream=stream)
    tasks = tasks_of(any_workspace)
    for tid, prompt in prompts.items():
        t = tasks[tid]
        assert (t.state, t.attempt, t.truncated) == ("success", 1, False), (tid, t.error_message)
        assert t.result == answer_for(prompt) and t.reasoning == thought_for(prompt)
        assert "<think>" not in (t.result or "") and thought_for(prompt) not in (t.result or "")
        usage = per_task[tid]["last_usage"]
        assert t.reasoning_tokens == usage["completion_tokens_details"]["reasoning_tokens"] > 0
        assert t.completion_tokens == usage["completion_tokens"] > t.reasoning_tokens
        assert t.usage_estimated is False
        said = [m for m in log_messages(any_workspace, tid) if "thinking kept apart" in m]
        assert said and f"{len(thought_for(prompt))} chars, {t.reasoning_tokens} tokens" in said[0], said


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_a_think_tag_later_in_the_answer_is_the_models_text(workspace: Workspace, stream: bool) -> None:
    tagged, lone = "quote <think>this</think> back", "keep <think> as text"
    runs = [("t0", "think_tag", lone), ("t1", "field", tagged), ("t2", "none", tagged)]
    for tid, mode, prompt in runs:
        async with ApiSimServer(ApiSimConfig(reasoning=mode, chunks=3)) as sim:  # type: ignore[arg-type]
            await run_all(sim, workspace, [(tid, prompt)], stream=stream)
    tasks = tasks_of(workspace)
    for tid, mode, prompt in runs:
        t = tasks[tid]
        assert (t.state, t.result) == ("success", answer_for(prompt)), tid
        assert t.reasoning == (None if mode == "none" else thought_for(prompt)), tid
    assert "<think>this</think>" in (tasks["t2"].result or "") and tasks["t2"].reasoning_tokens is None


async def test_a_think_tag_split_across_stream_chunks(workspace: Workspace) -> None:
    """One character per chunk: ``<think>`` and ``</think>`` arrive in seven and eight pieces."""
    prompt = "split me"
    content = f"<think>\n{thought_for(prompt)}\n</think>\n\n{answer_for(prompt)}"
    async with ApiSimServer(ApiSimConfig(reasoning="think_tag", chunks=len(content))) as sim:
        await run_all(sim, workspace, [("t0", prompt)], stream=True)
    t = tasks_of(workspace)["t0"]
    assert (t.state, t.result, t.reasoning) == ("success", answer_for(prompt), thought_for(prompt))
    assert t.reasoning_tokens


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_max_tokens_all_spent_thinking_fails_answer_cut(workspace: Workspace, mode: str,
                                                              stream: bool) -> None:
    cfg = ApiSimConfig(reasoning=mode, think_tokens=200, chunks=4)  # type: ignore[arg-type]
    async with ApiSimServer(cfg) as sim:
        per_task = await run_all(sim, workspace, [("t0", "think hard")], stream=stream, max_tokens=16)
    t = tasks_of(workspace)["t0"]
    assert (t.state, t.attempt, t.error_kind) == ("failed", 1, ErrorKind.ANSWER_CUT.value)
    assert t.error_message is not None and "max_tokens (16)" in t.error_message
    assert "raise max_tokens" in t.error_message and "16 reasoning tokens" in t.error_message
    assert t.result is None and t.reasoning is None
    assert per_task["t0"]["requests"] == 1  # not retried: the same limit would end the same way
    assert per_task["t0"]["last_usage"]["completion_tokens_details"]["reasoning_tokens"] == 16


async def test_thinking_that_fits_max_tokens_is_an_ordinary_success(workspace: Workspace) -> None:
    async with ApiSimServer(ApiSimConfig(reasoning="field", think_tokens=10)) as sim:
        await run_all(sim, workspace, [("t0", "short")], stream=True, max_tokens=10)
    t = tasks_of(workspace)["t0"]
    assert (t.state, t.result, t.reasoning, t.reasoning_tokens, t.truncated) == (
        "success", answer_for("short"), thought_for("short"), 10, False)


def test_only_a_length_cut_with_no_answer_after_thinking_is_answer_cut() -> None:
    thought = Usage(10, 64, reasoning_tokens=60)
    assert thought_out(Answer("part of an answer", truncated=True, reasoning="hm", usage=thought), 64) is None
    assert thought_out(Answer(" \n", truncated=False, reasoning="hm", usage=thought), 64) is None  # it stopped
    assert thought_out(Answer("", truncated=True), 64) is None  # no sign of thinking: a truncated success as ever
    cut = thought_out(Answer(" \n", truncated=True, usage=thought), 64)
    assert cut is not None and cut.kind is ErrorKind.ANSWER_CUT and not cut.retryable and not cut.refusal
    assert cut.message == ("the model spent its whole max_tokens (64) thinking (60 reasoning tokens) and wrote "
                           "no answer: raise max_tokens for this profile")
    cut = thought_out(Answer("", truncated=True, reasoning="hm"), None)
    assert cut is not None and "max_tokens (the server's default)" in cut.message


async def test_the_default_simulator_answers_as_before() -> None:
    """``reasoning`` "none": no thinking field, no ``completion_tokens_details``, the same chunks."""
    async with ApiSimServer(ApiSimConfig(chunks=3)) as sim, httpx.AsyncClient() as client:
        body = {"model": "m", "messages": [{"role": "user", "content": "hello"}], "max_tokens": 1}
        plain = (await client.post(sim.base_url + "/chat/completions", json=body)).json()
        assert plain["choices"] == [{"index": 0, "message": {"role": "assistant", "content": answer_for("hello")},
                                     "finish_reason": "stop"}]
        assert set(plain["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details"}
        assert usage_of_json(plain["usage"]).reasoning_tokens is None  # type: ignore[union-attr]
        streamed = await client.post(sim.base_url + "/chat/completions",
                                     json={**body, "stream": True, "stream_options": {"include_usage": True}})
    text = streamed.text
    assert text.startswith(": sim keep-alive\n\n") and text.endswith("data: [DONE]\n\n")
    events = [json.loads(e[6:]) for e in text.split("\n\n") if e.startswith("data: {")]
    deltas = [e["choices"][0]["delta"] for e in events if e["choices"]]
    assert deltas[0] == {"role": "assistant", "content": deltas[0]["content"]} and len(deltas) == 4
    assert "".join(d.get("content", "") for d in deltas) == answer_for("hello")
    assert deltas[-1] == {} and events[-2]["choices"][0]["finish_reason"] == "stop"
    assert all(set(d) <= {"role", "content"} for d in deltas)
    assert "completion_tokens_details" not in events[-1]["usage"]


def test_the_think_splitter_at_every_split_point() -> None:
    """A leading block split anywhere (and into single characters) gives the same answer and thinking."""
    content = "  <think>\nmull it over </thi\n</think>\n\nthe answer <think>stays</think>"
    want = ("the answer <think>stays</think>", "\nmull it over </thi\n")
    assert split_think(content) == want
    for cut in range(len(content) + 1):
        for pieces in ([content[:cut], content[cut:]], list(content)):
            splitter = ThinkSplitter()
            got = [splitter.feed(p) for p in pieces] + [splitter.end()]
            assert ("".join(a for a, _ in got), "".join(b for _, b in got)) == want, (cut, pieces)
    assert split_think("no block <think>here</think>") == ("no block <think>here</think>", "")
    assert split_think("<thinking>is text</thinking>") == ("<thinking>is text</thinking>", "")
    assert split_think("<think>cut while thinking") == ("", "cut while thinking")
    assert split_think("   ") == ("   ", "") and split_think("") == ("", "")


def test_the_reasoning_field_of_other_servers_and_a_missing_content() -> None:
    """OpenRouter and Ollama name the field ``reasoning``; vLLM cut while thinking sends ``content: null``."""
    def body(message: dict[str, Any], finish: str = "stop") -> bytes:
        return json.dumps({"choices": [{"message": message, "finish_reason": finish}],
                           "usage": {"prompt_tokens": 3, "completion_tokens": 9,
                                     "completion_tokens_details": {"reasoning_tokens": 7}}}).encode()

    scrub = Scrubber(None)
    done = parse_completion(body({"role": "assistant", "content": "hi", "reasoning": "\nhm\n"}), scrub)
    assert (done.content, done.reasoning, done.finish_reason) == ("hi", "hm", "stop")
    assert done.usage == Usage(3, 9, reasoning_tokens=7)
    done = parse_completion(body({"role": "assistant", "content": None, "reasoning_content": "so"}, "length"), scrub)
    assert (done.content, done.reasoning, done.finish_reason) == ("", "so", "length")
    both = {"role": "assistant", "content": "<think>tagged</think>ok", "reasoning_content": "fielded"}
    assert parse_completion(body(both), scrub)[::3] == ("ok", "fielded\n\ntagged")
    with pytest.raises(TaskFailure, match="no choices"):
        parse_completion(body({"role": "assistant", "content": None}), scrub)


def test_the_simulators_reasoning_flags() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    cfg = config_from_args(parser.parse_args(["--reasoning", "think_tag", "--think-tokens", "50"]))
    assert (cfg.reasoning, cfg.think_tokens) == ("think_tag", 50)
    cfg = config_from_args(parser.parse_args([]))
    assert (cfg.reasoning, cfg.think_tokens) == ("none", 0)
    with pytest.raises(ValueError, match="reasoning must be one of none, field, think_tag"):
        ApiSimConfig(reasoning="xml")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="think_tokens"):
        ApiSimConfig(think_tokens=-1)
