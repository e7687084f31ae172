"""Finding a Chromium: configured path, Playwright's managed browser, system browsers, and the error."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from mediadesk.platform.browsers import Candidate
from mediadesk.providers.web import BrowserNotFoundError, chromium_flags, find_browser, finder
from tests.support import skip_here


def _fake_browser(path: Path, version: str = "FakeChromium 1.2.3") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho '{version}'\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def no_managed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point Playwright's registry at an empty directory: no managed browser is installed."""
    registry = tmp_path / "ms-playwright"
    registry.mkdir()
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(registry))
    return registry


def test_configured_missing_path_is_an_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "chrome"
    with pytest.raises(BrowserNotFoundError, match="does not exist") as err:
        find_browser(missing)
    assert str(missing) in str(err.value)


def test_configured_non_executable_is_an_error(tmp_path: Path) -> None:
    plain = tmp_path / "chrome"
    plain.write_text("not a program")
    plain.chmod(0o644)
    with pytest.raises(BrowserNotFoundError, match="not an executable") as err:
        find_browser(str(plain))
    assert str(plain) in str(err.value)


def test_configured_path_wins_and_reports_version(tmp_path: Path, no_managed: Path) -> None:
    exe = _fake_browser(tmp_path / "bin" / "my-chrome")
    info = find_browser(exe)
    assert info.path == exe
    assert info.source == "configured"
    assert info.version == "FakeChromium 1.2.3"


def test_playwright_managed_browser_is_found_without_launching(
    tmp_path: Path, no_managed: Path
) -> None:
    package = finder._playwright_package_dir()
    assert package is not None
    chromium = next(
        b for b in json.loads((package / "browsers.json").read_text())["browsers"] if b["name"] == "chromium"
    )
    tokens = finder._PLAYWRIGHT_EXE[finder._host_platform()]
    # The fake prints a different version: if the finder ran it, the assertion below would fail.
    exe = _fake_browser(no_managed / f"chromium-{chromium['revision']}" / Path(*tokens), "WRONG 0")
    info = find_browser()
    assert info.source == "playwright"
    assert info.path == exe
    assert info.version == chromium["browserVersion"]


def test_running_playwright_executable_path_is_honoured(tmp_path: Path, no_managed: Path) -> None:
    exe = _fake_browser(tmp_path / "pw" / "chrome")
    fake_pw = SimpleNamespace(chromium=SimpleNamespace(executable_path=str(exe)))
    info = find_browser(playwright=fake_pw, probe_version=False)  # type: ignore[arg-type]
    assert (info.path, info.source) == (exe, "playwright")


def test_system_browser_is_the_fallback(no_managed: Path) -> None:
    if finder._system_chromium() is None:  # ./dev installs one only when Playwright's download fails
        skip_here("no system Chromium installed")
    info = find_browser(probe_version=False)
    assert info.source == "system"
    assert os.access(info.path, os.X_OK)


def test_nothing_found_says_how_to_install(
    tmp_path: Path, no_managed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nope = tmp_path / "nope"
    places = [Candidate("Chromium", "PATH", None, "mediadesk-no-such-browser on PATH"),
              Candidate("Chromium", str(nope), nope, str(nope))]
    monkeypatch.setattr(finder.browsers, "system_places", lambda: places)
    with pytest.raises(BrowserNotFoundError) as err:
        find_browser()
    msg = str(err.value)
    assert "mediadesk-no-such-browser on PATH" in msg and str(nope) in msg
    assert "python -m playwright install chromium" in msg
    assert "apt-get install chromium" in msg
    assert str(no_managed) in msg  # says where it looked


def test_flags_headless_and_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(finder.os, "geteuid", lambda: 0)
    as_root = chromium_flags(headless=True)
    assert "--no-sandbox" in as_root and "--headless=new" in as_root
    for flag in ("--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--password-store=basic", "--use-mock-keychain"):
        assert flag in as_root
    monkeypatch.setattr(finder.os, "geteuid", lambda: 1000)
    as_user = chromium_flags(headless=False)
    assert "--no-sandbox" not in as_user
    assert "--headless=new" not in as_user
