"""The web lane end to end: real scheduler, real Chromium per account, the chat simulator on 127.0.0.1."""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import psutil
import pytest
import pytest_asyncio

from mediadesk.config.model import AppConfig
from mediadesk.config.workspace import Workspace
from mediadesk.providers.web.backend import WebAccountBackend
from mediadesk.providers.web.finder import chromium_flags
from mediadesk.providers.web.login import login_with_form
from mediadesk.providers.web.selfcheck import singleton_holder
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.lane import Lane
from mediadesk.sim.web_server import WebSimConfig, WebSimServer
from mediadesk.store import TaskReader
from tests.providers.web.helpers import until
from tests.support import make_config

#: One event loop for the module's tests, so they share one Playwright driver (``playwright_hub``).
pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("playwright_hub")]


def web_config(sim: WebSimServer, accounts: list[str], **profile: object) -> AppConfig:
    return make_config(
        [{"name": "chat", "kind": "web", "site": "simchat", "url": sim.chat_url, **profile}],
        [{"name": a, "profile": "chat"} for a in accounts],
        heartbeat={"interval_s": 0.2, "stale_after_s": 30},
        scheduler={"kill_grace_s": 1.0},
    )


async def login_all(cfg: AppConfig, ws: Workspace, sim: WebSimServer) -> None:
    """Every account logged in on its own profile, all at once (each under its own account lock)."""
    await asyncio.gather(*(
        login_with_form(cfg, ws, acc.name, sim.login_url, fields={"#account": acc.name, "#password": "pw"},
                        submit="button.login", logged_in=".avatar")
        for acc in cfg.accounts
    ))


def tasks_of(ws: Workspace) -> dict:
    r = TaskReader(ws.db_path)
    try:
        return {t.task_id: t for t in r.iter_tasks()}
    finally:
        r.close()


def logs_of(ws: Workspace, tid: str) -> list[str]:
    r = TaskReader(ws.db_path)
    try:
        return [f"[{ln.lane}] {ln.message}" for ln in r.logs(tid)]
    finally:
        r.close()


def our_browsers(root: Path) -> list[int]:
    out = []
    for p in psutil.process_iter(["pid", "cmdline"]):
        with __import__("contextlib").suppress(psutil.Error):
            if any(str(root) in a for a in (p.info["cmdline"] or [])):
                out.append(p.pid)
    return out


def lane_rounds(lane: Lane) -> asyncio.Event:
    """Set the next time the lane's own loop asks its backend whether it may dispatch. Other callers
    (the stats ticker) ask too; only the loop task (named ``lane:<name>``) counts."""
    event = asyncio.Event()
    ask = lane.backend.available
    loop_task = f"lane:{lane.name}"

    def available() -> bool:
        task = asyncio.current_task()
        if task is not None and task.get_name() == loop_task:
            event.set()
        return ask()

    lane.backend.available = available  # type: ignore[method-assign]
    return event


@pytest_asyncio.fixture(loop_scope="module")
async def sim() -> AsyncIterator[WebSimServer]:
    # time_scale 0.0025: drawn runs of ~0.1-0.9 s, [[sim:slow=N]] lasts N / 400 s
    async with WebSimServer(WebSimConfig(time_scale=0.0025, seed=3, answer_tokens=12)) as server:
        yield server


@pytest.fixture(autouse=True)
def no_browser_left(workspace: Workspace):  # type: ignore[no-untyped-def]
    yield
    left = our_browsers(workspace.data_dir)
    for pid in left:
        with __import__("contextlib").suppress(psutil.Error):
            psutil.Process(pid).kill()
    assert not left, f"chromium left running on our profiles: {left}"


async def test_batch_on_two_accounts_never_overlaps(workspace: Workspace, sim: WebSimServer) -> None:
    cfg = web_config(sim, ["acct-a", "acct-b"])
    await login_all(cfg, workspace, sim)
    prompts = {f"t{i}": f"问题 {i}: explain item {i} 🚀" for i in range(10)}
    async with Scheduler(cfg, workspace) as s:
        s.intake.submit([s.intake.new_task(t, "chat", p) for t, p in prompts.items()])
        await asyncio.wait_for(s.wait_idle(), 120)
    stats = sim.stats()
    tasks = tasks_of(workspace)
    assert {t.state for t in tasks.values()} == {"success"}, {t: (x.state, x.error_message) for t, x in tasks.items()}
    assert stats["concurrent_violations"] == 0
    assert stats["max_concurrent_per_session"] == 1
    assert {t.account for t in tasks.values()} == {"acct-a", "acct-b"}  # both accounts worked
    answers = {g["prompt"]: g["answer"] for g in stats["generations"] if g["status"] == "completed"}
    for tid, prompt in prompts.items():
        # instructions are prepended unless need_empty_prompt; the sim echoes what was typed
        sent = next(p for p in answers if p.endswith(prompt))
        assert tasks[tid].result == answers[sent]  # stored exactly as the page showed it
        assert any("chromium pid" in line for line in logs_of(workspace, tid))
    # the prewarm's self-check is in the log of the first task each account ran
    firsts = [min((t for t in tasks.values() if t.account == acc), key=lambda t: t.started_at or 0)
              for acc in ("acct-a", "acct-b")]
    for t in firsts:
        assert any("(at lane start) self-check: clean" in line for line in logs_of(workspace, t.task_id))


async def test_need_empty_prompt_types_only_the_content(workspace: Workspace, sim: WebSimServer) -> None:
    cfg = web_config(sim, ["acct-a"], instructions="SYSTEM-INSTRUCTIONS", need_empty_prompt=True)
    await login_all(cfg, workspace, sim)
    async with Scheduler(cfg, workspace) as s:
        s.intake.submit([s.intake.new_task("a", "chat", "only me")])
        await asyncio.wait_for(s.wait_idle(), 60)
        s.set_profile_setting("chat", need_empty_prompt=False)
        s.intake.submit([s.intake.new_task("b", "chat", "with instructions")])
        await asyncio.wait_for(s.wait_idle(), 60)
    prompts = [g["prompt"] for g in sim.stats()["generations"]]
    assert prompts[0] == "only me"
    assert prompts[1].startswith("SYSTEM-INSTRUCTIONS") and prompts[1].endswith("with instructions")


async def test_hang_is_caught_by_time_limit_and_retried(workspace: Workspace, sim: WebSimServer) -> None:
    cfg = web_config(sim, ["acct-a"], max_run_s=2.0)
    await login_all(cfg, workspace, sim)
    async with Scheduler(cfg, workspace) as s:
        s.intake.submit([s.intake.new_task("h", "chat", "stall [[sim:hang]]"),
                         s.intake.new_task("ok", "chat", "fine [[sim:slow=20]]")])
        await asyncio.wait_for(s.wait_idle(), 120)
    tasks = tasks_of(workspace)
    # timed out its whole run twice: retried once, then set aside as a poison pill for a person
    assert (tasks["h"].state, tasks["h"].attempt, tasks["h"].error_kind) == ("failed", 2, "quarantined")
    assert tasks["h"].crash_count == 2
    assert tasks["ok"].state == "success"
    stats = sim.stats()
    assert stats["concurrent_violations"] == 0
    assert [g["status"] for g in stats["generations"] if "hang" in g["prompt"]] == ["stopped"] * 2
    assert any("evidence:" in line for line in logs_of(workspace, "h"))


async def test_browser_killed_mid_run_is_retried_on_fresh_browser(workspace: Workspace, sim: WebSimServer) -> None:
    cfg = web_config(sim, ["acct-a"])
    await login_all(cfg, workspace, sim)
    async with Scheduler(cfg, workspace) as s:
        backend = s.lanes[0].backend
        assert isinstance(backend, WebAccountBackend)
        s.intake.submit([s.intake.new_task("k", "chat", "long one [[sim:slow=400]]")])  # 1 s at this time scale
        await until(lambda: sim.stats()["generations_started"] > 0, 60, "the generation to start")
        first_pid = backend.browser.pids[-1]
        os.kill(first_pid, signal.SIGKILL)
        await asyncio.wait_for(s.wait_idle(), 90)
        pids = list(backend.browser.pids)
    t = tasks_of(workspace)["k"]
    assert (t.state, t.attempt) == ("success", 2), (t.error_kind, t.error_message)
    assert len(set(pids)) >= 2 and pids[0] == first_pid
    assert not psutil.pid_exists(first_pid) or psutil.Process(first_pid).status() == psutil.STATUS_ZOMBIE
    assert sim.stats()["concurrent_violations"] == 0
    assert any("browser_crash" in line for line in logs_of(workspace, "k"))


async def test_logout_gives_needs_login_without_retry(workspace: Workspace, sim: WebSimServer) -> None:
    cfg = web_config(sim, ["acct-a"])
    await login_all(cfg, workspace, sim)
    async with Scheduler(cfg, workspace) as s:
        s.intake.submit([s.intake.new_task("l", "chat", "bye [[sim:logout]]")])
        await until(lambda: tasks_of(workspace)["l"].state not in ("pending", "running"), 60, "task l to end")
        lane = s.lanes[0]
        assert lane.backend.health()[0] == "needs_login"
        assert not lane.can_dispatch()
        rounds = lane_rounds(lane)
        s.intake.submit([s.intake.new_task("after", "chat", "waits")])
        # The lane asks the backend before it claims, and claims in the same step: once its loop has
        # asked after the submit, the task was either claimed then or refused.
        await asyncio.wait_for(rounds.wait(), 30)
        assert tasks_of(workspace)["after"].state == "pending"  # not sent to a logged-out account
    t = tasks_of(workspace)["l"]
    assert (t.state, t.attempt, t.error_kind) == ("failed", 1, "needs_login")


async def test_cancel_while_generating(workspace: Workspace, sim: WebSimServer) -> None:
    cfg = web_config(sim, ["acct-a"])
    await login_all(cfg, workspace, sim)
    async with Scheduler(cfg, workspace) as s:
        s.intake.submit([s.intake.new_task("c", "chat", "long [[sim:slow=2000]]")])

        def streaming() -> bool:
            gens = sim.stats()["generations"]
            return bool(gens) and gens[0]["tokens_sent"] >= 2

        await until(streaming, 60, "the answer to stream")  # cancel mid-answer, not before it
        s.cancel(["c"])
        await asyncio.wait_for(s.wait_idle(), 30)
        s.intake.submit([s.intake.new_task("next", "chat", "after cancel")])
        await asyncio.wait_for(s.wait_idle(), 60)
    tasks = tasks_of(workspace)
    assert tasks["c"].state == "canceled" and tasks["c"].result is None
    assert tasks["next"].state == "success"
    gens = sim.stats()["generations"]
    assert gens[0]["status"] in ("stopped", "disconnected")
    assert sim.stats()["concurrent_violations"] == 0


async def test_foreign_holder_is_reported_and_left_alone(
    workspace: Workspace, sim: WebSimServer, chromium_exe: Path
) -> None:
    cfg = web_config(sim, ["acct-a"])
    await login_all(cfg, workspace, sim)
    profile_dir = workspace.account_profile_dir("acct-a")
    # a browser the operator opened by hand on that profile (not started by MediaDesk)
    holder = subprocess.Popen([str(chromium_exe), *chromium_flags(True), f"--user-data-dir={profile_dir}",  # noqa: ASYNC220 (starts it, waits for nothing)
                               "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def holds_profile() -> bool:  # Chromium's own lock names it: the profile is taken
            info = singleton_holder(profile_dir)
            return info is not None and info.pid == holder.pid

        await until(holds_profile, 30, "the hand-opened browser to take the profile")
        async with Scheduler(cfg, workspace) as s:
            s.intake.submit([s.intake.new_task("f", "chat", "hello")])
            await until(lambda: any("in use by" in ln for ln in logs_of(workspace, "f")), 30,
                        "the task log to name the holder", poll_s=0.05)
            lines = logs_of(workspace, "f")
            assert any(f"pid {holder.pid}" in ln for ln in lines), lines
            assert holder.poll() is None  # never touched
            # the attempt logs the holder while its row is still running; the refund follows
            await until(lambda: tasks_of(workspace)["f"].state != "running", 30, "the attempt to end",
                        poll_s=0.05)
            t = tasks_of(workspace)["f"]
            assert t.state == "pending" and t.attempt == 0  # not charged; waits for the operator
            assert s.lanes[0].backend.health()[0] == "error"
    finally:
        holder.terminate()
        try:
            holder.wait(10)
        except subprocess.TimeoutExpired:
            holder.kill()
            holder.wait()
        for pid in our_browsers(workspace.data_dir):
            with __import__("contextlib").suppress(psutil.Error):
                psutil.Process(pid).kill()


async def test_conversation_of_four_turns_runs_in_order_on_one_account_in_one_thread(
    workspace: Workspace, sim: WebSimServer
) -> None:
    """Two accounts could take the turns; all four go to the account that ran the first, one at a
    time, in submit order, typed into the same chat thread (the simulator's conversation id)."""
    cfg = web_config(sim, ["acct-a", "acct-b"])
    await login_all(cfg, workspace, sim)
    async with Scheduler(cfg, workspace) as s:
        s.intake.submit([s.intake.new_task(f"turn{i}", "chat", f"question {i}", route_key="conv-7") for i in range(4)])
        await asyncio.wait_for(s.wait_idle(), 120)
    tasks = tasks_of(workspace)
    turns = [tasks[f"turn{i}"] for i in range(4)]
    assert [t.state for t in turns] == ["success"] * 4
    assert len({t.account for t in turns}) == 1
    for earlier, later in itertools.pairwise(turns):
        assert later.started_at is not None and earlier.finished_at is not None
        assert later.started_at >= earlier.finished_at  # one at a time, in order
    gens = [g for g in sim.stats()["generations"] if "question" in g["prompt"]]
    assert [g["prompt"].rsplit("\n", 1)[-1] for g in gens] == [f"question {i}" for i in range(4)]
    assert len({g["conversation_id"] for g in gens}) == 1  # one chat thread
    assert sim.stats()["concurrent_violations"] == 0
