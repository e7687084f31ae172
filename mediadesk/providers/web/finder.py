"""Find a Chromium to own, and the flags it needs here.

Order: the configured path (the operator chose it), Playwright's managed Chromium (the build Playwright
is tested with), then the system's. Playwright's path is computed from the ``browsers.json`` its driver
ships (the same rule the driver uses), so nothing is launched to find it: starting the Node driver just
to ask is slow and cannot run inside a live event loop with the sync API. A caller that already has
a running Playwright can pass it instead.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from mediadesk.providers.web.errors import BrowserNotFoundError

if TYPE_CHECKING:
    from playwright.async_api import Playwright

BrowserSource = Literal["configured", "playwright", "system"]

SYSTEM_CANDIDATES: tuple[str, ...] = (
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "/usr/lib/chromium/chromium",
    "/snap/bin/chromium",
)

INSTALL_HINT = (
    "Install one with `python -m playwright install chromium`, or, where that download is not possible, "
    "the distribution package (`apt-get install chromium` on Debian/Ubuntu); or set the browser path in "
    "the config."
)

#: Relative executable path inside ``chromium-<revision>/`` per platform, as in Playwright's registry.
_PLAYWRIGHT_EXE: dict[str, tuple[str, ...]] = {
    "linux-x64": ("chrome-linux64", "chrome"),
    "linux-arm64": ("chrome-linux-arm64", "chrome"),
    "mac-x64": ("chrome-mac-x64", "Google Chrome for Testing.app", "Contents", "MacOS",
                "Google Chrome for Testing"),
    "mac-arm64": ("chrome-mac-arm64", "Google Chrome for Testing.app", "Contents", "MacOS",
                  "Google Chrome for Testing"),
    "win-x64": ("chrome-win64", "chrome.exe"),
}
#: Layout used by Playwright releases before Chrome for Testing builds.
_PLAYWRIGHT_EXE_LEGACY: dict[str, tuple[str, ...]] = {
    "linux-x64": ("chrome-linux", "chrome"),
    "linux-arm64": ("chrome-linux", "chrome"),
}


@dataclass(frozen=True)
class BrowserInfo:
    """A Chromium we can launch: where it is, how it was found, and its version when known cheaply."""

    path: Path
    source: BrowserSource
    version: str | None = None


def chromium_flags(headless: bool) -> list[str]:
    """Flags every owned Chromium gets. ``--no-sandbox`` only as root (Chromium refuses to start otherwise);
    as a normal user the sandbox stays on."""
    flags: list[str] = []
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        flags.append("--no-sandbox")
    flags += [
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-features=Translate,MediaRouter",
        "--password-store=basic",
        "--use-mock-keychain",
        # Chat sites lay out for a desktop; headless defaults to 800x600, where some hide or move the
        # send button.
        "--window-size=1280,900",
    ]
    if headless:
        flags.append("--headless=new")
    return flags


def _is_executable_file(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _host_platform() -> str:
    machine = platform.machine().lower()
    arch = "arm64" if machine in {"arm64", "aarch64"} else "x64"
    if sys.platform.startswith("linux"):
        return f"linux-{arch}"
    if sys.platform == "darwin":
        return f"mac-{arch}"
    return "win-x64"


def _playwright_package_dir() -> Path | None:
    try:
        import playwright
    except ImportError:
        return None
    return Path(inspect.getfile(playwright)).parent / "driver" / "package"


def _default_cache_dir() -> Path:
    if sys.platform.startswith("linux"):
        xdg = os.environ.get("XDG_CACHE_HOME")
        return Path(xdg) if xdg else Path.home() / ".cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches"
    local = os.environ.get("LOCALAPPDATA")
    return Path(local) if local else Path.home() / "AppData" / "Local"


@functools.lru_cache(maxsize=8)
def _playwright_candidates(browsers_path_env: str | None, cache_dir: str) -> tuple[tuple[Path, str | None], ...]:
    """(executable, version) candidates for Playwright's managed Chromium; cached per environment."""
    package = _playwright_package_dir()
    if package is None:
        return ()
    try:
        data = json.loads((package / "browsers.json").read_text(encoding="utf-8"))
        entry = next(b for b in data["browsers"] if b["name"] == "chromium")
    except (OSError, ValueError, KeyError, StopIteration):
        return ()
    if browsers_path_env == "0":
        registry = package / ".local-browsers"
    elif browsers_path_env:
        registry = Path(browsers_path_env)
    else:
        registry = Path(cache_dir) / "ms-playwright"
    host = _host_platform()
    base = registry / f"chromium-{entry['revision']}"
    out: list[tuple[Path, str | None]] = []
    for table in (_PLAYWRIGHT_EXE, _PLAYWRIGHT_EXE_LEGACY):
        if host in table:
            out.append((base.joinpath(*table[host]), entry.get("browserVersion")))
    return tuple(out)


def playwright_chromium_path(playwright: Playwright | None = None) -> tuple[Path, str | None] | None:
    """Playwright's managed Chromium when it is installed (the file exists), else None. Launches nothing."""
    if playwright is not None:
        try:
            exe = Path(playwright.chromium.executable_path)
        except Exception:  # an old or broken driver: fall back to the computed path
            exe = None
        if exe is not None and _is_executable_file(exe):
            return exe, None
    env = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    for exe, version in _playwright_candidates(env, str(_default_cache_dir())):
        if _is_executable_file(exe):
            return exe, version
    return None


@functools.lru_cache(maxsize=16)
def browser_version(path: Path) -> str | None:
    """``chromium --version``, cached per path; None when it fails. Launches no browser."""
    try:
        out = subprocess.run(
            [str(path), "--version"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [ln.strip() for ln in out.stdout.splitlines() if ln.strip()]
    return lines[-1] if out.returncode == 0 and lines else None


def _system_chromium() -> Path | None:
    for name in SYSTEM_CANDIDATES:
        if os.sep in name:
            path = Path(name)
            if _is_executable_file(path):
                return path
            continue
        found = shutil.which(name)
        if found:
            return Path(found)
    return None


def find_browser(
    configured: str | Path | None = None,
    *,
    playwright: Playwright | None = None,
    probe_version: bool = True,
) -> BrowserInfo:
    """Return the Chromium to launch, or raise ``BrowserNotFoundError`` saying what was tried.

    A configured path that is wrong is an error, never silently replaced by another browser: the
    operator chose it for a reason (a specific build, a login already in that browser's profile format).
    """
    if configured is not None and str(configured).strip():
        raw = Path(os.path.expanduser(str(configured)))
        path = raw
        if os.sep not in str(configured) and not raw.exists():
            which = shutil.which(str(configured))
            path = Path(which) if which else raw
        if not _is_executable_file(path):
            why = "does not exist" if not path.exists() else "is not an executable file"
            raise BrowserNotFoundError(
                f"configured browser {path} {why}; fix the browser path in the config or remove it "
                "to use the detected Chromium"
            )
        return BrowserInfo(path, "configured", browser_version(path) if probe_version else None)

    managed = playwright_chromium_path(playwright)
    if managed is not None:
        exe, version = managed
        if version is None and probe_version:
            version = browser_version(exe)
        return BrowserInfo(exe, "playwright", version)

    system = _system_chromium()
    if system is not None:
        return BrowserInfo(system, "system", browser_version(system) if probe_version else None)

    tried = [str(c[0]) for c in _playwright_candidates(
        os.environ.get("PLAYWRIGHT_BROWSERS_PATH"), str(_default_cache_dir()))]
    raise BrowserNotFoundError(
        "no Chromium found (tried Playwright's managed browser "
        f"{', '.join(tried) or '(playwright not installed)'} and system browsers "
        f"{', '.join(SYSTEM_CANDIDATES)}). {INSTALL_HINT}"
    )
