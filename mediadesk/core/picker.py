"""TEMP picker (replaced by the full one)."""

from __future__ import annotations

from enum import Enum


class Channel(str, Enum):
    HIGH = "high"
    NORMAL = "normal"
    LOW = "low"


class PriorityPicker:
    def pick(self, nonempty: set[Channel]) -> Channel | None:
        for ch in Channel:
            if ch in nonempty:
                return ch
        return None
