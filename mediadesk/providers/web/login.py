"""Logging an account in: a VISIBLE browser on its profile for the operator, or (demo and tests only)
a login form filled headless.

The login lives in the profile (its cookies), so both open the account's own profile, under the account
lock and after the same self-check as a lane, and close the browser before a lane may use the profile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mediadesk.config.model import AppConfig, BrowserConfig
from mediadesk.config.workspace import Workspace
from mediadesk.files.safe import ensure_private_dir
from mediadesk.providers.web.adapter import SiteAdapter
from mediadesk.providers.web.driver import PageDriver
from mediadesk.providers.web.errors import BrowserStartError
from mediadesk.providers.web.finder import find_browser
from mediadesk.providers.web.launcher import LOGGED_IN_CLOSE_GRACE_S, OwnedBrowser
from mediadesk.providers.web.playwright_hub import PlaywrightHub
from mediadesk.providers.web.profile_lock import AccountLock
from mediadesk.providers.web.selfcheck import self_check
from mediadesk.providers.web.sites import adapter_for

__all__ = ["interactive_login", "login_with_form", "visible_login"]

log = logging.getLogger(__name__)


async def visible_login(
    pw: Any,
    *,
    account: str,
    adapter: SiteAdapter,
    browser_config: BrowserConfig,
    profile_dir: Path,
    kill_grace_s: float,
    say: Callable[[str], None],
    timeout_s: float,
    start_url: str | None = None,
    done: Callable[[Any], Awaitable[bool]] | None = None,
    what: str | None = None,
) -> bool:
    """Open a visible Chromium on ``profile_dir`` at the login page and wait until any of its pages
    is logged in (True) or the operator closes the window / ``timeout_s`` passes (False).

    ``start_url``, ``done`` and ``what`` open another page and wait for another condition (e.g. the
    chat page, until a bot check on it has been solved by the operator), said as ``what``.
    The caller holds the account lock and has closed any other browser on the profile."""
    info = await asyncio.to_thread(find_browser, browser_config.executable, probe_version=False)
    driver = PageDriver(adapter)
    browser = None
    for attempt in (1, 2):
        # a visible first start (font cache, GPU fallback) can take far longer than a headless one,
        # and right after the headless browser closed it occasionally exits at once: retry once
        browser = OwnedBrowser(pw, info.path, profile_dir, headless=False, start_timeout_s=90,
                               extra_args=list(browser_config.extra_args), log=lambda t: say(t.english()))
        try:
            await browser.start()
            break
        except BrowserStartError as exc:
            if attempt == 2:
                raise
            say(f"the login window did not open ({str(exc)[:120]}); trying once more")
            await asyncio.sleep(1.0)
    assert browser is not None
    ok = False
    try:
        ctx = browser.context
        page = ctx.pages[0] if ctx.pages else await ctx.new_page()
        if start_url is None:
            await page.goto(adapter.effective_login_url)
        else:
            with contextlib.suppress(Exception):  # a page that does not load is the operator's to see
                await page.goto(start_url)
        task = what or f"log in to {adapter.name or 'the site'} as {account}"
        say(f"{task} in the browser window, then close it")
        check = done or driver.is_logged_in
        deadline = time.monotonic() + timeout_s
        while browser.is_alive() and time.monotonic() < deadline:
            for p in list(ctx.pages):
                with contextlib.suppress(Exception):
                    if await check(p):
                        ok = True
            if ok:
                say("done: closing the browser window" if done else "logged in: closing the login window")
                break
            await asyncio.sleep(1.0)  # the operator types: a second is plenty
    finally:
        await browser.close(max(kill_grace_s, LOGGED_IN_CLOSE_GRACE_S) if ok else kill_grace_s)
    return ok


async def interactive_login(config: AppConfig, workspace: Workspace, account_name: str) -> int:
    """`mediadesk login ACCOUNT`: a visible browser on the account's profile until logged in."""
    account = next(a for a in config.accounts if a.name == account_name)
    profile = config.profile(account.profile)
    adapter = adapter_for(config, workspace, profile)
    profile_dir = workspace.account_profile_dir(account.name, account.profile_dir)
    kill_grace_s = config.scheduler.kill_grace_s
    lock = AccountLock(account.name, profile_dir)
    if not lock.try_acquire():
        print(f"mediadesk: account {account_name} is in use by MediaDesk pid {lock.holder_pid()}; "
              "use the console's Log in button, or close that MediaDesk first")
        return 2
    pw = await PlaywrightHub.acquire()
    try:
        ensure_private_dir(profile_dir, what="browser profile", user_chosen=True)
        await asyncio.to_thread(self_check, profile_dir, lock, print, kill_grace_s, lock_was_free=True)
        ok = await visible_login(pw, account=account.name, adapter=adapter, browser_config=config.browser,
                                 profile_dir=profile_dir, kill_grace_s=kill_grace_s, say=print, timeout_s=1800)
    finally:
        lock.release()
        await PlaywrightHub.release()
    print("logged in" if ok else "login not detected (the window was closed first)")
    return 0 if ok else 1


async def login_with_form(
    config: AppConfig,
    workspace: Workspace,
    account_name: str,
    login_url: str,
    *,
    fields: dict[str, str],
    submit: str,
    logged_in: str,
) -> None:
    """Fill a login form headless on the account's profile (demo workspace and tests only)."""
    account = next(a for a in config.accounts if a.name == account_name)
    profile_dir = workspace.account_profile_dir(account.name, account.profile_dir)
    ensure_private_dir(profile_dir, what="browser profile", user_chosen=True)
    lock = AccountLock(account_name, profile_dir)
    with lock:
        await asyncio.to_thread(self_check, profile_dir, lock, log.info, config.scheduler.kill_grace_s,
                                lock_was_free=True)
        pw = await PlaywrightHub.acquire()
        try:
            info = await asyncio.to_thread(find_browser, config.browser.executable, probe_version=False)
            async with OwnedBrowser(pw, info.path, profile_dir, headless=True, log=log.info) as browser:
                page = await browser.context.new_page()
                await page.goto(login_url)
                for selector, value in fields.items():
                    await page.fill(selector, value)
                await page.click(submit)
                await page.wait_for_selector(logged_in, timeout=15_000)
        finally:
            await PlaywrightHub.release()
