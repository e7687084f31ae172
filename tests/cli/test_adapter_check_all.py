"""``mediadesk adapter check --all`` on real Chromium and the chat simulator: two accounts logged in by
the login form, one never logged in; the table, the exit code, the usage errors, and the "verified on
the live site" record kept for the passing accounts only (a private file)."""

from __future__ import annotations

import json
import re
import stat
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import pytest_asyncio

from mediadesk.cli import main
from mediadesk.config.model import load_config
from mediadesk.config.workspace import Workspace
from mediadesk.providers.web import BrowserNotFoundError, find_browser, find_our_residue
from mediadesk.providers.web.login import login_with_form
from mediadesk.providers.web.playwright_hub import PlaywrightHub
from mediadesk.providers.web.profile_lock import AccountLock
from mediadesk.scheduler.adapter_check import (
    VERIFIED_FILE,
    AccountCheckRow,
    Verified,
    check_all_accounts,
    verified,
    verified_text,
)
from mediadesk.sim.web_server import WebSimConfig, WebSimServer
from tests.support import Result, mediadesk_async, require

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

VERSION = "2026-12-07"
SITE = """
name = "simcheck"
version = "{version}"
url = "{url}"
login_url = "{login}"
logged_in = ".avatar"
logged_out = "a.login-link"
prompt = "textarea"
send = "button.send"
new_chat = "button.new-chat"
answer = ".assistant .content"
busy = ".stop"
error = ".msg.error"
settle_ms = 300
max_run_s = 30
start_timeout_s = 5
"""
LOGGED_IN = ("acct-a", "acct-b")
LOGGED_OUT = "acct-out"


def write_config(sim: WebSimServer, root: Path) -> Path:
    """Three accounts on the simulator's site, the logged-out one between the two logged-in ones (so the
    check goes on after it)."""
    sites = root / "sites"
    sites.mkdir(parents=True)
    (sites / "simcheck.toml").write_text(SITE.format(version=VERSION, url=sim.chat_url, login=sim.login_url))
    accounts = "".join(f'[[accounts]]\nname = "{a}"\nprofile = "chat"\n\n' for a in ("acct-a", LOGGED_OUT, "acct-b"))
    config = root / "config.toml"
    config.write_text(f'data_dir = "{root / "data"}"\n[browser]\nsites_dir = "{sites}"\n\n'
                      f'[[profiles]]\nname = "chat"\nkind = "web"\nsite = "simcheck"\n\n{accounts}')
    return config


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def sim() -> AsyncIterator[WebSimServer]:
    async with WebSimServer(WebSimConfig(time_scale=0.02, fixed_run_s=30.0, answer_tokens=12)) as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def setup(sim: WebSimServer, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Workspace]:
    """The config file and its workspace, ``acct-a`` and ``acct-b`` logged in on their profiles by the
    login form (one Playwright driver for both logins)."""
    try:
        find_browser(probe_version=False)
    except BrowserNotFoundError as exc:
        require(False, f"no Chromium on this machine: {exc}")
    root = tmp_path_factory.mktemp("check-all")
    config_file = write_config(sim, root)
    config = load_config(config_file)
    ws = Workspace.resolve(data_dir=root / "data").ensure()
    await PlaywrightHub.acquire()
    try:
        for account in LOGGED_IN:
            await login_with_form(config, ws, account, sim.login_url, fields={"#account": account, "#password": "x"},
                                  submit="button.login", logged_in=".avatar")  # fmt: skip
    finally:
        await PlaywrightHub.release()
    return config_file, ws


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def checked_all(setup: tuple[Path, Workspace]) -> Result:
    """``mediadesk adapter check --all``, run once for the module's tests."""
    config_file, ws = setup
    result = await mediadesk_async("adapter", "check", "--all", "--config", config_file, "--data-dir", ws.data_dir,
                                   limit_s=300)
    assert not find_our_residue(ws.data_dir), "a browser outlived the check"
    return result


def table(out: str) -> dict[str, list[str]]:
    """The table's rows by account: the columns split on runs of two or more spaces."""
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("account "))
    assert re.split(r" {2,}", lines[head].strip()) == ["account", "adapter", "keys", "source", "verdict", "verified"]
    rows = [re.split(r" {2,}", line.strip()) for line in lines[head + 1:head + 4]]
    return {r[0]: r[1:] for r in rows}


async def test_the_table_has_a_row_per_account_and_the_logged_out_one_makes_it_exit_1(checked_all: Result) -> None:
    rc, out, err = checked_all
    assert rc == 1, (out, err)
    rows = table(out)
    assert set(rows) == {"acct-a", "acct-b", LOGGED_OUT}, out
    today = datetime.now(UTC).date().isoformat()
    for account in LOGGED_IN:
        adapter, keys, source, verdict, when = rows[account]
        assert (adapter, source, verdict, when) == (f"simcheck {VERSION}", "page", "ok", today), out
        assert keys == "logged_in ok, prompt ok, send ok, new_chat ok, busy ok, answer ok", keys
    adapter, keys, source, verdict, when = rows[LOGGED_OUT]
    assert (adapter, source, verdict, when) == (f"simcheck {VERSION}", "-", "logged out", "no"), out
    assert "logged_in missing" in keys and "logged_out ok" in keys, keys
    assert f"{LOGGED_OUT}: logged out: NeedsLogin: simcheck: not logged in" in out
    assert "2 of 3 account(s) ok" in out
    assert "Traceback" not in err


async def test_verified_is_recorded_for_the_passing_accounts_only(checked_all: Result,
                                                                  setup: tuple[Path, Workspace]) -> None:
    _, ws = setup
    assert checked_all.rc == 1
    path = ws.data_dir / VERIFIED_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    today = datetime.now(UTC).date().isoformat()
    for account in LOGGED_IN:
        assert verified(ws, account) == Verified(site="simcheck", version=VERSION, host="127.0.0.1", source="page",
                                                 on=today)
    assert verified(ws, LOGGED_OUT) is None
    records = json.loads(path.read_text(encoding="utf-8"))["accounts"]
    assert set(records) == set(LOGGED_IN)  # nothing else: no cookie, no answer, no password
    assert all(set(r) == {"site", "version", "host", "source", "on"} for r in records.values()), records
    v = verified(ws, "acct-a")
    assert verified_text(v, VERSION) == f"verified on 127.0.0.1 on {today} (adapter {VERSION}, answer from the page)"
    assert verified_text(v, "2027-01-01") == (f"verified on 127.0.0.1 on {today} for an older adapter version "
                                              f"({VERSION}); check again")
    assert verified_text(None, VERSION) == "not verified on the live site yet"


async def test_the_single_check_prints_the_verified_line(checked_all: Result, setup: tuple[Path, Workspace]) -> None:
    config_file, ws = setup
    assert checked_all.rc == 1
    rc, out, err = await mediadesk_async("adapter", "check", "simcheck", "--account", "acct-b", "--config",
                                         config_file, "--data-dir", ws.data_dir, limit_s=300)
    assert rc == 0, (out, err)
    today = datetime.now(UTC).date().isoformat()
    assert f"adapter check: simcheck (version {VERSION}) on account acct-b" in out
    assert f"verified on 127.0.0.1 on {today} (adapter {VERSION}, answer from the page)" in out.splitlines()


async def test_a_check_that_cannot_run_is_a_failed_row(sim: WebSimServer, tmp_path: Path) -> None:
    # an account in use by another MediaDesk: refused before any browser starts; the row says why
    config = load_config(write_config(sim, tmp_path))
    config = config.model_copy(update={"accounts": [a for a in config.accounts if a.name == "acct-a"]})
    ws = Workspace.resolve(data_dir=tmp_path / "data").ensure()
    lock = AccountLock("acct-a", ws.account_profile_dir("acct-a"))
    assert lock.try_acquire()
    seen: list[AccountCheckRow] = []
    try:
        rows = await check_all_accounts(config, ws, on_row=seen.append)
    finally:
        lock.release()
    assert seen == rows and len(rows) == 1
    row = rows[0]
    assert (row.account, row.site, row.version, row.verdict) == ("acct-a", "simcheck", VERSION, "failed"), row
    assert "in use" in row.detail and row.verified is None
    assert not (ws.data_dir / VERIFIED_FILE).exists()


@pytest.mark.parametrize("extra", [["simcheck"], ["--account", "acct-a"], ["--no-prompt"]])
async def test_all_with_a_site_or_an_account_is_a_usage_error(extra: list[str], tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.toml"  # never read: the arguments are refused first
    assert main(["adapter", "check", "--all", *extra, "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "mediadesk: --all checks every enabled web account: it takes no" in err and "Traceback" not in err


async def test_a_check_without_site_or_all_is_a_usage_error(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["adapter", "check", "--config", str(tmp_path / "config.toml")]) == 2
    assert "adapter check needs a SITE, or --all" in capsys.readouterr().err
