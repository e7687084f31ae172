"""The page driver on real Chromium against the simulator's page modes: an overlay dialog after login,
a send click handler that blocks the page after sending, code rendered by editor widgets.

Each one broke runs on a real chat UI (issue 18): every send timed out behind a "What's New" dialog; a
prompt the site had sent was reported as not sent and generated again on retry; code came out as
paragraphs without its indentation.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser

from mediadesk.config.workspace import resources_dir
from mediadesk.providers.web import page_send
from mediadesk.providers.web.adapter import SiteAdapter, load_adapter, with_url
from mediadesk.providers.web.driver import PageDriver
from mediadesk.providers.web.errors import SiteError
from mediadesk.sim.web_server import (
    WebSimConfig,
    WebSimServer,
    answer_tokens,
    code_answer,
)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

SIMCHAT = resources_dir() / "sites" / "simchat.toml"
TOKENS = 12



@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def sim() -> AsyncIterator[WebSimServer]:
    async with WebSimServer(WebSimConfig(time_scale=0.005, fixed_run_s=30.0, answer_tokens=TOKENS)) as server:
        yield server


def adapter(sim: WebSimServer, **overrides: object) -> SiteAdapter:
    base = dataclasses.replace(with_url(load_adapter(SIMCHAT), sim.chat_url), settle_ms=150)
    return dataclasses.replace(base, **overrides)  # type: ignore[arg-type]


def generations_of(sim: WebSimServer, prompt: str) -> int:
    return sum(1 for g in sim.stats()["generations"] if g["prompt"] == prompt)


async def logged_in_page(browser: Browser, sim: WebSimServer, account: str):  # type: ignore[no-untyped-def]
    """A fresh context given its session cookie by the login form's POST (sent by the context itself: what
    the form does, without a page to fill it; the form on a page: tests/sim/test_web_sim.py)."""
    ctx = await browser.new_context()
    resp = await ctx.request.post(sim.login_url, form={"account": account, "password": "secret"}, max_redirects=0)
    assert resp.status == 303, (resp.status, await resp.text())
    return ctx, await ctx.new_page()


# --- overlays ---------------------------------------------------------------------------------------


async def test_an_overlay_that_closes_on_escape_is_closed_and_the_run_goes_on(browser: Browser,
                                                                              sim: WebSimServer) -> None:
    sim.set_page_modes(overlay="escape")
    ctx, page = await logged_in_page(browser, sim, "ov-esc")
    try:
        driver = PageDriver(adapter(sim))  # the shipped adapter, no `dismiss`
        await driver.prepare(page)
        assert await page.locator("[role=dialog]").count() == 1  # the dialog is up
        result = await driver.run(page, "behind a dialog")
        assert result.answer == "".join(answer_tokens("behind a dialog", TOKENS))
        assert any("pressed Escape" in w and "modal-backdrop" in w for w in result.warnings), result.warnings
        assert generations_of(sim, "behind a dialog") == 1
    finally:
        sim.set_page_modes()
        await ctx.close()


async def test_dismiss_clicks_the_overlay_away_before_typing(browser: Browser, sim: WebSimServer) -> None:
    sim.set_page_modes(overlay="sticky")
    ctx, page = await logged_in_page(browser, sim, "ov-dismiss")
    try:
        driver = PageDriver(adapter(sim, dismiss=("[role=dialog] button.dialog-close",)))
        await driver.prepare(page)
        result = await driver.run(page, "dismissed")
        assert result.answer == "".join(answer_tokens("dismissed", TOKENS))
        assert any("clicked away an overlay" in w and "Okay, let" in w for w in result.warnings), result.warnings
        assert await page.locator("[role=dialog]").count() == 0
    finally:
        sim.set_page_modes()
        await ctx.close()


@pytest.mark.parametrize("click", ["direct", "checked"])
async def test_an_overlay_that_stays_fails_naming_what_covers_the_button(
    browser: Browser, sim: WebSimServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, click: str
) -> None:
    monkeypatch.setattr(page_send, "_SEND_CLICK_MS", 1000)  # the wait for the overlay to go, shortened
    sim.set_page_modes(overlay="sticky")
    ctx, page = await logged_in_page(browser, sim, f"ov-sticky-{click}")
    try:
        driver = PageDriver(adapter(sim, send_click=click))
        await driver.prepare(page)
        with pytest.raises(SiteError, match=r"^send_failed: .*(modal|dialog)") as info:
            await driver.run(page, "never sent")
        assert "intercepts pointer events" in str(info.value) or "covered by" in str(info.value)
        assert generations_of(sim, "never sent") == 0
        files = await driver.evidence(page, tmp_path / "ev", "attempt1")
        notes = next(f for f in files if f.suffix == ".txt").read_text(encoding="utf-8")
        assert "covered by div.modal-backdrop" in notes or "intercepts pointer events" in notes, notes
        if click == "checked":
            assert "intercepts pointer events" in notes  # Playwright's call log is kept
    finally:
        sim.set_page_modes()
        await ctx.close()


# --- a send click that does not return although the prompt went ------------------------------------


@pytest.mark.parametrize("click", ["direct", "checked"])
async def test_a_send_click_that_times_out_after_sending_is_not_a_send_failure(
    browser: Browser, sim: WebSimServer, monkeypatch: pytest.MonkeyPatch, click: str
) -> None:
    # the click's budget leaves room for Playwright's actionability checks on a loaded machine (they
    # took over 0.5 s at load 6 on 2 cores, so the click timed out before it was sent); the page then
    # holds twice that budget, so the click still times out AFTER the prompt went (the run waits out
    # the hold, so the hold is the test's cost)
    monkeypatch.setattr(page_send, "_SEND_CLICK_MS", 1500)
    sim.set_page_modes(send_block_ms=3000)  # the handler sends, then holds the page for 3 s
    ctx, page = await logged_in_page(browser, sim, f"slow-{click}")
    prompt = f"sent under load ({click})"
    try:
        driver = PageDriver(adapter(sim, send_click=click))
        await driver.prepare(page)
        result = await driver.run(page, prompt)
        assert result.answer == "".join(answer_tokens(prompt, TOKENS))
        assert generations_of(sim, prompt) == 1  # sent once, never twice
        assert any("timed out" in w and "the prompt was sent" in w for w in result.warnings), result.warnings
    finally:
        sim.set_page_modes()
        await ctx.close()


# --- code rendered by editor widgets ---------------------------------------------------------------


@pytest.mark.parametrize("widget", ["codemirror", "lines"])
async def test_code_from_the_sites_editor_widget_is_stored_as_a_fenced_block(
    browser: Browser, sim: WebSimServer, widget: str
) -> None:
    sim.set_page_modes(code_widget=widget)
    ctx, page = await logged_in_page(browser, sim, f"code-{widget}")
    try:
        driver = PageDriver(adapter(sim, answer_format="markdown"))
        await driver.prepare(page)
        assert await page.evaluate("document.body.dataset.codeWidget") == widget
        result = await driver.run(page, "write first()")
        assert result.answer == code_answer("write first()")
        assert "    if not items:\n        return None\n\n" in result.answer
        assert "| :--- | ---: | :---: |" in result.answer
    finally:
        sim.set_page_modes()
        await ctx.close()


async def test_a_covered_new_chat_button_loads_the_chat_page_instead(browser: Browser, sim: WebSimServer) -> None:
    ctx, page = await logged_in_page(browser, sim, "ov-newchat")
    try:
        driver = PageDriver(adapter(sim))
        await driver.prepare(page)
        assert (await driver.run(page, "first")).answer == "".join(answer_tokens("first", TOKENS))
        # Something the site shows later covers the page, the new-chat button included.
        await page.evaluate("""() => {
            window.marker = 'old document';
            const o = document.createElement('div');
            o.className = 'survey-overlay';
            o.style.cssText = 'position:fixed;inset:0;z-index:99;background:rgba(0,0,0,.2)';
            document.body.appendChild(o);
        }""")
        await driver.prepare(page)  # not a 5 s click timeout behind the overlay: the page is loaded again
        assert await page.evaluate("window.marker") is None
        assert (await driver.run(page, "second")).answer == "".join(answer_tokens("second", TOKENS))
    finally:
        await ctx.close()
