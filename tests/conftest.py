"""Shared fixtures: fast timing config, workspaces in tmp dirs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from mediadesk.workspace import Workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return Workspace.resolve(data_dir=tmp_path / "data").ensure()
