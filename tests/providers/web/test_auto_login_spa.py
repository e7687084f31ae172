"""Automatic login on a single-page app (Open WebUI's kind): the sign-in is a script request that the
server answers slowly (a password hash on a busy machine), and only then does the page set its session
and route on. Loading the chat page before that abandons the login; the form filler waits for the form
to go when the submit did not navigate. Real Chromium, a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from aiohttp import web
from playwright.async_api import async_playwright

from mediadesk.providers.web.adapter import parse_adapter
from mediadesk.providers.web.autologin import fill_login_form
from mediadesk.providers.web.finder import chromium_flags

pytestmark = [pytest.mark.browser]

#: The adapter's page load timeout, which also caps the filler's network-idle wait after the submit (at most
#: 5 s): short here, so the sign-in below need not outlast 5 s to outlast that wait.
PAGE_LOAD_S = 3.0
#: How long the server takes to answer the sign-in: longer than the filler's network-idle wait.
SIGNIN_S = PAGE_LOAD_S + 1.5
LOGIN_PAGE = """<!doctype html><meta charset=utf-8><title>Sign in</title>
<div class=auth><input type=email name=email id=email><input type=password id=password>
<button type=submit class=signin>Sign in</button></div>
<script>
document.querySelector('.signin').addEventListener('click', async () => {
  const r = await fetch('/api/signin', {method: 'POST', body: JSON.stringify({
    email: document.querySelector('#email').value, password: document.querySelector('#password').value})});
  if (r.ok) history.pushState({}, '', '/'), document.querySelector('.auth').remove();
});
</script>"""
CHAT_IN = ("<!doctype html><meta charset=utf-8><span class=avatar>me</span>"
           "<div contenteditable=true role=textbox id=chat-input></div>")
CHAT_OUT = "<!doctype html><meta charset=utf-8><a href=/auth>Sign in</a><input type=password>"


@pytest_asyncio.fixture
async def spa_site() -> AsyncIterator[tuple[str, list[str]]]:
    signins: list[str] = []

    async def login(_: web.Request) -> web.Response:
        return web.Response(text=LOGIN_PAGE, content_type="text/html")

    async def signin(request: web.Request) -> web.Response:
        body = json.loads(await request.text())
        await asyncio.sleep(SIGNIN_S)
        signins.append(body["email"])
        right = body["password"] == "right"
        resp = web.json_response({"ok": right}, status=200 if right else 400)
        if right:
            resp.set_cookie("token", "t-1", httponly=True, samesite="Lax")
        return resp

    async def chat(request: web.Request) -> web.Response:
        ok = request.cookies.get("token") == "t-1"
        return web.Response(text=CHAT_IN if ok else CHAT_OUT, content_type="text/html")

    app = web.Application()
    app.router.add_get("/auth", login)
    app.router.add_post("/api/signin", signin)
    app.router.add_get("/", chat)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}", signins
    finally:
        await runner.cleanup()


async def test_a_slow_script_sign_in_is_waited_for_before_the_chat_page_loads(
    chromium_exe: Path, spa_site: tuple[str, list[str]]
) -> None:
    base, signins = spa_site
    adapter = parse_adapter({"url": base + "/", "login_url": base + "/auth", "logged_in": ".avatar",
                             "login_user": "input[name=email]", "login_password": "input[type=password]",
                             "login_submit": "button[type=submit]", "start_timeout_s": 30,
                             "page_load_timeout_s": PAGE_LOAD_S}, "spa.toml")
    pw = await async_playwright().start()
    browser = await pw.chromium.launch(executable_path=str(chromium_exe), args=chromium_flags(headless=True))
    try:
        page = await browser.new_page()
        await fill_login_form(page, adapter, "operator@example.org", "right")
        assert signins == ["operator@example.org"]  # the sign-in was answered before we moved on
        await page.goto(adapter.url)  # what the backend does next: the chat page, checked logged in
        assert await page.locator(".avatar").count() == 1
    finally:
        await browser.close()
        await pw.stop()
