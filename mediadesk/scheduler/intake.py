"""The intake: how a batch gets into the queue, one way for both faces (console and CLI).

Parsed rows become tasks with deterministic ids; a batch that would pass a profile's
``max_pending`` is refused whole (:class:`QueueFullError`); so is one for a profile whose API key
variable is unset (:class:`MissingApiKeysError`, one rule, see :meth:`Intake.missing_keys`); then the
tasks go in, in one transaction or in chunks with a progress callback. The awaitable form
(:meth:`Intake.submit_rows_async`) yields to the event loop between slices and chunks: in the
console that loop is also the GUI thread and the lanes' loop, so no slice may take long.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass

from mediadesk.config.model import AppConfig, MissingKey, ProfileConfig, missing_api_keys
from mediadesk.core.batch import BatchRow, assign_task_ids, row_tasks
from mediadesk.core.states import TaskState
from mediadesk.scheduler.duplicates import Duplicates, Plan, Repeats, RowRepeat, find_repeats, plan_submit, row_repeats
from mediadesk.store import AddResult, NewTask, TaskStore
from mediadesk.store.reader import DoneRow

#: Tasks per transaction (and per slice of task building) for a chunked submit: the first chunk
#: and the most; later ones are sized so that one takes about SUBMIT_SLICE_S of the loop's thread.
#: The slice is kept short because a transaction now and then takes several times its usual time:
#: the console's worst stall follows the slice (docs/benchmarks.md).
SUBMIT_CHUNK = 500
SUBMIT_MIN_CHUNK = 100
SUBMIT_SLICE_S = 0.01

#: ``progress(done, total)``: tasks submitted so far, of all; called between chunks.
Progress = Callable[[int, int], None]
#: Task ids -> those of them that succeeded, with what they asked (``TaskStore.done_of``, ``TaskReader.done_of``).
DoneOf = Callable[[Sequence[str]], Mapping[str, DoneRow]]


def next_submit_chunk(size: int, took_s: float, most: int) -> int:
    """The next transaction's (or slice's) size: about SUBMIT_SLICE_S of work at the rate the last
    one (``size`` tasks in ``took_s``) ran, between SUBMIT_MIN_CHUNK and ``most``."""
    least = min(SUBMIT_MIN_CHUNK, most)
    if took_s <= 0:
        return most
    return max(least, min(most, int(size * SUBMIT_SLICE_S / took_s)))


class QueueFullError(ValueError):
    """A batch would pass a profile's ``max_pending``: refused whole."""


class MissingApiKeysError(ValueError):
    """A batch needs an API key variable that is unset: refused whole, before anything is sent.
    ``missing``: each variable with its profiles (each face words it its own way)."""

    def __init__(self, missing: Sequence[MissingKey]) -> None:
        super().__init__("\n".join(m.message() for m in missing))
        self.missing = tuple(missing)


@dataclass(frozen=True)
class Submitted:
    """What a submit did: the ids added and those already present (left untouched), every task id of
    the batch in row order, and what became of its repeats (:mod:`~mediadesk.scheduler.duplicates`)."""

    result: AddResult
    ids: list[str]
    plan: Plan | None = None


class Intake:
    """Rows to tasks, the caps and key checks, and the submit itself.

    ``profiles``: the scheduler's profiles; ``config``: the config as it is now (read at each
    check, so the key check sees what the scheduler sees); ``store``: the open store; ``guard``: a
    context for the writes (a storage fault there halts dispatch, then raises); ``added``: told of
    every transaction that added tasks, with the profiles it touched (events, lane wake-ups)."""

    def __init__(
        self,
        *,
        profiles: Mapping[str, ProfileConfig],
        config: Callable[[], AppConfig],
        store: Callable[[], TaskStore],
        guard: Callable[[], AbstractContextManager[None]],
        added: Callable[[AddResult, set[str]], None],
    ) -> None:
        self._profiles = profiles
        self._config = config
        self._store = store
        self._guard = guard
        self._added = added

    # ------------------------------------------------------------------ rows -> tasks
    def new_task(
        self, task_id: str, profile: str, prompt: str, *, system: str | None = None, priority: int = 0,
        route_key: str | None = None, batch: str | None = None, group_id: str | None = None,
        template: str | None = None, template_vars: str | None = None, sample: int | None = None,
    ) -> NewTask:
        prof = self._profiles.get(profile)
        if prof is None:
            raise ValueError(f"unknown profile {profile!r}")
        return NewTask(task_id, profile, prof.kind, prompt, system, priority, route_key, batch, group_id,
                       template, template_vars, sample)

    def tasks_from_rows(self, rows: Sequence[BatchRow], batch: str | None = None,
                        seen: dict[tuple[str, str, str], int] | None = None) -> list[NewTask]:
        """Parsed batch rows -> tasks with deterministic ids (profile, instructions, prompt and
        occurrence), so re-submitting the same file never adds a task twice. ``seen``: see
        :func:`~mediadesk.core.batch.assign_task_ids` (a file converted in slices). A row with several
        profiles or samples makes one task each, sharing its group (:func:`~mediadesk.core.batch.row_tasks`);
        a templated row's tasks keep the template's name and variables for the record."""
        tasks: list[NewTask] = []
        for base_id, r in assign_task_ids(rows, seen):
            variables = (json.dumps(dict(r.template_vars), ensure_ascii=False, separators=(",", ":"))
                         if r.template is not None else None)
            tasks.extend(
                self.new_task(t.task_id, t.profile, r.prompt, system=r.system, priority=r.priority,
                              route_key=r.route_key, batch=batch, group_id=t.group_id, template=r.template,
                              template_vars=variables, sample=t.sample)
                for t in row_tasks(base_id, r))
        return tasks

    async def tasks_in_slices(self, rows: Sequence[BatchRow], batch: str | None, most: int) -> list[NewTask]:
        """:meth:`tasks_from_rows`, built a slice at a time with the loop run between slices (same
        ids: the occurrence counts carry over)."""
        seen: dict[tuple[str, str, str], int] = {}
        tasks: list[NewTask] = []
        i, size = 0, max(1, most)
        while i < len(rows):
            t0 = time.perf_counter()
            tasks.extend(self.tasks_from_rows(rows[i:i + size], batch, seen))
            i += size
            size = next_submit_chunk(size, time.perf_counter() - t0, most)
            if i < len(rows):
                await asyncio.sleep(0)
        return tasks

    # ------------------------------------------------------------------ duplicates
    def repeats(self, tasks: Sequence[NewTask], done_of: DoneOf | None = None) -> Repeats:
        """The tasks that repeat a finished task of this workspace or a task above them (one primary-key
        lookup for the whole batch: ``done_of``, else the store's)."""
        return find_repeats(tasks, (done_of or self._store().done_of)([t.task_id for t in tasks]))

    def row_repeats(self, rows: Sequence[BatchRow], done_of: DoneOf | None = None) -> dict[int, RowRepeat]:
        """Line -> what that row repeats (the staging preview's flags). From a worker thread, pass the
        ``done_of`` of a :class:`~mediadesk.store.TaskReader` of its own: the store is the loop thread's."""
        tasks = self.tasks_from_rows(rows)
        return row_repeats([(r.line, r.task_count) for r in rows], self.repeats(tasks, done_of))

    def plan(self, tasks: Sequence[NewTask], duplicates: Duplicates | None,
             done: Mapping[str, DoneRow] | None = None) -> Plan:
        """What goes in for ``tasks`` under the operator's choice for their repeats; None (a submitter that
        offers no choice): every task as it is, an id already present left untouched. ``done``: the store's
        ``done_of`` of the tasks, when already read."""
        if duplicates is None:
            return Plan(list(tasks), {})
        store = self._store()
        repeats = self.repeats(tasks) if done is None else find_repeats(tasks, done)
        return plan_submit(tasks, repeats, duplicates, lambda ids: store.states_of(list(ids)).keys())

    async def plan_in_slices(self, tasks: Sequence[NewTask], duplicates: Duplicates | None, most: int) -> Plan:
        """:meth:`plan`, with the finished tasks read ``most`` ids at a time and the loop run between."""
        done: dict[str, DoneRow] = {}
        if duplicates is not None:
            for i in range(0, len(tasks), max(1, most)):
                done.update(self._store().done_of([t.task_id for t in tasks[i:i + max(1, most)]]))
                await asyncio.sleep(0)
        return self.plan(tasks, duplicates, done)

    # ------------------------------------------------------------------ checks
    def check_caps(self, tasks: Sequence[NewTask]) -> None:
        """Raise :class:`QueueFullError` if ``tasks`` would take a profile past its ``max_pending``."""
        store = self._store()
        wanted: dict[str, set[str]] = {}
        for t in tasks:
            wanted.setdefault(t.profile, set()).add(t.task_id)
        problems = []
        for profile, ids in wanted.items():
            cap = self._profiles[profile].max_pending
            if cap is None:
                continue
            known = store.states_of(list(ids))
            new = len(ids) - len(known)
            pending = store.pending_count([profile])
            if pending + new > cap:
                fits = max(0, cap - pending)
                problems.append(
                    f"profile {profile!r}: max_pending is {cap}, {pending} already pending, this batch adds "
                    f"{new}; {fits} would fit"
                )
        if problems:
            raise QueueFullError(
                "batch refused whole (nothing was submitted): " + "; ".join(problems)
                + ". Submit fewer rows, wait for the queue to drain, or raise max_pending."
            )

    def missing_keys(self, tasks: Sequence[NewTask], *, retry_failed: bool = False) -> list[MissingKey]:
        """The API key variables that are unset for a profile with work once ``tasks`` are in: the
        batch's tasks still to do (new ones, and known ones pending or running, or failed or
        canceled when ``retry_failed`` re-queues them), and whatever is already queued."""
        config = self._config()
        if not missing_api_keys(config, self._profiles):
            return []  # every key source is fine: nothing to look up
        store = self._store()
        runnable = {TaskState.PENDING.value, TaskState.RUNNING.value}
        if retry_failed:
            runnable |= {TaskState.FAILED.value, TaskState.CANCELED.value}
        known = store.states_of([t.task_id for t in tasks])
        profiles = {t.profile for t in tasks if t.task_id not in known}
        profiles |= {profile for state, profile in known.values() if state in runnable}
        queued = (TaskState.PENDING.value, TaskState.RUNNING.value)
        profiles |= {profile for (profile, state), n in store.counts().items() if n and state in queued}
        return missing_api_keys(config, profiles)

    def check_keys(self, tasks: Sequence[NewTask], *, retry_failed: bool = False) -> None:
        """Raise :class:`MissingApiKeysError` (see :meth:`missing_keys`): one clear refusal before
        anything is submitted or sent, instead of one ``auth`` failure per task."""
        missing = self.missing_keys(tasks, retry_failed=retry_failed)
        if missing:
            raise MissingApiKeysError(missing)

    def check(self, tasks: Sequence[NewTask], *, retry_failed: bool = False) -> None:
        """Every check a batch passes before its first task goes in: profiles, keys, caps."""
        for t in tasks:
            if t.profile not in self._profiles:
                raise ValueError(f"unknown profile {t.profile!r}")
        self.check_keys(tasks, retry_failed=retry_failed)
        self.check_caps(tasks)

    # ------------------------------------------------------------------ submit
    def submit(self, tasks: Sequence[NewTask]) -> AddResult:
        """Add tasks in one transaction. A batch that would take a profile past its ``max_pending``
        is refused whole (:class:`QueueFullError`, saying the cap and how many rows fit). No key
        check: see :meth:`submit_rows`."""
        for t in tasks:
            if t.profile not in self._profiles:
                raise ValueError(f"unknown profile {t.profile!r}")
        self.check_caps(tasks)
        return self._add(tasks)

    def _add(self, tasks: Sequence[NewTask], reuse: Mapping[str, str] | None = None) -> AddResult:
        with self._guard():
            res = self._store().add_tasks(tasks, reuse=reuse)
        if res.added:
            self._added(res, {t.profile for t in tasks})
        return res

    def submit_rows(
        self, rows: Sequence[BatchRow], batch: str | None = None, *, retry_failed: bool = False,
        chunk: int | None = None, progress: Progress | None = None, duplicates: Duplicates | None = None,
    ) -> Submitted:
        """Check (:meth:`check`) and submit parsed rows: in one transaction, or with ``chunk`` in
        transactions of at most that many tasks (``progress`` told between them); their repeats as
        ``duplicates`` says (:meth:`plan`)."""
        plan = self.plan(self.tasks_from_rows(rows, batch), duplicates)
        tasks = plan.tasks
        self.check([t for t in tasks if t.task_id not in plan.reuse], retry_failed=retry_failed)
        if chunk is None:
            return Submitted(self._add(tasks, plan.reuse), plan.ids, plan)
        added: list[str] = []
        existing: list[str] = []
        for part in _chunks(tasks, chunk):
            res = self._add(part, plan.reuse)
            added.extend(res.added)
            existing.extend(res.existing)
            if progress is not None and len(added) + len(existing) < len(tasks):
                progress(len(added) + len(existing), len(tasks))
        return Submitted(AddResult(tuple(added), tuple(existing)), plan.ids, plan)

    async def submit_rows_async(
        self, rows: Sequence[BatchRow], batch: str | None = None, *, retry_failed: bool = False,
        chunk: int = SUBMIT_CHUNK, progress: Progress | None = None, duplicates: Duplicates | None = None,
    ) -> Submitted:
        """:meth:`submit_rows` that yields to the loop while it works: the tasks (ids hashed from
        every row) are built in slices, checked whole (nothing goes in if the batch is refused),
        then added in transactions of at most ``chunk`` tasks; each slice and transaction is sized
        from the time the previous one took (:func:`next_submit_chunk`), so a slow disk or a busy
        machine gets smaller ones rather than a stalled loop. Re-submitting after an interruption is
        safe: ids are deterministic and existing ones are left untouched."""
        plan = await self.plan_in_slices(await self.tasks_in_slices(rows, batch, chunk), duplicates, chunk)
        tasks = plan.tasks
        self.check([t for t in tasks if t.task_id not in plan.reuse], retry_failed=retry_failed)
        added: list[str] = []
        existing: list[str] = []
        i, size = 0, max(1, chunk)
        while i < len(tasks):
            t0 = time.perf_counter()
            part = self._add(tasks[i:i + size], plan.reuse)
            took = time.perf_counter() - t0
            added.extend(part.added)
            existing.extend(part.existing)
            i += size
            size = next_submit_chunk(size, took, chunk)
            if i < len(tasks):
                if progress is not None:
                    progress(i, len(tasks))
                await asyncio.sleep(0)
        return Submitted(AddResult(tuple(added), tuple(existing)), plan.ids, plan)


def _chunks(tasks: Sequence[NewTask], size: int) -> Iterable[Sequence[NewTask]]:
    size = max(1, size)
    for i in range(0, len(tasks), size):
        yield tasks[i:i + size]
