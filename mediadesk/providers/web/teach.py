"""``mediadesk adapter new URL`` (teach mode): the operator shows MediaDesk the parts of a chat page.

A visible browser opens the page on an account's profile (its login). A banner asks the operator to
click the message box; MediaDesk types a test prompt into it; the operator clicks the send button
(which sends it) and, once the answer is complete, clicks on the answer. From the clicks MediaDesk
derives selectors, role-based where the page allows (``aria-label``, ``role``, ``name``,
``placeholder``, a unique tag), classes or a path where it must; the busy indicator is what was
visible only while the answer was being written. It writes the adapter TOML and runs
``adapter check`` on it in the same browser.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from mediadesk.config.model import AppConfig, ConfigError
from mediadesk.config.workspace import Workspace
from mediadesk.files.safe import ensure_private_dir
from mediadesk.providers.web.adapter import SiteAdapter, parse_adapter
from mediadesk.providers.web.check import AdapterCheckResult, check_page
from mediadesk.providers.web.errors import AccountLockedError, SiteError
from mediadesk.providers.web.finder import find_browser
from mediadesk.providers.web.launcher import OwnedBrowser
from mediadesk.providers.web.playwright_hub import PlaywrightHub
from mediadesk.providers.web.profile_lock import AccountLock
from mediadesk.providers.web.selfcheck import self_check

__all__ = ["TEACH_PROMPT", "TaughtAdapter", "adapter_toml", "teach_page", "teach_site"]

log = logging.getLogger(__name__)

TEACH_PROMPT = "Say hello in one short sentence."
_NO_BUSY = "[aria-busy=true]"
_STEPS = 3  # a step is asked again when the page replaced its document meanwhile


def _teach_js() -> str:
    pkg = resources.files("mediadesk.providers.web")
    helpers = pkg.joinpath("js", "helpers.js").read_text(encoding="utf-8")
    return "(cfg) => {\n" + helpers + "\n" + pkg.joinpath("js", "teach.js").read_text(encoding="utf-8") + "\n}"


_TEACH_JS = _teach_js()
_PICK_JS = "([step, text]) => window.__mediadeskTeach.pick(step, text)"


@dataclass(frozen=True)
class TaughtAdapter:
    adapter: SiteAdapter
    toml: str
    path: Path | None
    check: AdapterCheckResult | None


def _q(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(value, ensure_ascii=False)


def adapter_toml(name: str, url: str, keys: dict[str, str], busy_seen: bool) -> str:
    lines = [
        f"# Site adapter for {name}, written by `mediadesk adapter new` on {time.strftime('%Y-%m-%d')} from the",
        "# operator's clicks. Check it again after the site changes: `mediadesk adapter check`.",
        f"name = {_q(name)}",
        f"url = {_q(url)}",
        "# The message box shows only to a logged-in user on most sites; use an avatar or account menu",
        "# selector instead if this site shows the box when logged out.",
        f"logged_in = {_q(keys['prompt'])}",
        f"prompt = {_q(keys['prompt'])}",
        f"send = {_q(keys['send'])}",
        "# Every answer matches; the last match is this run's.",
        f"answer = {_q(keys['answer'])}",
    ]
    if busy_seen:
        lines.append("# Seen only while the answer was being written (usually the stop button).")
    else:
        lines.append("# No busy indicator was seen: completion relies on the site's answer stream, else settle_ms.")
    lines.append(f"busy = {_q(keys['busy'])}")
    lines.append("settle_ms = 800")
    return "\n".join(lines) + "\n"


async def _pick(page: Page, step: str, text: str, progress: Callable[[str], None]) -> dict[str, Any]:
    for _ in range(_STEPS):
        try:
            await page.evaluate(_TEACH_JS, {"pollMs": 250})
            result: dict[str, Any] = await page.evaluate(_PICK_JS, [step, text])
            return result
        except PlaywrightError as exc:
            if "Execution context was destroyed" not in str(exc) and "navigat" not in str(exc).lower():
                raise SiteError(f"teach mode: the page failed: {str(exc).splitlines()[0]}") from exc
            progress("the page loaded again; asking once more")
            await page.wait_for_load_state("domcontentloaded")
    raise SiteError(f"teach mode: the page kept reloading during the {step!r} step")


async def teach_page(
    page: Page,
    url: str,
    *,
    name: str | None = None,
    prompt: str = TEACH_PROMPT,
    progress: Callable[[str], None] = log.info,
) -> tuple[SiteAdapter, str]:
    """Open ``url`` on ``page``, ask the operator for the three clicks, return the adapter and its TOML."""
    await page.goto(url, wait_until="domcontentloaded")
    progress("click the message box in the browser window")
    got = await _pick(page, "prompt", "", progress)
    keys = {"prompt": str(got["selector"])}
    box = page.locator(keys["prompt"]).first
    await box.click()
    await page.keyboard.insert_text(prompt)
    progress("click the send button")
    keys["send"] = str((await _pick(page, "send", prompt, progress))["selector"])
    progress("when the answer is complete, click on the answer")
    got = await _pick(page, "answer", prompt, progress)
    keys["answer"] = str(got["selector"])
    busy = got.get("busy")
    keys["busy"] = str(busy) if busy else _NO_BUSY
    site = name or (urlsplit(url).hostname or "site").replace(".", "-")
    text = adapter_toml(site, url, keys, bool(busy))
    import tomllib

    adapter = parse_adapter(tomllib.loads(text), f"{site}.toml")
    return adapter, text


async def teach_site(
    config: AppConfig,
    workspace: Workspace,
    url: str,
    *,
    account: str,
    name: str | None = None,
    out: Path | None = None,
    force: bool = False,
    headless: bool = False,
    progress: Callable[[str], None] = log.info,
) -> TaughtAdapter:
    """Teach mode in a visible browser on ``account``'s profile; writes the TOML (``out``, default
    ``<sites dir>/<name>.toml``) and checks it in the same browser."""
    acct = next((a for a in config.accounts if a.name == account), None)
    if acct is None:
        raise ConfigError(f"no account {account!r} (accounts: {', '.join(a.name for a in config.accounts) or 'none'})")
    site = name or (urlsplit(url).hostname or "site").replace(".", "-")
    target = out or workspace.user_sites_dir(config.browser.sites_dir) / f"{site}.toml"
    if target.exists() and not force:
        raise ConfigError(f"{target} exists (pass --force to replace it, or --out another file)")
    profile_dir = workspace.account_profile_dir(acct.name, acct.profile_dir)
    lock = AccountLock(acct.name, profile_dir)
    if not lock.try_acquire():
        holder = lock.holder_pid()
        raise AccountLockedError(f"account {account} is in use by MediaDesk pid {holder}: stop its lane first",
                                 lock_path=lock.path, holder_pid=holder)  # fmt: skip
    try:
        await asyncio.to_thread(ensure_private_dir, profile_dir, what="browser profile")
        grace = config.scheduler.kill_grace_s
        await asyncio.to_thread(self_check, profile_dir, lock, log.info, grace, lock_was_free=True)
        pw = await PlaywrightHub.acquire()
        try:
            info = await asyncio.to_thread(find_browser, config.browser.executable, probe_version=False)
            browser = OwnedBrowser(pw, info.path, profile_dir, headless=headless, start_timeout_s=90,
                                   extra_args=list(config.browser.extra_args), log=log.info)  # fmt: skip
            await browser.start()
            try:
                page = await browser.context.new_page()  # the start tab may still be replaced
                adapter, text = await teach_page(page, url, name=site, progress=progress)
                await asyncio.to_thread(_write, target, text)
                progress(f"wrote {target}; checking it")
                stem = f"{site}-{acct.name}-{time.strftime('%Y%m%d-%H%M%S')}"
                result = await check_page(page, adapter, out_dir=workspace.evidence_dir / "adapter-check", stem=stem)
            finally:
                await browser.close(grace)
        finally:
            await PlaywrightHub.release()
    finally:
        lock.release()
    return TaughtAdapter(adapter=adapter, toml=text, path=target, check=dataclasses.replace(result, account=acct.name))


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
