"""The Setup editor's three entry lists (endpoints, profiles, accounts): fill a list from the
document, show the current entry in its form, write a field change through, add, duplicate,
remove. Each change goes into the round-trip document at once; the owner then validates it whole.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QLabel, QListWidgetItem, QWidget

from mediadesk.config.edit import ConfigDoc, Section
from mediadesk.config.workspace import Workspace
from mediadesk.ui.dialogs.setup.fields import site_choices
from mediadesk.ui.dialogs.setup.forms import _SectionPage

__all__ = ["EntryLists"]


class EntryLists:
    """The lists and forms of ``pages``, over ``doc`` (texts keep the ``SetupEditor`` context).

    ``test_buttons`` / ``test_results``: the Test button and result line of each form (a web profile
    hides them; showing an entry clears its result). ``workspace`` and ``config_dir`` find the site
    adapters for the picker. ``show_errors`` shows the last validation on the forms; ``edited`` is
    called after each change to the document (the owner marks it unsaved and validates it)."""

    def __init__(
        self,
        doc: ConfigDoc,
        pages: Mapping[Section, _SectionPage],
        *,
        test_buttons: Mapping[Section, QWidget],
        test_results: Mapping[Section, QLabel],
        workspace: Workspace | None,
        config_dir: Path,
        show_errors: Callable[[], None],
        edited: Callable[[], None],
    ) -> None:
        self.doc = doc
        self.pages = pages
        self.test_buttons = test_buttons
        self.test_results = test_results
        self.workspace = workspace
        self.config_dir = config_dir
        self.show_errors = show_errors
        self.edited = edited

    def current_index(self, section: Section) -> int:
        return self.pages[section].list.currentRow()

    def reload_list(self, section: Section, select: int | None = None) -> None:
        page = self.pages[section]
        keep = page.list.currentRow() if select is None else select
        page.list.blockSignals(True)
        page.list.clear()
        for name in self.doc.names(section):
            page.list.addItem(QListWidgetItem(name or QCoreApplication.translate("SetupEditor", "(no name)")))
        page.list.blockSignals(False)
        count = page.list.count()
        page.list.setCurrentRow(min(max(keep, 0), count - 1) if count else -1)
        self.show_entry(section)

    def show_entry(self, section: Section) -> None:
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
        self.show_errors()

    def _refresh_choices(self, section: Section) -> None:
        form = self.pages[section].form
        if section == "profiles":
            form.set_choices("endpoint", [("", "")] + [(n, n) for n in self.doc.names("endpoints")])
            sites = site_choices(self._sites_dir(), self.workspace)
            form.set_choices("site", [(name, f"{name} ({self._origin(origin)})") for name, origin in sites])
        elif section == "accounts":
            web = [str(p.get("name", "")) for p in self.doc.entries("profiles") if p.get("kind") == "web"]
            form.set_choices("profile", [(n, n) for n in web])

    @staticmethod
    def _origin(origin: str) -> str:
        return (QCoreApplication.translate("SetupEditor", "built-in") if origin == "built-in"
                else QCoreApplication.translate("SetupEditor", "user"))

    def _sites_dir(self) -> Path | None:
        browser = self.doc.data().get("browser", {}) if self._parses() else {}
        raw = browser.get("sites_dir") if isinstance(browser, dict) else None
        if not isinstance(raw, str):
            return None
        p = Path(raw).expanduser()
        return p if p.is_absolute() else (self.config_dir / p).resolve()

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

    def field_changed(self, section: Section, key: str, value: Any) -> None:
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
        if section == "profiles" and key == "kind":
            self._show_kind(str(value))
            form.load(self.doc.entry(section, idx))
        if key == "name":
            item = self.pages[section].list.item(idx)
            if item is not None:
                item.setText(str(value or QCoreApplication.translate("SetupEditor", "(no name)")))
        self.edited()

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
        self.reload_list(section, idx)
        self.edited()
        return idx

    def duplicate_entry(self, section: Section) -> int:
        idx = self.current_index(section)
        if idx < 0:
            return -1
        new = self.doc.duplicate(section, idx)
        self.reload_list(section, new)
        self.edited()
        return new

    def remove_entry(self, section: Section) -> None:
        idx = self.current_index(section)
        if idx < 0:
            return
        self.doc.remove(section, idx)
        self.reload_list(section, max(0, idx - 1))
        self.edited()
