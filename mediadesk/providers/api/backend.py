"""The API lane's backend: one OpenAI-compatible endpoint, one shared httpx client.

One client per backend (made in ``start()``, closed in ``stop()``): building one is costly (SSL context) and a
shared one keeps connections alive between tasks. The lane owns how many attempts run at once; this class owns
how one attempt talks to the endpoint. The API key is read at request time, so a rotated key applies to the
next attempt, and it is scrubbed from every message (:mod:`mediadesk.providers.api.failures`). Nothing a server
sends is read without a bound (:mod:`mediadesk.providers.api.reading`); a stream that stops without ``[DONE]``
or a ``finish_reason`` is a retryable ``truncated_stream``, ``finish_reason: "length"`` a truncated success.
A reasoning model's thinking (``reasoning_content`` / ``reasoning`` fields, a ``<think>`` block at the very
start of the content) is kept apart from the answer (``Answer.reasoning``); ``finish_reason: "length"``
with thinking and no answer is ``answer_cut`` (its ``max_tokens`` all went on thinking), never a success.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from typing import Any
from urllib.parse import urlsplit

import httpx

from mediadesk import __version__
from mediadesk.core.backend import Answer, CheckVerdict, HealthStatus, RunContext, TaskSpec
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.core.gate import MAX_LIMIT
from mediadesk.core.log_lines import LOG, LogText, LogValue
from mediadesk.core.token_rate import rate_hints
from mediadesk.core.usage import Usage, usage_of_json
from mediadesk.providers.api.failures import (
    Attempt,
    Scrubber,
    answer_cut,
    excerpt_of,
    http_failure,
    provider_error,
    transport_failure,
)
from mediadesk.providers.api.reading import (
    BODY_SLACK,
    BYTES_PER_CHAR,
    EventTooLong,
    SseDecoder,
    ThinkSplitter,
    error_text,
    joined_reasoning,
    parse_completion,
    read_capped,
    reasoning_field,
    too_large,
)

__all__ = ["TASK_HEADER", "ApiBackend", "thought_out"]

#: Sent with every request: harmless for real providers, lets the simulator count per task.
TASK_HEADER = "X-MediaDesk-Task"
_ENDPOINT = "/chat/completions"
#: The smallest answer a check asks for, in the forms endpoints accept (tried in this order).
_ONE_TOKEN: tuple[dict[str, int], ...] = ({"max_tokens": 1}, {"max_completion_tokens": 1}, {"max_tokens": 16})
#: A 400 about the answer's token limit (unsupported parameter, too small): try the next form.
_TOKEN_LIMIT = re.compile(r"max_(?:completion_)?tokens", re.IGNORECASE)


class ApiBackend:
    """A :class:`mediadesk.core.backend.LaneBackend` for one OpenAI-compatible endpoint."""

    #: No interactive login, and no reason to give beyond its health: an endpoint answers or not.
    login: None = None
    unavailable_reason: None = None
    #: No browser: no adapter check, no bot check.
    check_adapter: None = None
    resolve_challenge: None = None
    challenge_screenshot: None = None

    def __init__(
        self,
        *,
        name: str,
        base_url: str,
        model: str,
        api_key_env: str | None = None,
        api_key_keyring: str | None = None,
        stream: bool = False,
        timeout_s: float = 60.0,
        connect_timeout_s: float = 10.0,
        extra_headers: dict[str, str] | None = None,
        max_answer_chars: int = 200_000,
        max_run_s: float = 600.0,
        stream_usage: bool = True,
        max_tokens: int | None = None,
    ) -> None:
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
        #: Streamed: ask for the usage in the stream's last chunk (``stream_options.include_usage``);
        #: off for a server that refuses the option.
        self.stream_usage = stream_usage
        #: Sent as ``max_tokens`` when set.
        self.max_tokens = max_tokens
        self._url = self.base_url + _ENDPOINT
        self._client: httpx.AsyncClient | None = None
        self._last_error: str | None = None

    # ----------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        if self._client is not None:
            return
        # Built in a thread: the SSL setup would otherwise freeze the GUI loop.
        self._client = await asyncio.to_thread(
            httpx.AsyncClient,
            timeout=httpx.Timeout(self.timeout_s, connect=self.connect_timeout_s),
            # No hard cap here: the endpoint's gate bounds the requests, and the operator may change it
            # at runtime; keep as many connections alive as a gate ever lets run at once.
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=MAX_LIMIT),
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
        return self.max_answer_chars * BYTES_PER_CHAR + BODY_SLACK

    # ----------------------------------------------------------------- one attempt
    async def run(self, task: TaskSpec, ctx: RunContext) -> str:
        client = self._client
        if client is None:
            raise RuntimeError(f"ApiBackend {self.name!r} is not started")
        att = Attempt()
        what = LOG.api_request(path=_ENDPOINT, flag=int(self.stream))
        try:
            key = await self._api_key()
        except TaskFailure as exc:
            ctx.log(LOG.api_not_sent(request=what, error=exc.message))
            self._last_error = f"{exc.kind.value}: {exc.message}"
            raise
        scrub = Scrubber(key)
        headers = {**self.extra_headers, TASK_HEADER: task.task_id}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        body: dict[str, Any] = {"model": self.model, "messages": self._messages(task), "stream": self.stream}
        if self.stream and self.stream_usage:
            body["stream_options"] = {"include_usage": True}
        max_tokens = task.max_tokens if task.max_tokens is not None else self.max_tokens
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        deadline = asyncio.timeout(self.max_run_s)
        try:
            async with deadline:
                if self.stream:
                    text = await self._run_stream(client, body, headers, ctx, scrub, att)
                else:
                    text = await self._run_plain(client, body, headers, ctx, scrub, att)
                cut = thought_out(text, max_tokens)
                if cut is not None:
                    raise cut
        except TimeoutError:
            if not deadline.expired():
                raise
            failure = TaskFailure(
                ErrorKind.TIMEOUT, f"the answer was not complete within max_run_s={self.max_run_s:g} s"
            )
        except asyncio.CancelledError:
            # httpx has closed the request/stream while unwinding; say so, then let the lane finish.
            ctx.log(LOG.api_cancelled(request=what, seconds=f"{att.elapsed():.2f}"))
            raise
        except TaskFailure as exc:
            failure = exc
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            failure = transport_failure(exc, scrub, att)
        else:
            self._last_error = None
            note: tuple[LogValue, ...] = (LOG.truncated_finish_reason(),) if text.truncated else ()
            ctx.log(LOG.api_answered(request=what, status=str(att.status), seconds=f"{att.elapsed():.2f}",
                                     chars=len(text), more=(*note, _usage_note(text.usage), _thinking_note(text))))
            clean = scrub(text)
            thought = None if text.reasoning is None else scrub(text.reasoning)
            if clean != text or thought != text.reasoning:  # the server echoed the Authorization header
                ctx.log(LOG.key_quoted())
                text = Answer(clean, truncated=text.truncated, usage=text.usage, hints=text.hints, reasoning=thought)
            return text
        # Not chained: the cause may carry request details; the message already says what happened.
        raise self._failed(ctx, what, att, failure) from None

    def _failed(self, ctx: RunContext, what: LogText, att: Attempt, failure: TaskFailure) -> TaskFailure:
        """Log one line for a failed attempt and remember the error for ``health()``."""
        retry: LogValue = (LOG.retry_after(seconds=f"{failure.retry_after_s:g}")
                           if failure.retry_after_s is not None else "")
        seconds = f"{att.elapsed():.2f}"
        if att.status is None:  # no HTTP status: timeout, reset, refused
            ctx.log(LOG.api_failed(request=what, kind=failure.kind.value, seconds=seconds, more=retry))
        else:
            ctx.log(LOG.api_http_failed(request=what, status=att.status, seconds=seconds, kind=failure.kind.value,
                                        more=retry))
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

    async def probe(self) -> tuple[bool, LogText]:
        """A cheap health check for the endpoint's circuit breaker: ``GET /models``, or a one-token
        completion where the server has no such route. Returns (healthy, what was seen)."""
        client = self._client
        if client is None:
            return False, LOG.probe_not_started()
        try:
            key = await self._api_key()
        except TaskFailure as exc:
            return False, LOG.as_is(text=exc.message)
        scrub = Scrubber(key)
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
            return False, LOG.no_answer_within(seconds=f"{self.max_run_s:g}")
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            return False, LOG.as_is(text=transport_failure(exc, scrub, Attempt()).message)
        if 200 <= status < 300:
            return True, LOG.http_status(status=status)
        return False, LOG.as_is(text=http_failure(status, text, resp_headers, scrub).message)

    async def check(self) -> tuple[CheckVerdict, str]:
        """The setup editor's Test and the operator's Resume: ONE authenticated request that proves the
        key, a one-token completion (``max_tokens=1``; where the endpoint refuses that parameter or that
        small a limit, ``max_completion_tokens=1``, then 16). ``GET /models`` proves nothing: many
        servers list their models to anyone. Returns the verdict and what was seen (key-free)."""
        client = self._client
        if client is None:
            return CheckVerdict.FAILED, "not started"
        try:
            key = await self._api_key()
        except TaskFailure as exc:
            return CheckVerdict.FAILED, exc.message
        scrub = Scrubber(key)
        headers = {**self.extra_headers}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        try:
            async with asyncio.timeout(self.max_run_s):
                for limit in _ONE_TOKEN:
                    body = {"model": self.model, "messages": [{"role": "user", "content": "ping"}],
                            "stream": False, **limit}
                    status, text, resp_headers = await self._probe_call(client, "POST", self._url, headers, body)
                    if status != 400 or not _TOKEN_LIMIT.search(text):
                        break
        except TimeoutError:
            return CheckVerdict.FAILED, f"no answer within {self.max_run_s:g} s"
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            failure = transport_failure(exc, scrub, Attempt())
            tls = failure.unavailable and failure.kind is ErrorKind.CONFIG
            return (CheckVerdict.TLS if tls else CheckVerdict.FAILED), failure.message
        if 200 <= status < 300:
            return CheckVerdict.OK, f"HTTP {status}"
        failure = http_failure(status, text, resp_headers, scrub)
        return (CheckVerdict.KEY_REJECTED if status in (401, 403) else CheckVerdict.FAILED), failure.message

    @staticmethod
    async def _probe_call(
        client: httpx.AsyncClient, method: str, url: str, headers: dict[str, str], body: Any = None
    ) -> tuple[int, str, httpx.Headers]:
        """(status, start of the body, headers): a probe reads no more than an error excerpt."""
        async with client.stream(method, url, headers=headers, json=body) as resp:
            return resp.status_code, await error_text(resp), resp.headers

    async def _run_plain(
        self,
        client: httpx.AsyncClient,
        body: dict[str, Any],
        headers: dict[str, str],
        ctx: RunContext,
        scrub: Scrubber,
        att: Attempt,
    ) -> Answer:
        async with client.stream("POST", self._url, json=body, headers=headers) as resp:
            att.status = resp.status_code
            if not resp.is_success:
                raise http_failure(resp.status_code, await error_text(resp), resp.headers, scrub)
            return await self._read_json_answer(resp, scrub)

    async def _read_json_answer(self, resp: httpx.Response, scrub: Scrubber) -> Answer:
        """A whole JSON answer, read with a byte cap (never an unbounded ``.json()``)."""
        raw = await read_capped(resp, self._byte_cap)
        if raw is None:
            raise too_large(self.max_answer_chars, f"the body passed {self._byte_cap} bytes")
        done = parse_completion(raw, scrub)
        if len(done.content) > self.max_answer_chars:
            raise too_large(self.max_answer_chars, f"{len(done.content)} chars")
        return Answer(done.content, truncated=done.finish_reason == "length", usage=done.usage,
                      hints=rate_hints(resp.headers), reasoning=done.reasoning)

    async def _run_stream(
        self,
        client: httpx.AsyncClient,
        body: dict[str, Any],
        headers: dict[str, str],
        ctx: RunContext,
        scrub: Scrubber,
        att: Attempt,
    ) -> Answer:
        headers = {**headers, "Accept": "text/event-stream", "Cache-Control": "no-store"}
        async with client.stream("POST", self._url, json=body, headers=headers) as resp:
            att.status = resp.status_code
            if not resp.is_success:
                raise http_failure(resp.status_code, await error_text(resp), resp.headers, scrub)
            if "text/event-stream" not in resp.headers.get("content-type", ""):
                # Some servers ignore stream=true and send one JSON answer: take it.
                return await self._read_json_answer(resp, scrub)
            # Raising inside this block closes the response: the server sees the connection go.
            cap = self.max_answer_chars
            decoder = SseDecoder(self._byte_cap)
            parts: list[str] = []
            chars = 0
            #: the thinking: the reasoning deltas, and a <think> block at the start of the content
            splitter = ThinkSplitter()
            fielded: list[str] = []
            tagged: list[str] = []
            thought_chars = 0
            finished: str | None = None
            usage: Usage | None = None
            done = False
            try:
                async for raw in resp.aiter_bytes():
                    try:
                        events = decoder.feed(raw)
                    except EventTooLong:
                        raise too_large(cap, f"one stream event passed {self._byte_cap} bytes") from None
                    for data in events:
                        if data.strip() == "[DONE]":
                            done = True
                            break
                        piece, reason, chunk_usage, thinking = self._chunk(data, scrub)
                        usage = chunk_usage or usage
                        if thinking:
                            thought_chars += len(thinking)
                            if thought_chars > cap:
                                raise too_large(cap, f"{thought_chars} chars of thinking so far")
                            fielded.append(thinking)
                        if piece:
                            chars += len(piece)
                            if chars > cap:
                                raise too_large(cap, f"{chars} chars so far")
                            text, thought = splitter.feed(piece)
                            if text:
                                parts.append(text)
                            if thought:
                                tagged.append(thought)
                        finished = reason or finished
                    if done:
                        break
            except httpx.TransportError:
                # The connection died after the provider said it had finished: the answer is whole.
                if not ((parts or tagged or fielded) and finished):
                    raise
            if not (done or finished):
                # The server closed the stream cleanly but never said the answer was complete.
                raise TaskFailure(
                    ErrorKind.TRUNCATED_STREAM,
                    f"the stream ended without [DONE] and without finish_reason after {chars} chars",
                )
            text, thought = splitter.end()
            return Answer("".join(parts) + text, truncated=finished == "length", usage=usage,
                          hints=rate_hints(resp.headers),
                          reasoning=joined_reasoning("".join(fielded), "".join(tagged) + thought))

    @staticmethod
    def _chunk(data: str, scrub: Scrubber) -> tuple[str | None, str | None, Usage | None, str | None]:
        """(content piece, finish_reason, usage, thinking piece) of one SSE data payload (the usage comes
        in the last chunk, with no choices, when ``stream_options.include_usage`` was asked for)."""
        try:
            obj = json.loads(data)
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            raise TaskFailure(ErrorKind.SERVER_ERROR, f"malformed stream chunk: {excerpt_of(data, scrub)}")
        if obj.get("error"):
            raise provider_error(obj["error"], scrub)
        usage = usage_of_json(obj.get("usage"))
        choices = obj.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return None, None, usage, None  # e.g. the usage-only last chunk
        choice = choices[0]
        delta = choice.get("delta")
        piece = delta.get("content") if isinstance(delta, dict) else None
        reason = choice.get("finish_reason")
        return ((piece if isinstance(piece, str) else None), (reason if isinstance(reason, str) else None), usage,
                reasoning_field(delta))

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


def thought_out(answer: Answer, max_tokens: int | None) -> TaskFailure | None:
    """``answer_cut`` for an answer the provider stopped at its length limit with nothing but whitespace
    written after the model had thought (thinking seen, or reasoning tokens counted); else None. A
    length-cut answer with text stays a truncated success."""
    if not answer.truncated or answer.strip():
        return None
    tokens = answer.usage.reasoning_tokens if answer.usage is not None else None
    if answer.reasoning is None and not tokens:
        return None
    return answer_cut(max_tokens, tokens)


def _thinking_note(answer: Answer) -> LogText | str:
    if answer.reasoning is None:
        return ""
    tokens = answer.usage.reasoning_tokens if answer.usage is not None else None
    if tokens is None:
        return LOG.thinking_apart(chars=len(answer.reasoning))
    return LOG.thinking_apart_tokens(chars=len(answer.reasoning), tokens=tokens)


def _usage_note(usage: Usage | None) -> LogText:
    if usage is None:
        return LOG.usage_estimated()
    if usage.cached_tokens:
        return LOG.usage_cached(prompt=str(usage.prompt_tokens), cached=usage.cached_tokens,
                                completion=str(usage.completion_tokens))
    return LOG.usage(prompt=str(usage.prompt_tokens), completion=str(usage.completion_tokens))


def _checked(key: str, source: str) -> str:
    """Refuse a key that cannot go in a header (and would end up quoted in an httpx error)."""
    if not all("!" <= ch <= "~" for ch in key):
        raise TaskFailure(ErrorKind.AUTH, f"API key from {source} contains spaces or non-ASCII characters")
    return key
