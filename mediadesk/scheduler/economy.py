"""The economy channel of one profile: its non-urgent single-turn tasks go through the provider's
Batch API (:class:`mediadesk.core.economy.BatchApi`) instead of one request each.

Each loop step: **resume** open ``economy_batch`` rows (a row left ``sending`` by a crash is looked
up by ``ref``; a batch never made sends its tasks back uncharged); **poll** submitted batches at
growing intervals and map lines back by ``custom_id``; **send** collected pending tasks (claimed on
lane ``batch:<profile>``, out of the reaper's reach), writing our row before the upload so a lost
connection never sends twice. In team mode only the holder of lease ``economy:<profile>`` runs it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx

from mediadesk.core.backend import TaskSpec, answer_reasoning, answer_usage
from mediadesk.core.economy import BatchApi, BatchLine, BatchStatus, next_poll_s
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.core.log_lines import LOG, LogText
from mediadesk.core.policy import RetryPolicy
from mediadesk.core.states import TaskState
from mediadesk.scheduler.finalizer import apply_failure
from mediadesk.store.economy import ECONOMY_LANE_PREFIX, EconomyBatch
from mediadesk.store.errors import StorageError
from mediadesk.store.taskstore import TaskRecord, TaskStore

if TYPE_CHECKING:
    from mediadesk.scheduler.admission import DispatchGuard
    from mediadesk.scheduler.team_link import TeamLink

log = logging.getLogger(__name__)

__all__ = ["EconomyChannel", "EconomySettings"]

#: The longest wait between two polls of one batch.
MOST_POLL_S = 600.0


@dataclass(frozen=True)
class EconomySettings:
    window: str = "24h"
    collect_s: float = 60.0
    poll_s: float = 30.0
    batch_size: int = 1000
    #: How often the tasks of open batches get a heartbeat (the console's "alive").
    beat_s: float = 15.0


class EconomyChannel:
    """The Batch API loop of one profile (see the module doc)."""

    def __init__(self, profile: str, api: BatchApi, store: TaskStore, *, resolve: Callable[[TaskRecord], TaskSpec],
                 policy: RetryPolicy, owner: str, settings: EconomySettings,
                 publish: Callable[[TaskRecord], None], task_log: Callable[[str, str, LogText], None],
                 team: TeamLink | None = None, clock: Callable[[], float] = time.time,
                 on_unavailable: Callable[[str], None] = lambda _why: None,
                 guard: DispatchGuard | None = None) -> None:
        self.profile = profile
        #: Budgets: the head task must fit what is left before a batch is sent (None: no caps).
        self._guard = guard
        self.lane = f"{ECONOMY_LANE_PREFIX}{profile}"
        self.api = api
        self._store = store
        self._resolve = resolve
        self._policy = policy
        self._owner = owner
        self.settings = settings
        self._publish = publish
        self._log = task_log
        self._team = team
        self._clock = clock
        self._wait: dict[str, float] = {}
        self._next_poll: dict[str, float] = {}
        self._first_seen: float | None = None
        self._last_beat = 0.0
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._on_unavailable = on_unavailable
        #: Why the provider has no Batch API for this profile (its tasks then go one by one); None: it has.
        self.disabled: str | None = None
        #: Provider batches sent and finished by this channel (tests, the console).
        self.sent = 0
        self.finished = 0

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop(), name=self.lane)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None

    def wake(self) -> None:
        self._wake.set()

    async def _loop(self) -> None:
        backoff = None
        while True:
            self._wake.clear()
            try:
                delay = await self.step(self._clock())
                backoff = None
            except StorageError as exc:
                log.error("%s: the database failed (%s); the channel stops", self.lane, exc)
                return
            except Exception:
                backoff = next_poll_s(backoff, 1.0, 60.0, 2.0)
                log.exception("%s: step failed; trying again in %.0f s", self.lane, backoff)
                delay = backoff
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=max(0.05, delay))

    # ------------------------------------------------------------------ one step
    async def step(self, now: float) -> float:
        """Resume, poll, send; returns the seconds until something is due."""
        if self._team is not None and not self._team.try_account(f"economy:{self.profile}"):
            return self.settings.poll_s  # another desktop runs this profile's channel
        due = [self.settings.poll_s]
        open_rows = self._store.open_economy_batches(self.profile)
        for row in open_rows:
            if row.batch_id is None:
                await self._resume_sending(row, now)
            elif now >= self._next_poll.get(row.ref, 0.0):
                await self._poll(row, now)
            due.append(max(0.0, self._next_poll.get(row.ref, now) - now))
        self._beat(open_rows, now)
        if self.disabled is None:
            due.append(await self._maybe_send(now))
        return min(due)

    def _beat(self, rows: list[EconomyBatch], now: float) -> None:
        if rows and now - self._last_beat >= self.settings.beat_s:
            self._last_beat = now
            self._store.economy_heartbeat([t for r in rows for t in r.task_ids], now)

    async def _maybe_send(self, now: float) -> float:
        head = self._store.head_pending([self.profile], account=None, now=now, economy=True)
        if head is None:
            self._first_seen = None
            return self.settings.collect_s
        if self._first_seen is None:
            self._first_seen = now
        left = self._first_seen + self.settings.collect_s - now
        if left > 0:
            return left
        self._first_seen = None
        if self._guard is not None and self._guard.active and self._guard.check(head, now) is not None:
            return self.settings.collect_s  # a budget cap: the tasks stay pending, uncharged
        recs = self._store.claim([self.profile], self.settings.batch_size, lane=self.lane, account=None,
                                 owner=self._owner, now=now, economy=True)
        if recs:
            await self._send(recs, now)
        return 0.0 if len(recs) == self.settings.batch_size else self.settings.collect_s

    async def _send(self, recs: list[TaskRecord], now: float) -> None:
        for rec in recs:
            self._publish(rec)
        ref = uuid.uuid4().hex
        ids = [r.task_id for r in recs]
        self._store.add_economy_batch(ref, self.profile, ids, now)  # before the provider hears of it
        try:
            batch_id = await self.api.submit([self._resolve(r) for r in recs], ref, self.settings.window)
        except TaskFailure as exc:  # the provider answered with an error: no batch was made
            self._store.set_economy_batch(ref, self._clock(), state="failed", provider_status=exc.kind.value)
            self._back_to_queue(recs, LOG.economy_not_taken(kind=exc.kind.value, error=exc.message))
            if not exc.kind.retryable and not exc.refusal:  # no Batch API here (404, 400, auth)
                self.disabled = f"{exc.kind.value}: {exc.message}"
                self._on_unavailable(self.disabled)
            return
        except (httpx.HTTPError, OSError) as exc:  # maybe made, maybe not: resumed by its ref
            log.warning("%s: creating batch %s: %r; it is looked up by its ref next", self.lane, ref, exc)
            return
        self._store.set_economy_batch(ref, self._clock(), state="submitted", batch_id=batch_id)
        self._next_poll[ref] = self._clock() + self.settings.poll_s
        self._wait[ref] = self.settings.poll_s
        self.sent += 1
        for rec in recs:
            self._log(rec.task_id, self.lane, LOG.economy_sent(batch=batch_id, n=len(recs)))

    async def _resume_sending(self, row: EconomyBatch, now: float) -> None:
        """A row whose batch id never got stored: the provider's list says whether it made the batch."""
        batch_id = await self.api.find(row.ref)
        if batch_id is None:
            self._store.set_economy_batch(row.ref, now, state="failed", provider_status="never created")
            self._back_to_queue(self._running_of(row), LOG.economy_never_created())
            return
        self._store.set_economy_batch(row.ref, now, state="submitted", batch_id=batch_id)
        for tid in row.task_ids:
            self._log(tid, self.lane, LOG.economy_found_again(batch=batch_id))

    async def _poll(self, row: EconomyBatch, now: float) -> None:
        assert row.batch_id is not None
        status = await self.api.status(row.batch_id)
        if not status.final:
            wait = self._wait[row.ref] = next_poll_s(self._wait.get(row.ref), self.settings.poll_s, MOST_POLL_S)
            self._next_poll[row.ref] = self._clock() + wait
            if status.status != row.provider_status:
                self._store.set_economy_batch(row.ref, now, state="submitted", provider_status=status.status)
            return
        lines = await self.api.results(status) if (status.output_file_id or status.error_file_id) else []
        self._apply(row, status, lines)
        self._store.set_economy_batch(row.ref, self._clock(), state="done", provider_status=status.status)
        self._next_poll.pop(row.ref, None)
        self._wait.pop(row.ref, None)
        self.finished += 1

    # ------------------------------------------------------------------ results
    def _running_of(self, row: EconomyBatch) -> list[TaskRecord]:
        recs = []
        for tid in row.task_ids:
            rec = self._store.get(tid)
            if rec is not None and rec.state is TaskState.RUNNING and rec.lane == self.lane:
                recs.append(rec)
        return recs

    def _apply(self, row: EconomyBatch, status: BatchStatus, lines: list[BatchLine]) -> None:
        by_id = {ln.custom_id: ln for ln in lines}
        now = self._clock()
        for rec in self._running_of(row):
            line = by_id.get(rec.task_id)
            if rec.cancel_requested:
                self._done(rec, self._store.finish(
                    rec, TaskState.CANCELED, error_kind=ErrorKind.CANCELED.value,
                    error_message="canceled by operator while in a provider batch",
                    log=LOG.economy_canceled(batch=status.batch_id), now=now))
            elif line is not None and line.answer is not None:
                usage = answer_usage(line.answer, self._resolve(rec))
                self._done(rec, self._store.finish(
                    rec, TaskState.SUCCESS, result=line.answer, truncated=line.answer.truncated, usage=usage, now=now,
                    reasoning=answer_reasoning(line.answer), log=LOG.economy_success(batch=status.batch_id)))
            else:
                failure = line.failure if line is not None and line.failure is not None else TaskFailure(
                    ErrorKind.SERVER_ERROR, f"provider batch {status.batch_id} ended {status.status} with no line "
                    "for this task", not_started=status.status in ("failed", "cancelled"))
                self._done(rec, apply_failure(self._store, self._policy, rec, failure, now))

    def _back_to_queue(self, recs: list[TaskRecord], why: LogText) -> None:
        now = self._clock()
        for rec in recs:
            self._done(rec, self._store.finish(rec, TaskState.PENDING, refund_attempt=True, now=now,
                                               log=LOG.economy_requeued(reason=why)))

    def _done(self, old: TaskRecord, new: TaskRecord | None) -> None:
        if new is not None:
            self._publish(new)
