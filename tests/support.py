"""Test helpers importable from any test module."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any

from mediadesk.config.model import AppConfig, parse_config
from mediadesk.config.workspace import Workspace
from mediadesk.store import TaskReader, TaskRecord

FAST = {
    "retry": {"max_retries": 2, "backoff_base_s": 0.01, "backoff_max_s": 0.2},
    "heartbeat": {"interval_s": 0.05, "stale_after_s": 0.5},
    "scheduler": {"poll_interval_s": 0.05, "kill_grace_s": 1.0},
}


def make_config(profiles: list[dict], accounts: list[dict] | None = None, **extra: object) -> AppConfig:
    data: dict = {**FAST, "profiles": profiles, "accounts": accounts or []}
    for k, v in extra.items():
        data[k] = {**data.get(k, {}), **v} if isinstance(v, dict) else v
    return parse_config(data, "test-config")


async def until(
    predicate: Callable[[], bool | Awaitable[bool]],
    what: str,
    *,
    limit_s: float = 10.0,
    step_s: float = 0.01,
) -> None:
    """Return as soon as ``predicate()`` holds (it may be sync or async); poll every ``step_s``.

    ``limit_s`` is a safety net against a hung test, never a speed assertion: when it runs out
    the test fails with an AssertionError naming ``what`` it waited for. Use an event instead
    when the code under test exposes one.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit_s
    while True:
        held = predicate()
        if inspect.isawaitable(held):
            held = await held
        if held:
            return
        if loop.time() >= deadline:
            raise AssertionError(f"timed out after {limit_s:g} s waiting for {what}")
        await asyncio.sleep(step_s)


def tasks_of(ws: Workspace) -> dict[str, TaskRecord]:
    """Every task of the workspace's database, by id (a read-only connection of its own)."""
    r = TaskReader(ws.location)
    try:
        return {t.task_id: t for t in r.iter_tasks()}
    finally:
        r.close()


def log_messages(ws: Workspace, task_id: str) -> list[str]:
    """The task log's messages, oldest first."""
    r = TaskReader(ws.location)
    try:
        return [ln.message for ln in r.logs(task_id)]
    finally:
        r.close()


class Stalled(Exception):
    """A wait saw nothing happen for its whole stall budget (not an AssertionError: qtbot.waitUntil
    treats those as 'not yet' and keeps waiting)."""


def wait_progressing(qtbot: Any, done: Callable[[], bool], progress: Callable[[], object], what: str, *,
                     stall_s: float = 30.0) -> None:
    """Wait (running the Qt loop) until ``done()``, for as long as the work moves: ``progress()`` (a
    count of finished tasks, a progress bar's value...) is read on every poll, and the wait gives up
    only when it has not changed for ``stall_s``. A loaded machine makes a batch slower, never
    stuck; a total time budget measures the machine, this one waits on the events (tasks ending)."""
    last = [progress()]
    since = [time.monotonic()]

    def check() -> bool:
        if done():
            return True
        now, value = time.monotonic(), progress()
        if value != last[0]:
            last[0], since[0] = value, now
        elif now - since[0] > stall_s:
            raise Stalled(f"nothing happened for {stall_s:g} s while waiting for {what} (at {value!r})")
        return False

    qtbot.waitUntil(check, timeout=24 * 3600 * 1000)  # bounded by the stall check (and pytest-timeout)
