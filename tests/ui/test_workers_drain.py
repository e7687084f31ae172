"""A cancelled console job's worker thread runs on to its end; closing the window waits for it, so no
thread calls back into an event loop that is gone (seen as a teardown error ~1 run in 10)."""

from __future__ import annotations

import asyncio
import concurrent.futures
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


async def test_a_job_cancelled_before_its_thread_started_is_not_waited_for() -> None:
    """All worker threads busy (CI: 2 cores give the loop's pool 6 threads, and seven views drain at
    once at window close): a job still queued when it is cancelled never runs, so its thread will
    never end. Seen as a window close that took the whole drain timeout (10 s) and failed a test."""
    loop = asyncio.get_running_loop()
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    loop.set_default_executor(pool)
    release = threading.Event()
    returned = threading.Event()
    ran: list[str] = []

    def busy() -> str:
        release.wait(30)
        returned.set()
        return "busy"

    def queued() -> str:
        ran.append("queued")
        return "queued"

    jobs = TaskJobs()
    jobs.in_thread(busy, "busy", lambda _v: None)
    jobs.in_thread(queued, "queued", lambda _v: None)
    await asyncio.sleep(0.05)
    jobs.cancel_all()
    await jobs.wait_all()
    release.set()
    # the one pool thread takes this only after the busy job and any queued item before it
    assert await loop.run_in_executor(None, returned.wait, 30)
    # the busy thread has ended; the queued job never started: nothing is left to wait for
    assert jobs.pending_threads() == 0
    assert ran == []  # a cancelled job that had not started never runs later
    await jobs.drain(timeout_s=60.0)
    pool.shutdown()
