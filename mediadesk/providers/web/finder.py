"""Find a Chromium to own, and the flags it needs here.

Order: the configured path (the operator chose it), Playwright's managed Chromium (the build Playwright
is tested with), then the operator's own browsers, in the order and places of
:mod:`mediadesk.platform.browsers` (Chrome, Edge... where each system installs them). Playwright's path
is computed from the ``browsers.json`` its driver ships (the same rule the driver uses), so nothing is
launched to find it: starting the Node driver just to ask is slow and cannot run inside a live event
loop with the sync API. A caller that already has a running Playwright can pass it instead. The
packaged app cannot download Playwright's browser: its error says how to get the operator's own.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import platform
import re
import shutil
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from mediadesk.platform import browsers
from mediadesk.platform.browsers import is_executable_file
from mediadesk.providers.web.errors import BrowserNotFoundError

if TYPE_CHECKING:
    from playwright.async_api import Playwright

BrowserSource = Literal["configured", "playwright", "system"]

#: What ``--version`` (or, on Windows, the file's version resource) says for a Chromium-family browser.
_CHROMIUM_FAMILY = re.compile(r"\b(chrome|chromium|edge|brave|opera|vivaldi|yandex)\b", re.IGNORECASE)
#: Playwright's name of each system in its browser folders' platform keys.
_PLAYWRIGHT_OS = {"linux": "linux", "macos": "mac", "windows": "win"}

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
    #: The browser's name ("Microsoft Edge") and where it was found ("%ProgramFiles(x86)%", "PATH"...),
    #: when it was found among the operator's browsers.
    name: str | None = None
    where: str | None = None


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


def _host_platform() -> str:
    """This machine as Playwright names it (``linux-arm64``); Playwright ships Windows builds for x64 only."""
    system = browsers.this_system()
    arm = platform.machine().lower() in {"arm64", "aarch64"}
    return f"{_PLAYWRIGHT_OS[system]}-{'arm64' if arm and system != 'windows' else 'x64'}"


def _playwright_package_dir() -> Path | None:
    try:
        import playwright
    except ImportError:
        return None
    return Path(inspect.getfile(playwright)).parent / "driver" / "package"


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
        if exe is not None and is_executable_file(exe):
            return exe, None
    env = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    for exe, version in _playwright_candidates(env, str(browsers.user_cache_dir())):
        if is_executable_file(exe):
            return exe, version
    return None


_VERSIONS: dict[Path, str] = {}


def browser_version(path: Path) -> str | None:
    """The browser's name and version (``Chromium 120.0.6099.224``), None when it gives none; an answer is
    kept per path. Opens no browser window (see :func:`mediadesk.platform.browsers.browser_version`)."""
    if path not in _VERSIONS:
        version = browsers.browser_version(path)
        if version is None:
            return None
        _VERSIONS[path] = version
    return _VERSIONS[path]


def chromium_family(version: str) -> bool:
    """Whether a browser's version line names a Chromium-family browser (Chrome, Chromium, Edge, Brave...)."""
    return _CHROMIUM_FAMILY.search(version) is not None


def _system_chromium() -> BrowserInfo | None:
    """The operator's first installed browser, in this system's order of preference."""
    for found in browsers.installed(browsers.system_places()):
        if found.path is not None:
            return BrowserInfo(found.path, "system", None, found.name, found.where)
    return None


def install_hint() -> str:
    """How to get a browser here. A checkout may also download Playwright's; the packaged app cannot."""
    hint = browsers.install_hint()
    if getattr(sys, "frozen", False):
        return hint
    return f"{hint} From a source checkout, `python -m playwright install chromium` also gets one."


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
        if not is_executable_file(path):
            why = "does not exist" if not path.exists() else "is not an executable file"
            raise BrowserNotFoundError(
                f"configured browser {path} {why}; fix `[browser] executable` in the config (Setup, Browser) "
                "or remove it to use the detected browser"
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
        return replace(system, version=browser_version(system.path)) if probe_version else system

    tried = [str(c[0]) for c in _playwright_candidates(
        os.environ.get("PLAYWRIGHT_BROWSERS_PATH"), str(browsers.user_cache_dir()))]
    raise BrowserNotFoundError(
        "no Chromium-family browser found. Looked for the operator's browsers at: "
        f"{'; '.join(c.looked for c in browsers.system_places())}; and for Playwright's own at: "
        f"{'; '.join(tried) or '(playwright not installed)'}. {install_hint()}"
    )
