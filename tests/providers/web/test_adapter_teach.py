"""``adapter new`` (teach mode) on real Chromium: a test plays the operator and clicks the message box,
the send button and the answer; the adapter written from the clicks must pass ``adapter check`` and
run prompts through the driver."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, async_playwright

from mediadesk.providers.web.check import check_page
from mediadesk.providers.web.driver import PageDriver
from mediadesk.providers.web.teach import TEACH_PROMPT, teach_page
from mediadesk.sim.web_server import WebSimConfig, WebSimServer, answer_tokens

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]



async def step_shown(page: Page, step: str) -> None:
    await page.wait_for_function("(s) => document.documentElement.dataset.mediadeskTeach === s", arg=step)


async def operator(page: Page) -> None:
    """What the operator does: click the box, the send button, and the answer once it is complete."""
    await step_shown(page, "prompt")
    await page.click("#prompt")
    await step_shown(page, "send")
    await page.wait_for_function("(t) => document.querySelector('#prompt').value === t", arg=TEACH_PROMPT)
    await page.click("button.send")
    await step_shown(page, "answer")
    await page.wait_for_function("() => document.body.dataset.runsEnded === '1'")
    await page.locator(".assistant .content").last.click()


async def test_teach_mode_writes_an_adapter_that_works(browser: Browser, tmp_path: Path) -> None:
    config = WebSimConfig(time_scale=0.02, fixed_run_s=30.0, answer_tokens=10)
    async with WebSimServer(config) as sim:
        ctx = await browser.new_context()
        try:
            # the login form's POST, sent by the context itself (teach mode starts on a logged-in page; the
            # form on a page: tests/sim/test_web_sim.py)
            resp = await ctx.request.post(sim.login_url, form={"account": "acct-a", "password": "x"},
                                          max_redirects=0)
            assert resp.status == 303, resp.status
            page = await ctx.new_page()
            said: list[str] = []
            clicks = asyncio.ensure_future(operator(page))
            adapter, text = await teach_page(page, sim.chat_url, name="taught", progress=said.append)
            await clicks
            keys = tomllib.loads(text)
            assert keys["name"] == "taught" and keys["url"] == sim.chat_url
            assert keys["prompt"] in ("#prompt", "textarea")  # no placeholder wording, no layout path
            assert keys["send"] == "button.send" and keys["answer"] == "div.assistant"
            assert keys["busy"] != "[aria-busy=true]", keys  # the stop button was seen while generating
            assert any("send button" in m for m in said)
            # The written adapter passes the check and runs prompts.
            result = await check_page(page, adapter, out_dir=tmp_path, stem="taught")
            assert result.ok, result
            assert {k.key: k.status for k in result.keys}["busy"] == "found"
            driver = PageDriver(adapter)
            for prompt in ("taught one", "taught two"):
                await driver.prepare(page)
                run = await driver.run(page, prompt)
                assert run.answer == "".join(answer_tokens(prompt, 10))
            assert sim.stats()["concurrent_violations"] == 0
        finally:
            await ctx.close()


@pytest.mark.usefixtures("playwright_hub")  # the login's browser and teach mode's: one driver
async def test_adapter_new_through_the_facade_on_the_account_profile(tmp_path: Path) -> None:
    """The whole command: the account's own browser (its login), the clicks, the TOML written to the
    sites dir, the check of it. The test reaches that browser over its debug port to click."""
    from mediadesk.config.model import parse_config
    from mediadesk.config.workspace import Workspace
    from mediadesk.providers.web.login import login_with_form
    from mediadesk.scheduler.adapter_check import teach_adapter

    async with WebSimServer(WebSimConfig(time_scale=0.02, fixed_run_s=30.0, answer_tokens=10)) as sim:
        sites = tmp_path / "sites"
        cfg = parse_config({"browser": {"sites_dir": str(sites)},
                            "profiles": [{"name": "chat", "kind": "web", "site": "taught"}],
                            "accounts": [{"name": "acct", "profile": "chat"}]})  # fmt: skip
        ws = Workspace.resolve(data_dir=tmp_path / "data").ensure()
        await login_with_form(cfg, ws, "acct", sim.login_url, fields={"#account": "acct", "#password": "x"},
                              submit="button.login", logged_in=".avatar")  # fmt: skip
        port_file = ws.account_profile_dir("acct") / "DevToolsActivePort"
        await asyncio.to_thread(port_file.unlink, missing_ok=True)
        teach = asyncio.ensure_future(teach_adapter(cfg, ws, sim.chat_url, account="acct", name="taught",
                                                    visible=False))  # fmt: skip
        pw = await async_playwright().start()
        try:
            while not await asyncio.to_thread(port_file.exists):
                assert not teach.done(), teach.result()
                await asyncio.sleep(0.05)
            port = (await asyncio.to_thread(port_file.read_text)).split()[0]
            remote = await pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
            page = None
            while page is None:
                page = next((p for c in remote.contexts for p in c.pages if p.url == sim.chat_url), None)
                await asyncio.sleep(0.05)
            await operator(page)
            path, result = await teach
        finally:
            await pw.stop()
        assert path == sites / "taught.toml" and tomllib.loads(await asyncio.to_thread(path.read_text))["busy"]
        assert result is not None and result.ok and result.account == "acct", result
        assert result.done_reason in ("stream ended", "page settled")
