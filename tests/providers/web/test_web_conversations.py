"""Conversations on a web account (later turns in the same chat thread) and the health probe, on a real
Chromium: fake site A with thread URLs (``?threads=1``) and the chat simulator (no thread URLs)."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from aiohttp import web

from mediadesk.config.model import BrowserConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import TaskSpec
from mediadesk.providers.web.adapter import load_adapter, with_url
from mediadesk.providers.web.backend import WebAccountBackend, build_web_backend
from mediadesk.providers.web.login import login_with_form
from mediadesk.sim.web_server import WebSimConfig, WebSimServer
from tests.providers.web.helpers import RecordingCtx
from tests.support import make_config

#: One event loop for the module's tests, so they share one Playwright driver (``playwright_hub``).
pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("playwright_hub")]

PAGES = Path(__file__).parent / "pages"


@pytest_asyncio.fixture(loop_scope="module")
async def pages_server() -> AsyncIterator[str]:
    app = web.Application()
    app.router.add_static("/", PAGES)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    await runner.cleanup()


def turn(prompt: str, route_key: str | None, history: tuple[tuple[str, str], ...] = (), n: int = 1) -> TaskSpec:
    return TaskSpec(task_id=f"{route_key}-{n}", profile="chat", prompt=prompt, attempt=1,
                    instructions="BE BRIEF", route_key=route_key, history=history)


async def test_a_later_turn_reopens_its_thread_by_url(
    pages_server: str, chromium_exe: Path, profile_root: Path, lock_dir: Path, tmp_path: Path
) -> None:
    adapter = dataclasses.replace(
        with_url(load_adapter(PAGES / "site_a.toml"), f"{pages_server}/site_a.html?threads=1"), settle_ms=100)
    backend = WebAccountBackend(account="acct-a", adapter=adapter, browser=BrowserConfig(executable=chromium_exe),
                                profile_dir=profile_root / "acct-a", lock_dir=lock_dir, kill_grace_s=2.0)
    ctx = RecordingCtx(tmp_path / "ev")
    await backend.start()
    try:
        first = await backend.run(turn("one", "conv"), ctx)
        assert first == "Echo: BE BRIEF\n\none | turn 1 | done."
        # another task on the account in between: a new chat, a new thread
        assert await backend.run(turn("unrelated", None), ctx) == "Echo: BE BRIEF\n\nunrelated | turn 1 | done."
        second = await backend.run(turn("two", "conv", (("one", first),), 2), ctx)
        assert second == "Echo: two | turn 2 | done."  # only the new prompt: the thread has the rest
        third = await backend.run(turn("three", "conv", (("one", first), ("two", second)), 3), ctx)
        assert third == "Echo: three | turn 3 | done."
        assert any("(reopening " in line for line in ctx.lines)  # turn 2: the page had moved on
        assert any(line == "conversation conv: turn 3 in its chat thread" for line in ctx.lines)  # still there
    finally:
        await backend.stop()


async def test_simulator_turns_share_a_thread_while_the_page_shows_it(workspace: Workspace) -> None:
    async with WebSimServer(WebSimConfig(time_scale=0.005, seed=3, answer_tokens=8)) as sim:
        cfg = make_config([{"name": "chat", "kind": "web", "site": "simchat", "url": sim.chat_url}],
                          [{"name": "acct-a", "profile": "chat"}], scheduler={"kill_grace_s": 1.0})
        await login_with_form(cfg, workspace, "acct-a", sim.login_url,
                              fields={"#account": "acct-a", "#password": "pw"},
                              submit="button.login", logged_in=".avatar")
        backend = build_web_backend(cfg, workspace, cfg.profiles[0], cfg.accounts[0])
        ctx = RecordingCtx(workspace.data_dir / "ev")
        await backend.start()
        try:
            ok, why = await backend.probe()
            assert (ok, str(why)) == (True, "logged in, prompt box ready")
            a1 = await backend.run(turn("first turn", "conv"), ctx)
            a2 = await backend.run(turn("second turn", "conv", (("first turn", a1),), 2), ctx)
            gens = sim.stats()["generations"]
            assert [g["prompt"] for g in gens] == ["BE BRIEF\n\nfirst turn", "second turn"]
            assert gens[0]["conversation_id"] == gens[1]["conversation_id"]  # one thread
            assert a2 == gens[1]["answer"]
            # The simulator's threads have no URL of their own: once the page moved on (here: a probe
            # reloads it), a later turn cannot reopen its thread and replays the earlier turns instead.
            assert (await backend.probe())[0] is True
            await backend.run(turn("third turn", "conv", (("first turn", a1), ("second turn", a2)), 3), ctx)
            third = sim.stats()["generations"][2]
            assert third["conversation_id"] != gens[0]["conversation_id"]
            assert "User: first turn" in third["prompt"] and third["prompt"].endswith("Now:\nthird turn")
            assert any("cannot be reopened" in line for line in ctx.lines)
            # The probe sees a logout the warm page's old DOM would still hide.
            sim.logout("acct-a")
            ok, why = await backend.probe()
            assert not ok and str(why).startswith("needs login") and backend.health()[0] == "needs_login"
        finally:
            await backend.stop()
