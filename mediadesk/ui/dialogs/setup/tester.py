"""The Setup editor's Test buttons, through :class:`mediadesk.scheduler.checks.Checks`: an endpoint
(or an API profile) sends one authenticated one-token completion, which proves the key (``GET
/models`` would not: many servers list their models to anyone); a web account opens its site in a
real Chromium on its own profile and says logged in or logged out. Both run as tasks on the app's
asyncio loop, so network and browser waits never block the window.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QLabel, QWidget

from mediadesk.config.edit import Section
from mediadesk.config.model import AppConfig
from mediadesk.core.backend import HealthStatus
from mediadesk.scheduler.checks import Checks, Verdict
from mediadesk.ui.dialogs.setup.context import SetupContext
from mediadesk.ui.dialogs.setup.fields import ERROR_STYLE
from mediadesk.ui.format import key_source_text, plain_error
from mediadesk.ui.plain import plain_tip

if TYPE_CHECKING:
    pass

log = logging.getLogger("mediadesk.ui.dialogs.setup_editor")

__all__ = ["SetupTester", "button_tip"]


def button_tip(section: Section) -> str:
    if section == "accounts":
        return QCoreApplication.translate(
            "SetupEditor", "Opens the site in Chromium on this account's profile and says logged in or out")
    return QCoreApplication.translate(
        "SetupEditor", "Asks for a one-token answer with the API key: says whether the key works, and the latency")


def _key_source(cfg: AppConfig, section: Section, name: str) -> str:
    """Where the tested entry's API key is read from, in words (never the key itself)."""
    env: str | None
    ring: str | None
    if section == "endpoints":
        ep = next(e for e in cfg.endpoints if e.name == name)
        env, ring = ep.api_key_env, ep.api_key_keyring
    else:
        prof = cfg.profile(name)
        ep_ = next((e for e in cfg.endpoints if e.name == prof.endpoint), None)
        env, ring = (ep_.api_key_env, ep_.api_key_keyring) if ep_ is not None else (prof.api_key_env,
                                                                                   prof.api_key_keyring)
    return key_source_text(env, ring)


class SetupTester:
    """Tests a section's current entry and shows the result beside its button (texts keep the
    ``SetupEditor`` context); keeps the running tasks."""

    def __init__(
        self, setup: SetupContext, *, buttons: Mapping[Section, QWidget], results: Mapping[Section, QLabel]
    ) -> None:
        self.setup = setup
        self.buttons = buttons
        self.results = results
        self._tests: set[asyncio.Task[None]] = set()

    def test_current(self, section: Section) -> asyncio.Task[None] | None:
        """Start the current entry's test on the running asyncio loop; its result shows beside the
        button. Returns the task (tests await it)."""
        result = self.results[section]
        entry = self.setup.current_entry(section)
        if entry is None:
            return None
        cfg, errors, name = entry.cfg, entry.errors, entry.name
        if cfg is None:
            result.setStyleSheet(ERROR_STYLE)
            result.setText(QCoreApplication.translate("SetupEditor", "Fix the problems first: {first}").format(
                first=errors[0].line))
            return None
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no asyncio loop runs the window (not the console): nothing to run it on
            result.setStyleSheet(ERROR_STYLE)
            result.setText(QCoreApplication.translate(
                "SetupEditor", "Test needs the console's event loop; open Setup from the console"))
            return None
        coro = self._test_account(cfg, name) if section == "accounts" else self._test_api(cfg, section, name)
        btn = self.buttons[section]
        btn.setEnabled(False)
        result.setStyleSheet("")
        result.setText(QCoreApplication.translate("SetupEditor", "Testing {name}…").format(name=name))
        task = loop.create_task(self._run_test(section, coro))
        self._tests.add(task)
        task.add_done_callback(self._tests.discard)
        return task

    async def _run_test(self, section: Section, coro: Any) -> None:
        try:
            ok, text = await coro
        except Exception as exc:  # a test never takes the window down
            log.exception("setup test failed")
            ok, text = False, str(exc) or type(exc).__name__
        said = plain_error(text)  # the operator's words; what the check saw, one hover away
        with contextlib.suppress(RuntimeError):  # the dialog was closed meanwhile
            self.buttons[section].setEnabled(True)
            label = self.results[section]
            label.setStyleSheet("" if ok else ERROR_STYLE)
            label.setText(said.summary)
            label.setToolTip(plain_tip(QCoreApplication.translate("SetupEditor", "Details: {detail}").format(
                detail=said.detail)) if said.has_detail else "")

    def _checks(self, cfg: AppConfig) -> Checks:
        """The edited config's checks; a running scheduler's lanes answer for the accounts they run."""
        return Checks(cfg, self.setup.workspace, self.setup.scheduler)

    async def _test_api(self, cfg: AppConfig, section: Section, name: str) -> tuple[bool, str]:
        checks = self._checks(cfg)
        if section == "endpoints":
            check = await checks.test_endpoint(name)
        else:
            if cfg.profile(name).kind != "api":
                return False, QCoreApplication.translate("SetupEditor", "a web profile is tested through its accounts")
            check = await checks.test_profile(name)
        if check.ok:
            return True, QCoreApplication.translate(
                "SetupEditor", "OK: the key works (a one-token answer, {seen}) in {ms:.0f} ms").format(
                seen=check.seen, ms=check.elapsed_ms)
        if check.verdict is Verdict.KEY_REJECTED:
            return False, QCoreApplication.translate(
                "SetupEditor", "Key rejected: the endpoint refused the API key from {source} ({seen}). Set the "
                "right key there, then test again.").format(source=_key_source(cfg, section, name), seen=check.seen)
        return False, QCoreApplication.translate("SetupEditor", "Failed after {ms:.0f} ms: {seen}").format(
            seen=check.seen, ms=check.elapsed_ms)

    async def _test_account(self, cfg: AppConfig, name: str) -> tuple[bool, str]:
        check = await self._checks(cfg).test_account(name)
        if check.running:
            return self._login_answer(check.ok, check.seen)
        if check.health == HealthStatus.READY:
            return True, QCoreApplication.translate("SetupEditor", "{name}: logged in").format(name=name)
        if check.health == HealthStatus.NEEDS_LOGIN:
            return False, QCoreApplication.translate(
                "SetupEditor", "{name}: logged out ({why}); use Log in on the account panel").format(
                name=name, why=check.seen)
        return False, QCoreApplication.translate("SetupEditor", "{name}: {error}").format(
            name=name, error=check.seen or check.health)

    @staticmethod
    def _login_answer(ok: bool, seen: str) -> tuple[bool, str]:
        if ok:  # what the check saw says it already ("logged in, prompt box ready"): not twice
            return True, seen or QCoreApplication.translate("SetupEditor", "logged in")
        if seen.startswith("needs login"):
            return False, QCoreApplication.translate("SetupEditor", "logged out ({seen})").format(
                seen=seen.removeprefix("needs login").lstrip(": ") or seen)
        return False, seen

    def running_tests(self) -> set[asyncio.Task[None]]:
        return set(self._tests)
