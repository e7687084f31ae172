"""A cancelled console job's worker thread runs on to its end; closing the window waits for it, so no
thread calls back into an event loop that is gone (seen as a teardown error ~1 run in 10)."""

from __future__ import annotations

import asyncio
import threading

from mediadesk.ui.jobs.workers import TaskJobs


async def test_drain_waits_for_the_threads_of_cancelled_jobs() -> None:
    release = threading.Event()
    returned = threading.Event()
    delivered: list[int] = []

    def slow() -> int:
        release.wait(10)
        returned.set()
        return 1

    jobs = TaskJobs()
    jobs.in_thread(slow, "slow read", delivered.append)
    await asyncio.sleep(0.05)  # the thread is running
    jobs.cancel_all()
    await jobs.wait_all()
    assert not returned.is_set()  # cancelling the job did not stop its thread
    threading.Timer(0.2, release.set).start()
    await jobs.drain()
    assert returned.is_set()  # drain returned only once the thread had
    assert delivered == []  # and a cancelled job's result is never delivered


async def test_drain_with_nothing_running_returns_at_once() -> None:
    jobs = TaskJobs()
    jobs.in_thread(lambda: 2, "quick", lambda _v: None)
    await jobs.wait_all()
    await asyncio.wait_for(jobs.drain(), 1)
