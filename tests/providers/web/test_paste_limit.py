"""Long prompts on the web lane (issue 29): a prompt as composed (instructions and content, as typed) over the
site adapter's ``paste_limit`` goes as the attached file prompt.txt through its ``attach`` input, with
``attach_note`` typed in the box; without ``attach`` it is refused before anything is typed
(``prompt_too_long_for_site``, failed at once). It is never sent cut.

Real Chromium (one per module, plus the lane's own browser in the lane test), the chat simulator on 127.0.0.1
with its ``paste_limit`` persona (a file input beside the prompt box; the model answers the file's text, which
the simulator records in full), a real scheduler and SQLite for the refused task's row.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from mediadesk.config.workspace import Workspace, resources_dir
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.core.log_lines import LOG
from mediadesk.providers.web.adapter import (
    AdapterError,
    SiteAdapter,
    compose_prompt,
    load_adapter,
    parse_adapter,
    with_url,
)
from mediadesk.providers.web.backend import task_failure
from mediadesk.providers.web.driver import PageDriver
from mediadesk.providers.web.errors import AdapterMismatch, PromptTooLong
from mediadesk.providers.web.login import login_with_form
from mediadesk.providers.web.page_send import PROMPT_FILE
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.capacity import Signal, signal_of
from mediadesk.sim.web_server import WebSimConfig, WebSimServer, answer_tokens, login_context
from mediadesk.viewmodel.plain_errors import explain
from tests.support import log_messages, make_config, tasks_of

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

SIMCHAT = resources_dir() / "sites" / "simchat.toml"
TOKENS = 12
LIMIT = 10_000
INSTRUCTIONS = "Summarise the numbered lines below, one sentence each."
#: Records the file the page's input was given (its name, type and size), for the test to read.
WATCH_FILE_JS = """() => document.querySelector('input.attach').addEventListener('change', (e) => {
  const f = e.target.files[0];
  window.__attached = {name: f.name, type: f.type, size: f.size};
})"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def sim() -> AsyncIterator[WebSimServer]:
    config = WebSimConfig(time_scale=0.005, fixed_run_s=30.0, answer_tokens=TOKENS, personas=("paste_limit",))
    async with WebSimServer(config) as server:
        yield server


def adapter(sim: WebSimServer, **overrides: object) -> SiteAdapter:
    """The shipped SimChat adapter on this simulator, with ``paste_limit`` and ``attach`` set."""
    base = dataclasses.replace(with_url(load_adapter(SIMCHAT), sim.chat_url), settle_ms=150, paste_limit=LIMIT,
                               attach="input.attach")
    return dataclasses.replace(base, **overrides)  # type: ignore[arg-type]


def long_prompt(a: SiteAdapter, chars: int = 12_000) -> str:
    """A prompt as composed (instructions and content) of exactly ``chars`` characters: numbered lines with
    Chinese in them (the file is UTF-8), ending in ``END`` (a cut anywhere shows)."""
    head = len(compose_prompt(a, "", INSTRUCTIONS))
    lines = "".join(f"line {i:05d}: 中文 and plain words\n" for i in range(chars // 10))
    text = compose_prompt(a, lines[: chars - head - 4] + " END", INSTRUCTIONS)
    assert len(text) == chars
    return text


def generations(sim: WebSimServer, account: str) -> list[dict[str, object]]:
    return [g for g in sim.ledger()["generations"] if g["account"] == account]


@contextlib.asynccontextmanager
async def chat_page(browser: Browser, sim: WebSimServer, account: str) -> AsyncIterator[Page]:
    """A page of a fresh context of the module's browser, logged into the simulator as ``account``."""
    ctx = await browser.new_context()
    try:
        await login_context(ctx, sim.base_url, account)
        yield await ctx.new_page()
    finally:
        await ctx.close()


# --- the adapter's keys ---------------------------------------------------------------------------------


async def test_the_adapter_keys_are_checked_naming_the_key() -> None:
    url = "http://127.0.0.1:9/chat"
    for value, says in ((-5, "greater than 0"), (0, "greater than 0"), (1.5, "must be an integer"),
                        ("10000", "must be an integer")):
        with pytest.raises(AdapterError) as info:
            parse_adapter({"url": url, "paste_limit": value}, "long.toml")
        assert "'paste_limit'" in str(info.value) and says in str(info.value), str(info.value)
    with pytest.raises(AdapterError) as info:
        parse_adapter({"url": url, "attach": "input[type=file]"}, "long.toml")
    assert "'attach' needs 'paste_limit'" in str(info.value)
    ok = parse_adapter({"url": url, "paste_limit": LIMIT, "attach": ["input.a", "input[type=file]"]}, "long.toml")
    assert (ok.paste_limit, ok.selectors("attach")) == (LIMIT, ["input.a", "input[type=file]"])
    assert PROMPT_FILE in ok.attach_note  # the default note names the file the prompt goes as
    with pytest.raises(AdapterError) as info:
        parse_adapter({"url": url, "paste_limit": 20, "attach": "input[type=file]"}, "long.toml")
    assert "'attach_note' (51 characters) must be shorter than 'paste_limit' (20)" in str(info.value)


async def test_a_prompt_too_long_is_no_failure_of_the_account() -> None:
    """A batch of over-limit prompts never trips the account's breaker: the prompt is at fault, not the site."""
    refused = TaskFailure(ErrorKind.PROMPT_TOO_LONG_FOR_SITE, "too long", retryable=False)
    assert signal_of(refused) is Signal.NONE
    assert signal_of(TaskFailure(ErrorKind.SITE_ERROR, "broken", retryable=True)) is Signal.FAILURE


# --- through the driver -----------------------------------------------------------------------------------


async def test_a_prompt_over_paste_limit_goes_as_a_file_and_is_answered_in_full(
    browser: Browser, sim: WebSimServer
) -> None:
    a = adapter(sim)
    text = long_prompt(a)
    async with chat_page(browser, sim, "pl-file") as page:
        driver = PageDriver(a)
        await driver.prepare(page, text)  # as the lane does: the box's text typed with the readiness check
        assert await page.input_value("textarea") == a.attach_note  # not a character of the prompt typed
        await page.evaluate(WATCH_FILE_JS)
        result = await driver.run(page, text)
        attached = await page.evaluate("() => window.__attached")
    assert attached == {"name": PROMPT_FILE, "type": "text/plain", "size": len(text.encode("utf-8"))}
    [gen] = generations(sim, "pl-file")
    assert gen["typed"] == a.attach_note
    assert gen["prompt"] == text  # all 12,000 characters arrived, in order: nothing was cut
    assert result.answer == "".join(answer_tokens(text, TOKENS))  # the answer is to the file's text
    assert result.prompt_note == LOG.prompt_attached(chars=12_000, limit=LIMIT)
    assert "12000 chars" in result.prompt_note.english() and "paste_limit (10000)" in result.prompt_note.english()


async def test_a_prompt_within_paste_limit_is_typed_as_before(browser: Browser, sim: WebSimServer) -> None:
    text = compose_prompt(adapter(sim), "a short question", INSTRUCTIONS)
    a = adapter(sim, paste_limit=len(text))  # at the limit, not over it
    async with chat_page(browser, sim, "pl-short") as page:
        driver = PageDriver(a)
        await driver.prepare(page)
        await page.evaluate(WATCH_FILE_JS)
        result = await driver.run(page, text)
        attached = await page.evaluate("() => window.__attached || null")
    assert attached is None  # nothing was attached
    [gen] = generations(sim, "pl-short")
    assert gen["typed"] == gen["prompt"] == text
    assert result.answer == "".join(answer_tokens(text, TOKENS))
    assert result.prompt_note is None


async def test_over_paste_limit_without_attach_nothing_is_typed_or_sent(browser: Browser, sim: WebSimServer) -> None:
    a = adapter(sim, attach=None)
    text = long_prompt(a)
    async with chat_page(browser, sim, "pl-refused") as page:
        driver = PageDriver(a)
        with pytest.raises(PromptTooLong):
            await driver.prepare(page, text)
        assert page.url == "about:blank"  # refused before the page was even opened
        await driver.prepare(page)
        with pytest.raises(PromptTooLong) as info:
            await driver.run(page, text)
        assert await page.input_value("textarea") == ""  # nothing typed
    assert generations(sim, "pl-refused") == []
    message = str(info.value)
    assert message.startswith("simchat: ") and "12000 characters" in message and "paste_limit of 10000" in message
    assert "Shorten the prompt, or set 'attach' in the adapter" in message
    failure = task_failure(info.value)
    assert (failure.kind, failure.retryable, failure.not_started) == (ErrorKind.PROMPT_TOO_LONG_FOR_SITE, False, False)
    shown = explain(message)
    assert shown.has_detail and "12000 characters" in shown.summary and "(10000," in shown.summary, shown


async def test_a_page_without_the_attach_input_fails_naming_attach(browser: Browser, sim: WebSimServer) -> None:
    sim.set_personas(())  # the plain page: no file input
    try:
        a = adapter(sim)
        text = long_prompt(a)
        async with chat_page(browser, sim, "pl-no-input") as page:
            driver = PageDriver(a)
            await driver.prepare(page, text)
            with pytest.raises(AdapterMismatch) as info:
                await driver.run(page, text)
            assert await page.input_value("textarea") == a.attach_note  # the note, never the prompt
    finally:
        sim.set_personas(("paste_limit",))
    assert "the adapter's 'attach' 'input.attach' matches nothing" in str(info.value)
    assert "was not sent" in str(info.value)
    assert generations(sim, "pl-no-input") == []
    assert task_failure(info.value).kind is ErrorKind.CONFIG


# --- through the lane -----------------------------------------------------------------------------------


@pytest.fixture
def longchat(workspace: Workspace) -> None:
    """The operator's own site adapter ``longchat`` (in ``<data_dir>/sites``): SimChat's, with ``paste_limit``
    and no ``attach``."""
    shipped = SIMCHAT.read_text(encoding="utf-8").replace('name = "simchat"', 'name = "longchat"')
    workspace.sites_dir.mkdir(parents=True, exist_ok=True)
    (workspace.sites_dir / "longchat.toml").write_text(shipped + f"\npaste_limit = {LIMIT}\n", encoding="utf-8")


@pytest.mark.usefixtures("playwright_hub", "longchat")
async def test_the_lane_fails_the_task_at_once_and_sends_nothing(workspace: Workspace, sim: WebSimServer) -> None:
    """The task fails for good on its first attempt, and the simulator never saw a request."""
    cfg = make_config([{"name": "chat", "kind": "web", "site": "longchat", "url": sim.chat_url}],
                      [{"name": "pl-lane", "profile": "chat"}], scheduler={"kill_grace_s": 1.0})
    await login_with_form(cfg, workspace, "pl-lane", sim.login_url, fields={"#account": "pl-lane", "#password": "pw"},
                          submit="button.login", logged_in=".avatar")
    text = long_prompt(adapter(sim))
    content = text.split("\n\n", 1)[1]
    async with Scheduler(cfg, workspace) as s:
        s.intake.submit([s.intake.new_task("long", "chat", content, system=INSTRUCTIONS)])
        await asyncio.wait_for(s.wait_idle(), 120)
        health = s.lanes[0].backend.health()[0]
    t = tasks_of(workspace)["long"]
    assert (t.state, t.error_kind, t.attempt) == ("failed", "prompt_too_long_for_site", 1), t.error_message
    assert "longchat: the prompt is 12000 characters long" in (t.error_message or "")
    log = log_messages(workspace, "long")
    assert any("not retryable" in m for m in log) and not any("retry 1/" in m for m in log), log
    assert generations(sim, "pl-lane") == []
    assert health == "ready"  # the account is fine: only this prompt is refused
