"""The chat simulator's busy (rate-limited) periods, over plain HTTP and in a real Chromium page."""

from __future__ import annotations

import json
import ssl

import httpx
import pytest
from playwright.async_api import async_playwright

from mediadesk.providers.web import BrowserNotFoundError, find_browser
from mediadesk.sim.web_server import BUSY_MESSAGE, WebSimConfig, WebSimServer, answer_tokens
from tests.support import require, until

#: The simulators speak plain HTTP; httpx builds a TLS context for every client (~0.2 s each on a loaded
#: machine) unless given one: this one serves them all.
TLS = ssl.create_default_context()

pytestmark = pytest.mark.timeout(60)


async def test_busy_period_refuses_sends_then_ends() -> None:
    async with (
        WebSimServer(WebSimConfig(time_scale=0.01, fixed_run_s=10, answer_tokens=6)) as sim,
        httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c,
        httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as other,
    ):
        await c.post("/login", data={"account": "acct-a", "password": "x"})
        await other.post("/login", data={"account": "acct-b", "password": "x"})
        r = await c.post("/admin/busy", json={"seconds": 30, "wait_s": 20, "account": "acct-a"})
        assert r.status_code == 200 and r.json()["busy"]["acct-a"] > 29
        refused = await c.post("/api/generate", json={"prompt": "hello"})
        assert refused.status_code == 429 and refused.headers["Retry-After"] == "20"
        body = refused.json()
        assert body["error"] == "busy" and body["style"] == "banner" and body["retry_after_s"] == 20
        assert "try again in 20 seconds" in body["message"]
        # another account is not busy
        assert (await other.post("/api/generate", json={"prompt": "fine"})).status_code == 200
        # the notice as the assistant's answer, as some sites do
        sim.set_busy(30, account="acct-a", style="answer")
        async with c.stream("POST", "/api/generate", json={"prompt": "again"}) as resp:
            assert resp.status_code == 200
            events = [json.loads(line) async for line in resp.aiter_lines() if line]
        assert [e["t"] for e in events] == ["start", "token", "done"] and events[1]["d"] == BUSY_MESSAGE
        # every account, stating what is left, in a message of our own
        sim.set_busy(5, wait_s="remaining", style="error", message="请求过于频繁，请 {wait} 秒后再试")
        r = await c.post("/admin/busy", json={"seconds": 0, "account": "acct-a"})  # ends acct-a's own period
        assert r.json()["busy"] == {"*": pytest.approx(5, abs=1)}  # the every-account period is still on
        assert (await c.post("/api/generate", json={"prompt": "x"})).json()["message"] == "请求过于频繁，请 5 秒后再试"
        sim.set_busy(0)
        ok = await c.post("/api/generate", json={"prompt": "after"})
        tokens = [e["d"] for e in map(json.loads, ok.text.splitlines()) if e["t"] == "token"]
        assert ok.status_code == 200 and tokens == answer_tokens("after", 6)
        st = sim.stats()
    assert st["busy_refusals"] == 3 and st["busy_refusals_per_account"] == {"acct-a": 3}
    assert [e["style"] for e in st["busy_log"]] == ["banner", "answer", "error"]
    assert [e["wait_s"] for e in st["busy_log"]] == [20.0, None, 5.0]
    assert st["busy"] == {}
    # a refusal is not a generation: only the three real sends generated
    assert [g["prompt"] for g in st["generations"]] == ["fine", "after"]


async def test_busy_admin_rejects_bad_bodies() -> None:
    async with WebSimServer() as sim, httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c:
        for body, fragment in [
            ({}, "'seconds' is required"),
            ({"seconds": -1}, "seconds must be a number >= 0"),
            ({"seconds": 5, "style": "toast"}, "style must be one of"),
            ({"seconds": 5, "wait_s": 0}, "wait_s must be"),
            ({"seconds": 5, "colour": "red"}, "unknown field(s) 'colour'"),
        ]:
            r = await c.post("/admin/busy", json=body)
            assert r.status_code == 400 and fragment in r.json()["error"], (body, r.text)
        assert (await c.get("/admin/busy")).json() == {"busy": {}, "busy_refusals": 0, "busy_refusals_per_account": {}}


async def test_the_page_shows_a_busy_banner_instead_of_generating() -> None:
    try:
        chromium = str(find_browser(probe_version=False).path)
    except BrowserNotFoundError as exc:
        require(False, f"no Chromium on this machine: {exc}")
        raise  # (require does not return)
    async with (
        WebSimServer(WebSimConfig(time_scale=0.01, fixed_run_s=10, answer_tokens=6)) as sim,
        async_playwright() as pw,
    ):
        browser = await pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"], headless=True)
        try:
            ctx = await browser.new_context()
            # the login form's POST, sent by the context itself (the form on a page: test_web_sim.py)
            resp = await ctx.request.post(sim.login_url, form={"account": "acct", "password": "x"}, max_redirects=0)
            assert resp.status == 303, resp.status
            page = await ctx.new_page()
            await page.goto(sim.chat_url)
            sim.set_busy(60, wait_s=20)
            await page.fill("textarea#prompt", "hello")
            await page.click("button.send")
            banner = page.locator(".notice.busy")
            await banner.wait_for()
            assert "try again in 20 seconds" in (await banner.text_content() or "")
            assert await page.locator(".msg.assistant").count() == 0
            await until(lambda: sim.stats()["busy_refusals"] == 1, "the refusal to be counted")
        finally:
            await browser.close()
