"""The console's "Check all accounts…" on real Chromium and the chat simulator: one row per web account as
each check ends (a logged-out account's row says so), the account being checked on a line of its own,
and afterwards the Accounts tab and the Setup editor say whether each account's adapter was verified on
the live site (and that a newer adapter version needs checking again)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QTableWidget

from mediadesk.config.model import AccountConfig, ProfileConfig, load_config
from mediadesk.config.workspace import Workspace, resources_dir
from mediadesk.core.backend import LaneBackend
from mediadesk.providers.web.login import login_with_form
from mediadesk.scheduler import Scheduler
from mediadesk.sim.web_server import WebSimConfig, WebSimServer
from mediadesk.ui.dialogs.setup_editor import SetupEditor
from tests.ui.conftest import ARun, FakeWebBackend, open_window

pytestmark = [pytest.mark.browser]

CONFIG = """\
[retry]
max_retries = 1

[[profiles]]
name = "chat"
kind = "web"
site = "simchat"
url = "{url}"

[[accounts]]
name = "acct-a"
profile = "chat"

[[accounts]]
name = "acct-b"
profile = "chat"
"""


@pytest.fixture
def sim(arun: ARun) -> Iterator[WebSimServer]:
    server = WebSimServer(WebSimConfig(time_scale=0.005, seed=3, answer_tokens=12))
    arun(server.start())
    try:
        yield server
    finally:
        arun(server.stop())


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)


def web_setup(tmp_path: Path, sim: WebSimServer) -> tuple[Path, Workspace]:
    """The config (two accounts of the simulator's chat) and its workspace; no account logged in yet."""
    path = tmp_path / "config.toml"
    path.write_text(CONFIG.format(url=sim.chat_url), encoding="utf-8")
    return path, Workspace.resolve(data_dir=tmp_path / "data").ensure()


def log_in(path: Path, ws: Workspace, sim: WebSimServer, account: str, arun: ARun) -> None:
    arun(login_with_form(load_config(path), ws, account, sim.login_url,
                         fields={"#account": account, "#password": "pw"}, submit="button.login",
                         logged_in=".avatar"), timeout=120)


def started_scheduler(path: Path, ws: Workspace, arun: ARun) -> Scheduler:
    """The console's scheduler; its web lanes are in-process stand-ins (no browser of their own), so each
    check opens the account's profile in a browser of its own."""
    backends: dict[str, FakeWebBackend] = {}

    def factory(profile: ProfileConfig, account: AccountConfig | None) -> LaneBackend:
        assert account is not None
        return backends.setdefault(account.name, FakeWebBackend(account.name))

    s = Scheduler(load_config(path), ws, backend_factory=factory)
    arun(s.start(), timeout=30)
    return s


def column(table: QTableWidget, col: int) -> list[str]:
    return [table.item(r, col).text() for r in range(table.rowCount())]


def test_check_all_accounts_fills_one_row_per_account_and_shows_what_was_verified(
    sim: WebSimServer, tmp_path: Path, qtbot: Any, arun: ARun, settings: QSettings
) -> None:
    path, ws = web_setup(tmp_path, sim)
    log_in(path, ws, sim, "acct-a", arun)  # acct-b never logs in
    s = started_scheduler(path, ws, arun)
    try:
        with open_window(s, arun, settings) as w:
            panel_adapter = w.accounts_panel._table  # the Adapter column, before any check
            assert [panel_adapter.item(r, 5).text() for r in range(2)] == [
                "simchat (no version): not verified on the live site yet"] * 2
            assert w.menus.act_check_all.text() == "Check all accounts…"
            assert w.accounts_panel.check_all_button.isVisible()
            w.accounts_panel.check_all_button.click()
            dlg = w.account_check
            assert dlg is not None and dlg.isVisible()
            assert dlg.status.text() == "Checking acct-a… starting the check"
            seen: list[tuple[int, str]] = []  # (rows, the status line) as each account's check ends
            dlg.checked.connect(lambda: seen.append((dlg.table.rowCount(), dlg.status.text())))
            dlg.account_started.connect(lambda _a: seen.append((dlg.table.rowCount(), dlg.status.text())))
            assert dlg.task is not None
            arun(asyncio.wait_for(asyncio.shield(dlg.task), 200), timeout=210)
            # row by row: acct-a's check announced, its row in alone, then acct-b's check announced
            assert seen[0] == (0, "Checking acct-a… starting the check"), seen
            assert seen[1][0] == 1 and seen[2] == (1, "Checking acct-b… starting the check"), seen
            assert [n for n, _ in seen] == [0, 1, 1, 2], seen
            assert column(dlg.table, 0) == ["acct-a", "acct-b"]
            assert column(dlg.table, 1) == ["simchat (no version)"] * 2
            verdicts = column(dlg.table, 4)
            assert verdicts[0] == "ok", verdicts
            assert verdicts[1].startswith("logged out"), verdicts
            assert column(dlg.table, 3)[0] == "the page"  # simchat has no [stream] decoder
            assert "prompt ok" in column(dlg.table, 2)[0]
            today = datetime.now(UTC).date().isoformat()
            verified = column(dlg.table, 5)
            assert verified == [f"verified on 127.0.0.1 on {today}", "not verified on the live site yet"], verified
            assert dlg.status.text() == "Done: 1 of 2 account(s) ok."
            assert not dlg.cancel_button.isEnabled()
            # the Accounts tab followed
            assert [panel_adapter.item(r, 5).text() for r in range(2)] == [
                f"simchat (no version): verified on 127.0.0.1 on {today}",
                "simchat (no version): not verified on the live site yet"]
            assert sim.stats()["concurrent_violations"] == 0
            dlg.close()
        # the Setup editor says the same; a newer version of the adapter needs checking again
        editor = SetupEditor(path, workspace=ws)
        editor.confirm_discard = lambda: True
        qtbot.addWidget(editor)
        editor.select("accounts", "acct-a")
        assert editor.verified_label.text() == f"simchat (no version): verified on 127.0.0.1 on {today}"
        editor.select("accounts", "acct-b")
        assert editor.verified_label.text() == "simchat (no version): not verified on the live site yet"
        ws.sites_dir.mkdir(exist_ok=True)
        newer = (resources_dir() / "sites" / "simchat.toml").read_text(encoding="utf-8") + 'version = "2099-01-31"\n'
        (ws.sites_dir / "simchat.toml").write_text(newer, encoding="utf-8")
        editor.select("accounts", "acct-a")
        assert editor.verified_label.text() == (
            "simchat 2099-01-31: verified for an older adapter version; check again")
    finally:
        arun(s.stop(), timeout=60)


def test_cancel_stops_the_checks_and_says_so(sim: WebSimServer, tmp_path: Path, qtbot: Any, arun: ARun,
                                            settings: QSettings) -> None:
    path, ws = web_setup(tmp_path, sim)
    s = started_scheduler(path, ws, arun)
    try:
        with open_window(s, arun, settings) as w:
            w.menus.act_check_all.trigger()
            dlg = w.account_check
            assert dlg is not None and dlg.task is not None
            assert w.open_check_all() is dlg  # one at a time
            qtbot.waitUntil(lambda: dlg.status.text().startswith("Checking acct-a… Opening the site…"),
                            timeout=120_000)
            dlg.cancel_button.click()
            qtbot.waitUntil(dlg.task.done, timeout=60_000)
            assert dlg.task.cancelled()
            assert dlg.status.text() == "Cancelled: 0 account(s) checked."
            assert dlg.table.rowCount() == 0 and not dlg.cancel_button.isEnabled()
            dlg.close()
    finally:
        arun(s.stop(), timeout=60)
