"""The Setup editor's "Check adapter" (web accounts and web profiles), through
:func:`mediadesk.scheduler.adapter_check.check_account`: the site adapter checked on the account's own
profile in a real Chromium, as ``mediadesk adapter check`` does, as a task on the app's asyncio loop.
With the console's scheduler running the account, the check runs in that account's own browser and
keeps the one-run rule (a running task is finished first, and the dialog says so). The dialog shows the
progress, then the report; everything that came from the page is shown as plain text.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, Qt, QUrl
from PySide6.QtGui import QColor, QDesktopServices, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QGridLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mediadesk.config.edit import Section
from mediadesk.config.model import AppConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.text import printable
from mediadesk.scheduler.adapter_check import check_account
from mediadesk.ui.dialogs.setup.context import SetupContext
from mediadesk.ui.dialogs.setup.fields import ERROR_STYLE
from mediadesk.ui.plain import plain, plain_tip

if TYPE_CHECKING:
    pass

log = logging.getLogger("mediadesk.ui.dialogs.setup_editor")

__all__ = ["AdapterCheckDialog", "AdapterChecker"]

#: A screenshot's preview size in the report (it opens full size on its button).
SHOT_W, SHOT_H = 420, 300
_BAD = {"missing", "ambiguous", "covered", "invalid"}


def status_text(status: str) -> str:
    """A key's status in the operator's language."""
    return {
        "found": QCoreApplication.translate("AdapterCheckDialog", "found"),
        "missing": QCoreApplication.translate("AdapterCheckDialog", "missing"),
        "ambiguous": QCoreApplication.translate("AdapterCheckDialog", "ambiguous"),
        "covered": QCoreApplication.translate("AdapterCheckDialog", "covered"),
        "invalid": QCoreApplication.translate("AdapterCheckDialog", "invalid selector"),
        "not shown": QCoreApplication.translate("AdapterCheckDialog", "not shown"),
    }.get(status, status)


def progress_text(message: str) -> str:
    """A progress message of the check in the operator's language (details from the page or the
    browser are quoted as text)."""
    if message.startswith("opening "):
        return QCoreApplication.translate("AdapterCheckDialog", "Opening the site… {url}").format(
            url=printable(message.removeprefix("opening "), multiline=False)
        )
    if message.startswith("sending the test prompt"):
        return QCoreApplication.translate("AdapterCheckDialog", "Sending the test prompt…")
    if message.startswith("the page is not ready:"):
        return QCoreApplication.translate("AdapterCheckDialog", "The page is not ready: {why}").format(
            why=printable(message.removeprefix("the page is not ready:").strip(), multiline=False)
        )
    return QCoreApplication.translate("AdapterCheckDialog", "Browser: {message}").format(
        message=printable(message, multiline=False)
    )


def done_text(reason: str | None) -> str:
    if reason == "stream ended":
        return QCoreApplication.translate(
            "AdapterCheckDialog",
            "Completion decided by the site's own stream: it ended, then the answer stopped changing.",
        )
    if reason == "page settled":
        return QCoreApplication.translate(
            "AdapterCheckDialog",
            "Completion decided by the page: no stream was seen; the answer stopped changing for the "
            "adapter's settle_ms.",
        )
    if reason:
        return QCoreApplication.translate("AdapterCheckDialog", "Completion: {reason}").format(
            reason=printable(reason, multiline=False)
        )
    return QCoreApplication.translate("AdapterCheckDialog", "No answer: completion was not decided.")


class AdapterCheckDialog(QDialog):
    """Progress, then the report of one adapter check (non-modal; owned by the Setup editor)."""

    def __init__(self, account: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("adapterCheckDialog")
        self.setWindowTitle(self.tr("Adapter check — {account}").format(account=account))
        self.resize(900, 720)
        #: Opens a screenshot full size (the desktop's image viewer); replaceable in tests.
        self.opener: Callable[[QUrl], object] = QDesktopServices.openUrl
        self.progress = QPlainTextEdit(self)
        self.progress.setObjectName("checkProgress")
        self.progress.setReadOnly(True)
        self.progress.setMaximumHeight(110)
        self.summary = plain(QLabel(self))
        self.summary.setObjectName("checkSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.keys = QTableWidget(0, 4, self)
        self.keys.setObjectName("checkKeys")
        self.keys.setHorizontalHeaderLabels([self.tr("Key"), self.tr("Status"), self.tr("Selector"), self.tr("Seen")])
        self.keys.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.keys.verticalHeader().setVisible(False)
        self.keys.horizontalHeader().setStretchLastSection(True)
        for col in (0, 1):
            self.keys.horizontalHeader().setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.details = QPlainTextEdit(self)
        self.details.setObjectName("checkDetails")
        self.details.setReadOnly(True)
        self.details.setPlaceholderText(self.tr("how completion was decided, the answer, notes"))
        self.shots = QGridLayout()
        self.shot_labels: list[QLabel] = []
        self.shot_buttons: list[QPushButton] = []
        self.shot_paths: list[Path] = []
        close = QPushButton(self.tr("Close"), self)
        close.clicked.connect(self.close)
        lay = QVBoxLayout(self)
        lay.addWidget(self.progress)
        lay.addWidget(self.summary)
        lay.addWidget(self.keys, 2)
        lay.addWidget(self.details, 1)
        lay.addLayout(self.shots)
        lay.addWidget(close, 0, Qt.AlignmentFlag.AlignRight)

    def say(self, line: str) -> None:
        self.progress.appendPlainText(line)

    def fail(self, why: str) -> None:
        self.summary.setStyleSheet(ERROR_STYLE)
        self.summary.setText(why)

    def show_result(self, result: Any) -> None:
        """Fill the report from an ``AdapterCheckResult`` (page text shown as text)."""
        bad = [k for k in result.keys if k.status in _BAD]
        verdict = (
            self.tr("OK: the adapter fits the page.")
            if result.ok
            else self.tr("Not OK: {n} key(s) do not fit.").format(n=len(bad))
        )
        if result.error:
            verdict += " " + self.tr("Error: {error}").format(error=printable(result.error, multiline=False))
        where = self.tr("{site} on account {account} ({url})").format(
            site=printable(result.site, multiline=False),
            account=result.account or "?",
            url=printable(result.url, multiline=False),
        )
        self.summary.setStyleSheet("" if result.ok else ERROR_STYLE)
        self.summary.setText(f"{where}\n{verdict}")
        self.keys.setRowCount(len(result.keys))
        for row, k in enumerate(result.keys):
            cells = (
                k.key,
                status_text(k.status),
                printable(k.selector, multiline=False),
                printable(k.detail, multiline=False),
            )
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if col == 1:
                    item.setForeground(
                        QColor("#d32f2f")
                        if k.status in _BAD
                        else QColor("#2e7d32")
                        if k.status == "found"
                        else QColor("#757575")
                    )
                self.keys.setItem(row, col, item)
        lines = [done_text(result.done_reason)]
        if result.answer_source == "stream":
            lines.append(self.tr("Answer source: the site's own stream, read by the adapter's [stream] decoder"))
        elif result.answer_source is not None:
            lines.append(self.tr("Answer source: the page's answer element"))
        lines += [self.tr("network: {event}").format(event=printable(e, multiline=False)) for e in result.stream_events]
        lines += [self.tr("note: {note}").format(note=printable(n, multiline=False)) for n in result.notes]
        if result.prompt:
            lines.append(self.tr("test prompt: {prompt}").format(prompt=printable(result.prompt, multiline=False)))
        if result.answer is not None:
            lines.append(self.tr("answer ({n} chars):").format(n=len(result.answer)))
            lines.append(printable(result.answer))
        self.details.setPlainText("\n".join(lines))
        for i, path in enumerate(result.screenshots):
            self._add_shot(i, Path(path))

    def _add_shot(self, i: int, path: Path) -> None:
        label = plain(QLabel(self))
        label.setObjectName(f"checkShot{i}")
        pix = QPixmap(str(path))
        if pix.isNull():
            label.setText(self.tr("(the screenshot cannot be shown)"))
        else:
            label.setPixmap(
                pix.scaled(
                    SHOT_W, SHOT_H, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
                )
            )
        label.setToolTip(plain_tip(str(path)))
        button = QPushButton(self.tr("Open full size"), self)
        button.setObjectName(f"openShot{i}")
        button.clicked.connect(lambda _c=False, p=path: self.opener(QUrl.fromLocalFile(str(p))))
        self.shots.addWidget(label, 0, i)
        self.shots.addWidget(button, 1, i)
        self.shot_labels.append(label)
        self.shot_buttons.append(button)
        self.shot_paths.append(path)


class AdapterChecker:
    """Runs "Check adapter" on a section's current entry and shows its report in a dialog over
    ``parent``; the short verdict goes to the section's line in ``results``. Keeps the running tasks."""

    def __init__(
        self,
        setup: SetupContext,
        *,
        buttons: Mapping[Section, QWidget],
        results: Mapping[Section, QLabel],
        parent: QWidget,
        checked: Callable[[], None] = lambda: None,
    ) -> None:
        self.setup = setup
        #: Called when a check has ended (what it verified is shown anew).
        self.checked = checked
        self.buttons = buttons
        self.results = results
        self.parent = parent
        self.dialog: AdapterCheckDialog | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def account_for(self, cfg: AppConfig, section: Section, name: str) -> str | None:
        """The account whose profile to check on: the entry itself, or a web profile's first account."""
        if section == "accounts":
            return name
        return next((a.name for a in cfg.accounts if a.profile == name), None)

    def start(self, section: Section) -> asyncio.Task[None] | None:
        """Check the current entry's adapter; returns the task (tests await it)."""
        result = self.results[section]
        entry = self.setup.current_entry(section)
        if entry is None:
            return None
        cfg, errors, name = entry.cfg, entry.errors, entry.name
        say_error = self._say_error(result)
        if cfg is None:
            return say_error(
                QCoreApplication.translate("AdapterCheckDialog", "Fix the problems first: {first}").format(
                    first=errors[0].line
                )
            )
        if section == "profiles" and cfg.profile(name).kind != "web":
            return say_error(
                QCoreApplication.translate("AdapterCheckDialog", "Check adapter is for web profiles and their accounts")
            )
        account = self.account_for(cfg, section, name)
        if account is None:
            return say_error(
                QCoreApplication.translate(
                    "AdapterCheckDialog", "No account uses profile {name}: add one under Accounts to check its site"
                ).format(name=name)
            )
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return say_error(
                QCoreApplication.translate(
                    "AdapterCheckDialog", "Check adapter needs the console's event loop; open Setup from the console"
                )
            )
        if self.dialog is not None:
            self.dialog.close()
            self.dialog.deleteLater()
        self.dialog = dlg = AdapterCheckDialog(account, self.parent)
        dlg.show()
        dlg.say(
            QCoreApplication.translate("AdapterCheckDialog", "Checking the site adapter on account {account}…").format(
                account=account
            )
        )
        result.setStyleSheet("")
        result.setText(
            QCoreApplication.translate("AdapterCheckDialog", "Checking the adapter on {account}…").format(
                account=account
            )
        )
        self.buttons[section].setEnabled(False)
        task = loop.create_task(self._run(section, cfg, account, dlg))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    @staticmethod
    def _say_error(label: QLabel) -> Callable[[str], None]:
        def say(text: str) -> None:
            label.setStyleSheet(ERROR_STYLE)
            label.setText(text)

        return say

    async def _run(self, section: Section, cfg: AppConfig, account: str, dlg: AdapterCheckDialog) -> None:
        workspace = self.setup.workspace or Workspace.resolve(data_dir=cfg.data_dir)
        short: str
        ok = False
        try:
            res = await check_account(
                cfg,
                workspace,
                account,
                scheduler=self.setup.scheduler,
                say=lambda m: dlg.say(progress_text(m)),
                on_busy=lambda ids: dlg.say(
                    QCoreApplication.translate(
                        "AdapterCheckDialog",
                        "Account {account} is busy running task {ids}; the check waits until it has ended (the "
                        "account takes no new task meanwhile).",
                    ).format(account=account, ids=", ".join(ids))
                ),
            )
            dlg.show_result(res)
            dlg.say(QCoreApplication.translate("AdapterCheckDialog", "Done."))
            ok = res.ok
            short = (
                QCoreApplication.translate("AdapterCheckDialog", "Adapter check: OK")
                if ok
                else QCoreApplication.translate("AdapterCheckDialog", "Adapter check: not OK (see the report)")
            )
        except Exception as exc:  # a check never takes the window down
            log.warning("adapter check of %s failed: %s", account, exc)
            short = QCoreApplication.translate("AdapterCheckDialog", "Adapter check failed: {why}").format(
                why=printable(str(exc) or type(exc).__name__, multiline=False)
            )
            with contextlib.suppress(RuntimeError):
                dlg.fail(short)
        with contextlib.suppress(RuntimeError):  # the editor was closed meanwhile
            self.buttons[section].setEnabled(True)
            label = self.results[section]
            label.setStyleSheet("" if ok else ERROR_STYLE)
            label.setText(short)
            self.checked()

    def running(self) -> set[asyncio.Task[None]]:
        return set(self._tasks)
