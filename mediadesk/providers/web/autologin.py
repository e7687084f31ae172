"""An account logs itself in again with stored credentials (optional, per account).

The config names where the user and password are (``login_*_env`` environment variables or ``login_*_keyring``
OS keyring entries, the environment first), never the values. When the account is found logged out, the backend
fills the adapter's login fields on ``login_url``, submits and checks the chat page, at most once per
``login_cooldown_s`` (a site that keeps logging us out must not be hammered); otherwise the account stays
``needs_login``. Secrets are read when needed, never logged, and scrubbed from messages (Playwright puts a
filled value into its errors' call log, so only an error's first line is used).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mediadesk.providers.web.adapter import SiteAdapter

__all__ = [
    "CredentialError",
    "CredentialSource",
    "LoginCooldown",
    "clear_password",
    "fill_login_form",
    "first_line",
    "read_credentials",
    "scrub",
]


class CredentialError(Exception):
    """A stored credential could not be read; the message names the source, never a value."""


@dataclass(frozen=True)
class CredentialSource:
    """Where an account's user and password are: names only."""

    user_env: str | None = None
    user_keyring: str | None = None
    password_env: str | None = None
    password_keyring: str | None = None

    def describe(self) -> str:
        return f"user from {_where(self.user_env, self.user_keyring)}, password from " + _where(
            self.password_env, self.password_keyring
        )


def _where(env: str | None, ring: str | None) -> str:
    parts = ([f"environment variable {env}"] if env else []) + ([f"keyring entry {ring}"] if ring else [])
    return " or ".join(parts) or "nowhere"


async def _read_one(what: str, env: str | None, ring: str | None) -> str:
    """Environment first, then the keyring (the same order as an API key)."""
    problems: list[str] = []
    if env is not None:
        value = os.environ.get(env, "")
        if value.strip():
            return value
        problems.append(f"environment variable {env} is not set")
    if ring is not None:
        service, _, username = ring.partition(":")
        try:
            import keyring  # lazy: its backend discovery is slow and often unneeded

            secret: str | None = await asyncio.to_thread(keyring.get_password, service, username)
        except Exception as exc:  # no keyring, locked, D-Bus down
            problems.append(f"keyring entry {ring} could not be read ({type(exc).__name__})")
        else:
            if secret and secret.strip():
                return secret
            problems.append(f"keyring entry {ring} is not set")
    raise CredentialError(f"no login {what}: " + "; ".join(problems or ["no source configured"]))


async def read_credentials(source: CredentialSource) -> tuple[str, str]:
    """(user, password) from their sources; :class:`CredentialError` names what is missing."""
    user = (await _read_one("user", source.user_env, source.user_keyring)).strip()
    password = await _read_one("password", source.password_env, source.password_keyring)
    return user, password


def scrub(message: str, *values: str) -> str:
    """``message`` with every occurrence of the given secret values replaced by ``***``."""
    for value in values:
        if value and len(value) >= 3:
            message = message.replace(value, "***")
    return message


def first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class LoginCooldown:
    """At most one automatic login per ``cooldown_s``. Pure state over an injected clock."""

    def __init__(self, cooldown_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.cooldown_s = cooldown_s
        self._clock = clock
        self.last_attempt: float | None = None
        #: Wall-clock time of the last attempt, and how it ended (for the operator).
        self.last_attempt_wall: float | None = None
        self.last_error: str | None = None

    def may_try(self) -> bool:
        return self.last_attempt is None or self._clock() - self.last_attempt >= self.cooldown_s

    def next_try_wall(self) -> float | None:
        """Wall-clock time of the next allowed attempt (None before the first)."""
        if self.last_attempt_wall is None:
            return None
        return self.last_attempt_wall + self.cooldown_s

    def begin(self) -> None:
        self.last_attempt = self._clock()
        self.last_attempt_wall = time.time()
        self.last_error = None

    def failed(self, why: str) -> None:
        self.last_error = why


async def fill_login_form(page: Any, adapter: SiteAdapter, user: str, password: str) -> None:
    """Open ``login_url``, fill user and password, click submit and wait for what it leads to.

    Raises ``RuntimeError`` with a message that holds no value (first lines of Playwright errors,
    scrubbed); the caller verifies the login on the chat page afterwards."""
    assert adapter.login_user and adapter.login_password and adapter.login_submit
    load_ms = adapter.page_load_timeout_s * 1000.0
    wait_ms = adapter.start_timeout_s * 1000.0
    steps: list[tuple[str, Callable[[], Any]]] = [
        (f"open {adapter.effective_login_url}",
         lambda: page.goto(adapter.effective_login_url, wait_until="domcontentloaded", timeout=load_ms)),
        (f"find the user field {adapter.login_user!r}",
         lambda: page.locator(adapter.login_user).first.wait_for(state="visible", timeout=wait_ms)),
        (f"fill the user field {adapter.login_user!r}",
         lambda: page.locator(adapter.login_user).first.fill(user, timeout=wait_ms)),
        (f"fill the password field {adapter.login_password!r}",
         lambda: page.locator(adapter.login_password).first.fill(password, timeout=wait_ms)),
        (f"click {adapter.login_submit!r}",
         lambda: page.locator(adapter.login_submit).first.click(timeout=wait_ms)),
        ("load the page the login leads to",
         lambda: page.wait_for_load_state("domcontentloaded", timeout=load_ms)),
    ]  # fmt: skip
    navigated = False

    def on_navigated(frame: Any) -> None:
        nonlocal navigated
        if frame == page.main_frame:
            navigated = True

    for i, (what, step) in enumerate(steps):
        if i == 1:  # the login page is open: from here on, did the submit lead anywhere?
            page.on("framenavigated", on_navigated)
        try:
            await step()
        except Exception as exc:
            if i >= 3:  # the password is typed: it must not stay in the page (evidence, screenshots)
                await clear_password(page, adapter)
            raise RuntimeError(f"could not {what}: {scrub(first_line(exc), user, password)}") from None
    # A login made by script (XHR) may still be storing its cookie: give the network a moment to go quiet.
    try:
        await page.wait_for_load_state("networkidle", timeout=min(5000.0, load_ms))
    except Exception:  # long-polling sites are never idle; the login check that follows decides
        pass
    # A single-page app signs in by script and routes on only once the server has answered (a slow
    # password hash on a busy server takes seconds): loading the chat page before that would abandon
    # the login. While the page has not moved, wait for the form to go (up to start_timeout_s). A form
    # post that came back to the form (a wrong password) has navigated: no wait there.
    with contextlib.suppress(Exception):
        page.remove_listener("framenavigated", on_navigated)
    if not navigated:
        with contextlib.suppress(Exception):
            await page.locator(adapter.login_password).first.wait_for(state="hidden", timeout=wait_ms)


async def clear_password(page: Any, adapter: SiteAdapter) -> None:
    """Best effort after a failed attempt: no typed password stays in the page (evidence, screenshots)."""
    if adapter.login_password:
        try:
            await page.locator(adapter.login_password).first.fill("", timeout=1000)
        except Exception:
            pass
