"""The running scheduler's ticker: coalesced lane stats for the faces, the account health they
show (persisted), the group commit of task-log lines and the database checkpoint."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from mediadesk.config.location import StoreLocation
from mediadesk.scheduler.events import AccountChanged, EventBus
from mediadesk.scheduler.lane import Lane
from mediadesk.store import TaskStore
from mediadesk.store.errors import StorageError

log = logging.getLogger(__name__)


async def seed_run_times(lanes: list[Lane], location: StoreLocation) -> None:
    """Give each lane the run times of its recent successes from the store: a lane's own are only
    those it finished since it started, so right after a restart the console's ETA would wait for
    new runs while the store knows hundreds. Read in a thread; a failed read only leaves the ETA
    waiting."""
    names = [lane.name for lane in lanes]
    if not names:
        return

    def read() -> dict[str, list[float]]:
        from mediadesk.store.metrics import MetricsReader

        with MetricsReader(location) as reader:
            return reader.recent_run_times(names)

    try:
        times = await asyncio.to_thread(read)
    except Exception as exc:  # the ETA waits for new runs instead
        log.info("recent run times not read (the ETA waits for new runs): %s", exc)
        return
    for lane in lanes:
        for seconds in reversed(times.get(lane.name, ())):  # oldest first: the deque keeps the newest
            lane.durations.append(seconds)


class Upkeep:
    """``dirty``: names of the lanes whose stats changed since the last tick (anyone may add)."""

    def __init__(
        self,
        *,
        store: Callable[[], TaskStore],
        lanes: Callable[[], list[Lane]],
        bus: EventBus,
        storage_error: Callable[[], StorageError | None],
        storage_failed: Callable[[StorageError], None],
    ) -> None:
        self._store = store
        self._lanes = lanes
        self._bus = bus
        self._storage_error = storage_error
        self._storage_failed = storage_failed
        self.dirty: set[str] = set()
        self._checkpointing: asyncio.Future[None] | None = None
        self._account_health: dict[str, tuple[str, str | None]] = {}

    async def run(self) -> None:
        """Coalesced lane stats (at most ~4/s), plus a full refresh every 2 s for heartbeat ages; the
        group commit of log lines with the database identity check (each 0.25 s) and a checkpoint
        every 2 s. It never dies: a storage fault halts dispatch, anything else is logged."""
        tick = 0
        while True:
            await asyncio.sleep(0.25)
            tick += 1
            if self._storage_error() is None:
                try:
                    self._store().flush()  # verifies the file first
                    if tick % 8 == 0 and (self._checkpointing is None or self._checkpointing.done()):
                        self._checkpointing = asyncio.ensure_future(asyncio.to_thread(self._store().checkpoint))
                        self._checkpointing.add_done_callback(self._checkpoint_done)
                except StorageError as exc:
                    self._storage_failed(exc)
                except Exception:
                    log.exception("scheduler: flush or checkpoint failed; trying again")
            for lane in self._lanes():
                if lane.name in self.dirty or tick % 8 == 0:
                    try:
                        self._bus.publish(lane.stats())
                        self._sync_account_health(lane)
                    except StorageError as exc:
                        self._storage_failed(exc)
                    except Exception:
                        log.exception("scheduler: stats of %s failed", lane.name)
            self.dirty.clear()

    def _checkpoint_done(self, fut: asyncio.Future[None]) -> None:
        if fut.cancelled():
            return
        exc = fut.exception()
        if isinstance(exc, StorageError):
            self._storage_failed(exc)
        elif exc is not None:
            log.warning("scheduler: checkpoint failed: %s", exc)

    async def drain(self) -> None:
        """Wait for a checkpoint in progress (at stop, before the database closes)."""
        if self._checkpointing is not None:
            with contextlib.suppress(Exception):
                await self._checkpointing

    def _sync_account_health(self, lane: Lane) -> None:
        if lane.account is None:
            return
        health = lane.backend.health()
        if self._account_health.get(lane.account) != health:
            self._account_health[lane.account] = health
            if self._storage_error() is None:
                self._store().set_account_health(lane.account, health[0], health[1], lane.enabled)
            self._bus.publish(AccountChanged(lane.account, lane.enabled, health[0], health[1]))
