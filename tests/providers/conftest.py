"""Shared fixtures for provider tests: a minimal RunContext that records what a backend reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from mediadesk.core.log_lines import LogText


@dataclass
class RecordingContext:
    """Satisfies ``mediadesk.core.backend.RunContext``; keeps the log lines."""

    lane: str
    evidence_dir: Path
    lines: list[str] = field(default_factory=list)

    def log(self, text: LogText) -> None:
        self.lines.append(text.english())


@pytest.fixture
def run_ctx(tmp_path: Path) -> RecordingContext:
    return RecordingContext(lane="api:test", evidence_dir=tmp_path)
