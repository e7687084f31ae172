"""The API lane's backend: one OpenAI-compatible endpoint, one shared httpx client.

Why one client per backend: building an ``httpx.AsyncClient`` costs ~60 ms (SSL context) and a
shared client keeps connections alive between tasks; it is made in ``start()`` and closed in
``stop()``. The lane owns *how many* attempts run at once (``capacity``); this class owns *how*
one attempt talks to the endpoint and how each failure is classified for the retry policy.

Secrets: the API key is read at request time (env var or OS keyring, named in the profile), so a
rotated key applies to the next attempt, and it is scrubbed from every message this module makes,
including server error bodies that echo request headers.

Hostile servers: nothing a server sends is read without a bound. Answer text is counted as it
arrives and reading stops (the connection is closed) past ``max_answer_chars``; a non-streamed
body, an SSE line and an error body are capped in bytes before they are parsed. ``timeout_s`` is
the longest silence (httpx's read timeout); ``max_run_s`` ends an attempt that keeps sending for
too long. A stream must end with ``[DONE]`` or a ``finish_reason``: one that just stops is a
retryable ``truncated_stream``; ``finish_reason: "length"`` is a success marked truncated.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from typing import Any
from urllib.parse import urlsplit

import httpx

from mediadesk import __version__
from mediadesk.core.backend import Answer, HealthStatus, RunContext, TaskSpec
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.core.policy import parse_retry_after

__all__ = ["EXCERPT_CHARS", "TASK_HEADER", "ApiBackend"]

#: Sent with every request: harmless for real providers, lets the simulator count per task.
TASK_HEADER = "X-MediaDesk-Task"
#: Longest excerpt of a server body quoted in an error message.
EXCERPT_CHARS = 300
_ENDPOINT = "/chat/completions"
_WS = re.compile(r"\s+")
#: Bytes of an error body (non-2xx) read at most: only an excerpt is ever shown.
_ERROR_BODY_BYTES = 64 * 1024
#: Bytes a JSON/SSE encoding may spend on one answer character (a non-BMP character escaped as a
#: surrogate pair is 12), plus room for the rest of the body: a body or SSE line past
#: ``max_answer_chars * _BYTES_PER_CHAR + _BODY_SLACK`` cannot hold an acceptable answer.
_BYTES_PER_CHAR = 12
_BODY_SLACK = 1024 * 1024
_NEWLINE = re.compile(rb"\r\n|\r|\n")


class _Scrubber:
    """Replaces the API key wherever it appears (servers sometimes echo the Authorization header)."""

    __slots__ = ("_forms",)

    def __init__(self, key: str | None) -> None:
        # The key as sent, and as a JSON encoder may escape it inside an echoed body.
        forms = {key, json.dumps(key)[1:-1], key.replace("/", "\\/")} if key else set()
        self._forms = sorted((f for f in forms if f), key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for form in self._forms:
            if form in text:
                text = text.replace(form, "***")
        return text


class _Attempt:
    """What the log line of one attempt needs, filled in as the attempt goes."""

    __slots__ = ("started", "status")

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.status: int | None = None

    def elapsed(self) -> float:
        return time.monotonic() - self.started


def _excerpt(text: str, scrub: _Scrubber) -> str:
    """A short, single-line, key-free excerpt; prefers a JSON error's own message."""
    detail = text
    try:
        obj = json.loads(text)
    except ValueError:
        obj = None
    if isinstance(obj, dict):
        err = obj.get("error", obj)
        if isinstance(err, dict):
            msg = err.get("message") or err.get("detail")
            if isinstance(msg, str) and msg:
                detail = msg
        elif isinstance(err, str) and err:
            detail = err
    detail = scrub(_WS.sub(" ", scrub(detail)).strip())  # scrub before cutting: never leave half a key
    if len(detail) > EXCERPT_CHARS:
        detail = detail[: EXCERPT_CHARS - 1] + "…"
    return detail


def _http_failure(status: int, text: str, headers: httpx.Headers, scrub: _Scrubber) -> TaskFailure:
    """Classify a non-2xx answer: 429/5xx retryable, 400/401/403/404 not.

    A 429 (and a 503 that names its wait) is the endpoint's capacity speaking: a *refusal*, which
    pauses the endpoint and never costs the task an attempt. A 429 whose error code says the account
    is out of credit (``insufficient_quota``) is not about load at all: waiting will not help."""
    excerpt = _excerpt(text, scrub)
    message = f"HTTP {status}: {excerpt}" if excerpt else f"HTTP {status}"
    wait = retry_after_from_headers(headers)
    if status == 429:
        if _out_of_credit(text):
            return TaskFailure(ErrorKind.OUT_OF_CREDIT, message + " (the account is out of credit: top it up)")
        return TaskFailure(ErrorKind.RATE_LIMITED, message, retry_after_s=wait, refusal=True)
    if status == 503 and wait is not None:
        return TaskFailure(ErrorKind.SERVER_ERROR, message, retry_after_s=wait, refusal=True)
    if status in (502, 503, 504):
        # the endpoint (or the proxy in front of it) is not serving: an outage, not this task
        return TaskFailure(ErrorKind.SERVER_ERROR, message, retry_after_s=wait, unavailable=True)
    if status >= 500:
        return TaskFailure(ErrorKind.SERVER_ERROR, message, retry_after_s=wait)
    if status in (401, 403):
        return TaskFailure(ErrorKind.AUTH, message)
    if status == 408:  # the server's own request timeout: worth another attempt
        return TaskFailure(ErrorKind.TIMEOUT, message)
    if 400 <= status < 500:
        return TaskFailure(ErrorKind.BAD_REQUEST, message)
    # 1xx/3xx: redirects are not followed; a redirecting endpoint means a wrong base_url.
    return TaskFailure(ErrorKind.CONFIG, f"{message} (unexpected status, check base_url)")


_OUT_OF_CREDIT = re.compile(r"insufficient_quota|insufficient[ _]balance|billing_hard_limit|quota_exceeded", re.I)
_DURATION = re.compile(r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?$")


def _out_of_credit(text: str) -> bool:
    """True when an error body's code/type says the account has no credit left."""
    try:
        obj = json.loads(text)
    except ValueError:
        return bool(_OUT_OF_CREDIT.search(text[:2000]))
    err = obj.get("error", obj) if isinstance(obj, dict) else obj
    if isinstance(err, dict):
        fields = " ".join(str(err.get(k, "")) for k in ("code", "type"))
        return bool(_OUT_OF_CREDIT.search(fields))
    return False


def _duration_s(value: str) -> float | None:
    """'20ms', '1.5s', '6m0s', '2' (seconds) -> seconds; None when it is not a duration."""
    value = value.strip()
    try:
        secs = float(value)
    except ValueError:
        m = _DURATION.match(value)
        if not value or m is None or not any(m.groups()):
            return None
        h, mi, sec, ms = (float(g) if g else 0.0 for g in m.groups())
        secs = h * 3600 + mi * 60 + sec + ms / 1000
    return secs if 0 <= secs < 1e7 else None


def retry_after_from_headers(headers: httpx.Headers) -> float | None:
    """The wait a refusal names, if any: the standard ``Retry-After`` first, then the common
    non-standard hints (``retry-after-ms``, ``x-ratelimit-reset-requests``/``-tokens``). A refusal
    that names no wait gets the gate's own jittered pause; never trust that one does."""
    wait = parse_retry_after(headers.get("retry-after"))
    if wait is not None:
        return wait
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            v = float(ms) / 1000
            if 0 <= v < 1e7:
                return v
        except ValueError:
            pass
    names = ("x-ratelimit-reset-requests", "x-ratelimit-reset-tokens")
    hints = [_duration_s(headers[h]) for h in names if h in headers]
    found = [h for h in hints if h is not None]
    return max(found) if found else None


def _provider_error(err: Any, scrub: _Scrubber) -> TaskFailure:
    """An ``error`` object inside a 200 answer or an SSE stream."""
    text = json.dumps(err, ensure_ascii=False) if not isinstance(err, str) else err
    excerpt = _excerpt(json.dumps({"error": err}, ensure_ascii=False), scrub) or _excerpt(text, scrub)
    probe = text.lower()
    if "invalid_request" in probe or "invalid request" in probe or "context_length" in probe:
        return TaskFailure(ErrorKind.BAD_REQUEST, f"provider error: {excerpt}")
    if _OUT_OF_CREDIT.search(probe):
        return TaskFailure(ErrorKind.OUT_OF_CREDIT, f"provider error: {excerpt} (the account is out of credit)")
    if "rate_limit" in probe or "rate limit" in probe:
        return TaskFailure(ErrorKind.RATE_LIMITED, f"provider error: {excerpt}", refusal=True)
    return TaskFailure(ErrorKind.SERVER_ERROR, f"provider error: {excerpt}")


def _parse_completion(raw: bytes, scrub: _Scrubber) -> tuple[str, str | None]:
    """(``choices[0].message.content``, ``finish_reason``) of a non-streamed answer; anything
    malformed is a server error."""
    text = raw.decode("utf-8", errors="replace")
    try:
        obj = json.loads(text)
    except ValueError:
        raise TaskFailure(ErrorKind.SERVER_ERROR, f"malformed JSON answer: {_excerpt(text, scrub)}") from None
    if isinstance(obj, dict) and obj.get("error"):
        raise _provider_error(obj["error"], scrub)
    try:
        choice = obj["choices"][0]
        content = choice["message"]["content"]
    except (KeyError, IndexError, TypeError):
        content = None
    if not isinstance(content, str):
        raise TaskFailure(
            ErrorKind.SERVER_ERROR, f"answer has no choices[0].message.content: {_excerpt(text, scrub)}"
        )
    reason = choice.get("finish_reason") if isinstance(choice, dict) else None
    return content, (reason if isinstance(reason, str) else None)


def _too_large(cap: int, what: str) -> TaskFailure:
    return TaskFailure(
        ErrorKind.ANSWER_TOO_LARGE,
        f"the answer passed max_answer_chars={cap} ({what}); reading stopped and the connection was closed",
    )


async def _read_capped(resp: httpx.Response, limit: int) -> bytes | None:
    """The body, or None as soon as it passes ``limit`` bytes (declared or read): never more than
    ``limit`` plus one network chunk is held. The caller closes the response."""
    declared = resp.headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        return None
    buf = bytearray()
    async for chunk in resp.aiter_bytes():
        buf += chunk
        if len(buf) > limit:
            return None
    return bytes(buf)


async def _error_text(resp: httpx.Response) -> str:
    """The start of an error body (at most ``_ERROR_BODY_BYTES``), for the excerpt."""
    buf = bytearray()
    async for chunk in resp.aiter_bytes():
        buf += chunk
        if len(buf) >= _ERROR_BODY_BYTES:
            break
    return bytes(buf[:_ERROR_BODY_BYTES]).decode(resp.encoding or "utf-8", errors="replace")


class _EventTooLong(Exception):
    """An SSE line or event passed the byte cap."""


class _SseDecoder:
    """Server-sent events from bytes, bounded: a line (or an event's data) longer than
    ``max_bytes`` raises :class:`_EventTooLong` instead of growing a buffer without end (a server
    that never sends a newline). Yields each event's data; comments and other fields are skipped."""

    __slots__ = ("_after_cr", "_buf", "_data", "_data_len", "_max")

    def __init__(self, max_bytes: int) -> None:
        self._buf = bytearray()
        self._data: list[str] = []
        self._data_len = 0
        self._max = max_bytes
        #: The last chunk ended with CR: a LF at the start of the next one belongs to it.
        self._after_cr = False

    def feed(self, chunk: bytes) -> list[str]:
        buf = self._buf
        buf += chunk
        events: list[str] = []
        pos = 1 if self._after_cr and buf[:1] == b"\n" else 0
        if buf:
            self._after_cr = False
        while True:
            m = _NEWLINE.search(buf, pos)
            if m is None:
                break
            data = self._line(bytes(buf[pos:m.start()]))
            if data is not None:
                events.append(data)
            pos = m.end()
            if m.group() == b"\r" and pos == len(buf):
                self._after_cr = True  # maybe the first half of a CRLF split across chunks
        del buf[:pos]
        if len(buf) > self._max:
            raise _EventTooLong
        return events

    def _line(self, raw: bytes) -> str | None:
        if not raw:  # a blank line ends an event
            if not self._data:
                return None
            data, self._data, self._data_len = "\n".join(self._data), [], 0
            return data
        line = raw.decode("utf-8", errors="replace")
        if line.startswith(":"):
            return None  # comment (keep-alive)
        name, _, value = line.partition(":")
        if name == "data":
            value = value[1:] if value.startswith(" ") else value
            self._data_len += len(raw)
            if self._data_len > self._max:
                raise _EventTooLong
            self._data.append(value)
        return None


def _transport_failure(exc: Exception, scrub: _Scrubber, att: _Attempt) -> TaskFailure:
    """Classify an httpx exception: timeouts, connection trouble, or our own configuration."""
    name = type(exc).__name__
    if isinstance(exc, httpx.TimeoutException):
        return TaskFailure(ErrorKind.TIMEOUT, f"{name} after {att.elapsed():.1f} s")
    if isinstance(exc, httpx.LocalProtocolError):
        # Its text may quote a request header (and so the key) in an escaped form: never echo it.
        return TaskFailure(ErrorKind.CONFIG, f"{name}: the request could not be sent (check headers)")
    detail = scrub(str(exc))[:200]
    if isinstance(exc, (httpx.UnsupportedProtocol, httpx.InvalidURL)):
        return TaskFailure(ErrorKind.CONFIG, f"{name}: {detail}")
    if isinstance(exc, httpx.DecodingError):
        return TaskFailure(ErrorKind.SERVER_ERROR, f"{name}: {detail}")
    if isinstance(exc, httpx.ConnectError):
        # nothing was sent: the endpoint is not there (refused, no route, DNS)
        return TaskFailure(ErrorKind.CONNECTION, f"{name}: {detail or 'connection refused'}", unavailable=True)
    # Connect errors, resets, RemoteProtocolError, ReadError, proxies, too many redirects.
    return TaskFailure(ErrorKind.CONNECTION, f"{name}: {detail or 'connection closed'}")


class ApiBackend:
    """A :class:`mediadesk.core.backend.LaneBackend` for one OpenAI-compatible endpoint."""

    #: No interactive login, and no reason to give beyond its health: an endpoint answers or not.
    login: None = None
    unavailable_reason: None = None

    def __init__(
        self,
        *,
        name: str,
        base_url: str,
        model: str,
        concurrency: int = 3,
        api_key_env: str | None = None,
        api_key_keyring: str | None = None,
        stream: bool = False,
        timeout_s: float = 60.0,
        connect_timeout_s: float = 10.0,
        extra_headers: dict[str, str] | None = None,
        max_answer_chars: int = 200_000,
        max_run_s: float = 600.0,
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        if max_answer_chars < 1:
            raise ValueError(f"max_answer_chars must be >= 1, got {max_answer_chars}")
        if not max_run_s > 0:
            raise ValueError(f"max_run_s must be > 0, got {max_run_s}")
        if api_key_keyring is not None:
            service, sep, username = api_key_keyring.partition(":")
            if not (sep and service and username):
                raise ValueError(f"api_key_keyring must be 'service:username', got {api_key_keyring!r}")
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.model = model
        #: Attempts the lane may run at once; the operator may change it at runtime (1..5).
        self.capacity = concurrency
        self.api_key_env = api_key_env or None
        self.api_key_keyring = api_key_keyring or None
        self.stream = stream
        #: Longest silence (connect excluded) before an attempt fails as TIMEOUT; per read, so a
        #: long stream that keeps sending is not cut off by it.
        self.timeout_s = timeout_s
        #: Longest one attempt may take in all, request sent to last byte (TIMEOUT past it).
        self.max_run_s = max_run_s
        #: Longest answer accepted; reading stops past it (ANSWER_TOO_LARGE, not retried).
        self.max_answer_chars = max_answer_chars
        self.connect_timeout_s = connect_timeout_s
        self.extra_headers = dict(extra_headers or {})
        self._url = self.base_url + _ENDPOINT
        self._client: httpx.AsyncClient | None = None
        self._last_error: str | None = None

    # ----------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        if self._client is not None:
            return
        # Built in a thread: the ~60 ms SSL setup would otherwise freeze the GUI loop.
        self._client = await asyncio.to_thread(
            httpx.AsyncClient,
            timeout=httpx.Timeout(self.timeout_s, connect=self.connect_timeout_s),
            # No hard cap here: the lane enforces capacity, and the operator may raise it at runtime.
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=max(5, self.capacity)),
            # identity: a compressed answer could inflate far past max_answer_chars inside one network
            # chunk before it is counted (answers are small; compression buys little here).
            headers={"User-Agent": f"MediaDesk/{__version__}", "Accept-Encoding": "identity"},
            follow_redirects=False,
        )

    async def stop(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    async def __aenter__(self) -> ApiBackend:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def available(self) -> bool:
        return True

    def health(self) -> tuple[str, str | None]:
        return HealthStatus.READY, self._last_error

    @property
    def domain(self) -> str | None:
        """The endpoint's host name (its ``[rates.per_domain]`` bucket)."""
        return urlsplit(self.base_url).hostname

    @property
    def attempt_deadline_s(self) -> float:
        """The lane's backstop: this backend ends an attempt at ``max_run_s`` itself."""
        return self.max_run_s + self.connect_timeout_s + 5.0

    @property
    def _byte_cap(self) -> int:
        return self.max_answer_chars * _BYTES_PER_CHAR + _BODY_SLACK

    # ----------------------------------------------------------------- one attempt
    async def run(self, task: TaskSpec, ctx: RunContext) -> str:
        client = self._client
        if client is None:
            raise RuntimeError(f"ApiBackend {self.name!r} is not started")
        att = _Attempt()
        what = f"POST {_ENDPOINT} stream={int(self.stream)}"
        try:
            key = await self._api_key()
        except TaskFailure as exc:
            ctx.log(f"{what} -> not sent: {exc.message}")
            self._last_error = f"{exc.kind.value}: {exc.message}"
            raise
        scrub = _Scrubber(key)
        headers = {**self.extra_headers, TASK_HEADER: task.task_id}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        body = {"model": self.model, "messages": self._messages(task), "stream": self.stream}
        deadline = asyncio.timeout(self.max_run_s)
        try:
            async with deadline:
                if self.stream:
                    text = await self._run_stream(client, body, headers, ctx, scrub, att)
                else:
                    text = await self._run_plain(client, body, headers, ctx, scrub, att)
        except TimeoutError:
            if not deadline.expired():
                raise
            failure = TaskFailure(
                ErrorKind.TIMEOUT, f"the answer was not complete within max_run_s={self.max_run_s:g} s"
            )
        except asyncio.CancelledError:
            # httpx has closed the request/stream while unwinding; say so, then let the lane finish.
            ctx.log(f"{what} -> cancelled after {att.elapsed():.2f} s")
            raise
        except TaskFailure as exc:
            failure = exc
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            failure = _transport_failure(exc, scrub, att)
        else:
            self._last_error = None
            note = " (truncated: finish_reason=length)" if text.truncated else ""
            ctx.log(f"{what} -> {att.status} in {att.elapsed():.2f} s, {len(text)} chars{note}")
            return text
        # Not chained: the cause may carry request details; the message already says what happened.
        raise self._failed(ctx, what, att, failure) from None

    def _failed(self, ctx: RunContext, what: str, att: _Attempt, failure: TaskFailure) -> TaskFailure:
        """Log one line for a failed attempt and remember the error for ``health()``."""
        retry = f", retry after {failure.retry_after_s:g} s" if failure.retry_after_s is not None else ""
        if att.status is None:  # no HTTP status: timeout, reset, refused
            ctx.log(f"{what} -> {failure.kind.value} after {att.elapsed():.2f} s{retry}")
        else:
            ctx.log(f"{what} -> {att.status} in {att.elapsed():.2f} s ({failure.kind.value}{retry})")
        self._last_error = f"{failure.kind.value}: {failure.message}"
        return failure

    @staticmethod
    def _messages(task: TaskSpec) -> list[dict[str, str]]:
        """System message only when there are instructions (``need_empty_prompt`` sends none at all);
        a later turn of a conversation carries the earlier turns as the message history."""
        instructions = task.effective_instructions()
        messages = [] if instructions is None else [{"role": "system", "content": instructions}]
        for prompt, answer in task.history:
            messages.append({"role": "user", "content": prompt})
            messages.append({"role": "assistant", "content": answer})
        messages.append({"role": "user", "content": task.prompt})
        return messages

    async def probe(self) -> tuple[bool, str]:
        """A cheap health check for the endpoint's circuit breaker: ``GET /models``, or a one-token
        completion where the server has no such route. Returns (healthy, what was seen)."""
        client = self._client
        if client is None:
            return False, "not started"
        try:
            key = await self._api_key()
        except TaskFailure as exc:
            return False, exc.message
        scrub = _Scrubber(key)
        headers = {**self.extra_headers}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        try:
            async with asyncio.timeout(self.max_run_s):
                status, text, resp_headers = await self._probe_call(client, "GET", self.base_url + "/models", headers)
                if status in (404, 405):
                    body = {"model": self.model, "messages": [{"role": "user", "content": "ping"}], "max_tokens": 1}
                    status, text, resp_headers = await self._probe_call(client, "POST", self._url, headers, body)
        except TimeoutError:
            return False, f"no answer within {self.max_run_s:g} s"
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            return False, _transport_failure(exc, scrub, _Attempt()).message
        if 200 <= status < 300:
            return True, f"HTTP {status}"
        return False, _http_failure(status, text, resp_headers, scrub).message

    @staticmethod
    async def _probe_call(
        client: httpx.AsyncClient, method: str, url: str, headers: dict[str, str], body: Any = None
    ) -> tuple[int, str, httpx.Headers]:
        """(status, start of the body, headers): a probe reads no more than an error excerpt."""
        async with client.stream(method, url, headers=headers, json=body) as resp:
            return resp.status_code, await _error_text(resp), resp.headers

    async def _run_plain(
        self,
        client: httpx.AsyncClient,
        body: dict[str, Any],
        headers: dict[str, str],
        ctx: RunContext,
        scrub: _Scrubber,
        att: _Attempt,
    ) -> Answer:
        async with client.stream("POST", self._url, json=body, headers=headers) as resp:
            att.status = resp.status_code
            if not resp.is_success:
                raise _http_failure(resp.status_code, await _error_text(resp), resp.headers, scrub)
            return await self._read_json_answer(resp, scrub)

    async def _read_json_answer(self, resp: httpx.Response, scrub: _Scrubber) -> Answer:
        """A whole JSON answer, read with a byte cap (never an unbounded ``.json()``)."""
        raw = await _read_capped(resp, self._byte_cap)
        if raw is None:
            raise _too_large(self.max_answer_chars, f"the body passed {self._byte_cap} bytes")
        content, reason = _parse_completion(raw, scrub)
        if len(content) > self.max_answer_chars:
            raise _too_large(self.max_answer_chars, f"{len(content)} chars")
        return Answer(content, truncated=reason == "length")

    async def _run_stream(
        self,
        client: httpx.AsyncClient,
        body: dict[str, Any],
        headers: dict[str, str],
        ctx: RunContext,
        scrub: _Scrubber,
        att: _Attempt,
    ) -> Answer:
        headers = {**headers, "Accept": "text/event-stream", "Cache-Control": "no-store"}
        async with client.stream("POST", self._url, json=body, headers=headers) as resp:
            att.status = resp.status_code
            if not resp.is_success:
                raise _http_failure(resp.status_code, await _error_text(resp), resp.headers, scrub)
            if "text/event-stream" not in resp.headers.get("content-type", ""):
                # Some servers ignore stream=true and send one JSON answer: take it.
                return await self._read_json_answer(resp, scrub)
            # Raising inside this block closes the response: the server sees the connection go.
            cap = self.max_answer_chars
            decoder = _SseDecoder(self._byte_cap)
            parts: list[str] = []
            chars = 0
            finished: str | None = None
            done = False
            try:
                async for raw in resp.aiter_bytes():
                    try:
                        events = decoder.feed(raw)
                    except _EventTooLong:
                        raise _too_large(cap, f"one stream event passed {self._byte_cap} bytes") from None
                    for data in events:
                        if data.strip() == "[DONE]":
                            done = True
                            break
                        piece, reason = self._chunk(data, scrub)
                        if piece:
                            chars += len(piece)
                            if chars > cap:
                                raise _too_large(cap, f"{chars} chars so far")
                            parts.append(piece)
                        finished = reason or finished
                    if done:
                        break
            except httpx.TransportError:
                # The connection died after the provider said it had finished: the answer is whole.
                if not (parts and finished):
                    raise
            if not (done or finished):
                # The server closed the stream cleanly but never said the answer was complete.
                raise TaskFailure(
                    ErrorKind.TRUNCATED_STREAM,
                    f"the stream ended without [DONE] and without finish_reason after {chars} chars",
                )
            return Answer("".join(parts), truncated=finished == "length")

    @staticmethod
    def _chunk(data: str, scrub: _Scrubber) -> tuple[str | None, str | None]:
        """(content piece, finish_reason) of one SSE data payload."""
        try:
            obj = json.loads(data)
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            raise TaskFailure(ErrorKind.SERVER_ERROR, f"malformed stream chunk: {_excerpt(data, scrub)}")
        if obj.get("error"):
            raise _provider_error(obj["error"], scrub)
        choices = obj.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return None, None  # e.g. a usage-only chunk
        choice = choices[0]
        delta = choice.get("delta")
        piece = delta.get("content") if isinstance(delta, dict) else None
        reason = choice.get("finish_reason")
        return (piece if isinstance(piece, str) else None), (reason if isinstance(reason, str) else None)

    # ----------------------------------------------------------------- secrets
    async def _api_key(self) -> str | None:
        """The key for this attempt, or None when no source is configured (local servers)."""
        missing_env: str | None = None
        if self.api_key_env is not None:
            value = os.environ.get(self.api_key_env, "").strip()
            if value:
                return _checked(value, f"environment variable {self.api_key_env}")
            missing_env = f"environment variable {self.api_key_env} is not set"
            if self.api_key_keyring is None:
                raise TaskFailure(ErrorKind.AUTH, missing_env)
        if self.api_key_keyring is None:
            return None
        service, _, username = self.api_key_keyring.partition(":")
        where = f"API key not found in keyring ({service}:{username})"
        if missing_env:
            where = f"{missing_env}; {where}"
        try:
            import keyring  # lazy: its backend discovery is slow and often unneeded

            secret: str | None = await asyncio.to_thread(keyring.get_password, service, username)
        except Exception as exc:  # any backend failure (no keyring, locked, D-Bus down)
            raise TaskFailure(ErrorKind.AUTH, f"{where}: {type(exc).__name__}") from None
        if not secret or not secret.strip():
            raise TaskFailure(ErrorKind.AUTH, where)
        return _checked(secret.strip(), f"keyring ({service}:{username})")


def _checked(key: str, source: str) -> str:
    """Refuse a key that cannot go in a header (and would end up quoted in an httpx error)."""
    if not all("!" <= ch <= "~" for ch in key):
        raise TaskFailure(ErrorKind.AUTH, f"API key from {source} contains spaces or non-ASCII characters")
    return key
