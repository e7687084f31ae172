"""The economy channel's contract: a provider's Batch API seen from the scheduler (no I/O here).

A profile with ``economy = "batch"`` sends its non-urgent single-turn tasks (priority <= 0, no
``route_key``) as one provider batch (``/v1/files`` + ``/v1/batches``: a JSONL file, one line per
task with ``custom_id`` = the task id), polls it with growing intervals, and maps each result line
back to its task. The HTTP side is :mod:`mediadesk.providers.api.batches`; the scheduling side is
:mod:`mediadesk.scheduler.economy`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from mediadesk.core.backend import Answer, TaskSpec
from mediadesk.core.errors import TaskFailure

__all__ = ["FINAL_STATUSES", "BatchApi", "BatchLine", "BatchStatus", "next_poll_s"]

#: A provider batch in one of these states changes no more.
FINAL_STATUSES = frozenset({"completed", "expired", "failed", "cancelled"})


@dataclass(frozen=True)
class BatchStatus:
    batch_id: str
    status: str
    output_file_id: str | None = None
    error_file_id: str | None = None

    @property
    def final(self) -> bool:
        return self.status in FINAL_STATUSES


@dataclass(frozen=True)
class BatchLine:
    """One result line: the answer of task ``custom_id``, or why it has none."""

    custom_id: str
    answer: Answer | None = None
    failure: TaskFailure | None = None


class BatchApi(Protocol):
    """What the channel needs of a provider's Batch API."""

    async def submit(self, tasks: list[TaskSpec], ref: str, window: str) -> str:
        """Upload the tasks as a JSONL file and create a batch carrying ``ref`` in its metadata;
        returns the provider's batch id."""

    async def find(self, ref: str) -> str | None:
        """The id of the batch created with ``ref`` (after a crash between creating it and storing its
        id), or None if the provider never made it."""

    async def status(self, batch_id: str) -> BatchStatus: ...

    async def results(self, status: BatchStatus) -> list[BatchLine]:
        """Every line of a final batch's output and error files."""


def next_poll_s(previous: float | None, first: float, most: float, factor: float = 1.5) -> float:
    """The wait before the next status poll: ``first``, then growing by ``factor`` up to ``most``."""
    return first if previous is None else min(most, previous * factor)
