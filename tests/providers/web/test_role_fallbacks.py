"""Adapters with fewer hand-picked selectors: parts found by role, keys that stopped matching.

A batch runs on the simulator's ``/plain`` page (no classes, no ids, other tags, aria labels only)
with an adapter that holds nothing but ``url`` and ``login_url``; and a batch on the usual chat page
with an adapter whose prompt and send selectors no longer match goes through, with the account and
the task log saying so instead of failing every task.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from mediadesk.config.workspace import Workspace, resources_dir
from mediadesk.providers.web.login import login_with_form
from mediadesk.scheduler import Scheduler
from mediadesk.sim.web_server import WebSimConfig, WebSimServer, answer_tokens
from tests.support import log_messages, make_config, tasks_of

#: One event loop for the module's tests, so they share one Playwright driver (``playwright_hub``).
pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("playwright_hub")]

TOKENS = 10


async def _login(cfg: object, workspace: Workspace, sim: WebSimServer, account: str) -> None:
    await login_with_form(cfg, workspace, account, sim.login_url,  # type: ignore[arg-type]
                          fields={"#account": account, "#password": "pw"},
                          submit="button.login", logged_in=".avatar")


async def test_a_batch_on_a_page_with_aria_labels_only_and_an_adapter_with_only_urls(
    workspace: Workspace, tmp_path: Path
) -> None:
    sites = tmp_path / "sites"
    sites.mkdir()
    async with WebSimServer(WebSimConfig(time_scale=0.005, fixed_run_s=20.0, answer_tokens=TOKENS)) as sim:
        (sites / "bare.toml").write_text(
            f'url = "{sim.base_url}/plain"\nlogin_url = "{sim.login_url}"\nsettle_ms = 150\n', encoding="utf-8")
        cfg = make_config(
            [{"name": "plain", "kind": "web", "site": "bare"}],
            [{"name": "acct-plain", "profile": "plain"}],
            browser={"sites_dir": str(sites)},
        )
        await _login(cfg, workspace, sim, "acct-plain")
        prompts = {"p1": "hello there", "p2": "第二个问题 🌏\n第二行", "p3": "third one"}
        async with Scheduler(cfg, workspace) as s:
            s.intake.submit([s.intake.new_task(t, "plain", p) for t, p in prompts.items()])
            await asyncio.wait_for(s.wait_idle(), 120)
        stats = sim.stats()
    tasks = tasks_of(workspace)
    for tid, prompt in prompts.items():
        t = tasks[tid]
        assert t.state == "success", (tid, t.state, t.error_message, log_messages(workspace, tid))
        assert t.result == "".join(answer_tokens(prompt, TOKENS))
    assert sorted(g["prompt"] for g in stats["generations"]) == sorted(prompts.values())  # each sent once
    assert stats["concurrent_violations"] == 0


async def test_keys_that_stopped_matching_fall_back_and_the_account_says_so(
    workspace: Workspace, tmp_path: Path
) -> None:
    sites = tmp_path / "sites"
    sites.mkdir()
    simchat = (resources_dir() / "sites" / "simchat.toml").read_text(encoding="utf-8")
    # The site "updated": its prompt box and send button have other names now.
    stale = simchat.replace('prompt = "textarea"', 'prompt = "textarea.composer-v1"').replace(
        'send = "button.send"', 'send = ["button.send-v1", "#send-old"]')
    (sites / "stale.toml").write_text(stale.replace("settle_ms = 300", "settle_ms = 150"), encoding="utf-8")
    async with WebSimServer(WebSimConfig(time_scale=0.005, fixed_run_s=20.0, answer_tokens=TOKENS)) as sim:
        cfg = make_config(
            [{"name": "chat", "kind": "web", "site": "stale", "url": sim.chat_url}],
            [{"name": "acct-stale", "profile": "chat"}],
            browser={"sites_dir": str(sites)},
        )
        await _login(cfg, workspace, sim, "acct-stale")
        async with Scheduler(cfg, workspace) as s:
            s.intake.submit([s.intake.new_task(f"s{i}", "chat", f"stale adapter {i}") for i in range(2)])
            await asyncio.wait_for(s.wait_idle(), 120)
            lane = next(ln for ln in s.lanes if getattr(ln.backend, "account", None) == "acct-stale")
            health, text = lane.backend.health()
    tasks = tasks_of(workspace)
    for i in range(2):
        t = tasks[f"s{i}"]
        assert t.state == "success", (t.state, t.error_message)
        assert t.result == "".join(answer_tokens(f"stale adapter {i}", TOKENS))
        logs = log_messages(workspace, f"s{i}")
        assert any("warning: adapter key 'prompt' 'textarea.composer-v1' matches nothing" in m for m in logs), logs
        assert any("adapter key 'send' ['button.send-v1', '#send-old'] matches nothing" in m for m in logs), logs
    assert health == "ready"
    assert text is not None and "'prompt'" in text and "found by role" in text
