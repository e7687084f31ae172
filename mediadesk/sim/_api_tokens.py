"""Tokens in the API simulator: the ``usage`` it reports, and its tokens-per-minute limit.

Its tokenizer is crude and deliberately NOT MediaDesk's estimate (``core.usage.estimate_tokens``), so the
client's reservation and the provider's count differ as they do against a real provider. ``prompt_tokens``
counts every message plus :data:`PER_MESSAGE` each; repeated system text is reported as ``cached_tokens``.
The TPM limit (``ApiSimConfig.tpm``) is a continuously refilled bucket, charged prompt + completion at
admission; a request that does not fit gets a 429 with ``Retry-After``, and every answer carries
``x-ratelimit-*`` headers so a client can slow down before the 429.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from typing import Any

__all__ = ["RateWindow", "cost_headers", "count_tokens", "duration_text", "prompt_usage", "usage_body"]

_PIECES = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]|[^\W_]+|[^\w\s]", re.UNICODE)
#: Tokens of the chat template around each message.
PER_MESSAGE = 3


def count_tokens(text: str) -> int:
    """The simulator's token count of ``text``."""
    n = 0
    for piece in _PIECES.findall(text):
        n += 1 if len(piece) <= 5 else 1 + (len(piece) - 1) // 5
    return n


def _content(msg: Any) -> str:
    content = msg.get("content") if isinstance(msg, dict) else None
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def prompt_usage(messages: list[Any], seen_systems: set[str]) -> tuple[int, int]:
    """(prompt tokens, cached tokens) of a request's messages; remembers its system texts."""
    total = cached = 0
    for msg in messages:
        text = _content(msg)
        n = count_tokens(text) + PER_MESSAGE
        total += n
        if isinstance(msg, dict) and msg.get("role") == "system" and text:
            if text in seen_systems:
                cached += n
            seen_systems.add(text)
    return total, cached


def usage_body(prompt: int, completion: int, cached: int, reasoning: int | None = None) -> dict[str, Any]:
    """An OpenAI ``usage`` object; ``reasoning``: the part of ``completion`` spent thinking (None: a model
    that does not think, and no ``completion_tokens_details``)."""
    body: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": completion,
                            "total_tokens": prompt + completion, "prompt_tokens_details": {"cached_tokens": cached}}
    if reasoning is not None:
        body["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    return body


def duration_text(seconds: float) -> str:
    """A wait as providers write it: ``"20ms"``, ``"1.5s"``, ``"6m0s"``."""
    if seconds < 1:
        return f"{max(0, math.ceil(seconds * 1000))}ms"
    if seconds < 60:
        return f"{seconds:.3f}".rstrip("0").rstrip(".") + "s"
    m, s = divmod(seconds, 60)
    return f"{int(m)}m{s:.0f}s"


class RateWindow:
    """A per-minute budget (tokens or requests): ``per_min`` a minute, at most ``per_min`` banked."""

    def __init__(self, per_min: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_min = float(per_min)
        self._clock = clock
        self._level = self.per_min
        self._at = clock()

    def level(self) -> float:
        now = self._clock()
        if now > self._at:
            self._level = min(self.per_min, self._level + (now - self._at) * self.per_min / 60.0)
            self._at = now
        return self._level

    def wait_for(self, n: float) -> float:
        """Seconds until ``n`` fit (0: they fit now). ``n`` above the limit waits for a full bucket."""
        missing = min(n, self.per_min) - self.level()
        return 0.0 if missing <= 0 else missing * 60.0 / self.per_min

    def take(self, n: float) -> None:
        self._level = self.level() - n

    def reset_s(self) -> float:
        """Seconds until the bucket is full again."""
        return max(0.0, (self.per_min - self.level()) * 60.0 / self.per_min)


def cost_headers(kind: str, window: RateWindow) -> dict[str, str]:
    """``x-ratelimit-limit-<kind>``, ``-remaining-`` and ``-reset-`` of one window (kind ``tokens`` or
    ``requests``)."""
    return {f"x-ratelimit-limit-{kind}": f"{window.per_min:g}",
            f"x-ratelimit-remaining-{kind}": str(max(0, math.floor(window.level()))),
            f"x-ratelimit-reset-{kind}": duration_text(window.reset_s())}


class TokenLimits:
    """The simulator's token accounting: usage per request, and the ``tpm`` / ``rpm`` windows."""

    def __init__(self, tpm: int | None, rpm: int | None) -> None:
        self.tokens = RateWindow(tpm) if tpm else None
        self.requests = RateWindow(rpm) if rpm else None
        self.seen_systems: set[str] = set()
        #: tokens charged (admitted requests), and 429s for tokens / for requests
        self.charged = 0
        self.refused_tokens = 0
        self.refused_requests = 0

    def usage(self, messages: list[Any], answer: str) -> tuple[int, int, int]:
        """(prompt, completion, cached) tokens of one request."""
        prompt, cached = prompt_usage(messages, self.seen_systems)
        return prompt, count_tokens(answer), cached

    def headers(self) -> dict[str, str]:
        out: dict[str, str] = {}
        if self.requests is not None:
            out.update(cost_headers("requests", self.requests))
        if self.tokens is not None:
            out.update(cost_headers("tokens", self.tokens))
        return out

    def admit(self, cost: int) -> tuple[str, float] | None:
        """Charge one request of ``cost`` tokens, or (why refused, seconds to wait) and nothing charged."""
        if self.requests is not None and (wait := self.requests.wait_for(1)) > 0:
            self.refused_requests += 1
            return (f"Rate limit reached for requests per min (RPM): Limit {self.requests.per_min:g}, "
                    f"Remaining {max(0, math.floor(self.requests.level()))}. (simulated)"), wait
        if self.tokens is not None and (wait := self.tokens.wait_for(cost)) > 0:
            self.refused_tokens += 1
            return (f"Rate limit reached for tokens per min (TPM): Limit {self.tokens.per_min:g}, "
                    f"Remaining {max(0, math.floor(self.tokens.level()))}, Requested {cost}. (simulated)"), wait
        if self.requests is not None:
            self.requests.take(1)
        if self.tokens is not None:
            self.tokens.take(cost)
        self.charged += cost
        return None

    def stats(self) -> dict[str, Any]:
        return {"tokens_charged": self.charged, "refused_429_tokens": self.refused_tokens,
                "refused_429_requests": self.refused_requests}
