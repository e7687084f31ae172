"""The Exceptions tab's accounts that wait for a person: "account X needs a person" (a bot check on its
site), with the screenshot of the check and the action that opens the account's browser for the person.

The list comes from ``Scheduler.account_exceptions()`` (the lanes' health, no query). It is read again
whenever an account's health changes (``bridge.accountChanged``), so an entry appears when the lane
meets a check and disappears once the account is ready again. Resolving runs
``Scheduler.resolve_account_exception`` on the asyncio loop: the account's own browser opens visibly
on its profile at the chat page; MediaDesk notices when the check is gone and the lane resumes.
Everything the site said is shown as plain text; the screenshot is shown scaled and opens full size.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QPixmap
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

from mediadesk.core.text import printable
from mediadesk.scheduler.events import AccountChanged
from mediadesk.scheduler.exceptions import AccountException
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.plain import plain

__all__ = ["AccountExceptionsBox"]

log = logging.getLogger(__name__)

#: The screenshot preview's largest size (it opens full size on a click).
PREVIEW_W, PREVIEW_H = 360, 220


class AccountExceptionsBox(QWidget):
    """One row per account that waits for a person; hidden while there is none."""

    #: The number of accounts that wait for a person changed.
    countChanged = Signal(int)
    #: A resolution ended: (account, solved).
    resolved = Signal(str, bool)

    def __init__(self, scheduler: Scheduler, bridge: SchedulerBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("accountExceptions")
        self.scheduler = scheduler
        self.entries: list[AccountException] = []
        #: Opens the screenshot full size (the desktop's image viewer); replaceable in tests.
        self.opener: Callable[[QUrl], object] = QDesktopServices.openUrl
        self._solving: dict[str, asyncio.Task[None]] = {}

        self.title = QLabel(self.tr("Accounts that need a person"))
        self.title.setStyleSheet("font-weight: bold")
        self.table = QTableWidget(0, 2)
        self.table.setObjectName("accountExceptionsTable")
        self.table.setHorizontalHeaderLabels([self.tr("Account"), self.tr("What the site showed")])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setMaximumHeight(120)
        self.table.currentCellChanged.connect(lambda row, _c, _pr, _pc: self._show_row(row))
        self.shot = plain(QLabel())
        self.shot.setObjectName("challengeShot")
        self.shot.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.shot_path = plain(QLabel())
        self.shot_path.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_shot = QPushButton(self.tr("Open the screenshot full size"))
        self.open_shot.setObjectName("openChallengeShot")
        self.open_shot.clicked.connect(self._open_shot)
        self.solve_button = QPushButton(self.tr("Open the browser to solve it"))
        self.solve_button.setObjectName("solveChallenge")
        self.solve_button.setToolTip(self.tr(
            "Opens this account's browser visibly on its own profile at the chat page. Solve the check "
            "there; MediaDesk notices when it is gone, closes the window and the account takes tasks again."))
        self.solve_button.clicked.connect(lambda: self.solve())
        self.status = plain(QLabel())
        self.status.setObjectName("accountExceptionStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        side = QVBoxLayout()
        side.addWidget(self.shot_path)
        side.addWidget(self.open_shot)
        side.addWidget(self.solve_button)
        side.addWidget(self.status, 1)
        row = QHBoxLayout()
        row.addWidget(self.shot)
        row.addLayout(side, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 6)
        lay.addWidget(self.title)
        lay.addWidget(self.table)
        lay.addLayout(row)
        bridge.accountChanged.connect(self._on_account)
        self.refresh()

    # ------------------------------------------------------------------ API
    @property
    def current(self) -> AccountException | None:
        row = self.table.currentRow()
        return self.entries[row] if 0 <= row < len(self.entries) else None

    def accounts(self) -> list[str]:
        return [e.account for e in self.entries]

    def refresh(self) -> None:
        """Read the accounts that wait for a person again; keep the selection where possible."""
        keep = self.current.account if self.current is not None else None
        self.entries = self.scheduler.account_exceptions()
        self.table.blockSignals(True)
        self.table.setRowCount(len(self.entries))
        for i, entry in enumerate(self.entries):
            self.table.setItem(i, 0, QTableWidgetItem(entry.account))
            item = QTableWidgetItem(printable(entry.message, multiline=False))
            item.setToolTip("")  # no rich-text guess on page text
            self.table.setItem(i, 1, item)
        self.table.blockSignals(False)
        rows = [i for i, e in enumerate(self.entries) if e.account == keep] or ([0] if self.entries else [])
        self.table.setCurrentCell(rows[0] if rows else -1, 0 if rows else -1)
        self._show_row(self.table.currentRow())
        self.setVisible(bool(self.entries))
        self.countChanged.emit(len(self.entries))

    def solve(self, account: str | None = None) -> asyncio.Task[None] | None:
        """Open ``account``'s browser (default: the selected entry's) for the person; returns the task
        running it on the asyncio loop (tests await it)."""
        if account is None:
            account = self.current.account if self.current is not None else None
        if account is None:
            self._say(self.tr("Select an account first."), error=True)
            return None
        if account in self._solving:
            return self._solving[account]
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._say(self.tr("This needs the console's event loop."), error=True)
            return None
        self._say(self.tr("Opening the browser of {account} at the chat page: solve the check there. The window "
                          "closes by itself once the check is gone; closing it yourself gives up.").format(
                              account=account))
        task = loop.create_task(self._solve(account), name=f"solve:{account}")
        self._solving[account] = task
        task.add_done_callback(self._solved_callback(account))
        self._show_row(self.table.currentRow())
        return task

    # ------------------------------------------------------------------ internals
    def _solved_callback(self, account: str) -> Callable[[asyncio.Task[None]], None]:
        def done(_task: asyncio.Task[None]) -> None:
            self._solving.pop(account, None)
        return done

    async def _solve(self, account: str) -> None:
        try:
            ok = await self.scheduler.resolve_account_exception(account)
            error = None
        except Exception as exc:  # a browser that cannot open never takes the window down
            log.warning("resolving the check of %s failed: %s", account, exc)
            ok, error = False, str(exc) or type(exc).__name__
        with contextlib.suppress(RuntimeError):  # the view was closed meanwhile
            if ok:
                self._say(self.tr("{account}: the check is gone; the account takes tasks again.").format(
                    account=account))
            elif error is not None:
                self._say(self.tr("{account}: the browser could not be opened: {error}").format(
                    account=account, error=printable(error, multiline=False)), error=True)
            else:
                self._say(self.tr("{account} still needs a person: the check was not solved (the window was "
                                  "closed, or the check is still shown).").format(account=account), error=True)
            self.refresh()
            self.resolved.emit(account, ok)

    def _on_account(self, ev: AccountChanged) -> None:
        if ev.health == "challenge" or ev.account in self.accounts():
            self.refresh()

    def _show_row(self, row: int) -> None:
        entry = self.entries[row] if 0 <= row < len(self.entries) else None
        shot = entry.screenshot if entry is not None else None
        pix = QPixmap(str(shot)) if shot is not None else QPixmap()
        if pix.isNull():
            self.shot.clear()
            self.shot.setText(self.tr("(no screenshot)") if entry is not None else "")
        else:
            self.shot.setPixmap(pix.scaled(PREVIEW_W, PREVIEW_H, Qt.AspectRatioMode.KeepAspectRatio,
                                           Qt.TransformationMode.SmoothTransformation))
        self.shot_path.setText(str(shot) if shot is not None and not pix.isNull() else "")
        self.open_shot.setEnabled(not pix.isNull())
        self.solve_button.setEnabled(entry is not None and entry.account not in self._solving)

    def _open_shot(self) -> None:
        entry = self.current
        if entry is not None and entry.screenshot is not None:
            self.opener(QUrl.fromLocalFile(str(entry.screenshot)))

    def _say(self, text: str, *, error: bool = False) -> None:
        self.status.setStyleSheet("color: #d32f2f" if error else "")
        self.status.setText(text)
