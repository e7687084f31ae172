"""An OpenAI-compatible API simulator: a real aiohttp server on 127.0.0.1.

Real providers cannot be made to fail on demand (429 + Retry-After, 5xx, hangs, resets, outages, hostile
answers), so this one does, and counts what it saw so a test can check the scheduler from the callee's
side. ``stats()`` and ``GET /stats`` return the same dict (counters: :mod:`mediadesk.sim._api_stats`).
The answer is always :func:`answer_for` of the last user message (Chinese and an emoji: UTF-8 is checked
end to end); with ``reasoning`` set, :func:`thought_for` comes before it as a reasoning model's thinking.
Markers: :mod:`~mediadesk.sim._api_requests`; live quota/outage changes: :mod:`~mediadesk.sim._api_controls`,
:mod:`~mediadesk.sim._api_outages`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import random
import time
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from mediadesk.sim._admin_json import JSON_HEADERS
from mediadesk.sim._api_batches import BatchApiMixin, BatchState
from mediadesk.sim._api_controls import UNSET, FaultControlMixin, Unset, auth_key_label, key_hash
from mediadesk.sim._api_hostile import HOSTILE_MODES, Hostile, HostileAnswerMixin, HostileStats
from mediadesk.sim._api_outages import OUTAGE_MODES, Outage, OutageControl
from mediadesk.sim._api_requests import MODEL_ID, NO_MARKERS, Markers, parse_body, parse_markers, split
from mediadesk.sim._api_stats import ChatStats
from mediadesk.sim._api_tokens import TokenLimits, count_tokens, usage_body
from mediadesk.sim._server import LocalServer
from mediadesk.sim.api_config import REASONING_MODES, ApiSimConfig, ReasoningMode

# ApiSimConfig and the mode names are re-exported: every caller builds a server from a config.
__all__ = [
    "HOSTILE_MODES",
    "MODEL_ID",
    "OUTAGE_MODES",
    "REASONING_MODES",
    "TASK_HEADER",
    "ApiSimConfig",
    "ApiSimServer",
    "Hostile",
    "answer_for",
    "key_hash",
    "prompt_key",
    "thought_for",
]

#: Request header naming the MediaDesk task; stats are keyed by it when present.
TASK_HEADER = "X-MediaDesk-Task"

#: OpenAI's wording for an account out of credit (429, type and code ``insufficient_quota``).
_NO_CREDIT_MESSAGE = (
    "You exceeded your current quota, please check your plan and billing details. "
    "(simulated insufficient_quota)"
)


def answer_for(prompt: str) -> str:
    """The deterministic answer to ``prompt`` (the last user message)."""
    return f"答复: {prompt} ✅"


def thought_for(prompt: str) -> str:
    """The deterministic thinking before the answer to ``prompt`` (``ApiSimConfig.reasoning`` set)."""
    return f"The user asks: {prompt}. 先想一想，再简短回答 🤔"


@dataclass(frozen=True)
class _Thinking:
    """The thinking of one chat answer: its text as sent (cut where ``max_tokens`` fell), the tokens
    reported for it, and whether the limit ended the answer before any of it was written."""

    mode: ReasoningMode
    text: str
    tokens: int
    cut: bool

    @property
    def finish(self) -> str:
        return "length" if self.cut else "stop"

    @property
    def field(self) -> str | None:
        """``reasoning_content`` (mode ``field``)."""
        return self.text if self.mode == "field" else None

    def content(self, answer: str) -> str:
        """The content: the answer (none when cut), after a ``<think>`` block in mode ``think_tag``."""
        if self.mode != "think_tag":
            return "" if self.cut else answer
        return f"<think>\n{self.text}" if self.cut else f"<think>\n{self.text}\n</think>\n\n{answer}"


def prompt_key(prompt: str) -> str:
    """Stats key of a request without an ``X-MediaDesk-Task`` header: a short hash of the prompt."""
    return hashlib.sha1(prompt.encode("utf-8")).hexdigest()[:12]


class ApiSimServer(FaultControlMixin, HostileAnswerMixin, BatchApiMixin, LocalServer):
    """The simulator. ``async with ApiSimServer(ApiSimConfig()) as sim: sim.base_url``."""

    _answer = staticmethod(answer_for)  # the Batch API's answers too

    # handler_cancellation: a client that gives up cancels its handler, so in_flight drops at once.
    runner_options = {"handler_cancellation": True}

    def __init__(self, config: ApiSimConfig | None = None, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(host, port)
        self.config = config or ApiSimConfig()
        self._rng = random.Random(self.config.seed)
        self._st = ChatStats()
        self._fail_counts: dict[str, int] = {}
        #: Futures of requests that are sleeping or hanging; stop() resolves them so nothing lingers.
        self._waits: set[asyncio.Future[bool]] = set()
        self._expected_auth = f"Bearer {self.config.api_key}" if self.config.api_key is not None else None
        self._seq = 0
        #: Chat requests in flight per key label; live state, so reset_stats() keeps it.
        self._key_in_flight: dict[str, int] = {}
        self._outages = OutageControl()
        #: Fires at the next planned outage change, to close or re-open the port for ``refuse``.
        self._outage_timer: asyncio.TimerHandle | None = None
        cfg = self.config
        self.hostile = None if cfg.hostile is None else Hostile(cfg.hostile, cfg.hostile_chars, cfg.hostile_seconds)
        self._hostile_stats = HostileStats()
        self._tokens, self._batch_state = TokenLimits(cfg.tpm, cfg.rpm), BatchState()

    # ----------------------------------------------------------------- lifecycle
    def _routes(self) -> list[web.RouteDef]:
        return [
            web.post("/v1/chat/completions", self._chat),
            web.get("/v1/models", self._models),
            web.get("/stats", self._stats_handler),
            web.post("/stats/reset", self._reset_handler),
            *self._admin_routes(),
            *self._hostile_routes(),
            *self._batch_routes(),
        ]

    async def start(self) -> None:
        """Start serving; a configured outage (``outage_after_s``) is scheduled from this moment."""
        await super().start()
        cfg = self.config
        if cfg.outage_after_s is not None:
            self._outages.schedule(
                cfg.outage_mode, cfg.outage_after_s, cfg.outage_for_s, self._outage_retry_after(cfg.outage_mode)
            )
        self._outage_changed()

    def _outage_changed(self) -> None:
        """Listen exactly when no ``refuse`` outage is in force, and arm a timer for the next planned
        change (no request can arrive to settle a ``refuse`` outage lazily). A port that cannot be
        re-bound (taken meanwhile) is tried again shortly; ``stats()["listening"]`` shows it."""
        if self._outage_timer is not None:
            self._outage_timer.cancel()
            self._outage_timer = None
        if self._runner is None or self._stopping:
            return
        outage = self._outages.current()
        retry = False
        if outage is not None and outage.mode == "refuse":
            self.close_listener()
        else:
            try:
                self.open_listener()
            except OSError:
                retry = True
        delays = [0.1] if retry else []
        nxt = self._outages.next_change()
        if nxt is not None:
            delays.append(nxt)
        if delays:
            # +1 ms: the monotonic clock must have passed the planned time when the timer fires
            self._outage_timer = asyncio.get_running_loop().call_later(min(delays) + 0.001, self._outage_changed)

    def _before_stop(self) -> None:
        """Wake sleeping and hanging requests (they abort their connection)."""
        if self._outage_timer is not None:
            self._outage_timer.cancel()
            self._outage_timer = None
        for fut in list(self._waits):
            if not fut.done():
                fut.set_result(False)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def stats(self) -> dict[str, Any]:
        """A snapshot (deep copy) of the counters; the same dict ``GET /stats`` returns."""
        return {**self._st.as_dict(), **self._outages.stats(), **self._hostile_stats.as_dict(),
                **self._tokens.stats(), **self._batch_state.stats(), "listening": self.listening}

    def reset_stats(self) -> None:
        """Zero the counters and the ``fail=CODExN`` budgets; requests in flight stay counted, and an
        outage in force stays in force (only its request count restarts)."""
        self._st = ChatStats(self._st.in_flight, self._key_in_flight)
        self._fail_counts.clear()
        self._outages.reset_counts()
        self._hostile_stats = HostileStats()
        self._tokens.charged = self._tokens.refused_tokens = self._tokens.refused_requests = 0

    # ----------------------------------------------------------------- faults
    def _outage_answer(self, request: web.Request, outage: Outage, chat: bool) -> web.StreamResponse | None:
        """What an outage answers to this request, or None if it lets the request through."""
        if outage.mode == "refuse":
            # The port is closed; this came on a connection opened before. Resetting it would look
            # like a request that broke; a gateway's "unavailable" (503, no wait) says what it is.
            resp = self._error(503, "simulated outage: endpoint down (its port refuses connections)",
                               "server_error", retry_after=None, count=chat)
            resp.force_close()  # and the connection closes: the next request must connect, and is refused
            return resp
        if outage.mode == "503":
            return self._error(503, "simulated outage: service unavailable", "server_error",
                               retry_after=outage.retry_after, count=chat)
        if not chat:  # 429 and insufficient_quota concern generations, not the model listing
            return None
        if outage.mode == "429":
            return self._error(429, "simulated outage: rate limited", "rate_limit_error",
                               retry_after=outage.retry_after)
        return self._error(429, _NO_CREDIT_MESSAGE, "insufficient_quota", code="insufficient_quota",
                           retry_after=outage.retry_after)

    # ----------------------------------------------------------------- helpers
    def _count(self, code: str) -> None:
        counts = self._st.status_counts
        counts[code] = counts.get(code, 0) + 1

    def _error(
        self,
        status: int,
        message: str,
        etype: str = "invalid_request_error",
        *,
        code: int | str | None = None,
        retry_after: str | Unset | None = UNSET,
        count: bool = True,
    ) -> web.Response:
        """An OpenAI-shaped error. A 429 carries the config's Retry-After unless ``retry_after`` says
        otherwise; ``count=False`` keeps it out of the chat counters (a ``/models`` answer)."""
        headers = dict(JSON_HEADERS)
        if count:
            self._count(str(status))
            if status == 429:
                self._st.refused_429 += 1
        if isinstance(retry_after, Unset):
            retry_after = self.config.retry_after_header if status == 429 else None
        if retry_after is not None:
            headers["Retry-After"] = retry_after
        error: dict[str, Any] = {"message": message, "type": etype, "code": status if code is None else code}
        if code is not None:
            error["param"] = None
        return web.Response(status=status, text=json.dumps({"error": error}), headers=headers)

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
        # An outage sits in front of everything (as a gateway does): no auth, no body parsing.
        outage = self._outages.note_request()
        if outage is not None and (answer := self._outage_answer(request, outage, chat=True)) is not None:
            return answer
        if self._expected_auth is not None and request.headers.get("Authorization") != self._expected_auth:
            return self._error(401, "invalid or missing API key", "authentication_error")
        try:
            body = json.loads(await request.read())
        except (ValueError, UnicodeDecodeError):
            return self._error(400, "request body is not valid JSON")
        parsed = parse_body(body)
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
                # the same task requested twice at once (by two processes, say) shows as 2 here
                "in_flight": 0,
                "max_in_flight": 0,
                # wall clock of the first request (rate limits across processes are checked on it)
                "first_request_at": time.time(),
            }
        task["requests"] += 1
        if n_system:
            task["system_message_seen"] = True
            st.system_messages += n_system

        markers = parse_markers(prompt) if "[[sim:" in prompt else NO_MARKERS
        if markers.status is not None:
            etype = "authentication_error" if markers.status == 401 else "invalid_request_error"
            return self._error(markers.status, f"simulated {markers.status}", etype)
        if markers.fail is not None:
            code, times = markers.fail
            used = self._fail_counts.get(prompt, 0)
            if used < times:
                self._fail_counts[prompt] = used + 1
                return await self._inject(request, code)

        quota, per_key = self.config.quota, self.config.per_key_quota
        if quota is not None and st.in_flight >= quota:
            return self._error(429, f"quota of {quota} concurrent requests exceeded", "rate_limit_error")
        label = auth_key_label(request.headers.get("Authorization"))
        key_in_flight = self._key_in_flight.get(label, 0)
        if per_key is not None and key_in_flight >= per_key:
            st.refused_429_per_key += 1
            return self._error(
                429, f"quota of {per_key} concurrent requests for this API key exceeded", "rate_limit_error"
            )
        usage = self._tokens.usage(body["messages"], answer_for(prompt))
        thinking = self._thinking(prompt, body.get("max_tokens"))
        if thinking is not None:  # the thinking is completion too; cut, nothing but (part of) it was written
            usage = (usage[0], thinking.tokens + (0 if thinking.cut else usage[1]), usage[2])
        refused = self._tokens.admit(usage[0] + usage[1])
        if refused is not None:
            resp = self._error(429, refused[0], "rate_limit_error", code="rate_limit_exceeded",
                               retry_after=str(math.ceil(refused[1])))
            resp.headers.update(self._tokens.headers())
            return resp
        task["last_max_tokens"] = body.get("max_tokens")  # recorded, enforced only on the thinking
        options = body.get("stream_options")
        include_usage = isinstance(options, dict) and options.get("include_usage") is True
        st.in_flight += 1
        if st.in_flight > st.max_concurrent:
            st.max_concurrent = st.in_flight
        task["in_flight"] += 1
        task["max_in_flight"] = max(task["max_in_flight"], task["in_flight"])
        self._key_in_flight[label] = key_in_flight = key_in_flight + 1
        if key_in_flight > st.max_in_flight_per_key.get(label, 0):
            st.max_in_flight_per_key[label] = key_in_flight
        try:
            return await self._generate(request, prompt, key, stream, model, markers, usage, include_usage,
                                        thinking)
        finally:
            # The stats object may have been replaced by reset_stats(); decrement the live one.
            self._st.in_flight -= 1
            task["in_flight"] -= 1
            left = self._key_in_flight[label] - 1
            if left:
                self._key_in_flight[label] = left
            else:
                del self._key_in_flight[label]

    async def _generate(
        self, request: web.Request, prompt: str, key: str, stream: bool, model: str, markers: Markers,
        usage: tuple[int, int, int], include_usage: bool, thinking: _Thinking | None = None,
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
        hostile = markers.hostile or self.hostile
        if hostile is not None and not fail:
            if delay > 0 and not await self._pause(delay):
                return self._abort(request)
            self._count("200")
            return await self._send_hostile(request, hostile, stream=stream, model=model, cid=cid, answer=answer)

        if not stream or fail:
            if delay > 0 and not await self._pause(delay):
                return self._abort(request)
            if fail:
                return self._error(500, "simulated server error", "server_error")
            self._record(key, answer, usage, thinking)
            body: dict[str, Any] = {
                "id": cid,
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
            }
            if thinking is not None:
                message: dict[str, Any] = {"role": "assistant", "content": thinking.content(answer) or None}
                if thinking.field is not None:
                    message["reasoning_content"] = thinking.field
                body["choices"] = [{"index": 0, "message": message, "finish_reason": thinking.finish}]
            if cfg.report_usage:
                body["usage"] = _usage_body(usage, thinking)
            return web.Response(text=json.dumps(body, ensure_ascii=False),
                                headers={**JSON_HEADERS, **self._tokens.headers()})

        resp = web.StreamResponse(
            headers={"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache",
                     **self._tokens.headers()}
        )
        await resp.prepare(request)
        content = answer if thinking is None else thinking.content(answer)
        deltas: list[dict[str, str]] = []
        if thinking is not None and thinking.field:  # the thinking first, in deltas of its own
            deltas += [{"reasoning_content": p} for p in split(thinking.field, cfg.chunks)]
        if content:
            deltas += [{"content": p} for p in split(content, cfg.chunks)]
        deltas[0] = {"role": "assistant", **deltas[0]}
        step = delay / len(deltas)
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
        for delta in deltas:
            if step > 0:
                await resp.write("".join(out).encode())
                out.clear()
                if not await self._pause(step):
                    return self._abort(request)
            out.append(event(delta, None))
        out.append(event({}, "stop" if thinking is None else thinking.finish))
        if include_usage and cfg.stream_usage:  # the last chunk: no choices, the usage of the whole answer
            last = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                    "choices": [], "usage": _usage_body(usage, thinking)}
            out.append("data: " + json.dumps(last) + "\n\n")
        out.append("data: [DONE]\n\n")
        await resp.write("".join(out).encode())
        await resp.write_eof()
        self._record(key, answer, usage, thinking)
        return resp

    def _thinking(self, prompt: str, max_tokens: Any) -> _Thinking | None:
        """The thinking before the answer to ``prompt`` (None: ``reasoning`` is "none"); a ``max_tokens``
        below its tokens cuts it there, and no answer follows."""
        mode = self.config.reasoning
        if mode == "none":
            return None
        text = thought_for(prompt)
        tokens = self.config.think_tokens or count_tokens(text)
        if isinstance(max_tokens, int) and not isinstance(max_tokens, bool) and 0 < max_tokens < tokens:
            return _Thinking(mode, text[:max(1, len(text) * max_tokens // tokens)], max_tokens, cut=True)
        return _Thinking(mode, text, tokens, cut=False)

    def _record(self, key: str, answer: str, usage: tuple[int, int, int], thinking: _Thinking | None = None) -> None:
        self._count("200")
        task = self._st.per_task.get(key)
        if task is not None:  # None only if reset_stats() ran meanwhile
            task["last_answer"] = answer if thinking is None or not thinking.cut else ""
            task["last_usage"] = _usage_body(usage, thinking)
            task["answered"] += 1
            if thinking is not None:
                task["last_reasoning"] = thinking.text

    async def _models(self, request: web.Request) -> web.StreamResponse:
        """The model list; clients use it as a health probe, so it follows ``refuse``/``503`` outages."""
        self._st.models_requests += 1
        outage = self._outages.note_request()
        if outage is not None and (answer := self._outage_answer(request, outage, chat=False)) is not None:
            return answer
        body = {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "owned_by": "mediadesk"}]}
        return web.Response(text=json.dumps(body), headers=JSON_HEADERS)

    async def _stats_handler(self, request: web.Request) -> web.Response:
        return web.Response(text=json.dumps(self.stats(), ensure_ascii=False), headers=JSON_HEADERS)

    async def _reset_handler(self, request: web.Request) -> web.Response:
        self.reset_stats()
        return web.Response(text='{"ok": true}', headers=JSON_HEADERS)


def _usage_body(usage: tuple[int, int, int], thinking: _Thinking | None) -> dict[str, Any]:
    return usage_body(*usage, reasoning=None if thinking is None else thinking.tokens)


def _resolve(fut: asyncio.Future[bool]) -> None:
    if not fut.done():
        fut.set_result(True)
