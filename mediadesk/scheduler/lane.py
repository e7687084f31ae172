"""One lane: a loop that reaps, admits, claims and starts, over one backend (an API endpoint or a web account).

Each round: reap stale heartbeats, ask admission (:mod:`~mediadesk.scheduler.admission`), claim head
pending tasks up to the free slots (:mod:`~mediadesk.scheduler.claims`), start them. A running
attempt's heartbeat is also where another process's cancel flag is seen. Final writes are
synchronous, so a cancellation never lands half-way through one. One module so an attempt's whole
life reads in one place; inputs come as :class:`LaneSettings` and :class:`LaneDeps`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import tzinfo
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from mediadesk.core.backend import (
    LaneBackend,
    TaskSpec,
    answer_hints,
    answer_reasoning,
    answer_usage,
    effective_health,
    is_truncated,
)
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.core.hours import ActiveHours, opens_at
from mediadesk.core.log_lines import LOG, LogText
from mediadesk.core.paths import evidence_name
from mediadesk.core.policy import RetryPolicy
from mediadesk.core.states import HeartbeatResult, ModelKind, TaskState
from mediadesk.core.token_rate import RateHints, conversation_text, expected_tokens
from mediadesk.core.usage import Usage
from mediadesk.scheduler.admission import Admission, BudgetCheck, DispatchGuard, Dispatching, FreeSlots, QuietHours
from mediadesk.scheduler.capacity import Capacity, Signal, signal_of
from mediadesk.scheduler.claims import AccountLease, Claims, EndpointSlots, SharedTokens, Solo, StoreClaim
from mediadesk.scheduler.events import EventBus, LaneStats, RunningInfo, TaskLogLine, task_changed
from mediadesk.scheduler.finalizer import Finalizer, apply_failure
from mediadesk.store.errors import StorageError
from mediadesk.store.taskstore import TaskRecord, TaskStore

if TYPE_CHECKING:
    from mediadesk.scheduler.budgets import BudgetStop
    from mediadesk.scheduler.team_link import TeamLink

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LaneTiming:
    heartbeat_s: float = 15.0
    stale_after_s: float = 90.0
    poll_s: float = 1.0
    kill_grace_s: float = 3.0


class StopReason(str, Enum):
    OPERATOR_CANCEL = "operator_cancel"
    LOST = "lost"              # the row was taken from us (reaped as stale): write nothing
    DEADLINE = "deadline"
    SHUTDOWN = "shutdown"
    STORAGE = "storage"        # the database failed: no outcome is written as a success
    LEASE_LOST = "lease_lost"  # team mode: another desktop took the account over; back to pending


@dataclass
class _Run:
    rec: TaskRecord
    started: float
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    reason: StopReason | None = None
    task: asyncio.Task[None] | None = None
    #: The attempt's slot in the callee's gate was given back.
    released: bool = False
    #: Tokens reserved for it in the callee's token gate (trued up when it ends).
    reserved: float = 0.0
    #: What the backend was given (set when the attempt starts).
    spec: TaskSpec | None = None
    #: Its supervising task took its first step (a task cancelled before that never runs its body).
    began: bool = False

    def request_stop(self, reason: StopReason) -> None:
        if self.reason is None:
            self.reason = reason
        self.stop.set()


class _Ctx:
    """RunContext handed to a backend for one attempt."""

    def __init__(self, lane: Lane, run: _Run, evidence_dir: Path) -> None:
        self.lane = lane.name
        self.evidence_dir = evidence_dir
        self._lane = lane
        self._run = run

    def log(self, text: LogText) -> None:
        self._lane.task_log(self._run.rec.task_id, text)


@dataclass(frozen=True)
class LaneDeps:
    """What every lane of one scheduler shares: the store and bus, the retry and timing rules, who
    claims (``owner``), how a record becomes a :class:`TaskSpec`, and the team seat if any."""

    store: TaskStore
    bus: EventBus
    policy: RetryPolicy
    timing: LaneTiming
    owner: str
    resolve: Callable[[TaskRecord], TaskSpec]
    evidence_root: Path
    clock: Callable[[], float] = time.time
    finalizer: Finalizer | None = None
    team: TeamLink | None = None
    #: The time zone of ``active_hours`` (tests pass one; None: the system's local time).
    tz: tzinfo | None = None
    #: Budgets: asked before each start whether the next task fits what is left (None: no caps).
    guard: DispatchGuard | None = None


@dataclass(frozen=True)
class LaneSettings:
    """One lane's own settings, from the config: its name and kind, the profiles it serves, its
    account (web), the attempt backstop, the longest a task may wait, and (team mode) the endpoint
    whose slots it reserves, that endpoint's limit and the shared token buckets it draws from."""

    name: str
    kind: ModelKind
    profiles: tuple[str, ...]
    account: str | None = None
    attempt_deadline_s: float | None = None
    enabled: bool = True
    max_wait_s: float | None = None
    #: How many attempts this lane may run at once: an API profile's share of its endpoint's gate,
    #: read from its owner (the scheduler's wiring). None: one (a web account).
    share: Callable[[], int] | None = None
    team_endpoint: str | None = None
    team_limit: Callable[[], int] | None = None
    team_buckets: tuple[tuple[str, float], ...] = ()
    #: The endpoint's shared tokens-per-minute bucket (name, tpm), drawn by each task's reservation.
    team_token_bucket: tuple[str, float] | None = None
    #: The profile's economy channel takes its non-urgent single turns: this lane takes the rest.
    leaves_economy: bool = False
    #: The longest one attempt may run (the profile's max_run_s): its lease or slot is held that long.
    team_hold_s: float = 0.0
    #: Quiet hours: the local-time windows in which this lane starts tasks (None: any time). A
    #: running task is never cut when a window ends.
    hours: ActiveHours | None = None


class Lane:
    """Dispatch for one backend. Web lanes have ``capacity == 1`` by construction (see web backend)."""

    def __init__(
        self, settings: LaneSettings, backend: LaneBackend, deps: LaneDeps, capacity_ctl: Capacity | None = None,
    ) -> None:
        name, store, bus = settings.name, deps.store, deps.bus
        self.settings = settings
        self.name = name
        self.kind = settings.kind
        self.profiles = settings.profiles
        self.backend = backend
        self.account = settings.account
        self.enabled = settings.enabled
        self.paused = False
        #: Paused since an earlier session (the pause was kept), not by an action in this one.
        self.paused_kept = False
        #: Holds on new claims (e.g. while the operator is asked whether to disable this account);
        #: they nest. Running attempts go on; see ``Scheduler.hold_account``.
        self.held = 0
        self.completed = 0
        self.durations: deque[float] = deque(maxlen=500)
        self._store = store
        self._bus = bus
        self._policy = deps.policy
        self._timing = deps.timing
        self._resolve = deps.resolve
        self._evidence_root = deps.evidence_root
        self._deadline_s = settings.attempt_deadline_s
        self._clock = deps.clock
        self._tz = deps.tz
        #: Budgets: a started task counts against what is left until its attempt ends (None: no caps).
        self._guard = deps.guard
        self._running: dict[str, _Run] = {}
        #: The callee's shared gate, breaker and rate buckets (an endpoint's is shared by its lanes).
        self.capacity_ctl = capacity_ctl
        self._max_wait_s = settings.max_wait_s
        self._backlog: tuple[tuple[str, int], ...] = ()
        self._backlog_at = float("-inf")
        self._finalizer = deps.finalizer or Finalizer(store, bus)
        self._wake = asyncio.Event()
        #: Set once the backend's start (e.g. a browser prewarm) has finished, well or not.
        self.started = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        #: Tokens the head pending task is expected to use (a token gate's next reservation).
        self._need = 0.0
        self._stopping = False
        self._last_reap = 0.0
        self.on_stats_dirty: Callable[[Lane], None] = lambda _lane: None
        #: Set once the database failed under this lane (see :meth:`halt`): it dispatches no more.
        self.storage_error: StorageError | None = None
        #: Told of a storage fault met by this lane (after it halted); the scheduler halts every lane.
        self.on_storage_error: Callable[[StorageError], None] = lambda _exc: None
        self._store_claim = StoreClaim(store, self.profiles, lane=name, account=self.account, owner=deps.owner,
                                       economy=False if settings.leaves_economy else None)
        self._claims = self._claims_of(deps.team)
        self._slots = FreeSlots(self._free_slots)
        self._budget = BudgetCheck(
            deps.guard, lambda now: store.head_pending(self.profiles, account=self.account, now=now),
            lambda: self.on_stats_dirty(self))
        #: Whether a task may start now, in this order (see ``_round``).
        self._admission = Admission([
            Dispatching(self.can_dispatch),
            QuietHours(self.opens_at, on_quiet=self._claims.let_go, on_change=lambda: self.on_stats_dirty(self)),
            self._slots,
            self._budget,
        ])

    def _claims_of(self, team: TeamLink | None) -> Claims:
        """Alone, the store's claim; in team mode, under the account's lease (web) or the endpoint's
        shared slots (API), held at least the longest one attempt may run."""
        s = self.settings
        if team is None:
            return Solo(self._store_claim, self._acquire_and_start)
        tokens = SharedTokens(team, s.team_buckets, s.team_token_bucket)
        if self.account is not None:
            return AccountLease(team, self.account, self._store_claim, self._acquire_and_start, tokens,
                                hold_s=s.team_hold_s, has_pending=lambda: self._store.has_pending(self.profiles),
                                busy=lambda: bool(self._running))
        assert s.team_endpoint is not None and s.team_limit is not None
        return EndpointSlots(team, s.team_endpoint, s.team_limit, self._store_claim, self._acquire_and_start, tokens,
                             hold_s=s.team_hold_s, next_due=lambda: self._store.next_due(self.profiles))

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Returns at once: the backend's own start (a browser prewarm can take seconds) runs in the
        lane's task, so the console appears immediately and API lanes never wait for browsers."""
        self._loop_task = asyncio.create_task(self._run(), name=f"lane:{self.name}")
        self._loop_task.add_done_callback(self._loop_done)

    async def _run(self) -> None:
        try:
            await self.backend.start()
        except Exception as exc:  # prewarm failure is not fatal: the backend reports its health
            log.warning("%s: backend start failed: %s", self.name, exc)
        health, said = self.backend.health()
        if health == "challenge" and self.capacity_ctl is not None:  # a bot check met while warming up
            self.capacity_ctl.notice(LOG.needs_a_person(account=str(self.account), error=str(said)))
        self.started.set()
        self.on_stats_dirty(self)
        await self._loop()

    def _loop_done(self, t: asyncio.Task[None]) -> None:
        if not t.cancelled() and t.exception() is not None:
            log.error("%s: lane loop died", self.name, exc_info=t.exception())

    async def stop(self) -> None:
        """Stop dispatching; interrupt running attempts (they go back to pending, attempt refunded)."""
        self._stopping = True
        for run in list(self._running.values()):
            run.request_stop(StopReason.SHUTDOWN)
        tasks = [r.task for r in self._running.values() if r.task is not None]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop_task
        with contextlib.suppress(Exception):
            await self.backend.stop()

    def wake(self) -> None:
        self._wake.set()

    # ------------------------------------------------------------------ state for the UI / CLI
    @property
    def capacity(self) -> int:
        return 1 if self.settings.share is None else self.settings.share()

    @property
    def budget_stop(self) -> BudgetStop | None:
        """The budget cap that keeps this lane from starting its next task (None: none does)."""
        return self._budget.stop

    @property
    def running_count(self) -> int:
        return len(self._running)

    def can_dispatch(self) -> bool:
        blocked = self._stopping or self.paused or self.held or not self.enabled or self.storage_error is not None
        return not blocked and self.backend.available()

    def opens_at(self, now: float) -> float | None:
        """None when the lane's active hours let it start a task at ``now``; else when they open."""
        return opens_at(self.settings.hours, now, self._tz)

    def halt(self, exc: StorageError) -> None:
        """The database failed: dispatch nothing more, and end the running attempts without
        writing their outcome (each goes back to pending if that can still be written)."""
        if self.storage_error is None:
            self.storage_error = exc
        for run in list(self._running.values()):
            run.request_stop(StopReason.STORAGE)
        self._wake.set()
        self.on_stats_dirty(self)

    def running_records(self) -> list[TaskRecord]:
        """The tasks this lane is running now, as claimed (prompt included)."""
        return [r.rec for r in self._running.values()]

    def stats(self) -> LaneStats:
        health, last_error = self.backend.health()
        health = effective_health(self.enabled, health, len(self._running))
        return LaneStats(
            lane=self.name,
            kind=self.kind,
            profiles=self.profiles,
            capacity=self.capacity,
            running=tuple(
                RunningInfo(r.rec.task_id, self.account, r.started, r.rec.heartbeat_at or r.started)
                for r in self._running.values()
            ),
            paused=self.paused,
            available=self.can_dispatch(),
            health=health,
            last_error=last_error,
            completed=self.completed,
            durations=tuple(self.durations),
            callee=None if self.capacity_ctl is None else self.capacity_ctl.view(),
            backlog=self._backlog_counts(),
            paused_kept=self.paused and self.paused_kept,
            active_hours=None if self.settings.hours is None else self.settings.hours.text,
            waits_until=self.opens_at(self._clock()),
            budget_stop=None if self.budget_stop is None else self.budget_stop.message(),
            budget_key=None if self.budget_stop is None else self.budget_stop.budget.key,
        )

    def _backlog_counts(self) -> tuple[tuple[str, int], ...]:
        """Pending tasks per priority channel, counted at most every 2 s: stats are published up
        to 4 times a second per lane, and counting a deep queue each time would load the loop."""
        now = self._clock()
        if now - self._backlog_at >= 2.0 and self.storage_error is None:
            self._backlog = tuple((ch.value, n) for ch, n in sorted(self._store.backlog(self.profiles).items()))
            self._backlog_at = now
        return self._backlog

    def is_running(self, task_id: str) -> bool:
        return task_id in self._running

    def interrupt(self, task_id: str) -> bool:
        """Operator cancel of a running task: stop it now (the DB flag is the cross-process path)."""
        run = self._running.get(task_id)
        if run is None:
            return False
        run.request_stop(StopReason.OPERATOR_CANCEL)
        return True

    def abandon(self, task_id: str) -> bool:
        """Team mode: the account's lease was taken over: stop the attempt and put the task back
        (refunded; if the other desktop already recovered the row, nothing is written)."""
        run = self._running.get(task_id)
        if run is None:
            return False
        run.request_stop(StopReason.LEASE_LOST)
        return True

    # ------------------------------------------------------------------ events
    def publish(self, rec: TaskRecord) -> None:
        self._bus.publish(task_changed(rec))

    def task_log(self, task_id: str, text: LogText) -> None:
        line = self._store.append_log(task_id, self.name, text)
        self._bus.publish(TaskLogLine(task_id, line.ts, self.name, line.message, text))

    # ------------------------------------------------------------------ the loop
    async def _loop(self) -> None:
        while not self._stopping and self.storage_error is None:
            self._wake.clear()
            now = self._clock()
            try:
                self._round(now)
                await self._idle(now)
            except StorageError as exc:
                self._storage_failed(exc)  # the loop ends: nothing more is read or written
            except Exception:
                # Never die silently with work queued (a run would wait for ever): log, try again.
                log.exception("%s: lane round failed; trying again in %.2f s", self.name, self._timing.poll_s)
                await asyncio.sleep(self._timing.poll_s)

    def _round(self, now: float) -> None:
        """Reap; then, when admission lets a task start, claim and start up to the free slots. While
        budgets apply, one task at a time, each start checked against what is left."""
        self._reap(now)
        if self._admission.hold(now) is not None:
            return
        if not self._budget.applies:
            self._claims.take(self._slots.free, now, self._need)
            return
        for _ in range(self._slots.free):
            if not self._claims.take(1, now, self._need):
                return
            if not self._claims.rechecks_in_round:
                self._wake.set()  # one started: check the next one at once, not after a poll
                return
            if self._budget(now) is not None:
                return

    def _acquire_and_start(self, rec: TaskRecord, now: float) -> None:
        reserved = 0.0
        if self.capacity_ctl is not None:
            reserved = self.capacity_ctl.acquire(now, self._need_of(rec) if self._tokens_limited() else 0.0)
            if self.capacity_ctl.tokens.limits:
                self._wake.set()  # the gate lets one through per round: look at the next task at once
        if self._guard is not None:
            self._guard.admit(rec)
        self._start(rec, reserved)

    # ------------------------------------------------------------------ token gate
    def take_economy_tasks(self) -> None:
        """The profile's economy channel is off (no Batch API): this lane takes its tasks too."""
        self._store_claim.economy = None
        self._wake.set()

    def _tokens_limited(self) -> bool:
        cap = self.capacity_ctl
        return cap is not None and (cap.tokens.limits_tokens or self.settings.team_token_bucket is not None)

    def _need_of(self, rec: TaskRecord) -> float:
        """Tokens to reserve for ``rec``: its prompt (history and instructions included) plus its
        ``max_tokens``, else its profile's recent p90 of completions, else a default."""
        assert self.capacity_ctl is not None
        spec = self._resolve(rec)
        return float(expected_tokens(
            conversation_text(spec.prompt, spec.history), spec.effective_instructions(), max_tokens=spec.max_tokens,
            recent_p90=self.capacity_ctl.tokens.completions.p90(rec.profile)))

    def _head_need(self, now: float) -> float:
        """The reservation of the task the next claim would take (0 when no token gate applies)."""
        if not self._tokens_limited():
            return 0.0
        head = self._store_claim.head(now)
        return 0.0 if head is None else self._need_of(head)

    def _storage_failed(self, exc: StorageError) -> None:
        log.debug("%s: storage failed: %s", self.name, exc)
        self.halt(exc)
        self.on_storage_error(exc)

    def _free_slots(self, now: float) -> int:
        """Slots this lane may fill now: its own share, within the callee's gate (and its token gate,
        for the head task's expected tokens, kept in ``_need`` for the round)."""
        self._need = self._head_need(now)
        free = self.capacity - len(self._running)
        if free > 0 and self.capacity_ctl is not None:
            free = min(free, self.capacity_ctl.free_slots(now, self._need))
        return free

    async def _idle(self, now: float) -> None:
        timeout = self._timing.poll_s
        if self.can_dispatch() and len(self._running) < self.capacity:
            due = self._store.next_due(self.profiles)
            if due is not None and due > now:
                timeout = min(timeout, due - now)
            if self.capacity_ctl is not None:
                change = self.capacity_ctl.next_change(now, self._need)
                if change is not None:
                    timeout = min(timeout, change)
            if self._claims.waits_until > now:
                timeout = min(timeout, self._claims.waits_until - now)
            opening = self.opens_at(now)
            if opening is not None:
                timeout = min(timeout, opening - now)
        # the reaper must run at least this often even when nothing wakes the lane
        timeout = min(timeout, max(0.01, self._timing.stale_after_s / 4))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), timeout=max(0.0, timeout))

    def _reap(self, now: float) -> None:
        # A cheap indexed query; throttled so a busy lane does not run it thousands of times a second.
        if now - self._last_reap < min(1.0, self._timing.stale_after_s / 10):
            return
        self._last_reap = now
        for rec in self._store.select_stale(self.profiles, now - self._timing.stale_after_s):
            run = self._running.get(rec.task_id)
            if run is not None and run.task is not None and not run.task.done():
                # Our own attempt, alive: its heartbeat is old because this process's loop stalled (a
                # loaded desktop), not because the attempt died (max_run_s bounds a hang). Failing it
                # would send its prompt again while the first may still be generating: beat instead.
                self._beat(run, now)
                continue
            if run is not None:
                run.request_stop(StopReason.LOST)  # our own attempt, already ending: write nothing more
            age = now - (rec.heartbeat_at or now)
            if rec.cancel_requested:  # as start-up recovery does: a canceled task is not retried
                self._published(self._store.finish(
                    rec, TaskState.CANCELED, error_kind=ErrorKind.CANCELED.value,
                    error_message=f"canceled (cancel was requested; no heartbeat for {age:.1f} s)",
                    log=LOG.recovered_cancel(), now=now,
                ), rec)
                continue
            self._fail_attempt(
                rec, TaskFailure(ErrorKind.HEARTBEAT_TIMEOUT, f"no heartbeat for {age:.1f} s"), now
            )
        if self._max_wait_s is not None:
            for rec in self._store.overdue(self.profiles, now - self._max_wait_s):
                self._finalizer.expire(rec, self._max_wait_s, now)

    def _start(self, rec: TaskRecord, reserved: float = 0.0) -> None:
        run = _Run(rec=rec, started=self._clock(), reserved=reserved)
        self._running[rec.task_id] = run
        self.publish(rec)
        run.task = asyncio.create_task(self._supervise(run), name=f"{self.name}:{rec.task_id}")
        run.task.add_done_callback(lambda task: self._cancelled_before_start(run, task))
        self.on_stats_dirty(self)

    def _cancelled_before_start(self, run: _Run, task: asyncio.Task[None]) -> None:
        """A run task cancelled before its first step (the loop torn down in the round that started
        it) never runs its body: settle it here as its shutdown path would (back to pending, the
        attempt refunded, its slot given back), or its row would stay running and the next start
        would charge it as an owner lost."""
        if run.began or not task.cancelled():
            return
        try:
            self._settle_shutdown(run)
        except StorageError as exc:
            self._storage_failed(exc)
        except Exception:
            log.exception("%s: settling %s after an early cancel failed", self.name, run.rec.task_id)
        finally:
            self._after_run(run)

    # ------------------------------------------------------------------ one attempt
    async def _supervise(self, run: _Run) -> None:
        run.began = True
        try:
            await self._attempt(run)
        except StorageError as exc:
            # The outcome could not be written: write nothing more for it (the row stays running
            # in the file; the next start recovers it) and halt dispatch.
            self._storage_failed(exc)
        finally:
            self._after_run(run)

    def _after_run(self, run: _Run) -> None:
        """The attempt is over, whichever way: its gate slot, shared slot and budget hold go back."""
        rec = run.rec
        self._release(run, Signal.NONE)
        if self._running.get(rec.task_id) is run:
            del self._running[rec.task_id]
        if self._guard is not None:
            self._guard.release(rec.task_id)
        self._claims.ended(rec.task_id)
        self.on_stats_dirty(self)
        self._wake.set()

    async def _attempt(self, run: _Run) -> None:
        rec = run.rec
        try:
            spec = run.spec = self._resolve(rec)
            ctx = _Ctx(self, run, self._evidence_root / evidence_name(rec.task_id))
            work: asyncio.Task[str] = asyncio.create_task(self.backend.run(spec, ctx), name=f"work:{rec.task_id}")
            try:
                await self._watch(run, work)
            except asyncio.CancelledError:
                run.request_stop(StopReason.SHUTDOWN)
                await self._end_work(work)
                raise
            except StorageError:  # a heartbeat could not be written
                run.request_stop(StopReason.STORAGE)
                await self._end_work(work)
                raise
            self._settle(run, work)
        except asyncio.CancelledError:
            self._settle_shutdown(run)
        except StorageError:
            raise
        except Exception as exc:  # a bug of ours: record it on the task, keep the lane alive
            log.exception("%s: supervising %s failed", self.name, rec.task_id)
            self._final_failure(run.rec, TaskFailure(ErrorKind.INTERNAL, f"internal error: {exc!r}"))

    async def _watch(self, run: _Run, work: asyncio.Task[str]) -> None:
        """Wait for the work, writing heartbeats; each tick is a cancel checkpoint."""
        hb = self._timing.heartbeat_s
        deadline = None if self._deadline_s is None else run.started + self._deadline_s
        next_beat = run.started + hb
        stop_wait = asyncio.create_task(run.stop.wait())
        try:
            while not work.done():
                now = self._clock()
                timeout = max(0.0, next_beat - now)
                if deadline is not None:
                    timeout = min(timeout, max(0.0, deadline - now))
                await asyncio.wait({work, stop_wait}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
                if work.done():
                    break
                if run.stop.is_set():
                    await self._end_work(work)
                    return
                now = self._clock()
                if deadline is not None and now >= deadline:
                    run.request_stop(StopReason.DEADLINE)
                    await self._end_work(work)
                    return
                if now >= next_beat:
                    next_beat = now + hb
                    self._beat(run, now)
        finally:
            stop_wait.cancel()

    def _beat(self, run: _Run, now: float) -> None:
        """Write the attempt's heartbeat; the answer may say it was taken from us or canceled."""
        beat = self._store.heartbeat(run.rec, now)
        if beat is HeartbeatResult.LOST:
            run.request_stop(StopReason.LOST)
        elif beat is HeartbeatResult.CANCEL_REQUESTED:
            run.request_stop(StopReason.OPERATOR_CANCEL)
        else:
            run.rec = _with_hb(run.rec, now)
            self.on_stats_dirty(self)

    async def _end_work(self, work: asyncio.Task[str]) -> None:
        """Cancel the backend's work and wait until it has really stopped (it kills what it must)."""
        if not work.done():
            work.cancel()
        with contextlib.suppress(BaseException):
            await work

    def _settle(self, run: _Run, work: asyncio.Task[str]) -> None:
        """Write the real outcome of the attempt."""
        rec = run.rec
        now = self._clock()
        reason = run.reason
        if reason is not None and work.done() and not work.cancelled():
            work.exception()  # retrieved: an outcome that came as the attempt was stopped is dropped
        if reason is StopReason.LOST:
            self._release(run, Signal.NONE)
            self.task_log(rec.task_id, LOG.attempt_abandoned())
            return
        if reason is StopReason.SHUTDOWN:
            self._settle_shutdown(run)
            return
        if reason is StopReason.LEASE_LOST:  # never stored: another desktop runs the account now
            self._settle_shutdown(run, LOG.interrupted_taken_over())
            return
        if reason is StopReason.STORAGE:  # never a success: the database cannot be trusted to keep it
            with contextlib.suppress(StorageError):
                self._settle_shutdown(run, LOG.interrupted_database_failed())
            return
        if reason is StopReason.DEADLINE:
            failure = TaskFailure(ErrorKind.TIMEOUT, f"attempt exceeded {self._deadline_s:.0f} s")
            self._fail_attempt(rec, failure, now, self._release(run, signal_of(failure), failure))
            return
        if reason is not None or work.cancelled():
            self._release(run, Signal.NONE)
            who = LOG.by_operator() if reason is StopReason.OPERATOR_CANCEL else LOG.attempt_was_cancelled()
            said = LOG.canceled_while_running(who=who)
            new = self._store.finish(
                rec, TaskState.CANCELED, error_kind=ErrorKind.CANCELED.value,
                error_message=said.english(), log=said, now=now,
            )
            self._published(new, rec)
            if new is not None:
                self._finalizer.after_final(new)
            return
        exc = work.exception()
        if exc is None:
            text = work.result()
            usage = None if run.spec is None else answer_usage(text, run.spec)
            self._release(run, Signal.SUCCESS, usage=usage, hints=answer_hints(text))
            cut = is_truncated(text)
            note = LOG.truncated_at_limit() if cut else ""
            new = self._store.finish(
                rec, TaskState.SUCCESS, result=text, log=LOG.success(seconds=f"{now - run.started:.2f}", more=note),
                now=now,
                truncated=cut, usage=usage, reasoning=answer_reasoning(text),
            )
            if new is not None:
                self.completed += 1
                self.durations.append(now - run.started)
            self._published(new, rec)
            return
        if not isinstance(exc, TaskFailure):
            log.error("%s: backend raised %r on %s", self.name, exc, rec.task_id, exc_info=exc)
            exc = TaskFailure(ErrorKind.INTERNAL, f"unexpected error: {exc!r}")
        self._fail_attempt(rec, exc, now, self._release(run, signal_of(exc), exc))

    def _release(self, run: _Run, signal: Signal, failure: TaskFailure | None = None, *,
                 usage: Usage | None = None, hints: RateHints | None = None) -> float | None:
        """Give the attempt's slot back to the callee's gate, once, telling it how the call went (and
        its token gate what the attempt used). Returns the callee's pause after a refusal."""
        if run.released or self.capacity_ctl is None:
            run.released = True
            return None
        run.released = True
        note = self.capacity_ctl.settle_tokens(signal, run.reserved, profile=run.rec.profile, usage=usage,
                                               hints=hints, next_need=self._need)
        if note is not None:
            self.task_log(run.rec.task_id, LOG.rate_limits(why=note))
        self._claims.true_up(run.reserved, signal, usage, None if failure is None else failure.retry_after_s)
        return self.capacity_ctl.release(
            signal,
            retry_after_s=None if failure is None else failure.retry_after_s,
            detail="" if failure is None else (
                failure.message if signal is Signal.MISCONFIGURED else f"{failure.kind.value}: {failure.message}"),
            kind=None if failure is None else failure.kind.value,
        )

    def _settle_shutdown(self, run: _Run, note: LogText | None = None) -> None:
        """Graceful stop: back to pending for the next start, the interrupted attempt refunded."""
        self._release(run, Signal.NONE)
        rec = run.rec
        # refund: the attempt did not fail, the app closed
        new = self._store.finish(rec, TaskState.PENDING, not_before=0.0, log=note or LOG.interrupted_by_shutdown(),
                                 refund_attempt=True)
        self._published(new, rec)

    def _fail_attempt(self, rec: TaskRecord, failure: TaskFailure, now: float, pause: float | None = None) -> None:
        if failure.kind is ErrorKind.CHALLENGE and self.capacity_ctl is not None:
            # not a failure of the task (it goes back uncharged): the account waits for a person
            self.capacity_ctl.notice(LOG.needs_a_person(account=str(self.account), error=failure.message))
        quarantinable = self.kind is ModelKind.WEB
        new = apply_failure(self._store, self._policy, rec, failure, now, pause=pause,
                            quarantinable=quarantinable, capacity=self.capacity_ctl)
        self._published(new, rec)
        if new is not None and new.state == TaskState.FAILED.value:
            self._finalizer.after_final(new)

    def _final_failure(self, rec: TaskRecord, failure: TaskFailure) -> None:
        new = self._store.finish(
            rec, TaskState.FAILED, error_kind=failure.kind.value, error_message=failure.message,
            log=LOG.failed(error=failure.message),
        )
        self._published(new, rec)

    def _published(self, new: TaskRecord | None, old: TaskRecord) -> None:
        if new is None:
            log.info("%s: %s changed under us (CAS lost); nothing written", self.name, old.task_id)
            return
        self.publish(new)


def _with_hb(rec: TaskRecord, now: float) -> TaskRecord:
    return replace(rec, heartbeat_at=now)
