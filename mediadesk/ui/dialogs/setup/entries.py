"""The Setup editor's three entry lists (endpoints, profiles, accounts): fill a list from the
document, show the current entry in its form, write a field change through, add, duplicate,
remove. Each change goes into the round-trip document at once and is validated whole.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QListWidgetItem

from mediadesk.config.edit import Section
from mediadesk.ui.dialogs.setup.fields import site_choices

if TYPE_CHECKING:
    from mediadesk.ui.dialogs.setup_editor import SetupEditor

__all__ = ["EntryLists"]


class EntryLists:
    """The lists and forms of ``editor``'s pages (texts keep the ``SetupEditor`` context)."""

    def __init__(self, editor: SetupEditor) -> None:
        self.e = editor

    def reload_list(self, section: Section, select: int | None = None) -> None:
        page = self.e.pages[section]
        keep = page.list.currentRow() if select is None else select
        page.list.blockSignals(True)
        page.list.clear()
        for name in self.e.doc.names(section):
            page.list.addItem(QListWidgetItem(name or QCoreApplication.translate("SetupEditor", "(no name)")))
        page.list.blockSignals(False)
        count = page.list.count()
        page.list.setCurrentRow(min(max(keep, 0), count - 1) if count else -1)
        self.show_entry(section)

    def show_entry(self, section: Section) -> None:
        e = self.e
        page = e.pages[section]
        idx = page.list.currentRow()
        has = idx >= 0
        page.form.setEnabled(has)
        page.dup_btn.setEnabled(has)
        page.remove_btn.setEnabled(has)
        entry = e.doc.entry(section, idx) if has else {}
        self._refresh_choices(section)
        page.form.load(entry)
        if section == "profiles":
            self._show_kind(str(entry.get("kind", "api")))
        e.test_results[section].clear()
        e._show_errors()

    def _refresh_choices(self, section: Section) -> None:
        e = self.e
        form = e.pages[section].form
        if section == "profiles":
            form.set_choices("endpoint", [("", "")] + [(n, n) for n in e.doc.names("endpoints")])
            cfg_sites = self._sites_dir()
            sites = site_choices(cfg_sites, e.workspace)
            form.set_choices("site", [(name, f"{name} ({self._origin(origin)})") for name, origin in sites])
        elif section == "accounts":
            web = [str(p.get("name", "")) for p in e.doc.entries("profiles") if p.get("kind") == "web"]
            form.set_choices("profile", [(n, n) for n in web])

    @staticmethod
    def _origin(origin: str) -> str:
        return (QCoreApplication.translate("SetupEditor", "built-in") if origin == "built-in"
                else QCoreApplication.translate("SetupEditor", "user"))

    def _sites_dir(self) -> Path | None:
        browser = self.e.doc.data().get("browser", {}) if self._parses() else {}
        raw = browser.get("sites_dir") if isinstance(browser, dict) else None
        if not isinstance(raw, str):
            return None
        p = Path(raw).expanduser()
        return p if p.is_absolute() else (self.e.path.parent / p).resolve()

    def _parses(self) -> bool:
        try:
            self.e.doc.data()
        except Exception:
            return False
        return True

    def _show_kind(self, kind: str) -> None:
        e = self.e
        form = e.pages["profiles"].form
        for f in form.fields.values():
            if f.only is not None:
                form.set_row_visible(f.key, f.only == kind)
        e.test_buttons["profiles"].setVisible(kind == "api")
        e.test_results["profiles"].setVisible(kind == "api")

    def field_changed(self, section: Section, key: str, value: Any) -> None:
        e = self.e
        idx = e.current_index(section)
        if idx < 0:
            return
        updates: dict[str, Any] = {key: value}
        form = e.pages[section].form
        f = form.fields[key]
        entry = e.doc.entry(section, idx)
        if f.kind == "bool" and key not in entry and value == f.default:
            return  # the default, not written: the file keeps its shape
        if section == "profiles" and key == "kind":
            # keys of the other kind would only be errors now
            updates.update({o.key: None for o in form.fields.values() if o.only is not None and o.only != value})
        e.doc.update(section, idx, updates)
        e.dirty = True
        if section == "profiles" and key == "kind":
            self._show_kind(str(value))
            form.load(e.doc.entry(section, idx))
        if key == "name":
            item = e.pages[section].list.item(idx)
            if item is not None:
                item.setText(str(value or QCoreApplication.translate("SetupEditor", "(no name)")))
        e._revalidate()

    def add_entry(self, section: Section) -> int:
        e = self.e
        taken = set(e.doc.names(section))
        stem = {"endpoints": "endpoint", "profiles": "profile", "accounts": "account"}[section]
        n = len(taken) + 1
        while f"{stem}-{n}" in taken:
            n += 1
        values: dict[str, Any] = {"name": f"{stem}-{n}"}
        if section == "profiles":
            values["kind"] = "api"
        elif section == "accounts":
            web = [str(p.get("name")) for p in e.doc.entries("profiles") if p.get("kind") == "web"]
            values["profile"] = web[0] if web else ""
        idx = e.doc.add(section, values)
        e.dirty = True
        self.reload_list(section, idx)
        e._revalidate()
        return idx

    def duplicate_entry(self, section: Section) -> int:
        e = self.e
        idx = e.current_index(section)
        if idx < 0:
            return -1
        new = e.doc.duplicate(section, idx)
        e.dirty = True
        self.reload_list(section, new)
        e._revalidate()
        return new

    def remove_entry(self, section: Section) -> None:
        e = self.e
        idx = e.current_index(section)
        if idx < 0:
            return
        e.doc.remove(section, idx)
        e.dirty = True
        self.reload_list(section, max(0, idx - 1))
        e._revalidate()
