"""An OpenAI-compatible API simulator: a real aiohttp server on 127.0.0.1.

Why it exists: the API lane must survive quotas (429 + Retry-After), 5xx, hangs and resets, and the
tests must *prove* it never exceeded the callee's capacity. Real providers cannot be made to fail on
demand, so this server does, and counts what it saw (``max_concurrent``, system messages per task,
the exact answer sent) so a test can check the scheduler from the callee's side.

Answer text: always ``answer_for(prompt)`` = ``"答复: <prompt> ✅"`` where ``<prompt>`` is the LAST user
message verbatim (markers included). It mixes Chinese and an emoji on purpose, so the round trip
through SSE, the store and the console is checked for UTF-8. The text actually sent is recorded
as ``per_task[key]["last_answer"]``.

Deterministic per-request faults, written anywhere in the last user message:

* ``[[sim:400]]`` / ``[[sim:401]]``: answer that status at once.
* ``[[sim:hang]]``: never answer (until the client gives up or the server stops).
* ``[[sim:reset]]``: abort the TCP connection without any response.
* ``[[sim:fail=CODExN]]`` (``500x2``, ``429x1``, ``resetx2``, ``hangx1``): the first N requests
  carrying that exact prompt fail that way, later ones succeed.
* ``[[sim:sleep=SECONDS]]``: extra generation time (multiplied by ``time_scale``).

Marker faults are decided before the quota check (they are never counted as in flight); random
faults (``fail_rate``, ``hang_rate``, ``reset_rate``) hit admitted requests.

Stats (``server.stats()`` and ``GET /stats`` return the same dict; ``status_counts`` keys are
strings so both are identical: ``"200"``, ``"429"``, ..., plus ``"reset"`` and ``"hang"`` for
requests that got no HTTP response). ``refused_429`` counts every 429 sent (quota or injected).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import os
import random
import re
import sys
import time
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from mediadesk.sim._server import LocalServer

__all__ = [
    "MODEL_ID",
    "TASK_HEADER",
    "ApiSimConfig",
    "ApiSimServer",
    "add_arguments",
    "answer_for",
    "config_from_args",
    "prompt_key",
    "serve_from_args",
]

#: Request header naming the MediaDesk task; stats are keyed by it when present.
TASK_HEADER = "X-MediaDesk-Task"
MODEL_ID = "mediadesk-sim"

_MARKER_RE = re.compile(r"\[\[sim:([^\]]*)\]\]")
_FAIL_RE = re.compile(r"^fail=(\d{3}|reset|hang)x(\d+)$")
_JSON_HEADERS = {"Content-Type": "application/json; charset=utf-8"}


def answer_for(prompt: str) -> str:
    """The deterministic answer to ``prompt`` (the last user message)."""
    return f"答复: {prompt} ✅"


def prompt_key(prompt: str) -> str:
    """Stats key of a request without an ``X-MediaDesk-Task`` header: a short hash of the prompt."""
    return hashlib.sha1(prompt.encode("utf-8")).hexdigest()[:12]


@dataclass
class ApiSimConfig:
    """Behaviour of the simulator. Rates are probabilities in [0, 1], times are seconds."""

    latency: tuple[float, float] = (0.0, 0.0)
    time_scale: float = 1.0
    quota: int | None = None
    retry_after_s: float = 1.0
    fail_rate: float = 0.0
    hang_rate: float = 0.0
    reset_rate: float = 0.0
    seed: int | None = None
    api_key: str | None = None
    chunks: int = 8

    def __post_init__(self) -> None:
        lo, hi = self.latency
        if not (0 <= lo <= hi and math.isfinite(hi)):
            raise ValueError(f"latency must be 0 <= MIN <= MAX, got {self.latency!r}")
        if not (self.time_scale >= 0 and math.isfinite(self.time_scale)):
            raise ValueError(f"time_scale must be >= 0, got {self.time_scale!r}")
        if self.quota is not None and self.quota < 1:
            raise ValueError(f"quota must be >= 1, got {self.quota!r}")
        if not (self.retry_after_s >= 0 and math.isfinite(self.retry_after_s)):
            raise ValueError(f"retry_after_s must be >= 0, got {self.retry_after_s!r}")
        for name in ("fail_rate", "hang_rate", "reset_rate"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {value!r}")
        if self.chunks < 1:
            raise ValueError(f"chunks must be >= 1, got {self.chunks!r}")


@dataclass(frozen=True)
class _Markers:
    status: int | None = None
    hang: bool = False
    reset: bool = False
    fail: tuple[str, int] | None = None
    sleep_s: float = 0.0


_NO_MARKERS = _Markers()


def _parse_markers(prompt: str) -> _Markers:
    status: int | None = None
    hang = reset = False
    fail: tuple[str, int] | None = None
    sleep_s = 0.0
    for token in _MARKER_RE.findall(prompt):
        token = token.strip()
        if token in ("400", "401"):
            status = int(token)
        elif token == "hang":
            hang = True
        elif token == "reset":
            reset = True
        elif token.startswith("sleep="):
            try:
                sleep_s = max(0.0, float(token[6:]))
            except ValueError:
                pass
        elif m := _FAIL_RE.match(token):
            fail = (m.group(1), int(m.group(2)))
    return _Markers(status, hang, reset, fail, sleep_s)


def _split(text: str, n: int) -> list[str]:
    """Split into at most ``n`` non-empty pieces of near-equal length (by code point)."""
    n = max(1, min(n, len(text)))
    size, extra = divmod(len(text), n)
    pieces, pos = [], 0
    for i in range(n):
        end = pos + size + (1 if i < extra else 0)
        pieces.append(text[pos:end])
        pos = end
    return pieces


def _text_of(content: Any) -> str | None:
    """Message content as text: a string, or OpenAI's list of ``{"type": "text", "text": ...}`` parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return None


def _parse_body(body: Any) -> tuple[str, int, bool, str] | str:
    """(last user prompt, number of system messages, stream, model) or an error message."""
    if not isinstance(body, dict):
        return "request body must be a JSON object"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty list"
    prompt: str | None = None
    n_system = 0
    for msg in messages:
        if not isinstance(msg, dict):
            return "each message must be an object"
        role = msg.get("role")
        if role == "system":
            n_system += 1
        elif role == "user":
            prompt = _text_of(msg.get("content"))
    if prompt is None:
        return "no user message with text content"
    model = body.get("model")
    return prompt, n_system, bool(body.get("stream", False)), model if isinstance(model, str) else MODEL_ID


class _Stats:
    __slots__ = (
        "in_flight",
        "max_concurrent",
        "per_task",
        "refused_429",
        "requests_total",
        "status_counts",
        "system_messages",
    )

    def __init__(self, in_flight: int = 0) -> None:
        self.requests_total = 0
        self.in_flight = in_flight
        self.max_concurrent = in_flight
        self.status_counts: dict[str, int] = {}
        self.refused_429 = 0
        self.per_task: dict[str, dict[str, Any]] = {}
        self.system_messages = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests_total": self.requests_total,
            "max_concurrent": self.max_concurrent,
            "in_flight": self.in_flight,
            "status_counts": dict(self.status_counts),
            "refused_429": self.refused_429,
            "per_task": {key: dict(task) for key, task in self.per_task.items()},
            "system_messages": self.system_messages,
        }


class ApiSimServer(LocalServer):
    """The simulator. ``async with ApiSimServer(ApiSimConfig()) as sim: sim.base_url``."""

    # handler_cancellation: a client that gives up cancels its handler, so in_flight drops at once.
    runner_options = {"handler_cancellation": True}

    def __init__(self, config: ApiSimConfig | None = None, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(host, port)
        self.config = config or ApiSimConfig()
        self._rng = random.Random(self.config.seed)
        self._st = _Stats()
        self._fail_counts: dict[str, int] = {}
        #: Futures of requests that are sleeping or hanging; stop() resolves them so nothing lingers.
        self._waits: set[asyncio.Future[bool]] = set()
        self._expected_auth = f"Bearer {self.config.api_key}" if self.config.api_key is not None else None
        self._seq = 0

    # ----------------------------------------------------------------- lifecycle
    def _routes(self) -> list[web.RouteDef]:
        return [
            web.post("/v1/chat/completions", self._chat),
            web.get("/v1/models", self._models),
            web.get("/stats", self._stats_handler),
            web.post("/stats/reset", self._reset_handler),
        ]

    def _before_stop(self) -> None:
        """Wake sleeping and hanging requests (they abort their connection)."""
        for fut in list(self._waits):
            if not fut.done():
                fut.set_result(False)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def stats(self) -> dict[str, Any]:
        """A snapshot (deep copy) of the counters; the same dict ``GET /stats`` returns."""
        return self._st.as_dict()

    def reset_stats(self) -> None:
        """Zero the counters and the ``fail=CODExN`` budgets; requests in flight stay counted."""
        self._st = _Stats(self._st.in_flight)
        self._fail_counts.clear()

    # ----------------------------------------------------------------- helpers
    def _count(self, code: str) -> None:
        counts = self._st.status_counts
        counts[code] = counts.get(code, 0) + 1

    def _error(self, status: int, message: str, etype: str = "invalid_request_error") -> web.Response:
        self._count(str(status))
        headers = dict(_JSON_HEADERS)
        if status == 429:
            self._st.refused_429 += 1
            headers["Retry-After"] = f"{self.config.retry_after_s:g}"
        body = {"error": {"message": message, "type": etype, "code": status}}
        return web.Response(status=status, text=json.dumps(body), headers=headers)

    def _abort(self, request: web.Request) -> web.Response:
        """Close the connection abruptly: the client sees a reset / protocol error, never a response."""
        transport = request.transport
        if transport is not None:
            transport.abort()
        # Nothing reaches the client; aiohttp drops the response of an aborted connection.
        return web.Response(status=499)

    async def _pause(self, seconds: float | None) -> bool:
        """Sleep ``seconds`` (None: forever). False if the server is stopping meanwhile."""
        if self._stopping:
            return False
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[bool] = loop.create_future()
        handle = loop.call_later(seconds, _resolve, fut) if seconds is not None else None
        self._waits.add(fut)
        try:
            return await fut
        finally:
            self._waits.discard(fut)
            if handle is not None:
                handle.cancel()

    async def _inject(self, request: web.Request, code: str) -> web.StreamResponse:
        if code == "reset":
            self._count("reset")
            return self._abort(request)
        if code == "hang":
            self._count("hang")
            await self._pause(None)
            return self._abort(request)
        status = int(code)
        return self._error(status, f"simulated {status}", "server_error" if status >= 500 else "sim_error")

    # ----------------------------------------------------------------- handlers
    async def _chat(self, request: web.Request) -> web.StreamResponse:
        st = self._st
        st.requests_total += 1
        if self._expected_auth is not None and request.headers.get("Authorization") != self._expected_auth:
            return self._error(401, "invalid or missing API key", "authentication_error")
        try:
            body = json.loads(await request.read())
        except (ValueError, UnicodeDecodeError):
            return self._error(400, "request body is not valid JSON")
        parsed = _parse_body(body)
        if isinstance(parsed, str):
            return self._error(400, parsed)
        prompt, n_system, stream, model = parsed

        key = request.headers.get(TASK_HEADER) or prompt_key(prompt)
        task = st.per_task.get(key)
        if task is None:
            task = st.per_task[key] = {
                "requests": 0,
                "system_message_seen": False,
                "last_answer": None,
                "answered": 0,
            }
        task["requests"] += 1
        if n_system:
            task["system_message_seen"] = True
            st.system_messages += n_system

        markers = _parse_markers(prompt) if "[[sim:" in prompt else _NO_MARKERS
        if markers.status is not None:
            etype = "authentication_error" if markers.status == 401 else "invalid_request_error"
            return self._error(markers.status, f"simulated {markers.status}", etype)
        if markers.fail is not None:
            code, times = markers.fail
            used = self._fail_counts.get(prompt, 0)
            if used < times:
                self._fail_counts[prompt] = used + 1
                return await self._inject(request, code)

        quota = self.config.quota
        if quota is not None and st.in_flight >= quota:
            return self._error(429, f"quota of {quota} concurrent requests exceeded", "rate_limit_error")
        st.in_flight += 1
        if st.in_flight > st.max_concurrent:
            st.max_concurrent = st.in_flight
        try:
            return await self._generate(request, prompt, key, stream, model, markers)
        finally:
            # The stats object may have been replaced by reset_stats(); decrement the live one.
            self._st.in_flight -= 1

    async def _generate(
        self, request: web.Request, prompt: str, key: str, stream: bool, model: str, markers: _Markers
    ) -> web.StreamResponse:
        cfg, rng = self.config, self._rng
        if markers.reset or (cfg.reset_rate and rng.random() < cfg.reset_rate):
            return await self._inject(request, "reset")
        if markers.hang or (cfg.hang_rate and rng.random() < cfg.hang_rate):
            return await self._inject(request, "hang")
        fail = bool(cfg.fail_rate) and rng.random() < cfg.fail_rate
        lo, hi = cfg.latency
        delay = (rng.uniform(lo, hi) if hi > 0 else 0.0) + markers.sleep_s
        delay *= cfg.time_scale
        answer = answer_for(prompt)
        self._seq += 1
        cid = f"chatcmpl-sim-{self._seq}"

        if not stream or fail:
            if delay > 0 and not await self._pause(delay):
                return self._abort(request)
            if fail:
                return self._error(500, "simulated server error", "server_error")
            self._record(key, answer)
            body = {
                "id": cid,
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": answer},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": len(prompt),
                    "completion_tokens": len(answer),
                    "total_tokens": len(prompt) + len(answer),
                },
            }
            return web.Response(text=json.dumps(body, ensure_ascii=False), headers=_JSON_HEADERS)

        resp = web.StreamResponse(
            headers={"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache"}
        )
        await resp.prepare(request)
        pieces = _split(answer, cfg.chunks)
        step = delay / len(pieces)
        created = int(time.time())

        def event(delta: dict[str, str], finish: str | None) -> str:
            chunk = {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            return "data: " + json.dumps(chunk, ensure_ascii=False) + "\n\n"

        # A comment first, as real providers send keep-alives: clients must ignore it.
        out = [": sim keep-alive\n\n"]
        for i, piece in enumerate(pieces):
            delta = {"role": "assistant", "content": piece} if i == 0 else {"content": piece}
            if step > 0:
                await resp.write("".join(out).encode())
                out.clear()
                if not await self._pause(step):
                    return self._abort(request)
            out.append(event(delta, None))
        out.append(event({}, "stop"))
        out.append("data: [DONE]\n\n")
        await resp.write("".join(out).encode())
        await resp.write_eof()
        self._record(key, answer)
        return resp

    def _record(self, key: str, answer: str) -> None:
        self._count("200")
        task = self._st.per_task.get(key)
        if task is not None:  # None only if reset_stats() ran meanwhile
            task["last_answer"] = answer
            task["answered"] += 1

    async def _models(self, request: web.Request) -> web.Response:
        body = {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "owned_by": "mediadesk"}]}
        return web.Response(text=json.dumps(body), headers=_JSON_HEADERS)

    async def _stats_handler(self, request: web.Request) -> web.Response:
        return web.Response(text=json.dumps(self.stats(), ensure_ascii=False), headers=_JSON_HEADERS)

    async def _reset_handler(self, request: web.Request) -> web.Response:
        self.reset_stats()
        return web.Response(text='{"ok": true}', headers=_JSON_HEADERS)


def _resolve(fut: asyncio.Future[bool]) -> None:
    if not fut.done():
        fut.set_result(True)


# --------------------------------------------------------------------------- CLI glue
def _latency_arg(text: str) -> tuple[float, float]:
    parts = text.split(",")
    try:
        if len(parts) == 1:
            lo = hi = float(parts[0])
        elif len(parts) == 2:
            lo, hi = float(parts[0]), float(parts[1])
        else:
            raise ValueError
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MIN,MAX in seconds (e.g. 0.5,2), got {text!r}") from None
    if not (0 <= lo <= hi and math.isfinite(hi)):
        raise argparse.ArgumentTypeError(f"need 0 <= MIN <= MAX, got {text!r}")
    return lo, hi


def _nonneg_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (value >= 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
    return value


def _rate(text: str) -> float:
    value = _nonneg_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"a rate is between 0 and 1, got {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {text!r}")
    return value


def _port_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port must be 0..65535 (0 = any free port), got {text!r}")
    return value


def _loopback_arg(text: str) -> str:
    """Simulators are test fixtures: they only ever listen on this machine's loopback."""
    import ipaddress

    if text == "localhost":
        return text
    try:
        if ipaddress.ip_address(text).is_loopback:
            return text
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{text!r} is not a loopback address (use 127.0.0.1, ::1 or localhost)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags of ``mediadesk sim api``."""
    parser.add_argument("--host", type=_loopback_arg, default="127.0.0.1",
                        help="loopback address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=_port_arg, default=0, help="port (default 0: any free port)")
    parser.add_argument(
        "--latency", type=_latency_arg, default=(0.0, 0.0), metavar="MIN,MAX",
        help="generation time, uniform between MIN and MAX seconds (default 0,0)",
    )
    parser.add_argument("--time-scale", type=_nonneg_float, default=1.0, help="multiplies every latency")
    parser.add_argument(
        "--quota", type=_positive_int, default=None, help="max concurrent generations (429 beyond)"
    )
    parser.add_argument("--retry-after", type=_nonneg_float, default=1.0, help="Retry-After seconds on a 429")
    parser.add_argument("--fail-rate", type=_rate, default=0.0, help="probability of a 500")
    parser.add_argument("--hang-rate", type=_rate, default=0.0, help="probability of never answering")
    parser.add_argument("--reset-rate", type=_rate, default=0.0, help="probability of a connection reset")
    parser.add_argument("--seed", type=int, default=None, help="random seed for latency and faults")
    parser.add_argument(
        "--api-key-env", metavar="NAME", default=None,
        help="require 'Authorization: Bearer <key>' with the key read from this environment variable",
    )
    parser.add_argument("--chunks", type=_positive_int, default=8, help="SSE chunks per streamed answer")


def config_from_args(args: argparse.Namespace) -> ApiSimConfig:
    """Build the config; raises ValueError with a message fit for the operator."""
    api_key: str | None = None
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env)
        if not api_key:
            raise ValueError(f"--api-key-env: environment variable {args.api_key_env} is not set")
    return ApiSimConfig(
        latency=args.latency,
        time_scale=args.time_scale,
        quota=args.quota,
        retry_after_s=args.retry_after,
        fail_rate=args.fail_rate,
        hang_rate=args.hang_rate,
        reset_rate=args.reset_rate,
        seed=args.seed,
        api_key=api_key,
        chunks=args.chunks,
    )


async def serve_from_args(args: argparse.Namespace) -> None:
    """Run the simulator until cancelled. Bad settings exit with status 2 and one line, no traceback."""
    try:
        config = config_from_args(args)
    except ValueError as exc:
        print(f"mediadesk sim api: error: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None
    server = ApiSimServer(config, host=args.host, port=args.port)
    try:
        await server.start()
    except OSError as exc:
        where = f"{args.host}:{args.port}"
        print(f"mediadesk sim api: error: cannot listen on {where}: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None
    try:
        print(f"API simulator on {server.base_url}", flush=True)
        await asyncio.Event().wait()
    finally:
        await server.stop()

