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

from mediadesk.core.backend import LaneBackend, TaskSpec
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.providers.api import ApiBackend
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer, answer_for
from tests.support import until

SECRET = "sk-test-NEVER-LEAK-7f3a9c"


class Ctx(Protocol):
    lane: str
    evidence_dir: Path
    lines: list[str]
    beats: int

    def log(self, message: str) -> None: ...
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


def test_is_a_lane_backend_with_settable_capacity() -> None:
    backend = ApiBackend(name="w", base_url="http://127.0.0.1:1/v1", model="m", concurrency=3)
    assert isinstance(backend, LaneBackend)
    assert backend.capacity == 3
    backend.capacity = 5
    assert backend.capacity == 5
    assert backend.available()
    with pytest.raises(ValueError, match=r"^concurrency must be >= 1, got 0$"):
        ApiBackend(name="w", base_url="http://x/v1", model="m", concurrency=0)
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
        assert failure.kind is ErrorKind.AUTH
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
        ("stream-empty", True, ErrorKind.CONNECTION),
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
    [("stream-no-done", "hello"), ("stream-no-finish", "hello"), ("stream-json", "plain")],
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
    from mediadesk.providers.api.backend import _Scrubber

    key = 'sk-a/b"c'
    scrub = _Scrubber(key)
    echoed = json.dumps({"auth": f"Bearer {key}"})  # 'sk-a/b\\"c' once JSON-escaped
    assert key not in scrub(f"raw {key}")
    assert json.dumps(key)[1:-1] not in scrub(echoed)
    assert scrub(echoed).count("***") == 1
    assert _Scrubber(None)("unchanged") == "unchanged"
