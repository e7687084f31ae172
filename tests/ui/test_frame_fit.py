"""Every window inside the screen with its frame, under a real window manager (issue 30, item 11).

The offscreen tests (test_screen_fit.py, test_small_screen.py) have no window manager: no frame. Here
a private Xvfb at 1024x640 runs openbox, which frames every window (a title bar, thin borders) as
desktops on Linux, Windows and macOS do, and ``tests/ui/screen_probe.py`` runs on it (``xcb``) in a
process per language: the demo's main window, an idle console (a first run, maximized), a layout
restored from a larger screen, the staging dialog, the Setup editor, the welcome panel, a notice and
the close question each lie inside the screen's available geometry WITH their frame (the title bar,
the handle every desktop moves a window by, on screen), none cut off.

Each language runs as a console started in it does (``LANG``): Chinese text then gets a CJK font as
the interface font, taller than the Latin one; with it the folded main window's 12 table rows held the
window 665 px tall (690 px with its frame) on a 640 px screen. Before the fix, the main window's
frame started at y = -20 in both languages (its client area placed at the top of the screen).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.providers.web.conftest import wait_for
from tests.providers.web.xserver import xvfb
from tests.support import ROOT, require

SIZE = (1024, 640)
#: Per language, the ``LANG`` a console started in it has.
LANGS = {"en": "en_US.UTF-8", "zh_CN": "zh_CN.UTF-8"}
WINDOWS = {"welcome", "main demo", "main first run", "main maximized", "main restored", "batch dialog",
           "setup editor", "notice box", "close question"}
MAIN_WINDOWS = ("main demo", "main first run", "main maximized", "main restored")


@contextmanager
def openbox(display: str, tmp_path: Path) -> Iterator[None]:
    """openbox on ``display``, once it manages the screen (it runs ``--startup`` then); stopped after."""
    started = tmp_path / "openbox.started"
    env = {**os.environ, "DISPLAY": display, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    with open(tmp_path / "openbox.log", "wb") as log:
        proc = subprocess.Popen(["openbox", "--sm-disable", "--startup", f"touch {shlex.quote(str(started))}"],
                                env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        wait_for(lambda: started.exists() or proc.poll() is not None, 30, "openbox to start")
        assert proc.poll() is None, f"openbox exited with code {proc.returncode}"
        yield
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="module")
def framed_display(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A private 1024x640 X display with openbox framing its windows."""
    require(shutil.which("Xvfb") is not None and shutil.which("openbox") is not None,
            "needs Xvfb and openbox (./dev setup installs them)")
    tmp = tmp_path_factory.mktemp("framed_display")
    with xvfb(tmp / "xvfb.log", screen=f"{SIZE[0]}x{SIZE[1]}x24") as display, openbox(display, tmp):
        yield display


def probe(display: str, work: Path, locale: str) -> dict[str, dict]:
    """What ``tests/ui/screen_probe.py`` found for ``locale`` on ``display``, started in that language."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_") and k != "WAYLAND_DISPLAY"}
    # PYTHONCOERCECLOCALE=0: where the locale is not installed, Python would set LC_CTYPE=C.UTF-8, and
    # fontconfig would then choose the interface font for it rather than for the language
    env |= {"DISPLAY": display, "QT_QPA_PLATFORM": "xcb", "LANG": LANGS[locale], "LANGUAGE": locale,
            "PYTHONCOERCECLOCALE": "0"}
    work.mkdir()
    proc = subprocess.run([sys.executable, "-m", "tests.ui.screen_probe", locale, str(work), "demo"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])[locale]


@pytest.mark.parametrize("locale", list(LANGS))
def test_every_window_fits_the_screen_with_its_frame(framed_display: str, tmp_path: Path, locale: str) -> None:
    seen = probe(framed_display, tmp_path / "work", locale)
    assert set(seen) == WINDOWS
    for name, w in seen.items():
        where = f"{locale}, {name}"
        assert w["available"] == [0, 0, *SIZE], where
        assert w["frame"] != w["client"], f"{where}: the window manager did not frame it: {w['frame']}"
        assert w["fits"], f"{where}: frame {w['frame']} is not inside the screen {w['available']}"
        assert w["buttons_cut_off"] == [], f"{where}: buttons cut off at its edge: {w['buttons_cut_off']}"
    for name in MAIN_WINDOWS:
        assert seen[name]["outside"] == [], f"{locale}, {name}: parts cut off: {seen[name]['outside']}"
