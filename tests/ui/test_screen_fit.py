"""Every window fits a small screen (issue 20, item 1): at 1024x640 (also 1024x600, a 1024x640
laptop less a 40 px task bar) and 1600x1000, in English and in Chinese with the real translation,
the main window (first run, maximized, a layout restored from a larger screen), the staging
dialog, the Setup editor, the welcome panel, a notice and the close question lie inside the
screen's available geometry with their buttons inside them, and the folded main window cuts off
none of its parts.

The screen size is fixed when Qt starts, so each size runs in a process of its own on an
offscreen screen of that size (``tests/ui/screen_probe.py``), with the screen fit installed as the
console installs it; both locales run in that process, one after the other, each with its own
translator and a folder of its own (measured: the same frames, sizes and findings as a process per
locale, in either order).
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
LOCALES = ["en", "zh_CN"]
WINDOWS = {"welcome", "main first run", "main maximized", "main restored", "batch dialog", "setup editor",
           "notice box", "close question"}


def probe(tmp_path: Path, size: tuple[int, int], locales: list[str]) -> dict[str, dict[str, dict]]:
    """Per locale, per window: what ``tests/ui/screen_probe.py`` found on a screen of ``size``."""
    screen = {"screens": [{"name": "probe", "x": 0, "y": 0, "width": size[0], "height": size[1],
                           "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}
    config = tmp_path / "screen.json"
    config.write_text(json.dumps(screen), encoding="utf-8")
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}"}
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.run([sys.executable, "-m", "tests.ui.screen_probe", ",".join(locales), str(work)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_window_fits_the_screen(tmp_path: Path, size: tuple[int, int]) -> None:
    by_locale = probe(tmp_path, size, LOCALES)
    assert set(by_locale) == set(LOCALES)
    for locale, seen in by_locale.items():
        assert set(seen) == WINDOWS, locale
        for name, w in seen.items():
            where = f"{locale}, {name}"
            assert w["available"] == [0, 0, *size], where
            assert w["fits"], f"{where}: frame {w['frame']} is not inside the screen {w['available']}"
            assert w["buttons_cut_off"] == [], f"{where}: buttons cut off at its edge: {w['buttons_cut_off']}"
            assert w["min"][0] <= size[0] and w["min"][1] <= size[1], \
                f"{where}: its minimum {w['min']} exceeds the screen"
        for name in ("main first run", "main maximized", "main restored"):
            assert seen[name]["outside"] == [], f"{locale}, {name}: parts cut off: {seen[name]['outside']}"
