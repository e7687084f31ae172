"""Web accounts: the operator's on/off switch, the account's health, and "Log in".

Two things are shown side by side and never mixed: the switch is the operator's decision
(persisted by the scheduler, and the program never flips it), the status is what the account can
do right now (ready, busy, needs login, error...). An account that needs a login keeps its switch
on; it simply gets no work until it is logged in again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mediadesk.config.model import AccountConfig
from mediadesk.core.backend import HealthStatus, effective_health
from mediadesk.scheduler.adapter_install import site_versions
from mediadesk.scheduler.events import AccountChanged, LaneStats
from mediadesk.scheduler.lane import Lane
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.store.taskstore import TaskRecord
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.dialogs.account_check import verified_line
from mediadesk.ui.format import fmt_waits_until, health_label, plain_error
from mediadesk.ui.panels.disable_question import DisableQuestionBox
from mediadesk.ui.plain import plain, plain_tip
from mediadesk.ui.style import ToggleSwitch, centered, health_color, icon, is_dark, state_color

log = logging.getLogger(__name__)

__all__ = ["AccountsPanel", "DisableChoice", "DisableQuestion"]

#: How much of a running task's prompt the disable question quotes.
PROMPT_EXCERPT = 60


class DisableChoice(str, Enum):
    """The operator's answer when disabling an account that is running a task."""

    FINISH = "finish"  # stop new dispatch, let the running task finish
    CANCEL = "cancel"  # stop new dispatch and cancel the running task
    KEEP = "keep"      # changed my mind: keep the account enabled


@dataclass(frozen=True)
class DisableQuestion:
    """What the operator is asked when disabling an account that is running a task."""

    account: str
    #: (task id, start of its prompt) of each task the account is running.
    running: tuple[tuple[str, str], ...]
    #: The question as shown.
    text: str


def prompt_excerpt(prompt: str, limit: int = PROMPT_EXCERPT) -> str:
    """The start of a prompt on one line, cut at a word (when one ends late enough) with an ellipsis."""
    one_line = " ".join(prompt.split())
    if len(one_line) <= limit:
        return one_line
    cut = one_line[:limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


_COL_NAME, _COL_PROFILE, _COL_SWITCH, _COL_STATUS, _COL_ERROR, _COL_ADAPTER, _COL_LOGIN = range(7)


class _Row:
    """Widgets and last-known state of one account row."""

    def __init__(self, account: AccountConfig, row: int) -> None:
        self.account = account
        self.row = row
        self.enabled = account.enabled
        self.health: str = HealthStatus.STARTING
        self.last_error: str | None = None
        self.running = 0
        #: Quiet hours: when the account's next window opens (None inside one, or without any).
        self.waits_until: float | None = None
        self.logging_in = False
        self.switch: ToggleSwitch
        self.login: QPushButton


class AccountsPanel(QWidget):
    """One row per web account (see the module docstring)."""

    def __init__(
        self,
        scheduler: Scheduler,
        bridge: SchedulerBridge,
        parent: QWidget | None = None,
        *,
        login: Callable[[str], Awaitable[None]] | None = None,
        check_all: Callable[[], object] | None = None,
    ) -> None:
        super().__init__(parent)
        self._scheduler = scheduler
        self._login = login
        self._rows: dict[str, _Row] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: Asked when disabling an account that has a running task; the account takes no new task
        #: while it is open (``Scheduler.hold_account``). Replaceable (tests, or a main window that
        #: wants its own wording).
        self.confirm: Callable[[DisableQuestion], DisableChoice] = self._ask_disable
        #: The disable question open now (kept up to date as its task ends).
        self._open_question: DisableQuestionBox | None = None

        self._table = QTableWidget(0, 7, self)
        self._table.setHorizontalHeaderLabels([
            self.tr("Account"), self.tr("Profile"), self.tr("Enabled"), self.tr("Status"),
            self.tr("Last error"), self.tr("Adapter"), "",
        ])
        self._table.verticalHeader().setVisible(False)
        self._table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self._table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self._table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self._table.setWordWrap(False)
        self._table.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the cell widgets take focus, not cells
        hh = self._table.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(_COL_ERROR, QHeaderView.ResizeMode.Stretch)
        self._message = plain(QLabel(self))
        self._message.setWordWrap(True)
        self._message.hide()

        #: "Check all accounts…": every web account's adapter checked on the live site (the window's dialog).
        self.check_all_button = QPushButton(self.tr("Check all accounts…"), self)
        self.check_all_button.setObjectName("checkAllAccounts")
        self.check_all_button.setToolTip(self.tr("Check every web account's site adapter on the live site, one "
                                                 "after another"))
        self.check_all_button.setVisible(check_all is not None)
        if check_all is not None:
            self.check_all_button.clicked.connect(lambda _c=False: check_all())
        top = QHBoxLayout()
        top.addStretch(1)
        top.addWidget(self.check_all_button)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(top)
        lay.addWidget(self._table)
        lay.addWidget(self._message)

        self.refresh()
        bridge.laneStats.connect(self._on_lane_stats)
        bridge.accountChanged.connect(self._on_account_changed)
        tasks = self._tasks  # not self: the lambda must not touch the dying widget
        self.destroyed.connect(lambda *_: [t.cancel() for t in list(tasks)])

    # ------------------------------------------------------------------ public API
    def refresh(self) -> None:
        """Rebuild all rows from the scheduler (accounts, switch states, current health)."""
        self._rows.clear()
        accounts = list(self._scheduler.config.accounts)
        self._table.setRowCount(len(accounts))
        stored = self._stored_states()
        for i, acc in enumerate(accounts):
            row = _Row(acc, i)
            lane = self._lane(acc.name)
            if lane is not None:
                stats = lane.stats()
                row.enabled = lane.enabled
                row.running = len(stats.running)
                row.waits_until = stats.waits_until
                row.health, row.last_error = lane.backend.health()
            elif acc.name in stored:
                row.enabled = stored[acc.name][0]
            self._rows[acc.name] = row
            self._build_row(row)
            self._render(row)
        self.refresh_verified()

    def refresh_verified(self) -> None:
        """Each web account's adapter, its version, and whether this operator verified it on the live site."""
        cfg, ws = self._scheduler.config, self._scheduler.workspace
        try:
            versions = site_versions(cfg, ws)
        except OSError as exc:  # the sites folder cannot be read: the versions are unknown
            log.warning("site adapters cannot be read: %s", exc)
            versions = {}
        for name, row in self._rows.items():
            item = self._table.item(row.row, _COL_ADAPTER)
            if item is not None:
                item.setText(verified_line(cfg, ws, name, versions) or "")

    def accounts(self) -> list[str]:
        return list(self._rows)

    def switch(self, account: str) -> ToggleSwitch:
        return self._rows[account].switch

    def login_button(self, account: str) -> QPushButton:
        return self._rows[account].login

    def status_text(self, account: str) -> str:
        item = self._table.item(self._rows[account].row, _COL_STATUS)
        return item.text() if item else ""

    def last_error_text(self, account: str) -> str:
        """The full last error (the cell shows it elided; the tooltip shows it whole)."""
        item = self._table.item(self._rows[account].row, _COL_ERROR)
        return str(item.data(Qt.ItemDataRole.UserRole) or "") if item else ""

    def message(self) -> str:
        """The last panel-level message (e.g. a failed switch or login), '' when none."""
        return self._message.text()

    # ------------------------------------------------------------------ rows
    def _stored_states(self) -> dict[str, tuple[bool, str, str | None]]:
        try:
            return self._scheduler.account_states()
        except RuntimeError:  # scheduler not opened yet: the config's defaults apply
            return {}

    def _lane(self, account: str) -> Lane | None:
        return next((lane for lane in self._scheduler.lanes if lane.account == account), None)

    def _build_row(self, row: _Row) -> None:
        name = row.account.name
        t = self._table
        name_item = QTableWidgetItem(icon("account"), name)
        t.setItem(row.row, _COL_NAME, name_item)
        t.setItem(row.row, _COL_PROFILE, QTableWidgetItem(row.account.profile))
        t.setItem(row.row, _COL_STATUS, QTableWidgetItem())
        t.setItem(row.row, _COL_ERROR, QTableWidgetItem())
        t.setItem(row.row, _COL_ADAPTER, QTableWidgetItem())

        row.switch = ToggleSwitch()
        row.switch.setToolTip(self.tr("Your switch: when off, no new task is sent to this account. "
                                      "MediaDesk never changes it by itself."))
        row.switch.setAccessibleName(self.tr("Enable account {name}").format(name=name))
        row.switch.clicked.connect(lambda checked, n=name: self._on_switch(n, checked))
        t.setCellWidget(row.row, _COL_SWITCH, centered(row.switch))

        row.login = QPushButton(icon("login"), self.tr("Log in"))
        row.login.clicked.connect(lambda _c=False, n=name: self._start_login(n))
        t.setCellWidget(row.row, _COL_LOGIN, row.login)

    def _render(self, row: _Row) -> None:
        """Paint one row from its state. The switch shows ``enabled`` only, the status the health."""
        dark = is_dark(self.palette())
        row.switch.blockSignals(True)
        row.switch.setChecked(row.enabled)
        row.switch.blockSignals(False)
        status = self._display_health(row)
        item = self._table.item(row.row, _COL_STATUS)
        if item is not None:
            text = health_label(status)
            if row.waits_until is not None and row.enabled and not row.running:
                text = fmt_waits_until(row.waits_until)
            item.setText(text)
            item.setData(Qt.ItemDataRole.UserRole, status)
            item.setForeground(health_color(status, dark))
        err_item = self._table.item(row.row, _COL_ERROR)
        if err_item is not None:
            err = row.last_error or ""
            said = plain_error(err)  # the operator's words; the stored text in the tooltip
            past = bool(err) and status in (HealthStatus.READY, HealthStatus.BUSY)  # healthy again
            one_line = said.summary.replace("\n", " ")
            err_item.setText(self.tr("earlier: {error}").format(error=one_line) if past else one_line)
            err_item.setData(Qt.ItemDataRole.UserRole, err)
            tip = said.summary + ("\n\n" + self.tr("Details: {detail}").format(detail=said.detail)
                                  if said.has_detail else "")
            err_item.setToolTip(plain_tip(tip))  # the tooltip shows it as text, never as HTML
            err_item.setForeground(self.palette().color(QPalette.ColorRole.PlaceholderText) if past
                                   else state_color("failed", dark))
        row.login.setEnabled(self._login is not None and not row.logging_in)
        if self._login is None:
            row.login.setToolTip(self.tr("Logging in is not available in this window"))
        else:
            row.login.setToolTip(self.tr("Open this account's browser to log in"))
        row.login.setText(self.tr("Logging in…") if row.logging_in else self.tr("Log in"))

    @staticmethod
    def _display_health(row: _Row) -> str:
        return effective_health(row.enabled, row.health, row.running)

    # ------------------------------------------------------------------ events from the core
    def _on_lane_stats(self, stats: LaneStats) -> None:
        if stats.kind != "web" or not stats.lane.startswith("web:"):
            return
        row = self._rows.get(stats.lane[len("web:"):])
        if row is None:
            return
        row.running = len(stats.running)
        row.waits_until = stats.waits_until
        if stats.health != HealthStatus.DISABLED:  # lane stats override health when disabled
            row.health = stats.health
        row.last_error = stats.last_error
        self._render(row)
        box = self._open_question
        if (box is not None and box.account == row.account.name
                and not {r.task_id for r in stats.running} & set(box.tasks) and self._tasks_ended(box.tasks)):
            box.task_finished()  # the question it asks about that task no longer holds

    def _tasks_ended(self, task_ids: Sequence[str]) -> bool:
        """Every one of ``task_ids`` is in a final state (a read of one row each)."""
        try:
            records = [self._scheduler.store.get(t) for t in task_ids]
        except Exception:
            return False
        return all(r is None or r.state in ("success", "failed", "canceled") for r in records)

    def _on_account_changed(self, ev: AccountChanged) -> None:
        row = self._rows.get(ev.account)
        if row is None:
            return
        row.enabled = ev.enabled
        if ev.health != HealthStatus.DISABLED:
            row.health = ev.health
        row.last_error = ev.last_error
        self._render(row)

    # ------------------------------------------------------------------ operator actions
    def _on_switch(self, account: str, checked: bool) -> None:
        if checked or self._lane(account) is None:
            self._set_enabled(account, checked, cancel_running=False)
            return
        # Hold the account before asking: while the question is open it must not start another
        # task, or "let the running task finish" would be about a task the operator never saw.
        running = self._scheduler.hold_account(account)
        try:
            cancel_running = False
            if running:
                choice = self.confirm(self._question(account, running))
                if choice == DisableChoice.KEEP:
                    self._render(self._rows[account])  # back to "on"
                    return
                cancel_running = choice == DisableChoice.CANCEL
            self._set_enabled(account, False, cancel_running=cancel_running)
        finally:
            with contextlib.suppress(ValueError):  # the scheduler stopped while the question was open
                self._scheduler.release_account(account)

    def _set_enabled(self, account: str, checked: bool, *, cancel_running: bool) -> None:
        row = self._rows[account]
        try:
            self._scheduler.set_account_enabled(account, checked, cancel_running=cancel_running)
        except (ValueError, RuntimeError) as exc:
            self._show_message(self.tr("Could not change {name}: {error}").format(name=account, error=exc))
            self._render(row)
            return
        row.enabled = checked
        self._show_message("")
        self._render(row)

    def _question(self, account: str, running: Sequence[TaskRecord]) -> DisableQuestion:
        tasks = tuple((r.task_id, prompt_excerpt(r.prompt)) for r in running)
        named = "; ".join(self.tr("{id} (“{prompt}”)").format(id=tid, prompt=excerpt) for tid, excerpt in tasks)
        text = self.tr("{name} is running {tasks}. It takes no new task while you decide, and none "
                       "once disabled. What about the running task?").format(name=account, tasks=named)
        return DisableQuestion(account, tasks, text)

    def _ask_disable(self, question: DisableQuestion) -> DisableChoice:
        box = DisableQuestionBox(question.account, question.text, self, tasks=[tid for tid, _ in question.running])
        self._open_question = box
        if self._tasks_ended(box.tasks):  # it ended before the box could show
            box.task_finished()
        try:
            box.exec()
        finally:
            self._open_question = None
        clicked = box.clickedButton()
        box.deleteLater()
        if clicked is box.cancel_button:
            return DisableChoice.CANCEL
        if clicked in (box.finish_button, box.disable_button):
            return DisableChoice.FINISH
        return DisableChoice.KEEP

    def _start_login(self, account: str) -> None:
        login = self._login
        row = self._rows[account]
        if login is None or row.logging_in:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._show_message(self.tr("Cannot log in: the event loop is not running"))
            return
        row.logging_in = True
        self._render(row)
        task = loop.create_task(self._run_login(login, account), name=f"login:{account}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run_login(self, login: Callable[[str], Awaitable[None]], account: str) -> None:
        error: Exception | None = None
        try:
            await login(account)
        except asyncio.CancelledError:
            self._login_done(account, None)
            raise
        except Exception as exc:
            log.warning("login for %s failed: %s", account, exc)
            error = exc
        self._login_done(account, error)

    def _login_done(self, account: str, error: Exception | None) -> None:
        row = self._rows.get(account)
        if row is None:
            return
        row.logging_in = False
        try:
            if error is not None:
                self._show_message(self.tr("Login for {name} failed: {error}").format(name=account, error=error))
            else:
                self._show_message("")
            self._render(row)
        except RuntimeError:  # the panel was closed while the login ran
            pass

    def _show_message(self, text: str) -> None:
        self._message.setText(text)
        self._message.setVisible(bool(text))
        if text:
            self._message.setStyleSheet(f"color: {state_color('failed', is_dark(self.palette())).name()}")

