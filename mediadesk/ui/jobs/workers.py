"""Work off the GUI thread (database reads, export writes, batch parsing), and the feed that keeps
the task model live.

Under qasync the asyncio loop IS the GUI thread (and the lanes' loop), so large reads or parses
must not run on it. :class:`TaskJobs` awaits ``asyncio.to_thread(...)``, keeps a reference, logs
failures, and (:meth:`TaskJobs.in_thread`) hands results back only while the owning widget exists.
Each database job opens its own read-only :class:`TaskReader` in the worker thread and returns plain
rows; the scheduler's own short writes stay on the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sys
import threading
import time
import weakref
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import shiboken6
from PySide6.QtCore import QObject, Signal

from mediadesk.config.location import StoreLocation
from mediadesk.platform.processes import release_free_memory
from mediadesk.scheduler.events import LaneStats, TaskChanged, TasksAdded
from mediadesk.store.reader import TaskReader
from mediadesk.store.taskstore import LogLine, TaskRecord
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.models.task_model import TaskTableModel
from mediadesk.viewmodel.columns import Columns

__all__ = [
    "LoadStats",
    "TaskFeed",
    "TaskJobs",
    "cyclic_gc_paused",
    "fetch_changed",
    "fetch_columns",
    "fetch_task_detail",
    "gil_handed_over_often",
    "read_all_columns",
    "release_free_memory",
]

log = logging.getLogger(__name__)

_T = TypeVar("_T")

# --------------------------------------------------------------------------- blocking jobs (threads)

_gc_lock = threading.Lock()
_gc_pause = {"users": 0, "was_on": False}


@contextlib.contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """No automatic cyclic-GC pass while a big batch is parsed or goes in: its many short-lived,
    cycle-free objects would otherwise set off full collections that hold the GIL and freeze the GUI
    thread. Overlapping uses (any thread) nest: the GC is back as it was once the last one ends."""
    with _gc_lock:
        if _gc_pause["users"] == 0:
            _gc_pause["was_on"] = gc.isenabled()
            gc.disable()
        _gc_pause["users"] += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pause["users"] -= 1
            if _gc_pause["users"] == 0 and _gc_pause["was_on"]:
                gc.enable()


_switch_lock = threading.Lock()
_switch = {"users": 0, "was": 0.005}
#: The interpreter's thread switch interval while a worker parses a big batch (default 5 ms).
FAST_SWITCH_S = 0.0005


@contextlib.contextmanager
def gil_handed_over_often() -> Iterator[None]:
    """For a worker thread running pure Python for a long time (a big parse): the GUI thread waits up
    to the switch interval for the GIL at each of its many Python calls, so the default interval
    freezes the console noticeably. A shorter interval meanwhile; overlapping uses nest, the last one
    restores the interval."""
    with _switch_lock:
        if _switch["users"] == 0:
            _switch["was"] = sys.getswitchinterval()
            sys.setswitchinterval(FAST_SWITCH_S)
        _switch["users"] += 1
    try:
        yield
    finally:
        with _switch_lock:
            _switch["users"] -= 1
            if _switch["users"] == 0:
                sys.setswitchinterval(_switch["was"])


def read_all_columns(location: StoreLocation | Path) -> Columns:
    """Every task, as model columns. Records are turned into column entries as they stream, so
    only one record object lives at a time and no per-row object is kept at all (see
    :class:`~mediadesk.viewmodel.task_rows.Columns` on the cyclic GC)."""
    reader = TaskReader(location)
    try:
        return Columns.from_records(reader.iter_tasks(batch_size=5000))
    finally:
        reader.close()


def fetch_columns(location: StoreLocation | Path, task_ids: Sequence[str]) -> Columns:
    """Model columns for ``task_ids`` (missing ids skipped), in the given order."""
    reader = TaskReader(location)
    try:
        return Columns.from_records(reader.get_many(task_ids))
    finally:
        reader.close()


def fetch_changed(location: StoreLocation | Path, since: float) -> Columns:
    """Blocking (worker thread): the tasks written at or after ``since`` (team mode: by any desktop)."""
    reader = TaskReader(location)
    try:
        return Columns.from_records(reader.changed_since(since))
    finally:
        reader.close()


def fetch_task_detail(location: StoreLocation | Path, task_id: str) -> tuple[TaskRecord | None, list[LogLine]]:
    reader = TaskReader(location)
    try:
        return reader.get(task_id), reader.logs(task_id)
    finally:
        reader.close()


# --------------------------------------------------------------------------- loop-side helpers

class TaskJobs:
    """Keeps a reference to every background task it starts (asyncio holds only weak ones) and
    logs failures in one place. Start jobs once the qasync loop runs.

    ``owner``: a widget whose deletion drops the results of :meth:`in_thread` jobs still under
    way (their threads cannot be stopped; what they return is simply not delivered)."""

    def __init__(self, owner: QObject | None = None) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        #: One event per worker thread still running (a cancelled job's thread runs on to its end).
        self._threads: set[threading.Event] = set()
        # Weak: a strong reference would make owner -> jobs -> owner a cycle, and the cyclic GC
        # may then free a widget from whatever thread it runs on.
        self._owner = weakref.ref(owner) if owner is not None else None

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str,
              on_error: Callable[[BaseException], None] | None = None) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            if t.cancelled():
                return
            exc = t.exception()
            if exc is not None:
                log.error("console job %s failed", name, exc_info=exc)
                if on_error is not None and self._owner_alive():
                    on_error(exc)

        task.add_done_callback(done)
        return task

    def in_thread(self, fn: Callable[[], _T], name: str, on_result: Callable[[_T], None],
                  on_error: Callable[[BaseException], None] | None = None) -> asyncio.Task[Any]:
        """Run the blocking ``fn()`` in a worker thread; ``on_result(value)`` on the GUI thread
        when it returns, unless the owner was deleted meanwhile (or the job was cancelled). An
        exception from ``fn`` goes to ``on_error`` (and the log), never to ``on_result``."""

        finished = threading.Event()
        self._threads.add(finished)
        # Whether the worker thread took the job, or the job was dropped before it did (cancelled
        # while queued behind busy threads: the pool never runs it, so nothing else would mark it
        # finished and drain() would wait its whole timeout for it).
        lock = threading.Lock()
        took = {"started": False, "dropped": False}

        def run() -> _T:
            with lock:
                if took["dropped"]:
                    finished.set()
                    raise asyncio.CancelledError
                took["started"] = True
            try:
                return fn()
            finally:
                finished.set()

        async def job() -> None:
            value = await asyncio.to_thread(run)
            if not self._owner_alive():
                log.debug("console job %s: owner gone, result dropped", name)
                return
            on_result(value)

        def ended(_task: asyncio.Task[Any]) -> None:
            # Cancelled before the thread took it (even before the coroutine's first step, where no
            # except clause of it runs): the thread never will, so the job is finished here.
            with lock:
                if not took["started"]:
                    took["dropped"] = True
                    finished.set()

        task = self.spawn(job(), name, on_error)
        task.add_done_callback(ended)
        return task

    def _owner_alive(self) -> bool:
        if self._owner is None:
            return True
        owner = self._owner()
        return owner is not None and shiboken6.isValid(owner)

    def pending_threads(self) -> int:
        """Worker threads of this owner's jobs that may still run (what :meth:`drain` waits for)."""
        return sum(1 for e in self._threads if not e.is_set())

    def cancel_all(self) -> None:
        for t in list(self._tasks):
            t.cancel()

    async def drain(self, timeout_s: float = 10.0) -> None:
        """Wait (without blocking the loop) until the worker threads of cancelled jobs have returned,
        so none of them calls back into an event loop that is closing (at window close)."""
        deadline = time.monotonic() + timeout_s
        # Polled on the loop, not waited for in a worker thread: at window close every view drains
        # at once, and waiters holding the loop's few pool threads would queue the very jobs they wait for.
        while True:
            self._threads = {e for e in self._threads if not e.is_set()}
            if not self._threads or time.monotonic() >= deadline:
                break
            await asyncio.sleep(0.02)
        await asyncio.sleep(0)  # let the threads' completion callbacks run on the loop

    async def wait_all(self) -> None:
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def __len__(self) -> int:
        return len(self._tasks)


@dataclass
class LoadStats:
    """What the initial load cost, for the bench and the status bar."""

    rows: int = 0
    read_s: float = 0.0       # in the worker thread
    apply_s: float = 0.0      # on the GUI thread (model inserts, summed)
    total_s: float = 0.0      # wall time, first read to last insert


#: Team mode: seconds between reads of the other desktops' changes, and how far each read reaches back
#: before the previous one.
FOLLOW_S = 1.0
FOLLOW_OVERLAP_S = 5.0


class TaskFeed(QObject):
    """Keeps a :class:`TaskTableModel` in step with the store: one initial load in a thread, then
    bridge events (``taskChanged`` straight into the model's coalescing queue; ``tasksAdded`` ->
    one threaded fetch of the new rows at a time, ids batched meanwhile)."""

    loaded = Signal(object)   # LoadStats

    def __init__(self, location: StoreLocation | Path, model: TaskTableModel, bridge: SchedulerBridge,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.location = location
        self.model = model
        self.load_stats = LoadStats()
        self.is_loaded = False
        self._jobs = TaskJobs()
        self._wanted: list[str] = []
        self._fetching = False
        self._read_from = time.time()
        #: Team mode: the other desktops' writes are read every this many seconds (0: not followed).
        self.follow_s = 0.0
        bridge.taskChanged.connect(self._on_changed)
        bridge.tasksAdded.connect(self._on_added)
        bridge.laneStats.connect(self._on_lane_stats)

    async def load(self, chunk: int = 5000) -> LoadStats:
        """Read every task in a worker thread, then insert them ``chunk`` rows at a time, yielding
        to the loop in between (one insert of everything would freeze the window)."""
        t0 = time.perf_counter()
        self._read_from = time.time()
        columns = await asyncio.to_thread(read_all_columns, self.location)
        t1 = time.perf_counter()
        apply_s = 0.0
        for i in range(0, max(len(columns), 1), chunk):
            t = time.perf_counter()
            self.model.add_columns(columns.slice(i, i + chunk))
            self.model.flush()
            apply_s += time.perf_counter() - t
            await asyncio.sleep(0)
        self.load_stats = LoadStats(rows=len(columns), read_s=t1 - t0, apply_s=apply_s,
                                    total_s=time.perf_counter() - t0)
        self.is_loaded = True
        self.loaded.emit(self.load_stats)
        return self.load_stats

    def _on_changed(self, ev: TaskChanged) -> None:
        self.model.apply_change(ev)

    def _on_lane_stats(self, ev: LaneStats) -> None:
        self.model.apply_lane_stats(ev)

    def _on_added(self, ev: TasksAdded) -> None:
        self._wanted.extend(ev.task_ids)
        if not self._fetching:
            self._fetching = True
            self._jobs.spawn(self._fetch_loop(), "console:fetch-added")

    async def _fetch_loop(self) -> None:
        try:
            while self._wanted:
                ids, self._wanted = self._wanted, []
                columns = await asyncio.to_thread(fetch_columns, self.location, ids)
                self.model.add_columns(columns)
        finally:
            self._fetching = False

    def follow_others(self, interval_s: float = FOLLOW_S) -> None:
        """Team mode: the bus carries only this desktop's changes; read what every desktop wrote since
        the last read (new tasks, claims, results) every ``interval_s``, in a worker thread. A read
        overlaps the previous one by :data:`FOLLOW_OVERLAP_S` (the desktops' clocks and commits in flight);
        the mirror drops what it already has (versions)."""
        if self.follow_s:
            return
        self.follow_s = interval_s
        self._jobs.spawn(self._follow_loop(), "console:follow-team")

    async def _follow_loop(self) -> None:
        while True:
            await asyncio.sleep(self.follow_s)
            started = time.time()
            try:
                columns = await asyncio.to_thread(fetch_changed, self.location, self._read_from - FOLLOW_OVERLAP_S)
            except Exception as exc:  # the server is away for a moment: try again at the next round
                log.warning("console: reading the other desktops' changes failed: %s", exc)
                continue
            self._read_from = started
            if len(columns):
                self.model.add_columns(columns)

    @property
    def busy(self) -> bool:
        return self._fetching or bool(self._wanted)

    def close(self) -> None:
        self._jobs.cancel_all()

    async def aclose(self) -> None:
        self._jobs.cancel_all()
        await self._jobs.wait_all()
