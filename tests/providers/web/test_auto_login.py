"""Stored credentials: an account that finds itself logged out logs itself in again (at most once per
cooldown), on the chat simulator's login form, in a real Chromium. The password never reaches the
database, a log or the evidence files."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from keyring.backend import KeyringBackend

from mediadesk.config.model import AppConfig, ConfigError
from mediadesk.config.workspace import Workspace
from mediadesk.providers.web.autologin import (
    CredentialError,
    CredentialSource,
    LoginCooldown,
    read_credentials,
    scrub,
)
from mediadesk.providers.web.backend import WebAccountBackend, build_web_backend
from mediadesk.providers.web.login import login_with_form
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.lane import Lane
from mediadesk.sim.web_server import WebSimConfig, WebSimServer
from tests.support import log_messages, make_config, tasks_of, until

USER_ENV, PASSWORD_ENV = "MEDIADESK_TEST_SITE_USER", "MEDIADESK_TEST_SITE_PASSWORD"


def site_config(sim: WebSimServer, *, scheduler: dict[str, Any] | None = None, **account: Any) -> AppConfig:
    return make_config(
        [{"name": "chat", "kind": "web", "site": "simchat", "url": sim.chat_url}],
        [{"name": "acct-a", "profile": "chat", "login_user_env": USER_ENV, "login_password_env": PASSWORD_ENV,
          **account}],
        heartbeat={"interval_s": 0.2, "stale_after_s": 30},
        scheduler=scheduler or {},
    )


def lane_rounds(lane: Lane) -> list[int]:
    """Counts the lane loop's questions to its backend (each is a chance to dispatch or re-login)."""
    count = [0]
    ask = lane.backend.available

    def available() -> bool:
        count[0] += 1
        return ask()

    lane.backend.available = available  # type: ignore[method-assign]
    return count


def assert_secret_nowhere(secret: str, ws: Workspace, caplog: pytest.LogCaptureFixture) -> None:
    raw = secret.encode("utf-8")
    files = [p for p in ws.data_dir.glob("mediadesk.db*") if p.is_file()]
    assert files
    for f in files:  # the SQLite file bytes (and its WAL): task logs, errors, account health
        assert raw not in f.read_bytes(), f
    for f in ws.evidence_dir.rglob("*"):
        if f.is_file():
            assert raw not in f.read_bytes(), f
    assert all(secret not in r.getMessage() for r in caplog.records)


# ---------------------------------------------------------------------- pure parts


def test_cooldown_allows_one_try_per_period() -> None:
    now = [0.0]
    cd = LoginCooldown(600, clock=lambda: now[0])
    assert cd.may_try() and cd.next_try_wall() is None
    cd.begin()
    cd.failed("wrong password")
    assert not cd.may_try()
    now[0] = 599.9
    assert not cd.may_try()
    now[0] = 600.0
    assert cd.may_try()
    assert cd.last_error == "wrong password"


def test_scrub_and_missing_sources_name_no_value(monkeypatch: pytest.MonkeyPatch) -> None:
    assert scrub('fill("hunter22") failed for hunter22', "hunter22") == 'fill("***") failed for ***'
    monkeypatch.delenv(PASSWORD_ENV, raising=False)
    monkeypatch.setenv(USER_ENV, "someone")
    with pytest.raises(CredentialError, match=f"no login password: environment variable {PASSWORD_ENV} is not set"):
        asyncio.run(read_credentials(CredentialSource(user_env=USER_ENV, password_env=PASSWORD_ENV)))


class _MemoryKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def __init__(self, entries: dict[tuple[str, str], str]) -> None:
        super().__init__()
        self.entries = entries

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.entries.pop((service, username), None)


@pytest.fixture
def memory_keyring() -> Iterator[_MemoryKeyring]:
    previous = keyring.get_keyring()
    ring = _MemoryKeyring({("simchat", "password"): "from-the-keyring"})
    keyring.set_keyring(ring)
    yield ring
    keyring.set_keyring(previous)


async def test_credentials_from_env_first_then_keyring(
    memory_keyring: _MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = CredentialSource(user_env=USER_ENV, password_env=PASSWORD_ENV, password_keyring="simchat:password")
    monkeypatch.setenv(USER_ENV, " someone ")
    monkeypatch.delenv(PASSWORD_ENV, raising=False)
    assert await read_credentials(source) == ("someone", "from-the-keyring")
    monkeypatch.setenv(PASSWORD_ENV, "from-the-env")
    assert await read_credentials(source) == ("someone", "from-the-env")
    with pytest.raises(CredentialError, match="keyring entry simchat:other is not set"):
        await read_credentials(CredentialSource(user_env=USER_ENV, password_keyring="simchat:other"))


def test_config_and_adapter_keys_are_checked(workspace: Workspace, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="need both a user and a password"):
        make_config([{"name": "chat", "kind": "web", "site": "simchat"}],
                    [{"name": "a", "profile": "chat", "login_user_env": USER_ENV}])
    with pytest.raises(ConfigError, match="login_password_env: must be the NAME of an environment variable"):
        make_config([{"name": "chat", "kind": "web", "site": "simchat"}],
                    [{"name": "a", "profile": "chat", "login_user_env": USER_ENV, "login_password_env": "x y"}])
    sites = tmp_path / "sites"
    sites.mkdir()
    (sites / "noform.toml").write_text(
        'url = "http://127.0.0.1:9/chat"\nlogged_in = ".a"\nprompt = "textarea"\nanswer = ".x"\nbusy = ".b"\n'
        'send = "button"\n', encoding="utf-8")
    cfg = make_config([{"name": "chat", "kind": "web", "site": "noform"}],
                      [{"name": "a", "profile": "chat", "login_user_env": USER_ENV, "login_password_env": "P"}],
                      browser={"sites_dir": str(sites)})
    with pytest.raises(ConfigError, match=r"account 'a': stored login credentials .* no login form keys"):
        build_web_backend(cfg, workspace, cfg.profiles[0], cfg.accounts[0])


# ---------------------------------------------------------------------- real Chromium, real site


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")  # the module's browser tests share one loop, so one driver
@pytest.mark.usefixtures("playwright_hub")
async def test_an_account_that_loses_its_session_logs_itself_in_again(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    password = "pw-" + secrets.token_hex(8)
    monkeypatch.setenv(USER_ENV, "acct-a")
    monkeypatch.setenv(PASSWORD_ENV, password)
    async with WebSimServer(WebSimConfig(time_scale=0.005, answer_tokens=8, password=password,
                                         login_redirect=True)) as sim:
        # a close grace far shorter than Chromium's clean shutdown, as a loaded machine makes the tests'
        # 1 s: the login made at start must still be on disk for the next process
        cfg = site_config(sim, scheduler={"kill_grace_s": 0.01})
        # never logged in: the account logs itself in at start
        async with Scheduler(cfg, workspace) as s:
            await asyncio.wait_for(s.wait_ready(), 60)
            assert s.lanes[0].backend.health()[0] == "ready", s.lanes[0].backend.health()
            s.intake.submit([s.intake.new_task("t1", "chat", "first")])
            await asyncio.wait_for(s.wait_idle(), 60)
        assert sim.stats()["logins"] == 1
        # the site ends the session between tasks (a new process: its cooldown starts fresh)
        async with Scheduler(cfg, workspace) as s:
            await asyncio.wait_for(s.wait_ready(), 60)
            assert s.lanes[0].backend.health()[0] == "ready"
            assert sim.logout("acct-a") == 1
            s.intake.submit([s.intake.new_task("t2", "chat", "after the site logged us out")])
            await asyncio.wait_for(s.wait_idle(), 60)
        stats = sim.stats()
    tasks = tasks_of(workspace)
    assert {t: r.state for t, r in tasks.items()} == {"t1": "success", "t2": "success"}
    assert stats["logins"] == 2 and stats["login_failures"] == 0
    log = log_messages(workspace, "t2")
    assert any("automatic login:" in m and f"environment variable {PASSWORD_ENV}" in m for m in log), log
    assert any("acct-a is logged in again" in m for m in log), log
    assert_secret_nowhere(password, workspace, caplog)


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")  # the module's browser tests share one loop, so one driver
@pytest.mark.usefixtures("playwright_hub")
async def test_wrong_credentials_leave_needs_login_and_are_tried_once_per_cooldown(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    wrong = "wrong-" + secrets.token_hex(8)
    monkeypatch.setenv(USER_ENV, "acct-a")
    monkeypatch.setenv(PASSWORD_ENV, wrong)
    async with WebSimServer(WebSimConfig(time_scale=0.005, answer_tokens=8, password="the-right-one",
                                         login_redirect=True)) as sim:
        cfg = site_config(sim)
        # the operator logged in once, by hand, with the right password
        await login_with_form(cfg, workspace, "acct-a", sim.login_url,
                              fields={"#account": "acct-a", "#password": "the-right-one"},
                              submit="button.login", logged_in=".avatar")
        async with Scheduler(cfg, workspace) as s:
            await asyncio.wait_for(s.wait_ready(), 60)
            backend = s.lanes[0].backend
            assert isinstance(backend, WebAccountBackend)
            rounds = lane_rounds(s.lanes[0])
            assert sim.logout("acct-a") == 1
            s.intake.submit([s.intake.new_task("t1", "chat", "finds itself logged out")])
            await until(lambda: tasks_of(workspace)["t1"].state == "failed", "t1 to fail", limit_s=60)
            assert sim.stats()["login_failures"] == 1
            health, error = backend.health()
            assert health == "needs_login"
            assert error is not None and "automatic login failed" in error and "next try at" in error, error
            # more work and many lane rounds within the cooldown: no second login attempt
            s.intake.submit([s.intake.new_task("t2", "chat", "waits for a login")])
            start = rounds[0]
            await until(lambda: rounds[0] >= start + 20, "20 more lane rounds", limit_s=60)
            assert sim.stats()["login_failures"] == 1
            assert tasks_of(workspace)["t2"].state == "pending"
            blocked = {b.account: b for b in s.blocked_accounts("chat")}
            assert blocked["acct-a"].action == "login"
            assert "automatic login failed" in blocked["acct-a"].reason
            # once the cooldown has passed the account tries again by itself (and fails again)
            cooldown = backend.account_login.cooldown
            clock = cooldown._clock
            monkeypatch.setattr(cooldown, "_clock", lambda: clock() + cooldown.cooldown_s)
            await until(lambda: sim.stats()["login_failures"] == 2, "a second attempt after the cooldown",
                        limit_s=60)
            login = backend.account_login
            await until(lambda: login.relogin is not None and login.relogin.done(), "the attempt to end")
            assert backend.health()[0] == "needs_login"
            assert sim.stats()["login_failures"] == 2
    t1 = tasks_of(workspace)["t1"]
    assert (t1.state, t1.error_kind) == ("failed", "needs_login")
    log = log_messages(workspace, "t1")
    assert any("automatic login failed: still logged out after submitting the login form" in m for m in log), log
    assert any(m.startswith("evidence: ") for m in log), log
    assert list(workspace.evidence_dir.rglob("*.html"))
    assert_secret_nowhere(wrong, workspace, caplog)


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")  # the module's browser tests share one loop, so one driver
@pytest.mark.usefixtures("playwright_hub")
async def test_a_task_that_opens_a_logged_out_page_logs_in_and_goes_on(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Found logged out BEFORE sending (a fresh browser opening the chat page is sent to the login form):
    the same attempt logs in and runs; nothing is lost, no retry is spent."""
    caplog.set_level(logging.DEBUG)
    password = "pw-" + secrets.token_hex(8)
    monkeypatch.setenv(USER_ENV, "acct-a")
    monkeypatch.setenv(PASSWORD_ENV, password)
    async with WebSimServer(WebSimConfig(time_scale=0.005, answer_tokens=8, password=password,
                                         login_redirect=True)) as sim:
        cfg = make_config(
            [{"name": "chat", "kind": "web", "site": "simchat", "url": sim.chat_url}],
            [{"name": "acct-a", "profile": "chat", "login_user_env": USER_ENV, "login_password_env": PASSWORD_ENV}],
            browser={"recycle_after": 1},  # every task starts on a fresh browser, opening the chat page
        )
        await login_with_form(cfg, workspace, "acct-a", sim.login_url,
                              fields={"#account": "acct-a", "#password": password},
                              submit="button.login", logged_in=".avatar")
        async with Scheduler(cfg, workspace) as s:
            s.intake.submit([s.intake.new_task("t1", "chat", "logged in by the operator")])
            await asyncio.wait_for(s.wait_idle(), 60)
            assert sim.logout("acct-a") == 1
            s.intake.submit([s.intake.new_task("t2", "chat", "opens a logged-out page")])
            await asyncio.wait_for(s.wait_idle(), 60)
        stats = sim.stats()
    tasks = tasks_of(workspace)
    assert {t: (r.state, r.attempt) for t, r in tasks.items()} == {"t1": ("success", 1), "t2": ("success", 1)}
    assert (stats["logins"], stats["login_failures"]) == (2, 0)
    log = log_messages(workspace, "t2")
    assert any("automatic login: simchat: the site sent the browser to its login page" in m for m in log), log
    assert_secret_nowhere(password, workspace, caplog)
