"""What the API's routes share: the scheduler facade, a read-only store connection on a thread of
its own, and the latest lane stats from the event bus.

Reads (task lists, a task with its log, counts) run on one worker thread with their own
:class:`~mediadesk.store.TaskReader`, so a client paging through 100k tasks never stalls the event
loop the lanes run on; everything that changes state goes through the scheduler, on the loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from collections.abc import Callable
from typing import TypeVar

from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.events import Event, LaneStats
from mediadesk.store import TaskReader

T = TypeVar("T")

#: How old the status counts may be (seconds); the task list and the metrics read the store afresh.
COUNTS_TTL_S = 0.25


class RemoteContext:
    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler
        self.lanes: dict[str, LaneStats] = {}
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="remote-read")
        self._reader: TaskReader | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._counts: tuple[float, dict[tuple[str, str], int]] | None = None
        self._counting: asyncio.Future[dict[tuple[str, str], int]] | None = None

    def open(self) -> None:
        # every lane's stats come at least every 2 s (at once after the scheduler's start)
        self._unsubscribe = self.scheduler.bus.subscribe(self._on_event)

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._pool.submit(self._close_reader).result()
        self._pool.shutdown(wait=True)

    def _on_event(self, ev: Event) -> None:
        if isinstance(ev, LaneStats):
            self.lanes[ev.lane] = ev

    def _close_reader(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def _with_reader(self, fn: Callable[[TaskReader], T]) -> T:
        if self._reader is None:  # opened on the reading thread, used only there
            self._reader = TaskReader(self.scheduler.workspace.location)
        return fn(self._reader)

    async def counts(self) -> dict[tuple[str, str], int]:
        """{(profile, state): tasks}, at most :data:`COUNTS_TTL_S` old: a script polling the status
        many times a second costs one query per interval, and callers at the same moment share it."""
        loop = asyncio.get_running_loop()
        if self._counts is not None and loop.time() - self._counts[0] < COUNTS_TTL_S:
            return self._counts[1]
        if self._counting is None or self._counting.done():
            self._counting = asyncio.ensure_future(self.read(TaskReader.counts))
        counts = await asyncio.shield(self._counting)
        self._counts = (loop.time(), counts)
        return counts

    async def read(self, fn: Callable[[TaskReader], T]) -> T:
        """Run ``fn(reader)`` on the reading thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, functools.partial(self._with_reader, fn))
