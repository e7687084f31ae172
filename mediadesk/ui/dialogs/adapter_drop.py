"""A site adapter file (``.toml``) dropped on the console: validated by the adapter loader (its problems
shown in words naming the key, no traceback), checked on the account the operator picks (or none) with
that very file, then installed in the user sites folder: at once when the check passes, or when the
operator chooses "Install anyway" after seeing the result. An existing file is replaced only after a
yes; the file is written private and atomically, never through a symbolic link
(:mod:`mediadesk.scheduler.adapter_install`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from mediadesk.core.text import printable
from mediadesk.files.safe import UnsafePathError
from mediadesk.scheduler.adapter_check import check_adapter
from mediadesk.scheduler.adapter_install import (
    AdapterExistsError,
    AdapterFile,
    AdapterFileError,
    install_adapter,
    read_adapter_file,
    user_sites_dir,
)
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.ui.dialogs.setup.adapter_checker import AdapterCheckDialog, progress_text, status_text
from mediadesk.ui.dialogs.setup.fields import ERROR_STYLE
from mediadesk.ui.plain import plain

log = logging.getLogger(__name__)

__all__ = ["ADAPTER_SUFFIXES", "AdapterDropDialog", "open_adapter_file"]

#: A dropped file with this suffix is a site adapter.
ADAPTER_SUFFIXES = (".toml",)
_BAD = {"missing", "ambiguous", "covered", "invalid"}


def open_adapter_file(scheduler: Scheduler, path: Path, parent: QWidget) -> QDialog | QMessageBox:
    """Validate ``path``; a file with problems gets a message naming them, a valid one the dialog that
    checks and installs it. Either is shown (non-modal) and returned."""
    try:
        adapter = read_adapter_file(path)
    except AdapterFileError as exc:
        lines = "\n".join("• " + printable(p) for p in exc.problems)
        box = plain(QMessageBox(
            QMessageBox.Icon.Warning, QCoreApplication.translate("AdapterDropDialog", "Site adapter"),
            QCoreApplication.translate(
                "AdapterDropDialog", "{file} is not a usable site adapter, so nothing was installed:\n{problems}"
            ).format(file=printable(str(path)), problems=lines),
            QMessageBox.StandardButton.Close, parent))
        box.setObjectName("adapterFileProblems")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.open()
        return box
    dlg = AdapterDropDialog(scheduler, adapter, parent)
    dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
    dlg.show()
    return dlg


class AdapterDropDialog(QDialog):
    """Check a valid adapter file on an account, then install it (see the module docstring)."""

    def __init__(self, scheduler: Scheduler, adapter: AdapterFile, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("adapterDropDialog")
        self.setWindowTitle(self.tr("Site adapter — {name}").format(name=adapter.name))
        self.resize(720, 460)
        self.scheduler = scheduler
        self.adapter = adapter
        self.task: asyncio.Task[None] | None = None
        #: Where it was installed (None: not yet).
        self.installed: Path | None = None
        #: The last check's result (an ``AdapterCheckResult``) and its account, for the full report.
        self.result: Any = None
        self.checked_on = ""
        #: Whether the last check passed (None: no check ran to its end).
        self.check_ok: bool | None = None
        self.report: AdapterCheckDialog | None = None
        #: Asked before an existing file is replaced: (its path) -> replace it? Replaceable (tests).
        self.confirm_replace: Callable[[Path], bool] = self._ask_replace
        cfg = scheduler.config
        folder = user_sites_dir(cfg, scheduler.workspace)
        about = [self.tr("{file} is a valid site adapter: {name}, version {version}.").format(
            file=printable(str(adapter.path)), name=adapter.name, version=adapter.version or self.tr("none"))]
        if adapter.overrides_builtin:
            about.append(self.tr("Installed, it replaces the bundled adapter of that name."))
        about.append(self.tr("It is installed in {folder}; profiles naming site {name} use it from their lanes' "
                             "next start.").format(folder=printable(str(folder)), name=adapter.name))
        self.about = plain(QLabel("\n".join(about), self))
        self.about.setObjectName("adapterAbout")
        self.about.setWordWrap(True)
        self.about.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.account = QComboBox(self)
        self.account.setObjectName("adapterAccount")
        for a in cfg.accounts:
            if cfg.profile(a.profile).kind == "web":
                self.account.addItem(a.name, a.name)
        self.account.addItem(self.tr("None: install without a check"), None)
        self.account.currentIndexChanged.connect(lambda _i: self._name_go())
        form = QFormLayout()
        form.addRow(self.tr("Check it on account:"), self.account)
        self.progress = QPlainTextEdit(self)
        self.progress.setObjectName("adapterDropProgress")
        self.progress.setReadOnly(True)
        self.summary = plain(QLabel(self))
        self.summary.setObjectName("adapterDropSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.go_button = QPushButton(self)
        self.go_button.setObjectName("adapterCheckInstall")
        self.go_button.setDefault(True)
        self.go_button.clicked.connect(self.go)
        self.install_anyway = QPushButton(self.tr("Install anyway"), self)
        self.install_anyway.setObjectName("adapterInstallAnyway")
        self.install_anyway.setVisible(False)
        self.install_anyway.clicked.connect(lambda _c=False: self.install())
        self.report_button = QPushButton(self.tr("Show the report"), self)
        self.report_button.setObjectName("adapterShowReport")
        self.report_button.setVisible(False)
        self.report_button.clicked.connect(lambda _c=False: self.show_report())
        close = QPushButton(self.tr("Close"), self)
        close.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addWidget(self.report_button)
        buttons.addStretch(1)
        for b in (self.go_button, self.install_anyway, close):
            buttons.addWidget(b)
        lay = QVBoxLayout(self)
        lay.addWidget(self.about)
        lay.addLayout(form)
        lay.addWidget(self.progress, 1)
        lay.addWidget(self.summary)
        lay.addLayout(buttons)
        self._name_go()

    def _name_go(self) -> None:
        checked = self.account.currentData() is not None
        self.go_button.setText(self.tr("Check, then install") if checked else self.tr("Install without a check"))

    # ------------------------------------------------------------------ check, then install
    def go(self) -> asyncio.Task[None] | None:
        """Check on the chosen account (returns the task; tests await it), or install at once."""
        account = self.account.currentData()
        if account is None:
            self.install()
            return None
        if self.task is not None and not self.task.done():
            return self.task
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._show(self.tr("The check needs the console's event loop"), error=True)
            return None
        self.go_button.setEnabled(False)
        self.account.setEnabled(False)
        self.install_anyway.setVisible(False)
        self.report_button.setVisible(False)
        self.progress.appendPlainText(self.tr("Checking {name} on account {account}…").format(
            name=self.adapter.name, account=account))
        self._show(self.tr("Checking on {account}: waiting for its browser and the test prompt's answer…").format(
            account=account))
        self.task = loop.create_task(self._check(str(account)), name=f"adapter-drop:{account}")
        return self.task

    async def _check(self, account: str) -> None:
        s = self.scheduler
        try:
            res = await check_adapter(s.config, s.workspace, str(self.adapter.path), account=account,
                                      say=lambda m: self.progress.appendPlainText(progress_text(m)))
        except Exception as exc:  # the reason is shown; the operator may still install
            log.warning("adapter check of %s on %s failed: %s", self.adapter.path, account, exc)
            with contextlib.suppress(RuntimeError):
                self._checked(self.tr("The check could not run: {why}").format(
                    why=printable(str(exc) or type(exc).__name__, multiline=False)), ok=False)
            return
        with contextlib.suppress(RuntimeError):  # the dialog was closed meanwhile
            self.result, self.checked_on = res, account
            self.report_button.setVisible(True)
            if res.ok:
                self._checked(self.tr("OK: the adapter fits the page."), ok=True)
                self.install()
                return
            bad = [f"{k.key}: {status_text(k.status)}" for k in res.keys if k.status in _BAD]
            why = [self.tr("Not OK: {n} key(s) do not fit.").format(n=len(bad)), *bad]
            if res.error:
                why.append(self.tr("Error: {error}").format(error=printable(res.error, multiline=False)))
            self._checked("\n".join(why), ok=False)

    def _checked(self, text: str, *, ok: bool) -> None:
        self.check_ok = ok
        self.progress.appendPlainText(self.tr("Done."))
        self.go_button.setEnabled(True)
        self.account.setEnabled(True)
        self.install_anyway.setVisible(not ok)
        self._show(text if ok else text + "\n" + self.tr("Fix the file and drop it again, or install it anyway."),
                   error=not ok)

    def install(self) -> Path | None:
        """Install the file; a file of that name already there is replaced only after a yes."""
        s = self.scheduler
        try:
            try:
                target = install_adapter(s.config, s.workspace, self.adapter)
            except AdapterExistsError as exc:
                if not self.confirm_replace(exc.target):
                    self._show(self.tr("Not installed: {path} is kept as it is.").format(
                        path=printable(str(exc.target))), error=True)
                    return None
                target = install_adapter(s.config, s.workspace, self.adapter, replace=True)
        except (UnsafePathError, OSError) as exc:
            self._show(self.tr("Not installed: {why}").format(why=printable(str(exc))), error=True)
            return None
        self.installed = target
        self.install_anyway.setVisible(False)
        self.go_button.setEnabled(False)
        path = printable(str(target))
        if self.check_ok:
            self._show(self.tr("OK: the adapter fits the page.") + "\n" + self.tr("Installed as {path}.").format(
                path=path))
        elif self.check_ok is None:
            self._show(self.tr("Installed as {path}, without a check.").format(path=path))
        else:
            self._show(self.tr("Installed anyway as {path}; the check did not pass.").format(path=path))
        return target

    def _ask_replace(self, target: Path) -> bool:
        box = plain(QMessageBox(QMessageBox.Icon.Question, self.tr("Replace the adapter?"),
                                self.tr("{path} exists. Replace it with the dropped file?").format(
                                    path=printable(str(target))),
                                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self))
        box.setDefaultButton(QMessageBox.StandardButton.No)
        return box.exec() == QMessageBox.StandardButton.Yes

    def show_report(self) -> AdapterCheckDialog | None:
        """The last check's full report (each key, the screenshots)."""
        if self.result is None:
            return None
        if self.report is not None:
            self.report.close()
            self.report.deleteLater()
        self.report = AdapterCheckDialog(self.checked_on, self)
        self.report.show_result(self.result)
        self.report.show()
        return self.report

    def _show(self, text: str, *, error: bool = False) -> None:
        self.summary.setStyleSheet(ERROR_STYLE if error else "")
        self.summary.setText(text)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
        super().closeEvent(event)
