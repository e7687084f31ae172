"""The batch dialog's staging preview: parse results merged in file order, and their table model.

``stage_batch`` and ``parse_safely`` run on a worker thread (a 200k-row file must not be sorted
or wrapped on the GUI thread); :class:`PreviewModel` shows the result.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from mediadesk.core.batch import BatchFileError, BatchRow, ParsedBatch, RowError
from mediadesk.scheduler.duplicates import RowRepeat
from mediadesk.ui.plain import plain_tip
from mediadesk.ui.style import state_color

log = logging.getLogger(__name__)

__all__ = ["PreviewEntry", "PreviewModel", "StagedBatch", "parse_safely", "stage_batch"]

_PROMPT_PREVIEW_CHARS = 160
_TOOLTIP_CHARS = 2000


# --------------------------------------------------------------------------- parse results

@dataclass(frozen=True)
class PreviewEntry:
    """One preview line: a valid row (``status`` None) or a row error."""

    line: int
    profile: str
    priority: int | None
    text: str
    status: str | None
    row: BatchRow | None = None


@dataclass
class StagedBatch:
    rows: list[BatchRow] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    entries: list[PreviewEntry] = field(default_factory=list)
    error_entries: list[PreviewEntry] = field(default_factory=list)
    source_name: str | None = None
    load_error: str | None = None
    #: The encoding a file was read in ("GB18030" ...); None for pasted text.
    encoding: str | None = None
    #: "jsonl", "csv", "xlsx" or "pasted"; None before anything is parsed.
    format: str | None = None
    #: An XLSX file: the sheet read, and every sheet of the workbook.
    sheet: str | None = None
    sheets: tuple[str, ...] = ()
    #: Line -> what that row repeats (a finished task of the workspace, a row above); found on the worker.
    repeats: Mapping[int, RowRepeat] = field(default_factory=dict)

    @property
    def task_count(self) -> int:
        """The tasks the valid rows make (a row with several profiles or samples makes several)."""
        return sum(r.task_count for r in self.rows)


def one_line(text: str) -> str:
    head = text[:_PROMPT_PREVIEW_CHARS]
    head = head.replace("\r\n", " ⏎ ").replace("\n", " ⏎ ").replace("\r", " ⏎ ").replace("\t", " ")
    return head + ("…" if len(text) > _PROMPT_PREVIEW_CHARS else "")


def stage_batch(parsed: ParsedBatch, source_name: str | None) -> StagedBatch:
    """Worker side: merge rows and errors into one list in file order (sorting 200k entries on
    the GUI thread would be a visible hitch)."""
    entries = [PreviewEntry(r.line, ", ".join(r.targets), r.priority, one_line(r.prompt), None, r)
               for r in parsed.rows]
    error_entries = [PreviewEntry(e.line, "", None, e.excerpt, e.message) for e in parsed.errors]
    entries.extend(error_entries)
    entries.sort(key=lambda e: e.line)
    return StagedBatch(parsed.rows, parsed.errors, entries, error_entries, source_name, encoding=parsed.encoding,
                       format=parsed.format, sheet=parsed.sheet, sheets=parsed.sheets)


def parse_safely(work: Callable[[], StagedBatch]) -> StagedBatch:
    """Worker side: a parse that fails as a whole becomes a staged load error, never a lost result."""
    try:
        return work()
    except BatchFileError as exc:
        return StagedBatch(load_error=str(exc))
    except Exception as exc:  # never lose the worker's failure: show it
        log.exception("batch parse failed")
        return StagedBatch(load_error=f"{type(exc).__name__}: {exc}")


# --------------------------------------------------------------------------- preview model

class PreviewModel(QAbstractTableModel):
    """The staged rows in file order; "errors only" swaps the list instead of filtering row by
    row, so it stays instant at 200k rows. The prompt is what is sent (a template's row: rendered); "tasks"
    is a row's fan-out (several profiles, samples)."""

    COLUMNS = ("line", "profile", "priority", "prompt", "status", "tasks")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._staged = StagedBatch()
        self._source: StagedBatch | None = None
        self._errors_only = False
        self._dark = False

    def _entries(self) -> list[PreviewEntry]:
        return self._staged.error_entries if self._errors_only else self._staged.entries

    def shows(self, staged: StagedBatch | None) -> bool:
        return self._source is staged

    def set_staged(self, staged: StagedBatch | None, dark: bool = False) -> None:
        self.beginResetModel()
        self._source = staged
        self._staged = staged or StagedBatch()
        self._dark = dark
        self.endResetModel()

    def repeat_text(self, line: int) -> str | None:
        """What the row at ``line`` repeats, in words (None: nothing)."""
        rep = self._staged.repeats.get(line)
        if rep is None:
            return None
        if rep.earlier is None:
            return self.tr("Repeats line {line}").format(line=rep.above)
        done = rep.earlier.finished_at
        return self.tr("Repeats task {task} ({batch}, {date})").format(
            task=rep.earlier.task_id, batch=rep.earlier.batch or self.tr("no batch"),
            date="" if done is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(done)))

    def set_errors_only(self, on: bool) -> None:
        if on != self._errors_only:
            self.beginResetModel()
            self._errors_only = on
            self.endResetModel()

    def errors_only(self) -> bool:
        return self._errors_only

    def entry(self, row: int) -> PreviewEntry:
        return self._entries()[row]

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._entries())

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole:
            return None
        titles = (self.tr("Line"), self.tr("Profile"), self.tr("Priority"), self.tr("Prompt"), self.tr("Status"),
                  self.tr("Tasks"))
        return titles[section] if 0 <= section < len(titles) else None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        e = self._entries()[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return e.line
            if col == 1:
                return e.profile
            if col == 2:
                return "" if e.priority is None else e.priority
            if col == 3:
                return e.text
            if col == 5:
                return "" if e.row is None else self.fan_out(e.row)
            if e.status is None:
                return self.repeat_text(e.line) or self.tr("OK")
            return e.status
        if role == Qt.ItemDataRole.ToolTipRole and col in (3, 4):
            if col == 4 and e.status:
                return e.status
            if col == 4 and e.row is not None and e.line in self._staged.repeats:
                return plain_tip(self.repeat_text(e.line))
            if e.row is not None:  # more of the prompt than the cell shows, but never megabytes
                prompt = e.row.prompt
                return prompt[:_TOOLTIP_CHARS] + ("…" if len(prompt) > _TOOLTIP_CHARS else "")
            return e.text
        if role == Qt.ItemDataRole.ForegroundRole and col == 4:
            repeat = e.status is None and e.line in self._staged.repeats
            return state_color("failed" if e.status else "canceled" if repeat else "success", self._dark)
        if role == Qt.ItemDataRole.BackgroundRole and e.status is not None:
            bg = QColor(state_color("failed", self._dark))
            bg.setAlpha(45)
            return bg
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (0, 2):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def fan_out(self, row: BatchRow) -> str:
        """How many tasks ``row`` makes, and why: "3 profiles x 2 samples = 6 tasks"."""
        profiles, samples, tasks = len(row.targets), row.samples, row.task_count
        if profiles > 1 and samples > 1:
            return self.tr("{profiles} profiles x {samples} samples = {tasks} tasks").format(
                profiles=profiles, samples=samples, tasks=tasks)
        if profiles > 1:
            return self.tr("{profiles} profiles = {tasks} tasks").format(profiles=profiles, tasks=tasks)
        if samples > 1:
            return self.tr("{samples} samples = {tasks} tasks").format(samples=samples, tasks=tasks)
        return "1"
