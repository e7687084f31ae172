"""Browsers: where each system keeps the Chromium-family browsers an operator has, how to get one,
how to ask one its version, and how to start one tied to us.

The places, in order of preference (the first installed one is used):

- Windows: Google Chrome, Microsoft Edge (every Windows 10 and 11 has it), Chromium, Brave, each in
  ``%ProgramFiles%``, ``%ProgramFiles(x86)%`` and ``%LocalAppData%`` (per-user installs), then where the
  registry's ``App Paths`` (HKLM, then HKCU) says it is.
- macOS: the same browsers' binaries inside their ``.app`` in ``/Applications``, then ``~/Applications``.
- Linux: the names a distribution installs on ``PATH``, then fixed paths (Debian's, snap's).

Each system's function takes what it reads (the environment, the home folder, a registry reader) as
parameters with the real ones as defaults, so every system's logic runs, on real files, on any system.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import plistlib
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

from mediadesk.platform.reaper import end_with_us

__all__ = [
    "Candidate",
    "RegistryReader",
    "System",
    "browser_version",
    "bundle_program",
    "install_hint",
    "installed",
    "is_executable_file",
    "linux_places",
    "macos_places",
    "read_app_path",
    "spawn_browser",
    "system_places",
    "this_system",
    "user_cache_dir",
    "windows_places",
]

System = Literal["linux", "macos", "windows"]
#: ``(hive, key)`` -> the key's default value, or None when it is not set. Hives: "HKLM", "HKCU".
RegistryReader = Callable[[str, str], str | None]

APP_PATHS = r"SOFTWARE\Microsoft\Windows\CurrentVersion\App Paths"
_PR_SET_PDEATHSIG = 1
#: True where the kernel ends a browser with us (Linux's PR_SET_PDEATHSIG), False where :func:`end_with_us`
#: must (a Job Object, a watchdog). Read at each start (a test layer sets it to run macOS' way here).
PARENT_DEATH_SIGNAL: bool = sys.platform == "linux"

#: (name, folder under Program Files / LocalAppData, executable), in order of preference.
_WINDOWS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("Google Chrome", ("Google", "Chrome", "Application"), "chrome.exe"),
    ("Microsoft Edge", ("Microsoft", "Edge", "Application"), "msedge.exe"),
    ("Chromium", ("Chromium", "Application"), "chrome.exe"),
    ("Brave", ("BraveSoftware", "Brave-Browser", "Application"), "brave.exe"),
)
#: The App Paths entries, by name (Chromium registers none of its own: its chrome.exe is Chrome's entry).
_APP_PATHS = {"Google Chrome": "chrome.exe", "Microsoft Edge": "msedge.exe", "Brave": "brave.exe"}
#: ``%ProgramW6432%``: the 64-bit Program Files, which a 32-bit Python's ``%ProgramFiles%`` is not.
_WINDOWS_ROOTS = (("PROGRAMFILES", "%ProgramFiles%"), ("PROGRAMW6432", "%ProgramW6432%"),
                  ("PROGRAMFILES(X86)", "%ProgramFiles(x86)%"), ("LOCALAPPDATA", "%LocalAppData%"))
#: (name, bundle, binary inside Contents/MacOS), in order of preference.
_MACOS: tuple[tuple[str, str, str], ...] = (
    ("Google Chrome", "Google Chrome.app", "Google Chrome"),
    ("Microsoft Edge", "Microsoft Edge.app", "Microsoft Edge"),
    ("Chromium", "Chromium.app", "Chromium"),
    ("Brave", "Brave Browser.app", "Brave Browser"),
)
#: (name, command on PATH or absolute path), in order of preference.
_LINUX: tuple[tuple[str, str], ...] = (
    ("Chromium", "chromium"),
    ("Chromium", "chromium-browser"),
    ("Google Chrome", "google-chrome"),
    ("Google Chrome", "google-chrome-stable"),
    ("Chromium", "/usr/lib/chromium/chromium"),
    ("Chromium", "/snap/bin/chromium"),
    ("Microsoft Edge", "microsoft-edge"),
    ("Brave", "brave-browser"),
)


@dataclass(frozen=True)
class Candidate:
    """One place a browser may be: its name, where the place comes from (``%ProgramFiles%``,
    ``App Paths (HKLM)``, ``~/Applications``, ``PATH``...), the file it names (None when the place
    named none: a registry entry not set, a command not on PATH), and the place in words."""

    name: str
    where: str
    path: Path | None
    looked: str


def this_system() -> System:
    if sys.platform == "win32":
        return "windows"
    if sys.platform == "darwin":
        return "macos"
    return "linux"


def is_executable_file(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def read_app_path(hive: str, key: str) -> str | None:
    """The default value of ``hive\\key`` in the Windows registry (None elsewhere, or when unset)."""
    if sys.platform != "win32":
        return None
    import winreg

    root = winreg.HKEY_LOCAL_MACHINE if hive == "HKLM" else winreg.HKEY_CURRENT_USER
    try:
        with winreg.OpenKey(root, key) as handle:
            value, kind = winreg.QueryValueEx(handle, "")
    except OSError:
        return None
    if not isinstance(value, str):
        return None
    return winreg.ExpandEnvironmentStrings(value) if kind == winreg.REG_EXPAND_SZ else value


def windows_places(env: Mapping[str, str] | None = None,
                   read_registry: RegistryReader = read_app_path) -> list[Candidate]:
    """Windows' places, in order of preference (``env``: the environment, as ``os.environ``)."""
    upper = {k.upper(): v for k, v in (os.environ if env is None else env).items()}
    out: list[Candidate] = []
    seen: set[str] = set()

    def add(name: str, where: str, path: Path | None, looked: str) -> None:
        key = str(path).casefold() if path is not None else looked
        if key not in seen:
            seen.add(key)
            out.append(Candidate(name, where, path, looked))

    for name, folder, exe in _WINDOWS:
        for var, where in _WINDOWS_ROOTS:
            if upper.get(var):
                path = Path(upper[var]).joinpath(*folder, exe)
                add(name, where, path, str(path))
        entry = _APP_PATHS.get(name)
        for hive in ("HKLM", "HKCU") if entry else ():
            key = f"{APP_PATHS}\\{entry}"
            value = (read_registry(hive, key) or "").strip().strip('"')
            add(name, f"App Paths ({hive})", Path(value) if value else None, f"{hive}\\{key}")
    return out


def macos_places(home: Path | None = None, applications: Path = Path("/Applications")) -> list[Candidate]:
    """macOS' places, in order of preference: each browser in ``applications``, then ``~/Applications``."""
    user_apps = (Path.home() if home is None else home) / "Applications"
    out: list[Candidate] = []
    for name, bundle, binary in _MACOS:
        for folder, where in ((applications, str(applications)), (user_apps, "~/Applications")):
            path = folder / bundle / "Contents" / "MacOS" / binary
            out.append(Candidate(name, where, path, str(path)))
    return out


def linux_places(env: Mapping[str, str] | None = None) -> list[Candidate]:
    """Linux' places, in order of preference: commands on ``PATH`` (of ``env``), then fixed paths."""
    search = (os.environ if env is None else env).get("PATH", os.defpath)
    out: list[Candidate] = []
    for name, command in _LINUX:
        if os.sep in command:
            out.append(Candidate(name, str(Path(command).parent), Path(command), command))
            continue
        found = shutil.which(command, path=search)
        out.append(Candidate(name, "PATH", Path(found) if found else None, f"{command} on PATH"))
    return out


def system_places(env: Mapping[str, str] | None = None, home: Path | None = None,
                  read_registry: RegistryReader = read_app_path) -> list[Candidate]:
    """This system's places, in order of preference."""
    system = this_system()
    if system == "windows":
        return windows_places(env, read_registry)
    if system == "macos":
        return macos_places(home)
    return linux_places(env)


def installed(places: Sequence[Candidate]) -> Iterator[Candidate]:
    """The places that hold an executable file, in their order."""
    return (c for c in places if c.path is not None and is_executable_file(c.path))


def bundle_program(path: Path) -> Path:
    """The program inside a macOS ``.app`` bundle (its Info.plist's ``CFBundleExecutable``, else the
    bundle's name), what a file dialog gives when the operator picks ``Google Chrome.app``; any other
    path as it is."""
    if path.suffix != ".app" or not path.is_dir():
        return path
    name = path.stem
    with contextlib.suppress(OSError, ValueError, plistlib.InvalidFileException):
        info = plistlib.loads((path / "Contents" / "Info.plist").read_bytes())
        if isinstance(info.get("CFBundleExecutable"), str):
            name = info["CFBundleExecutable"]
    return path / "Contents" / "MacOS" / name


def install_hint(system: System | None = None) -> str:
    """How an operator of ``system`` (default: this one) gets a browser, in words."""
    system = this_system() if system is None else system
    if system == "windows":
        how = ("Install Google Chrome (https://www.google.com/chrome/), or use Microsoft Edge, which every "
               "Windows 10 and 11 has (reinstall it from https://www.microsoft.com/edge if it was removed)")
    elif system == "macos":
        how = ("Install Google Chrome (https://www.google.com/chrome/) into /Applications, or Microsoft Edge "
               "or Chromium there")
    else:
        how = ("Install your distribution's package: `sudo apt-get install chromium` on Debian/Ubuntu, "
               "`sudo dnf install chromium` on Fedora (or Google Chrome)")
    return f"{how}; or set `[browser] executable` in the config to a Chromium-family browser."


def user_cache_dir(env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """The user's cache folder (where Playwright keeps its browsers: ``<this>/ms-playwright``)."""
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    system = this_system()
    if system == "windows":
        local = env.get("LOCALAPPDATA")
        return Path(local) if local else home / "AppData" / "Local"
    if system == "macos":
        return home / "Library" / "Caches"
    xdg = env.get("XDG_CACHE_HOME")
    return Path(xdg) if xdg else home / ".cache"


def browser_version(path: Path, timeout_s: float = 10.0) -> str | None:
    """The browser's name and version (``Google Chrome 120.0.6099.109``), None when it gives none.

    POSIX: ``<path> --version``, bounded by ``timeout_s``. Windows: the file's version resource, never a
    run (there Chrome and Edge ignore ``--version`` and open a window instead).
    """
    if sys.platform == "win32":
        return _windows_file_version(path)
    try:
        out = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=timeout_s,
                             check=False, stdin=subprocess.DEVNULL)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    lines = [ln.strip() for ln in out.stdout.splitlines() if ln.strip()]
    return lines[-1] if out.returncode == 0 and lines else None


def _windows_file_version(path: Path) -> str | None:
    """``ProductName ProductVersion`` from the version resource of a Windows executable."""
    if sys.platform != "win32":
        return None
    from ctypes import wintypes

    version = ctypes.WinDLL("version")
    size = version.GetFileVersionInfoSizeW(str(path), None)
    if not size:
        return None
    data = ctypes.create_string_buffer(size)
    if not version.GetFileVersionInfoW(str(path), 0, size, data):
        return None
    ptr = ctypes.c_void_p()
    length = wintypes.UINT()

    def query(sub: str) -> bool:
        return bool(version.VerQueryValueW(data, sub, ctypes.byref(ptr), ctypes.byref(length))) and bool(ptr.value)

    if not query("\\VarFileInfo\\Translation") or length.value < 4:
        return None
    lang, codepage = ctypes.cast(ptr, ctypes.POINTER(ctypes.c_ushort * 2)).contents
    words: list[str] = []
    for field in ("ProductName", "ProductVersion"):
        if query(f"\\StringFileInfo\\{lang:04x}{codepage:04x}\\{field}") and length.value:
            words.append(ctypes.wstring_at(ptr.value or 0, length.value).rstrip("\0").strip())
    return " ".join(w for w in words if w) or None


def _parent_death_signal() -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the child receive SIGTERM when its parent thread dies (Linux only).

    Everything is resolved before the fork; the child only calls prctl and getppid. If the parent died
    between fork and prctl, the signal would never come, so the child checks and ends itself.
    """
    if sys.platform != "linux" or not PARENT_DEATH_SIGNAL:
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    parent = os.getpid()
    sigterm = int(signal.SIGTERM)

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, sigterm, 0, 0, 0)
        if os.getppid() != parent:
            with contextlib.suppress(OSError):
                signal.raise_signal(sigterm)

    return preexec


def spawn_browser(command: Sequence[str], stdout: int | IO[bytes]) -> subprocess.Popen[bytes]:
    """Start a browser (stdin closed, stderr into ``stdout``) apart from our console: a Ctrl-C in a terminal
    reaches MediaDesk, which closes its browsers in order. POSIX: a session of its own; on Linux it also
    receives SIGTERM when the thread that started it ends (PR_SET_PDEATHSIG), so call this from a thread
    that lives as long as the browser. Windows: a process group of its own (Ctrl-C is not passed to it).
    Elsewhere (Windows, macOS) :func:`~mediadesk.platform.reaper.end_with_us` ties it to us (a Job Object, a
    watchdog); the self-check ends what outlived a crash all the same."""
    if sys.platform == "win32":
        proc = subprocess.Popen(list(command), stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.STDOUT,
                                close_fds=True, creationflags=subprocess.CREATE_NEW_PROCESS_GROUP)
        end_with_us(proc.pid)
        return proc
    preexec = _parent_death_signal()
    proc = subprocess.Popen(
        list(command),
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        close_fds=True,
        preexec_fn=preexec,  # only prctl/getppid run in the child
    )
    if preexec is None:
        end_with_us(proc.pid)
    return proc
