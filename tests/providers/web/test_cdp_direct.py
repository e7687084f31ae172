"""The driver's own CDP connection to pages of a browser MediaDesk started (cdp_direct.py): the hot
path's page scripts and trusted presses go over it, and it fails as Playwright's path does (a replaced
document, a closed or crashed page), so nothing above the driver can tell the two apart.

Real Chromium started by :class:`OwnedBrowser` (its debug port on 127.0.0.1), the chat simulator on
127.0.0.1.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Page, Playwright

from mediadesk.config.workspace import resources_dir
from mediadesk.providers.web import find_our_residue
from mediadesk.providers.web.adapter import load_adapter, with_url
from mediadesk.providers.web.cdp_direct import DirectPage
from mediadesk.providers.web.driver import PageDriver
from mediadesk.providers.web.errors import AdapterMismatch, PageGone
from mediadesk.providers.web.launcher import OwnedBrowser
from mediadesk.providers.web.page_scripts import NEXT_JS
from mediadesk.providers.web.page_session import Navigated
from mediadesk.sim.web_server import WebSimConfig, WebSimServer, answer_tokens, login_context

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

SIMCHAT = resources_dir() / "sites" / "simchat.toml"
TOKENS = 8
#: A failure detector for a call that must end at once; never reached when the code is right.
STUCK_S = 30.0


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def sim() -> AsyncIterator[WebSimServer]:
    async with WebSimServer(WebSimConfig(time_scale=0.005, fixed_run_s=30.0, answer_tokens=TOKENS)) as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def owned(pw_module: Playwright, chromium_exe: Path, tmp_path_factory: pytest.TempPathFactory,
                sim: WebSimServer) -> AsyncIterator[OwnedBrowser]:
    """One browser for the module (each test opens its own pages and its own driver, so its own direct
    connections); nothing of it may outlive the module."""
    root = tmp_path_factory.mktemp("cdp-direct")
    browser = OwnedBrowser(pw_module, chromium_exe, root / "acct-direct")
    await browser.start()
    try:
        await login_context(browser.context, sim.base_url, "direct")
        yield browser
    finally:
        await browser.close(grace_s=0)
        left = find_our_residue(root)
        assert not left, f"processes left running on the module's profile: {[p.describe() for p in left]}"


def driver_for(sim: WebSimServer, browser: OwnedBrowser | None) -> PageDriver:
    adapter = dataclasses.replace(with_url(load_adapter(SIMCHAT), sim.chat_url), settle_ms=150)
    return PageDriver(adapter, cdp_port=None if browser is None else lambda _page: browser.port)


def spy_playwright_evaluate(page: Page) -> list[str]:
    """Record every script that goes through Playwright's own evaluate on ``page``."""
    scripts: list[str] = []
    real = page.evaluate

    async def evaluate(expression: str, arg: Any | None = None) -> Any:
        scripts.append(expression)
        return await real(expression, arg)

    page.evaluate = evaluate  # type: ignore[method-assign]
    return scripts


async def direct_of(driver: PageDriver, page: Page) -> DirectPage | None:
    return await driver.session.direct_page(page)


async def test_runs_go_over_the_drivers_own_connection(owned: OwnedBrowser, sim: WebSimServer) -> None:
    driver = driver_for(sim, owned)
    page = await owned.context.new_page()
    through_playwright = spy_playwright_evaluate(page)
    for i in range(3):
        prompt = f"direct prompt {i}"
        await driver.prepare(page, prompt)
        result = await driver.run(page, prompt)
        assert result.answer == "".join(answer_tokens(prompt, TOKENS))
    direct = await direct_of(driver, page)
    assert direct is not None and direct.usable
    assert NEXT_JS not in through_playwright  # the answer wait went over the direct connection
    assert len([g for g in sim.stats()["generations"] if g["prompt"].startswith("direct prompt")]) == 3
    await page.close()


async def test_a_browser_without_a_known_port_uses_playwright(owned: OwnedBrowser, sim: WebSimServer) -> None:
    driver = driver_for(sim, None)
    page = await owned.context.new_page()
    through_playwright = spy_playwright_evaluate(page)
    await driver.prepare(page, "by playwright")
    result = await driver.run(page, "by playwright")
    assert result.answer == "".join(answer_tokens("by playwright", TOKENS))
    assert await direct_of(driver, page) is None
    assert NEXT_JS in through_playwright
    await page.close()


async def test_a_replaced_document_is_a_navigation(owned: OwnedBrowser, sim: WebSimServer) -> None:
    driver = driver_for(sim, owned)
    page = await owned.context.new_page()
    await page.goto(sim.chat_url)
    pending = asyncio.ensure_future(driver.session.evaluate(page, "() => new Promise(() => {})"))
    assert await direct_of(driver, page) is not None
    await asyncio.sleep(0)
    await page.goto(sim.chat_url + "?again")
    with pytest.raises(Navigated):
        await asyncio.wait_for(pending, STUCK_S)
    assert await driver.session.evaluate(page, "(x) => x + 1", 41) == 42  # the connection serves the new document
    await page.close()


async def a_pending_call(owned: OwnedBrowser, sim: WebSimServer) -> tuple[PageDriver, Page, asyncio.Future[Any]]:
    """A chat page with a page script under way over the own connection (it never resolves by itself)."""
    driver = driver_for(sim, owned)
    page = await owned.context.new_page()
    await page.goto(sim.chat_url)
    assert await direct_of(driver, page) is not None
    pending = asyncio.ensure_future(driver.session.evaluate(page, "() => new Promise(() => {})"))
    await asyncio.sleep(0.05)
    return driver, page, pending


async def test_a_closed_page_fails_its_pending_call_at_once(owned: OwnedBrowser, sim: WebSimServer) -> None:
    driver, page, pending = await a_pending_call(owned, sim)
    await page.close()
    with pytest.raises(PageGone):
        await asyncio.wait_for(pending, STUCK_S)
    with pytest.raises(PageGone):
        await driver.session.evaluate(page, "() => 1")


async def test_a_crashed_page_fails_its_pending_call(owned: OwnedBrowser, sim: WebSimServer) -> None:
    _driver, page, pending = await a_pending_call(owned, sim)
    crashed = asyncio.Event()
    page.on("crash", lambda _p: crashed.set())
    with pytest.raises(Exception):  # noqa: B017,PT011 - Playwright's goto fails in its own words
        await page.goto("chrome://crash")
    await asyncio.wait_for(crashed.wait(), STUCK_S)
    with pytest.raises(PageGone):
        await asyncio.wait_for(pending, STUCK_S)
    await page.close()


async def test_page_script_errors_read_as_on_playwrights_path(owned: OwnedBrowser, sim: WebSimServer) -> None:
    driver = driver_for(sim, owned)
    page = await owned.context.new_page()
    await page.goto(sim.chat_url)
    with pytest.raises(AdapterMismatch, match="invalid CSS selector 'div>>>'"):
        await driver.session.evaluate(page, "() => { throw new Error('MEDIADESK_BAD_SELECTOR div>>>') }")
    evaluate = driver.session.evaluate
    assert await evaluate(page, "(a) => [a.t, a.n * 2, undefined, 'é\\u{1F600}']", {"t": "中文", "n": 2}) == \
        ["中文", 4, None, "é\U0001F600"]
    assert await evaluate(page, "() => undefined") is None
    assert await evaluate(page, "async () => { await new Promise(r => setTimeout(r, 10)); return 'late'; }") \
        == "late"
    await page.close()


async def test_a_long_script_is_sent_once_per_document(owned: OwnedBrowser, sim: WebSimServer) -> None:
    """The driver's page scripts are up to ~35 KB: kept in the page after their first call, later calls
    send only a name and the argument; a new document gets the script again; errors read the same."""
    driver = driver_for(sim, owned)
    page = await owned.context.new_page()
    await page.goto(sim.chat_url)
    direct = await direct_of(driver, page)
    assert direct is not None
    sent: list[str] = []
    real_send = direct.send

    async def spy(method: str, params: dict[str, Any]) -> dict[str, Any]:
        sent.append(params.get("expression", ""))
        return await real_send(method, params)

    direct.send = spy  # type: ignore[method-assign]
    padding = "/*" + "x" * 4000 + "*/"
    script = f"(a) => {{ {padding} if (a.bad) throw new Error('MEDIADESK_BAD_SELECTOR p>>>'); return a.n + 1; }}"
    assert await driver.session.evaluate(page, script, {"n": 1}) == 2  # not kept yet: asked, then sent whole
    assert [len(e) > 4000 for e in sent] == [False, True]
    sent.clear()
    assert await driver.session.evaluate(page, script, {"n": 2}) == 3
    assert [len(e) > 4000 for e in sent] == [False]  # only its name and the argument
    with pytest.raises(AdapterMismatch, match="invalid CSS selector 'p>>>'"):
        await driver.session.evaluate(page, script, {"bad": True})
    await page.goto(sim.chat_url + "?another-document")
    sent.clear()
    assert await driver.session.evaluate(page, script, {"n": 40}) == 41
    assert [len(e) > 4000 for e in sent] == [False, True]
    await page.close()
