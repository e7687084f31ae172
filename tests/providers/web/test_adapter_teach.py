"""``adapter new`` (teach mode) on real Chromium: a test plays the operator and clicks the message box,
the send button and the answer; the adapter written from the clicks must pass ``adapter check`` and
run prompts through the driver."""

from __future__ import annotations

import asyncio
import tomllib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, async_playwright

from mediadesk.providers.web.check import check_page
from mediadesk.providers.web.driver import PageDriver
from mediadesk.providers.web.finder import chromium_flags
from mediadesk.providers.web.teach import TEACH_PROMPT, teach_page
from mediadesk.sim.web_server import WebSimConfig, WebSimServer, answer_tokens, login_context

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser(chromium_exe: Path) -> AsyncIterator[Browser]:
    pw = await async_playwright().start()
    b = await pw.chromium.launch(executable_path=str(chromium_exe), args=chromium_flags(headless=False))
    yield b
    await b.close()
    await pw.stop()


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
            await login_context(ctx, sim.base_url, "acct-a")
            page = await ctx.new_page()
            said: list[str] = []
            clicks = asyncio.ensure_future(operator(page))
            adapter, text = await teach_page(page, sim.chat_url, name="taught", say=said.append)
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
