"""A bot check goes to a person, once: real scheduler, real Chromium (headless, then visible on a real X
server for the person), the chat simulator's challenge page on 127.0.0.1, a real SQLite file.

The account pauses in ``challenge`` at the first sign of the check, the task goes back uncharged, the
operator is told "account X needs a person" with a screenshot in the evidence folder, nothing more is
sent to that site from the account; the account's "Log in" opens its browser visibly on the same
profile, and once the check is gone (the person solved it) the lane resumes by itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.events import Notice
from mediadesk.sim.web_server import WebSimConfig, WebSimServer
from tests.providers.web.test_login_flow import _needs_xvfb  # noqa: F401 - its fixture
from tests.providers.web.test_web_capacity import cap_config, charged, login_all
from tests.providers.web.test_web_capacity import no_browser_left as no_browser_left  # its autouse fixture
from tests.providers.web.xserver import xvfb
from tests.support import log_messages, mediadesk_async, tasks_of, until

#: One event loop for the module's tests, so they share one Playwright driver (``playwright_hub``).
pytestmark = [
    pytest.mark.browser,
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.usefixtures("_needs_xvfb", "playwright_hub"),
]


@pytest_asyncio.fixture(loop_scope="module")
async def sim() -> AsyncIterator[WebSimServer]:
    async with WebSimServer(WebSimConfig(time_scale=0.005, seed=9, answer_tokens=12)) as server:
        yield server


@pytest.fixture
def xdisplay(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    """A private X server for the person's visible window (Xvfb picks a free display)."""
    with xvfb(tmp_path / "xvfb.log") as display:
        monkeypatch.setenv("DISPLAY", display)
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
        yield display


async def test_a_challenge_pauses_the_account_for_a_person_and_the_lane_resumes_once_solved(
    xdisplay: str, workspace: Workspace, sim: WebSimServer
) -> None:
    cfg = cap_config(sim, ["acct-a"])
    await login_all(cfg, workspace, sim)
    notices: list[str] = []
    async with Scheduler(cfg, workspace) as s:
        unsubscribe = s.bus.subscribe(lambda ev: notices.append(ev.message) if isinstance(ev, Notice) else None)
        lane = s.lanes[0]
        await lane.started.wait()
        sim.set_challenge("turnstile", account="acct-a")
        s.intake.submit([s.intake.new_task("q", "chat", "what is a bot check?")])
        await until(lambda: lane.backend.health()[0] == "challenge", "the account to wait for a person", limit_s=60)
        health, text = lane.backend.health()
        assert text is not None and text.startswith("needs a person:"), text
        await until(lambda: any("needs a person" in n for n in notices), "the operator to be told", limit_s=10)
        t = tasks_of(workspace)["q"]
        assert t.state == "pending" and charged(workspace, "q") == [], log_messages(workspace, "q")
        blocked = s.blocked_accounts("chat")
        assert blocked[0].action == "login" and "needs a person" in blocked[0].reason
        evidence = sorted(p.name for p in workspace.evidence_dir.rglob("*.png"))
        assert evidence, "a screenshot of the check is in the evidence folder"
        # the person: "Log in" opens the account's browser visibly at the chat page, on its own profile
        statuses: list[str] = []
        resolve = asyncio.ensure_future(s.login("acct-a", on_status=statuses.append))
        try:
            pages_before = sim.stats()["challenge_pages"]
            await until(lambda: any("solve the check" in st for st in statuses) or resolve.done(),
                        "the visible browser to show the check", limit_s=120)
            assert not resolve.done(), statuses
            assert sim.stats()["challenge_pages"] > pages_before  # it shows the site's check, as it is
            sim.set_challenge(None, account="acct-a")  # solved: the challenge page goes on to the chat by itself
            assert await asyncio.wait_for(resolve, 120) is True, statuses
        finally:
            resolve.cancel()
        await asyncio.wait_for(s.wait_idle(), 120)
        unsubscribe()
        final_health = lane.backend.health()[0]
    t = tasks_of(workspace)["q"]
    assert (t.state, t.attempt) == ("success", 1), (t.error_kind, t.error_message)
    assert charged(workspace, "q") == []
    st = sim.stats()
    assert st["challenge_refusals"] == 1  # once: nothing more was sent while the account waited
    assert st["generations_completed"] == 1 and final_health in ("ready", "busy")
    assert sum("needs a person" in n for n in notices) == 1, notices
    assert health == "challenge"


async def test_a_challenge_page_at_start_is_seen_before_any_task_is_taken(
    workspace: Workspace, sim: WebSimServer
) -> None:
    cfg = cap_config(sim, ["acct-a"])
    await login_all(cfg, workspace, sim)
    sim.set_challenge("text")  # no frame: only "Verify you are human" / "请确认您是真人" on a page without a prompt box
    notices: list[str] = []
    async with Scheduler(cfg, workspace) as s:
        s.bus.subscribe(lambda ev: notices.append(ev.message) if isinstance(ev, Notice) else None)
        lane = s.lanes[0]
        await lane.started.wait()
        assert any("account acct-a needs a person" in n for n in notices), notices
        assert lane.backend.health()[0] == "challenge", lane.backend.health()
        s.intake.submit([s.intake.new_task("q", "chat", "hello")])
        assert not lane.can_dispatch()
        # nobody but a person can unblock it: the headless run says so instead of waiting for ever
        assert s.unservable_profiles() == ["chat"]
        assert "needs a person" in s.blocked_accounts("chat")[0].reason
        t = tasks_of(workspace)["q"]
    assert t.state == "pending" and t.attempt == 0
    assert sim.stats()["generations_started"] == 0 and sim.stats()["challenge_refusals"] == 0


async def test_a_challenge_is_an_exception_entry_with_its_screenshot_until_it_is_resolved(
    xdisplay: str, workspace: Workspace, sim: WebSimServer, tmp_path: Path
) -> None:
    """"account X needs a person" in the exceptions (the scheduler's and ``mediadesk exceptions list``),
    with the screenshot of the check; resolving it opens the account's browser visibly on its profile
    and, once the check is gone, the entry disappears and the task succeeds on its first attempt."""
    cfg = cap_config(sim, ["acct-a"])
    await login_all(cfg, workspace, sim)
    async with Scheduler(cfg, workspace) as s:
        lane = s.lanes[0]
        await lane.started.wait()
        assert s.account_exceptions() == []
        with pytest.raises(ValueError, match="does not wait for a person"):
            await s.resolve_account_exception("acct-a")
        sim.set_challenge("recaptcha", account="acct-a")
        s.intake.submit([s.intake.new_task("q", "chat", "what is a bot check?")])
        await until(lambda: s.account_exceptions() != [], "the account's exception entry", limit_s=60)
        (entry,) = s.account_exceptions()
        assert entry.account == "acct-a" and entry.title == "account acct-a needs a person"
        assert "bot check" in entry.message or "recaptcha" in entry.message.lower(), entry.message
        assert entry.screenshot == workspace.challenge_screenshot("acct-a")
        assert entry.screenshot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
        assert entry.screenshot.stat().st_mode & 0o077 == 0  # private, as every file we write
        # the other face, in another process: the persisted health and the kept screenshot
        await until(lambda: s.account_states()["acct-a"][1] == "challenge", "the health to be persisted", limit_s=10)
        listed = await mediadesk_async("exceptions", "list", "--data-dir", str(workspace.data_dir))
        assert listed.rc == 0, listed.err
        line = next(ln for ln in listed.out.splitlines() if ln.startswith("account acct-a needs a person"))
        assert f"screenshot: {entry.screenshot}" in line and "resolve-account acct-a" in line, line
        assert "1 account(s) need a person" in listed.err
        statuses: list[str] = []
        resolve = asyncio.ensure_future(s.resolve_account_exception("acct-a", on_status=statuses.append))
        try:
            await until(lambda: any("solve the check" in st for st in statuses) or resolve.done(),
                        "the visible browser to show the check", limit_s=120)
            assert not resolve.done(), statuses
            assert s.account_exceptions() != []  # still waiting for the person
            sim.set_challenge(None, account="acct-a")  # the person solved it
            assert await asyncio.wait_for(resolve, 120) is True, statuses
        finally:
            resolve.cancel()
        assert s.account_exceptions() == []
        assert lane.backend.health()[0] in ("ready", "busy")
        await asyncio.wait_for(s.wait_idle(), 120)
    t = tasks_of(workspace)["q"]
    assert (t.state, t.attempt) == ("success", 1), (t.error_kind, t.error_message)
    assert charged(workspace, "q") == []
    listed = await mediadesk_async("exceptions", "list", "--data-dir", str(workspace.data_dir))
    assert "needs a person" not in listed.out, listed.out


async def test_the_cli_resolves_an_account_that_needs_a_person_when_no_console_runs_it(
    xdisplay: str, workspace: Workspace, sim: WebSimServer, tmp_path: Path
) -> None:
    cfg = cap_config(sim, ["acct-a"])
    await login_all(cfg, workspace, sim)
    sim.set_challenge("text", account="acct-a")
    async with Scheduler(cfg, workspace) as s:  # meets the check at start, stores the account's health
        await s.lanes[0].started.wait()
        await until(lambda: s.account_states()["acct-a"][1] == "challenge", "the health to be persisted", limit_s=10)
    config = tmp_path / "config.toml"
    config.write_text(f'[[profiles]]\nname = "chat"\nkind = "web"\nsite = "simchat"\nurl = "{sim.chat_url}"\n\n'
                      '[[accounts]]\nname = "acct-a"\nprofile = "chat"\n', encoding="utf-8")
    args = ("exceptions", "resolve-account", "acct-a", "--config", str(config), "--data-dir", str(workspace.data_dir))
    pages_before = sim.stats()["challenge_pages"]
    run = asyncio.ensure_future(mediadesk_async(*args, env={"DISPLAY": xdisplay}, limit_s=240))
    try:
        # the account's browser opens (visible, on its own profile) and shows the check as it is
        await until(lambda: sim.stats()["challenge_pages"] >= pages_before + 2 or run.done(),
                    "the visible browser to show the check", limit_s=180)
        assert not run.done(), run.result()
        sim.set_challenge(None, account="acct-a")  # the person solved it
        res = await asyncio.wait_for(run, 240)
    finally:
        run.cancel()
    assert res.rc == 0, (res.out, res.err)
    assert "account acct-a: the check is gone (ready)" in res.out, res.out
    listed = await mediadesk_async("exceptions", "list", "--data-dir", str(workspace.data_dir))
    assert "needs a person" not in listed.out, listed.out
    # nothing to do for an account that does not wait for a person
    again = await mediadesk_async(*args, env={"DISPLAY": xdisplay})
    assert again.rc == 0 and "does not wait for a person (ready)" in again.out, again
