"""Several models side by side: one row per prompt group (the tasks of one batch row: same ``group_id``; a task
without a group is a row of its own), one cell per profile and sample, and which answer the operator kept.

Read through :class:`~mediadesk.store.reader.TaskReader` (SQLite or PostgreSQL, a worker thread); the console's
comparison view, ``mediadesk export --compare`` and ``mediadesk report`` all show this one table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from mediadesk.config.location import StoreLocation
from mediadesk.core.spend import sum_by_currency
from mediadesk.core.states import TaskState
from mediadesk.store.reader import TaskReader
from mediadesk.store.record import TaskRecord

__all__ = ["CompareCell", "CompareRow", "CompareTotals", "Comparison", "cell_of", "comparison_of", "read_comparison",
           "totals_of"]


@dataclass(frozen=True)
class CompareCell:
    """One task of a prompt group: its answer, state, run time and cost."""

    task_id: str
    profile: str
    #: 1..n among the samples of its profile (None: a row of one task).
    sample: int | None
    state: str
    #: The answer (None: no answer yet, or the task failed).
    answer: str | None
    #: finished - started, in seconds (None: not finished).
    seconds: float | None
    cost: float | None
    currency: str | None
    kept: bool
    error_message: str | None = None

    @property
    def column(self) -> tuple[str, int]:
        """The key of its column: (profile, sample), a task of one sample being sample 1."""
        return self.profile, self.sample or 1


@dataclass(frozen=True)
class CompareRow:
    """One prompt and its answers, in submit order."""

    #: The group id, or the task id of a task without a group.
    key: str
    batch: str | None
    prompt: str
    cells: tuple[CompareCell, ...]

    @property
    def kept(self) -> CompareCell | None:
        return next((c for c in self.cells if c.kept), None)

    def cell(self, column: tuple[str, int]) -> CompareCell | None:
        return next((c for c in self.cells if c.column == column), None)


@dataclass(frozen=True)
class Comparison:
    rows: tuple[CompareRow, ...]
    #: The columns in first-seen order: (profile, sample).
    columns: tuple[tuple[str, int], ...]

    def label(self, column: tuple[str, int]) -> str:
        """``writer``, or ``writer #2`` when that profile has several samples anywhere in the table."""
        profile, sample = column
        several = any(p == profile and s > 1 for p, s in self.columns)
        return f"{profile} #{sample}" if several else profile

    def kept_label(self, row: CompareRow) -> str:
        """The column label of the row's kept answer ("" when none is kept)."""
        kept = row.kept
        return "" if kept is None else self.label(kept.column)


def cell_of(rec: TaskRecord) -> CompareCell:
    seconds = (rec.finished_at - rec.started_at
               if rec.finished_at is not None and rec.started_at is not None else None)
    return CompareCell(rec.task_id, rec.profile, rec.sample, str(rec.state), rec.result, seconds, rec.cost,
                       rec.currency, bool(rec.kept), rec.error_message)


def comparison_of(records: Iterable[TaskRecord]) -> Comparison:
    """The comparison of ``records`` (submit order): rows in the order of their first task."""
    groups: dict[str, list[TaskRecord]] = {}
    for rec in records:
        groups.setdefault(rec.group_id or rec.task_id, []).append(rec)
    columns: dict[tuple[str, int], None] = {}
    rows: list[CompareRow] = []
    for key, recs in groups.items():
        cells = tuple(cell_of(r) for r in recs)
        for c in cells:
            columns.setdefault(c.column)
        rows.append(CompareRow(key, recs[0].batch, recs[0].prompt, cells))
    return Comparison(tuple(rows), tuple(columns))


def read_comparison(location: StoreLocation | Path, batch: str | None = None) -> Comparison:
    """The comparison of one batch (None: every task), read from the store (a worker thread)."""
    reader = TaskReader(location)
    try:
        return comparison_of(reader.iter_tasks(batch=batch))
    finally:
        reader.close()


@dataclass(frozen=True)
class CompareTotals:
    """What a comparison's tasks add up to: counts, cost per currency (never added across currencies) and
    run time."""

    tasks: int
    succeeded: int
    failed: int
    cost: Mapping[str, float]
    seconds: float


def totals_of(comparison: Comparison) -> CompareTotals:
    cells = [c for row in comparison.rows for c in row.cells]
    cost = sum_by_currency((c.cost, c.currency) for c in cells)
    return CompareTotals(len(cells), sum(c.state == TaskState.SUCCESS.value for c in cells),
                         sum(c.state == TaskState.FAILED.value for c in cells), cost,
                         sum(c.seconds or 0.0 for c in cells))


#: What each column of the comparison holds in an export, after its label: ``writer: answer``...
CELL_FIELDS = ("answer", "state", "time_s", "cost", "currency")


def compare_fields(comparison: Comparison) -> tuple[str, ...]:
    """The exported columns: the batch and the prompt, one group per profile (and sample), the kept one."""
    return ("batch", "prompt",
            *(f"{comparison.label(col)}: {f}" for col in comparison.columns for f in CELL_FIELDS), "kept")


def compare_rows(comparison: Comparison) -> Iterable[dict[str, object]]:
    """One exported row per prompt (see :func:`compare_fields`); ``kept`` names the kept column."""
    for row in comparison.rows:
        out: dict[str, object] = {"batch": row.batch, "prompt": row.prompt, "kept": comparison.kept_label(row)}
        for col in comparison.columns:
            c = row.cell(col)
            if c is None:
                continue
            label = comparison.label(col)
            seconds = None if c.seconds is None else round(c.seconds, 3)
            out.update(zip((f"{label}: {f}" for f in CELL_FIELDS), (c.answer, c.state, seconds, c.cost, c.currency),
                           strict=True))
        yield out
