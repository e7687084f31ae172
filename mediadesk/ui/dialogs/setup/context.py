"""What the Setup editor's entry actions (Test, Check adapter) work on, built once by the editor."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mediadesk.config.edit import ConfigDoc, FieldError, Section
from mediadesk.config.model import AppConfig
from mediadesk.config.workspace import Workspace

if TYPE_CHECKING:
    from mediadesk.scheduler.scheduler import Scheduler

__all__ = ["CurrentEntry", "SetupContext"]


@dataclass(frozen=True)
class CurrentEntry:
    """A section's selected entry, with the whole edited setup validated (``cfg`` is None while it
    has problems; ``errors`` lists them)."""

    name: str
    cfg: AppConfig | None
    errors: list[FieldError]


@dataclass(frozen=True)
class SetupContext:
    """The edited document, a section's current index, the workspace, and the running scheduler
    (None outside the console; with it, the lanes answer for the accounts they run)."""

    doc: ConfigDoc
    current: Callable[[Section], int]
    workspace: Workspace | None
    scheduler: Scheduler | None

    def current_entry(self, section: Section) -> CurrentEntry | None:
        """The section's selected entry, or None when nothing is selected."""
        idx = self.current(section)
        if idx < 0:
            return None
        cfg, errors = self.doc.validate()
        return CurrentEntry(str(self.doc.entry(section, idx).get("name", "")), cfg, errors)
