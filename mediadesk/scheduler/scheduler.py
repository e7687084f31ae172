"""The scheduler facade: lifecycle, operator actions and queries, one event stream.

The faces (console, CLI) and the HTTP API call only this object; each operator action is a short
method delegating to the modules beside it (``wiring``, ``intake``, ``recovery``, ``checks``,
``upkeep``, ``blocks``, ``exceptions``). Lanes over one durable table: one API lane per API profile
(its share of the endpoint's gate), one web lane per account (one run at a time).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from mediadesk.config.model import API_CONCURRENCY_MAX, AppConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import TaskSpec
from mediadesk.core.batch import BatchRow, templates_dir
from mediadesk.core.log_lines import LogText
from mediadesk.core.states import TaskState
from mediadesk.providers.web.profile_lock import InstanceLock
from mediadesk.scheduler.blocks import AccountBlock, account_blocks, lane_waits
from mediadesk.scheduler.budgets import Budgets, batch_budget_key
from mediadesk.scheduler.capacity import Capacity, CapacityView
from mediadesk.scheduler.checks import ApiCheck, Checks, Verdict
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
from mediadesk.scheduler.exceptions import (
    EXCEPTION_KINDS,
    RESOLUTIONS,
    AccountException,
    EndpointStop,
    account_exceptions,
    live_stops,
    resolve_exception,
)
from mediadesk.scheduler.finalizer import Finalizer
from mediadesk.scheduler.intake import Intake, QueueFullError
from mediadesk.scheduler.lane import Lane, LaneDeps
from mediadesk.scheduler.pause_memory import load_paused, save_paused
from mediadesk.scheduler.recovery import join_team, recover
from mediadesk.scheduler.team_link import TeamLink
from mediadesk.scheduler.upkeep import Upkeep, seed_run_times
from mediadesk.scheduler.watch_folder import LEDGER_NAME, WatchFolder
from mediadesk.scheduler.wiring import BackendFactory, Wiring
from mediadesk.store import AddResult, DatabaseLock, TaskRecord, TaskStore, open_store
from mediadesk.store.errors import StorageError
from mediadesk.store.team import DesktopInfo

__all__ = ["EXCEPTION_KINDS", "RESOLUTIONS", "AccountBlock", "BackendFactory", "ProfileView", "QueueFullError",
           "Scheduler"]

log = logging.getLogger(__name__)


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
        self._clock = clock
        #: Lanes, capacities and backends from the config, with the live profile settings.
        self.wiring = Wiring(config, workspace, backend_factory=backend_factory, clock=clock,
                             notice=self._capacity_notice)
        self._profiles = self.wiring.profiles
        #: How a batch gets in (both faces): rows to tasks, caps, key check, chunked submit.
        self.intake = Intake(profiles=self._profiles, config=lambda: self.config, store=lambda: self.store,
                             guard=self._storage_guard, added=self._tasks_added)
        # SQLite: one scheduler per database file. PostgreSQL (team mode): several desktops share the
        # database by design, so no database lock (the data-dir InstanceLock below stays).
        self._dblock: DatabaseLock | None = DatabaseLock(workspace.db_path) if workspace.db_url is None else None
        # One MediaDesk per data dir too (browser profiles live there), even with --db elsewhere.
        self._dirlock = InstanceLock(workspace.data_dir)
        self._store: TaskStore | None = None
        #: Team mode (PostgreSQL: several desktops on one queue): this desktop's seat, else None.
        self.team: TeamLink | None = None
        self._team_conn: Any = None
        self._finalizer: Finalizer | None = None
        #: Coalesced lane stats, log-line group commits and checkpoints (a ticker at 4/s).
        self._upkeep = Upkeep(store=lambda: self.store, lanes=lambda: self.lanes, bus=self.bus,
                              storage_error=lambda: self.storage_error, storage_failed=self._storage_failed)
        self._dirty = self._upkeep.dirty
        self._ticker: asyncio.Task[None] | None = None
        self._terminal_event = asyncio.Event()
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.started = False
        #: The storage fault that stopped dispatch for good (see :meth:`_storage_failed`), if any.
        self.storage_error: StorageError | None = None
        #: Spend and caps (built with the lanes, once the store is open).
        self.budgets: Budgets | None = None
        #: The watched intake folder (``[intake] watch``), while started; None without one.
        self.watch_folder: WatchFolder | None = None

    @property
    def lanes(self) -> list[Lane]:
        return self.wiring.lanes

    @property
    def capacities(self) -> dict[str, Capacity]:
        """One per API endpoint ("endpoint name") and one per web account ("account:<name>")."""
        return self.wiring.capacities

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
            self.wiring.load_settings(self._store)
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
        kept = load_paused(self.workspace.data_dir)  # paused in an earlier session: still paused
        for lane in self.lanes:
            lane.paused = lane.paused_kept = lane.name in kept
        await seed_run_times(self.lanes, self.workspace.location)  # an ETA right after a restart
        if self.team is not None:
            self.team.start()
        await asyncio.gather(*(lane.start() for lane in self.lanes))
        for channel in self.wiring.economies:  # after the lanes: their backends are started
            channel.start()
        self._ticker = asyncio.create_task(self._upkeep.run(), name="scheduler:stats")
        if self.config.intake.watch is not None:
            self.watch_folder = WatchFolder(
                self.config.intake.watch, ledger=self.workspace.data_dir / LEDGER_NAME,
                templates=templates_dir(self.workspace.data_dir), intake=self.intake,
                profiles=self.profile_names, max_prompt_chars=lambda: self.config.scheduler.max_prompt_chars,
                notice=self._capacity_notice, poll_s=self.config.intake.poll_s, clock=self._clock)
            self.watch_folder.start()
        self.started = True
        for lane in self.lanes:
            self._dirty.add(lane.name)

    async def wait_ready(self) -> None:
        """Wait until every lane's backend has started (browsers prewarmed); benchmarks use it so a
        makespan does not include browser start-up (wrap it in ``asyncio.timeout`` to bound it)."""
        await asyncio.gather(*(lane.started.wait() for lane in self.lanes))

    async def stop(self) -> None:
        if self.watch_folder is not None:  # first: no batch may start going in now
            await self.watch_folder.stop()
            self.watch_folder = None
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
            self._ticker = None
        await self._upkeep.drain()
        await asyncio.gather(*(ch.stop() for ch in self.wiring.economies), return_exceptions=True)
        await asyncio.gather(*(lane.stop() for lane in self.lanes), return_exceptions=True)
        if self.team is not None:  # after the lanes: their running tasks are back in the queue
            await self.team.leave()
            self._close_team()
        await asyncio.gather(*(cap.close() for cap in self.capacities.values()), return_exceptions=True)
        self.wiring.clear()
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
        self.team, self._team_conn = join_team(store, self.config, self.owner, on_dead_owners=self._recover_owners,
                                               on_lost_account=self._lost_account, on_notice=self._capacity_notice)
        self._clock = self.team.now if self._clock is time.time else self._clock  # the database's (or a test's)

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
        recover(self.store, self.config.retry.policy(), self._clock(), owners)

    def _build_lanes(self) -> None:
        self._finalizer = Finalizer(self.store, self.bus, self._profiles, self._wake_profile)
        self.budgets = Budgets(self.config, self.store, clock=self._clock, notice=self._capacity_notice)
        self.store.set_pricing(self.budgets.prices, self.budgets.spent)  # costs computed as usage is stored
        deps = LaneDeps(
            store=self.store, bus=self.bus, policy=self.config.retry.policy(), timing=self.wiring.timing(),
            owner=self.owner, resolve=self._resolve, evidence_root=self.workspace.evidence_dir, clock=self._clock,
            finalizer=self._finalizer, team=self.team, guard=self.budgets,
        )
        for lane in self.wiring.build(deps, self.store.account_states()):
            lane.on_stats_dirty = lambda ln: self._dirty.add(ln.name)
            lane.on_storage_error = self._storage_failed

    def endpoint_limit(self, endpoint: str) -> int:
        """The configured gate of the API endpoint named ``endpoint`` (console edits included)."""
        return self.wiring.endpoint_limit(endpoint)

    def set_endpoint_concurrency(self, endpoint: str, concurrency: int) -> None:
        """Setup's edit of an explicit endpoint's gate (1..5), applied at once."""
        if not 1 <= concurrency <= API_CONCURRENCY_MAX:
            raise ValueError(f"concurrency must be 1..{API_CONCURRENCY_MAX}")
        for lane in self.wiring.set_endpoint_concurrency(endpoint, concurrency):
            lane.wake()
            self._dirty.add(lane.name)

    def _capacity_notice(self, message: LogText | str) -> None:
        text = message if isinstance(message, LogText) else None
        english = message if isinstance(message, str) else message.english()
        log.info("%s", english)
        self.bus.publish(Notice(self._clock(), english, text))

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

    def _resolve(self, rec: TaskRecord) -> TaskSpec:
        return self.wiring.spec(rec, self.store)

    # ------------------------------------------------------------------ submit (see intake.py)
    def profile_names(self) -> list[str]:
        return list(self._profiles)

    def submit_rows(self, rows: Sequence[BatchRow], batch: str | None = None) -> tuple[AddResult, list[str]]:
        """Check and submit parsed rows in one transaction; returns the result and the task ids in
        row order. Both faces submit through the intake (:attr:`intake`), the console in chunks."""
        done = self.intake.submit_rows(rows, batch)
        return done.result, done.ids

    def _tasks_added(self, res: AddResult, profiles: set[str]) -> None:
        self.bus.publish(TasksAdded(res.added))
        self._wake_profiles(profiles)

    # ------------------------------------------------------------------ operator actions
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

    def keep(self, task_id: str, kept: bool = True) -> int:
        """The operator's keep mark on one answer of a group (the others of its group lose theirs);
        returns how many tasks' marks changed."""
        with self._storage_guard():
            recs = self.store.set_kept(task_id, kept)
        for rec in recs:
            self._publish(rec)
        return len(recs)

    def pause(self, kind: str | None = None, paused: bool = True) -> None:
        """Pause or resume every lane, a kind ("api" | "web") or one lane; kept across restarts."""
        for lane in self.lanes:
            if kind is None or lane.kind == kind or lane.name == kind:
                lane.paused, lane.paused_kept = paused, False
                lane.wake()
                self._dirty.add(lane.name)
        if self.lanes:
            save_paused(self.workspace.data_dir, (lane.name for lane in self.lanes if lane.paused))

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
            self.wiring.nep[profile] = need_empty_prompt
        if concurrency is not None:
            for lane in self.wiring.set_concurrency(profile, concurrency):
                lane.wake()
                self._dirty.add(lane.name)
        self.bus.publish(ProfileChanged(profile, self.wiring.nep[profile], self.profile_view(profile).concurrency))

    def account_states(self) -> dict[str, tuple[bool, str, str | None]]:
        """{account: (enabled, health, last error)} as persisted (the console's switches)."""
        return self.store.account_states()

    def profile_view(self, profile: str) -> ProfileView:
        prof = self._profiles[profile]
        return ProfileView(
            name=prof.name, kind=prof.kind, need_empty_prompt=self.wiring.nep[prof.name],
            concurrency=self.wiring.conc.get(prof.name, 1),
        )

    async def login(self, account: str, on_status: Callable[[str], None] | None = None) -> bool:
        """Open a visible browser on the account's profile until the operator has logged in.
        The account takes no task meanwhile; its health is re-checked afterwards."""
        lane = self._lane_of_account(account)
        login = lane.backend.login
        if login is None:
            raise ValueError(f"account {account!r} has no login flow")
        self._dirty.add(lane.name)
        try:
            return bool(await login(on_status=on_status))
        finally:
            lane.wake()
            self._dirty.add(lane.name)

    def checks(self, config: AppConfig | None = None) -> Checks:
        """Probe / test / login for ``config`` (default: the running one; the setup editor passes
        its edited one), through this scheduler's lanes where they run the account."""
        return Checks(config if config is not None else self.config, self.workspace, self)

    # ------------------------------------------------------------------ queries
    def unservable_profiles(self) -> list[str]:
        """Profiles with pending work and no lane that could take it without the operator (no enabled
        account, or every enabled one needs a login; an endpoint stopped by its configuration; every
        lane paused)."""
        out = []
        for name in self._profiles:
            lanes = [lane for lane in self.lanes if name in lane.profiles]
            # a login or a bot check waits for a person; a resting account comes back by itself; an
            # endpoint stopped by its configuration (a TLS error) waits for the operator
            serving = [ln for ln in lanes if ln.enabled and not ln.paused
                       and ln.backend.health()[0] not in ("needs_login", "challenge")
                       and (ln.capacity_ctl is None or ln.capacity_ctl.stopped is None)]
            if not serving and self.store.has_pending([name]):
                out.append(name)
        return out

    def blocked_accounts(self, profile: str) -> list[AccountBlock]:
        """Every account of ``profile`` with why it takes no task now (see :func:`account_blocks`)."""
        return account_blocks(self.lanes, self.capacities, self.team, profile, self._clock())

    # ------------------------------------------------------------------ spend and budgets (see budgets.py)
    def set_batch_budget(self, batch: str, cap: float, unit: str) -> None:
        """A batch's cap (money in ``unit``, a currency, or ``"tokens"``), kept with the batch."""
        if self.budgets is None:  # before start: stored, read when the lanes are built
            if not cap > 0:
                raise ValueError("a budget must be greater than 0")
            self.store.set_budget_cap(batch_budget_key(batch, unit), cap)
            return
        self.budgets.set_batch_budget(batch, cap, unit)
        self._wake_profiles(set(self._profiles))

    def raise_cap(self, key: str, cap: float) -> None:
        """The operator raised a cap (kept in the database): the lanes it stopped start again."""
        self._spend().raise_cap(key, cap)
        self._capacity_notice(f"budget {key}: cap set to {cap:g}")
        for lane in self.lanes:
            lane.wake()
            self._dirty.add(lane.name)

    def budget_stops(self) -> dict[str, list[str]]:
        """{profile: [what stops it]} for the profiles whose every lane is stopped by a cap."""
        out: dict[str, list[str]] = {}
        for name in self._profiles:
            lanes = [ln for ln in self.lanes if name in ln.profiles and ln.enabled]
            if lanes and all(ln.budget_stop is not None for ln in lanes):
                out[name] = sorted({ln.budget_stop.message() for ln in lanes if ln.budget_stop is not None})
        return out

    def _spend(self) -> Budgets:
        if self.budgets is None:
            raise RuntimeError("Scheduler not started: call start() first")
        return self.budgets

    def waits(self) -> dict[str, str]:
        """{lane: what it waits for} for lanes with pending work that start none now for a reason
        that passes by itself (outside their active hours); see :func:`lane_waits`."""
        return lane_waits(self.lanes, self._clock(), self.store.has_pending)

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
        """The operator's decision on a failed task (see :mod:`~mediadesk.scheduler.exceptions`)."""
        new = resolve_exception(self.store, self._profiles, task_id, action, note, answer=answer, profile=profile,
                                wake=self._wake_profiles)
        self._publish(new)
        return new

    def stopped_endpoints(self) -> list[EndpointStop]:
        """API endpoints stopped until the operator acts (key rejected, TLS error), with their waiting tasks."""
        return live_stops(self.config, self.capacities, self.store.pending_count)

    async def resume_endpoint(self, name: str) -> ApiCheck:
        """The operator says endpoint ``name``'s key or config is fixed: one authenticated request
        first (a one-token answer, through the endpoint's own client); it resumes unless that request
        meets the same stop again (the key still rejected, TLS still failing)."""
        check = await self.checks().check_running_endpoint(name)
        if check.verdict not in (Verdict.KEY_REJECTED, Verdict.TLS) and self.capacities[name].resume():
            self._wake_profiles(set(self._endpoint_profiles(name)))
        return check

    def _endpoint_profiles(self, name: str) -> tuple[str, ...]:
        return next((e.profiles for e in self.config.api_endpoints() if e.name == name), ())

    def account_exceptions(self) -> list[AccountException]:
        """Accounts that wait for a person (a bot check), with the screenshot of the check."""
        return account_exceptions(
            (lane.account, *lane.backend.health(), lane.backend.challenge_screenshot)
            for lane in self.lanes if lane.account is not None)

    async def resolve_account_exception(self, account: str, on_status: Callable[[str], None] | None = None) -> bool:
        """Open the account's browser visibly on its own profile at the chat page for a person to solve
        the check (:meth:`login`); True once it is solved and the account is ready again. ValueError
        when the account does not wait for a person."""
        if account not in {e.account for e in self.account_exceptions()}:
            raise ValueError(f"account {account} does not wait for a person")
        return await self.login(account, on_status=on_status)

    def capacity_views(self) -> dict[str, CapacityView]:
        return {name: cap.view() for name, cap in self.capacities.items()}

    def _wake_profiles(self, profiles: set[str]) -> None:
        for lane in self.lanes:
            if profiles.intersection(lane.profiles):
                lane.wake()

    def _publish(self, rec: TaskRecord) -> None:
        self.bus.publish(task_changed(rec))
