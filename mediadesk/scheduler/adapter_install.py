"""A site adapter file the operator brings (the console's drop), for the faces: validated by the real
loader, then installed in the user sites folder; and the version of each adapter a profile may name.

The faces never import ``mediadesk.providers``; they come here. Installing never overwrites a file
unless asked to (:class:`AdapterExistsError` first), writes the file private (0600) and atomically,
and refuses a symbolic link at the target or in the folder's place (never followed).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from mediadesk.config.model import AppConfig
from mediadesk.config.names import portable_name_problem
from mediadesk.config.workspace import Workspace, resources_dir
from mediadesk.files.safe import ensure_private_dir, refuse_symlink, write_private_file

__all__ = [
    "AdapterExistsError",
    "AdapterFile",
    "AdapterFileError",
    "install_adapter",
    "read_adapter_file",
    "site_versions",
    "user_sites_dir",
]

#: A bigger file is no adapter (they are a few kilobytes).
MAX_ADAPTER_BYTES = 1_000_000


class AdapterFileError(Exception):
    """A file is no usable site adapter; ``problems`` are the loader's words, each naming its key."""

    def __init__(self, path: Path, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        super().__init__(f"site adapter {path}: " + "; ".join(problems))


class AdapterExistsError(Exception):
    """The user sites folder has a file of that name already: replace it only when the operator says so."""

    def __init__(self, target: Path) -> None:
        self.target = target
        super().__init__(f"{target} exists")


@dataclass(frozen=True)
class AdapterFile:
    """A valid adapter file, as read once: what is installed is what was validated."""

    path: Path
    #: The name a profile's ``site`` gives once installed (the file's stem).
    name: str
    #: Its ``version`` key ("" when none).
    version: str
    #: A bundled adapter of that name, which the installed file then overrides.
    overrides_builtin: bool
    data: bytes


def read_adapter_file(path: Path) -> AdapterFile:
    """Read and validate ``path`` with the adapter loader; raises :class:`AdapterFileError`."""
    from mediadesk.providers.web.adapter import AdapterError, load_adapter

    path = Path(path)
    if path.stem.startswith(".") or not path.stem.strip():
        raise AdapterFileError(path, ["the file name must not start with a dot: name it <site>.toml"])
    if (bad := portable_name_problem(path.stem)) is not None:  # it becomes a file in the user sites folder
        raise AdapterFileError(path, [f"the file name {path.stem!r}: {bad.english()}"])
    try:
        if path.stat().st_size > MAX_ADAPTER_BYTES:
            raise AdapterFileError(path, [f"is larger than {MAX_ADAPTER_BYTES} bytes: not an adapter"])
        data = path.read_bytes()
    except OSError as exc:
        raise AdapterFileError(path, [f"cannot be read: {exc.strerror or exc}"]) from None
    try:
        adapter = load_adapter(path)
    except AdapterError as exc:
        raise AdapterFileError(path, exc.problems) from None
    builtin = resources_dir() / "sites" / f"{path.stem}.toml"
    return AdapterFile(path=path, name=path.stem, version=adapter.version, overrides_builtin=builtin.is_file(),
                       data=data)


def user_sites_dir(config: AppConfig, workspace: Workspace) -> Path:
    """Where the operator's adapters live: ``browser.sites_dir``, else ``<data dir>/sites``."""
    return workspace.user_sites_dir(config.browser.sites_dir)


def install_adapter(config: AppConfig, workspace: Workspace, adapter: AdapterFile, *, replace: bool = False) -> Path:
    """Write ``adapter`` as ``<user sites dir>/<name>.toml`` (0600, atomically); return that path.

    Raises :class:`AdapterExistsError` when a file of that name is there and ``replace`` is false, and
    :class:`~mediadesk.files.safe.UnsafePathError` for a symbolic link at the target or as the folder."""
    chosen = config.browser.sites_dir is not None
    folder = ensure_private_dir(user_sites_dir(config, workspace), what="sites folder", user_chosen=chosen)
    target = folder / f"{adapter.name}.toml"
    refuse_symlink(target, "site adapter")
    if os.path.lexists(target) and not replace:
        raise AdapterExistsError(target)
    write_private_file(target, adapter.data, "site adapter")
    return target


def site_versions(config: AppConfig, workspace: Workspace) -> dict[str, str]:
    """Each adapter's ``version`` ("" when none) by the name a profile's ``site`` gives; a file that does
    not load is left out (the check of an account that uses it says why)."""
    from mediadesk.providers.web.adapter import AdapterError, load_adapters

    user_dir = user_sites_dir(config, workspace)
    errors: list[AdapterError] = []
    adapters = load_adapters(resources_dir() / "sites", user_dir if user_dir.is_dir() else None, errors=errors)
    return {name: a.version for name, a in adapters.items()}
