"""Who may talk to the API: one bearer token, read like the API keys, checked on every request.

The guard is plain ASGI middleware in front of the whole app, so no route (the OpenAPI document
included) can be added without it. A client address that fails the check too often within a window
gets 429 with ``Retry-After`` for every request until its oldest failure ages out. CORS stays
closed: no ``Access-Control-*`` header is ever sent, and a preflight (``OPTIONS``) is refused, so a
web page in the operator's browser cannot script the API.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
import time
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from mediadesk.config.model import ConfigError
from mediadesk.config.remote import RemoteConfig

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Shortest token accepted: a guessable one would make the rate limit the only defence.
MIN_TOKEN_CHARS = 16


class RemoteSetupError(ConfigError):
    """The API cannot start as configured (no token, a binding refused): the message says what to do."""


def read_token(cfg: RemoteConfig, env: MutableMapping[str, str] | None = None) -> str:
    """The token from ``token_env`` (first) or ``token_keyring``; never logged, never echoed."""
    env = os.environ if env is None else env
    if cfg.token_env is None and cfg.token_keyring is None:
        raise RemoteSetupError(
            "the remote API needs a token: set [remote] token_env (the NAME of an environment variable) or "
            "token_keyring ('service:username'), then put a long random value there")
    token = ""
    if cfg.token_env is not None:
        token = env.get(cfg.token_env, "").strip()
    if not token and cfg.token_keyring is not None:
        import keyring

        service, _, username = cfg.token_keyring.partition(":")
        try:
            token = (keyring.get_password(service, username) or "").strip()
        except Exception as exc:  # no keyring backend on this machine
            raise RemoteSetupError(f"the remote API token could not be read from the keyring ({service}:{username}): "
                                   f"{type(exc).__name__}") from None
    if not token:
        where = " or ".join(
            w for w in (cfg.token_env and f"the environment variable {cfg.token_env}",
                        cfg.token_keyring and f"the keyring entry {cfg.token_keyring}") if w)
        raise RemoteSetupError(f"the remote API token is empty: set {where}")
    if len(token) < MIN_TOKEN_CHARS:
        raise RemoteSetupError(f"the remote API token is too short: use at least {MIN_TOKEN_CHARS} random characters")
    return token


class FailureLimiter:
    """Failed token checks per client address in a sliding window."""

    def __init__(self, limit: int, window_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window_s = window_s
        self._clock = clock
        self._fails: dict[str, deque[float]] = {}
        self.total = 0

    def _recent(self, client: str, now: float) -> deque[float] | None:
        q = self._fails.get(client)
        if q is None:
            return None
        while q and q[0] <= now - self.window_s:
            q.popleft()
        if not q:
            del self._fails[client]
            return None
        return q

    def blocked_for(self, client: str) -> float:
        """Seconds until ``client`` may try again (0: it may)."""
        now = self._clock()
        q = self._recent(client, now)
        if q is None or len(q) < self.limit:
            return 0.0
        return q[len(q) - self.limit] + self.window_s - now

    def fail(self, client: str) -> None:
        now = self._clock()
        self.total += 1
        if len(self._fails) > 10_000:  # many addresses (a scan): forget the quiet ones
            for c in list(self._fails):
                self._recent(c, now)
        self._fails.setdefault(client, deque()).append(now)


def _digest(value: bytes) -> bytes:
    return hashlib.sha256(value).digest()


class TokenGuard:
    """ASGI middleware: ``Authorization: Bearer <token>`` on every HTTP request, else 401 (429 once
    the address has failed too often); ``OPTIONS`` is refused (405) before anything else."""

    def __init__(self, app: ASGIApp, token: str, limiter: FailureLimiter) -> None:
        self.app = app
        self._want = _digest(token.encode())
        self.limiter = limiter

    def _ok(self, scope: Scope) -> bool:
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                scheme, _, given = value.partition(b" ")
                if scheme.lower() != b"bearer":
                    return False
                # compare digests: constant time, and the token's length does not show either
                return hmac.compare_digest(_digest(given.strip()), self._want)
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] == "OPTIONS":
            await _reply(send, 405, "cross-origin requests are not served", [(b"allow", b"GET, POST")])
            return
        client = scope.get("client")
        addr = client[0] if client else "?"
        wait = self.limiter.blocked_for(addr)
        if wait > 0:
            await _reply(send, 429, "too many failed token checks from this address; try again later",
                         [(b"retry-after", str(max(1, math.ceil(wait))).encode())])
            return
        if not self._ok(scope):
            self.limiter.fail(addr)
            await _reply(send, 401, "missing or wrong token (Authorization: Bearer <token>)",
                         [(b"www-authenticate", b'Bearer realm="mediadesk"')])
            return
        async def send_no_store(message: Message) -> None:
            if message["type"] == "http.response.start":  # task data is nobody's cache's business
                message["headers"] = [*message.get("headers", ()), (b"cache-control", b"no-store")]
            await send(message)

        await self.app(scope, receive, send_no_store)


async def _reply(send: Send, status: int, detail: str, headers: list[tuple[bytes, bytes]]) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({
        "type": "http.response.start", "status": status,
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                    (b"cache-control", b"no-store"), *headers],
    })
    await send({"type": "http.response.body", "body": body})
