"""Fallback chain: after a task failed on its profile, what to try next.

Order: each profile of the chain not tried yet, in chain order (duplicates and the main profile,
which the caller lists in ``tried``, are skipped: no profile is tried twice); then the rule reply if
one is set and was not used; then ``exhausted`` (the task fails, the operator decides).

``tried`` holds the ``served_by`` strings of the steps already taken: profile names, and
``"rule_reply"`` once the rule reply was used. ``"rule_reply"`` and ``"operator"`` are therefore
reserved: a profile with one of these names is skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

__all__ = [
    "RESERVED_NAMES",
    "SERVED_BY_OPERATOR",
    "SERVED_BY_RULE_REPLY",
    "FallbackStep",
    "StepKind",
    "fallback_order",
    "next_step",
]

#: ``served_by`` of a result that is the configured rule reply.
SERVED_BY_RULE_REPLY = "rule_reply"
#: ``served_by`` of a result the operator typed or accepted by hand.
SERVED_BY_OPERATOR = "operator"
RESERVED_NAMES = frozenset({SERVED_BY_RULE_REPLY, SERVED_BY_OPERATOR})


class StepKind(str, Enum):
    PROFILE = "profile"
    RULE_REPLY = "rule_reply"
    EXHAUSTED = "exhausted"


@dataclass(frozen=True)
class FallbackStep:
    kind: StepKind
    profile: str | None = None   # set for PROFILE
    reply: str | None = None     # set for RULE_REPLY

    @classmethod
    def to_profile(cls, name: str) -> FallbackStep:
        return cls(StepKind.PROFILE, profile=name)

    @classmethod
    def rule(cls, reply: str) -> FallbackStep:
        return cls(StepKind.RULE_REPLY, reply=reply)

    @classmethod
    def exhausted(cls) -> FallbackStep:
        return cls(StepKind.EXHAUSTED)

    @property
    def is_exhausted(self) -> bool:
        return self.kind is StepKind.EXHAUSTED

    @property
    def served_by(self) -> str | None:
        """What the result of this step records as its source; None when nothing serves it."""
        if self.kind is StepKind.PROFILE:
            return self.profile
        return SERVED_BY_RULE_REPLY if self.kind is StepKind.RULE_REPLY else None


def _usable_profile(name: str) -> bool:
    return bool(name.strip()) and name not in RESERVED_NAMES


def _has_reply(rule_reply: str | None) -> bool:
    """A blank rule reply is no answer: treat it as unset."""
    return rule_reply is not None and bool(rule_reply.strip())


def next_step(chain: Sequence[str], rule_reply: str | None, tried: Sequence[str]) -> FallbackStep:
    """The next step after the ones in ``tried`` (which must include the main profile)."""
    done = set(tried)
    for name in chain:
        if _usable_profile(name) and name not in done:
            return FallbackStep.to_profile(name)
    if _has_reply(rule_reply) and SERVED_BY_RULE_REPLY not in done:
        assert rule_reply is not None
        return FallbackStep.rule(rule_reply)
    return FallbackStep.exhausted()


def fallback_order(main: str, chain: Sequence[str], rule_reply: str | None) -> list[FallbackStep]:
    """Every step ``next_step`` will give, in order, when each one fails: for previews and logs."""
    tried = [main]
    steps: list[FallbackStep] = []
    while not (step := next_step(chain, rule_reply, tried)).is_exhausted:
        steps.append(step)
        served = step.served_by
        assert served is not None  # a profile or the rule reply
        tried.append(served)
    steps.append(step)
    return steps
