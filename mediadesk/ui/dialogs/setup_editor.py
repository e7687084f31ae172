"""Setup in the window: endpoints, profiles and accounts of config.toml, edited in place.

Three lists (add / duplicate / remove) and a form per entry. Every change goes into a round-trip
document (:class:`mediadesk.config.edit.ConfigDoc`) at once and the WHOLE document is validated by
the real loader, whose messages show under the field they name (or above the form, for the entry as
a whole); Save is refused while any remains. The file stays the source of truth: Save writes it
keeping the operator's comments and order, and refuses to overwrite a file changed on disk meanwhile
unless the operator says so. With a running scheduler, what it can change live (API concurrency,
account on/off) is applied at once; the rest is listed as "applies at the next start".

"Test" (through :class:`mediadesk.scheduler.checks.Checks`): an endpoint (or an API profile) sends
one cheap request and shows the latency or the error; a web account opens its site in a real
Chromium on its own profile and says logged in or logged out.

This module is the dialog: its pages, queries and validation. The parts are in
:mod:`mediadesk.ui.dialogs.setup`: the field model (``fields``), the per-entry forms (``forms``),
the entry lists (``entries``), the Test runner (``tester``) and the write-through (``write_through``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from mediadesk.config.edit import ConfigDoc, FieldError, Section
from mediadesk.config.workspace import Workspace
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.ui.dialogs.setup.entries import EntryLists
from mediadesk.ui.dialogs.setup.fields import ERROR_STYLE, Field, field_error_line, field_error_text, site_choices
from mediadesk.ui.dialogs.setup.forms import _EntryForm, _SectionPage
from mediadesk.ui.dialogs.setup.tester import SetupTester, button_tip
from mediadesk.ui.dialogs.setup.write_through import SetupSaver
from mediadesk.ui.plain import plain

__all__ = ["SetupEditor", "site_choices"]


class SetupEditor(QDialog):
    """The Setup editor of one config file. ``scheduler`` (optional): the running console's, to
    apply live changes and test accounts through their running browser."""

    saved = Signal(object)  # the AppConfig now on disk

    def __init__(
        self,
        path: Path | str,
        *,
        workspace: Workspace | None = None,
        scheduler: Scheduler | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("setupEditor")
        self.path = Path(path)
        self.scheduler = scheduler
        self.workspace = workspace if workspace is not None else (scheduler.workspace if scheduler else None)
        self.doc = ConfigDoc.load(self.path)
        self.errors: list[FieldError] = []
        self.entries = EntryLists(self)
        self.tester = SetupTester(self)
        #: Saves; restart-needed changes are measured against what the running app uses.
        self.saver = SetupSaver(self, scheduler.config if scheduler is not None else self.doc.validate()[0])
        #: Asked before overwriting a file changed on disk: (message) -> overwrite?
        self.confirm_overwrite: Callable[[str], bool] = self._ask_overwrite
        #: Asked before closing with unsaved edits: () -> discard them?
        self.confirm_discard: Callable[[], bool] = self._ask_discard
        self.dirty = False
        self.setWindowTitle(self.tr("Setup — {path}").format(path=self.path))
        self.resize(980, 620)

        self.tabs = QTabWidget(self)
        self.pages: dict[Section, _SectionPage] = {}
        self._build_pages()
        self.save_btn = QPushButton(self.tr("Save"), self)
        self.save_btn.setObjectName("saveButton")
        self.save_btn.clicked.connect(self.save)
        self.close_btn = QPushButton(self.tr("Close"), self)
        self.close_btn.clicked.connect(self.close)
        self.status = plain(QLabel(self))
        self.status.setObjectName("setupStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.save_btn)
        bottom.addWidget(self.close_btn)
        lay = QVBoxLayout(self)
        lay.addWidget(self.tabs, 1)
        lay.addLayout(bottom)
        for section in self.pages:
            self._reload_list(section)
        self._revalidate()

    # ------------------------------------------------------------------ building
    def _build_pages(self) -> None:
        tr = self.tr
        endpoint_fields = [
            Field("name", "str", tr("Name")),
            Field("base_url", "str", tr("Base URL")),
            Field("api_key_env", "str", tr("API key variable")),
            Field("api_key_keyring", "str", tr("API key keyring entry")),
            Field("concurrency", "num", tr("Concurrency"), 3),
            Field("rpm", "num", tr("Requests per minute"), 0),
            Field("adaptive", "bool", tr("Adaptive"), True),
        ]
        profile_fields = [
            Field("name", "str", tr("Name")),
            Field("kind", "choice", tr("Kind"), choices=("api", "web")),
            Field("endpoint", "endpoint", tr("Endpoint"), only="api"),
            Field("base_url", "str", tr("Base URL"), only="api"),
            Field("api_key_env", "str", tr("API key variable"), only="api"),
            Field("model", "str", tr("Model"), only="api"),
            Field("concurrency", "num", tr("Concurrency"), 3, only="api"),
            Field("stream", "bool", tr("Stream"), False, only="api"),
            Field("max_answer_chars", "num", tr("Longest answer (chars)"), 200_000, only="api"),
            Field("site", "site", tr("Site"), only="web"),
            Field("url", "str", tr("Chat URL"), only="web"),
            Field("instructions", "str", tr("Instructions")),
            Field("need_empty_prompt", "bool", tr("Needs an empty prompt"), False),
            Field("timeout_s", "num", tr("Timeout (s)"), 60.0),
            Field("max_run_s", "num", tr("Longest run (s)")),
            Field("max_wait_s", "num", tr("Longest wait (s)")),
            Field("max_pending", "num", tr("Most pending tasks")),
            Field("fallback", "list", tr("Fallback profiles")),
            Field("rule_reply", "str", tr("Rule reply")),
            Field("active_hours", "str", tr("Active hours (e.g. 22:00-07:00)")),
        ]
        account_fields = [
            Field("name", "str", tr("Name")),
            Field("profile", "profile", tr("Web profile")),
            Field("enabled", "bool", tr("Enabled"), True),
            Field("profile_dir", "str", tr("Browser profile folder")),
            Field("login_user_env", "str", tr("Login user variable")),
            Field("login_password_env", "str", tr("Login password variable")),
            Field("login_user_keyring", "str", tr("Login user keyring entry")),
            Field("login_password_keyring", "str", tr("Login password keyring entry")),
            Field("login_cooldown_s", "num", tr("Login cooldown (s)"), 600.0),
            Field("active_hours", "str", tr("Active hours (e.g. 22:00-07:00)")),
        ]
        titles = {"endpoints": tr("Endpoints"), "profiles": tr("Profiles"), "accounts": tr("Accounts")}
        for section, fields in (("endpoints", endpoint_fields), ("profiles", profile_fields),
                                ("accounts", account_fields)):
            form = _EntryForm(fields, self)
            form.setObjectName(f"{section}Form")
            page = _SectionPage(section, form, self)  # type: ignore[arg-type]
            self.pages[section] = page  # type: ignore[index]
            self.tabs.addTab(page, titles[section])
            form.changed.connect(lambda key, value, s=section: self._field_changed(s, key, value))
            page.list.currentRowChanged.connect(lambda _row, s=section: self._show_entry(s))
            page.add_btn.clicked.connect(lambda _=False, s=section: self.add_entry(s))
            page.dup_btn.clicked.connect(lambda _=False, s=section: self.duplicate_entry(s))
            page.remove_btn.clicked.connect(lambda _=False, s=section: self.remove_entry(s))
        # Test buttons and their result lines
        self.test_results: dict[Section, QLabel] = {}
        self.test_buttons: dict[Section, QPushButton] = {}
        for section, label in (("endpoints", tr("Test")), ("profiles", tr("Test")), ("accounts", tr("Test"))):
            form = self.pages[section].form  # type: ignore[index]
            btn = QPushButton(label, form)
            btn.setObjectName(f"{section}Test")
            btn.setToolTip(button_tip(section))  # type: ignore[arg-type]
            result = plain(QLabel(form))  # a test quotes the server
            result.setObjectName(f"{section}TestResult")
            result.setWordWrap(True)
            form.buttons.addWidget(btn)
            form.buttons.addWidget(result, 1)
            btn.clicked.connect(lambda _=False, s=section: self.test_current(s))
            self.test_buttons[section] = btn  # type: ignore[index]
            self.test_results[section] = result  # type: ignore[index]

    # ------------------------------------------------------------------ queries (tests, callers)
    def page(self, section: Section) -> _SectionPage:
        return self.pages[section]

    def current_index(self, section: Section) -> int:
        return self.pages[section].list.currentRow()

    def select(self, section: Section, name_or_index: str | int) -> None:
        idx = name_or_index if isinstance(name_or_index, int) else self.doc.index_of(section, name_or_index)
        self.tabs.setCurrentWidget(self.pages[section])
        self.pages[section].list.setCurrentRow(idx)

    def field(self, section: Section, key: str) -> QWidget:
        return self.pages[section].form.editors[key]

    def error_text(self, section: Section, key: str | None = None) -> str:
        form = self.pages[section].form
        label = form.entry_error if key is None else form.error_labels[key]
        return label.text() if label.isVisibleTo(form) else ""

    def set_field(self, section: Section, key: str, value: str | bool) -> None:
        """Type ``value`` into a field as an operator would (then leave it)."""
        editor = self.field(section, key)
        if isinstance(editor, QCheckBox):
            editor.setChecked(bool(value))
        elif isinstance(editor, QComboBox):
            if editor.isEditable():
                editor.setEditText(str(value))
                line = editor.lineEdit()
                assert line is not None
                line.editingFinished.emit()
            else:
                editor.setCurrentIndex(editor.findText(str(value)))
        elif isinstance(editor, QLineEdit):
            editor.setText(str(value))
            editor.editingFinished.emit()

    # ------------------------------------------------------------------ editing
    def _reload_list(self, section: Section, select: int | None = None) -> None:
        self.entries.reload_list(section, select)

    def _show_entry(self, section: Section) -> None:
        self.entries.show_entry(section)

    def _field_changed(self, section: Section, key: str, value: Any) -> None:
        self.entries.field_changed(section, key, value)

    def add_entry(self, section: Section) -> int:
        return self.entries.add_entry(section)

    def duplicate_entry(self, section: Section) -> int:
        return self.entries.duplicate_entry(section)

    def remove_entry(self, section: Section) -> None:
        self.entries.remove_entry(section)

    # ------------------------------------------------------------------ validation
    def _revalidate(self) -> None:
        _cfg, self.errors = self.doc.validate()
        self._show_errors()
        self.save_btn.setEnabled(not self.errors)
        if self.errors:
            self.status.setStyleSheet(ERROR_STYLE)
            self.status.setText(self.tr("{n} problem(s); Save is off until they are fixed. {first}").format(
                n=len(self.errors), first=field_error_line(self.errors[0])))
        else:
            self.status.setStyleSheet("")
            self.status.setText(self.tr("Unsaved changes.") if self.dirty else "")

    def _show_errors(self) -> None:
        for section, page in self.pages.items():
            idx = page.list.currentRow()
            page.form.show_errors([e for e in self.errors if e.section == section and e.index == idx])
            bad = {e.index for e in self.errors if e.section == section}
            for row in range(page.list.count()):
                item = page.list.item(row)
                item.setForeground(Qt.GlobalColor.red if row in bad else self.palette().text().color())
                item.setToolTip("\n".join(field_error_text(e) for e in self.errors
                                          if e.section == section and e.index == row))

    # ------------------------------------------------------------------ saving
    def _ask_overwrite(self, message: str) -> bool:
        return self.saver.ask_overwrite(message)

    def _ask_discard(self) -> bool:
        return self.saver.ask_discard()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.dirty and not self.confirm_discard():
            event.ignore()
            return
        super().closeEvent(event)

    def save(self) -> bool:
        """Write the file (:meth:`SetupSaver.save <mediadesk.ui.dialogs.setup.write_through.SetupSaver.save>`);
        False (nothing written) when refused."""
        return self.saver.save()

    # ------------------------------------------------------------------ testing
    def test_current(self, section: Section) -> asyncio.Task[None] | None:
        """Start the current entry's test on the running asyncio loop; its result shows beside the
        button. Returns the task (tests await it)."""
        return self.tester.test_current(section)

    def running_tests(self) -> set[asyncio.Task[None]]:
        return self.tester.running_tests()
