"""The chat-site simulator, used by a real Chromium (Playwright) and by plain httpx.

Every test runs a real server on 127.0.0.1:0; browser tests run the Debian Chromium headless and
close every browser they start (the kill test ends its own process tree and reaps it).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import ssl
import tomllib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, async_playwright

from mediadesk.providers.web import BrowserNotFoundError, find_browser
from mediadesk.providers.web.launcher import chromium_command
from mediadesk.sim.web_server import (
    CONCURRENT_MESSAGE,
    SESSION_COOKIE,
    WebSimConfig,
    WebSimServer,
    add_arguments,
    answer_tokens,
    draw_run_seconds,
    login_context,
    parse_markers,
    serve_from_args,
)
from tests.support import require, until

#: The simulators speak plain HTTP; httpx builds a TLS context for every client (~0.2 s each on a loaded
#: machine) unless given one: this one serves them all.
TLS = ssl.create_default_context()


def _find_chromium() -> str:
    try:
        return str(find_browser(probe_version=False).path)
    except BrowserNotFoundError:
        return ""


#: The Chromium MediaDesk itself would launch (configured, Playwright's, the system's); "" if none.
CHROMIUM = _find_chromium()
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# One event loop for the module so one Chromium serves every browser test (each test uses its own
# BrowserContext, so cookies never leak between tests).
pytestmark = [pytest.mark.timeout(60), pytest.mark.asyncio(loop_scope="module")]


# ----------------------------------------------------------------------------- helpers / fixtures
@pytest_asyncio.fixture(loop_scope="module")
async def sim() -> AsyncIterator[WebSimServer]:
    # Every run takes 40 * 0.01 = 0.4 s unless a [[sim:slow=S]] marker says otherwise.
    async with WebSimServer(WebSimConfig(time_scale=0.01, fixed_run_s=40, answer_tokens=20, seed=7)) as s:
        yield s


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    require(CHROMIUM, "no Chromium on this machine (./dev installs one)")
    async with async_playwright() as pw:
        b = await pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            yield b
        finally:
            await b.close()


async def chat_page(browser: Browser, sim: WebSimServer, account: str, *, by_form: bool = False) -> Page:
    """The chat page in a fresh context, logged in as ``account``: on the login form's page (``by_form``),
    else by the form's POST sent by the context itself (the same session cookie, without a page)."""
    ctx = await browser.new_context()
    if by_form:
        await login_context(ctx, sim.base_url, account)
    else:
        resp = await ctx.request.post(sim.login_url, form={"account": account, "password": "x"}, max_redirects=0)
        assert resp.status == 303 and resp.headers["location"] == "/chat", resp.status
    page = await ctx.new_page()
    await page.goto(sim.chat_url)
    return page


async def send(page: Page, text: str) -> None:
    await page.fill("textarea#prompt", text)
    await page.click("button.send")


async def runs_ended(page: Page, n: int) -> None:
    await page.wait_for_selector(f'body[data-runs-ended="{n}"]', state="attached", timeout=15_000)


async def first_token(page: Page) -> None:
    await page.wait_for_function(
        "() => { const c = document.querySelectorAll('.msg.assistant .content');"
        " return c.length > 0 && c[c.length - 1].textContent.length > 0; }",
        timeout=15_000,
        polling=50,  # not on animation frames: a page behind another tab gets none
    )


async def last_answer(page: Page) -> str:
    text = await page.locator(".msg.assistant .content").last.text_content()
    assert text is not None
    return text


def gen(sim: WebSimServer, i: int = -1) -> dict[str, Any]:
    return sim.stats()["generations"][i]


def hung(sim: WebSimServer) -> bool:
    """The last generation hangs (False while a page's send has not reached the server yet)."""
    gens = sim.stats()["generations"]
    return bool(gens) and gens[-1]["status"] == "hung"


# ----------------------------------------------------------------------------- pure logic
async def test_markers_and_answers_are_deterministic() -> None:
    assert parse_markers("a [[sim:hang]] b").fault == "hang"
    assert parse_markers("[[sim:slow=2.5]] [[sim:error]]") == parse_markers("[[sim:error]][[sim:slow=2.5]]")
    assert parse_markers("[[sim:slow=2.5]]").slow_s == 2.5
    assert parse_markers("plain").fault is None
    toks = answer_tokens("写 a\n poem  ", 30)
    assert toks == answer_tokens("写 a\n poem  ", 30) and len(toks) == 30
    text = "".join(toks)
    assert text.startswith("好的，这是对「写 a poem」的回答 🚀") and text.endswith("✅")
    assert text == text.strip() and "  " not in text and "\n" not in text
    assert "".join(answer_tokens("other", 30)) != text
    assert len(answer_tokens("x", 1)) == 5


async def test_run_time_distribution_is_clipped_and_fixed_run_is_exact() -> None:
    cfg = WebSimConfig()
    rng = random.Random(1)
    samples = sorted(draw_run_seconds(cfg, rng) for _ in range(2000))
    assert samples[0] >= 31.0 and samples[-1] <= 370.0
    assert 60.0 < samples[1000] < 130.0  # median near 90 s
    assert samples[-1] / samples[0] > 8  # the spread that makes averages lie
    assert draw_run_seconds(WebSimConfig(fixed_run_s=12.5), rng) == 12.5
    with pytest.raises(ValueError, match=r"^fault rates must be in \[0, 1\] and sum to at most 1$"):
        WebSimConfig(hang_rate=0.7, error_rate=0.7)
    with pytest.raises(ValueError, match=r"^time_scale must be > 0$"):
        WebSimConfig(time_scale=0)


# ----------------------------------------------------------------------------- HTTP (httpx)
async def test_login_password_cookie_and_logout_over_http() -> None:
    async with (
        WebSimServer(WebSimConfig(time_scale=0.01, password="pw")) as sim,
        httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c,
    ):
        assert (await c.post("/login", data={"account": "a", "password": "nope"})).status_code == 401
        assert (await c.post("/login", data={"account": "", "password": "pw"})).status_code == 400
        assert SESSION_COOKIE not in c.cookies
        r = await c.post("/api/generate", json={"prompt": "hi"})
        assert r.status_code == 401 and r.json()["message"] == "session expired"
        r = await c.post("/login", data={"account": "a", "password": "pw"})
        assert r.status_code == 303 and r.headers["location"] == "/chat"
        assert "httponly" in r.headers["set-cookie"].lower()
        assert 'class="avatar"' in (await c.get("/chat")).text
        await c.get("/logout")
        page = (await c.get("/chat")).text
        assert 'class="avatar"' not in page and "<textarea" not in page and 'href="/login"' in page
        assert sim.stats()["logins"] == 1


@pytest.mark.sim_concurrency_probe  # sends the overlapping generation itself to prove the 409
async def test_stream_protocol_concurrency_rule_and_reset_over_http() -> None:
    async with (
        WebSimServer(WebSimConfig(time_scale=0.01, fixed_run_s=30, answer_tokens=12)) as sim,
        httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c,
    ):
        await c.post("/login", data={"account": "acct", "password": "x"})
        tokens: list[str] = []
        events: list[str] = []
        async with c.stream("POST", "/api/generate", json={"prompt": "并发 test", "request_id": "r1"}) as resp:
            assert resp.status_code == 200
            second = await c.post("/api/generate", json={"prompt": "second"})
            assert second.status_code == 409 and second.json()["message"] == CONCURRENT_MESSAGE
            async for line in resp.aiter_lines():
                ev = json.loads(line)
                events.append(ev["t"])
                if ev["t"] == "token":
                    tokens.append(ev["d"])
        st = sim.stats()
        assert events[0] == "start" and events[-1] == "done" and len(tokens) == 12
        assert "".join(tokens) == st["generations"][0]["answer"] == "".join(answer_tokens("并发 test", 12))
        assert st["generations"][0]["prompt"] == "并发 test"
        assert st["concurrent_violations"] == 1 and st["violations_per_account"] == {"acct": 1}
        assert st["max_concurrent_per_session"] == 1 and st["generations_completed"] == 1
        # /stats over HTTP is the same snapshot, and reset clears it.
        assert (await c.get("/stats")).json()["concurrent_violations"] == 1
        await c.post("/stats/reset")
        st = sim.stats()
        assert st["concurrent_violations"] == 0 and st["generations"] == [] and st["generations_started"] == 0


async def test_http_disconnect_during_hang_ends_the_generation_and_admin_logout() -> None:
    async with (
        WebSimServer(WebSimConfig(time_scale=0.01, fixed_run_s=10, hang_rate=1.0, seed=3)) as sim,
        httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c,
    ):
        await c.post("/login", data={"account": "acct", "password": "x"})
        async with c.stream("POST", "/api/generate", json={"prompt": "no marker, hang by rate"}) as resp:
            await until(lambda: gen(sim)["status"] == "hung", "the generation to hang")
            assert resp.status_code == 200
        # Leaving the block closes the connection mid-stream, with no token write to reveal it.
        await until(lambda: sim.stats()["client_disconnects"] == 1, "the simulator to notice the disconnect")
        g = gen(sim)
        assert g["status"] == "disconnected" and g["fault"] == "hang" and sim.stats()["active_generations"] == 0
        r = await c.post("/admin/logout", params={"account": "acct"})
        assert r.json()["sessions_invalidated"] == 1
        assert 'class="avatar"' not in (await c.get("/chat")).text
        assert sim.stats()["concurrent_violations"] == 0


async def test_stop_is_prompt_with_a_hung_stream() -> None:
    sim = WebSimServer(WebSimConfig(time_scale=0.01))
    await sim.start()
    async with httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c:
        await c.post("/login", data={"account": "acct", "password": "x"})
        async with c.stream("POST", "/api/generate", json={"prompt": "[[sim:hang]]"}):
            await until(lambda: gen(sim)["status"] == "hung", "the generation to hang")
            await asyncio.wait_for(sim.stop(), 10)  # safety net only
    assert gen(sim)["status"] == "hung" and gen(sim)["ended"] is not None


async def test_serve_from_args_prints_the_url_and_runs_until_cancelled(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--port", "0", "--time-scale", "0.01", "--password", "pw", "--seed", "1"])
    assert args.time_scale == 0.01 and args.answer_tokens == 40 and args.hang_rate == 0.0
    task = asyncio.create_task(serve_from_args(args))
    out = ""

    def printed() -> bool:
        nonlocal out
        out += capsys.readouterr().out
        return "Chat simulator on http://127.0.0.1:" in out

    try:
        await until(printed, "the simulator to print its URL")
        url = out.split("Chat simulator on ", 1)[1].split()[0]
        assert url.endswith("/chat")
        async with httpx.AsyncClient(verify=TLS) as c:
            r = await c.post(url.replace("/chat", "/login"), data={"account": "a", "password": "bad"})
            assert r.status_code == 401  # --password was applied
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


# ----------------------------------------------------------------------------- real Chromium
async def test_login_form_and_logged_out_page(sim: WebSimServer, browser: Browser) -> None:
    anon = await browser.new_context()
    page = await anon.new_page()
    await page.goto(sim.chat_url)
    assert await page.locator(".avatar").count() == 0
    assert await page.locator("textarea").count() == 0
    assert await page.locator('a[href="/login"]').count() == 1
    await anon.close()

    page = await chat_page(browser, sim, "acct-中", by_form=True)
    assert await page.locator(".avatar").text_content() == "acct-中"
    cookies = {c["name"]: c for c in await page.context.cookies()}
    assert cookies[SESSION_COOKIE]["httpOnly"] is True
    assert await page.locator("button.stop").is_hidden()
    await page.context.close()


async def test_adapter_selectors_match_the_page(sim: WebSimServer, browser: Browser) -> None:
    adapter = tomllib.loads((Path(__file__).parents[2] / "resources/sites/simchat.toml").read_text("utf-8"))
    assert adapter["url"].endswith(":8002/chat") and adapter["login_url"].endswith(":8002/login")
    page = await chat_page(browser, sim, "acct")
    for key in ("logged_in", "prompt", "send", "new_chat", "busy"):
        assert await page.locator(adapter[key]).count() == 1, key
    assert await page.locator(adapter["busy"]).is_hidden()
    await page.fill(adapter["prompt"], "[[sim:error]] via the adapter")
    await page.click(adapter["send"])
    await page.locator(adapter["error"]).wait_for()
    await page.locator(adapter["busy"]).wait_for(state="hidden")
    assert await page.locator(adapter["answer"]).last.text_content() == gen(sim)["answer"]
    await page.context.close()


async def test_streamed_answer_in_dom_equals_what_the_server_sent(sim: WebSimServer, browser: Browser) -> None:
    page = await chat_page(browser, sim, "acct")
    await page.evaluate(
        """() => { const s = document.querySelector('button.stop'); window.__stopSeen = false;
        new MutationObserver(() => { if (s.style.display !== 'none') window.__stopSeen = true; })
            .observe(s, {attributes: true}); }"""
    )
    prompt = "写一首诗 about rockets 🚀"
    await send(page, prompt)
    await runs_ended(page, 1)
    assert await page.locator("button.stop").is_hidden()
    assert await page.evaluate("window.__stopSeen") is True
    g = gen(sim)
    assert g["status"] == "completed" and g["prompt"] == prompt
    answer = g["answer"]
    assert "好的" in answer and "🚀" in answer and answer == "".join(answer_tokens(prompt, 20))
    assert await last_answer(page) == answer
    assert await page.locator(".msg.assistant .content").last.inner_text() == answer
    assert await page.locator(".msg.user .content").last.text_content() == prompt
    assert await page.locator(".msg.error").count() == 0

    # The Enter-key alternative sends too; "new chat" clears the conversation.
    await page.fill("textarea#prompt", "second one")
    await page.press("textarea#prompt", "Enter")
    await runs_ended(page, 2)
    assert await last_answer(page) == gen(sim)["answer"]
    await page.click("button.new-chat")
    assert await page.locator(".msg").count() == 0
    assert sim.stats()["generations_completed"] == 2
    await page.context.close()


@pytest.mark.sim_concurrency_probe  # sends the overlapping generation itself to prove the 409
async def test_two_generations_on_one_session_second_is_refused(sim: WebSimServer, browser: Browser) -> None:
    first = await chat_page(browser, sim, "acct")
    second = await first.context.new_page()  # same context = same session cookie
    await second.goto(sim.chat_url)
    await send(first, "[[sim:slow=500]] long one")
    await first_token(first)
    await send(second, "overlapping")
    err = second.locator(".msg.error")
    await err.wait_for()
    assert CONCURRENT_MESSAGE in (await err.text_content() or "")
    await second.wait_for_selector("button.stop", state="hidden")
    st = sim.stats()
    assert st["concurrent_violations"] == 1 and st["violations_per_account"] == {"acct": 1}
    assert st["max_concurrent_per_session"] == 1 and st["generations_started"] == 1
    await first.bring_to_front()  # a click waits for the button to be stable, over animation frames
    await first.click("button.stop")
    await runs_ended(first, 1)
    await first.context.close()


async def test_stop_button_stops_server_side_and_keeps_partial(sim: WebSimServer, browser: Browser) -> None:
    page = await chat_page(browser, sim, "acct")
    await send(page, "[[sim:slow=500]] stop me")
    await first_token(page)
    assert await page.locator("button.stop").is_visible()
    await page.click("button.stop")
    await page.wait_for_selector("button.stop", state="hidden")
    await runs_ended(page, 1)
    g = gen(sim)
    assert g["status"] == "stopped" and sim.stats()["stopped"] == 1
    assert 0 < g["tokens_sent"] < 20
    assert await last_answer(page) == g["answer"]  # the partial answer stays, exactly
    assert sim.stats()["active_generations"] == 0
    await page.context.close()


async def test_hang_marker_stalls_until_stopped(sim: WebSimServer, browser: Browser) -> None:
    page = await chat_page(browser, sim, "acct")
    await send(page, "[[sim:hang]] stall")
    await until(lambda: hung(sim), "the generation to hang")
    await asyncio.sleep(0.3)  # stalled: still busy, nothing more arrives
    assert await page.locator("button.stop").is_visible()
    assert await last_answer(page) == gen(sim)["answer"] and gen(sim)["tokens_sent"] == 3
    await page.click("button.stop")
    await page.wait_for_selector("button.stop", state="hidden")
    g = gen(sim)
    assert g["status"] == "stopped" and g["fault"] == "hang" and sim.stats()["stopped"] == 1
    await page.context.close()


async def test_logout_marker_expires_session(sim: WebSimServer, browser: Browser) -> None:
    page = await chat_page(browser, sim, "acct")
    assert await page.locator(".avatar").count() == 1
    await send(page, "[[sim:logout]] bye")
    err = page.locator(".msg.error")
    await err.wait_for()
    assert await err.text_content() == "session expired"
    assert await page.locator(".avatar").count() == 0
    await page.wait_for_selector("button.stop", state="hidden")
    g = gen(sim)
    assert g["status"] == "error" and g["error"] == "session_expired"
    await page.reload()
    assert await page.locator(".avatar").count() == 0 and await page.locator("textarea").count() == 0
    await page.context.close()


async def test_error_marker_shows_site_error(sim: WebSimServer, browser: Browser) -> None:
    page = await chat_page(browser, sim, "acct")
    await send(page, "[[sim:error]] fail")
    await page.locator(".msg.error").wait_for()
    await runs_ended(page, 1)
    assert await page.locator(".avatar").count() == 1  # still logged in: a retryable site error
    g = gen(sim)
    assert g["status"] == "error" and g["error"] == "site_error"
    assert await last_answer(page) == g["answer"]
    await page.context.close()


async def test_closing_the_page_mid_run_ends_it_and_a_new_page_may_run(sim: WebSimServer, browser: Browser) -> None:
    """The driver's cancel path: close the page; the next task's fresh page is not a violation."""
    page = await chat_page(browser, sim, "acct")
    await send(page, "[[sim:hang]] cancelled by closing the page")
    await until(lambda: hung(sim), "the generation to hang")
    await page.close()
    page = await page.context.new_page()
    await page.goto(sim.chat_url)
    await send(page, "next task")
    await runs_ended(page, 1)
    st = sim.stats()
    assert [g["status"] for g in st["generations"]] == ["disconnected", "completed"]
    assert st["concurrent_violations"] == 0 and st["client_disconnects"] == 1
    await page.context.close()


async def _kill_tree(proc: asyncio.subprocess.Process) -> None:
    parent = psutil.Process(proc.pid)
    children = parent.children(recursive=True)
    for p in (parent, *children):
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    # The parent is asyncio's child: its watcher reaps it. The rest were reparented; psutil polls them.
    await asyncio.to_thread(psutil.wait_procs, children, timeout=5)
    await asyncio.wait_for(proc.wait(), 5)


async def test_killed_browser_is_noticed_and_retry_is_not_a_violation(
    sim: WebSimServer, browser: Browser, tmp_path: Path
) -> None:
    profile = tmp_path / "profile"
    # MediaDesk's own command line: without --password-store=basic a Chromium started by hand may ask a
    # desktop keyring over D-Bus while it loads the profile, and stall the CDP handshake for ~25 s
    proc = await asyncio.create_subprocess_exec(
        *chromium_command(Path(CHROMIUM), profile),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        port_file = profile / "DevToolsActivePort"
        await until(
            lambda: port_file.exists() and port_file.read_text().strip() != "",
            "Chromium to write DevToolsActivePort",
            limit_s=20,
        )
        port = port_file.read_text().splitlines()[0]
        async with async_playwright() as pw:
            owned = await pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
            ctx = owned.contexts[0]
            resp = await ctx.request.post(sim.login_url, form={"account": "acct", "password": "x"}, max_redirects=0)
            assert resp.status == 303, resp.status  # the session cookie is the browser's now
            page = await ctx.new_page()
            await page.goto(sim.chat_url)
            await send(page, "[[sim:hang]] then the browser dies")
            await until(lambda: gen(sim)["status"] == "hung", "the generation to hang")
            await _kill_tree(proc)  # a hang writes nothing: only the closed connection can reveal this
            await until(lambda: sim.stats()["client_disconnects"] == 1, "the simulator to notice the disconnect")
    finally:
        if proc.returncode is None:
            await _kill_tree(proc)
    assert gen(sim)["status"] == "disconnected" and sim.stats()["active_generations"] == 0

    page = await chat_page(browser, sim, "acct")  # a fresh browser, same account
    await send(page, "retry after the crash")
    await runs_ended(page, 1)
    st = sim.stats()
    assert st["concurrent_violations"] == 0 and gen(sim)["status"] == "completed"
    assert await last_answer(page) == gen(sim)["answer"]
    await page.context.close()
