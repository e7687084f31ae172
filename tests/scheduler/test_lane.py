"""Scheduling logic over a real store (an SQLite file; a PostgreSQL database) with a scripted in-process
backend (no network)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable

import pytest

from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import RunContext, TaskSpec
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.core.log_lines import LOG
from mediadesk.providers.web import InstanceLockedError
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.events import TaskChanged
from mediadesk.store import DatabaseBusyError, TaskReader, open_store
from tests.support import make_config

API = {"name": "p", "kind": "api", "base_url": "http://127.0.0.1:9/v1", "model": "m", "concurrency": 3}


class ScriptedBackend:
    """Runs ``behave(spec)`` per attempt; records concurrency and cancellations."""

    #: Optional LaneBackend abilities this stand-in has not got.
    attempt_deadline_s = None
    domain = None
    probe = None
    login = None
    unavailable_reason = None
    max_run_s = None
    check = None
    check_adapter = None
    resolve_challenge = None
    challenge_screenshot = None

    def __init__(self, behave: Callable[[TaskSpec], object], capacity: int = 3) -> None:
        self.capacity = capacity
        self.behave = behave
        self.in_flight = 0
        self.max_in_flight = 0
        self.cancelled: list[str] = []
        self.seen: list[TaskSpec] = []

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        pass

    def available(self) -> bool:
        return True

    def health(self) -> tuple[str, str | None]:
        return ("ready", None)

    async def run(self, task: TaskSpec, ctx: RunContext) -> str:
        self.seen.append(task)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            out = self.behave(task)
            if asyncio.iscoroutine(out):
                out = await out
            if isinstance(out, BaseException):
                raise out
            ctx.log(LOG.as_is(text=f"ran {task.task_id}"))
            return str(out)
        except asyncio.CancelledError:
            self.cancelled.append(task.task_id)
            raise
        finally:
            self.in_flight -= 1


@pytest.fixture
def workspace(any_workspace: Workspace) -> Workspace:
    """On both back-ends: a fresh SQLite file, and a fresh PostgreSQL database (team mode)."""
    return any_workspace


async def quick(task: TaskSpec) -> str:
    await asyncio.sleep(0.01)
    return f"answer to {task.prompt}"


def sched(workspace: Workspace, backend: ScriptedBackend, **cfg: object) -> Scheduler:
    config = make_config([{**API, "concurrency": backend.capacity}], **cfg)
    return Scheduler(config, workspace, backend_factory=lambda p, a: backend)


def rows(workspace: Workspace) -> dict[str, object]:
    r = TaskReader(workspace.location)
    try:
        return {t.task_id: t for t in r.iter_tasks()}
    finally:
        r.close()


async def test_batch_succeeds_within_capacity(workspace: Workspace) -> None:
    backend = ScriptedBackend(quick, capacity=3)
    async with sched(workspace, backend) as s:
        s.intake.submit([s.intake.new_task(f"t{i}", "p", f"q{i}") for i in range(30)])
        await asyncio.wait_for(s.wait_idle(), 30)
    tasks = rows(workspace)
    assert {t.state for t in tasks.values()} == {"success"}
    assert tasks["t7"].result == "answer to q7"
    assert all(t.attempt == 1 for t in tasks.values())
    assert 1 < backend.max_in_flight <= 3


async def test_retryable_then_success_same_row(workspace: Workspace) -> None:
    fails = {"n": 0}

    def behave(task: TaskSpec) -> object:
        if fails["n"] < 2:
            fails["n"] += 1
            return TaskFailure(ErrorKind.SERVER_ERROR, "HTTP 500")
        return "ok"

    backend = ScriptedBackend(behave, capacity=1)
    async with sched(workspace, backend) as s:
        s.intake.submit([s.intake.new_task("a", "p", "x")])
        await asyncio.wait_for(s.wait_idle(), 30)
    t = rows(workspace)["a"]
    assert (t.state, t.attempt, t.result) == ("success", 3, "ok")
    assert [sp.attempt for sp in backend.seen] == [1, 2, 3]


async def test_retryable_exhausted_after_exactly_three_attempts(workspace: Workspace) -> None:
    backend = ScriptedBackend(lambda t: TaskFailure(ErrorKind.SERVER_ERROR, "HTTP 500", retry_after_s=0.01))
    async with sched(workspace, backend) as s:
        s.intake.submit([s.intake.new_task("a", "p", "x")])
        await asyncio.wait_for(s.wait_idle(), 30)
    t = rows(workspace)["a"]
    assert (t.state, t.attempt, t.error_kind) == ("failed", 3, "server_error")
    assert len(backend.seen) == 3


async def test_refusals_are_never_charged_and_expire_on_the_wait_budget(workspace: Workspace) -> None:
    """A callee that only refuses (429) never costs the task an attempt: it waits at the head of the
    queue while the endpoint is paused, until its max_wait_s budget ends it as expired."""
    backend = ScriptedBackend(lambda t: TaskFailure(ErrorKind.RATE_LIMITED, "429", retry_after_s=0.01))
    cfg = make_config([{**API, "max_wait_s": 0.6}])
    async with Scheduler(cfg, workspace, backend_factory=lambda p, a: backend) as s:
        s.intake.submit([s.intake.new_task("a", "p", "x")])
        await asyncio.wait_for(s.wait_idle(), 30)
    t = rows(workspace)["a"]
    assert (t.state, t.attempt, t.error_kind) == ("failed", 0, "expired")
    assert len(backend.seen) >= 3  # it was tried again and again, at no cost


async def test_not_retryable_fails_once(workspace: Workspace) -> None:
    backend = ScriptedBackend(lambda t: TaskFailure(ErrorKind.BAD_REQUEST, "HTTP 400"))
    async with sched(workspace, backend) as s:
        s.intake.submit([s.intake.new_task("a", "p", "x")])
        await asyncio.wait_for(s.wait_idle(), 30)
    t = rows(workspace)["a"]
    assert (t.state, t.attempt, t.error_kind) == ("failed", 1, "bad_request")


async def test_cancel_pending_and_running(workspace: Workspace) -> None:
    started = asyncio.Event()

    async def slow(task: TaskSpec) -> str:
        started.set()
        await asyncio.sleep(60)
        return "never"

    backend = ScriptedBackend(slow, capacity=1)
    events: list[TaskChanged] = []
    async with sched(workspace, backend) as s:
        s.bus.subscribe(lambda e: events.append(e) if isinstance(e, TaskChanged) else None)
        s.intake.submit([s.intake.new_task("run", "p", "x"), s.intake.new_task("wait", "p", "y")])
        await asyncio.wait_for(started.wait(), 10)
        assert s.cancel(["wait"]) == 1
        assert rows(workspace)["wait"].state == "canceled"  # at once
        s.cancel(["run"])
        await asyncio.wait_for(s.wait_idle(), 10)
    tasks = rows(workspace)
    assert tasks["run"].state == "canceled" and tasks["run"].result is None
    assert backend.cancelled == ["run"]
    assert not any(e.state == "success" for e in events)


async def test_cancel_flag_from_another_process_seen_at_heartbeat(workspace: Workspace) -> None:
    started = asyncio.Event()

    async def slow(task: TaskSpec) -> str:
        started.set()
        await asyncio.sleep(60)
        return "never"

    backend = ScriptedBackend(slow, capacity=1)
    async with sched(workspace, backend) as s:
        s.intake.submit([s.intake.new_task("run", "p", "x")])
        await asyncio.wait_for(started.wait(), 10)  # the lane claims the row (running) before it starts the attempt
        assert rows(workspace)["run"].state == "running"
        # another process (e.g. a CLI) sets the flag directly in the database
        other = open_store(workspace.location)
        con = other.connect_shared()
        con.execute("UPDATE task SET cancel_requested=TRUE WHERE task_id='run'")
        con.close()
        other.close()
        await asyncio.wait_for(s.wait_idle(), 10)
    assert rows(workspace)["run"].state == "canceled"


async def test_attempt_deadline_is_retryable_timeout(workspace: Workspace) -> None:
    calls = {"n": 0}

    async def hang_once(task: TaskSpec) -> str:
        calls["n"] += 1
        if calls["n"] == 1:
            await asyncio.sleep(60)
        return "second try"

    backend = ScriptedBackend(hang_once, capacity=1)
    cfg = {**API, "timeout_s": 0.2, "concurrency": 1}
    s = Scheduler(make_config([cfg]), workspace, backend_factory=lambda p, a: backend)
    # the lane deadline is a backstop past the profile's max_run_s (600 s); shrink it for the test
    async with s:
        s.lanes[0]._deadline_s = 0.3
        s.intake.submit([s.intake.new_task("a", "p", "x")])
        await asyncio.wait_for(s.wait_idle(), 30)
    t = rows(workspace)["a"]
    assert (t.state, t.attempt, t.result) == ("success", 2, "second try")


async def test_second_scheduler_on_same_db_is_refused(workspace: Workspace) -> None:
    backend = ScriptedBackend(quick)
    async with sched(workspace, backend):
        other = sched(workspace, ScriptedBackend(quick))
        if workspace.db_url is None:
            with pytest.raises(DatabaseBusyError, match="in use by MediaDesk process"):
                await other.start()
        else:  # PostgreSQL is shared by design: only the data dir (browser profiles) is one per process
            with pytest.raises(InstanceLockedError):
                await other.start()


async def test_recovery_of_orphaned_running_tasks(workspace: Workspace) -> None:
    backend = ScriptedBackend(quick)
    s = sched(workspace, backend)
    s.open()
    s.intake.submit([s.intake.new_task(f"t{i}", "p", "x") for i in range(3)])
    # simulate a crashed owner: claim without running
    s.store.claim(["p"], 3, lane="api:p", account=None, owner="dead:1:x")
    s.store.request_cancel(["t2"])  # flag set on a running task
    s.store.close()
    s._store = None
    if s._dblock is not None:
        s._dblock.release()
    s._dirlock.release()
    s2 = sched(workspace, backend)
    s2.open()
    # SQLite: the database lock proves the owner gone. PostgreSQL: another desktop may be running rows,
    # but this owner never joined the team (no desktop row): the database knows it is no live desktop,
    # so its rows are recovered at once too (a live desktop's rows would be left alone: tests/team)
    assert s2.store.running() == []
    async with s2:
        await asyncio.wait_for(s2.wait_idle(), 10)
    tasks = rows(workspace)
    assert tasks["t0"].state == "success" and tasks["t0"].attempt == 2
    assert tasks["t2"].state == "canceled"


async def test_stale_heartbeat_is_reaped_and_retried(workspace: Workspace) -> None:
    backend = ScriptedBackend(quick, capacity=1)
    async with sched(workspace, backend) as s:
        s.lanes[0].paused = True
        s.intake.submit([s.intake.new_task("a", "p", "x")])
        # a running row owned by someone whose heartbeat stopped long ago
        s.store.claim(["p"], 1, lane="api:p", account=None, owner="ghost", now=time.time() - 100)
        s.lanes[0].paused = False
        s.lanes[0].wake()
        await asyncio.wait_for(s.wait_idle(), 10)
    t = rows(workspace)["a"]
    assert (t.state, t.attempt) == ("success", 2)
    reader = TaskReader(workspace.location)
    logs = reader.logs("a")
    reader.close()
    # PostgreSQL: the team beat may see first that "ghost" is no live desktop (owner_lost) before the
    # lanes' reaper sees its old heartbeat; either way the task is recovered once, by the retry rules
    kinds = ("heartbeat_timeout",) if workspace.db_url is None else ("heartbeat_timeout", "owner_lost")
    assert any(k in ln.message for ln in logs for k in kinds), [ln.message for ln in logs]


async def test_a_stalled_loop_never_reaps_its_own_live_attempt(workspace: Workspace) -> None:
    """This process's loop stalled longer than stale_after_s (a loaded desktop): the attempt's stored
    heartbeat is old, but the attempt is alive here. It is not failed, and its prompt is not sent again."""
    started, release = asyncio.Event(), asyncio.Event()

    async def held(task: TaskSpec) -> str:
        started.set()
        await release.wait()
        return "the one answer"

    backend = ScriptedBackend(held, capacity=1)
    async with sched(workspace, backend, heartbeat={"interval_s": 0.2, "stale_after_s": 1.0}) as s:
        s.intake.submit([s.intake.new_task("a", "p", "x")])
        await asyncio.wait_for(started.wait(), 10)
        lane = s.lanes[0]
        time.sleep(1.5)  # noqa: ASYNC251 - the loop stalls (the point): no heartbeat is written meanwhile
        lane._last_reap = 0.0
        lane._reap(lane._clock())  # the lane's first step after the stall
        release.set()
        await asyncio.wait_for(s.wait_idle(), 10)
    t = rows(workspace)["a"]
    assert (t.state, t.attempt, t.result) == ("success", 1, "the one answer")
    assert [spec.task_id for spec in backend.seen] == ["a"]  # sent once


async def test_shutdown_mid_run_requeues_and_refunds(workspace: Workspace) -> None:
    started = asyncio.Event()

    async def slow(task: TaskSpec) -> str:
        started.set()
        await asyncio.sleep(60)
        return "x"

    backend = ScriptedBackend(slow, capacity=1)
    s = sched(workspace, backend)
    await s.start()
    s.intake.submit([s.intake.new_task("a", "p", "x")])
    await asyncio.wait_for(started.wait(), 10)
    await s.stop()
    t = rows(workspace)["a"]
    assert (t.state, t.attempt) == ("pending", 0)


async def test_need_empty_prompt_toggle_applies_to_next_dispatch(workspace: Workspace) -> None:
    backend = ScriptedBackend(quick, capacity=1)
    cfg = {**API, "instructions": "be brief", "concurrency": 1}
    async with Scheduler(make_config([cfg]), workspace, backend_factory=lambda p, a: backend) as s:
        s.intake.submit([s.intake.new_task("a", "p", "x")])
        await asyncio.wait_for(s.wait_idle(), 10)
        s.set_profile_setting("p", need_empty_prompt=True)
        s.intake.submit([s.intake.new_task("b", "p", "y")])
        await asyncio.wait_for(s.wait_idle(), 10)
    a, b = backend.seen
    assert a.effective_instructions() == "be brief"
    assert b.effective_instructions() is None
    # persisted across restarts
    async with Scheduler(make_config([cfg]), workspace, backend_factory=lambda p, a: backend) as s:
        assert s.profile_view("p").need_empty_prompt is True


async def test_priority_order_and_operator_retry(workspace: Workspace) -> None:
    backend = ScriptedBackend(quick, capacity=1)
    async with sched(workspace, backend) as s:
        s.pause("api")
        s.intake.submit([s.intake.new_task("low", "p", "l"), s.intake.new_task("high", "p", "h", priority=5)])
        s.pause("api", paused=False)
        await asyncio.wait_for(s.wait_idle(), 10)
        assert [sp.task_id for sp in backend.seen] == ["high", "low"]
        s.cancel(["low"])  # already terminal: no-op
        assert rows(workspace)["low"].state == "success"
    backend2 = ScriptedBackend(lambda t: TaskFailure(ErrorKind.BAD_REQUEST, "400"), capacity=1)
    async with sched(workspace, backend2) as s:
        s.intake.submit([s.intake.new_task("bad", "p", "z")])
        await asyncio.wait_for(s.wait_idle(), 10)
        backend2.behave = lambda t: "fixed"
        assert s.retry(["bad"]) == 1
        await asyncio.wait_for(s.wait_idle(), 10)
    t = rows(workspace)["bad"]
    assert (t.state, t.result, t.attempt, t.attempt_base) == ("success", "fixed", 2, 1)


async def test_second_scheduler_on_same_data_dir_is_refused_even_with_another_db(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "data"
    first = Workspace.resolve(data_dir=data).ensure()
    other_db = Workspace.resolve(data_dir=data, db_path=tmp_path / "elsewhere.db").ensure()
    async with sched(first, ScriptedBackend(quick)):
        second = sched(other_db, ScriptedBackend(quick))
        with pytest.raises(InstanceLockedError) as err:
            await second.start()
        msg = str(err.value)
        assert str(first.data_dir) in msg and "browser profiles" in msg and "--data-dir" in msg
        assert "--db" not in msg and f"pid {os.getpid()}" in msg
        assert not second._dblock.held  # nothing half-taken
    async with sched(other_db, ScriptedBackend(quick)):  # free again once the first stops
        pass


async def test_second_scheduler_on_same_db_names_the_database(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Same database from two data dirs: the database message, not the data-dir one."""
    db = tmp_path / "shared.db"
    first = Workspace.resolve(data_dir=tmp_path / "d1", db_path=db).ensure()
    other = Workspace.resolve(data_dir=tmp_path / "d2", db_path=db).ensure()
    async with sched(first, ScriptedBackend(quick)):
        with pytest.raises(DatabaseBusyError) as err:
            await sched(other, ScriptedBackend(quick)).start()
    msg = str(err.value)
    assert str(db) in msg and "--db" in msg and f"MediaDesk process {os.getpid()}" in msg


async def test_conversation_turns_run_in_order_one_at_a_time_with_history(workspace: Workspace) -> None:
    active: dict[str, int] = {}
    overlap: list[str] = []

    async def behave(t: TaskSpec) -> str:
        key = t.route_key
        if key is not None:
            active[key] = active.get(key, 0) + 1
            if active[key] > 1:
                overlap.append(t.task_id)
        await asyncio.sleep(0.02)
        if key is not None:
            active[key] -= 1
        return f"answer to {t.prompt}"

    backend = ScriptedBackend(behave, capacity=3)
    async with sched(workspace, backend) as s:
        s.intake.submit([s.intake.new_task(f"c{i}", "p", f"turn {i}", route_key="conv-1") for i in range(4)]
                 + [s.intake.new_task(f"x{i}", "p", f"other {i}") for i in range(4)])
        await asyncio.wait_for(s.wait_idle(), 30)
    turns = [sp for sp in backend.seen if sp.route_key == "conv-1"]
    assert [sp.task_id for sp in turns] == ["c0", "c1", "c2", "c3"]
    assert overlap == []
    assert [len(sp.history) for sp in turns] == [0, 1, 2, 3]
    assert turns[3].history[2] == ("turn 2", "answer to turn 2")


async def test_a_broken_turn_fails_the_later_turns(workspace: Workspace) -> None:
    backend = ScriptedBackend(
        lambda t: TaskFailure(ErrorKind.BAD_REQUEST, "HTTP 400") if t.task_id == "c1" else "ok", capacity=3
    )
    async with sched(workspace, backend) as s:
        s.intake.submit([s.intake.new_task(f"c{i}", "p", f"turn {i}", route_key="conv") for i in range(4)])
        await asyncio.wait_for(s.wait_idle(), 30)
    r = rows(workspace)
    assert [r[f"c{i}"].state for i in range(4)] == ["success", "failed", "failed", "failed"]
    assert (r["c2"].error_kind, r["c3"].error_kind) == ("conversation_broken", "conversation_broken")
    assert r["c3"].attempt == 0  # never run
    assert {sp.task_id for sp in backend.seen} == {"c0", "c1"}


async def test_high_priority_is_served_first_and_low_is_not_starved(workspace: Workspace) -> None:
    backend = ScriptedBackend(lambda t: "ok", capacity=1)
    async with sched(workspace, backend) as s:
        s.intake.submit([s.intake.new_task(f"l{i}", "p", "x", priority=-1) for i in range(3)]
                 + [s.intake.new_task(f"h{i:02d}", "p", "x", priority=5) for i in range(40)])
        await asyncio.wait_for(s.wait_idle(), 60)
    order = [sp.task_id for sp in backend.seen]
    assert order[0].startswith("h")
    first_low = next(i for i, t in enumerate(order) if t.startswith("l"))
    assert first_low <= 20, f"low channel starved for {first_low} picks"


async def test_web_task_that_keeps_crashing_the_browser_is_quarantined(workspace: Workspace) -> None:
    backend = ScriptedBackend(lambda t: TaskFailure(ErrorKind.BROWSER_CRASH, "browser died"), capacity=1)
    cfg = make_config([{"name": "chat", "kind": "web", "site": "simchat"}], [{"name": "a1", "profile": "chat"}])
    async with Scheduler(cfg, workspace, backend_factory=lambda p, a: backend) as s:
        s.intake.submit([s.intake.new_task("q", "chat", "poison")])
        await asyncio.wait_for(s.wait_idle(), 30)
        assert [r.task_id for r in s.exceptions()] == ["q"]
    t = rows(workspace)["q"]
    assert (t.state, t.error_kind, t.attempt, t.crash_count) == ("failed", "quarantined", 2, 2)


async def test_a_run_cancelled_before_its_first_step_goes_back_to_pending_refunded(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The event loop torn down in the very round that started a run (Ctrl-C, a test's teardown): its
    task is cancelled before its body runs. It is settled all the same - back to pending, the attempt
    refunded, its slot given back - instead of staying 'running' to be charged as an owner lost."""
    from mediadesk.scheduler.lane import Lane

    backend = ScriptedBackend(lambda t: "ok")
    cancelled: list[str] = []
    start = Lane._start

    def start_then_cancel(self: Lane, rec: object, reserved: float = 0.0) -> None:
        start(self, rec, reserved)  # type: ignore[arg-type]
        run = self._running[rec.task_id]  # type: ignore[attr-defined]
        if not cancelled:
            assert run.task is not None
            run.task.cancel()  # before it took a step
            cancelled.append(run.rec.task_id)

    monkeypatch.setattr(Lane, "_start", start_then_cancel)
    async with Scheduler(make_config([API]), workspace, backend_factory=lambda p, a: backend) as s:
        s.intake.submit([s.intake.new_task("t1", "p", "x")])
        await asyncio.wait_for(s.wait_idle(), 30)
        assert all(lane.running_count == 0 for lane in s.lanes)
    t = rows(workspace)["t1"]
    assert cancelled == ["t1"]
    assert (t.state, t.attempt, t.result) == ("success", 1, "ok")  # refunded, then run once
    assert len(backend.seen) == 1
