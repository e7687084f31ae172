"""The page driver on real Chromium against two unrelated fake chat sites (and the simulator).

The sites are static pages under ``pages/`` served by aiohttp on 127.0.0.1; each is described
only by its adapter TOML, so these tests prove the driver is written from the adapter keys.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page

from mediadesk.core.errors import ErrorKind
from mediadesk.providers.web.adapter import SiteAdapter, load_adapter, with_url
from mediadesk.providers.web.backend import task_failure
from mediadesk.providers.web.driver import PageDriver
from mediadesk.providers.web.errors import (
    AdapterMismatch,
    NeedsLogin,
    PageGone,
    RunCanceled,
    RunTimeout,
    SiteError,
    StreamCut,
)
from mediadesk.sim import web_server as sim_mod

PAGES = Path(__file__).parent / "pages"
B_WORDS = "alpha beta gamma delta epsilon zeta eta theta."

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]




def site(server: str, name: str, query: str = "", **overrides: Any) -> SiteAdapter:
    adapter = with_url(load_adapter(PAGES / f"{name}.toml"), f"{server}/{name}.html{query}")
    return dataclasses.replace(adapter, **overrides)


def b_answer(prompt: str) -> str:
    words = f'Answer to "{prompt}". {B_WORDS}'.split(" ")
    return " ".join(words[:5]) + "\n\n" + " ".join(words[5:])


# --- site A: textarea + send button + .stop ---------------------------------------------------------


async def test_site_a_full_answer_and_progress(server: str, page: Page) -> None:
    driver = PageDriver(site(server, "site_a"))
    await driver.prepare(page)
    beats: list[int] = []
    result = await driver.run(page, "hello world", on_progress=lambda: beats.append(1))
    assert result.answer == "Echo: hello world | done."
    assert len(beats) >= 2 and result.timings.progress_events == len(beats)
    t = result.timings
    assert t.first_change_ms is not None and t.last_change_ms is not None and t.done_ms is not None
    assert t.first_change_ms <= t.last_change_ms
    # Done only after the answer was still for settle_ms, counted from its last change.
    assert t.done_ms - t.last_change_ms >= driver.adapter.settle_ms - 1
    assert t.total_ms >= t.sent_ms >= t.typed_ms > 0


async def test_site_a_reuses_the_page_with_new_chat(server: str, page: Page) -> None:
    driver = PageDriver(site(server, "site_a"))
    await driver.prepare(page)
    assert (await driver.run(page, "first")).answer == "Echo: first | done."
    await page.evaluate("window.marker = 'same document'")
    await driver.prepare(page)  # clicks new_chat; the page clears its thread 40 ms later
    assert await page.evaluate("window.marker") == "same document"
    assert await page.locator(".assistant").count() == 0
    assert (await driver.run(page, "second")).answer == "Echo: second | done."
    assert await page.evaluate("window.received") == ["first", "second"]


async def test_site_a_multiline_chinese_emoji_arrive_intact(server: str, page: Page) -> None:
    driver = PageDriver(site(server, "site_a"))
    await driver.prepare(page)
    text = "第一行：你好，世界 🌏\n\n  second line  with  spaces\t(tab)\n三行目 👍🏽 family 👨‍👩‍👧 end\n"
    result = await driver.run(page, text)
    assert await page.evaluate("window.received") == [text]  # one send, exact text
    assert result.answer == ("Echo: " + text + " | done.").strip()


async def test_site_a_without_the_editing_command_falls_back_to_cdp_insert(server: str, page: Page) -> None:
    driver = PageDriver(site(server, "site_a", "?noexec=1"))
    await driver.prepare(page)
    assert await page.evaluate("document.execCommand('insertText', false, 'x')") is False
    text = "两行\n第二行 ✅"
    assert (await driver.run(page, text)).answer == f"Echo: {text} | done."
    assert await page.evaluate("window.received") == [text]


async def test_site_a_new_chat_that_is_a_full_navigation(server: str, page: Page) -> None:
    driver = PageDriver(site(server, "site_a", new_chat="#reload"))
    await driver.prepare(page)
    assert (await driver.run(page, "one")).answer == "Echo: one | done."
    await driver.prepare(page)  # the link reloads the document
    assert (await driver.run(page, "two")).answer == "Echo: two | done."
    assert await page.evaluate("window.received") == ["two"]  # a fresh document


async def test_site_a_navigation_mid_run(server: str, page: Page) -> None:
    driver = PageDriver(site(server, "site_a"))
    await driver.prepare(page)
    with pytest.raises(NeedsLogin, match="login page during the run"):
        await driver.run(page, "[navigate] away")
    await page.goto(driver.adapter.url)  # log in again (on this site the URL decides)
    await driver.prepare(page)
    with pytest.raises(StreamCut, match="navigated away during the run") as cut:
        await driver.run(page, "[reload] again")
    assert task_failure(cut.value).unavailable  # the page went away under the run: a cut, uncharged


async def test_site_a_logged_out_page_needs_login(server: str, page: Page) -> None:
    driver = PageDriver(site(server, "site_a", "?state=out", start_timeout_s=10.0))
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    with pytest.raises(NeedsLogin, match=r"a\.login") as info:
        await driver.prepare(page)
    assert info.value.kind is ErrorKind.NEEDS_LOGIN
    # The logged_out selector answers at once; this is a safety net, not a speed claim.
    assert loop.time() - t0 < 9.0


async def test_site_a_logout_during_run(server: str, page: Page) -> None:
    driver = PageDriver(site(server, "site_a"))
    await driver.prepare(page)
    with pytest.raises(NeedsLogin, match="logged out during the run"):
        await driver.run(page, "[logout] please")


async def test_site_a_error_banner_fails_the_run(server: str, page: Page, tmp_path: Path) -> None:
    driver = PageDriver(site(server, "site_a"))
    await driver.prepare(page)
    with pytest.raises(SiteError, match="Quota exceeded, try later") as info:
        await driver.run(page, "[error] boom")
    assert task_failure(info.value).retryable
    files = await driver.evidence(page, tmp_path / "ev", "task-1")
    assert [f.name for f in files] == ["task-1.png", "task-1.html"]
    assert files[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Quota exceeded" in files[1].read_text(encoding="utf-8")


async def test_site_a_hang_times_out_and_clicks_stop(server: str, page: Page) -> None:
    driver = PageDriver(site(server, "site_a", max_run_s=1.0))
    await driver.prepare(page)
    with pytest.raises(RunTimeout, match="max_run_s=1"):
        await driver.run(page, "[hang] forever")
    assert await page.evaluate("window.stopClicks") == 1


async def test_site_a_hung_renderer_times_out(server: str, page: Page) -> None:
    driver = PageDriver(site(server, "site_a", max_run_s=1.5))
    await driver.prepare(page)
    with pytest.raises(RunTimeout, match=r"max_run_s=1\.5"):
        await driver.run(page, "[freeze] the page stops answering")


async def test_page_closed_mid_run_is_page_gone(server: str, browser: Browser) -> None:
    ctx = await browser.new_context()
    try:
        p = await ctx.new_page()
        driver = PageDriver(site(server, "site_a"))
        await driver.prepare(p)
        started = asyncio.Event()
        task = asyncio.ensure_future(driver.run(p, "[slow] closing soon", on_progress=started.set))
        await asyncio.wait_for(started.wait(), 10)
        await p.close()
        with pytest.raises(PageGone) as info:
            await task
        assert info.value.kind is ErrorKind.BROWSER_CRASH
    finally:
        await ctx.close()


async def test_site_a_no_start_times_out(server: str, page: Page) -> None:
    driver = PageDriver(site(server, "site_a", start_timeout_s=0.5))
    await driver.prepare(page)
    with pytest.raises(RunTimeout, match="no answer and no busy indicator"):
        await driver.run(page, "[silent] nothing happens")
    assert await page.evaluate("window.stopClicks") == 0  # nothing visible to stop


async def test_site_a_cancel_event_clicks_stop(server: str, page: Page) -> None:
    driver = PageDriver(site(server, "site_a"))
    await driver.prepare(page)
    cancel = asyncio.Event()
    beats: list[int] = []

    def progress() -> None:
        beats.append(1)
        if len(beats) == 3:
            cancel.set()

    with pytest.raises(RunCanceled):
        await driver.run(page, "[slow] long story", on_progress=progress, cancel_event=cancel)
    assert await page.evaluate("window.stopClicks") == 1
    length = len(await page.locator(".assistant .content").inner_text())
    # Proof that a next token would have come by now: a page timer set now for three generator steps
    # (30 ms each) fires after any step still pending (the page's timers fire in deadline order).
    await page.evaluate("() => new Promise((resolve) => setTimeout(resolve, 3 * 30))")
    assert len(await page.locator(".assistant .content").inner_text()) == length  # really stopped


async def test_site_a_task_cancel_clicks_stop_and_reraises(server: str, page: Page) -> None:
    driver = PageDriver(site(server, "site_a"))
    await driver.prepare(page)
    started = asyncio.Event()
    task = asyncio.ensure_future(driver.run(page, "[slow] another", on_progress=started.set))
    await asyncio.wait_for(started.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await page.evaluate("window.stopClicks") == 1


async def test_invalid_selector_and_missing_prompt_are_adapter_mismatches(server: str, page: Page) -> None:
    bad = PageDriver(site(server, "site_a", busy="div[[["))
    with pytest.raises(AdapterMismatch, match=r"invalid CSS selector 'div\[\[\['"):
        await bad.prepare(page)  # the busy key is read before typing (the site must be idle)
    wrong = PageDriver(site(server, "site_a", prompt="#no-such-box", start_timeout_s=0.3, fallbacks=False))
    with pytest.raises(AdapterMismatch, match="#no-such-box") as info:
        await wrong.prepare(page)
    assert not task_failure(info.value).retryable


async def test_a_key_that_stopped_matching_falls_back_and_says_so(server: str, page: Page) -> None:
    # The site renamed its prompt box and send button: the run goes on (found by role) and warns.
    driver = PageDriver(site(server, "site_a", prompt=("#renamed-box",), send="button.renamed"))
    await driver.prepare(page)
    result = await driver.run(page, "still works")
    assert result.answer == "Echo: still works | done."
    assert await page.evaluate("window.received") == ["still works"]
    assert any("'prompt' '#renamed-box' matches nothing" in w for w in result.warnings), result.warnings
    assert any("'send' 'button.renamed' matches nothing" in w for w in result.warnings), result.warnings
    # The answer key went stale too: once busy came and went with no match, the element that grew is read.
    # (Here the run reads it once start_timeout_s has passed with no match: 1.5 s, not site A's 3 s.)
    stale = PageDriver(site(server, "site_a", answer=".assistant .renamed-content", start_timeout_s=1.5))
    await stale.prepare(page)
    late = await stale.run(page, "stale answer key")
    assert late.answer == "Echo: stale answer key | done."
    assert any("'answer' '.assistant .renamed-content' matches nothing" in w for w in late.warnings), late.warnings
    # A list: the first selector that matches is used, silently.
    listed = PageDriver(site(server, "site_a", prompt=("#renamed-box", "#box"), send=("button.renamed", "button.send")))
    await listed.prepare(page)
    again = await listed.run(page, "list")
    assert again.answer == "Echo: list | done." and again.warnings == ()


async def test_site_a_send_button_that_moves_after_input(server: str, page: Page) -> None:
    # The box grows right after the text goes in and the button moves below it: the click must find
    # the button where it is at click time, not where it was when the text was typed.
    driver = PageDriver(site(server, "site_a", "?grow=1"))
    await driver.prepare(page)
    assert (await driver.run(page, "moving target")).answer == "Echo: moving target | done."
    assert await page.evaluate("window.received") == ["moving target"]


async def test_site_a_press_that_misses_a_button_that_jumped_is_aimed_again_and_sent_once(
    server: str, page: Page
) -> None:
    # The button moves between the aim and the press: the press lands beside it (nothing is sent),
    # the probe says so, and the driver aims again, although the did-it-leave check went out with
    # the press.
    driver = PageDriver(site(server, "site_a", "?jump=1"))
    await driver.prepare(page)
    assert (await driver.run(page, "jumping target")).answer == "Echo: jumping target | done."
    assert await page.evaluate("window.received") == ["jumping target"]
    pressed = await page.evaluate("window.pressedOn")
    assert pressed[-1] == "send" and len(pressed) >= 2 and "send" not in pressed[:-1], pressed


async def test_site_a_send_that_does_nothing_fails_fast_as_send_failed(server: str, page: Page) -> None:
    # start_timeout_s is long: the run must not wait for it to learn that nothing was sent.
    driver = PageDriver(site(server, "site_a", "?deadsend=1", start_timeout_s=30.0))
    await driver.prepare(page)
    with pytest.raises(SiteError, match=r"^send_failed: .*'button\.send'.*box shows 'dead button'") as info:
        await driver.run(page, "dead button")
    assert info.value.kind is ErrorKind.SITE_ERROR
    assert await page.evaluate("window.received") == []


async def test_an_escape_that_empties_the_box_is_not_taken_for_a_sent_prompt(
    server: str, page: Page
) -> None:
    # A tips dialog over the send button once typing starts, and a box that clears on Escape: the
    # Escape that closes the dialog empties the box; that must fail as not sent, never pass as "the
    # prompt left the box" (and then wait start_timeout_s for an answer that cannot come).
    driver = PageDriver(site(server, "site_a", "?overlay=1&escclears=1"))
    await driver.prepare(page)
    with pytest.raises(SiteError, match=r"^send_failed: the Escape key .*div\.survey.* cleared the prompt box"):
        await driver.run(page, "typed, then wiped")
    assert await page.evaluate("window.received") == []


# --- site B: contenteditable + Enter, aria-busy, re-rendered thread ---------------------------------


async def test_site_b_full_answer(server: str, page: Page) -> None:
    driver = PageDriver(site(server, "site_b"))
    await driver.prepare(page)
    result = await driver.run(page, "hello")
    assert result.answer == b_answer("hello")
    await driver.prepare(page)  # no new_chat: navigates to url again
    assert await page.locator("li[data-author=bot]").count() == 0
    assert (await driver.run(page, "again")).answer == b_answer("again")


async def test_site_b_pause_shorter_than_settle_is_not_cut(server: str, page: Page) -> None:
    # Busy drops for 250 ms mid-answer while settle_ms is 600: the answer must come back whole.
    driver = PageDriver(site(server, "site_b"))
    await driver.prepare(page)
    assert (await driver.run(page, "[pause] go")).answer == b_answer("[pause] go")


async def test_site_b_busy_gone_before_last_tokens(server: str, page: Page) -> None:
    driver = PageDriver(site(server, "site_b"))
    await driver.prepare(page)
    result = await driver.run(page, "[early] go")
    assert result.answer == b_answer("[early] go")
    assert result.answer.endswith("theta.")


async def test_site_b_multiline_chinese_emoji_arrive_intact(server: str, page: Page) -> None:
    driver = PageDriver(site(server, "site_b"))
    await driver.prepare(page)
    text = "第一行：你好，世界 🌏\n\n  second line  with  spaces\n三行目 👍🏽 family 👨‍👩‍👧 end"
    await driver.run(page, text)
    # The site reads its editor block by block (as editor frameworks do): one send, same text.
    assert await page.evaluate("window.received") == [text]


async def test_site_b_error_toast_and_html_format(server: str, page: Page) -> None:
    driver = PageDriver(site(server, "site_b"))
    await driver.prepare(page)
    with pytest.raises(SiteError, match="Network error: please retry"):
        await driver.run(page, "[error] x")
    html = PageDriver(site(server, "site_b", answer_format="html"))
    await html.prepare(page)
    answer = (await html.run(page, "fmt")).answer
    assert answer.startswith("<p>Answer to") and answer.endswith("theta.</p>")


async def test_site_b_logged_out_without_logged_out_selector(server: str, page: Page) -> None:
    driver = PageDriver(site(server, "site_b", "?state=out", start_timeout_s=0.5))
    with pytest.raises(NeedsLogin, match="#user-menu"):
        await driver.prepare(page)


async def test_evidence_never_raises_on_a_closed_page(browser: Browser, tmp_path: Path) -> None:
    ctx = await browser.new_context()
    p = await ctx.new_page()
    await ctx.close()
    driver = PageDriver(load_adapter(PAGES / "site_a.toml"))
    assert await driver.evidence(p, tmp_path, "gone") == []


# --- the shipped simulator, through its shipped adapter ------------------------------------------------

SIMCHAT = Path(__file__).resolve().parents[3] / "resources" / "sites" / "simchat.toml"


async def test_simulator_through_its_shipped_adapter(browser: Browser) -> None:
    config = sim_mod.WebSimConfig(time_scale=0.01, fixed_run_s=30.0, answer_tokens=12)
    async with sim_mod.WebSimServer(config) as sim:
        # Only the URL changes (the sim runs on a free port); settle_ms is shrunk to keep it fast.
        adapter = dataclasses.replace(with_url(load_adapter(SIMCHAT), sim.chat_url), settle_ms=200)
        assert adapter.effective_login_url == sim.login_url
        ctx = await browser.new_context()
        try:
            await sim_mod.login_context(ctx, sim.base_url, "acct-a")
            page = await ctx.new_page()
            driver = PageDriver(adapter)
            for prompt in ("第一个问题 🌏\n第二行", "second task"):
                await driver.prepare(page)  # goto first, then the new-chat button
                result = await driver.run(page, prompt)
                assert result.answer == "".join(sim_mod.answer_tokens(prompt, 12))
            await driver.prepare(page)
            with pytest.raises(SiteError, match="site error"):
                await driver.run(page, "[[sim:error]] boom")
            await driver.prepare(page)
            short = PageDriver(dataclasses.replace(adapter, max_run_s=1.0))
            with pytest.raises(RunTimeout):
                await short.run(page, "[[sim:hang]] wait")
            await driver.prepare(page)
            with pytest.raises(NeedsLogin):
                await driver.run(page, "[[sim:logout]] bye")
            stats = sim.stats()
            assert stats["concurrent_violations"] == 0
            assert stats["generations_completed"] == 2
            assert stats["stopped"] == 1  # the hang was stopped by the stop click
        finally:
            await ctx.close()
