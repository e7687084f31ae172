"""Shared fixtures for provider tests: a minimal RunContext that records what a backend reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest


@dataclass
class RecordingContext:
    """Satisfies ``mediadesk.core.runner.RunContext``; keeps log lines and counts heartbeats."""

    lane: str
    evidence_dir: Path
    lines: list[str] = field(default_factory=list)
    beats: int = 0

    def log(self, message: str) -> None:
        self.lines.append(message)

    def beat(self) -> None:
        self.beats += 1


@pytest.fixture
def run_ctx(tmp_path: Path) -> RecordingContext:
    return RecordingContext(lane="api:test", evidence_dir=tmp_path)
