"""Setup in the window: endpoints, profiles and accounts of config.toml, edited in place.

Three lists (add / duplicate / remove) and a form per entry. Every change goes into a round-trip
document (:class:`mediadesk.config.edit.ConfigDoc`) at once and the WHOLE document is validated by
the real loader, whose messages show under the field they name (or above the form, for the entry as
a whole); Save is refused while any remains. The file stays the source of truth: Save writes it
keeping the operator's comments and order, and refuses to overwrite a file changed on disk meanwhile
unless the operator says so. With a running scheduler, what it can change live (API concurrency,
account on/off) is applied at once; the rest is listed as "applies at the next start".

"Test" (through :class:`mediadesk.scheduler.checks.Checks`): an endpoint (or an API profile) sends
one cheap request (``GET /models`` or a one-token completion) and shows the latency or the error;
a web account opens its site in a real Chromium on its own profile and says logged in or logged out.
Both run as tasks on the app's asyncio loop (network and browser waits never block the window).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from mediadesk.config.edit import (
    ConfigChangedOnDisk,
    ConfigDoc,
    ConfigInvalid,
    FieldError,
    Section,
    live_changes,
)
from mediadesk.config.model import AppConfig, ConfigError
from mediadesk.config.workspace import Workspace, resources_dir
from mediadesk.core.backend import HealthStatus
from mediadesk.files.safe import UnsafePathError
from mediadesk.scheduler.checks import Checks
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.ui.dialogs.config_text import config_error_text, config_issue_line, config_message_text

log = logging.getLogger(__name__)

__all__ = ["SetupEditor", "site_choices"]

_ERROR_STYLE = "color: #c62828;"


@dataclass(frozen=True)
class _Field:
    key: str
    kind: str  # "str", "num", "bool", "list", "choice", "site", "endpoint", "profile"
    label: str
    default: Any = None
    #: Only for profiles of this kind (None: every profile).
    only: str | None = None
    choices: tuple[str, ...] = ()


def site_choices(config_sites_dir: Path | None, workspace: Workspace | None) -> list[tuple[str, str]]:
    """(adapter name, where it comes from) for the site picker: the built-in adapters, then the
    operator's (``browser.sites_dir``, else ``<data_dir>/sites``), which override a built-in of the
    same name, as :func:`mediadesk.providers.web.sites.site_adapters` loads them."""
    found: dict[str, str] = {}
    user_dir = config_sites_dir or (workspace.sites_dir if workspace is not None else None)
    for folder, origin in ((resources_dir() / "sites", "built-in"), (user_dir, "user")):
        if folder is not None and folder.is_dir():
            for f in sorted(folder.glob("*.toml")):
                found[f.stem] = origin
    return sorted(found.items())


def _parse_value(kind: str, text: str) -> Any:
    """A form text as a TOML value; the loader judges it (a wrong type gets the loader's message)."""
    text = text.strip()
    if not text:
        return None
    if kind == "num":
        for conv in (int, float):
            try:
                return conv(text)
            except ValueError:
                pass
        return text
    if kind == "list":
        return [part.strip() for part in text.split(",") if part.strip()]
    return text


def _show_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def field_error_text(e: FieldError) -> str:
    """The loader's message for one key, in the console's language (key and values as written)."""
    return config_message_text(e.issue.message) if e.issue is not None else e.message


def field_error_line(e: FieldError) -> str:
    """The whole line (file, key path, message), the message translated."""
    return config_issue_line(e.issue) if e.issue is not None else e.line


def _entry_error_text(e: FieldError) -> str:
    if e.issue is not None and e.issue.key is None:  # the file as a whole (e.g. invalid TOML)
        return field_error_text(e)
    return f"{e.key}: {field_error_text(e)}" if e.key else field_error_text(e)


class _EntryForm(QWidget):
    """The form of one section's current entry: one row per key, each with its error line."""

    changed = Signal(str, object)  # key, value (None: remove the key)

    def __init__(self, fields: list[_Field], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fields = {f.key: f for f in fields}
        self.editors: dict[str, QWidget] = {}
        self.error_labels: dict[str, QLabel] = {}
        self._cells: dict[str, QWidget] = {}
        self._loading = False
        self.entry_error = QLabel(self)
        self.entry_error.setObjectName("entryError")
        self.entry_error.setWordWrap(True)
        self.entry_error.setStyleSheet(_ERROR_STYLE)
        self.entry_error.hide()
        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        for f in fields:
            editor = self._make_editor(f)
            editor.setObjectName(f"field_{f.key}")
            err = QLabel(self)
            err.setObjectName(f"error_{f.key}")
            err.setWordWrap(True)
            err.setStyleSheet(_ERROR_STYLE)
            err.hide()
            cell = QWidget(self)
            lay = QVBoxLayout(cell)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.setSpacing(1)
            lay.addWidget(editor)
            lay.addWidget(err)
            self.editors[f.key] = editor
            self.error_labels[f.key] = err
            self._cells[f.key] = cell
            self.form.addRow(f.label, cell)
        self.buttons = QHBoxLayout()
        outer = QVBoxLayout(self)
        outer.addWidget(self.entry_error)
        outer.addLayout(self.form)
        outer.addLayout(self.buttons)
        outer.addStretch(1)

    def _make_editor(self, f: _Field) -> QWidget:
        if f.kind == "bool":
            box = QCheckBox(self)
            box.toggled.connect(lambda on, k=f.key: self._emit(k, on))
            return box
        if f.kind in ("choice", "site", "endpoint", "profile"):
            combo = QComboBox(self)
            combo.setEditable(f.kind != "choice")
            combo.addItems(list(f.choices))
            if combo.isEditable():
                line = combo.lineEdit()
                assert line is not None
                line.editingFinished.connect(lambda k=f.key, c=combo: self._emit(k, self._combo_value(c)))
                combo.activated.connect(lambda _i, k=f.key, c=combo: self._emit(k, self._combo_value(c)))
            else:
                combo.currentTextChanged.connect(lambda t, k=f.key: self._emit(k, t or None))
            return combo
        edit = QLineEdit(self)
        if f.default is not None:
            edit.setPlaceholderText(self.tr("default: {value}").format(value=_show_value(f.default)))
        edit.editingFinished.connect(lambda k=f.key, e=edit, kind=f.kind: self._emit(k, _parse_value(kind, e.text())))
        return edit

    @staticmethod
    def _combo_value(combo: QComboBox) -> str | None:
        data = combo.currentData()
        if isinstance(data, str) and combo.currentText() == combo.itemText(combo.currentIndex()):
            return data or None
        return combo.currentText().strip() or None

    def _emit(self, key: str, value: Any) -> None:
        if not self._loading:
            self.changed.emit(key, value)

    def set_choices(self, key: str, items: list[tuple[str, str]]) -> None:
        """(value, label) pairs for a picker; the typed value is kept."""
        combo = self.editors[key]
        assert isinstance(combo, QComboBox)
        self._loading = True
        try:
            text = combo.currentText()
            combo.clear()
            for value, label in items:
                combo.addItem(label, value)
            self._select(combo, text)
        finally:
            self._loading = False

    @staticmethod
    def _select(combo: QComboBox, value: str) -> None:
        idx = combo.findData(value) if value else -1
        if idx < 0 and value:
            idx = combo.findText(value)
        if idx >= 0:
            combo.setCurrentIndex(idx)
        elif combo.isEditable():
            combo.setCurrentIndex(-1)
            combo.setEditText(value)

    def load(self, entry: dict[str, Any]) -> None:
        self._loading = True
        try:
            for key, editor in self.editors.items():
                f = self.fields[key]
                value = entry.get(key)
                if isinstance(editor, QCheckBox):
                    editor.setChecked(bool(f.default) if value is None else bool(value))
                elif isinstance(editor, QComboBox):
                    self._select(editor, _show_value(value))
                elif isinstance(editor, QLineEdit):
                    editor.setText(_show_value(value))
        finally:
            self._loading = False

    def show_errors(self, errors: list[FieldError]) -> None:
        shown: dict[str, list[str]] = {}
        entry_level: list[str] = []
        for e in errors:
            if e.key is not None and e.key in self.error_labels and self.editors[e.key].isVisibleTo(self):
                shown.setdefault(e.key, []).append(field_error_text(e))
            else:
                entry_level.append(_entry_error_text(e))
        for key, label in self.error_labels.items():
            label.setText("\n".join(shown.get(key, [])))
            label.setVisible(key in shown)
        self.entry_error.setText("\n".join(entry_level))
        self.entry_error.setVisible(bool(entry_level))

    def set_row_visible(self, key: str, visible: bool) -> None:
        self.form.setRowVisible(self._cells[key], visible)


class _SectionPage(QWidget):
    """One section: the list of entries on the left, the current entry's form on the right."""

    def __init__(self, section: Section, form: _EntryForm, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.section = section
        self.form = form
        self.list = QListWidget(self)
        self.list.setObjectName(f"{section}List")
        self.add_btn = QPushButton(self.tr("Add"), self)
        self.dup_btn = QPushButton(self.tr("Duplicate"), self)
        self.remove_btn = QPushButton(self.tr("Remove"), self)
        side = QVBoxLayout()
        side.addWidget(self.list, 1)
        row = QHBoxLayout()
        for b in (self.add_btn, self.dup_btn, self.remove_btn):
            row.addWidget(b)
        side.addLayout(row)
        lay = QHBoxLayout(self)
        lay.addLayout(side, 1)
        lay.addWidget(form, 2)


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
        #: What the running app uses (restart-needed changes are measured against it).
        self._baseline: AppConfig | None = scheduler.config if scheduler is not None else self.doc.validate()[0]
        self._tests: set[asyncio.Task[None]] = set()
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
        self.status = QLabel(self)
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
            _Field("name", "str", tr("Name")),
            _Field("base_url", "str", tr("Base URL")),
            _Field("api_key_env", "str", tr("API key variable")),
            _Field("api_key_keyring", "str", tr("API key keyring entry")),
            _Field("concurrency", "num", tr("Concurrency"), 3),
            _Field("rpm", "num", tr("Requests per minute"), 0),
            _Field("adaptive", "bool", tr("Adaptive"), True),
        ]
        profile_fields = [
            _Field("name", "str", tr("Name")),
            _Field("kind", "choice", tr("Kind"), choices=("api", "web")),
            _Field("endpoint", "endpoint", tr("Endpoint"), only="api"),
            _Field("base_url", "str", tr("Base URL"), only="api"),
            _Field("api_key_env", "str", tr("API key variable"), only="api"),
            _Field("model", "str", tr("Model"), only="api"),
            _Field("concurrency", "num", tr("Concurrency"), 3, only="api"),
            _Field("stream", "bool", tr("Stream"), False, only="api"),
            _Field("max_answer_chars", "num", tr("Longest answer (chars)"), 200_000, only="api"),
            _Field("site", "site", tr("Site"), only="web"),
            _Field("url", "str", tr("Chat URL"), only="web"),
            _Field("instructions", "str", tr("Instructions")),
            _Field("need_empty_prompt", "bool", tr("Needs an empty prompt"), False),
            _Field("timeout_s", "num", tr("Timeout (s)"), 60.0),
            _Field("max_run_s", "num", tr("Longest run (s)")),
            _Field("max_wait_s", "num", tr("Longest wait (s)")),
            _Field("max_pending", "num", tr("Most pending tasks")),
            _Field("fallback", "list", tr("Fallback profiles")),
            _Field("rule_reply", "str", tr("Rule reply")),
        ]
        account_fields = [
            _Field("name", "str", tr("Name")),
            _Field("profile", "profile", tr("Web profile")),
            _Field("enabled", "bool", tr("Enabled"), True),
            _Field("profile_dir", "str", tr("Browser profile folder")),
            _Field("login_user_env", "str", tr("Login user variable")),
            _Field("login_password_env", "str", tr("Login password variable")),
            _Field("login_user_keyring", "str", tr("Login user keyring entry")),
            _Field("login_password_keyring", "str", tr("Login password keyring entry")),
            _Field("login_cooldown_s", "num", tr("Login cooldown (s)"), 600.0),
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
            btn.setToolTip(self._test_tooltip(section))  # type: ignore[arg-type]
            result = QLabel(form)
            result.setObjectName(f"{section}TestResult")
            result.setWordWrap(True)
            form.buttons.addWidget(btn)
            form.buttons.addWidget(result, 1)
            btn.clicked.connect(lambda _=False, s=section: self.test_current(s))
            self.test_buttons[section] = btn  # type: ignore[index]
            self.test_results[section] = result  # type: ignore[index]

    def _test_tooltip(self, section: Section) -> str:
        if section == "accounts":
            return self.tr("Opens the site in Chromium on this account's profile and says logged in or out")
        return self.tr("Sends one cheap request (GET /models, or a one-token answer) and shows the latency")

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
        page = self.pages[section]
        keep = page.list.currentRow() if select is None else select
        page.list.blockSignals(True)
        page.list.clear()
        for name in self.doc.names(section):
            page.list.addItem(QListWidgetItem(name or self.tr("(no name)")))
        page.list.blockSignals(False)
        count = page.list.count()
        page.list.setCurrentRow(min(max(keep, 0), count - 1) if count else -1)
        self._show_entry(section)

    def _show_entry(self, section: Section) -> None:
        page = self.pages[section]
        idx = page.list.currentRow()
        has = idx >= 0
        page.form.setEnabled(has)
        page.dup_btn.setEnabled(has)
        page.remove_btn.setEnabled(has)
        entry = self.doc.entry(section, idx) if has else {}
        self._refresh_choices(section)
        page.form.load(entry)
        if section == "profiles":
            self._show_kind(str(entry.get("kind", "api")))
        self.test_results[section].clear()
        self._show_errors()

    def _refresh_choices(self, section: Section) -> None:
        form = self.pages[section].form
        if section == "profiles":
            form.set_choices("endpoint", [("", "")] + [(n, n) for n in self.doc.names("endpoints")])
            cfg_sites = self._sites_dir()
            sites = site_choices(cfg_sites, self.workspace)
            form.set_choices("site", [(name, f"{name} ({self._origin(origin)})") for name, origin in sites])
        elif section == "accounts":
            web = [str(p.get("name", "")) for p in self.doc.entries("profiles") if p.get("kind") == "web"]
            form.set_choices("profile", [(n, n) for n in web])

    def _origin(self, origin: str) -> str:
        return self.tr("built-in") if origin == "built-in" else self.tr("user")

    def _sites_dir(self) -> Path | None:
        browser = self.doc.data().get("browser", {}) if self._parses() else {}
        raw = browser.get("sites_dir") if isinstance(browser, dict) else None
        if not isinstance(raw, str):
            return None
        p = Path(raw).expanduser()
        return p if p.is_absolute() else (self.path.parent / p).resolve()

    def _parses(self) -> bool:
        try:
            self.doc.data()
        except Exception:
            return False
        return True

    def _show_kind(self, kind: str) -> None:
        form = self.pages["profiles"].form
        for f in form.fields.values():
            if f.only is not None:
                form.set_row_visible(f.key, f.only == kind)
        self.test_buttons["profiles"].setVisible(kind == "api")
        self.test_results["profiles"].setVisible(kind == "api")

    def _field_changed(self, section: Section, key: str, value: Any) -> None:
        idx = self.current_index(section)
        if idx < 0:
            return
        updates: dict[str, Any] = {key: value}
        form = self.pages[section].form
        f = form.fields[key]
        entry = self.doc.entry(section, idx)
        if f.kind == "bool" and key not in entry and value == f.default:
            return  # the default, not written: the file keeps its shape
        if section == "profiles" and key == "kind":
            # keys of the other kind would only be errors now
            updates.update({o.key: None for o in form.fields.values() if o.only is not None and o.only != value})
        self.doc.update(section, idx, updates)
        self.dirty = True
        if section == "profiles" and key == "kind":
            self._show_kind(str(value))
            form.load(self.doc.entry(section, idx))
        if key == "name":
            item = self.pages[section].list.item(idx)
            if item is not None:
                item.setText(str(value or self.tr("(no name)")))
        self._revalidate()

    def add_entry(self, section: Section) -> int:
        taken = set(self.doc.names(section))
        stem = {"endpoints": "endpoint", "profiles": "profile", "accounts": "account"}[section]
        n = len(taken) + 1
        while f"{stem}-{n}" in taken:
            n += 1
        values: dict[str, Any] = {"name": f"{stem}-{n}"}
        if section == "profiles":
            values["kind"] = "api"
        elif section == "accounts":
            web = [str(p.get("name")) for p in self.doc.entries("profiles") if p.get("kind") == "web"]
            values["profile"] = web[0] if web else ""
        idx = self.doc.add(section, values)
        self.dirty = True
        self._reload_list(section, idx)
        self._revalidate()
        return idx

    def duplicate_entry(self, section: Section) -> int:
        idx = self.current_index(section)
        if idx < 0:
            return -1
        new = self.doc.duplicate(section, idx)
        self.dirty = True
        self._reload_list(section, new)
        self._revalidate()
        return new

    def remove_entry(self, section: Section) -> None:
        idx = self.current_index(section)
        if idx < 0:
            return
        self.doc.remove(section, idx)
        self.dirty = True
        self._reload_list(section, max(0, idx - 1))
        self._revalidate()

    # ------------------------------------------------------------------ validation
    def _revalidate(self) -> None:
        _cfg, self.errors = self.doc.validate()
        self._show_errors()
        self.save_btn.setEnabled(not self.errors)
        if self.errors:
            self.status.setStyleSheet(_ERROR_STYLE)
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
        answer = QMessageBox.question(
            self, self.tr("Config changed on disk"),
            self.tr("{message}\n\nOverwrite the file with the edits made here?").format(message=message),
        )
        return answer == QMessageBox.StandardButton.Yes

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

    def save(self) -> bool:
        """Write the file (validated first); apply what the running app can apply live; say what
        waits for a restart. False (nothing written) when refused."""
        try:
            try:
                cfg = self.doc.save()
            except ConfigChangedOnDisk as exc:
                if not self.confirm_overwrite(str(exc)):
                    self._say(self.tr("Not saved: {path} changed on disk. Close and reopen Setup to see "
                                      "that change.").format(path=self.path), error=True)
                    return False
                cfg = self.doc.save(force=True)
        except ConfigInvalid:
            self._revalidate()
            return False
        except (ConfigError, UnsafePathError, OSError) as exc:
            self._say(self.tr("Not saved: {error}").format(error=config_error_text(exc)), error=True)
            return False
        self.dirty = False
        parts = [self.tr("Saved {path}.").format(path=self.path)]
        parts += self._apply_live(cfg)
        self._say(" ".join(parts))
        self.saved.emit(cfg)
        return True

    def _apply_live(self, cfg: AppConfig) -> list[str]:
        if self._baseline is None:
            return []
        changes = live_changes(self._baseline, cfg)
        out: list[str] = []
        applied: list[str] = []
        if self.scheduler is not None:
            known = set(self.scheduler.profile_names())
            for profile, conc in changes.concurrency:
                if profile in known:
                    try:
                        self.scheduler.set_profile_setting(profile, concurrency=conc)
                        applied.append(self.tr("{profile} concurrency {n}").format(profile=profile, n=conc))
                    except ValueError as exc:
                        log.warning("setup: %s concurrency not applied: %s", profile, exc)
            lanes = {lane.account for lane in self.scheduler.lanes if lane.account}
            for account, on in changes.enabled:
                if account in lanes:
                    self.scheduler.set_account_enabled(account, on)
                    applied.append(self.tr("{account} {state}").format(
                        account=account, state=self.tr("enabled") if on else self.tr("disabled")))
            if applied:
                out.append(self.tr("Applied now: {what}.").format(what=", ".join(applied)))
            if changes.restart:
                out.append(self.tr("Applies at the next start: {what}.").format(
                    what="; ".join(self._describe(*change) for change in changes.restart)))
        else:
            self._baseline = cfg
        return out

    def _describe(self, what: str, name: str, change: str) -> str:
        texts = {
            ("endpoint", "added"): self.tr("endpoint {name} added"),
            ("endpoint", "removed"): self.tr("endpoint {name} removed"),
            ("endpoint", "changed"): self.tr("endpoint {name} changed"),
            ("profile", "added"): self.tr("profile {name} added"),
            ("profile", "removed"): self.tr("profile {name} removed"),
            ("profile", "changed"): self.tr("profile {name} changed"),
            ("account", "added"): self.tr("account {name} added"),
            ("account", "removed"): self.tr("account {name} removed"),
            ("account", "changed"): self.tr("account {name} changed"),
        }
        return texts.get((what, change), f"{what} {{name}} {change}").format(name=name)

    def _say(self, text: str, *, error: bool = False) -> None:
        self.status.setStyleSheet(_ERROR_STYLE if error else "")
        self.status.setText(text)

    # ------------------------------------------------------------------ testing
    def test_current(self, section: Section) -> asyncio.Task[None] | None:
        """Start the current entry's test on the running asyncio loop; its result shows beside the
        button. Returns the task (tests await it)."""
        result = self.test_results[section]
        cfg, errors = self.doc.validate()
        idx = self.current_index(section)
        if idx < 0:
            return None
        if cfg is None:
            result.setStyleSheet(_ERROR_STYLE)
            result.setText(self.tr("Fix the problems first: {first}").format(first=errors[0].line))
            return None
        entry = self.doc.entry(section, idx)
        name = str(entry.get("name", ""))
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no asyncio loop runs the window (not the console): nothing to run it on
            result.setStyleSheet(_ERROR_STYLE)
            result.setText(self.tr("Test needs the console's event loop; open Setup from the console"))
            return None
        coro = self._test_account(cfg, name) if section == "accounts" else self._test_api(cfg, section, name)
        btn = self.test_buttons[section]
        btn.setEnabled(False)
        result.setStyleSheet("")
        result.setText(self.tr("Testing {name}…").format(name=name))
        task = loop.create_task(self._run_test(section, coro))
        self._tests.add(task)
        task.add_done_callback(self._tests.discard)
        return task

    async def _run_test(self, section: Section, coro: Any) -> None:
        try:
            ok, text = await coro
        except Exception as exc:  # a test never takes the window down
            log.exception("setup test failed")
            ok, text = False, str(exc) or type(exc).__name__
        with contextlib.suppress(RuntimeError):  # the dialog was closed meanwhile
            self.test_buttons[section].setEnabled(True)
            label = self.test_results[section]
            label.setStyleSheet("" if ok else _ERROR_STYLE)
            label.setText(text)

    def _checks(self, cfg: AppConfig) -> Checks:
        """The edited config's checks; a running scheduler's lanes answer for the accounts they run."""
        return Checks(cfg, self.workspace, self.scheduler)

    async def _test_api(self, cfg: AppConfig, section: Section, name: str) -> tuple[bool, str]:
        checks = self._checks(cfg)
        if section == "endpoints":
            check = await checks.test_endpoint(name)
        else:
            if cfg.profile(name).kind != "api":
                return False, self.tr("a web profile is tested through its accounts")
            check = await checks.test_profile(name)
        if check.ok:
            return True, self.tr("OK: {seen} in {ms:.0f} ms").format(seen=check.seen, ms=check.elapsed_ms)
        return False, self.tr("Failed after {ms:.0f} ms: {seen}").format(seen=check.seen, ms=check.elapsed_ms)

    async def _test_account(self, cfg: AppConfig, name: str) -> tuple[bool, str]:
        check = await self._checks(cfg).test_account(name)
        if check.running:
            return self._login_answer(check.ok, check.seen)
        if check.health == HealthStatus.READY:
            return True, self.tr("{name}: logged in").format(name=name)
        if check.health == HealthStatus.NEEDS_LOGIN:
            return False, self.tr("{name}: logged out ({why}); use Log in on the account panel").format(
                name=name, why=check.seen)
        return False, self.tr("{name}: {error}").format(name=name, error=check.seen or check.health)

    def _login_answer(self, ok: bool, seen: str) -> tuple[bool, str]:
        if ok:
            return True, self.tr("logged in ({seen})").format(seen=seen)
        if seen.startswith("needs login"):
            return False, self.tr("logged out ({seen})").format(seen=seen)
        return False, seen

    def running_tests(self) -> set[asyncio.Task[None]]:
        return set(self._tests)
