"""The console's "Check all accounts…": :func:`mediadesk.scheduler.adapter_check.check_all_accounts`
with the running scheduler (an account its lane runs is held, and checked in that lane's browser, as the
single "Check adapter" does), one table row per web account as each check ends, the account being
checked and what it waits for on a line of its own, and Cancel.

Also here: whether an account's adapter was verified on the live site by this operator
(:func:`verified_line`), shown by the Accounts tab and the Setup editor. Everything that came from a
page is shown as plain text (plain items and labels, control characters escaped).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QCloseEvent, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mediadesk.config.model import AppConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.text import printable
from mediadesk.scheduler.adapter_check import (
    AccountCheckRow,
    Verified,
    check_all_accounts,
    checked_accounts,
    verified,
)
from mediadesk.scheduler.adapter_install import site_versions
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.ui.dialogs.setup.adapter_checker import progress_text
from mediadesk.ui.dialogs.setup.fields import ERROR_STYLE
from mediadesk.ui.plain import plain, plain_tip

log = logging.getLogger(__name__)

__all__ = ["AccountCheckDialog", "source_text", "verdict_text", "verified_line", "verified_text"]


def verdict_text(verdict: str) -> str:
    """A row's verdict in the operator's language."""
    return {
        "ok": QCoreApplication.translate("AccountCheckDialog", "ok"),
        "needs attention": QCoreApplication.translate("AccountCheckDialog", "needs attention"),
        "logged out": QCoreApplication.translate("AccountCheckDialog", "logged out"),
        "failed": QCoreApplication.translate("AccountCheckDialog", "failed"),
    }.get(verdict, verdict)


def source_text(source: str) -> str:
    """Where the test prompt's answer was read from."""
    return {
        "stream": QCoreApplication.translate("AccountCheckDialog", "the site's stream"),
        "page": QCoreApplication.translate("AccountCheckDialog", "the page"),
        "": QCoreApplication.translate("AccountCheckDialog", "no answer"),
    }.get(source, source)


def adapter_text(site: str, version: str) -> str:
    """An adapter and its version ("2026-11-30"), as a row and the verified line name it."""
    if not version:
        return QCoreApplication.translate("AccountCheckDialog", "{site} (no version)").format(site=site)
    return QCoreApplication.translate("AccountCheckDialog", "{site} {version}").format(site=site, version=version)


def verified_text(v: Verified | None, site: str, version: str) -> str:
    """Whether this operator verified the adapter ``site`` at ``version`` on the live site."""
    if v is None or v.site != site:
        return QCoreApplication.translate("AccountCheckDialog", "not verified on the live site yet")
    if v.version != version:
        return QCoreApplication.translate("AccountCheckDialog", "verified for an older adapter version; check again")
    return QCoreApplication.translate("AccountCheckDialog", "verified on {host} on {date}").format(
        host=printable(v.host, multiline=False), date=v.on)


def verified_line(config: AppConfig, workspace: Workspace, account: str,
                  versions: dict[str, str] | None = None) -> str | None:
    """``account``'s adapter, its version and whether it was verified (None: not a web account).
    ``versions``: :func:`mediadesk.scheduler.adapter_install.site_versions` (read here when not given; a
    view of many accounts reads it once)."""
    acct = next((a for a in config.accounts if a.name == account), None)
    if acct is None:
        return None
    profile = next((p for p in config.profiles if p.name == acct.profile), None)
    if profile is None or profile.kind != "web" or profile.site is None:
        return None
    version = (site_versions(config, workspace) if versions is None else versions).get(profile.site, "")
    return QCoreApplication.translate("AccountCheckDialog", "{adapter}: {verified}").format(
        adapter=adapter_text(profile.site, version), verified=verified_text(verified(workspace, account),
                                                                            profile.site, version))


def _color(verdict: str) -> QColor:
    return QColor("#2e7d32") if verdict == "ok" else QColor("#d32f2f")


class AccountCheckDialog(QDialog):
    """The table of "Check all accounts…" (non-modal, one at a time: the window keeps it). :meth:`start`
    runs the checks; Cancel (or closing the dialog) stops them, and the account being checked takes
    tasks again."""

    COLUMNS = 6
    #: An account's check ended (its verification may have changed).
    checked = Signal()
    #: An account's check begins (its name).
    account_started = Signal(str)

    def __init__(self, scheduler: Scheduler, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("accountCheckDialog")
        self.setWindowTitle(self.tr("Check all accounts"))
        self.resize(1000, 420)
        self.scheduler = scheduler
        self.task: asyncio.Task[None] | None = None
        self.rows: list[AccountCheckRow] = []
        self.table = QTableWidget(0, self.COLUMNS, self)
        self.table.setObjectName("accountChecks")
        self.table.setHorizontalHeaderLabels([
            self.tr("Account"), self.tr("Adapter"), self.tr("Keys"), self.tr("Answer source"), self.tr("Verdict"),
            self.tr("Verified"),
        ])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.status = plain(QLabel(self))
        self.status.setObjectName("accountCheckStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.cancel_button.setObjectName("cancelAccountChecks")
        self.cancel_button.setToolTip(self.tr("Stop checking: the account being checked takes tasks again"))
        self.cancel_button.clicked.connect(self.cancel)
        close = QPushButton(self.tr("Close"), self)
        close.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(close)
        lay = QVBoxLayout(self)
        lay.addWidget(self.status)
        lay.addWidget(self.table, 1)
        lay.addLayout(buttons)

    # ------------------------------------------------------------------ running
    def start(self) -> asyncio.Task[None] | None:
        """Check every enabled web account, one after another; returns the task (tests await it)."""
        if self.task is not None and not self.task.done():
            return self.task
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._say(self.tr("Checking the accounts needs the console's event loop"), error=True)
            return None
        self.rows.clear()
        self.table.setRowCount(0)
        self.cancel_button.setEnabled(True)
        if first := checked_accounts(self.scheduler.config)[:1]:
            self._show_start(first[0])  # at once: the check's own start comes one loop turn later
        self.task = loop.create_task(self._run(), name="check-all-accounts")
        return self.task

    async def _run(self) -> None:
        s = self.scheduler
        try:
            rows = await check_all_accounts(s.config, s.workspace, scheduler=s, say=self._on_progress,
                                            on_row=self._on_row, on_start=self._on_start)
        except asyncio.CancelledError:
            with contextlib.suppress(RuntimeError):  # the dialog was deleted meanwhile
                self._say(self.tr("Cancelled: {n} account(s) checked.").format(n=len(self.rows)))
                self.cancel_button.setEnabled(False)
            raise
        except Exception as exc:  # a check never takes the window down
            log.warning("check all accounts failed: %s", exc)
            with contextlib.suppress(RuntimeError):
                self._say(self.tr("The checks stopped: {why}").format(
                    why=printable(str(exc) or type(exc).__name__, multiline=False)), error=True)
                self.cancel_button.setEnabled(False)
            return
        with contextlib.suppress(RuntimeError):
            self.cancel_button.setEnabled(False)
            if not rows:
                self._say(self.tr("No enabled web account to check."))
                return
            ok = sum(r.verdict == "ok" for r in rows)
            self._say(self.tr("Done: {ok} of {n} account(s) ok.").format(ok=ok, n=len(rows)), error=ok < len(rows))

    def cancel(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.cancel()
        super().closeEvent(event)

    # ------------------------------------------------------------------ progress
    def _say(self, text: str, *, error: bool = False) -> None:
        self.status.setStyleSheet(ERROR_STYLE if error else "")
        self.status.setText(text)

    def _on_start(self, account: str) -> None:
        """The account checked now, and what it waits for first: the task its lane runs."""
        with contextlib.suppress(RuntimeError):  # the dialog was deleted while the check ran
            self._show_start(account)
            self.account_started.emit(account)

    def _show_start(self, account: str) -> None:
        lane = next((ln for ln in self.scheduler.lanes if ln.account == account), None)
        running = [r.task_id for r in lane.stats().running] if lane is not None else []
        if running:
            self._say(self.tr("Checking {account}… waiting for its running task {ids} to end (it takes no new "
                              "task meanwhile)").format(account=account, ids=", ".join(running)))
        else:
            self._say(self.tr("Checking {account}… starting the check").format(account=account))

    def _on_progress(self, message: str) -> None:
        """``"<account>: <message>"`` from the check."""
        names = sorted((a.name for a in self.scheduler.config.accounts), key=len, reverse=True)
        account = next((n for n in names if message.startswith(f"{n}: ")), None)
        if account is None:
            with contextlib.suppress(RuntimeError):
                self._say(progress_text(message))
            return
        with contextlib.suppress(RuntimeError):
            self._say(self.tr("Checking {account}… {progress}").format(
                account=account, progress=progress_text(message[len(account) + 2:])))

    def _on_row(self, row: AccountCheckRow) -> None:
        try:
            self._add_row(row)
            self.checked.emit()
        except RuntimeError:  # the dialog was deleted while the check ran
            pass

    def _add_row(self, row: AccountCheckRow) -> None:
        self.rows.append(row)
        i = self.table.rowCount()
        self.table.insertRow(i)
        verdict = verdict_text(row.verdict)
        cells = (
            row.account,
            adapter_text(row.site, row.version),
            printable(row.keys, multiline=False),
            source_text(row.source),
            verdict,
            verified_text(row.verified, row.site, row.version),
        )
        for col, text in enumerate(cells):
            item = QTableWidgetItem(text)  # an item shows its text as text, never as HTML
            if col == 4:
                item.setForeground(_color(row.verdict))
                if row.detail:
                    item.setText(self.tr("{verdict}: {detail}").format(
                        verdict=verdict, detail=printable(row.detail, multiline=False)))
                    item.setToolTip(plain_tip(row.detail))
            self.table.setItem(i, col, item)
