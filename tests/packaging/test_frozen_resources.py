"""The packaged (PyInstaller) app finds its bundled ``resources/`` under ``sys._MEIPASS``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mediadesk.config.workspace import resources_dir


def test_frozen_app_uses_the_bundled_resources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundled = tmp_path / "_internal" / "resources"
    (bundled / "demo").mkdir(parents=True)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path / "_internal"), raising=False)
    assert resources_dir() == bundled


def test_source_checkout_uses_the_repository_resources(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(sys, "frozen", raising=False)
    assert resources_dir() == Path(__file__).resolve().parents[2] / "resources"
    assert (resources_dir() / "demo" / "batch.jsonl").is_file()
