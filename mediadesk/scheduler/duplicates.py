"""Duplicates in a batch: rows that repeat a task already done in this workspace, or a row above in the same
batch, and what the operator chose to do with them (skip, run again, reuse the earlier answer).

A task's id is a hash of its profile, instructions and prompt (:mod:`mediadesk.core.batch.task_ids`), so a
re-submitted row gets the id of the task it repeats: one primary-key lookup for the whole batch
(:meth:`~mediadesk.store.taskstore.TaskStore.done_of`) finds the finished ones, and :func:`find_repeats` (pure)
keeps those whose profile, instructions and prompt are still the same (a row's own ``id`` may name other
text). :func:`plan_submit` turns the choice into what goes into the store.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from mediadesk.store.reader import DoneRow
from mediadesk.store.record import NewTask

__all__ = ["Duplicates", "Earlier", "Plan", "Repeats", "RowRepeat", "find_repeats", "plan_submit", "rerun_id",
           "row_repeats"]


class Duplicates(StrEnum):
    """The operator's choice for the rows that repeat."""

    #: Not submitted (a repeat of a finished task keeps that task; a repeat of a row above is dropped).
    SKIP = "skip"
    #: Sent again as new tasks with distinct ids.
    AGAIN = "again"
    #: A new task stored as a success with the earlier task's answer, at no cost (nothing sent); a repeat of
    #: a row above has no answer yet: dropped, as under ``skip``.
    REUSE = "reuse"


@dataclass(frozen=True, slots=True)
class Earlier:
    """A finished task a row repeats."""

    task_id: str
    batch: str | None
    finished_at: float | None


@dataclass(frozen=True)
class Repeats:
    """The repeats among a batch's tasks, by position in the task list."""

    #: Task position -> the finished task it repeats (same id, profile, instructions and prompt).
    done: dict[int, Earlier] = field(default_factory=dict)
    #: Task position -> the position of the task above it repeats (one task rows only; not one in ``done``).
    in_batch: dict[int, int] = field(default_factory=dict)


def find_repeats(tasks: Sequence[NewTask], done: Mapping[str, DoneRow]) -> Repeats:
    """Which of ``tasks`` repeat a finished task (``done``: by task id, see :data:`DoneRow`) and which repeat a
    task above them in the batch (same profile, instructions and prompt; rows of one task only: a row's samples
    are meant to repeat)."""
    out = Repeats()
    first: dict[tuple[str, str, str], int] = {}
    for i, t in enumerate(tasks):
        key = (t.profile, t.system or "", t.prompt)
        hit = done.get(t.task_id)
        if hit is not None and (hit[0], hit[1] or "", hit[2]) == key:
            out.done[i] = Earlier(t.task_id, hit[3], hit[4])
        elif t.sample is None and first.setdefault(key, i) != i:
            out.in_batch[i] = first[key]
        if t.sample is None:
            first.setdefault(key, i)
    return out


@dataclass(frozen=True, slots=True)
class RowRepeat:
    """What a batch row repeats, for the staging preview: a finished task, or the row at line ``above``."""

    earlier: Earlier | None = None
    above: int | None = None


def row_repeats(lines: Sequence[tuple[int, int]], repeats: Repeats) -> dict[int, RowRepeat]:
    """Line -> what that row repeats. ``lines``: each row's (line, task count), in the order its tasks are
    listed; a row of several tasks is flagged by its first finished repeat."""
    owner: list[int] = []
    for line, count in lines:
        owner.extend([line] * count)
    out: dict[int, RowRepeat] = {}
    for i, earlier in sorted(repeats.done.items()):
        out.setdefault(owner[i], RowRepeat(earlier=earlier))
    for i, above in repeats.in_batch.items():
        out.setdefault(owner[i], RowRepeat(above=owner[above]))
    return out


def rerun_id(task_id: str, run: int) -> str:
    """The id of run ``run`` (2, 3, ...) of ``task_id``: distinct from every derived id (``~`` is not hex)."""
    return f"{task_id}~{run}"


@dataclass(frozen=True)
class Plan:
    """What goes into the store for a batch under a choice."""

    #: The tasks to add, in batch order (reruns and reuses under fresh ids; skipped repeats under their own).
    tasks: list[NewTask]
    #: New task id -> the finished task whose answer it takes (stored as a success, nothing sent).
    reuse: dict[str, str]
    #: Repeats of finished tasks, and of a row above, as the plan treats them.
    done: int = 0
    in_batch: int = 0

    @property
    def ids(self) -> list[str]:
        """Every task id of the batch once it is in, in batch order."""
        return [t.task_id for t in self.tasks]


def plan_submit(tasks: Sequence[NewTask], repeats: Repeats, choice: Duplicates,
                taken: Callable[[Collection[str]], Collection[str]]) -> Plan:
    """``tasks`` under ``choice``: a repeat of a finished task is skipped (kept under its id, which the store
    leaves untouched: counted as already there), sent again or takes the earlier answer, both under the first
    free :func:`rerun_id` (``taken``: which of some ids the store already has); a repeat of a row above is sent
    under ``again`` (it has an id of its own), else dropped."""
    fresh = _fresh_ids([tasks[i].task_id for i in repeats.done], taken) if choice is not Duplicates.SKIP else {}
    out: list[NewTask] = []
    reuse: dict[str, str] = {}
    for i, t in enumerate(tasks):
        if i in repeats.in_batch and choice is not Duplicates.AGAIN:
            continue
        earlier = repeats.done.get(i)
        if earlier is not None and choice is not Duplicates.SKIP:
            t = replace(t, task_id=fresh[t.task_id])
            if choice is Duplicates.REUSE:
                reuse[t.task_id] = earlier.task_id
        out.append(t)
    return Plan(out, reuse, len(repeats.done), len(repeats.in_batch))


def _fresh_ids(task_ids: Sequence[str], taken: Callable[[Collection[str]], Collection[str]]) -> dict[str, str]:
    """task id -> its first run id the store does not have (one lookup per run number still taken)."""
    out: dict[str, str] = {}
    left, run = list(dict.fromkeys(task_ids)), 2
    while left:
        have = set(taken([rerun_id(t, run) for t in left]))
        for t in left:
            if rerun_id(t, run) not in have:
                out[t] = rerun_id(t, run)
        left = [t for t in left if t not in out]
        run += 1
    return out
