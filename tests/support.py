"""Test helpers importable from any test module.

- ``make_config`` / ``FAST``: a config with the fast timings every test uses.
- ``until``: wait for a condition (a safety limit, never a speed assertion).
- ``require`` / ``skip_unless``: the only ways a test is skipped (see their docstrings: under CI a
  missing resource fails, it never skips).
- ``mediadesk`` / ``mediadesk_async``: ``python -m mediadesk ARGS`` in its own process, as a user runs it.
- ``tasks_of`` / ``log_messages``: what the workspace's database holds.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from mediadesk.config.model import AppConfig, parse_config
from mediadesk.config.workspace import Workspace
from mediadesk.store import TaskReader, TaskRecord

ROOT = Path(__file__).resolve().parents[1]

FAST = {
    "retry": {"max_retries": 2, "backoff_base_s": 0.01, "backoff_max_s": 0.2},
    # stale_after_s: a lane reaps its OWN attempt whose heartbeat is that old (a hung run), so it is a
    # wall-clock budget: at 0.5 s a loaded machine's stalled loop exhausted it and a prompt went twice.
    # Tests of reaping set an old heartbeat or their own value.
    "heartbeat": {"interval_s": 0.05, "stale_after_s": 3.0},
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


# ------------------------------------------------------------------------------------------ skipping
def under_ci() -> bool:
    """True when the run is CI's (``CI`` set to anything but empty, ``0`` or ``false``)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def require(condition: object, reason: str) -> None:
    """Go on only if ``condition`` holds: a resource the test needs (a browser, a tool, a server).

    Without it a local run skips the test with ``reason``; under CI (``CI=true``) the test FAILS,
    because CI installs every resource (``./dev``) and a test that silently did not run proves
    nothing. Call it from the test or fixture that needs the resource."""
    if condition:
        return
    if under_ci():
        pytest.fail(f"{reason} (a missing resource fails under CI instead of skipping)", pytrace=False)
    pytest.skip(reason)


def skip_unless(condition: object, reason: str) -> pytest.MarkDecorator:
    """Mark a test that can only run in some environments (root, another OS user, an OS, a
    kernel that allows mounting): skipped elsewhere, under CI too, and its reason says so. Not for
    something ``./dev`` installs: that is :func:`require`."""
    return pytest.mark.skipif(not condition, reason=f"{reason} (depends on the environment; skipped under CI too)")


def skip_here(reason: str) -> None:
    """The call form of :func:`skip_unless`, for a fact found only while the test runs."""
    pytest.skip(f"{reason} (depends on the environment; skipped under CI too)")


# ------------------------------------------------------------------------------------------ the CLI in a process
class Result(NamedTuple):
    """A finished ``mediadesk`` process: exit code, stdout, stderr (unpacks as ``rc, out, err``)."""

    rc: int
    out: str
    err: str

    def refused(self, words: str) -> bool:
        """Exit 2, one ``mediadesk:`` message that says ``words``, no traceback."""
        return (
            self.rc == 2 and "Traceback" not in self.err and "mediadesk: " in self.err
            and words.lower() in self.err.lower()
        )


def _command(args: tuple[str | Path, ...], user: str | None) -> list[str]:
    cmd = [sys.executable, "-m", "mediadesk", *map(str, args)]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *cmd]
    return cmd


def _environment(env: Mapping[str, str] | None) -> dict[str, str]:
    """The test's environment, unbuffered, with this checkout first on the path; ``env`` on top."""
    return {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT), **(env or {})}


def mediadesk(
    *args: str | Path,
    env: Mapping[str, str] | None = None,
    cwd: Path = ROOT,
    timeout: float = 120,
    umask: int | None = None,
    user: str | None = None,
) -> Result:
    """Run ``python -m mediadesk ARGS`` to its end (blocking: not for a test whose servers run on its
    own event loop, use :func:`mediadesk_async` there). ``umask``: the child's umask; ``user``: run as
    that OS user (``setpriv``, needs root)."""
    # Popen's own umask (POSIX; ignored on Windows), not a preexec_fn, which Windows refuses
    proc = subprocess.run(_command(args, user), capture_output=True, text=True, cwd=cwd, env=_environment(env),
                          timeout=timeout, check=False, umask=-1 if umask is None else umask)
    return Result(proc.returncode, proc.stdout, proc.stderr)


async def mediadesk_async(
    *args: str | Path, env: Mapping[str, str] | None = None, cwd: Path = ROOT, limit_s: float = 120,
) -> Result:
    """:func:`mediadesk` on the running event loop, which keeps serving meanwhile. A process still
    running after ``limit_s`` is killed and the test fails with its output."""
    proc = await asyncio.create_subprocess_exec(
        *_command(args, None), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=cwd,
        env=_environment(env),
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), limit_s)
    except TimeoutError:
        proc.kill()
        out, err = await proc.communicate()
        raise AssertionError(
            f"mediadesk {' '.join(map(str, args))} did not exit within {limit_s:g} s\n"
            f"stdout: {out.decode()[-2000:]}\nstderr: {err.decode()[-2000:]}"
        ) from None
    return Result(proc.returncode or 0, out.decode(), err.decode())


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
