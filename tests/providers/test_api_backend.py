"""ApiBackend against real HTTP servers: the API simulator, and small aiohttp handlers for odd answers."""

from __future__ import annotations

import asyncio
import json
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

import keyring
import pytest
from aiohttp import web
from keyring.backend import KeyringBackend

from mediadesk.core.backend import CheckVerdict, LaneBackend, TaskSpec
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.core.log_lines import LogText
from mediadesk.providers.api import ApiBackend
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer, answer_for
from tests.support import until

SECRET = "sk-test-NEVER-LEAK-7f3a9c"


class Ctx(Protocol):
    lane: str
    evidence_dir: Path
    lines: list[str]
    beats: int

    def log(self, text: LogText) -> None: ...
    def beat(self) -> None: ...


BackendFactory = Callable[..., Awaitable[ApiBackend]]


def spec(
    prompt: str,
    *,
    task_id: str = "t-1",
    instructions: str | None = "You are terse.",
    need_empty_prompt: bool = False,
) -> TaskSpec:
    return TaskSpec(
        task_id=task_id,
        profile="writer",
        prompt=prompt,
        attempt=1,
        instructions=instructions,
        need_empty_prompt=need_empty_prompt,
    )


@pytest.fixture
async def sim() -> AsyncIterator[ApiSimServer]:
    async with ApiSimServer(ApiSimConfig(retry_after_s=2.5, chunks=4)) as server:
        yield server


@pytest.fixture
async def make_backend() -> AsyncIterator[BackendFactory]:
    backends: list[ApiBackend] = []

    async def factory(base_url: str, **kwargs: Any) -> ApiBackend:
        backend = ApiBackend(name="writer", base_url=base_url, model="sim-model", **kwargs)
        await backend.start()
        backends.append(backend)
        return backend

    yield factory
    for backend in backends:
        await backend.stop()


async def failure_of(backend: ApiBackend, task: TaskSpec, ctx: Ctx) -> TaskFailure:
    with pytest.raises(TaskFailure) as info:
        await backend.run(task, ctx)
    return info.value


# ------------------------------------------------------------------------ success paths
@pytest.mark.parametrize("stream", [False, True])
async def test_answer_with_instructions(
    sim: ApiSimServer, make_backend: BackendFactory, run_ctx: Ctx, stream: bool
) -> None:
    backend = await make_backend(sim.base_url, stream=stream)
    answer = await backend.run(spec("讲个笑话 please"), run_ctx)
    assert answer == answer_for("讲个笑话 please")
    task = sim.stats()["per_task"]["t-1"]
    assert task["last_answer"] == answer
    assert task["system_message_seen"] is True
    assert len(run_ctx.lines) == 1
    assert run_ctx.lines[0].startswith(f"POST /chat/completions stream={int(stream)} -> 200 in ")
    assert "讲个笑话" not in run_ctx.lines[0]  # no prompt in the log
    assert backend.health() == ("ready", None)


@pytest.mark.parametrize("stream", [False, True])
async def test_need_empty_prompt_sends_no_system_message(
    sim: ApiSimServer, make_backend: BackendFactory, run_ctx: Ctx, stream: bool
) -> None:
    backend = await make_backend(sim.base_url, stream=stream)
    await backend.run(spec("reason about it", task_id="r-1", need_empty_prompt=True), run_ctx)
    await backend.run(spec("no instructions", task_id="r-2", instructions=None), run_ctx)
    stats = sim.stats()
    assert stats["per_task"]["r-1"]["system_message_seen"] is False
    assert stats["per_task"]["r-2"]["system_message_seen"] is False
    assert stats["system_messages"] == 0


def test_is_a_lane_backend() -> None:
    """How many requests run at once is the endpoint's gate's (scheduler/capacity.py), not the backend's."""
    backend = ApiBackend(name="w", base_url="http://127.0.0.1:1/v1", model="m")
    assert isinstance(backend, LaneBackend)
    assert not hasattr(backend, "capacity")
    assert backend.available()
    assert (backend.check_adapter, backend.resolve_challenge, backend.challenge_screenshot) == (None, None, None)
    with pytest.raises(ValueError, match=r"^api_key_keyring must be 'service:username', got 'no-colon'$"):
        ApiBackend(name="w", base_url="http://x/v1", model="m", api_key_keyring="no-colon")


async def test_run_before_start_is_a_clear_error(run_ctx: Ctx) -> None:
    backend = ApiBackend(name="w", base_url="http://127.0.0.1:1/v1", model="m")
    with pytest.raises(RuntimeError, match="not started"):
        await backend.run(spec("x"), run_ctx)


# ------------------------------------------------------------------------ failure classification
@pytest.mark.parametrize("stream", [False, True])
async def test_429_is_rate_limited_with_retry_after(
    sim: ApiSimServer, make_backend: BackendFactory, run_ctx: Ctx, stream: bool
) -> None:
    backend = await make_backend(sim.base_url, stream=stream)
    failure = await failure_of(backend, spec("q [[sim:fail=429x1]]"), run_ctx)
    assert failure.kind is ErrorKind.RATE_LIMITED
    assert failure.retryable
    assert failure.retry_after_s == 2.5
    assert "429" in failure.message
    assert "retry after 2.5 s" in run_ctx.lines[-1]
    # The second attempt of the same prompt succeeds (the marker fails only the first one).
    assert await backend.run(spec("q [[sim:fail=429x1]]"), run_ctx) == answer_for("q [[sim:fail=429x1]]")
    assert backend.health() == ("ready", None)


@pytest.mark.parametrize("stream", [False, True])
async def test_500_is_server_error(
    sim: ApiSimServer, make_backend: BackendFactory, run_ctx: Ctx, stream: bool
) -> None:
    backend = await make_backend(sim.base_url, stream=stream)
    failure = await failure_of(backend, spec("[[sim:fail=500x1]]"), run_ctx)
    assert failure.kind is ErrorKind.SERVER_ERROR
    assert failure.retryable
    assert failure.message.startswith("HTTP 500")
    status, last_error = backend.health()
    assert status == "ready" and last_error is not None and "server_error" in last_error


@pytest.mark.parametrize("stream", [False, True])
async def test_reset_is_connection_error(
    sim: ApiSimServer, make_backend: BackendFactory, run_ctx: Ctx, stream: bool
) -> None:
    backend = await make_backend(sim.base_url, stream=stream)
    failure = await failure_of(backend, spec("[[sim:reset]]"), run_ctx)
    assert failure.kind is ErrorKind.CONNECTION
    assert failure.retryable


async def test_refused_connection_is_connection_error(make_backend: BackendFactory, run_ctx: Ctx) -> None:
    async with ApiSimServer() as gone:
        url = gone.base_url
    backend = await make_backend(url)
    failure = await failure_of(backend, spec("x"), run_ctx)
    assert failure.kind is ErrorKind.CONNECTION


@pytest.mark.parametrize("stream", [False, True])
async def test_hang_is_timeout(
    sim: ApiSimServer, make_backend: BackendFactory, run_ctx: Ctx, stream: bool
) -> None:
    backend = await make_backend(sim.base_url, stream=stream, timeout_s=0.2)
    failure = await failure_of(backend, spec("[[sim:hang]]"), run_ctx)
    assert failure.kind is ErrorKind.TIMEOUT
    assert failure.retryable
    assert "-> timeout after" in run_ctx.lines[-1]


@pytest.mark.parametrize(
    ("marker", "kind"), [("[[sim:400]]", ErrorKind.BAD_REQUEST), ("[[sim:401]]", ErrorKind.AUTH)]
)
async def test_client_errors_are_not_retryable(
    sim: ApiSimServer, make_backend: BackendFactory, run_ctx: Ctx, marker: str, kind: ErrorKind
) -> None:
    backend = await make_backend(sim.base_url)
    failure = await failure_of(backend, spec(marker), run_ctx)
    assert failure.kind is kind
    assert not failure.retryable


# ------------------------------------------------------------------------ API key
async def test_missing_env_key_is_auth_and_sends_nothing(
    sim: ApiSimServer, make_backend: BackendFactory, run_ctx: Ctx, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("WRITER_KEY", raising=False)
    backend = await make_backend(sim.base_url, api_key_env="WRITER_KEY")
    failure = await failure_of(backend, spec("x"), run_ctx)
    assert failure.kind is ErrorKind.AUTH
    assert not failure.retryable
    assert failure.message == "environment variable WRITER_KEY is not set"
    assert sim.stats()["requests_total"] == 0
    assert "WRITER_KEY is not set" in run_ctx.lines[-1]


async def test_env_key_is_read_at_request_time(
    make_backend: BackendFactory, run_ctx: Ctx, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with ApiSimServer(ApiSimConfig(api_key=SECRET)) as keyed:
        monkeypatch.setenv("WRITER_KEY", "sk-wrong")
        backend = await make_backend(keyed.base_url, api_key_env="WRITER_KEY")
        failure = await failure_of(backend, spec("x"), run_ctx)
        # the key rejected: it stops the endpoint (unavailable to us as configured), nothing charged
        assert failure.kind is ErrorKind.AUTH and failure.unavailable
        assert failure.message.startswith("key rejected (HTTP 401)") and "sk-wrong" not in failure.message
        monkeypatch.setenv("WRITER_KEY", SECRET + "\n")  # a trailing newline from `echo` is tolerated
        assert await backend.run(spec("x"), run_ctx) == answer_for("x")
    assert not any(SECRET in line for line in run_ctx.lines)


class _MemoryKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def __init__(self, secrets: dict[tuple[str, str], str]) -> None:
        super().__init__()
        self.secrets = secrets

    def get_password(self, service: str, username: str) -> str | None:
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.secrets.pop((service, username), None)


class _BrokenKeyring(_MemoryKeyring):
    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("locked")


@pytest.fixture
def restore_keyring() -> Any:
    previous = keyring.get_keyring()
    yield
    keyring.set_keyring(previous)


async def test_keyring_key(make_backend: BackendFactory, run_ctx: Ctx, restore_keyring: Any) -> None:
    async with ApiSimServer(ApiSimConfig(api_key=SECRET)) as keyed:
        keyring.set_keyring(_MemoryKeyring({("mediadesk", "writer"): SECRET}))
        backend = await make_backend(keyed.base_url, api_key_keyring="mediadesk:writer")
        assert await backend.run(spec("k"), run_ctx) == answer_for("k")

        missing = await make_backend(keyed.base_url, api_key_keyring="mediadesk:nobody")
        failure = await failure_of(missing, spec("k"), run_ctx)
        assert failure.kind is ErrorKind.AUTH
        assert "API key not found in keyring" in failure.message

        keyring.set_keyring(_BrokenKeyring({}))
        failure = await failure_of(backend, spec("k"), run_ctx)
        assert failure.kind is ErrorKind.AUTH
        assert "keyring" in failure.message
        assert keyed.stats()["requests_total"] == 1


# ------------------------------------------------------------------------ odd servers
def _sse(*payloads: str) -> bytes:
    return "".join(f"data: {p}\n\n" for p in payloads).encode()


def _chunk(content: str | None = None, finish: str | None = None) -> str:
    delta = {} if content is None else {"content": content}
    return json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


async def _odd_handler(request: web.Request) -> web.StreamResponse:
    case = request.match_info["case"]
    auth = request.headers.get("Authorization", "")
    if case == "echo":
        return web.Response(status=500, text=f"upstream failed; request headers: Authorization: {auth}")
    if case == "echojson":
        body = {"error": {"message": f"bad key {auth.removeprefix('Bearer ')}", "type": "server_error"}}
        return web.json_response(body, status=502)
    if case == "malformed":
        return web.Response(text="{not json at all", content_type="application/json")
    if case == "nochoices":
        return web.json_response({"id": "x", "choices": []})
    if case == "stream-json":
        return web.json_response({"choices": [{"message": {"role": "assistant", "content": "plain"}}]})
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await resp.prepare(request)
    if case == "stream-error":
        error = {"error": {"message": "overloaded", "type": "server_error"}}
        await resp.write(_sse(_chunk("partial"), json.dumps(error)))
    elif case == "stream-invalid":
        error = {"error": {"message": "bad param", "type": "invalid_request_error"}}
        await resp.write(_sse(json.dumps(error)))
    elif case == "stream-no-done":
        chunks = _sse(_chunk("he"), _chunk(""), _chunk(None), _chunk("llo", "stop"))
        await resp.write(b": keep-alive\n\n" + chunks)
    elif case == "stream-no-finish":
        await resp.write(_sse(_chunk("hel"), _chunk("lo")))
    elif case == "stream-empty":
        await resp.write(b": keep-alive\n\n")
    elif case == "stream-cut":
        await resp.write(_sse(_chunk("half an ans")))
        assert request.transport is not None
        request.transport.abort()
        return resp
    await resp.write_eof()
    return resp


@pytest.fixture
async def odd_url() -> AsyncIterator[str]:
    app = web.Application()
    app.router.add_post("/{case}/v1/chat/completions", _odd_handler)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    yield f"http://127.0.0.1:{port}"
    await runner.cleanup()


@pytest.mark.parametrize("case", ["echo", "echojson"])
async def test_key_never_leaks_even_when_echoed(
    odd_url: str, make_backend: BackendFactory, run_ctx: Ctx, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    monkeypatch.setenv("WRITER_KEY", SECRET)
    backend = await make_backend(f"{odd_url}/{case}/v1", api_key_env="WRITER_KEY")
    failure = await failure_of(backend, spec("x"), run_ctx)
    assert failure.kind is ErrorKind.SERVER_ERROR
    assert "***" in failure.message  # the echo was there, and was scrubbed
    texts = [
        str(failure),
        repr(failure),
        failure.message,
        "".join(traceback.format_exception(failure)),
        *run_ctx.lines,
        str(backend.health()),
    ]
    for text in texts:
        assert SECRET not in text


@pytest.mark.parametrize(
    ("case", "stream", "expected"),
    [
        ("malformed", False, ErrorKind.SERVER_ERROR),
        ("nochoices", False, ErrorKind.SERVER_ERROR),
        ("stream-error", True, ErrorKind.SERVER_ERROR),
        ("stream-invalid", True, ErrorKind.BAD_REQUEST),
        # ended cleanly without [DONE] or finish_reason: not a whole answer (issue 9, item 14)
        ("stream-empty", True, ErrorKind.TRUNCATED_STREAM),
        ("stream-no-finish", True, ErrorKind.TRUNCATED_STREAM),
        ("stream-cut", True, ErrorKind.CONNECTION),
    ],
)
async def test_malformed_answers_are_classified(
    odd_url: str, make_backend: BackendFactory, run_ctx: Ctx, case: str, stream: bool, expected: ErrorKind
) -> None:
    backend = await make_backend(f"{odd_url}/{case}/v1", stream=stream)
    failure = await failure_of(backend, spec("x"), run_ctx)
    assert failure.kind is expected
    assert len(failure.message) < 400


@pytest.mark.parametrize(
    ("case", "expected"),
    [("stream-no-done", "hello"), ("stream-json", "plain")],
)
async def test_tolerated_stream_shapes(
    odd_url: str, make_backend: BackendFactory, run_ctx: Ctx, case: str, expected: str
) -> None:
    backend = await make_backend(f"{odd_url}/{case}/v1", stream=True)
    assert await backend.run(spec("x"), run_ctx) == expected


# ------------------------------------------------------------------------ cancellation
@pytest.mark.parametrize("stream", [False, True])
async def test_cancel_closes_the_request(
    sim: ApiSimServer, make_backend: BackendFactory, run_ctx: Ctx, stream: bool
) -> None:
    backend = await make_backend(sim.base_url, stream=stream)
    task = asyncio.create_task(backend.run(spec("[[sim:hang]]"), run_ctx))
    await until(lambda: sim.stats()["in_flight"] == 1, "the request to reach the simulator")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # The server saw the connection go away: the request is no longer in flight.
    await until(lambda: sim.stats()["in_flight"] == 0, "the simulator to see the request go away")
    assert "cancelled" in run_ctx.lines[-1]


async def test_key_with_bad_characters_is_refused_without_quoting_it(
    sim: ApiSimServer, make_backend: BackendFactory, run_ctx: Ctx, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WRITER_KEY", "sk-two words-секрет")
    backend = await make_backend(sim.base_url, api_key_env="WRITER_KEY")
    failure = await failure_of(backend, spec("x"), run_ctx)
    assert failure.kind is ErrorKind.AUTH
    assert "words" not in failure.message and "words" not in run_ctx.lines[-1]
    assert sim.stats()["requests_total"] == 0


def test_scrubber_catches_json_escaped_echoes() -> None:
    from mediadesk.providers.api.failures import Scrubber

    key = 'sk-a/b"c'
    scrub = Scrubber(key)
    echoed = json.dumps({"auth": f"Bearer {key}"})  # 'sk-a/b\\"c' once JSON-escaped
    assert key not in scrub(f"raw {key}")
    assert json.dumps(key)[1:-1] not in scrub(echoed)
    assert scrub(echoed).count("***") == 1
    assert Scrubber(None)("unchanged") == "unchanged"


# ------------------------------------------------------------------------ hostile servers (issue 9, 13-15)
_SENT = web.AppKey("sent", dict)


async def _hostile_handler(request: web.Request) -> web.StreamResponse:
    """Answers no honest server sends; ``app[_SENT]["n"]`` counts the bytes that went out."""
    case = request.match_info["case"]
    sent = request.app[_SENT]
    if case == "error-huge":  # a 500 whose body never ends
        resp = web.StreamResponse(status=500, headers={"Content-Type": "text/plain"})
    elif case == "declared-huge":  # says up front it is 2 MB
        blob = b'{"choices": [{"message": {"content": "' + b"x" * 2_000_000 + b'"}}]}'
        sent["n"] += len(blob)
        return web.Response(body=blob, content_type="application/json")
    else:  # endless-line: an SSE data line that never ends
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await resp.prepare(request)
    chunk = b"data: " if case == "endless-line" else b""
    try:
        while True:
            await resp.write(chunk + b"y" * 65536)
            sent["n"] += 65536
            chunk = b""
            await asyncio.sleep(0)
    except ConnectionError:
        pass
    return resp


@pytest.fixture
async def hostile_app() -> AsyncIterator[tuple[str, web.Application]]:
    app = web.Application()
    app[_SENT] = {"n": 0}
    app.router.add_post("/{case}/v1/chat/completions", _hostile_handler)
    runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}", app
    await runner.cleanup()


async def test_sse_line_without_end_is_too_large_and_reading_stops(
    hostile_app: tuple[str, web.Application], make_backend: BackendFactory, run_ctx: Ctx
) -> None:
    """Before: the SSE line buffer grew without bound (no newline ever came) until max memory."""
    url, app = hostile_app
    backend = await make_backend(f"{url}/endless-line/v1", stream=True, max_answer_chars=1000, timeout_s=5)
    failure = await failure_of(backend, spec("x"), run_ctx)
    assert failure.kind is ErrorKind.ANSWER_TOO_LARGE and not failure.retryable
    assert "max_answer_chars=1000" in failure.message and "stream event" in failure.message
    cap = 1000 * 12 + 1024 * 1024
    assert app[_SENT]["n"] < cap + 8 * 1024 * 1024  # stopped soon after the cap, not at the timeout


async def test_declared_length_over_the_cap_fails_without_reading(
    hostile_app: tuple[str, web.Application], make_backend: BackendFactory, run_ctx: Ctx
) -> None:
    url, _ = hostile_app
    backend = await make_backend(f"{url}/declared-huge/v1", max_answer_chars=10)
    failure = await failure_of(backend, spec("x"), run_ctx)
    assert failure.kind is ErrorKind.ANSWER_TOO_LARGE
    assert "body passed" in failure.message


@pytest.mark.parametrize("stream", [False, True])
async def test_huge_error_body_is_read_only_in_part(
    hostile_app: tuple[str, web.Application], make_backend: BackendFactory, run_ctx: Ctx, stream: bool
) -> None:
    """Before: ``resp.aread()`` / ``resp.text`` read an error body of any size whole."""
    url, app = hostile_app
    backend = await make_backend(f"{url}/error-huge/v1", stream=stream, timeout_s=5)
    failure = await failure_of(backend, spec("x"), run_ctx)
    assert failure.kind is ErrorKind.SERVER_ERROR and failure.message.startswith("HTTP 500")
    assert len(failure.message) < 400
    await until(lambda: app[_SENT]["n"] > 0, "the server to have sent something")
    assert app[_SENT]["n"] < 8 * 1024 * 1024


@pytest.mark.parametrize("stream", [False, True])
async def test_max_answer_chars_counts_characters(
    sim: ApiSimServer, make_backend: BackendFactory, run_ctx: Ctx, stream: bool
) -> None:
    """The cap is in characters (the answer mixes Chinese and an emoji): the exact length passes,
    one less fails, and too large is final."""
    prompt = "讲个笑话 🚀"
    n = len(answer_for(prompt))
    exact = await make_backend(sim.base_url, stream=stream, max_answer_chars=n)
    assert await exact.run(spec(prompt), run_ctx) == answer_for(prompt)
    short = await make_backend(sim.base_url, stream=stream, max_answer_chars=n - 1)
    failure = await failure_of(short, spec(prompt), run_ctx)
    assert failure.kind is ErrorKind.ANSWER_TOO_LARGE and not failure.retryable
    assert f"max_answer_chars={n - 1}" in failure.message
    assert "answer_too_large" in run_ctx.lines[-1]


@pytest.mark.parametrize("stream", [False, True])
async def test_finish_reason_length_is_an_answer_marked_truncated(
    sim: ApiSimServer, make_backend: BackendFactory, run_ctx: Ctx, stream: bool
) -> None:
    from mediadesk.core.backend import is_truncated

    backend = await make_backend(sim.base_url, stream=stream)
    prompt = "long [[sim:length]]"
    answer = await backend.run(spec(prompt), run_ctx)
    assert answer == answer_for(prompt)[: len(answer_for(prompt)) // 2]
    assert is_truncated(answer)
    assert "truncated: finish_reason=length" in run_ctx.lines[-1]
    whole = await backend.run(spec("short"), run_ctx)
    assert whole == answer_for("short") and not is_truncated(whole)


@pytest.mark.parametrize("stream", [False, True])
async def test_max_run_s_ends_an_attempt_that_keeps_sending(
    sim: ApiSimServer, make_backend: BackendFactory, run_ctx: Ctx, stream: bool
) -> None:
    backend = await make_backend(sim.base_url, stream=stream, timeout_s=2, max_run_s=0.5)
    assert backend.attempt_deadline_s > backend.max_run_s  # the lane's deadline is only a backstop
    failure = await failure_of(backend, spec("[[sim:steady=20]]"), run_ctx)
    assert failure.kind is ErrorKind.TIMEOUT and failure.retryable
    assert "max_run_s=0.5" in failure.message
    await until(lambda: sim.stats()["in_flight"] == 0, "the simulator to see the request closed")


def test_new_limits_are_checked() -> None:
    with pytest.raises(ValueError, match="max_answer_chars must be >= 1"):
        ApiBackend(name="w", base_url="http://x/v1", model="m", max_answer_chars=0)
    with pytest.raises(ValueError, match="max_run_s must be > 0"):
        ApiBackend(name="w", base_url="http://x/v1", model="m", max_run_s=0)


def test_sse_decoder_handles_split_lines_comments_and_multiline_data() -> None:
    from mediadesk.providers.api.reading import EventTooLong, SseDecoder

    d = SseDecoder(max_bytes=100)
    stream = b": keep-alive\r\n\r\ndata: {\"a\":\r\ndata:1}\r\n\r\nevent: x\ndata: [DONE]\r\r"
    events: list[str] = []
    for i in range(len(stream)):  # one byte at a time: every split point, CRLF halves included
        events += d.feed(stream[i:i + 1])
    assert events == ['{"a":\n1}', "[DONE]"]
    with pytest.raises(EventTooLong):
        SseDecoder(max_bytes=10).feed(b"data: " + b"z" * 20)
    big = SseDecoder(max_bytes=12)
    assert big.feed(b"data: 12345\n") == []
    with pytest.raises(EventTooLong):  # an event's data lines count together
        big.feed(b"data: 67890\n")


def test_new_error_kinds_retry_classification() -> None:
    from mediadesk.core.policy import RetryPolicy, Verdict

    policy = RetryPolicy(max_retries=2)
    too_large = TaskFailure(ErrorKind.ANSWER_TOO_LARGE, "big")
    cut = TaskFailure(ErrorKind.TRUNCATED_STREAM, "cut")
    assert policy.decide(too_large, 1, u=0.5).verdict is Verdict.FAIL
    assert policy.decide(cut, 1, u=0.5).verdict is Verdict.RETRY
    assert policy.decide(cut, 3, u=0.5).verdict is Verdict.FAIL


# ------------------------------------------------------------------ the key check (Test, Resume)
async def test_check_proves_the_key_with_a_one_token_completion(make_backend: BackendFactory,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """``probe()`` (the breaker's, ``GET /models``) says healthy to any key where the listing is open;
    ``check()`` asks a one-token answer with the key and says which."""
    async with ApiSimServer(ApiSimConfig(api_key=SECRET)) as keyed:
        monkeypatch.setenv("MD_CHECK_KEY", "sk-wrong-key-123")
        backend = await make_backend(keyed.base_url, api_key_env="MD_CHECK_KEY")
        assert (await backend.probe())[0] is True  # the listing is open to anyone: it proves nothing
        verdict, seen = await backend.check()
        assert verdict is CheckVerdict.KEY_REJECTED and seen.startswith("key rejected (HTTP 401)"), seen
        assert "sk-wrong-key-123" not in seen
        monkeypatch.setenv("MD_CHECK_KEY", SECRET)
        assert await backend.check() == (CheckVerdict.OK, "HTTP 200")
        assert keyed.stats()["status_counts"] == {"401": 1, "200": 1}


async def _token_limits(request: web.Request) -> web.Response:
    """A server that refuses ``max_tokens`` (as newer models do) and a limit below 16."""
    body = await request.json()
    seen = request.app[_SENT].setdefault("bodies", [])
    seen.append({k: v for k, v in body.items() if k.startswith("max_")})
    if "max_tokens" in body:
        return web.json_response({"error": {"message": "Unsupported parameter: 'max_tokens'; use "
                                            "'max_completion_tokens'"}}, status=400)
    return web.json_response({"choices": [{"message": {"content": "p"}, "finish_reason": "length"}]})


async def test_check_falls_back_to_max_completion_tokens(make_backend: BackendFactory) -> None:
    app = web.Application()
    app[_SENT] = {}
    app.router.add_post("/v1/chat/completions", _token_limits)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        backend = await make_backend(f"http://127.0.0.1:{runner.addresses[0][1]}/v1")
        assert await backend.check() == (CheckVerdict.OK, "HTTP 200")
        assert app[_SENT]["bodies"] == [{"max_tokens": 1}, {"max_completion_tokens": 1}]
    finally:
        await runner.cleanup()
