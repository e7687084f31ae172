"""What needs the operator stays until seen or handled (issue 20, item 2): the Notices dock lists a
logged-out account, a stopped endpoint and a finished batch; the count is in the window title, the
status bar and the tray icon; a row goes by itself when its cause clears; "Mark all seen" and
"Clear seen" do what they say; a healthy account's last error is shown as past, not red. Real
scheduler, real API simulator, real SQLite; the web accounts are in-process stand-ins."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QPalette

from mediadesk.config.model import BreakerConfig
from mediadesk.core.backend import HealthStatus
from mediadesk.ui.style import is_dark, state_color
from mediadesk.ui.window.main_window import MainWindow
from mediadesk.ui.window.tray import TrayController
from tests.support import until
from tests.ui.conftest import ARun, ConsoleEnv
from tests.ui.test_close_and_tray import publish_soon, settings, tray_window  # noqa: F401 (fixtures)


@pytest.fixture
def attended(tray_window: tuple[MainWindow, TrayController]) -> tuple[MainWindow, TrayController]:  # noqa: F811
    return tray_window


@pytest.fixture
def quick_probes(console_env: ConsoleEnv) -> None:
    """An open breaker probes its endpoint every 0.3 s, not every 10 s (the default): the endpoint's
    row goes as soon as the endpoint answers again, not at the next of the default's probes. Requested
    before the window's scheduler is made from ``console_env.config``."""
    console_env.config = console_env.config.model_copy(update={"breaker": BreakerConfig(probe_interval_s=0.3)})


def test_a_logged_out_account_stays_listed_and_counted_until_it_is_ready(
        attended: tuple[MainWindow, TrayController], console_env: ConsoleEnv, arun: ARun, qtbot: Any) -> None:
    w, tray = attended
    view = w.notices_view
    assert w.attention_count == 0 and not w.windowTitle().startswith("(")
    assert tray.state == "idle"
    console_env.web_backends["acct-a"].health_status = HealthStatus.NEEDS_LOGIN
    publish_soon(w)
    qtbot.waitUntil(lambda: w.attention_count == 1, timeout=20_000)
    assert w.windowTitle().startswith("(1) MediaDesk")
    assert w.attention_button.isVisible() and "1 need you" in w.attention_button.text()
    assert tray.state == "attention" and "1 need you" in tray.tooltip()
    assert view.row_texts()[0][1] == "Account acct-a is logged out"
    button = view.action_button(0)
    assert button is not None and button.text() == "Log in"
    assert w.notices_dock.windowTitle() == "Notices (1)"

    view.seen_btn.click()  # seen: no longer counted, still listed (the account still waits)
    assert w.attention_count == 0 and not w.windowTitle().startswith("(")
    assert len(view.row_texts()) == 1 and not w.attention_button.isVisible()

    console_env.web_backends["acct-a"].health_status = HealthStatus.READY  # handled: the row goes
    publish_soon(w)
    qtbot.waitUntil(lambda: view.row_texts() == [], timeout=20_000)
    assert view.empty.isVisibleTo(view) and not view.tree.isVisibleTo(view)


def test_a_finished_batch_and_a_stopped_endpoint_stay_until_cleared(
        quick_probes: None, attended: tuple[MainWindow, TrayController], console_env: ConsoleEnv, arun: ARun,
        qtbot: Any) -> None:
    w, tray = attended
    assert w.scheduler.config.breaker.probe_interval_s == 0.3
    view = w.notices_view
    assert w.submission.submit_rows_from_text("a\nb", "writer") is not None
    qtbot.waitUntil(lambda: any("Batch finished: 2 succeeded" in r[1] for r in view.row_texts()), timeout=20_000)
    assert w.attention_count == 1 and tray.state == "attention"

    console_env.sim.set_outage("503", retry_after_s=None)  # unavailable: the breaker opens at once
    assert w.submission.submit_rows_from_text("x", "writer") is not None
    qtbot.waitUntil(lambda: any("stopped taking tasks" in r[1] for r in view.row_texts()), timeout=20_000)
    assert w.attention_count == 2 and w.windowTitle().startswith("(2) ")

    view.seen_btn.click()
    assert w.attention_count == 0
    view.clear_btn.click()  # the seen batch goes; the endpoint's row stays while it is stopped
    rows = view.row_texts()
    assert len(rows) == 1 and "stopped taking tasks" in rows[0][1], rows
    assert view.action_button(0) is not None and view.action_button(0).text() == "Setup…"
    console_env.sim.set_outage(None)  # it answers again: its probe closes the breaker, the row goes
    # (and the task that waited runs: its batch's "finished" notice is the one row left)
    qtbot.waitUntil(lambda: not any("stopped taking tasks" in r[1] for r in view.row_texts()), timeout=60_000)
    qtbot.waitUntil(lambda: [r[1] for r in view.row_texts()] == ["Batch finished: 1 succeeded, 0 failed"],
                    timeout=30_000)


def test_the_tray_icon_says_paused(attended: tuple[MainWindow, TrayController], qtbot: Any) -> None:
    _w, tray = attended
    assert tray.state == "idle"
    tray.act_pause.setChecked(True)
    qtbot.waitUntil(lambda: tray.state == "paused", timeout=10_000)
    tray.act_pause.setChecked(False)
    qtbot.waitUntil(lambda: tray.state == "idle", timeout=10_000)


def test_a_healthy_accounts_last_error_is_shown_as_past(attended: tuple[MainWindow, TrayController],
                                                         console_env: ConsoleEnv, arun: ARun) -> None:
    w, _tray = attended
    panel = w.accounts_panel
    backend = console_env.web_backends["acct-a"]
    backend.health_status, backend.error = HealthStatus.NEEDS_LOGIN, "logged out at 09:12"
    publish_soon(w)
    arun(until(lambda: panel.status_text("acct-a") != "" and panel.last_error_text("acct-a") != "",
               "the error in the accounts tab"), timeout=20)
    item = panel._table.item(panel._rows["acct-a"].row, 4)  # the Last error column
    red = state_color("failed", is_dark(panel.palette()))
    arun(until(lambda: item.foreground().color() == red, "the error in red"), timeout=20)
    backend.health_status = HealthStatus.READY  # healthy again, the error kept as it was
    publish_soon(w)
    arun(until(lambda: item.text().startswith("earlier: "), "the error shown as past"), timeout=20)
    assert item.text() == "earlier: logged out at 09:12"
    assert item.foreground().color() == panel.palette().color(QPalette.ColorRole.PlaceholderText)
    assert item.foreground().color() != red

