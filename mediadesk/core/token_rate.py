"""Tokens-per-minute gates: a task's expected tokens, a bucket that reserves them before the request
and trues up with the real usage after, and the provider's ``x-ratelimit-*`` hints.

Reserve first because providers count a request's tokens on admission; counting only after the
answer would send a burst of long prompts into 429s. The reservation is the prompt's estimate plus
``max_tokens``, else the profile's recent p90 completion, else :data:`DEFAULT_COMPLETION_TOKENS`;
the real ``usage`` then corrects it (the level may go below zero). The provider's headers win when
sent (remaining tokens, a learned limit, requests exhausted until reset). Pure: ``now`` is passed in.
"""

from __future__ import annotations

import math
import re
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

from mediadesk.core.log_lines import LOG, LogText, LogValue
from mediadesk.core.usage import estimate_tokens

__all__ = ["DEFAULT_COMPLETION_TOKENS", "CompletionHistory", "RateHints", "TokenGate", "TokenRateBucket",
           "conversation_text", "expected_tokens", "p90", "parse_duration_s", "rate_hints"]

#: The completion reserved for a task with no ``max_tokens`` and no history on its profile.
DEFAULT_COMPLETION_TOKENS = 512
#: Completions remembered per profile for its p90.
HISTORY = 50
#: Chat-template tokens per message (a provider counts a few around each).
PER_MESSAGE = 4


def p90(values: list[int]) -> int | None:
    """The 90th percentile (nearest rank) of ``values``; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]


class CompletionHistory:
    """The recent completion tokens of each profile (for its p90)."""

    def __init__(self, size: int = HISTORY) -> None:
        self._size = size
        self._by_profile: dict[str, deque[int]] = {}

    def add(self, profile: str, completion_tokens: int) -> None:
        self._by_profile.setdefault(profile, deque(maxlen=self._size)).append(max(0, completion_tokens))

    def p90(self, profile: str) -> int | None:
        recent = self._by_profile.get(profile)
        return None if not recent else p90(list(recent))


def expected_tokens(prompt: str, system: str | None = None, *, max_tokens: int | None = None,
                    recent_p90: int | None = None, default: int = DEFAULT_COMPLETION_TOKENS) -> int:
    """Tokens to reserve for one request: the prompt's estimate (and the system prompt's) plus the
    completion it may use (``max_tokens``, else the profile's recent p90, else ``default``)."""
    sent = estimate_tokens(prompt) + PER_MESSAGE
    if system:
        sent += estimate_tokens(system) + PER_MESSAGE
    completion = max_tokens if max_tokens is not None else (recent_p90 if recent_p90 is not None else default)
    return sent + max(0, completion)


@dataclass(frozen=True)
class RateHints:
    """What a provider's ``x-ratelimit-*`` headers said with an answer (None: not sent)."""

    limit_requests: float | None = None
    limit_tokens: float | None = None
    remaining_requests: float | None = None
    remaining_tokens: float | None = None
    reset_requests_s: float | None = None
    reset_tokens_s: float | None = None

    @property
    def empty(self) -> bool:
        return all(v is None for v in (self.limit_requests, self.limit_tokens, self.remaining_requests,
                                       self.remaining_tokens, self.reset_requests_s, self.reset_tokens_s))


_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


def parse_duration_s(value: str | None) -> float | None:
    """``"6m0s"``, ``"1.5s"``, ``"20ms"``, ``"1h2m3s"`` or plain seconds (``"2"``, ``"0.5"``) -> seconds;
    None when it is none of those (or negative, or absurd)."""
    if value is None:
        return None
    text = value.strip().lower()
    if not text:
        return None
    try:
        secs = float(text)
    except ValueError:
        secs = 0.0
        pos = 0
        for m in re.finditer(r"(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)", text):
            if m.start() != pos:
                return None
            secs += float(m.group(1)) * _UNITS[m.group(2)]
            pos = m.end()
        if pos != len(text) or pos == 0:
            return None
    return secs if 0 <= secs < 1e7 and not math.isnan(secs) else None


def _number(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        n = float(value.strip())
    except ValueError:
        return None
    return n if 0 <= n < 1e12 else None


def rate_hints(headers: Mapping[str, str]) -> RateHints:
    """The ``x-ratelimit-*`` headers of an answer (names case-insensitive in ``headers`` as httpx gives)."""
    get = headers.get
    return RateHints(
        limit_requests=_number(get("x-ratelimit-limit-requests")),
        limit_tokens=_number(get("x-ratelimit-limit-tokens")),
        remaining_requests=_number(get("x-ratelimit-remaining-requests")),
        remaining_tokens=_number(get("x-ratelimit-remaining-tokens")),
        reset_requests_s=parse_duration_s(get("x-ratelimit-reset-requests")),
        reset_tokens_s=parse_duration_s(get("x-ratelimit-reset-tokens")),
    )


class TokenRateBucket:
    """``tpm`` tokens a minute, at most ``tpm`` banked (full at first use); a reservation larger than
    the whole bucket waits for a full one. The level may go below zero (a request that used more than
    it reserved): the next reservation waits until it is earned back."""

    def __init__(self, tpm: float) -> None:
        if not 0 < tpm < math.inf:
            raise ValueError(f"tpm must be finite and > 0, got {tpm}")
        self.tpm = float(tpm)
        self._level = self.tpm
        self._last: float | None = None

    def __repr__(self) -> str:
        return f"TokenRateBucket(tpm={self.tpm:g}, level={self._level:.0f})"

    def level(self, now: float) -> float:
        if self._last is not None and now > self._last:
            self._level = min(self.tpm, self._level + (now - self._last) * self.tpm / 60.0)
        if self._last is None or now > self._last:
            self._last = now
        return self._level

    def wait_time(self, now: float, need: float) -> float:
        """Seconds until ``need`` tokens may be reserved (0: now)."""
        missing = min(need, self.tpm) - self.level(now)
        return 0.0 if missing <= 1e-6 else missing * 60.0 / self.tpm

    def reserve(self, now: float, need: float) -> float:
        """Take ``need`` tokens (call after ``wait_time`` said 0; taken even if not, as a debt)."""
        self._level = self.level(now) - need
        return need

    def true_up(self, now: float, reserved: float, used: float) -> None:
        """The request used ``used`` tokens where ``reserved`` were taken: give back or owe the difference."""
        self._level = min(self.tpm, self.level(now) + reserved - used)

    def clamp(self, now: float, remaining: float) -> bool:
        """The provider says ``remaining`` tokens are left: never believe there are more. True if lowered."""
        if remaining < self.level(now):
            self._level = remaining
            return True
        return False

    def set_rate(self, tpm: float) -> None:
        """A learned limit (``x-ratelimit-limit-tokens``): the new size, the level kept within it."""
        self.tpm = float(tpm)
        self._level = min(self._level, self.tpm)


class TokenGate:
    """One callee's token side: its TPM bucket (configured, or learned from the provider's
    ``x-ratelimit-limit-tokens``), a requests bucket learned from ``x-ratelimit-limit-requests`` (a
    configured ``rpm`` is the capacity's own bucket), the profiles' recent completions, and a hold when
    the provider says its window is empty but not how large it is.

    Both learned buckets are lowered to what the provider says is left (``x-ratelimit-remaining-*``)
    with every answer, so a dispatch that the provider would refuse is held back instead: MediaDesk
    slows down before the 429. ``honour_headers=False`` ignores the headers (the request-only
    behaviour, for comparison)."""

    def __init__(self, tpm: float = 0.0, *, honour_headers: bool = True) -> None:
        self.bucket = TokenRateBucket(tpm) if tpm > 0 else None
        self.configured_tpm = float(tpm)
        #: Requests a minute as the provider's headers say (None until they do).
        self.requests: TokenRateBucket | None = None
        self.honour_headers = honour_headers
        self.completions = CompletionHistory()
        #: No dispatch before this (the provider said its window is empty, without its size).
        self.hold_until = -math.inf

    @property
    def limits_tokens(self) -> bool:
        return self.bucket is not None

    @property
    def limits(self) -> bool:
        """Some bucket or hold of this gate may keep a dispatch back."""
        return self.bucket is not None or self.requests is not None or self.hold_until > -math.inf

    def wait_time(self, now: float, need: float) -> float:
        """Seconds until a request of ``need`` tokens may go (hold, requests and tokens)."""
        wait = max(0.0, self.hold_until - now)
        if self.requests is not None:
            wait = max(wait, self.requests.wait_time(now, 1.0))
        if self.bucket is not None and need > 0:
            wait = max(wait, self.bucket.wait_time(now, need))
        return wait

    def reserve(self, now: float, need: float) -> float:
        """Reserve a request and ``need`` tokens for one about to be sent; returns the tokens reserved."""
        if self.requests is not None:
            self.requests.reserve(now, 1.0)
        if self.bucket is None or need <= 0:
            return 0.0
        return self.bucket.reserve(now, need)

    def settle(self, now: float, reserved: float, used: float | None, *, profile: str | None = None,
               completion: int | None = None, hints: RateHints | None = None, next_need: float = 0.0,
               refused: bool = False) -> LogValue | None:
        """The request ended: true up the bucket with ``used`` (None: not known, the reservation stands),
        give the request back if the provider ``refused`` it, remember the completion for the profile's
        p90, and follow the provider's hints. Returns a note for the log when a hint changed something."""
        if self.bucket is not None and reserved > 0 and used is not None:
            self.bucket.true_up(now, reserved, used)
        if refused and self.requests is not None:
            self.requests.true_up(now, 1.0, 0.0)
        if profile is not None and completion is not None:
            self.completions.add(profile, completion)
        if hints is None or hints.empty or not self.honour_headers:
            return None
        return _joined([*self._follow_requests(now, hints), *self._follow_tokens(now, hints, next_need)])

    def _follow_tokens(self, now: float, hints: RateHints, next_need: float) -> list[LogText]:
        limit, left = hints.limit_tokens, hints.remaining_tokens
        notes: list[LogText] = []
        if limit and not self.configured_tpm and (self.bucket is None or limit != self.bucket.tpm):
            if self.bucket is None:
                self.bucket = TokenRateBucket(limit)
            else:
                self.bucket.set_rate(limit)
            notes.append(LOG.provider_tpm(n=f"{limit:g}"))
        if self.bucket is not None and left is not None:
            if self.bucket.clamp(now, left) and left < max(1.0, next_need):
                notes.append(LOG.tokens_left_waiting(n=f"{left:g}"))
        elif left is not None and hints.reset_tokens_s is not None and left < max(1.0, next_need):
            self._hold(now + hints.reset_tokens_s)
            notes.append(LOG.tokens_left_holding(n=f"{left:g}", seconds=f"{hints.reset_tokens_s:g}"))
        return notes

    def _follow_requests(self, now: float, hints: RateHints) -> list[LogText]:
        limit, left = hints.limit_requests, hints.remaining_requests
        notes: list[LogText] = []
        if limit and (self.requests is None or limit != self.requests.tpm):
            if self.requests is None:
                self.requests = TokenRateBucket(limit)
            else:
                self.requests.set_rate(limit)
            notes.append(LOG.provider_rpm(n=f"{limit:g}"))
        if self.requests is not None and left is not None:
            if self.requests.clamp(now, left) and left < 1:
                notes.append(LOG.no_request_left_waiting())
        elif left is not None and left < 1 and hints.reset_requests_s:
            self._hold(now + hints.reset_requests_s)
            notes.append(LOG.no_request_left_holding(seconds=f"{hints.reset_requests_s:g}"))
        return notes

    def _hold(self, until: float) -> None:
        self.hold_until = max(self.hold_until, until)


def conversation_text(prompt: str, history: tuple[tuple[str, str], ...] = ()) -> str:
    """A turn's prompt with its history, as one text for the estimate."""
    return "\n".join([*(q + "\n" + a for q, a in history), prompt])


def _joined(notes: list[LogText]) -> LogValue | None:
    """The notes for one log line, "; " between them; None when there are none."""
    if not notes:
        return None
    out: list[LogValue] = [notes[0]]
    for note in notes[1:]:
        out += ["; ", note]
    return tuple(out)
