"""A web run is done only on proof from this run (issue "The web lane must know it is done").

Each test drives a real Chromium against the chat simulator wearing a persona that behaves like a chat
UI we did not write (see ``mediadesk/sim/_web_personas.py``), and reproduces one way the lane stored a
wrong answer, or started a second generation on an account, on such sites:

1. the site's footer stored as the answer when the answer was drawn late (after the site restarted);
2. a second generation typed while the site was still generating;
3. a status widget's "Stop", an icon font's ligature, an empty string stored as answers; a socket closed
   by a site shutting down taken for the answer's end;
4. a fixed wait on a transport the driver cannot read;
5. a code block's language label as a line of the answer, bold drawn by CSS lost.

Besides each test's own assertions, the suite-wide invariants (``tests/web_invariants.py``) check after
every test that no account ever had two generations at once and that every success equals what the
simulator generated for its prompt.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page

from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import HealthStatus, TaskSpec
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.providers.web.adapter import SiteAdapter, load_adapter, with_url
from mediadesk.providers.web.backend import build_web_backend, task_failure
from mediadesk.providers.web.driver import PageDriver, RunResult
from mediadesk.providers.web.errors import StreamCut
from mediadesk.providers.web.login import login_with_form
from mediadesk.scheduler import Scheduler
from mediadesk.sim.web_server import WebSimConfig, WebSimServer, answer_tokens, markdown_answer
from tests.providers.web.helpers import RecordingCtx, sim_site
from tests.support import log_messages, make_config, tasks_of

#: One event loop for the module's tests: one Chromium (``browser``) and one Playwright driver for the lanes
#: (``playwright_hub``).
pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("playwright_hub")]

SIMCHAT = Path(__file__).resolve().parents[3] / "resources" / "sites" / "simchat.toml"
TOKENS = 12


def simchat(sim: WebSimServer, **overrides: Any) -> SiteAdapter:
    """The shipped simchat adapter (every key named) on this simulator."""
    return dataclasses.replace(with_url(load_adapter(SIMCHAT), sim.chat_url), **overrides)


def url_only(sim: WebSimServer, **overrides: Any) -> SiteAdapter:
    """An adapter written from our docs alone for a site we know nothing of: its URLs and a settle window."""
    return SiteAdapter(url=sim.chat_url, login_url=sim.login_url, settle_ms=300, **overrides)


def expected(prompt: str) -> str:
    return "".join(answer_tokens(prompt, TOKENS))


persona_site = sim_site  # a logged-in page of a simulator wearing the personas given in its config


async def run(driver: PageDriver, page: Page, prompt: str) -> RunResult:
    await driver.prepare(page)
    return await driver.run(page, prompt)


# --- 1. the footer is never the answer; an answer drawn late is waited for ---------------------------------


async def test_an_answer_drawn_late_after_a_restart_is_waited_for_never_the_footer(browser: Browser) -> None:
    """The adapter's answer key matched on the first turns; then the site restarts and from then on draws
    its answer only a while after its stream ended (busy already gone), while its framework redraws the
    footer disclaimer as a new element. Before: the role fallback took the footer for the answer at once
    ("done: stream ended", a 45-character success). Now the run waits for the key to match again."""
    async with persona_site(browser, personas=("footer",)) as (sim, page):
        driver = PageDriver(simchat(sim, settle_ms=300))
        assert (await run(driver, page, "the first turn")).answer == expected("the first turn")
        await sim.stop()  # the site restarts (logins kept, like a site with a session store)
        await sim.start()
        sim.set_personas(("footer", "late_render"), render_delay_ms=700)
        for prompt in ("after the restart", "and once more"):
            result = await run(driver, page, prompt)
            assert result.answer == expected(prompt), result.timings.stream_events
        # MediaDesk restarted too: a new driver has never seen the key match, and still waits for proof.
        fresh = PageDriver(simchat(sim, settle_ms=300))
        result = await run(fresh, page, "after both restarts")
        assert result.answer == expected("after both restarts")
        footer = await page.locator("div.disclaimer").inner_text()
        assert footer and footer not in result.answer


async def test_nothing_that_qualifies_is_answer_not_found_uncharged(
    browser: Browser, workspace: Workspace, tmp_path: Path
) -> None:
    """The answer key matched on the first task; then the site changes its markup for good (the answer
    element renamed and drawn where we cannot see it) on a page whose only other new text is chrome (the
    user's turn, an avatar icon, the redrawn footer). No guess is stored: the task goes back uncharged as
    answer_not_found, the account rests and says why, and the evidence is saved."""
    sites = tmp_path / "sites"
    sites.mkdir()
    async with persona_site(browser, personas=("footer", "icon_avatar")) as (sim, _page):
        text = SIMCHAT.read_text(encoding="utf-8").replace('url = "http://127.0.0.1:8002/chat"',
                                                            f'url = "{sim.chat_url}"')
        (sites / "strict.toml").write_text(text + "\nstart_timeout_s = 2\n", encoding="utf-8")
        cfg = make_config([{"name": "chat", "kind": "web", "site": "strict"}], [{"name": "acct-nf", "profile": "chat"}],
                          browser={"sites_dir": str(sites)})
        await login_with_form(cfg, workspace, "acct-nf", sim.login_url,
                              fields={"#account": "acct-nf", "#password": "pw"},
                              submit="button.login", logged_in=".avatar")  # fmt: skip
        backend = build_web_backend(cfg, workspace, cfg.profiles[0], cfg.accounts[0])
        ctx = RecordingCtx(tmp_path / "evidence")
        await backend.start()
        try:
            first = TaskSpec(task_id="t1", profile="chat", prompt="first", attempt=1, instructions=None)
            assert await backend.run(first, ctx) == expected("first")
            page = await backend.browser.ensure_page()
            await page.evaluate(_MARKUP_CHANGED)
            second = TaskSpec(task_id="t2", profile="chat", prompt="second", attempt=1, instructions=None)
            with pytest.raises(TaskFailure) as info:
                await backend.run(second, ctx)
            health, why = backend.health()
        finally:
            await backend.stop()
    failure = info.value
    assert failure.kind is ErrorKind.ANSWER_NOT_FOUND and failure.not_started, failure  # uncharged
    assert health == HealthStatus.ERROR and why is not None and "answer not found" in why
    assert any(line.startswith("evidence: ") for line in ctx.lines), ctx.lines
    assert sum(line.startswith("done: ") for line in ctx.lines) == 1  # the first task's only


#: The site's new markup: each new answer turn renamed (the key no longer matches) and out of sight.
_MARKUP_CHANGED = """() => new MutationObserver(() => {
  for (const c of document.querySelectorAll('.msg.assistant .content')) {
    c.className = 'body'; c.closest('.msg').style.display = 'none';
  }
}).observe(document.body, {subtree: true, childList: true})"""


# --- 2. never a second generation on one account ------------------------------------------------------------


async def test_the_lane_waits_for_the_site_to_finish_before_it_types(browser: Browser) -> None:
    """The page is still generating (a run the site started before ours: the operator's own, or one of ours
    stopped too late) when the driver comes to type: it waits for the site's busy indicator to go, and the
    site never sees two generations at once. Before: it typed and sent at once (a 409 on the site)."""
    async with persona_site(browser, fixed_run_s=120.0) as (sim, page):
        adapter = simchat(sim, settle_ms=300)
        driver = PageDriver(adapter)
        await driver.prepare(page)
        await page.fill("textarea", "a generation already running")
        await page.click("button.send")
        await page.wait_for_selector("button.stop", state="visible")
        result = await asyncio.wait_for(_open_and_run(driver, page, adapter.url, "ours, after it"), 60)
        assert result.answer == expected("ours, after it")
        waits = driver.take_notes(page)  # what the account writes into the task log: no silent wait
        busy = [n for n in waits if n.id == "waited_site_busy"]
        assert busy and busy[0].english().startswith("the site was still generating (its busy indicator showed)")
    ledger = sim.ledger()
    assert ledger["violations"] == []
    first, ours = sorted(ledger["generations"], key=lambda g: g["started"])
    assert first["prompt"] == "a generation already running" and first["status"] == "completed"
    assert ours["started"] >= first["ended"]


async def _open_and_run(driver: PageDriver, page: Page, url: str, prompt: str) -> RunResult:
    await driver.open(page, url)  # the conversation as it is (no new chat that would stop the other run)
    return await driver.run(page, prompt)


# --- 3. a status widget, an icon, an empty string, a closed socket --------------------------------------------


async def test_a_status_widget_and_an_icon_font_are_never_the_answer(browser: Browser) -> None:
    """A framework with its own DOM and a binary WebSocket, driven by a URL-only adapter: a status widget
    reading "Stop" shows 0.4 s before the site starts generating, and every turn begins with an icon
    font's ligature. Before: "Stop" stored as a success before the generation began, answers prefixed
    with "smart_toy"."""
    async with persona_site(browser, personas=("status_widget", "icon_avatar", "footer"), start_delay_ms=400,
                            transport="binary_ws") as (sim, page):
        driver = PageDriver(url_only(sim))
        for prompt in ("状态组件 first", "second one"):
            result = await run(driver, page, prompt)
            assert result.answer == expected(prompt), (result.answer, result.timings.stream_events)


async def test_a_site_that_shuts_down_mid_answer_is_a_cut_never_an_empty_success(browser: Browser) -> None:
    """The site shuts down mid-answer and closes the socket the page had opened at load (a binary
    protocol, a URL-only adapter). Before: "done: stream ended", "answer 0 chars", success. Now a cut:
    back in the queue uncharged, as for an outage."""
    async with persona_site(browser, personas=("icon_avatar",), transport="binary_ws",
                            fixed_run_s=300.0) as (sim, page):
        driver = PageDriver(url_only(sim))
        await driver.prepare(page)
        running = asyncio.ensure_future(driver.run(page, "a long answer"))
        await page.wait_for_function("() => document.querySelectorAll('.msg.assistant .content').length > 0 && "
                                     "document.querySelector('.msg.assistant .content').innerText.length > 0")
        await sim.stop()
        with pytest.raises(StreamCut, match="mid-answer"):
            await asyncio.wait_for(running, 60)
        assert task_failure(StreamCut("x")).unavailable
        await sim.start()  # back up, for the context manager's own stop


# --- 4. no fixed wait on a transport we cannot read; unrelated streams never end a run ---------------------


async def test_an_unknown_transport_goes_by_the_page_rule_with_no_fixed_wait(browser: Browser) -> None:
    """Answers in binary WebSocket frames: the watcher cannot read their end, so the page rule decides at
    once (busy gone, the answer still for settle_ms). Before: the socket held every run until it had been
    quiet for 5 s (a 5-second toll per task)."""
    async with persona_site(browser, transport="binary_ws") as (sim, page):
        driver = PageDriver(url_only(sim))
        for prompt in ("binary one", "binary two"):
            result = await run(driver, page, prompt)
            t = result.timings
            assert result.answer == expected(prompt)
            assert t.done_rule == "dom", t.stream_events
            assert any("format whose end we cannot read" in e for e in t.stream_events), t.stream_events
            assert not any("no content for" in e for e in t.stream_events), t.stream_events


async def test_unrelated_streams_never_end_the_run(browser: Browser) -> None:
    """A page with a long-poll, telemetry beacons and a presence socket that closes and reconnects, its
    answer in binary frames, no busy indicator the adapter knows and a 0.6 s pause mid-answer. Before: the
    long-poll's end passed for the answer's end and the answer was cut at the pause. Only the stream that
    carries our prompt counts; here none can be read, so the page rule (settle_ms 1 s) decides."""
    async with persona_site(browser, personas=("noise",), transport="binary_ws", pause_mid_s=0.6) as (sim, page):
        driver = PageDriver(simchat(sim, settle_ms=1000, busy=".no-busy-indicator-here"))
        result = await run(driver, page, "with noise around")
        assert result.answer == expected("with noise around"), result.timings.stream_events
        assert any(e.startswith("ignored") for e in result.timings.stream_events), result.timings.stream_events
        noise = sim.stats()["noise"]
        assert noise["polls"] > 0 and noise["presence_sockets"] > 1  # the noise really ran, reconnects too


async def test_unrelated_streams_beside_a_readable_answer_stream(browser: Browser) -> None:
    """The same noise beside an NDJSON answer stream: the stream rule decides on our stream alone."""
    async with persona_site(browser, personas=("noise",)) as (sim, page):
        driver = PageDriver(simchat(sim, settle_ms=1000))
        for prompt in ("noise and ndjson", "again"):
            result = await run(driver, page, prompt)
            t = result.timings
            assert result.answer == expected(prompt)
            assert t.done_rule == "stream" and any("/api/generate" in e for e in t.stream_events), t.stream_events


# --- 5. Markdown as the model wrote it ---------------------------------------------------------------------


async def test_a_code_header_and_css_bold_come_out_as_the_model_wrote_them(browser: Browser) -> None:
    """Code blocks under a header with the language and a Copy button (no language class on the code), bold
    and italics drawn by CSS classes: the stored Markdown is the model's own."""
    async with persona_site(browser, answer_style="markdown", personas=("code_header", "css_bold")) as (sim, page):
        driver = PageDriver(simchat(sim, answer_format="markdown"))
        result = await run(driver, page, "markdown please")
        assert result.answer == markdown_answer("markdown please")


# --- the whole lane, on a site we did not write -----------------------------------------------------------------


async def test_a_batch_on_a_foreign_framework_with_a_url_only_adapter(workspace: Workspace, tmp_path: Path) -> None:
    """Two accounts, a URL-only adapter, a framework with a status widget that shows before generating,
    icon avatars, a redrawn footer, unrelated traffic and a binary socket: every task's answer is exactly
    what the site generated, each prompt was sent once, and no account ever had two generations."""
    sites = tmp_path / "sites"
    sites.mkdir()
    config = WebSimConfig(time_scale=0.01, fixed_run_s=20.0, answer_tokens=TOKENS, transport="binary_ws",
                          personas=("status_widget", "icon_avatar", "footer", "noise"), start_delay_ms=300)
    async with WebSimServer(config) as sim:
        (sites / "foreign.toml").write_text(
            f'url = "{sim.chat_url}"\nlogin_url = "{sim.login_url}"\nsettle_ms = 300\n', encoding="utf-8")
        accounts = ["acct-f1", "acct-f2"]
        cfg = make_config([{"name": "foreign", "kind": "web", "site": "foreign"}],
                          [{"name": a, "profile": "foreign"} for a in accounts],
                          browser={"sites_dir": str(sites)})
        await asyncio.gather(*(
            login_with_form(cfg, workspace, a, sim.login_url, fields={"#account": a, "#password": "pw"},
                            submit="button.login", logged_in=".avatar")
            for a in accounts
        ))
        prompts = {f"p{i}": f"foreign framework prompt {i} 第{i}个" for i in range(4)}  # more tasks than accounts
        async with Scheduler(cfg, workspace) as s:
            s.intake.submit([s.intake.new_task(t, "foreign", p) for t, p in prompts.items()])
            await asyncio.wait_for(s.wait_idle(), 240)
        ledger = sim.ledger()
    tasks = tasks_of(workspace)
    for tid, prompt in prompts.items():
        t = tasks[tid]
        assert t.state == "success", (tid, t.state, t.error_message, log_messages(workspace, tid))
        assert t.result == expected(prompt)
        assert t.attempt == 1
    assert ledger["violations"] == []
    assert sorted(g["prompt"] for g in ledger["generations"]) == sorted(prompts.values())  # each sent once
