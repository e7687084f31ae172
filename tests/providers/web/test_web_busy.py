"""A busy chat account is a refusal, not a failure: real scheduler, real Chromium, the chat simulator
on 127.0.0.1, a real SQLite file.

While the site says the account is busy (a banner, an error message or the notice as its "answer"),
the run costs no attempt, the account pauses for the wait the site states, nothing else is sent to
that account meanwhile, the notice is never stored as an answer, and the task succeeds afterwards.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterator

import psutil
import pytest
import pytest_asyncio

from mediadesk.config.model import AppConfig
from mediadesk.config.workspace import Workspace
from mediadesk.providers.web.login import login_with_form
from mediadesk.scheduler import Scheduler
from mediadesk.sim.web_server import BUSY_MESSAGE, WebSimConfig, WebSimServer
from tests.support import log_messages, make_config, tasks_of, until

#: One event loop for the module's tests, so they share one Playwright driver (``playwright_hub``).
pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("playwright_hub")]


def busy_config(sim: WebSimServer, accounts: list[str]) -> AppConfig:
    return make_config(
        [{"name": "chat", "kind": "web", "site": "simchat", "url": sim.chat_url}],
        [{"name": a, "profile": "chat"} for a in accounts],
        heartbeat={"interval_s": 0.2, "stale_after_s": 30},
        scheduler={"kill_grace_s": 1.0},
        # the stated waits here are 1-2 s: the cap must not cut them (the fast test default is 0.2 s)
        retry={"backoff_max_s": 10.0},
    )


async def login_all(cfg: AppConfig, ws: Workspace, sim: WebSimServer) -> None:
    for acc in cfg.accounts:
        await login_with_form(cfg, ws, acc.name, sim.login_url, fields={"#account": acc.name, "#password": "pw"},
                              submit="button.login", logged_in=".avatar")


@pytest_asyncio.fixture(loop_scope="module")
async def sim() -> AsyncIterator[WebSimServer]:
    async with WebSimServer(WebSimConfig(time_scale=0.005, seed=5, answer_tokens=12)) as server:
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


def answers_by_prompt(sim: WebSimServer) -> dict[str, str]:
    return {g["prompt"]: g["answer"] for g in sim.stats()["generations"] if g["status"] == "completed"}


def events_of(sim: WebSimServer, account: str) -> list[tuple[float, str]]:
    """Every send the site saw from ``account`` (refused or generated), by its own clock."""
    st = sim.stats()
    out = [(r["at"], "refused") for r in st["busy_log"] if r["account"] == account]
    out += [(g["started"], "generated") for g in st["generations"] if g["account"] == account]
    return sorted(out)


async def test_busy_account_pauses_and_the_task_succeeds_after_it_uncharged(
    workspace: Workspace, sim: WebSimServer
) -> None:
    cfg = busy_config(sim, ["acct-a"])
    await login_all(cfg, workspace, sim)
    async with Scheduler(cfg, workspace) as s:
        # The site is busy for this account until the test ends it; it says "try again in 1 seconds".
        sim.set_busy(120, wait_s=1, account="acct-a", style="banner")
        s.intake.submit([s.intake.new_task("first", "chat", "first question"),
                         s.intake.new_task("second", "chat", "second question")])
        await until(lambda: sim.stats()["busy_refusals"] >= 1, "the site to refuse a run", limit_s=60)
        sim.set_busy(0, account="acct-a")
        await asyncio.wait_for(s.wait_idle(), 120)
        cap = s.capacities["account:acct-a"]
        assert cap.breaker.state.value == "closed"
    tasks = tasks_of(workspace)
    assert {t: (x.state, x.attempt) for t, x in tasks.items()} == {"first": ("success", 1), "second": ("success", 1)}
    answers = answers_by_prompt(sim)
    for t in tasks.values():  # the real answers, never the busy notice
        assert t.result == next(a for p, a in answers.items() if p.endswith(t.prompt))
        assert "too many requests" not in (t.result or "").lower()
    refused = [tid for tid in tasks if any("refused by the callee" in m for m in log_messages(workspace, tid))]
    assert refused == ["first"], refused  # the head of the queue was refused and kept its place
    log = log_messages(workspace, "first")
    line = next(m for m in log if "refused by the callee" in m)
    assert "attempt not charged" in line and "rate_limited" in line and "try again in 1 seconds" in line
    assert "it asks to wait 1 s" in line and "account paused 1.0 s" in line
    assert any(m.startswith("evidence: ") and "attempt1.png" in m for m in log)
    assert log[-1].startswith("success")
    # No send reached the account while it was paused: after each refusal, the next send came no
    # sooner than the wait the site stated (the simulator's own clock).
    st = sim.stats()
    waits = {r["at"]: r["wait_s"] for r in st["busy_log"]}
    events = events_of(sim, "acct-a")
    assert [kind for _, kind in events].count("generated") == 2
    # the refused task kept its place at the head of the queue: it ran first once the pause was over
    assert [g["prompt"].removesuffix(" question") for g in st["generations"]] == ["first", "second"]
    for (at, kind), (nxt, _) in itertools.pairwise(events):
        if kind == "refused":
            assert nxt - at >= waits[at], f"a send {nxt - at:.2f} s after a refusal that asked for {waits[at]} s"
    assert st["concurrent_violations"] == 0


#: The other ways a site says it is busy: (the notice's style, its message, its stated wait, what the task
#: log's refusal line says).
OTHER_BUSY_STYLES = {
    "error-message-zh": ("error", "请求过于频繁，请 {wait} 秒后再试", 1,
                         ["请求过于频繁", "it asks to wait 1 s", "account paused 1.0 s"]),
    "notice-as-answer": ("answer", None, None, ["(answer: 'Another response is already being generated",
                                                "account paused"]),
}


async def test_busy_error_or_answer_is_a_refusal_never_stored(workspace: Workspace, sim: WebSimServer) -> None:
    """Each style of :data:`OTHER_BUSY_STYLES` in turn, on one scheduler: the refusal is handed back
    uncharged, logged as such, never stored, and the task succeeds on its first attempt afterwards."""
    cfg = busy_config(sim, ["acct-a"])
    await login_all(cfg, workspace, sim)
    async with Scheduler(cfg, workspace) as s:
        for case, (style, message, wait_s, logged) in OTHER_BUSY_STYLES.items():
            refusals_before = sim.stats()["busy_refusals"]
            prompt = f"what is the capital of France? ({case})"
            sim.set_busy(120, wait_s=wait_s, style=style, message=message)
            s.intake.submit([s.intake.new_task(case, "chat", prompt)])
            await until(lambda before=refusals_before: sim.stats()["busy_refusals"] > before,
                        f"the site to refuse a run ({case})", limit_s=60)
            sim.set_busy(0)
            await asyncio.wait_for(s.wait_idle(), 120)
            t = tasks_of(workspace)[case]
            assert (t.state, t.attempt) == ("success", 1), (case, t.error_kind, t.error_message)
            assert t.result == answers_by_prompt(sim)[prompt], case
            assert t.result != BUSY_MESSAGE, case
            log = log_messages(workspace, case)
            refusals = [m for m in log if "refused by the callee" in m]
            # every refusal, and only those, was handed back
            assert len(refusals) == sim.stats()["busy_refusals"] - refusals_before, (case, refusals)
            for fragment in logged:
                assert fragment in refusals[0], (case, fragment, refusals[0])
            assert not any("failed (" in m for m in log), (case, log)  # nothing was charged


async def test_a_real_answer_saying_please_wait_is_a_success(workspace: Workspace, sim: WebSimServer) -> None:
    cfg = busy_config(sim, ["acct-a"])
    await login_all(cfg, workspace, sim)
    async with Scheduler(cfg, workspace) as s:
        s.intake.submit([s.intake.new_task("pw", "chat", "please wait for the paint to dry")])
        await asyncio.wait_for(s.wait_idle(), 120)
    t = tasks_of(workspace)["pw"]
    assert (t.state, t.attempt) == ("success", 1), (t.error_kind, t.error_message)
    assert "please wait" in (t.result or "") and t.result == answers_by_prompt(sim)["please wait for the paint to dry"]
    assert not any("refused" in m for m in log_messages(workspace, "pw"))


async def test_a_prompt_answered_only_by_busy_notices_fails_for_a_person_instead_of_looping(
    workspace: Workspace, sim: WebSimServer
) -> None:
    """A site that answers THIS prompt with nothing but a busy notice, every time, is not speaking of
    its capacity: after BUSY_ANSWERS_PER_TASK such answers the attempt is charged (site_error), so the
    task ends failed for a person to judge instead of holding the account for ever."""
    from mediadesk.providers.web.backend_capacity import BUSY_ANSWERS_PER_TASK

    cfg = make_config(
        [{"name": "chat", "kind": "web", "site": "simchat", "url": sim.chat_url}],
        [{"name": "acct-a", "profile": "chat"}],
        heartbeat={"interval_s": 0.2, "stale_after_s": 30},
        scheduler={"kill_grace_s": 1.0},
        retry={"max_retries": 0, "backoff_base_s": 0.05, "backoff_max_s": 0.3},
    )
    await login_all(cfg, workspace, sim)
    async with Scheduler(cfg, workspace) as s:
        sim.set_busy(600, style="answer")  # for the whole test: the notice is the only answer there is
        s.intake.submit([s.intake.new_task("loop", "chat", "an odd prompt")])
        await asyncio.wait_for(s.wait_idle(), 120)
        refusals = sim.stats()["busy_refusals"]
        sim.set_busy(0)
    t = tasks_of(workspace)["loop"]
    assert (t.state, t.error_kind, t.attempt) == ("failed", "site_error", 1), (t.error_kind, t.error_message)
    assert refusals == BUSY_ANSWERS_PER_TASK
    assert t.result is None or t.result != BUSY_MESSAGE
    assert any("busy notice 3 times" in m for m in log_messages(workspace, "loop"))
