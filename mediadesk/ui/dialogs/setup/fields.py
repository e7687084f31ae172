"""The Setup editor's field model: which keys a form shows and how a form text becomes a TOML
value (the real loader judges it), the site picker's choices, and error texts in the console's
language.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mediadesk.config.edit import FieldError
from mediadesk.config.workspace import Workspace, resources_dir
from mediadesk.ui.dialogs.config_text import config_issue_line, config_message_text

__all__ = ["ERROR_STYLE", "Field", "entry_error_text", "field_error_line", "field_error_text", "parse_value",
           "show_value", "site_choices"]

ERROR_STYLE = "color: #c62828;"


@dataclass(frozen=True)
class Field:
    key: str
    kind: str  # "str", "num", "bool", "list", "choice", "site", "endpoint", "profile"
    label: str
    default: Any = None
    #: Only for profiles of this kind (None: every profile).
    only: str | None = None
    choices: tuple[str, ...] = ()


def site_choices(config_sites_dir: Path | None, workspace: Workspace | None) -> list[tuple[str, str]]:
    """(adapter name, where it comes from) for the site picker: the built-in adapters, then the
    operator's (``browser.sites_dir``, else ``<data_dir>/sites``), which override a built-in of the
    same name, as :func:`mediadesk.providers.web.sites.site_adapters` loads them."""
    found: dict[str, str] = {}
    user_dir = workspace.user_sites_dir(config_sites_dir) if workspace is not None else config_sites_dir
    for folder, origin in ((resources_dir() / "sites", "built-in"), (user_dir, "user")):
        if folder is not None and folder.is_dir():
            for f in sorted(folder.glob("*.toml")):
                found[f.stem] = origin
    return sorted(found.items())


def parse_value(kind: str, text: str) -> Any:
    """A form text as a TOML value; the loader judges it (a wrong type gets the loader's message)."""
    text = text.strip()
    if not text:
        return None
    if kind == "num":
        for conv in (int, float):
            try:
                return conv(text)
            except ValueError:
                pass
        return text
    if kind == "list":
        return [part.strip() for part in text.split(",") if part.strip()]
    return text


def show_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def field_error_text(e: FieldError) -> str:
    """The loader's message for one key, in the console's language (key and values as written)."""
    return config_message_text(e.issue.message) if e.issue is not None else e.message


def field_error_line(e: FieldError) -> str:
    """The whole line (file, key path, message), the message translated."""
    return config_issue_line(e.issue) if e.issue is not None else e.line


def entry_error_text(e: FieldError) -> str:
    if e.issue is not None and e.issue.key is None:  # the file as a whole (e.g. invalid TOML)
        return field_error_text(e)
    return f"{e.key}: {field_error_text(e)}" if e.key else field_error_text(e)

