"""TEMP fallback (replaced by the full one)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class FallbackStep:
    profile: str | None = None
    rule_reply: str | None = None


def next_step(chain: Sequence[str], rule_reply: str | None, tried: Sequence[str]) -> FallbackStep:
    for p in chain:
        if p not in tried:
            return FallbackStep(profile=p)
    return FallbackStep(rule_reply=rule_reply)
