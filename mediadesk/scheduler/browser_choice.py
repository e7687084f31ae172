"""The browser the web lane drives, for the faces (Setup's Browser tab): the one it would use with a
given ``[browser] executable`` (or why there is none), and what a program the operator chose says it is.

The faces never import ``mediadesk.providers``; they come here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["BrowserInUse", "ProgramIdentity", "browser_in_use", "identify_program"]


@dataclass(frozen=True)
class BrowserInUse:
    """The browser found (``path`` None: none, and ``problem`` says where it looked and how to get one),
    how (``configured``, ``playwright``, ``system``), and for an operator's browser its name and where it
    was found (``%ProgramFiles%``, ``PATH``...)."""

    path: Path | None
    source: Literal["configured", "playwright", "system"] | None = None
    name: str | None = None
    where: str | None = None
    problem: str = ""


@dataclass(frozen=True)
class ProgramIdentity:
    """What a program says it is (None: it did not say) and whether that is a Chromium-family browser."""

    version: str | None
    chromium: bool


def browser_in_use(configured: Path | None) -> BrowserInUse:
    """The browser the web lane would start with ``configured`` as ``[browser] executable``. Runs
    nothing: files and (on Windows) the registry only."""
    from mediadesk.providers.web.errors import BrowserNotFoundError
    from mediadesk.providers.web.finder import find_browser

    try:
        info = find_browser(configured, probe_version=False)
    except BrowserNotFoundError as exc:
        return BrowserInUse(None, problem=str(exc))
    return BrowserInUse(info.path, info.source, info.name, info.where)


def identify_program(path: Path) -> ProgramIdentity:
    """Ask the program at ``path`` which browser it is (bounded; blocking: call it in a worker thread)."""
    from mediadesk.providers.web.finder import browser_version, chromium_family

    version = browser_version(path)
    return ProgramIdentity(version, version is not None and chromium_family(version))
