"""Which priority channel the dispatcher serves next: weighted, with a starvation bound.

Channels ``high`` (priority > 0), ``normal`` (0), ``low`` (< 0) share dispatch in proportion to their
weights among those with due tasks (self-clocked stride scheduling: exact, deterministic, evenly
interleaved). A channel that was empty rejoins at the current virtual time, so it cannot bank credit.
Starvation bound: a non-empty channel is picked at least once in every ``starvation_limit + 1``
picks; a pick is forced (earliest-deadline-first) only when weights would break that bound, and is
charged like any other, so the other channels keep their ratio.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from enum import Enum

__all__ = ["DEFAULT_WEIGHTS", "Channel", "PriorityPicker", "channel_of"]


class Channel(str, Enum):
    HIGH = "high"
    NORMAL = "normal"
    LOW = "low"


#: Highest priority first: the tie-break order of weighted picks and the order of ``weights``.
_ORDER: tuple[Channel, ...] = (Channel.HIGH, Channel.NORMAL, Channel.LOW)
_RANK = {c: i for i, c in enumerate(_ORDER)}

DEFAULT_WEIGHTS: tuple[int, int, int] = (25, 5, 1)


def channel_of(priority: int) -> Channel:
    if priority > 0:
        return Channel.HIGH
    return Channel.NORMAL if priority == 0 else Channel.LOW


class PriorityPicker:
    """Stateful, pure: ``pick`` says which channel to take the next task from."""

    def __init__(self, weights: tuple[int, int, int] = DEFAULT_WEIGHTS, starvation_limit: int = 20) -> None:
        if len(weights) != len(_ORDER) or any(w < 1 for w in weights):
            raise ValueError(f"weights must be {len(_ORDER)} positive integers (high, normal, low), got {weights}")
        if starvation_limit < len(_ORDER) - 1:
            raise ValueError(f"starvation_limit must be >= {len(_ORDER) - 1}, got {starvation_limit}")
        self.weights = dict(zip(_ORDER, weights, strict=True))
        self.starvation_limit = starvation_limit
        period = math.lcm(*weights)
        #: Virtual time between two picks of a channel: inversely proportional to its weight.
        self._stride = {c: period // w for c, w in self.weights.items()}
        #: Virtual time at which each channel's next weighted pick is due.
        self._due = dict(self._stride)
        self._vtime = 0
        self._present: frozenset[Channel] = frozenset()
        #: Consecutive picks during which the channel was waiting and not picked.
        self.skipped = dict.fromkeys(_ORDER, 0)
        #: Whether the last pick was forced by the starvation bound (for logs and tests).
        self.last_forced = False

    def __repr__(self) -> str:
        return f"PriorityPicker(weights={tuple(self.weights.values())}, starvation_limit={self.starvation_limit})"

    def pick(self, nonempty: Iterable[Channel]) -> Channel | None:
        """The channel to take the next task from, given which channels have due tasks (None: none)."""
        present = frozenset(Channel(c) for c in nonempty)
        self._rejoin(present)
        if not present:
            self.last_forced = False
            return None
        weighted = min(present, key=lambda c: (self._due[c], _RANK[c]))
        urgent = self._most_urgent(present)
        self.last_forced = urgent != weighted and not self._keeps_bound(weighted, present)
        chosen = urgent if self.last_forced else weighted
        if not self.last_forced:
            self._vtime = max(self._vtime, self._due[chosen])
        self._due[chosen] += self._stride[chosen]
        for c in present:
            self.skipped[c] = 0 if c == chosen else self.skipped[c] + 1
        return chosen

    def _rejoin(self, present: frozenset[Channel]) -> None:
        """Channels that just got due tasks start at the current virtual time; empty ones stop waiting."""
        for c in _ORDER:
            if c not in present:
                self.skipped[c] = 0
            elif c not in self._present:
                self._due[c] = max(self._due[c], self._vtime + self._stride[c])
        self._present = present

    def _slack(self, c: Channel) -> int:
        """How many more picks ``c`` may miss before the starvation bound is broken."""
        return self.starvation_limit - self.skipped[c]

    def _most_urgent(self, present: frozenset[Channel]) -> Channel:
        """Longest-waiting channel; on a tie the lower one (the one the bound exists for)."""
        return min(present, key=lambda c: (self._slack(c), -_RANK[c]))

    def _keeps_bound(self, chosen: Channel, present: frozenset[Channel]) -> bool:
        """After picking ``chosen``, can every other waiting channel still be served in time?

        One channel is served per pick, so the i-th most urgent of the others (1-based) needs a
        slack of at least i now (it loses one with this pick and waits for i - 1 more).
        """
        slacks = sorted(self._slack(c) for c in present if c != chosen)
        return all(s >= i for i, s in enumerate(slacks, start=1))
