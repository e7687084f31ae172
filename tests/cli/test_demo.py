"""The README's headless demo, as a new user runs it: both simulators, two web accounts, 40 tasks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.browser
def test_headless_demo_runs_the_whole_batch(tmp_path: Path) -> None:
    data = tmp_path / "demo"
    out = subprocess.run([sys.executable, "-m", "mediadesk", "demo", "--data-dir", str(data)],
                         capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "summary: success 40" in out.stdout
    assert "concurrent violations 0" in out.stderr
    assert "Traceback" not in out.stderr
    left = [p.pid for p in psutil.process_iter(["cmdline"])
            if any(str(data) in a for a in (p.info["cmdline"] or [])) and p.status() != psutil.STATUS_ZOMBIE]
    assert left == []
