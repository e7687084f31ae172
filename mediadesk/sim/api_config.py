"""Settings of the API simulator (:class:`ApiSimConfig`), checked when built.

Its own module so the fault controls, the CLI glue and the server all import it from below, and
none of them needs another (the controls replace the config at run time; the CLI builds it from flags).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from mediadesk.sim._api_hostile import HOSTILE_HUGE_CHARS, HOSTILE_STEADY_S, Hostile, HostileMode
from mediadesk.sim._api_outages import OUTAGE_MODES, OutageMode

__all__ = ["REASONING_MODES", "ApiSimConfig", "ReasoningMode"]

#: How the simulator's model thinks before it answers (``ApiSimConfig.reasoning``).
ReasoningMode = Literal["none", "field", "think_tag"]
REASONING_MODES: tuple[ReasoningMode, ...] = ("none", "field", "think_tag")


@dataclass
class ApiSimConfig:
    """Behaviour of the simulator. Rates are probabilities in [0, 1], times are seconds.

    ``api_key``: the key chat completions expect (``Authorization: Bearer KEY``; 401 otherwise, counted
    in ``status_counts``); ``GET /models`` stays open to anyone, as many servers' listing is, so a
    health probe there cannot tell a wrong key. ``retry_after_s`` is the ``Retry-After`` of every 429;
    ``send_retry_after=False`` (or ``retry_after_s=None``) sends bare 429s, as some providers do.
    ``outage_after_s`` schedules an outage of ``outage_mode`` that long after :meth:`ApiSimServer.start`,
    lasting ``outage_for_s`` (None: until stopped or ended with ``set_outage(None)``).
    """

    latency: tuple[float, float] = (0.0, 0.0)
    time_scale: float = 1.0
    #: Concurrent chat generations over all keys (``per_key_quota``: per ``Authorization`` value); beyond
    #: either, a 429. None: no limit.
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
    #: Answer every chat request the hostile way (None: normal answers); see ``_api_hostile.HostileMode``.
    hostile: HostileMode | None = None
    hostile_chars: int = HOSTILE_HUGE_CHARS
    hostile_seconds: float = HOSTILE_STEADY_S
    #: Tokens per minute (prompt + completion, charged at admission; None: no limit), see ``_api_tokens``.
    tpm: int | None = None
    #: Requests per minute (None: no limit).
    rpm: int | None = None
    #: Plain answers carry ``usage``; False: a server that reports none.
    report_usage: bool = True
    #: Honour ``stream_options.include_usage`` (a last chunk with ``usage``); False: a server that ignores it.
    stream_usage: bool = True
    #: Batch API (``_api_batches``): how long a batch takes, every k-th line errors (0: none), it expires half done.
    batch_delay_s: float = 0.5
    batch_fail_every: int = 0
    batch_expire: bool = False
    batch_api: bool = True
    #: A reasoning model's thinking before each chat answer: "none"; "field": ``reasoning_content`` (deltas
    #: before the content deltas when streamed, ``message.reasoning_content`` when not); "think_tag": a
    #: ``<think>…</think>`` block at the start of the content. Either reports its tokens in
    #: ``usage.completion_tokens_details.reasoning_tokens``.
    reasoning: ReasoningMode = "none"
    #: Tokens the thinking takes (0: counted from its text). A request whose ``max_tokens`` is below them
    #: ends with ``finish_reason: "length"`` and no answer, the thinking cut where the limit fell.
    think_tokens: int = 0

    def __post_init__(self) -> None:
        lo, hi = self.latency
        if not (0 <= lo <= hi and math.isfinite(hi)):
            raise ValueError(f"latency must be 0 <= MIN <= MAX, got {self.latency!r}")
        if not (self.time_scale >= 0 and math.isfinite(self.time_scale)):
            raise ValueError(f"time_scale must be >= 0, got {self.time_scale!r}")
        for name in ("quota", "per_key_quota", "tpm", "rpm"):
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
        if self.reasoning not in REASONING_MODES:
            raise ValueError(f"reasoning must be one of {', '.join(REASONING_MODES)}, got {self.reasoning!r}")
        if self.think_tokens < 0:
            raise ValueError(f"think_tokens must be >= 0, got {self.think_tokens!r}")
        if self.hostile is not None:
            Hostile(self.hostile, self.hostile_chars, self.hostile_seconds)  # raises ValueError if bad

    @property
    def retry_after_header(self) -> str | None:
        """The ``Retry-After`` value of a 429, or None for a bare 429."""
        if not self.send_retry_after or self.retry_after_s is None:
            return None
        return f"{self.retry_after_s:g}"
