"""Setup in the window: endpoints, profiles and accounts of config.toml, edited in place.

Three lists and a form per entry over a round-trip document (:class:`mediadesk.config.edit.ConfigDoc`),
validated whole by the real loader after every change; its messages show under the field they name and
Save is refused while any remains. With a running scheduler the editor shows the values in effect,
applies at once what can change live and offers "Restart lanes" for the rest. This module is the
dialog (its pages, queries and validation); its parts, each built here with what it needs, are in
:mod:`mediadesk.ui.dialogs.setup`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from mediadesk.config.edit import ConfigDoc, FieldError, Section
from mediadesk.config.model import AppConfig
from mediadesk.config.workspace import Workspace
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.ui.dialogs.account_check import verified_line
from mediadesk.ui.dialogs.setup.adapter_checker import AdapterChecker
from mediadesk.ui.dialogs.setup.browser_page import BrowserPage
from mediadesk.ui.dialogs.setup.context import SetupContext
from mediadesk.ui.dialogs.setup.entries import EntryLists
from mediadesk.ui.dialogs.setup.fields import ERROR_STYLE, Field, field_error_line, field_error_text, site_choices
from mediadesk.ui.dialogs.setup.forms import _EntryForm, _SectionPage
from mediadesk.ui.dialogs.setup.in_effect import take_values_in_effect
from mediadesk.ui.dialogs.setup.tester import SetupTester, button_tip
from mediadesk.ui.dialogs.setup.write_through import SetupSaver
from mediadesk.ui.plain import plain

__all__ = ["SetupEditor", "site_choices"]


class SetupEditor(QDialog):
    """The Setup editor of one config file. ``scheduler`` (optional): the running console's, to
    apply live changes and test accounts through their running browser."""

    saved = Signal(object)  # the AppConfig now on disk
    #: "Restart lanes" was clicked: the window restarts them from the saved file.
    restart_lanes = Signal()

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
        #: What the console changed without the file (now shown, and written by Save).
        self.in_effect = take_values_in_effect(self.doc, scheduler) if scheduler is not None else []
        #: The window can restart the lanes from the saved file (it connects :attr:`restart_lanes`).
        self.can_restart_lanes = False
        self.errors: list[FieldError] = []
        # restart-needed changes are measured against what the running app uses
        baseline = scheduler.config if scheduler is not None else self.doc.validate()[0]
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
        self.close_btn = QPushButton(self.tr("Close"), self)
        self.close_btn.clicked.connect(self.close)
        self.restart_button = QPushButton(self.tr("Restart lanes"), self)
        self.restart_button.setObjectName("restartLanes")
        self.restart_button.setToolTip(self.tr(
            "Stop the lanes (running tasks go back to the queue uncharged), start them again from the saved "
            "setup, and resume"))
        self.restart_button.setVisible(False)
        self.restart_button.clicked.connect(self._restart_clicked)
        self.status = plain(QLabel(self))
        self.status.setObjectName("setupStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.restart_button)
        bottom.addWidget(self.save_btn)
        bottom.addWidget(self.close_btn)
        lay = QVBoxLayout(self)
        lay.addWidget(self.tabs, 1)
        lay.addLayout(bottom)

        self.entries = EntryLists(
            self.doc, self.pages, test_buttons=self.test_buttons, test_results=self.test_results,
            workspace=self.workspace, config_dir=self.path.parent, show_errors=self._show_errors,
            edited=self._edited)
        setup = SetupContext(self.doc, self.entries.current_index, self.workspace, scheduler)
        self.tester = SetupTester(setup, buttons=self.test_buttons, results=self.test_results)
        self.checker = AdapterChecker(setup, buttons=self.check_buttons, results=self.test_results, parent=self,
                                      checked=self._show_verified)
        self.saver = SetupSaver(
            self.doc, baseline=baseline, scheduler=scheduler, status=self.status, offer_restart=self._offer_restart,
            revalidate=self._revalidate, saved=self._saved, parent=self)
        self._connect()
        for section in self.pages:
            self.entries.reload_list(section)
        self._revalidate()
        if self.in_effect and not self.errors:
            self.status.setText(self.tr(
                "Showing the values in effect, changed in the console since the file was written: {what}. "
                "Save writes them to the file.").format(what=", ".join(self.in_effect)))

    def _restart_clicked(self) -> None:
        if self.dirty and not self.saver.save():
            return
        self.restart_button.setVisible(False)
        self.restart_lanes.emit()

    # ------------------------------------------------------------------ building
    def _build_pages(self) -> None:
        endpoint_fields = [
            Field("name", "str", self.tr("Name")),
            Field("base_url", "str", self.tr("Base URL")),
            Field("api_key_env", "str", self.tr("API key variable")),
            Field("api_key_keyring", "str", self.tr("API key keyring entry")),
            Field("concurrency", "num", self.tr("Concurrency"), 3),
            Field("rpm", "num", self.tr("Requests per minute"), 0),
            Field("adaptive", "bool", self.tr("Adaptive"), True),
        ]
        profile_fields = [
            Field("name", "str", self.tr("Name")),
            Field("kind", "choice", self.tr("Kind"), choices=("api", "web")),
            Field("endpoint", "endpoint", self.tr("Endpoint"), only="api"),
            Field("base_url", "str", self.tr("Base URL"), only="api"),
            Field("api_key_env", "str", self.tr("API key variable"), only="api"),
            Field("model", "str", self.tr("Model"), only="api"),
            Field("concurrency", "num", self.tr("Concurrency"), 3, only="api"),
            Field("stream", "bool", self.tr("Stream"), False, only="api"),
            Field("max_answer_chars", "num", self.tr("Longest answer (chars)"), 200_000, only="api"),
            Field("site", "site", self.tr("Site"), only="web"),
            Field("url", "str", self.tr("Chat URL"), only="web"),
            Field("instructions", "str", self.tr("Instructions")),
            Field("need_empty_prompt", "bool", self.tr("Needs an empty prompt"), False),
            Field("timeout_s", "num", self.tr("Timeout (s)"), 60.0),
            Field("max_run_s", "num", self.tr("Longest run (s)")),
            Field("max_wait_s", "num", self.tr("Longest wait (s)")),
            Field("max_pending", "num", self.tr("Most pending tasks")),
            Field("fallback", "list", self.tr("Fallback profiles")),
            Field("rule_reply", "str", self.tr("Rule reply")),
            Field("active_hours", "str", self.tr("Active hours (e.g. 22:00-07:00)")),
        ]
        account_fields = [
            Field("name", "str", self.tr("Name")),
            Field("profile", "profile", self.tr("Web profile")),
            Field("enabled", "bool", self.tr("Enabled"), True),
            Field("profile_dir", "str", self.tr("Browser profile folder")),
            Field("login_user_env", "str", self.tr("Login user variable")),
            Field("login_password_env", "str", self.tr("Login password variable")),
            Field("login_user_keyring", "str", self.tr("Login user keyring entry")),
            Field("login_password_keyring", "str", self.tr("Login password keyring entry")),
            Field("login_cooldown_s", "num", self.tr("Login cooldown (s)"), 600.0),
            Field("active_hours", "str", self.tr("Active hours (e.g. 22:00-07:00)")),
        ]
        titles = {"endpoints": self.tr("Endpoints"), "profiles": self.tr("Profiles"), "accounts": self.tr("Accounts")}
        for section, fields in (("endpoints", endpoint_fields), ("profiles", profile_fields),
                                ("accounts", account_fields)):
            form = _EntryForm(fields, self)
            form.setObjectName(f"{section}Form")
            page = _SectionPage(section, form, self)  # type: ignore[arg-type]
            self.pages[section] = page  # type: ignore[index]
            self.tabs.addTab(page, titles[section])
        #: Which browser the web accounts use, and Browse… to choose it ([browser] executable)
        self.browser = BrowserPage(self.doc, edited=self._edited, parent=self)
        self.browser.setObjectName("browserPage")
        self.tabs.addTab(self.browser, self.tr("Browser"))
        # Test buttons and their result lines
        self.test_results: dict[Section, QLabel] = {}
        self.test_buttons: dict[Section, QPushButton] = {}
        test = self.tr("Test")
        for section, label in (("endpoints", test), ("profiles", test), ("accounts", test)):
            form = self.pages[section].form  # type: ignore[index]
            btn = QPushButton(label, form)
            btn.setObjectName(f"{section}Test")
            btn.setToolTip(button_tip(section))  # type: ignore[arg-type]
            result = plain(QLabel(form))  # a test quotes the server
            result.setObjectName(f"{section}TestResult")
            result.setWordWrap(True)
            form.buttons.addWidget(btn)
            form.buttons.addWidget(result, 1)
            self.test_buttons[section] = btn  # type: ignore[index]
            self.test_results[section] = result  # type: ignore[index]
        # "Check adapter" on web accounts and web profiles: the site adapter on the account's profile
        self.check_buttons: dict[Section, QPushButton] = {}
        for section in ("profiles", "accounts"):
            form = self.pages[section].form  # type: ignore[index]
            check = QPushButton(self.tr("Check adapter"), form)
            check.setObjectName(f"{section}CheckAdapter")
            check.setToolTip(self.tr("Opens the site on the account's profile in Chromium, reports each adapter "
                                     "key (found, missing, covered...) with an outlined screenshot, then sends one "
                                     "test prompt and shows how completion was decided"))
            form.buttons.insertWidget(1, check)
            self.check_buttons[section] = check  # type: ignore[index]
        # a web account's adapter, its version, and whether this operator verified it on the live site
        self.verified_label = plain(QLabel(self.pages["accounts"].form))
        self.verified_label.setObjectName("accountsVerified")
        self.verified_label.setWordWrap(True)
        self.verified_label.setToolTip(self.tr("The bundled adapters are written from public descriptions of their "
                                               "sites: a passing Check adapter on your account verifies one"))
        self.pages["accounts"].form.form.addRow(self.tr("Adapter"), self.verified_label)

    def _connect(self) -> None:
        """The pages' signals to the parts that act on them."""
        self.save_btn.clicked.connect(self.saver.save)
        for section, page in self.pages.items():
            page.form.changed.connect(lambda key, value, s=section: self.entries.field_changed(s, key, value))
            page.list.currentRowChanged.connect(lambda _row, s=section: self.entries.show_entry(s))
            page.add_btn.clicked.connect(lambda _=False, s=section: self.entries.add_entry(s))
            page.dup_btn.clicked.connect(lambda _=False, s=section: self.entries.duplicate_entry(s))
            page.remove_btn.clicked.connect(lambda _=False, s=section: self.entries.remove_entry(s))
        self.pages["accounts"].list.currentRowChanged.connect(lambda _row: self._show_verified())
        for section, btn in self.test_buttons.items():
            btn.clicked.connect(lambda _=False, s=section: self.tester.test_current(s))
        for section, check in self.check_buttons.items():
            check.clicked.connect(lambda _=False, s=section: self.checker.start(s))

    # ------------------------------------------------------------------ queries (tests, callers)
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
    def _edited(self) -> None:
        self.dirty = True
        self._revalidate()

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
        self._show_verified()

    def _show_verified(self) -> None:
        """The selected account's adapter and whether it was verified on the live site ("" when it is no
        web account, or the setup has problems)."""
        entry = self.checker.setup.current_entry("accounts")
        line = None
        if entry is not None and entry.cfg is not None:
            ws = self.workspace or Workspace.resolve(data_dir=entry.cfg.data_dir)
            line = verified_line(entry.cfg, ws, entry.name)
        self.verified_label.setText(line or "")

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
    def _saved(self, cfg: AppConfig) -> None:
        self.dirty = False
        self.saved.emit(cfg)

    def _offer_restart(self) -> bool:
        self.restart_button.setVisible(self.can_restart_lanes)
        return self.can_restart_lanes

    def _ask_discard(self) -> bool:
        answer = QMessageBox.question(
            self, self.tr("Unsaved changes"),
            self.tr("Close Setup and discard the changes not saved to {path}?").format(path=self.path),
        )
        return answer == QMessageBox.StandardButton.Yes

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.dirty and not self.confirm_discard():
            event.ignore()
            return
        super().closeEvent(event)
