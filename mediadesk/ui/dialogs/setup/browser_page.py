"""The Setup editor's Browser tab: which browser the web lane drives (found on this computer, or set in
the config as ``[browser] executable``: its name, path and where it came from), and a Browse… button to
choose one. A chosen program is written to the config only once checked: an executable file whose
version names a Chromium-family browser, asked in a worker thread (bounded), so the window never waits.

The class name is the translation context of its texts (resources/i18n): keep it.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from mediadesk.config.edit import ConfigDoc
from mediadesk.config.model import ConfigError
from mediadesk.platform.browsers import bundle_program
from mediadesk.scheduler.browser_choice import BrowserInUse, ProgramIdentity, browser_in_use, identify_program
from mediadesk.ui.dialogs.setup.fields import ERROR_STYLE
from mediadesk.ui.jobs.workers import TaskJobs
from mediadesk.ui.plain import plain

__all__ = ["BrowserPage"]


class BrowserPage(QWidget):
    """The browser in use and the ``[browser] executable`` of ``doc``; ``edited()`` after a change."""

    def __init__(self, doc: ConfigDoc, *, edited: Callable[[], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self._edited = edited
        self._jobs = TaskJobs(owner=self)
        self.found = plain(QLabel(self))  # paths and the finder's words, shown as they are
        self.found.setObjectName("browserFound")
        self.found.setWordWrap(True)
        self.found.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.path_edit = QLineEdit(self)
        self.path_edit.setObjectName("browserExecutable")
        self.path_edit.setPlaceholderText(self.tr("empty: the browser found on this computer"))
        self.browse_btn = QPushButton(self.tr("Browse…"), self)
        self.browse_btn.setObjectName("browserBrowse")
        self.browse_btn.setToolTip(self.tr("Choose the browser's program (Google Chrome, Microsoft Edge, Chromium "
                                           "or Brave); it is checked before it is used"))
        self.check = plain(QLabel(self))
        self.check.setObjectName("browserCheck")
        self.check.setWordWrap(True)
        note = QLabel(self.tr("The web accounts run in a Chromium-family browser: Google Chrome, Microsoft Edge, "
                              "Chromium or Brave. Leave the program empty to use the one found here."), self)
        note.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.path_edit, 1)
        row.addWidget(self.browse_btn)
        form = QFormLayout(self)
        form.addRow(note)
        form.addRow(self.tr("In use"), self.found)
        form.addRow(self.tr("Browser program"), row)
        form.addRow("", self.check)
        self.path_edit.editingFinished.connect(lambda: self.choose(self.path_edit.text()))
        self.browse_btn.clicked.connect(self._browse)
        self.path_edit.setText(self._configured() or "")
        self.show_found()

    def _configured(self) -> str | None:
        """``[browser] executable`` as written (None when unset, or the file does not parse)."""
        try:
            browser = self.doc.data().get("browser")
        except ValueError:  # invalid TOML: the editor says so
            return None
        value = browser.get("executable") if isinstance(browser, dict) else None
        return str(value) if value else None

    def _resolved(self, text: str) -> Path:
        """A path as the loader reads it: ``~`` expanded, a relative one from the config's folder."""
        path = Path(text).expanduser()
        return path if path.is_absolute() else self.doc.path.parent.resolve() / path

    def show_found(self) -> None:
        """Which browser the web lane would use with the setup as edited: name, path, where it came from."""
        configured = self._configured()
        info = browser_in_use(self._resolved(configured) if configured else None)
        self.found.setStyleSheet("" if info.path is not None else ERROR_STYLE)
        self.found.setText(self._found_text(info) if info.path is not None else info.problem)

    def _found_text(self, info: BrowserInUse) -> str:
        if info.source == "configured":
            return self.tr("{path} (set here: [browser] executable)").format(path=info.path)
        if info.source == "playwright":
            return self.tr("Playwright's Chromium: {path}").format(path=info.path)
        return self.tr("{name}: {path} (found in {where})").format(
            name=info.name or "Chromium", path=info.path, where=info.where or "")

    def _browse(self) -> None:
        start = self.path_edit.text().strip() or str(self._found_folder() or "")
        chosen, _filter = QFileDialog.getOpenFileName(self, self.tr("Choose the browser's program"), start)
        if chosen:
            self.choose(chosen)

    def _found_folder(self) -> Path | None:
        """Where the browser found on this computer is (the file dialog opens there)."""
        path = browser_in_use(None).path
        return path.parent if path is not None else None

    def choose(self, text: str) -> asyncio.Task[Any] | None:
        """Use the program at ``text`` (what Browse… and a typed path give; empty: the browser found here).
        Refused in words unless it is an executable file whose version names a Chromium-family browser,
        asked in a worker thread; the config changes only then. Returns the check's task."""
        text = text.strip()
        if not text:
            self._use(None)
            self.check.setText("")
            return None
        path = bundle_program(self._resolved(text))  # a macOS .app means the program inside it
        if not path.is_file():
            self._refuse(self.tr("{path} is not a file: choose the browser's program itself.").format(path=path))
            return None
        if not os.access(path, os.X_OK):
            self._refuse(self.tr("{path} is not an executable program: choose the browser's program, not a "
                                 "shortcut or a document.").format(path=path))
            return None
        self.check.setStyleSheet("")
        self.check.setText(self.tr("Checking {path}…").format(path=path))
        self.browse_btn.setEnabled(False)
        try:
            return self._jobs.in_thread(lambda: identify_program(path), "browser check",
                                        on_result=lambda said: self._checked(path, said),
                                        on_error=lambda _exc: self._checked(path, ProgramIdentity(None, False)))
        except RuntimeError:  # no asyncio loop runs the window (not the console): nothing to check on
            self.browse_btn.setEnabled(True)
            self._refuse(self.tr("Checking a browser needs the console's event loop; open Setup from the console."))
            return None

    def _checked(self, path: Path, said: ProgramIdentity) -> None:
        self.browse_btn.setEnabled(True)
        if said.version is None:
            self._refuse(self.tr("{path} did not say which browser it is: not a Chromium-family browser "
                                 "MediaDesk can drive.").format(path=path))
        elif not said.chromium:
            self._refuse(self.tr("{path} is {version}, not a Chromium-family browser: choose Google Chrome, "
                                 "Microsoft Edge, Chromium or Brave.").format(path=path, version=said.version))
        elif self._use(str(path)):
            self.check.setStyleSheet("")
            self.check.setText(self.tr("{version}: the web accounts use it once saved.").format(
                version=said.version))

    def _refuse(self, text: str) -> None:
        self.check.setStyleSheet(ERROR_STYLE)
        self.check.setText(text)
        self.path_edit.setText(self._configured() or "")  # what is in effect, not the refused path

    def _use(self, value: str | None) -> bool:
        """Write ``[browser] executable`` (None: remove it); False (and said) when the file's [browser] is not
        a table this editor can change."""
        if value != self._configured():
            try:
                self.doc.set_setting("browser", "executable", value)
            except ConfigError as exc:
                self._refuse(str(exc))
                return False
            self._edited()
        self.path_edit.setText(value or "")
        self.show_found()
        return True
