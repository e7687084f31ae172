"""Where events go: webhooks (HTTP POST, signed, retried) and command hooks (a program, event on stdin).

Each sink has its own queue and worker, so a receiver that is down delays only its own deliveries,
in order, and never the scheduler (the bus only appends to a queue). A webhook delivery is retried
on connection errors, timeouts, 408, 429 and 5xx, up to ``max_attempts``, after an exponential
pause with jitter (``Retry-After`` honoured); other answers end it. The signature header is
``X-MediaDesk-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`` with the secret read from
``secret_env`` at start. A command hook gets the same JSON on stdin, as an argv list (no shell).
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import os
import random
from collections import Counter
from collections.abc import Callable, MutableMapping

import httpx

from mediadesk.config.remote import CommandHookConfig, RemoteConfig, WebhookConfig
from mediadesk.remote.auth import RemoteSetupError
from mediadesk.remote.outbound import Envelope

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-MediaDesk-Signature-256"
QUEUE_MAX = 10_000
_RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})


def sign(secret: bytes, body: bytes) -> str:
    return "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()


def backoff_s(attempt: int, base_s: float, max_s: float, rng: random.Random) -> float:
    """Pause after failed attempt ``attempt`` (1-based): half the capped exponential, plus up to as
    much again at random, so receivers coming back are not hit by every sender at once."""
    cap = min(max_s, base_s * 2 ** min(attempt - 1, 30))
    return cap / 2 + rng.uniform(0, cap / 2)


class _Sink(abc.ABC):
    kind = "sink"

    def __init__(self, events: tuple[str, ...], counts: Counter[tuple[str, str]]) -> None:
        self.events = frozenset(events)
        self.counts = counts
        self._queue: asyncio.Queue[tuple[Envelope, bytes]] = asyncio.Queue(QUEUE_MAX)
        self._task: asyncio.Task[None] | None = None

    def offer(self, env: Envelope, body: bytes) -> None:
        if env["event"] not in self.events:
            return
        if self._queue.full():
            dropped, _ = self._queue.get_nowait()
            self.counts[(self.kind, "dropped")] += 1
            log.warning("remote: %s queue full, dropped event %s", self.kind, dropped["id"])
        self._queue.put_nowait((env, body))

    def start(self, name: str) -> None:
        self._task = asyncio.create_task(self._loop(), name=name)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._queue.qsize():
            log.warning("remote: %d %s deliveries not made before shutdown", self._queue.qsize(), self.kind)

    async def _loop(self) -> None:
        while True:
            env, body = await self._queue.get()
            try:
                await self.deliver(env, body)
            except asyncio.CancelledError:
                raise
            except Exception:  # one bad delivery never stops the next
                self.counts[(self.kind, "error")] += 1
                log.exception("remote: %s delivery of %s failed", self.kind, env["event"])

    @abc.abstractmethod
    async def deliver(self, env: Envelope, body: bytes) -> None:
        """Send one event; each kind of sink (webhook, command hook) says how."""


class WebhookSink(_Sink):
    kind = "webhook"

    def __init__(self, cfg: WebhookConfig, secret: bytes | None, client: httpx.AsyncClient,
                 counts: Counter[tuple[str, str]], rng: random.Random | None = None) -> None:
        super().__init__(cfg.events, counts)
        self.cfg = cfg
        self._secret = secret
        self._client = client
        self._rng = rng or random.Random()

    async def deliver(self, env: Envelope, body: bytes) -> None:
        cfg = self.cfg
        for attempt in range(1, cfg.max_attempts + 1):
            headers = {"Content-Type": "application/json", "User-Agent": "MediaDesk-webhook/1",
                       "X-MediaDesk-Event": env["event"], "X-MediaDesk-Delivery": env["id"],
                       "X-MediaDesk-Attempt": str(attempt)}
            if self._secret is not None:
                headers[SIGNATURE_HEADER] = sign(self._secret, body)
            retry_after: float | None = None
            try:
                resp = await self._client.post(cfg.url, content=body, headers=headers, timeout=cfg.timeout_s)
            except httpx.HTTPError as exc:
                what = type(exc).__name__
            else:
                if resp.is_success:
                    self.counts[(self.kind, "delivered")] += 1
                    return
                if resp.status_code not in _RETRY_STATUS:
                    self.counts[(self.kind, "rejected")] += 1
                    log.warning("remote: webhook %s refused event %s (HTTP %d); not retried",
                                _where(cfg.url), env["event"], resp.status_code)
                    return
                what = f"HTTP {resp.status_code}"
                retry_after = _retry_after(resp.headers.get("retry-after"))
            self.counts[(self.kind, "retried")] += 1
            if attempt == cfg.max_attempts:
                break
            pause = backoff_s(attempt, cfg.backoff_base_s, cfg.backoff_max_s, self._rng)
            if retry_after is not None:
                pause = max(pause, min(retry_after, cfg.backoff_max_s))
            log.info("remote: webhook %s: %s on attempt %d; next in %.1f s", _where(cfg.url), what, attempt, pause)
            await asyncio.sleep(pause)
        self.counts[(self.kind, "failed")] += 1
        log.warning("remote: webhook %s: event %s not delivered after %d attempts",
                    _where(cfg.url), env["event"], cfg.max_attempts)


class CommandSink(_Sink):
    kind = "command"

    def __init__(self, cfg: CommandHookConfig, counts: Counter[tuple[str, str]]) -> None:
        super().__init__(cfg.events, counts)
        self.cfg = cfg

    async def deliver(self, env: Envelope, body: bytes) -> None:
        proc = await asyncio.create_subprocess_exec(
            *self.cfg.program, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            await asyncio.wait_for(proc.communicate(body), self.cfg.timeout_s)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            self.counts[(self.kind, "timeout")] += 1
            log.warning("remote: command hook %s ran past %.0f s on %s; killed",
                        self.cfg.program[0], self.cfg.timeout_s, env["event"])
            return
        outcome = "delivered" if proc.returncode == 0 else "failed"
        self.counts[(self.kind, outcome)] += 1
        if proc.returncode != 0:
            log.warning("remote: command hook %s exited %s on %s", self.cfg.program[0], proc.returncode, env["event"])


class Outbox:
    """Every sink of ``[remote]``; :meth:`emit` is the router's callback."""

    def __init__(self, cfg: RemoteConfig, env: MutableMapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        self.counts: Counter[tuple[str, str]] = Counter()
        self._client: httpx.AsyncClient | None = None
        self.sinks: list[_Sink] = []
        if cfg.webhooks:
            # no proxies from the environment, no redirects: a delivery goes where the config says
            self._client = httpx.AsyncClient(trust_env=False, follow_redirects=False)
        for hook in cfg.webhooks:
            secret: bytes | None = None
            if hook.secret_env is not None:
                value = env.get(hook.secret_env, "")
                if not value:
                    raise RemoteSetupError(f"webhook {_where(hook.url)}: the environment variable {hook.secret_env} "
                                           "(its signing secret) is not set")
                secret = value.encode()
            assert self._client is not None
            self.sinks.append(WebhookSink(hook, secret, self._client, self.counts))
        self.sinks.extend(CommandSink(c, self.counts) for c in cfg.commands)
        self.on_emit: Callable[[Envelope], None] | None = None

    def start(self) -> None:
        for i, sink in enumerate(self.sinks):
            sink.start(f"remote:{sink.kind}:{i}")

    async def stop(self) -> None:
        for sink in self.sinks:
            await sink.stop()
        if self._client is not None:
            await self._client.aclose()

    def emit(self, env: Envelope) -> None:
        body = json.dumps(env, ensure_ascii=False, separators=(",", ":")).encode()
        for sink in self.sinks:
            sink.offer(env, body)
        if self.on_emit is not None:
            self.on_emit(env)


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None


def _where(url: str) -> str:
    """A webhook URL for the log: scheme and host only (a path or query may carry a token)."""
    scheme, _, rest = url.partition("://")
    host = rest.split("/", 1)[0].rsplit("@", 1)[-1]
    return f"{scheme}://{host}"
