"""mediadesk.platform.browsers on real install trees in tmp folders: Windows' Program Files, LocalAppData
and App Paths (through a registry reader), macOS' .app bundles, Linux' PATH; the order of preference;
the error naming every place looked and how to get a browser; the version probe; a spawned browser's
session and parent-death signal, with real processes."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from mediadesk.platform import browsers
from mediadesk.platform.browsers import APP_PATHS, installed, linux_places, macos_places, windows_places
from mediadesk.providers.web import BrowserNotFoundError, find_browser
from tests.support import skip_here, skip_unless

linux_only = skip_unless(browsers.this_system() == "linux", "PR_SET_PDEATHSIG is Linux's")


def _exe(path: Path, says: str = "Chromium 120.0.6099.224") -> Path:
    """A real executable file (a shell script answering ``--version``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho '{says}'\n")
    path.chmod(0o755)
    return path


def _found(places: list[browsers.Candidate]) -> list[tuple[str, str, Path | None]]:
    return [(c.name, c.where, c.path) for c in installed(places)]


def _registry(values: dict[tuple[str, str], str]) -> tuple[browsers.RegistryReader, list[tuple[str, str]]]:
    asked: list[tuple[str, str]] = []

    def read(hive: str, key: str) -> str | None:
        asked.append((hive, key))
        return values.get((hive, key))

    return read, asked


# ----------------------------------------------------------------------------------------------- Windows
def test_windows_program_files_local_app_data_and_app_paths_in_order(tmp_path: Path) -> None:
    pf, pf86, local = tmp_path / "Program Files", tmp_path / "Program Files (x86)", tmp_path / "Local"
    edge = _exe(pf86 / "Microsoft" / "Edge" / "Application" / "msedge.exe")
    user_chrome = _exe(local / "Google" / "Chrome" / "Application" / "chrome.exe")
    brave = _exe(tmp_path / "D" / "Brave" / "brave.exe")
    read, asked = _registry({("HKCU", f"{APP_PATHS}\\brave.exe"): f'"{brave}"'})  # quoted, as some installers do
    # Windows' environment names are not case-sensitive: os.environ upper-cases them, a mapping may not
    env = {"ProgramFiles": str(pf), "ProgramFiles(x86)": str(pf86), "LocalAppData": str(local)}

    found = _found(windows_places(env, read))

    assert found == [
        ("Google Chrome", "%LocalAppData%", user_chrome),  # Chrome before Edge, even a per-user one
        ("Microsoft Edge", "%ProgramFiles(x86)%", edge),
        ("Brave", "App Paths (HKCU)", brave),
    ]
    assert ("HKLM", f"{APP_PATHS}\\chrome.exe") in asked and ("HKCU", f"{APP_PATHS}\\msedge.exe") in asked


def test_windows_program_files_wins_and_app_paths_to_the_same_file_counts_once(tmp_path: Path) -> None:
    pf = tmp_path / "Program Files"
    chrome = _exe(pf / "Google" / "Chrome" / "Application" / "chrome.exe")
    _exe(tmp_path / "Local" / "Google" / "Chrome" / "Application" / "chrome.exe")
    read, _ = _registry({("HKLM", f"{APP_PATHS}\\chrome.exe"): str(chrome)})
    # a 64-bit Python's %ProgramW6432% is its %ProgramFiles%: the same file is one place
    places = windows_places({"PROGRAMFILES": str(pf), "PROGRAMW6432": str(pf), "LOCALAPPDATA": str(tmp_path / "Local")},
                            read)

    first = next(installed(places))
    assert (first.name, first.where, first.path) == ("Google Chrome", "%ProgramFiles%", chrome)
    assert [c.path for c in places].count(chrome) == 1


def test_windows_app_paths_alone_finds_an_install_elsewhere(tmp_path: Path) -> None:
    chrome = _exe(tmp_path / "Apps" / "Chrome" / "chrome.exe")
    read, _ = _registry({("HKLM", f"{APP_PATHS}\\chrome.exe"): str(chrome)})
    assert _found(windows_places({}, read)) == [("Google Chrome", "App Paths (HKLM)", chrome)]


def test_windows_a_folder_without_a_browser_finds_none_and_names_each_place(tmp_path: Path) -> None:
    pf = tmp_path / "Program Files"
    (pf / "Google" / "Chrome" / "Application").mkdir(parents=True)  # an uninstall's leftover folder
    read, _ = _registry({})
    places = windows_places({"PROGRAMFILES": str(pf)}, read)
    assert _found(places) == []
    looked = [c.looked for c in places]
    assert str(pf / "Google" / "Chrome" / "Application" / "chrome.exe") in looked
    assert str(pf / "Microsoft" / "Edge" / "Application" / "msedge.exe") in looked
    assert f"HKCU\\{APP_PATHS}\\msedge.exe" in looked


# ------------------------------------------------------------------------------------------------- macOS
def test_macos_app_bundles_in_applications_then_the_home_folder(tmp_path: Path) -> None:
    home, system_apps = tmp_path / "home", tmp_path / "Applications"
    home_chrome = _exe(home / "Applications" / "Google Chrome.app" / "Contents" / "MacOS" / "Google Chrome")
    edge = _exe(system_apps / "Microsoft Edge.app" / "Contents" / "MacOS" / "Microsoft Edge")
    sys_chrome = _exe(system_apps / "Google Chrome.app" / "Contents" / "MacOS" / "Google Chrome")
    not_a_program = system_apps / "Chromium.app" / "Contents" / "MacOS" / "Chromium"
    not_a_program.parent.mkdir(parents=True)
    not_a_program.write_text("")  # a bundle without its program (a broken install): not a browser

    assert _found(macos_places(home, system_apps)) == [
        ("Google Chrome", str(system_apps), sys_chrome),
        ("Google Chrome", "~/Applications", home_chrome),
        ("Microsoft Edge", str(system_apps), edge),
    ]


# ------------------------------------------------------------------------------------------------- Linux
def test_linux_commands_on_path_in_order(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    chrome = _exe(bin_dir / "google-chrome")
    chromium = _exe(bin_dir / "chromium")
    (bin_dir / "chromium-browser").write_text("not executable")
    found = [f for f in _found(linux_places({"PATH": str(bin_dir)})) if f[1] == "PATH"]
    assert found == [("Chromium", "PATH", chromium), ("Google Chrome", "PATH", chrome)]


# --------------------------------------------------------------------------------- what the product says
@pytest.fixture
def nothing_managed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Playwright's registry empty, and the packaged app's view (it cannot download Playwright's)."""
    registry = tmp_path / "ms-playwright"
    registry.mkdir()
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(registry))
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    return registry


def test_no_browser_on_windows_names_the_places_and_how_to_get_one(
    tmp_path: Path, nothing_managed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pf = tmp_path / "Program Files"
    pf.mkdir()
    monkeypatch.setattr(browsers, "this_system", lambda: "windows")
    monkeypatch.setenv("PROGRAMFILES", str(pf))
    with pytest.raises(BrowserNotFoundError) as err:
        find_browser()
    msg = str(err.value)
    assert str(pf / "Google" / "Chrome" / "Application" / "chrome.exe") in msg
    assert str(pf / "Microsoft" / "Edge" / "Application" / "msedge.exe") in msg
    assert f"HKLM\\{APP_PATHS}\\chrome.exe" in msg
    assert "Install Google Chrome" in msg and "use Microsoft Edge" in msg
    assert "`[browser] executable`" in msg
    assert "playwright install" not in msg  # the packaged app cannot run it


def test_no_browser_on_macos_says_chrome_in_applications(
    tmp_path: Path, nothing_managed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(browsers, "this_system", lambda: "macos")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with pytest.raises(BrowserNotFoundError) as err:
        find_browser()
    msg = str(err.value)
    assert str(tmp_path / "home" / "Applications" / "Google Chrome.app" / "Contents" / "MacOS") in msg
    assert "/Applications/Google Chrome.app" in msg
    assert "Google Chrome (https://www.google.com/chrome/) into /Applications" in msg
    assert "playwright install" not in msg


def test_the_install_hint_of_each_system() -> None:
    assert "apt-get install chromium" in browsers.install_hint("linux")
    assert "Microsoft Edge, which every Windows 10 and 11 has" in browsers.install_hint("windows")
    assert "/Applications" in browsers.install_hint("macos")
    for system in ("linux", "macos", "windows"):
        hint = browsers.install_hint(system)  # type: ignore[arg-type]
        assert "`[browser] executable`" in hint and "playwright" not in hint


# ---------------------------------------------------------------------------------- version and spawning
def test_version_is_the_answer_to_dash_dash_version_bounded(tmp_path: Path) -> None:
    if browsers.this_system() == "windows":
        skip_here("Windows reads the version resource (a shell script has none)")
    assert browsers.browser_version(_exe(tmp_path / "chrome", "Google Chrome 120.0.1")) == "Google Chrome 120.0.1"
    failing = tmp_path / "fails"
    failing.write_text("#!/bin/sh\necho nope\nexit 3\n")
    failing.chmod(0o755)
    assert browsers.browser_version(failing) is None
    hangs = tmp_path / "hangs"
    hangs.write_text("#!/bin/sh\nexec sleep 30\n")
    hangs.chmod(0o755)
    t0 = time.monotonic()
    assert browsers.browser_version(hangs, timeout_s=0.5) is None
    assert time.monotonic() - t0 < 10


@linux_only
def test_a_spawned_browser_has_its_own_session_and_ends_with_the_thread_that_started_it() -> None:
    procs: list[subprocess.Popen[bytes]] = []
    starter = threading.Thread(target=lambda: procs.append(
        browsers.spawn_browser([sys.executable, "-c", "import time; time.sleep(60)"], subprocess.DEVNULL)))
    starter.start()
    starter.join()
    proc = procs[0]
    try:
        try:
            proc.wait(timeout=15)  # the starting thread ended: PR_SET_PDEATHSIG sends SIGTERM
        except subprocess.TimeoutExpired:
            pytest.fail("the child outlived the thread that started it")
        assert proc.returncode == -15
    finally:
        if proc.poll() is None:
            psutil.Process(proc.pid).kill()
            proc.wait(timeout=5)


@linux_only
def test_a_spawned_browser_leads_a_session_of_its_own() -> None:
    proc = browsers.spawn_browser([sys.executable, "-c", "import os; print(os.getsid(0) == os.getpid())"],
                                  subprocess.PIPE)
    out, _ = proc.communicate(timeout=30)
    assert out.strip() == b"True"


def test_a_chosen_app_bundle_means_its_program(tmp_path: Path) -> None:
    bundle = tmp_path / "Google Chrome.app"
    program = _exe(bundle / "Contents" / "MacOS" / "Google Chrome")
    assert browsers.bundle_program(bundle) == program
    renamed = tmp_path / "Chrome Beta.app"
    (renamed / "Contents").mkdir(parents=True)
    (renamed / "Contents" / "Info.plist").write_bytes(
        b'<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict><key>CFBundleExecutable</key>'
        b"<string>Google Chrome Beta</string></dict></plist>\n")
    assert browsers.bundle_program(renamed) == renamed / "Contents" / "MacOS" / "Google Chrome Beta"
    assert browsers.bundle_program(program) == program  # a program is itself
