"""A chat site's own capacity signals on the web lane: real scheduler, real Chromium, the chat simulator
on 127.0.0.1, a real SQLite file.

A site that is down (refused connections, a 502 gateway page), at dispatch or mid-run, opens the
account's breaker and costs no attempt; probes bring it back. A final model error fails the task at
once. A usage limit with a reset time rests the account until then. A bot check pauses the account
for a person (see ``test_web_capacity_challenge.py``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator

import psutil
import pytest
import pytest_asyncio

from mediadesk.config.model import AppConfig
from mediadesk.config.workspace import Workspace
from mediadesk.providers.web.login import login_with_form
from mediadesk.scheduler import Scheduler
from mediadesk.sim.web_server import WebSimConfig, WebSimServer
from tests.support import log_messages, make_config, tasks_of, until

#: One event loop for the module's tests, so they share one Playwright driver (``playwright_hub``).
pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("playwright_hub")]


def cap_config(sim: WebSimServer, accounts: list[str]) -> AppConfig:
    return make_config(
        [{"name": "chat", "kind": "web", "site": "simchat", "url": sim.chat_url}],
        [{"name": a, "profile": "chat"} for a in accounts],
        heartbeat={"interval_s": 0.2, "stale_after_s": 30},
        scheduler={"kill_grace_s": 1.0},
        retry={"max_retries": 2, "backoff_base_s": 0.05, "backoff_max_s": 2.0},
        breaker={"probe_interval_s": 0.3},
    )


async def login_all(cfg: AppConfig, ws: Workspace, sim: WebSimServer) -> None:
    """Every account logged in on its own profile, all at once (each under its own account lock)."""
    await asyncio.gather(*(
        login_with_form(cfg, ws, acc.name, sim.login_url, fields={"#account": acc.name, "#password": "pw"},
                        submit="button.login", logged_in=".avatar")
        for acc in cfg.accounts
    ))


@pytest_asyncio.fixture(loop_scope="module")
async def sim() -> AsyncIterator[WebSimServer]:
    async with WebSimServer(WebSimConfig(time_scale=0.005, seed=7, answer_tokens=12)) as server:
        yield server


@pytest.fixture(autouse=True)
def no_browser_left(workspace: Workspace) -> Iterator[None]:
    yield
    left = []
    for p in psutil.process_iter(["pid", "cmdline"]):
        try:
            if any(str(workspace.data_dir) in a for a in (p.info["cmdline"] or [])):
                left.append(p.pid)
                p.kill()
        except psutil.Error:
            pass
    assert not left, f"chromium left running on our profiles: {left}"


def charged(ws: Workspace, task_id: str) -> list[str]:
    """The task-log lines of attempts that were charged (failed and retried, or failed for good)."""
    return [m for m in log_messages(ws, task_id) if " failed (" in m]


async def test_site_down_at_dispatch_costs_no_attempt_and_the_batch_completes_once_it_is_back(
    workspace: Workspace, sim: WebSimServer
) -> None:
    """Each way a site is down ("refuse": its port closed, "502": a gateway page) in turn, on one scheduler
    of two accounts: a batch submitted while it is down costs no attempt and completes once it is back."""
    cfg = cap_config(sim, ["acct-a", "acct-b"])
    await login_all(cfg, workspace, sim)
    async with Scheduler(cfg, workspace) as s:
        caps = [s.capacities["account:acct-a"], s.capacities["account:acct-b"]]
        for lane in s.lanes:
            await lane.started.wait()
        for mode in ("refuse", "502"):
            ids = [f"{mode}-t{i}" for i in range(4)]
            probes_before = sum(c.probes_sent for c in caps)
            completed_before = sim.stats()["generations_completed"]
            sim.set_outage(mode)
            s.intake.submit([s.intake.new_task(tid, "chat", f"question {tid}") for tid in ids])
            # each account tried once, found the site down, opened its breaker; probes keep asking
            await until(lambda: all(c.breaker.state.value == "open" for c in caps), f"both breakers to open ({mode})",
                        limit_s=60)
            await until(lambda before=probes_before: sum(c.probes_sent for c in caps) - before >= 4,
                        f"probes while the site is down ({mode})", limit_s=60)
            assert all(c.breaker.state.value == "open" for c in caps), mode  # the probes did not close them
            probes = sum(c.probes_sent for c in caps) - probes_before
            sim.set_outage(None)
            await asyncio.wait_for(s.wait_idle(), 120)
            health = {lane.account: lane.backend.health()[0] for lane in s.lanes}
            tasks = {tid: t for tid, t in tasks_of(workspace).items() if tid in ids}
            assert {t: (x.state, x.attempt) for t, x in tasks.items()} == {tid: ("success", 1) for tid in ids}, mode
            for tid in tasks:
                assert charged(workspace, tid) == [], log_messages(workspace, tid)
            down = [m for tid in tasks for m in log_messages(workspace, tid) if "could not reach the callee" in m]
            # one per account (and a half-open trial at most), never per retry
            assert 1 <= len(down) <= 2 + 2, (mode, down)
            assert all("attempt not charged" in m and "site" in m for m in down), (mode, down)
            assert probes >= 4 and set(health.values()) <= {"ready", "busy"}, (mode, health)
            st = sim.stats()
            assert st["concurrent_violations"] == 0 and st["generations_completed"] - completed_before == 4, mode


async def test_an_outage_mid_run_is_noticed_at_once_and_not_charged(workspace: Workspace, sim: WebSimServer) -> None:
    cfg = cap_config(sim, ["acct-a"])
    await login_all(cfg, workspace, sim)
    async with Scheduler(cfg, workspace) as s:
        # 100 s nominal x 0.005 = 0.5 s of generation (the outage cuts it as soon as it is under way, with no
        # await in between); max_run_s (600 s) would be the only end without signals
        s.intake.submit([s.intake.new_task("long", "chat", "[[sim:slow=100]] a long answer")])
        await until(lambda: sim.stats()["active_generations"] == 1, "the generation to start", limit_s=60)
        cut_at = time.monotonic()
        sim.set_outage("refuse")
        await until(lambda: any("attempt not charged" in m for m in log_messages(workspace, "long")),
                    "the cut run to go back uncharged", limit_s=30)
        noticed_s = time.monotonic() - cut_at
        sim.set_outage(None)
        await asyncio.wait_for(s.wait_idle(), 120)
    t = tasks_of(workspace)["long"]
    assert (t.state, t.attempt) == ("success", 1), (t.error_kind, t.error_message)
    assert charged(workspace, "long") == []
    assert [g["status"] for g in sim.stats()["generations"]] == ["disconnected", "completed"]
    assert noticed_s < 30  # reported for the record; the bound is the safety net above, not max_run_s
    print(f"outage mid-run noticed and handed back in {noticed_s:.2f} s")
    log = log_messages(workspace, "long")
    # the page's network said it (the stream request failed) and a plain GET confirmed the site was away
    assert any(m.startswith("site down: ") and "net::ERR_" in m for m in log), log


async def test_a_final_model_error_fails_at_once_without_retries(workspace: Workspace, sim: WebSimServer) -> None:
    cfg = cap_config(sim, ["acct-a"])
    await login_all(cfg, workspace, sim)
    async with Scheduler(cfg, workspace) as s:
        sim.set_model_error()  # "Error 400: This model's maximum context length is 4096 tokens ..."
        s.intake.submit([s.intake.new_task("big", "chat", "a prompt far too long for the model")])
        await asyncio.wait_for(s.wait_idle(), 120)
        health = s.lanes[0].backend.health()[0]
    t = tasks_of(workspace)["big"]
    assert (t.state, t.error_kind, t.attempt) == ("failed", "bad_request", 1), (t.error_kind, t.error_message)
    assert "maximum context length" in (t.error_message or "")
    assert sim.stats()["model_errors"] == 1
    assert health == "ready"  # the account is fine: only this prompt is refused


async def test_a_usage_limit_rests_the_account_until_its_reset_and_charges_nothing(
    workspace: Workspace, sim: WebSimServer
) -> None:
    cfg = cap_config(sim, ["acct-a"])
    await login_all(cfg, workspace, sim)
    async with Scheduler(cfg, workspace) as s:
        lane = s.lanes[0]
        await lane.started.wait()
        # a whole second (the banner states HH:MM:SS), late enough to be read before it passes on a loaded machine
        reset = float(int(time.time()) + 8)
        sim.set_limit(reset)  # "You've reached your usage limit ... Your limit resets at HH:MM:SS."
        s.intake.submit([s.intake.new_task("one", "chat", "first question"),
                         s.intake.new_task("two", "chat", "second question")])
        await until(lambda: lane.backend.health()[0] == "resting", "the account to rest", limit_s=60)
        text = lane.backend.health()[1]
        shown = time.strftime("%H:%M:%S", time.localtime(reset))
        assert text is not None and text.startswith(f"resting until {shown}"), text
        blocked = s.blocked_accounts("chat")
        assert blocked[0].reason.startswith("resting until") and blocked[0].action == "wait"
        await asyncio.wait_for(s.wait_idle(), 120)
    tasks = tasks_of(workspace)
    assert {t: (x.state, x.attempt) for t, x in tasks.items()} == {"one": ("success", 1), "two": ("success", 1)}
    assert all(charged(workspace, tid) == [] for tid in tasks)
    st = sim.stats()
    assert st["limit_refusals"] == 1  # it rested: nothing was sent until the reset
    assert min(g["started"] for g in st["generations"]) >= reset - 0.05
    line = next(m for m in log_messages(workspace, "one") if m.startswith("usage limit:"))
    assert f"resting until {shown}" in line
