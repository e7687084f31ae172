"""How the API lane reads a failure: each HTTP status, provider error and transport error classified
for the retry policy (a refusal, an outage, out of credit, a bad request...), with the API key
scrubbed from every message, including server bodies that echo request headers.
"""

from __future__ import annotations

import json
import re
import ssl
import time
from typing import Any

import httpx

from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.core.policy import parse_retry_after

__all__ = [
    "EXCERPT_CHARS",
    "Attempt",
    "Scrubber",
    "answer_cut",
    "excerpt_of",
    "http_failure",
    "key_rejected",
    "provider_error",
    "retry_after_from_headers",
    "transport_failure",
]

#: Longest excerpt of a server body quoted in an error message.
EXCERPT_CHARS = 300
_WS = re.compile(r"\s+")


class Scrubber:
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


class Attempt:
    """What the log line of one attempt needs, filled in as the attempt goes."""

    __slots__ = ("started", "status")

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.status: int | None = None

    def elapsed(self) -> float:
        return time.monotonic() - self.started


def excerpt_of(text: str, scrub: Scrubber) -> str:
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


def http_failure(status: int, text: str, headers: httpx.Headers, scrub: Scrubber) -> TaskFailure:
    """Classify a non-2xx answer: 429/5xx retryable, 400/404 not, 401/403 stop the endpoint.

    A 429 (and a 503 that names its wait) is the endpoint's capacity speaking: a *refusal*, which
    pauses the endpoint and never costs the task an attempt. A 429 whose error code says the account
    is out of credit (``insufficient_quota``) is not about load at all: waiting will not help."""
    excerpt = excerpt_of(text, scrub)
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
        return key_rejected(status, excerpt)
    if status == 408:  # the server's own request timeout: worth another attempt
        return TaskFailure(ErrorKind.TIMEOUT, message)
    if 400 <= status < 500:
        return TaskFailure(ErrorKind.BAD_REQUEST, message)
    # 1xx/3xx: redirects are not followed; a redirecting endpoint means a wrong base_url.
    return TaskFailure(ErrorKind.CONFIG, f"{message} (unexpected status, check base_url)")


def key_rejected(status: int, excerpt: str = "") -> TaskFailure:
    """401/403: the endpoint refused the API key. No retry and no probe can fix that, only the operator
    (the key, or where it is read from), and every other task of the endpoint would meet the same
    refusal: AUTH + unavailable stops the endpoint (the capacity's ``misconfigured`` signal, as a TLS
    error does) and the task goes back to pending uncharged. The message never quotes the key."""
    said = f": {excerpt}" if excerpt else ""
    return TaskFailure(ErrorKind.AUTH, f"key rejected (HTTP {status}){said}", unavailable=True)


def answer_cut(max_tokens: int | None, reasoning_tokens: int | None = None) -> TaskFailure:
    """``finish_reason: "length"`` with no answer after the model thought: its whole ``max_tokens`` went
    on thinking. Not a truncated success (there is nothing to keep) and not worth another attempt (the
    same limit ends the same way): only the operator can help, by raising ``max_tokens``."""
    limit = f"max_tokens ({max_tokens})" if max_tokens is not None else "max_tokens (the server's default)"
    spent = f" ({reasoning_tokens} reasoning tokens)" if reasoning_tokens else ""
    return TaskFailure(
        ErrorKind.ANSWER_CUT,
        f"the model spent its whole {limit} thinking{spent} and wrote no answer: raise max_tokens for this profile",
    )


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


def provider_error(err: Any, scrub: Scrubber) -> TaskFailure:
    """An ``error`` object inside a 200 answer or an SSE stream."""
    text = json.dumps(err, ensure_ascii=False) if not isinstance(err, str) else err
    excerpt = excerpt_of(json.dumps({"error": err}, ensure_ascii=False), scrub) or excerpt_of(text, scrub)
    probe = text.lower()
    if "invalid_request" in probe or "invalid request" in probe or "context_length" in probe:
        return TaskFailure(ErrorKind.BAD_REQUEST, f"provider error: {excerpt}")
    if _OUT_OF_CREDIT.search(probe):
        return TaskFailure(ErrorKind.OUT_OF_CREDIT, f"provider error: {excerpt} (the account is out of credit)")
    if "rate_limit" in probe or "rate limit" in probe:
        return TaskFailure(ErrorKind.RATE_LIMITED, f"provider error: {excerpt}", refusal=True)
    return TaskFailure(ErrorKind.SERVER_ERROR, f"provider error: {excerpt}")


def transport_failure(exc: Exception, scrub: Scrubber, att: Attempt) -> TaskFailure:
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
    tls = _tls_error(exc)
    if tls is not None:
        # A certificate the system does not trust, or https spoken to a plain-HTTP port: no retry
        # and no probe can fix it, only the operator (base_url, the certificate, its CA). Nothing
        # was sent, so nothing is charged; CONFIG + unavailable stops the endpoint (capacity).
        return TaskFailure(
            ErrorKind.CONFIG,
            f"TLS error, the endpoint cannot answer as configured: {scrub(tls)[:200]}. Check base_url "
            "(http:// or https://, the port) and the server's certificate",
            unavailable=True,
        )
    if isinstance(exc, httpx.ConnectError):
        # nothing was sent: the endpoint is not there (refused, no route, DNS)
        return TaskFailure(ErrorKind.CONNECTION, f"{name}: {detail or 'connection refused'}", unavailable=True)
    # Connect errors, resets, RemoteProtocolError, ReadError, proxies, too many redirects.
    return TaskFailure(ErrorKind.CONNECTION, f"{name}: {detail or 'connection closed'}")


def _tls_error(exc: BaseException) -> str | None:
    """What went wrong in the TLS handshake behind ``exc`` (httpx wraps the ``ssl`` error twice),
    or None when it was not TLS: ``certificate verify failed: self-signed certificate``,
    ``wrong version number`` (https to a plain-HTTP port)."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, ssl.SSLCertVerificationError):
            return f"certificate verify failed: {cur.verify_message or cur.reason or cur}"
        if isinstance(cur, ssl.SSLError):
            return f"{cur.reason or type(cur).__name__}".replace("_", " ").lower()
        cur = cur.__cause__ or cur.__context__
    return None
