"""The Setup editor's per-entry form (one row per key, each with its error line) and a section's
page (the list of entries beside the form).

The class names are the translation contexts of their texts (resources/i18n): keep them.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from mediadesk.config.edit import FieldError, Section
from mediadesk.ui.dialogs.setup.fields import (
    ERROR_STYLE,
    Field,
    entry_error_text,
    field_error_text,
    parse_value,
    show_value,
)
from mediadesk.ui.plain import plain
from mediadesk.ui.screen_fit import scrolling

__all__ = ["_EntryForm", "_SectionPage"]


class _EntryForm(QWidget):
    """The form of one section's current entry: one row per key, each with its error line."""

    changed = Signal(str, object)  # key, value (None: remove the key)

    def __init__(self, fields: list[Field], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fields = {f.key: f for f in fields}
        self.editors: dict[str, QWidget] = {}
        self.error_labels: dict[str, QLabel] = {}
        self._cells: dict[str, QWidget] = {}
        self._loading = False
        self.entry_error = plain(QLabel(self))
        self.entry_error.setObjectName("entryError")
        self.entry_error.setWordWrap(True)
        self.entry_error.setStyleSheet(ERROR_STYLE)
        self.entry_error.hide()
        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        for f in fields:
            editor = self._make_editor(f)
            editor.setObjectName(f"field_{f.key}")
            err = plain(QLabel(self))
            err.setObjectName(f"error_{f.key}")
            err.setWordWrap(True)
            err.setStyleSheet(ERROR_STYLE)
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

    def _make_editor(self, f: Field) -> QWidget:
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
            edit.setPlaceholderText(self.tr("default: {value}").format(value=show_value(f.default)))
        edit.editingFinished.connect(lambda k=f.key, e=edit, kind=f.kind: self._emit(k, parse_value(kind, e.text())))
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
                    self._select(editor, show_value(value))
                elif isinstance(editor, QLineEdit):
                    editor.setText(show_value(value))
        finally:
            self._loading = False

    def show_errors(self, errors: list[FieldError]) -> None:
        shown: dict[str, list[str]] = {}
        entry_level: list[str] = []
        for e in errors:
            if e.key is not None and e.key in self.error_labels and self.editors[e.key].isVisibleTo(self):
                shown.setdefault(e.key, []).append(field_error_text(e))
            else:
                entry_level.append(entry_error_text(e))
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
        lay.addWidget(scrolling(form), 2)  # a long form scrolls: the dialog fits a small screen

