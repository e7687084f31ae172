"""First run without a config: where the config is looked for, the one-line hint, the template.

No Qt here: the console's welcome panel and the CLI (``mediadesk init``, ``mediadesk run`` without
``--config``) share it.
"""

from __future__ import annotations

import os
from pathlib import Path

from mediadesk.config.workspace import Workspace, resources_dir
from mediadesk.files.safe import create_private_file, ensure_private_dir

__all__ = ["CONFIG_NAME", "default_config_path", "no_config_message", "template_text", "write_config_template"]

CONFIG_NAME = "config.toml"


def default_config_path(data_dir: Path | None = None) -> Path:
    """``<data dir>/config.toml`` (data dir: ``data_dir``, else $MEDIADESK_DATA_DIR, else the platform's)."""
    return Workspace.resolve(data_dir=data_dir).data_dir / CONFIG_NAME


def no_config_message(path: Path) -> str:
    """The one line said when no config is found (English; the console translates its own)."""
    return (f"no config found ({path} does not exist): try `mediadesk demo`, pass --config FILE, "
            f"or run `mediadesk init` to write a commented one there")


def template_text() -> str:
    """The bundled commented template (every section commented: it loads as an empty workspace)."""
    return (resources_dir() / "templates" / CONFIG_NAME).read_text(encoding="utf-8")


def write_config_template(path: Path) -> Path:
    """Write the template to ``path``, private (0600; its folder 0700 when we create it).

    Never over anything already there: raises ``FileExistsError`` (a file, or a link, planted or not)."""
    path = Path(path)
    ensure_private_dir(path.parent, tighten=False, what="data dir")
    fd = create_private_file(path)
    try:
        os.write(fd, template_text().encode("utf-8"))
    finally:
        os.close(fd)
    return path
