"""This desktop's seat in a team: several scheduler processes ("desktops") on one PostgreSQL queue.

Applies :class:`~mediadesk.store.team.TeamCoordinator` to the lanes: a web lane runs its account only
while holding the account's lease (taken when it has work, given back when idle; the file lock
stays); an API lane holds one of the endpoint's shared slots per running task, under the local
gate; each beat renews the desktop, its leases and slots, and recovers dead desktops' running tasks
like a crash. Calls are short, on the coordinator's own connection, on the loop thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass

from mediadesk.platform.processes import pid_alive
from mediadesk.store.errors import StorageError
from mediadesk.store.team import DesktopInfo, TeamCoordinator

log = logging.getLogger(__name__)

#: A desktop whose clock is further off than this from the database's says so (the team runs on the
#: database's clock anyway, but the operator's logs and the console's times are local).
CLOCK_SKEW_WARN_S = 3.0


def _process_gone(host: str, pid: int) -> bool:
    """The desktop process ``pid`` of ``host`` is known to be gone: only said for this machine (another
    machine's processes cannot be seen; a pid taken again by another process counts as alive)."""
    if host != socket.gethostname() or pid <= 0:
        return False
    return not pid_alive(pid)


@dataclass(frozen=True)
class Holder:
    """Who holds an account this desktop wants (for the account's message in the console/CLI)."""

    owner: str
    host: str
    expires_in_s: float


class TeamLink:
    def __init__(
        self,
        coord: TeamCoordinator,
        *,
        accounts: tuple[str, ...],
        heartbeat_s: float,
        retry_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        on_dead_owners: Callable[[list[str]], None] = lambda _owners: None,
        on_lost_account: Callable[[str], None] = lambda _account: None,
        on_clock_skew: Callable[[float], None] = lambda _offset: None,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.coord = coord
        self._accounts = accounts
        self._heartbeat_s = heartbeat_s
        self._retry_s = retry_s
        self._clock = clock
        self._on_dead = on_dead_owners
        self._on_lost = on_lost_account
        self._held: set[str] = set()
        self._next_try: dict[str, float] = {}
        self.holders: dict[str, Holder] = {}
        #: task id -> (endpoint, slot)
        self._slots: dict[str, tuple[str, int]] = {}
        self._slot_wait: dict[str, float] = {}
        self._beat_task: asyncio.Task[None] | None = None
        self._desktops: list[DesktopInfo] = []
        self._wall = wall
        self._on_skew = on_clock_skew
        #: database clock - local clock, measured at each beat (see :meth:`now`)
        self.clock_offset_s = 0.0
        self._skew_said = False

    # ------------------------------------------------------------------ lifecycle
    def join(self) -> None:
        self.coord.join(list(self._accounts))
        self._beat_once()

    def start(self) -> None:
        self._beat_task = asyncio.create_task(self._beat_loop(), name="team:beat")

    async def leave(self) -> None:
        if self._beat_task is not None:
            self._beat_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._beat_task
            self._beat_task = None
        # the server may be gone: what is not given back expires by itself
        for task_id in list(self._slots):
            with contextlib.suppress(StorageError):
                self.release_slot(task_id)
        for account in list(self._held):
            with contextlib.suppress(StorageError):
                self.release_account(account)
        with contextlib.suppress(Exception):
            self.coord.leave()

    async def _beat_loop(self) -> None:
        while True:
            await asyncio.sleep(self._heartbeat_s)
            try:
                self._beat_once()
            except StorageError as exc:  # the server is away: the lanes' own writes report it
                log.warning("team: beat failed: %s", exc)
            except Exception:
                log.exception("team: beat failed; trying again")

    def now(self) -> float:
        """The database server's clock, as epoch seconds: the local clock corrected by the offset
        measured at the last beat. Team mode writes and compares every heartbeat, stale cutoff and
        retry time with it, so a desktop whose clock is off never takes a live desktop's task for
        stale (nor keeps a dead one's for ever)."""
        return self._wall() + self.clock_offset_s

    def _measure_clock(self) -> None:
        t0 = self._wall()
        server = self.coord.server_time()
        t1 = self._wall()
        self.clock_offset_s = server - (t0 + t1) / 2.0
        off = abs(self.clock_offset_s) > CLOCK_SKEW_WARN_S
        if off and not self._skew_said:
            log.warning("team: this computer's clock is %+.1f s off the database server's; the team runs on "
                        "the database's clock, but check this computer's time settings", -self.clock_offset_s)
            self._on_skew(self.clock_offset_s)
        self._skew_said = off

    def _beat_once(self) -> None:
        self._measure_clock()
        held = self.coord.beat()
        lost = (self._held - set(held.accounts)) | (set(held.lost_accounts) & self._held)
        for account in sorted(lost):
            log.error("team: the lease of account %s was lost", account)
            self._held.discard(account)
            self._on_lost(account)
        dead = self.coord.dead_owners(with_running_tasks=True)
        if dead:
            self._on_dead(dead)
            self.coord.reap_dead()
        self._desktops = self.coord.desktops()

    # ------------------------------------------------------------------ web accounts
    def holds(self, account: str) -> bool:
        return account in self._held

    def try_account(self, account: str) -> bool:
        """Hold ``account``'s lease (asking the database at most every ``retry_s``)."""
        if account in self._held:
            return True
        now = self._clock()
        if now < self._next_try.get(account, 0.0):
            return False
        self._next_try[account] = now + self._retry_s
        res = self.coord.acquire_account(account)
        if res.acquired:
            self._held.add(account)
            self.holders.pop(account, None)
            return True
        self.holders[account] = Holder(res.holder_owner or "", res.holder_host or "", res.expires_in_s or 0.0)
        return False

    def fence_account(self, account: str, hold_s: float) -> bool:
        """Just before a run starts on ``account``: is the lease still ours (checked on the database,
        never from memory: this desktop may have been frozen past its lease)? It then covers the run
        for ``hold_s``. When it was lost, the account is dropped here and its runs are stopped."""
        if account not in self._held:
            return False
        if self.coord.fence_account(account, hold_s):
            return True
        log.warning("team: the lease of account %s was taken over while this desktop was late; "
                    "starting nothing on it", account)
        self._held.discard(account)
        self._on_lost(account)
        return False

    def unhold_account(self, account: str) -> None:
        if account in self._held:
            self.coord.unhold_account(account)

    def release_account(self, account: str) -> None:
        if account in self._held:
            self._held.discard(account)
            self.coord.release_account(account)

    # ------------------------------------------------------------------ endpoint slots
    def reserve(self, endpoint: str, limit: int, want: int, hold_s: float = 0.0) -> list[int]:
        """Up to ``want`` of the endpoint's shared slots (none again for ``retry_s`` once it is full),
        each held at least ``hold_s`` (the request's longest time) unless released."""
        now = self._clock()
        if want <= 0 or now < self._slot_wait.get(endpoint, 0.0):
            return []
        got: list[int] = []
        reclaimed = False
        while len(got) < want:
            slot = self.coord.acquire_slot(endpoint, limit, None, hold_s)
            if slot is None and not reclaimed:
                reclaimed = True  # slots held for a dead desktop of this machine come back at once
                if self.coord.reclaim_slots(endpoint, _process_gone):
                    continue
            if slot is None:
                self._slot_wait[endpoint] = now + min(self._retry_s, 0.2)
                break
            got.append(slot)
        return got

    def bind(self, task_id: str, endpoint: str, slot: int) -> None:
        self._slots[task_id] = (endpoint, slot)

    def unreserve(self, endpoint: str, slots: list[int]) -> None:
        for slot in slots:
            self.coord.release_slot(endpoint, slot)

    def release_slot(self, task_id: str) -> None:
        held = self._slots.pop(task_id, None)
        if held is not None:
            endpoint, slot = held
            self.coord.release_slot(endpoint, slot)
            self._slot_wait.pop(endpoint, None)

    # ------------------------------------------------------------------ shared token buckets
    def take_tokens(self, buckets: tuple[tuple[str, float], ...]) -> float:
        """One token from each shared bucket ``(name, requests per minute)``: 0.0 when every one gave
        its token, else the seconds to wait (a token already taken from an earlier bucket is spent:
        the error is on the side of fewer requests, never more)."""
        for name, rpm in buckets:
            wait = self.coord.take_token(name, rpm)
            if wait > 0:
                return wait
        return 0.0

    def take_token_count(self, name: str, tpm: float, n: float) -> float:
        """``n`` tokens from the shared tokens-per-minute bucket ``name`` (at most ``tpm`` banked): 0.0
        when taken, else the seconds to wait."""
        return self.coord.take_token(name, tpm, burst=max(1.0, tpm), n=max(1.0, n))

    def give_back_tokens(self, name: str, tpm: float, n: float) -> None:
        """The true-up of a reservation in the shared bucket (``n`` < 0: the request used more)."""
        self.coord.give_back_tokens(name, tpm, max(1.0, tpm), n)

    def refused_tokens(self, name: str, tpm: float, cost: float, retry_after_s: float) -> None:
        """The provider refused a request of about ``cost`` tokens and asked for ``retry_after_s``: the
        shared bucket drops to what the provider's must hold (``cost`` earned back in that wait), so
        the other desktops do not spend the minute the provider says is gone."""
        self.coord.cap_tokens(name, tpm, max(1.0, tpm), cost - tpm / 60.0 * retry_after_s)

    # ------------------------------------------------------------------ the console
    def desktops(self) -> list[DesktopInfo]:
        return list(self._desktops)
