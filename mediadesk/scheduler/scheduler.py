"""The scheduler: lanes built from the config, recovery at start, operator actions, one event stream.

Why one module of ~570 lines: this is the one facade both faces (console and CLI) call; every
operator action (submit, cancel, retry, pause, switches, exceptions) is a short method here that
delegates to the lanes, capacities, finalizer and store, so a face never reaches past it.

Two kinds of lane over one durable table: one API lane per API profile (its semaphore is the
profile's concurrency, 1..5) and one web lane per account (exactly one run at a time). The console
and the headless CLI drive this same object.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import getpass
import logging
import os
import socket
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from mediadesk.config.model import API_CONCURRENCY_MAX, AccountConfig, AppConfig, ProfileConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import LaneBackend, TaskSpec
from mediadesk.core.batch import BatchRow, assign_task_ids
from mediadesk.core.breaker import BreakerConfig
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.core.rate import RateGates
from mediadesk.core.states import ModelKind, TaskState
from mediadesk.core.team_policy import beat_interval_s
from mediadesk.providers.web.profile_lock import InstanceLock
from mediadesk.scheduler.capacity import Capacity, CapacityView, Probe
from mediadesk.scheduler.events import (
    AccountChanged,
    EventBus,
    Notice,
    ProfileChanged,
    StorageFailed,
    TaskChanged,
    TasksAdded,
    task_changed,
)
from mediadesk.scheduler.finalizer import Finalizer, apply_failure
from mediadesk.scheduler.lane import Lane, LaneTiming
from mediadesk.scheduler.team_link import TeamLink
from mediadesk.store import AddResult, DatabaseLock, NewTask, TaskRecord, TaskStore, open_store
from mediadesk.store.errors import StorageError
from mediadesk.store.team import DesktopInfo, TeamCoordinator

log = logging.getLogger(__name__)

BackendFactory = Callable[[ProfileConfig, AccountConfig | None], LaneBackend]


#: Failures a person must judge: they land in the Exceptions view.
EXCEPTION_KINDS = frozenset({
    ErrorKind.NEEDS_LOGIN.value, ErrorKind.QUARANTINED.value, ErrorKind.EXPIRED.value, ErrorKind.SITE_ERROR.value,
    ErrorKind.FALLBACK_EXHAUSTED.value, ErrorKind.OUT_OF_CREDIT.value, ErrorKind.CONFIG.value,
    ErrorKind.CONVERSATION_BROKEN.value,
})
RESOLUTIONS = ("retry", "reroute", "answer", "drop")


class QueueFullError(ValueError):
    """A batch would pass a profile's ``max_pending``: refused whole."""


def _host(url: str) -> str | None:
    return urlsplit(url).hostname


@dataclass(frozen=True)
class AccountBlock:
    """Why one web account takes no task now, and what would change that. ``action``: "enable"
    (switched off by the operator), "login" (an operator must log in), "wait" (it recovers by itself:
    breaker probe, profile held by someone else, a login in progress), "fix" (something to repair),
    "none" (it can take tasks)."""

    account: str
    reason: str
    action: str


def _at(ts: float | None) -> str:
    if ts is None:
        return "?"
    return time.strftime("%H:%M:%S", time.localtime(ts))


@dataclass(frozen=True)
class ProfileView:
    name: str
    kind: str
    need_empty_prompt: bool
    concurrency: int  # web: 1 per account, fixed


class Scheduler:
    def __init__(
        self,
        config: AppConfig,
        workspace: Workspace,
        *,
        bus: EventBus | None = None,
        backend_factory: BackendFactory | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self.workspace = workspace
        self.bus = bus or EventBus()
        self._factory = backend_factory
        self._clock = clock
        self._profiles = {p.name: p for p in config.profiles}
        self._nep: dict[str, bool] = {p.name: p.need_empty_prompt for p in config.profiles}
        self._conc: dict[str, int] = {p.name: p.api_concurrency for p in config.profiles if p.kind == "api"}
        # SQLite: one scheduler per database file. PostgreSQL (team mode): several desktops share the
        # database by design, so no database lock (the data-dir InstanceLock below stays).
        self._dblock: DatabaseLock | None = DatabaseLock(workspace.db_path) if workspace.db_url is None else None
        # One MediaDesk per data dir too (browser profiles live there), even with --db elsewhere.
        self._dirlock = InstanceLock(workspace.data_dir)
        self._store: TaskStore | None = None
        #: Team mode (PostgreSQL: several desktops on one queue): this desktop's seat, else None.
        self.team: TeamLink | None = None
        self._team_conn: Any = None
        self.lanes: list[Lane] = []
        #: Gates, breakers and rate buckets: one per API endpoint ("endpoint name") and one per web
        #: account ("account:<name>").
        self.capacities: dict[str, Capacity] = {}
        self._endpoint_of: dict[str, str] = {}
        rates = config.rates
        self._rates = RateGates(rates.global_rpm, dict(rates.per_domain)) if (
            rates.global_rpm or rates.per_domain) else None
        self._finalizer: Finalizer | None = None
        self._dirty: set[str] = set()
        self._ticker: asyncio.Task[None] | None = None
        self._checkpointing: asyncio.Future[None] | None = None
        self._terminal_event = asyncio.Event()
        self._account_health: dict[str, tuple[str, str | None]] = {}
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.started = False
        #: The storage fault that stopped dispatch for good (see :meth:`_storage_failed`), if any.
        self.storage_error: StorageError | None = None

    # ------------------------------------------------------------------ lifecycle
    @property
    def store(self) -> TaskStore:
        if self._store is None:
            raise RuntimeError("Scheduler not opened: call open() or start() first")
        return self._store

    def open(self) -> None:
        """Take the database (one scheduler per database) and recover what a crash left running."""
        if self._store is not None:
            return
        self.workspace.ensure()
        if self._dblock is not None:
            self._dblock.acquire()  # DatabaseBusyError for a second scheduler
        try:
            self._dirlock.acquire()  # InstanceLockedError for a second one on this data dir (another --db)
            self._store = open_store(self.workspace.location)
            for name, (nep, conc) in self._store.profile_settings().items():
                if name in self._nep and nep is not None:
                    self._nep[name] = nep
                if name in self._conc and conc is not None:
                    self._conc[name] = max(1, min(API_CONCURRENCY_MAX, conc))
            if self._dblock is not None:
                self._recover()
            else:
                # PostgreSQL: a 'running' row may belong to another desktop that is alive and running it.
                # Only the rows of desktops the database knows to be dead are recovered (at join and on
                # every beat); the lanes' stale-heartbeat reaper stays as the backstop.
                self._join_team(self._store)
        except BaseException:
            self._close_team()
            if self._dblock is not None:
                self._dblock.release()
            self._dirlock.release()
            raise

    async def start(self) -> None:
        self.open()
        self._build_lanes()
        if self.team is not None:
            self.team.start()
        await asyncio.gather(*(lane.start() for lane in self.lanes))
        self._ticker = asyncio.create_task(self._stats_loop(), name="scheduler:stats")
        self.started = True
        for lane in self.lanes:
            self._dirty.add(lane.name)

    async def wait_ready(self) -> None:
        """Wait until every lane's backend has started (browsers prewarmed); benchmarks use it so a
        makespan does not include browser start-up (wrap it in ``asyncio.timeout`` to bound it)."""
        await asyncio.gather(*(lane.started.wait() for lane in self.lanes))

    async def stop(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
            self._ticker = None
        if self._checkpointing is not None:
            with contextlib.suppress(Exception):
                await self._checkpointing
        await asyncio.gather(*(lane.stop() for lane in self.lanes), return_exceptions=True)
        if self.team is not None:  # after the lanes: their running tasks are back in the queue
            await self.team.leave()
            self._close_team()
        await asyncio.gather(*(cap.close() for cap in self.capacities.values()), return_exceptions=True)
        self.capacities = {}
        self.lanes = []
        if self._store is not None:
            try:
                self._store.close()
            except StorageError as exc:  # the last log lines could not be written, or the file is gone
                self._storage_failed(exc)
            except Exception:  # never keep the locks because a last write failed
                log.exception("scheduler: closing the database failed")
            finally:
                self._store = None
        if self._dblock is not None:
            self._dblock.release()
        self._dirlock.release()
        self.started = False

    async def __aenter__(self) -> Scheduler:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _join_team(self, store: TaskStore) -> None:
        hb = self.config.heartbeat
        self._team_conn = store.connect_shared()
        coord = TeamCoordinator(
            self._team_conn, owner=self.owner, host=socket.gethostname(), operator=_operator(),
            pid=os.getpid(), stale_after_s=hb.stale_after_s, dialect="postgresql",
            fault=getattr(store, "team_fault", None),
        )
        self.team = TeamLink(
            coord, accounts=tuple(a.name for a in self.config.accounts),
            heartbeat_s=beat_interval_s(hb.stale_after_s, hb.interval_s),
            retry_s=self.config.scheduler.poll_interval_s, on_dead_owners=self._recover_owners,
            on_lost_account=self._lost_account, on_clock_skew=self._clock_skew,
        )
        self.team.join()
        if self._clock is time.time:  # team mode runs on the database's clock (a test may bring its own)
            self._clock = self.team.now

    def _close_team(self) -> None:
        self.team = None
        conn, self._team_conn = self._team_conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def _recover_owners(self, owners: list[str]) -> None:
        """Running tasks of desktops the database knows to be dead (no beat for stale_after_s)."""
        if self._store is not None and self.storage_error is None:
            self._recover(set(owners))

    def _clock_skew(self, offset_s: float) -> None:
        self._capacity_notice(f"this computer's clock is {-offset_s:+.0f} s off the database server's: "
                              "the team uses the database's clock; check this computer's time settings")

    def _lost_account(self, account: str) -> None:
        for lane in self.lanes:
            if lane.account == account:
                for rec in lane.running_records():
                    lane.abandon(rec.task_id)
        self._capacity_notice(f"account {account}: its lease was taken by another desktop; its run was stopped")

    def desktops(self) -> list[DesktopInfo]:
        """The desktops working this queue (team mode), as of the last beat; [] on SQLite."""
        return [] if self.team is None else self.team.desktops()

    def _recover(self, owners: set[str] | None = None) -> None:
        """SQLite: we hold the database lock, so any 'running' row has no live owner: recover it now
        instead of waiting out the stale threshold, by the same retry rules. PostgreSQL: only the rows
        of ``owners`` (dead desktops)."""
        store = self.store
        policy = self.config.retry.policy()
        now = self._clock()
        for rec in store.running():
            if owners is not None and rec.owner not in owners:
                continue
            if rec.cancel_requested:
                store.finish(
                    rec, TaskState.CANCELED, error_kind=ErrorKind.CANCELED.value,
                    error_message="canceled (cancel was requested before a crash)",
                    log="recovered after a crash: cancel had been requested", now=now,
                )
            else:
                apply_failure(
                    store, policy, rec,
                    TaskFailure(ErrorKind.OWNER_LOST, f"the process that ran it ({rec.owner}) is gone"), now,
                )

    def _backend(self, profile: ProfileConfig, account: AccountConfig | None) -> LaneBackend:
        if self._factory is not None:
            return self._factory(profile, account)
        from mediadesk.scheduler.backends import default_backend

        return default_backend(self.config, self.workspace, profile, account)

    def _build_lanes(self) -> None:
        hb = self.config.heartbeat
        timing = LaneTiming(
            heartbeat_s=hb.interval_s,
            stale_after_s=hb.stale_after_s,
            poll_s=self.config.scheduler.poll_interval_s,
            kill_grace_s=self.config.scheduler.kill_grace_s,
        )
        policy = self.config.retry.policy()
        acc_state = self.store.account_states()
        self._finalizer = Finalizer(self.store, self.bus, self._profiles, self._wake_profile)
        common = dict(
            store=self.store, bus=self.bus, policy=policy, timing=timing, owner=self.owner, resolve=self._resolve,
            evidence_root=self.workspace.evidence_dir, clock=self._clock, finalizer=self._finalizer,
        )
        for ep in self.config.api_endpoints():
            cap: Capacity | None = None
            for name in ep.profiles:
                prof = self._profiles[name]
                backend = self._backend(prof, None)
                backend.capacity = self._conc[prof.name]
                if cap is None:
                    cap = self._capacity(ep.name, "endpoint", self._endpoint_limit(ep.name), ep.adaptive,
                                         _host(ep.base_url), getattr(backend, "probe", None), ep.rpm)
                    self.capacities[ep.name] = cap
                # timeout_s is the longest silence (the backend's read timeout); the whole attempt is
                # bounded by max_run_s, which the backend enforces; the lane's deadline is a backstop.
                deadline = getattr(backend, "attempt_deadline_s", None) or prof.api_max_run_s + 15.0
                lane = Lane(
                    name=f"api:{prof.name}", kind=ModelKind.API, profiles=(prof.name,), backend=backend,
                    attempt_deadline_s=deadline, capacity_ctl=cap, max_wait_s=prof.max_wait_s,
                    team=self.team, team_endpoint=ep.name,
                    team_limit=functools.partial(self._endpoint_limit, ep.name),
                    team_buckets=self._shared_buckets(_host(ep.base_url), (f"endpoint:{ep.name}", ep.rpm)),
                    team_hold_s=prof.api_max_run_s,
                    **common,  # type: ignore[arg-type]
                )
                cap.attach(lane)
                self._endpoint_of[prof.name] = ep.name
                self._add_lane(lane)
        for acc in self.config.accounts:
            prof = self._profiles[acc.profile]
            enabled = acc_state[acc.name][0] if acc.name in acc_state else acc.enabled
            backend = self._backend(prof, acc)
            deadline = getattr(backend, "attempt_deadline_s", None)
            # One run per account, always (a chat account allows one generation at a time): the
            # account's gate is 1 and never adaptive; it carries the account's breaker and rates.
            cap = self._capacity(f"account {acc.name}", "account", 1, False, getattr(backend, "domain", None),
                                 getattr(backend, "probe", None))
            self.capacities[f"account:{acc.name}"] = cap
            lane = Lane(
                name=f"web:{acc.name}", kind=ModelKind.WEB, profiles=(prof.name,), backend=backend,
                account=acc.name, attempt_deadline_s=deadline, enabled=enabled, capacity_ctl=cap,
                max_wait_s=prof.max_wait_s, team=self.team,
                team_buckets=self._shared_buckets(getattr(backend, "domain", None)),
                team_hold_s=getattr(getattr(backend, "adapter", None), "max_run_s", None) or deadline or 0.0,
                **common,  # type: ignore[arg-type]
            )
            cap.attach(lane)
            self._add_lane(lane)

    def _shared_buckets(self, domain: str | None, *own: tuple[str, float]) -> tuple[tuple[str, float], ...]:
        """Team mode: the token buckets every desktop shares for a callee (requests per minute): the
        endpoint's own ``rpm``, ``[rates] global_rpm`` and the callee's domain in ``[rates.per_domain]``."""
        rates = self.config.rates
        key = None if domain is None else domain.strip().lower()
        per_domain = {d.strip().lower(): rpm for d, rpm in rates.per_domain.items()}
        out = [*own, ("global", rates.global_rpm)]
        if key is not None and key in per_domain:
            out.append((f"domain:{key}", per_domain[key]))
        return tuple((name, rpm) for name, rpm in out if rpm > 0)

    def _capacity(
        self, name: str, kind: str, limit: int, adaptive: bool, domain: str | None, probe: Probe | None,
        rpm: float = 0.0,
    ) -> Capacity:
        b = self.config.breaker
        return Capacity(
            name, kind=kind, limit=limit, adaptive=adaptive,
            breaker=BreakerConfig(window=b.window, failure_rate=b.failure_rate, min_calls=b.min_calls,
                                  cooldown_s=b.cooldown_s, probe_interval_s=b.probe_interval_s),
            rates=self._rates, domain=domain, backoff_base_s=self.config.retry.backoff_base_s,
            backoff_max_s=self.config.retry.backoff_max_s, clock=self._clock, probe=probe, own_rpm=rpm,
            on_event=self._capacity_notice,
        )

    def _endpoint_limit(self, endpoint: str) -> int:
        """An explicit endpoint's gate is its own ``concurrency``; an implicit one (profiles giving
        base_url themselves) is the smallest concurrency among its profiles, console edits included."""
        for ep in self.config.api_endpoints():
            if ep.name == endpoint:
                if ep.implicit:
                    return min(self._conc[p] for p in ep.profiles)
                return ep.concurrency
        raise KeyError(endpoint)

    def endpoint_limit(self, endpoint: str) -> int:
        """The configured gate of the API endpoint named ``endpoint`` (console edits included)."""
        return self._endpoint_limit(endpoint)

    def _capacity_notice(self, message: str) -> None:
        log.info("%s", message)
        self.bus.publish(Notice(self._clock(), message))

    def _add_lane(self, lane: Lane) -> None:
        lane.on_stats_dirty = self._mark_dirty
        lane.on_storage_error = self._storage_failed
        self.lanes.append(lane)

    def _mark_dirty(self, lane: Lane) -> None:
        self._dirty.add(lane.name)

    async def _stats_loop(self) -> None:
        """Coalesced lane stats (at most ~4/s), plus a full refresh every 2 s for heartbeat ages; the
        group commit of log lines with the database identity check (each 0.25 s) and a checkpoint
        every 2 s. It never dies: a storage fault halts dispatch, anything else is logged."""
        tick = 0
        while True:
            await asyncio.sleep(0.25)
            tick += 1
            if self.storage_error is None:
                try:
                    self.store.flush()  # verifies the file first
                    if tick % 8 == 0 and (self._checkpointing is None or self._checkpointing.done()):
                        self._checkpointing = asyncio.ensure_future(asyncio.to_thread(self.store.checkpoint))
                        self._checkpointing.add_done_callback(self._checkpoint_done)
                except StorageError as exc:
                    self._storage_failed(exc)
                except Exception:
                    log.exception("scheduler: flush or checkpoint failed; trying again")
            for lane in self.lanes:
                if lane.name in self._dirty or tick % 8 == 0:
                    try:
                        self.bus.publish(lane.stats())
                        self._sync_account_health(lane)
                    except StorageError as exc:
                        self._storage_failed(exc)
                    except Exception:
                        log.exception("scheduler: stats of %s failed", lane.name)
            self._dirty.clear()

    def _checkpoint_done(self, fut: asyncio.Future[None]) -> None:
        if fut.cancelled():
            return
        exc = fut.exception()
        if isinstance(exc, StorageError):
            self._storage_failed(exc)
        elif exc is not None:
            log.warning("scheduler: checkpoint failed: %s", exc)

    def _storage_failed(self, exc: StorageError) -> None:
        """A storage fault (file lost, disk full, I/O error) stops dispatch for good, once: every
        lane halts (running attempts end, none written as a success), what is stored is kept, and
        :class:`StorageFailed` tells the faces (the CLI exits 2, the console shows it)."""
        if self.storage_error is not None:
            return
        self.storage_error = exc
        log.info("storage failed, dispatch halted: %s", exc)  # the faces report it (StorageFailed)
        for lane in self.lanes:
            lane.halt(exc)
            self._dirty.add(lane.name)
        self._terminal_event.set()
        self.bus.publish(StorageFailed(self._clock(), exc.kind, exc.where, str(exc), exc.detail))

    @contextlib.contextmanager
    def _storage_guard(self) -> Iterator[None]:
        """An operator's write that meets a storage fault stops dispatch like any other (and the
        faces hear of it), then raises to the caller."""
        try:
            yield
        except StorageError as exc:
            self._storage_failed(exc)
            raise

    def _sync_account_health(self, lane: Lane) -> None:
        if lane.account is None:
            return
        health = lane.backend.health()
        if self._account_health.get(lane.account) != health:
            self._account_health[lane.account] = health
            if self.storage_error is None:
                self.store.set_account_health(lane.account, health[0], health[1], lane.enabled)
            self.bus.publish(AccountChanged(lane.account, lane.enabled, health[0], health[1]))

    def _resolve(self, rec: TaskRecord) -> TaskSpec:
        prof = self._profiles[rec.profile]
        instructions = rec.system if rec.system is not None else prof.instructions
        history = self.store.history(rec.route_key, rec.seq) if rec.route_key is not None else ()
        return TaskSpec(
            task_id=rec.task_id, profile=rec.profile, prompt=rec.prompt, attempt=rec.attempt,
            instructions=instructions, need_empty_prompt=self._nep[rec.profile], route_key=rec.route_key,
            history=history,
        )

    # ------------------------------------------------------------------ submit / operator actions
    def profile_names(self) -> list[str]:
        return list(self._profiles)

    def submit(self, tasks: Sequence[NewTask]) -> AddResult:
        """Add tasks in one transaction. A batch that would take a profile past its ``max_pending``
        is refused whole (:class:`QueueFullError`, saying the cap and how many rows fit)."""
        for t in tasks:
            if t.profile not in self._profiles:
                raise ValueError(f"unknown profile {t.profile!r}")
        self.check_caps(tasks)
        with self._storage_guard():
            res = self.store.add_tasks(tasks)
        if res.added:
            self.bus.publish(TasksAdded(res.added))
            profiles = {t.profile for t in tasks}
            for lane in self.lanes:
                if profiles.intersection(lane.profiles):
                    lane.wake()
        return res

    def tasks_from_rows(self, rows: Sequence[BatchRow], batch: str | None = None,
                        seen: dict[tuple[str, str, str], int] | None = None) -> list[NewTask]:
        """Parsed batch rows -> tasks with deterministic ids (profile, instructions, prompt and
        occurrence), so re-submitting the same file never adds a task twice. ``seen``: see
        :func:`~mediadesk.core.batch.assign_task_ids` (a file converted in slices)."""
        return [
            self.new_task(tid, r.profile, r.prompt, system=r.system, priority=r.priority,
                          route_key=r.route_key, batch=batch)
            for tid, r in assign_task_ids(rows, seen)
        ]

    def submit_rows(self, rows: Sequence[BatchRow], batch: str | None = None) -> tuple[AddResult, list[str]]:
        """Submit parsed rows in one transaction; returns the result and the task ids in row order.
        Both faces (console and CLI) submit through here."""
        tasks = self.tasks_from_rows(rows, batch)
        return self.submit(tasks), [t.task_id for t in tasks]

    def check_caps(self, tasks: Sequence[NewTask]) -> None:
        """Raise :class:`QueueFullError` if ``tasks`` would take a profile past its ``max_pending``."""
        wanted: dict[str, set[str]] = {}
        for t in tasks:
            wanted.setdefault(t.profile, set()).add(t.task_id)
        problems = []
        for profile, ids in wanted.items():
            cap = self._profiles[profile].max_pending
            if cap is None:
                continue
            known = self.store.states_of(list(ids))
            new = len(ids) - len(known)
            pending = self.store.pending_count([profile])
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

    def new_task(
        self, task_id: str, profile: str, prompt: str, *, system: str | None = None, priority: int = 0,
        route_key: str | None = None, batch: str | None = None,
    ) -> NewTask:
        prof = self._profiles.get(profile)
        if prof is None:
            raise ValueError(f"unknown profile {profile!r}")
        return NewTask(task_id, profile, prof.kind, prompt, system, priority, route_key, batch)

    def cancel(self, task_ids: Iterable[str]) -> int:
        """Pending -> canceled at once; running -> flag + immediate interrupt of our own attempt."""
        n = 0
        with self._storage_guard():
            recs = self.store.request_cancel(list(task_ids))
        for rec in recs:
            n += 1
            if rec.state == TaskState.CANCELED.value:
                self._publish(rec)
            else:
                for lane in self.lanes:
                    if lane.interrupt(rec.task_id):
                        break
        return n

    def retry(self, task_ids: Iterable[str]) -> int:
        with self._storage_guard():
            recs = self.store.requeue(list(task_ids))
        for rec in recs:
            self._publish(rec)
        self._wake_profiles({r.profile for r in recs})
        return len(recs)

    def pause(self, kind: str | None = None, paused: bool = True) -> None:
        for lane in self.lanes:
            if kind is None or lane.kind == kind or lane.name == kind:
                lane.paused = paused
                lane.wake()
                self._dirty.add(lane.name)

    def set_account_enabled(self, account: str, enabled: bool, *, cancel_running: bool = False) -> None:
        """The operator's switch (persisted). Disabling stops new dispatch at once; the running
        task finishes unless ``cancel_running``."""
        lane = self._lane_of_account(account)
        self.store.set_account_enabled(account, enabled)
        lane.enabled = enabled
        if not enabled and cancel_running:
            self.cancel([r.task_id for r in lane.stats().running])
        lane.wake()
        self._dirty.add(lane.name)
        health, err = lane.backend.health()
        self.bus.publish(AccountChanged(account, enabled, health, err))

    def hold_account(self, account: str) -> list[TaskRecord]:
        """Stop new claims for ``account`` while the operator decides about it (the "disable this
        busy account?" question), and return the tasks it is running now: with the hold on, these
        are the only ones it can be running until :meth:`release_account`. Holds nest."""
        lane = self._lane_of_account(account)
        lane.held += 1
        self._dirty.add(lane.name)
        return lane.running_records()

    def release_account(self, account: str) -> None:
        """End one :meth:`hold_account`; the account takes work again if it is enabled."""
        lane = self._lane_of_account(account)
        lane.held = max(0, lane.held - 1)
        lane.wake()
        self._dirty.add(lane.name)

    def set_profile_setting(
        self, profile: str, *, need_empty_prompt: bool | None = None, concurrency: int | None = None
    ) -> None:
        prof = self._profiles.get(profile)
        if prof is None:
            raise ValueError(f"unknown profile {profile!r}")
        if concurrency is not None:
            if prof.kind != "api":
                raise ValueError("web profiles run one task per account; concurrency is not settable")
            if not 1 <= concurrency <= API_CONCURRENCY_MAX:
                raise ValueError(f"concurrency must be 1..{API_CONCURRENCY_MAX}")
        self.store.set_profile_setting(profile, need_empty_prompt=need_empty_prompt, concurrency=concurrency)
        if need_empty_prompt is not None:
            self._nep[profile] = need_empty_prompt
        if concurrency is not None:
            self._conc[profile] = concurrency
            for lane in self.lanes:
                if lane.kind == "api" and profile in lane.profiles:
                    lane.backend.capacity = concurrency
                    lane.wake()
                    self._dirty.add(lane.name)
            ep = self._endpoint_of.get(profile)
            if ep is not None and ep in self.capacities:
                self.capacities[ep].set_limit(self._endpoint_limit(ep))
        self.bus.publish(ProfileChanged(profile, self._nep[profile], self.profile_view(profile).concurrency))

    def account_states(self) -> dict[str, tuple[bool, str, str | None]]:
        """{account: (enabled, health, last error)} as persisted (the console's switches)."""
        return self.store.account_states()

    def profile_view(self, profile: str) -> ProfileView:
        prof = self._profiles[profile]
        return ProfileView(
            name=prof.name, kind=prof.kind, need_empty_prompt=self._nep[prof.name],
            concurrency=self._conc.get(prof.name, 1),
        )

    async def login(self, account: str, on_status: Callable[[str], None] | None = None) -> bool:
        """Open a visible browser on the account's profile until the operator has logged in.
        The account takes no task meanwhile; its health is re-checked afterwards."""
        lane = self._lane_of_account(account)
        login = getattr(lane.backend, "login", None)
        if login is None:
            raise ValueError(f"account {account!r} has no login flow")
        self._dirty.add(lane.name)
        try:
            return bool(await login(on_status=on_status))
        finally:
            lane.wake()
            self._dirty.add(lane.name)

    # ------------------------------------------------------------------ queries
    def unservable_profiles(self) -> list[str]:
        """Profiles with pending work and no lane that could take it without the operator (no enabled
        account, or every enabled one needs a login)."""
        out = []
        for name in self._profiles:
            lanes = [lane for lane in self.lanes if name in lane.profiles]
            serving = [ln for ln in lanes if ln.enabled and ln.backend.health()[0] != "needs_login"]
            if not serving and self.store.has_pending([name]):
                out.append(name)
        return out

    def blocked_accounts(self, profile: str) -> list[AccountBlock]:
        """Every account of ``profile`` with why it takes no task now (for the "cannot serve" message):
        the operator's switch first, then what the backend says (needs login since ..., profile held,
        ...), then an open breaker."""
        out: list[AccountBlock] = []
        for lane in self.lanes:
            if lane.account is None or profile not in lane.profiles:
                continue
            if not lane.enabled:
                out.append(AccountBlock(lane.account, "disabled by the operator", "enable"))
                continue
            explain = getattr(lane.backend, "unavailable_reason", None)
            said = explain() if callable(explain) else None
            health, err = lane.backend.health()
            holder = None if self.team is None else self.team.holders.get(lane.account)
            if said is None and holder is not None and not self.team.holds(lane.account):  # type: ignore[union-attr]
                said = (f"in use by the desktop on {holder.host} (its lease ends in {holder.expires_in_s:.0f} s "
                        "unless it renews it)", "wait")
            if said is None and health == "needs_login":
                said = (f"needs login ({err})" if err else "needs login", "login")
            cap = self.capacities.get(f"account:{lane.account}")
            if said is None and cap is not None and cap.view().breaker != "closed":
                view = cap.view()
                said = (f"breaker {view.breaker.replace('_', '-')} ({view.breaker_reason or 'failures'}); "
                        f"next probe at {_at(view.next_probe_at)}", "wait")
            if said is None:
                said = (f"{health}" + (f" ({err})" if err else ""), "none")
            out.append(AccountBlock(lane.account, said[0], said[1]))
        return out

    async def wait_idle(self, poll_s: float = 0.5) -> None:
        """Return when no task is pending or running (deferred retries included), or when a storage
        fault stopped dispatch (then :attr:`storage_error` says which)."""
        unsubscribe = self.bus.subscribe(self._on_event_for_idle)
        try:
            while self.storage_error is None and self._unfinished() > 0:
                self._terminal_event.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._terminal_event.wait(), timeout=poll_s)
                await asyncio.sleep(0.02)  # coalesce a burst of terminal events into one count
        finally:
            unsubscribe()

    def _unfinished(self) -> int:
        try:
            return self.store.unfinished_count()
        except StorageError as exc:
            self._storage_failed(exc)
            return 0

    def _on_event_for_idle(self, ev: object) -> None:
        if isinstance(ev, TaskChanged) and TaskState(ev.state).terminal:
            self._terminal_event.set()

    def _lane_of_account(self, account: str) -> Lane:
        for lane in self.lanes:
            if lane.account == account:
                return lane
        raise ValueError(f"unknown account {account!r}")

    def _wake_profile(self, profile: str) -> None:
        self._wake_profiles({profile})

    # ------------------------------------------------------------------ exceptions (a person decides)
    def exceptions(self, include_resolved: bool = False) -> list[TaskRecord]:
        """Failed tasks a person must judge, oldest first."""
        return self.store.exceptions(sorted(EXCEPTION_KINDS), include_resolved)

    def resolve_exception(
        self, task_id: str, action: str, note: str = "", *, answer: str | None = None, profile: str | None = None
    ) -> TaskRecord:
        """The operator's decision on a failed task, kept with it and exported:
        ``retry`` (same profile, fresh budget), ``reroute`` (to ``profile``), ``answer`` (pasted
        ``answer`` -> success, served by the operator) or ``drop`` (stays failed)."""
        rec = self.store.get(task_id)
        if rec is None:
            raise ValueError(f"no task {task_id!r}")
        if rec.state != TaskState.FAILED.value:
            raise ValueError(f"task {task_id} is {rec.state}, not failed: nothing to resolve")
        if action not in RESOLUTIONS:
            raise ValueError(f"unknown resolution {action!r}: use one of {', '.join(RESOLUTIONS)}")
        if action == "answer":
            if not answer or not answer.strip():
                raise ValueError("an answer by hand needs the answer text")
            new = self.store.resolve(task_id, "answer", note, answer=answer)
        elif action == "drop":
            new = self.store.resolve(task_id, "drop", note)
        else:
            target = rec.profile if action == "retry" else profile
            if target is None or target not in self._profiles:
                raise ValueError(f"re-route needs a known profile (profiles: {', '.join(self._profiles)})")
            moved = self.store.reroute(rec, target, self._profiles[target].kind,
                                       log=f"{action} by operator" + (f" to {target}" if action == "reroute" else ""))
            new = None if moved is None else self.store.resolve(task_id, action, note)
            self._wake_profiles({target})
        if new is None:
            raise ValueError(f"task {task_id} changed meanwhile; look again")
        self._publish(new)
        return new

    def capacity_views(self) -> dict[str, CapacityView]:
        return {name: cap.view() for name, cap in self.capacities.items()}

    def _wake_profiles(self, profiles: set[str]) -> None:
        for lane in self.lanes:
            if profiles.intersection(lane.profiles):
                lane.wake()

    def _publish(self, rec: TaskRecord) -> None:
        self.bus.publish(task_changed(rec))


def _operator() -> str:
    """Who sits at this desktop (the OS user), for the other desktops' console."""
    try:
        return getpass.getuser()
    except Exception:  # no user name in this environment (containers): the uid
        return str(os.getuid())
