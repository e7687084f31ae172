"""The packaged app (PyInstaller one-folder, packaging/mediadesk.spec) really works: built once per
source hash (cached under build/packaged/), then run as a user would, with no Python of ours around it:
``mediadesk demo`` runs the demo batch end to end headless (both simulators, a real Chromium found
by finder.py, Playwright's bundled node driver), and ``mediadesk console --demo`` opens the main
window offscreen and shuts down cleanly.

Costs about 1-2 min to build on a 2-core machine (nothing when the cache is warm) and ~40 s to run.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from mediadesk.providers.web import BrowserNotFoundError, find_browser
from tests.support import require, skip_here

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / "build" / "packaged"

# Nightly: a clean clone builds the app (~100 s); `./dev package` builds it too, and
# tests/packaging/test_frozen_resources.py proves the frozen lookups in the default run.
pytestmark = [pytest.mark.packaging, pytest.mark.browser, pytest.mark.nightly, pytest.mark.timeout(900)]


def _source_hash() -> str:
    """What the build depends on: our sources, resources, the spec, and the tool versions."""
    h = hashlib.sha256()
    files = [ROOT / "pyproject.toml"]
    for top in ("mediadesk", "resources", "packaging"):
        files += [p for p in (ROOT / top).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    for path in sorted(files):
        h.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    for dist in ("pyinstaller", "playwright", "PySide6-Essentials", "pyqtgraph"):
        with_version = f"{dist}=={metadata.version(dist)}" if _installed(dist) else dist
        h.update(with_version.encode())
    return h.hexdigest()[:16]


def _installed(dist: str) -> bool:
    try:
        metadata.version(dist)
    except metadata.PackageNotFoundError:
        return False
    return True


@pytest.fixture(scope="module")
def packaged_app() -> Path:
    require(_installed("pyinstaller"),
            "PyInstaller is not installed: pip install -e '.[package]' (./dev setup installs it)")
    try:
        find_browser(probe_version=False)
    except BrowserNotFoundError as exc:
        require(False, f"no Chromium on this machine: {exc}")
    key = _source_hash()
    here = CACHE / key
    app = here / "dist" / "mediadesk"
    if not (here / "complete").is_file():
        for old in CACHE.glob("*"):  # one cached build at a time: they are ~400 MB
            shutil.rmtree(old, ignore_errors=True)
        here.mkdir(parents=True)
        subprocess.run([sys.executable, str(ROOT / "packaging" / "build.py"), "--dist", str(here / "dist"),
                        "--work", str(here / "work")], check=True, cwd=ROOT, timeout=800)
        shutil.rmtree(here / "work", ignore_errors=True)
        (here / "complete").write_text(key)
    return app


def _env(tmp_path: Path) -> dict[str, str]:
    """The user's environment minus our Python (no PYTHONPATH/venv), offscreen, a private HOME."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "DISPLAY", "WAYLAND_DISPLAY", "MEDIADESK_DATA_DIR")}
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), QT_QPA_PLATFORM="offscreen")
    return env


def test_the_folder_has_the_app_its_menu_entry_and_resources(packaged_app: Path) -> None:
    assert os.access(packaged_app / "mediadesk", os.X_OK)
    desktop = (packaged_app / "mediadesk.desktop").read_text(encoding="utf-8")
    assert "Exec=mediadesk console" in desktop and "Icon=mediadesk" in desktop
    assert (packaged_app / "mediadesk.png").read_bytes()[:4] == b"\x89PNG"
    internal = packaged_app / "_internal"
    assert (internal / "resources" / "demo" / "batch.jsonl").is_file()
    assert list((internal / "resources" / "i18n").glob("*.qm"))
    assert os.access(internal / "playwright" / "driver" / "node", os.X_OK)
    assert (internal / "playwright" / "driver" / "package" / "browsers.json").is_file()


def _managed_chromium_stand_in(app: Path, registry: Path, marker: Path) -> None:
    """A "Playwright-managed Chromium" where the packaged app's bundled browsers.json says it is:
    a wrapper that notes each start in ``marker`` and runs the system's Chromium."""
    browsers = json.loads((app / "_internal" / "playwright" / "driver" / "package" / "browsers.json").read_text())
    revision = next(b["revision"] for b in browsers["browsers"] if b["name"] == "chromium")
    sub = {"x86_64": "chrome-linux64", "aarch64": "chrome-linux-arm64"}.get(platform.machine())
    if sub is None:
        skip_here(f"no Playwright Chromium layout known for {platform.machine()}")
    system = find_browser(probe_version=False).path
    exe = registry / f"chromium-{revision}" / sub / "chrome"
    exe.parent.mkdir(parents=True)
    exe.write_text(f'#!/bin/sh\necho "$$" >> "{marker}"\nexec "{system}" "$@"\n')
    exe.chmod(0o755)


def test_packaged_demo_runs_the_batch_end_to_end(packaged_app: Path, tmp_path: Path) -> None:
    """Headless, both lanes; the web lane's Chromium is found by the packaged finder.py through
    Playwright's registry (PLAYWRIGHT_BROWSERS_PATH and the bundled browsers.json)."""
    marker = tmp_path / "managed-chromium-starts"
    _managed_chromium_stand_in(packaged_app, tmp_path / "pw-browsers", marker)
    data = tmp_path / "demo"
    env = _env(tmp_path) | {"PLAYWRIGHT_BROWSERS_PATH": str(tmp_path / "pw-browsers")}
    done = subprocess.run([str(packaged_app / "mediadesk"), "demo", "--data-dir", str(data)],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    assert "summary: success 40" in out, out[-3000:]
    with sqlite3.connect(data / "mediadesk.db") as db:
        done_by_kind = dict(db.execute("SELECT model_kind, COUNT(*) FROM task WHERE state = 'success' GROUP BY 1"))
    assert done_by_kind.get("web", 0) > 0 and done_by_kind.get("api", 0) > 0, done_by_kind  # Chromium really ran
    assert marker.is_file() and marker.read_text().split(), "the packaged app did not use Playwright's Chromium"


def test_packaged_console_opens_offscreen_and_closes_cleanly(packaged_app: Path, tmp_path: Path) -> None:
    env = _env(tmp_path) | {"MEDIADESK_SMOKE_SECONDS": "2"}
    done = subprocess.run([str(packaged_app / "mediadesk"), "console", "--demo", "--data-dir", str(tmp_path / "c")],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    err = done.stderr
    assert "smoke: main window shown (MediaDesk" in err, err[-3000:]
    assert "smoke: closing the main window" in err, err[-3000:]
    assert "Traceback" not in err, err[-3000:]
    assert done.returncode == 0, err[-3000:]
