""""New chat" in one round trip: prepare() clicks the button from the page, in the same script as the
lookup, the readiness wait and the typing, and proves the click's effect before typing; a site that
ignores a scripted click gets the trusted press (and keeps getting it). Real Chromium, the fake chat
site A served on 127.0.0.1 (it clears its thread 40 ms after New chat, as SPAs do)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page

from mediadesk.providers.web.adapter import SiteAdapter, load_adapter, with_url
from mediadesk.providers.web.driver import PageDriver
from mediadesk.providers.web.page_scripts import NEW_CHAT_JS, NEW_CHAT_TYPE_JS

PAGES = Path(__file__).parent / "pages"

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]




def site_a(server: str, query: str = "", **overrides: Any) -> SiteAdapter:
    adapter = with_url(load_adapter(PAGES / "site_a.toml"), f"{server}/site_a.html{query}")
    return dataclasses.replace(adapter, **overrides)


class Spy(PageDriver):
    """Records the page scripts and presses the driver makes. A site that reacts to the scripted click
    is given all the time a loaded machine may need to show it (the test must not depend on the 1.5 s
    the product allows); a site that does not react never shows it, so that wait is waited out in full
    whatever its length: a short one here."""

    def __init__(self, adapter: SiteAdapter, *, reacts: bool = True) -> None:
        super().__init__(adapter)
        self.scripts: list[str] = []
        self.presses = 0
        self.ready.new_chat_effect_ms = 60_000.0 if reacts else 300.0
        evaluate, press = self.session.evaluate, self.session.press

        async def spy_evaluate(page: Page, script: str, arg: Any = None) -> Any:
            self.scripts.append(script)
            return await evaluate(page, script, arg)

        async def spy_press(page: Page, x: float, y: float) -> None:
            self.presses += 1
            await press(page, x, y)

        self.session.evaluate = spy_evaluate  # type: ignore[method-assign]
        self.session.press = spy_press  # type: ignore[method-assign]


async def thread_size(page: Page) -> int:
    return int(await page.locator("#thread > *").count())


async def test_new_chat_is_one_page_script_and_its_effect_is_proven(server: str, page: Page) -> None:
    driver = Spy(site_a(server))
    await driver.prepare(page, "first")
    assert (await driver.run(page, "first")).answer == "Echo: first | done."
    driver.scripts.clear()
    driver.presses = 0
    await driver.prepare(page, "second")  # warm: the page holds the first run's turns
    # One round trip: lookup, scripted click, its effect (the thread cleared 40 ms later), ready, typed.
    assert driver.scripts == [NEW_CHAT_TYPE_JS] and driver.presses == 0
    assert driver.ready.scripted_new_chat is True
    assert await thread_size(page) == 0  # typed only once the old turns were gone
    assert await page.evaluate("document.getElementById('box').value") == "second"
    assert (await driver.run(page, "second")).answer == "Echo: second | done."
    assert await page.evaluate("window.received") == ["first", "second"]  # each sent once
    assert await page.evaluate("window.newChatClicks") == 1


async def test_a_site_that_ignores_scripted_clicks_gets_the_trusted_press(server: str, page: Page) -> None:
    driver = Spy(site_a(server, "?trustednew=1"), reacts=False)
    await driver.prepare(page, "one")
    await driver.run(page, "one")
    driver.presses = 0
    await driver.prepare(page, "two")
    # The scripted click did nothing (the old turn stayed): nothing was typed into the old chat; the
    # trusted press started the new chat, and this driver remembers it.
    assert driver.ready.scripted_new_chat is False
    assert driver.presses == 1
    assert await page.evaluate("window.newChatClicks") == 2  # the scripted click and the press
    assert await thread_size(page) == 0
    assert (await driver.run(page, "two")).answer == "Echo: two | done."
    driver.scripts.clear()
    driver.presses = 0
    await driver.prepare(page, "three")  # no second try: straight to the press
    assert NEW_CHAT_TYPE_JS not in driver.scripts and NEW_CHAT_JS in driver.scripts
    assert driver.presses == 1
    assert (await driver.run(page, "three")).answer == "Echo: three | done."
    assert await page.evaluate("window.received") == ["one", "two", "three"]


async def test_a_scripted_new_chat_that_loads_a_page(server: str, page: Page) -> None:
    driver = Spy(site_a(server, new_chat="#reload"))  # a link: the click replaces the document
    await driver.prepare(page, "one")
    await driver.run(page, "one")
    await driver.prepare(page, "two")
    assert driver.ready.scripted_new_chat is True
    assert (await driver.run(page, "two")).answer == "Echo: two | done."
    assert await page.evaluate("window.received") == ["two"]  # a fresh document


async def test_nothing_to_prove_the_effect_by_means_a_trusted_press(server: str, page: Page) -> None:
    """A page with no answer on it (the first task after a load): a scripted click could not be told
    from one the site ignored, so the button gets today's trusted press."""
    driver = Spy(site_a(server))
    await driver.prepare(page)  # the page loaded, no answer on it
    assert driver.presses == 0
    await driver.prepare(page, "first")
    assert driver.presses == 1 and driver.ready.scripted_new_chat is None
    assert (await driver.run(page, "first")).answer == "Echo: first | done."
