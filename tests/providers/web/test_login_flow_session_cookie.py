"""The operator's visible login on a site whose login is a SESSION cookie: the window closes (Chromium
drops the cookie), yet the headless browser that follows is logged in (the account's cookie jar).
Like ``test_login_flow``: a visible Chromium on a private Xvfb."""

from __future__ import annotations

import asyncio

from playwright.async_api import async_playwright

from mediadesk.config.workspace import Workspace
from mediadesk.providers.web.backend import build_web_backend
from mediadesk.sim.web_server import WebSimConfig, WebSimServer
from tests.providers.web.test_login_flow import _needs_xvfb, pytestmark, xdisplay  # noqa: F401 - same marks, same X server
from tests.support import make_config


async def test_visible_login_on_a_session_cookie_site_sticks(xdisplay: str, workspace: Workspace) -> None:  # noqa: F811
    async with WebSimServer(WebSimConfig(time_scale=0.005, session_cookie=True)) as sim:
        cfg = make_config([{"name": "chat", "kind": "web", "site": "simchat", "url": sim.chat_url}],
                          [{"name": "acct-a", "profile": "chat"}])
        backend = build_web_backend(cfg, workspace, cfg.profiles[0], cfg.accounts[0])
        await backend.start()
        try:
            assert backend.health()[0] == "needs_login", backend.health()
            statuses: list[str] = []
            login = asyncio.ensure_future(backend.login(timeout_s=180, on_status=statuses.append))
            port_file = workspace.account_profile_dir("acct-a") / "DevToolsActivePort"
            async with async_playwright() as pw:
                page = None
                deadline = asyncio.get_running_loop().time() + 120  # a safety net, not a speed assertion
                while page is None and asyncio.get_running_loop().time() < deadline and not login.done():
                    if any("CDP connected" in st for st in statuses) and port_file.exists():
                        try:
                            port = int(port_file.read_text().split()[0])
                            browser = await pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}", timeout=30_000)
                            pages = [p for c in browser.contexts for p in c.pages if "/login" in p.url]
                            page = pages[0] if pages else None
                        except Exception:
                            page = None
                    if page is None:
                        await asyncio.sleep(0.1)
                assert page is not None, (statuses, repr(login.exception() if login.done() else None))
                await page.fill("#account", "acct-a")
                await page.fill("#password", "pw")
                await page.click("button.login")
                assert await asyncio.wait_for(login, 120) is True
            # the visible window opened at the first start (visible_login's one retry hid Xvfb's death)
            assert not any("trying once more" in s for s in statuses), statuses
            # the visible window is closed; the headless browser after it is logged in by the jar alone
            assert backend.health()[0] == "ready", backend.health()
            said = [str(s) for s in statuses + backend.state.notes]
            assert any("session cookies: restored 1" in s for s in said), said
            assert sim.stats()["logins"] == 1
        finally:
            await backend.stop()
