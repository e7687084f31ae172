"""An OpenAI-compatible API simulator: a real aiohttp server on 127.0.0.1.

(~620 lines: the request handlers and their fault paths read best side by side; fault control and
the CLI already live in ``_faults.py`` and ``_api_cli.py``.)

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
* Hostile answers (``mediadesk.sim._faults.HostileMode``): ``[[sim:endless]]`` (never ends),
  ``[[sim:huge]]`` / ``[[sim:huge=CHARS]]`` (a complete answer of that size, default 50,000,000),
  ``[[sim:cut]]`` (the stream ends cleanly without finish_reason and [DONE]), ``[[sim:length]]``
  (part of the answer, finish_reason "length"), ``[[sim:steady=SECONDS]]`` (the answer as a steady
  trickle over that long). ``hostile`` in the config (``--hostile``, ``POST /admin/hostile``)
  answers every chat request that way; stats count them (``hostile_answers``, ``hostile_bytes_sent``,
  ``hostile_closed_by_client``).

Marker faults are decided before the quota check (they are never counted as in flight); random
faults (``fail_rate``, ``hang_rate``, ``reset_rate``) hit admitted requests.

Capacity (for capacity-aware dispatch tests; all of it can change while a batch runs, with
:meth:`ApiSimServer.set_quota` / ``POST /admin/quota`` and :meth:`ApiSimServer.set_outage` /
``POST /admin/outage``; ``GET`` on either answers the current settings):

* ``quota``: concurrent generations over all keys; ``per_key_quota``: per ``Authorization`` value.
  Beyond either, a 429 with ``Retry-After: retry_after_s``, or a bare 429 when ``send_retry_after``
  is False (or ``retry_after_s`` is None). Lowering a quota never cuts requests already admitted.
* Outages (``mediadesk.sim._faults``): ``"refuse"`` closes the listening socket for the outage (a
  connect gets ECONNREFUSED; requests under way finish; a request on a keep-alive connection opened
  before gets 503 without Retry-After and ``Connection: close``, as from a gateway in front of a
  dead server -- closing such connections instead races with a client that is sending on one, and a
  reset looks like a request that broke) and re-opens the same port when it ends --
  ``/stats`` and ``/admin/*`` are on that port, so use ``stats()``/``set_outage()`` in-process or give
  the outage a ``duration_s``; ``"503"`` answers 503 to both; ``"429"`` and
  ``"insufficient_quota"`` answer chat requests only (``/models`` stays 200, as a real provider's
  listing does while you are rate limited or out of credit). Requests already admitted finish.
  ``/stats`` and ``/admin/*`` are never affected (except that ``refuse`` closes their port too).

Stats (``server.stats()`` and ``GET /stats`` return the same dict; ``status_counts`` keys are
strings so both are identical: ``"200"``, ``"429"``, ..., plus ``"reset"`` and ``"hang"`` for
requests that got no HTTP response; a connect the kernel refused during a ``refuse`` outage never
reaches the server and is not counted anywhere). ``listening`` says whether the port accepts
connections now.
``status_counts`` and ``refused_429`` (every 429 sent: quota, per key, injected or outage) count chat
requests only; ``refused_429_per_key`` the per-key ones. ``requests_total`` and
``chat_requests_total`` are the same count of chat requests; ``models_requests`` counts
``GET /v1/models`` (health probes). ``max_in_flight_per_key`` maps :func:`key_hash` labels to the
most concurrent chat requests of that key (raw keys are never kept). ``outage`` (mode in force or
null), ``requests_during_outage`` (chat and models requests that met an outage) and ``outages``
(``mode``, ``started_at``/``ended_at`` wall-clock seconds, ``requests``) describe outages.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import random
import re
import time
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from mediadesk.sim._api_cli import add_arguments, config_from_args, serve_from_args
from mediadesk.sim._faults import (
    HOSTILE_HUGE_CHARS,
    HOSTILE_MODES,
    HOSTILE_STEADY_S,
    OUTAGE_MODES,
    UNSET,
    FaultControlMixin,
    Hostile,
    HostileAnswerMixin,
    HostileMode,
    HostileStats,
    Outage,
    OutageControl,
    OutageMode,
    Unset,
    auth_key_label,
    hostile_marker,
    key_hash,
)
from mediadesk.sim._server import LocalServer

__all__ = [
    "HOSTILE_MODES",
    "MODEL_ID",
    "OUTAGE_MODES",
    "TASK_HEADER",
    "ApiSimConfig",
    "ApiSimServer",
    "Hostile",
    "add_arguments",
    "answer_for",
    "config_from_args",
    "key_hash",
    "prompt_key",
    "serve_from_args",
]

#: Request header naming the MediaDesk task; stats are keyed by it when present.
TASK_HEADER = "X-MediaDesk-Task"
MODEL_ID = "mediadesk-sim"

_MARKER_RE = re.compile(r"\[\[sim:([^\]]*)\]\]")
_FAIL_RE = re.compile(r"^fail=(\d{3}|reset|hang)x(\d+)$")
_JSON_HEADERS = {"Content-Type": "application/json; charset=utf-8"}
#: OpenAI's wording for an account out of credit (429, type and code ``insufficient_quota``).
_NO_CREDIT_MESSAGE = (
    "You exceeded your current quota, please check your plan and billing details. "
    "(simulated insufficient_quota)"
)


def answer_for(prompt: str) -> str:
    """The deterministic answer to ``prompt`` (the last user message)."""
    return f"答复: {prompt} ✅"


def prompt_key(prompt: str) -> str:
    """Stats key of a request without an ``X-MediaDesk-Task`` header: a short hash of the prompt."""
    return hashlib.sha1(prompt.encode("utf-8")).hexdigest()[:12]


@dataclass
class ApiSimConfig:
    """Behaviour of the simulator. Rates are probabilities in [0, 1], times are seconds.

    ``retry_after_s`` is the ``Retry-After`` of every 429; ``send_retry_after=False`` (or
    ``retry_after_s=None``) sends bare 429s, as some providers do. ``outage_after_s`` schedules an
    outage of ``outage_mode`` that long after :meth:`ApiSimServer.start`, lasting ``outage_for_s``
    (None: until stopped or ended with ``set_outage(None)``).
    """

    latency: tuple[float, float] = (0.0, 0.0)
    time_scale: float = 1.0
    quota: int | None = None
    retry_after_s: float | None = 1.0
    fail_rate: float = 0.0
    hang_rate: float = 0.0
    reset_rate: float = 0.0
    seed: int | None = None
    api_key: str | None = None
    chunks: int = 8
    send_retry_after: bool = True
    per_key_quota: int | None = None
    outage_after_s: float | None = None
    outage_for_s: float | None = None
    outage_mode: OutageMode = "503"
    #: Answer every chat request the hostile way (None: normal answers); see ``_faults.HostileMode``.
    hostile: HostileMode | None = None
    hostile_chars: int = HOSTILE_HUGE_CHARS
    hostile_seconds: float = HOSTILE_STEADY_S

    def __post_init__(self) -> None:
        lo, hi = self.latency
        if not (0 <= lo <= hi and math.isfinite(hi)):
            raise ValueError(f"latency must be 0 <= MIN <= MAX, got {self.latency!r}")
        if not (self.time_scale >= 0 and math.isfinite(self.time_scale)):
            raise ValueError(f"time_scale must be >= 0, got {self.time_scale!r}")
        for name in ("quota", "per_key_quota"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be >= 1, got {value!r}")
        if self.retry_after_s is not None and not (self.retry_after_s >= 0 and math.isfinite(self.retry_after_s)):
            raise ValueError(f"retry_after_s must be >= 0, got {self.retry_after_s!r}")
        if self.outage_after_s is not None and not (
            self.outage_after_s >= 0 and math.isfinite(self.outage_after_s)
        ):
            raise ValueError(f"outage_after_s must be >= 0, got {self.outage_after_s!r}")
        if self.outage_for_s is not None:
            if self.outage_after_s is None:
                raise ValueError("outage_for_s needs outage_after_s (when the outage starts)")
            if not (self.outage_for_s > 0 and math.isfinite(self.outage_for_s)):
                raise ValueError(f"outage_for_s must be > 0, got {self.outage_for_s!r}")
        if self.outage_mode not in OUTAGE_MODES:
            raise ValueError(f"outage_mode must be one of {', '.join(OUTAGE_MODES)}, got {self.outage_mode!r}")
        for name in ("fail_rate", "hang_rate", "reset_rate"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {value!r}")
        if self.chunks < 1:
            raise ValueError(f"chunks must be >= 1, got {self.chunks!r}")
        if self.hostile is not None:
            Hostile(self.hostile, self.hostile_chars, self.hostile_seconds)  # raises ValueError if bad

    @property
    def retry_after_header(self) -> str | None:
        """The ``Retry-After`` value of a 429, or None for a bare 429."""
        if not self.send_retry_after or self.retry_after_s is None:
            return None
        return f"{self.retry_after_s:g}"


@dataclass(frozen=True)
class _Markers:
    status: int | None = None
    hang: bool = False
    reset: bool = False
    fail: tuple[str, int] | None = None
    sleep_s: float = 0.0
    hostile: Hostile | None = None


_NO_MARKERS = _Markers()


def _parse_markers(prompt: str) -> _Markers:
    status: int | None = None
    hang = reset = False
    fail: tuple[str, int] | None = None
    sleep_s = 0.0
    hostile: Hostile | None = None
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
        elif (h := hostile_marker(token)) is not None:
            hostile = h
    return _Markers(status, hang, reset, fail, sleep_s, hostile)


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
        "max_in_flight_per_key",
        "models_requests",
        "per_task",
        "refused_429",
        "refused_429_per_key",
        "requests_total",
        "status_counts",
        "system_messages",
    )

    def __init__(self, in_flight: int = 0, key_in_flight: dict[str, int] | None = None) -> None:
        self.requests_total = 0
        self.in_flight = in_flight
        self.max_concurrent = in_flight
        self.status_counts: dict[str, int] = {}
        self.refused_429 = 0
        self.refused_429_per_key = 0
        self.per_task: dict[str, dict[str, Any]] = {}
        self.system_messages = 0
        self.models_requests = 0
        #: Starts from the requests in flight, as ``max_concurrent`` does after a reset.
        self.max_in_flight_per_key: dict[str, int] = dict(key_in_flight or {})

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests_total": self.requests_total,
            "chat_requests_total": self.requests_total,
            "models_requests": self.models_requests,
            "max_concurrent": self.max_concurrent,
            "in_flight": self.in_flight,
            "max_in_flight_per_key": dict(self.max_in_flight_per_key),
            "status_counts": dict(self.status_counts),
            "refused_429": self.refused_429,
            "refused_429_per_key": self.refused_429_per_key,
            "per_task": {key: dict(task) for key, task in self.per_task.items()},
            "system_messages": self.system_messages,
        }


class ApiSimServer(FaultControlMixin, HostileAnswerMixin, LocalServer):
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
        #: Chat requests in flight per key label; live state, so reset_stats() keeps it.
        self._key_in_flight: dict[str, int] = {}
        self._outages = OutageControl()
        #: Fires at the next planned outage change, to close or re-open the port for ``refuse``.
        self._outage_timer: asyncio.TimerHandle | None = None
        cfg = self.config
        self.hostile = None if cfg.hostile is None else Hostile(cfg.hostile, cfg.hostile_chars, cfg.hostile_seconds)
        self._hostile_stats = HostileStats()

    # ----------------------------------------------------------------- lifecycle
    def _routes(self) -> list[web.RouteDef]:
        return [
            web.post("/v1/chat/completions", self._chat),
            web.get("/v1/models", self._models),
            web.get("/stats", self._stats_handler),
            web.post("/stats/reset", self._reset_handler),
            *self._admin_routes(),
            *self._hostile_routes(),
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
        re-bound (taken meanwhile) is tried again every 0.1 s; ``stats()["listening"]`` shows it."""
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
                "listening": self.listening}

    def reset_stats(self) -> None:
        """Zero the counters and the ``fail=CODExN`` budgets; requests in flight stay counted, and an
        outage in force stays in force (only its request count restarts)."""
        self._st = _Stats(self._st.in_flight, self._key_in_flight)
        self._fail_counts.clear()
        self._outages.reset_counts()
        self._hostile_stats = HostileStats()

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
        headers = dict(_JSON_HEADERS)
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
        st.in_flight += 1
        if st.in_flight > st.max_concurrent:
            st.max_concurrent = st.in_flight
        task["in_flight"] += 1
        task["max_in_flight"] = max(task["max_in_flight"], task["in_flight"])
        self._key_in_flight[label] = key_in_flight = key_in_flight + 1
        if key_in_flight > st.max_in_flight_per_key.get(label, 0):
            st.max_in_flight_per_key[label] = key_in_flight
        try:
            return await self._generate(request, prompt, key, stream, model, markers)
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

    async def _models(self, request: web.Request) -> web.StreamResponse:
        """The model list; clients use it as a health probe, so it follows ``refuse``/``503`` outages."""
        self._st.models_requests += 1
        outage = self._outages.note_request()
        if outage is not None and (answer := self._outage_answer(request, outage, chat=False)) is not None:
            return answer
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
