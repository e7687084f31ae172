"""The remote API stays where the contracts put it: over the scheduler, beside the faces, without Qt
and without the providers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.test_boundaries import _lint_imports_on_copy

CODE = """
import sys
sys.modules['PySide6'] = None
sys.modules['qasync'] = None
sys.modules['shiboken6'] = None
import mediadesk.remote, mediadesk.cli.serve_cmd
print('headless-ok')
"""


def test_the_remote_api_needs_no_qt() -> None:
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.returncode == 0, out.stderr
    assert "headless-ok" in out.stdout


def test_planted_provider_qt_and_face_imports_in_the_remote_api_break_the_contracts(tmp_path: Path) -> None:
    out = _lint_imports_on_copy(tmp_path, {
        "mediadesk/remote/api.py": "from mediadesk.providers.api import backend as _planted",
        "mediadesk/remote/metrics.py": "import PySide6.QtCore as _planted_qt",
        "mediadesk/remote/outbound.py": "import mediadesk.cli as _planted_face",
    })
    assert out.returncode != 0
    assert "The faces reach the providers only through the scheduler BROKEN" in out.stdout
    assert "mediadesk.remote.api -> mediadesk.providers.api" in out.stdout
    assert "Only the UI (and the app entry) may import Qt BROKEN" in out.stdout
    assert "Layers point down BROKEN" in out.stdout
