"""Every window fits a small screen (issue 20, item 1): at 1024x640 (also 1024x600, a 1024x640
laptop less a 40 px task bar) and 1600x1000, in English and in Chinese with the real translation,
the main window (first run, maximized, a layout restored from a larger screen), the staging
dialog, the Setup editor, the welcome panel, a notice and the close question lie inside the
screen's available geometry with their buttons inside them, and the folded main window cuts off
none of its parts.

The screen size is fixed when Qt starts, so each size runs in a process of its own on an
offscreen screen of that size (``tests/ui/screen_probe.py``), with the screen fit installed as the
console installs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT

SIZES = [(1024, 640), (1024, 600), (1600, 1000)]
WINDOWS = {"welcome", "main first run", "main maximized", "main restored", "batch dialog", "setup editor",
           "notice box", "close question"}


def probe(tmp_path: Path, size: tuple[int, int], locale: str) -> dict[str, dict]:
    screen = {"screens": [{"name": "probe", "x": 0, "y": 0, "width": size[0], "height": size[1],
                           "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}
    config = tmp_path / "screen.json"
    config.write_text(json.dumps(screen), encoding="utf-8")
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}"}
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.run([sys.executable, "-m", "tests.ui.screen_probe", locale, str(work)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("locale", ["en", "zh_CN"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_window_fits_the_screen(tmp_path: Path, size: tuple[int, int], locale: str) -> None:
    seen = probe(tmp_path, size, locale)
    assert set(seen) == WINDOWS
    for name, w in seen.items():
        assert w["available"] == [0, 0, *size], name
        assert w["fits"], f"{name}: frame {w['frame']} is not inside the screen {w['available']}"
        assert w["buttons_cut_off"] == [], f"{name}: buttons cut off at its edge: {w['buttons_cut_off']}"
        assert w["min"][0] <= size[0] and w["min"][1] <= size[1], f"{name}: its minimum {w['min']} exceeds the screen"
    for name in ("main first run", "main maximized", "main restored"):
        assert seen[name]["outside"] == [], f"{name}: parts cut off: {seen[name]['outside']}"
