"""Batch submit: a staging preview, like a download manager's link grabber.

The operator hands us a JSONL/CSV/XLSX file (button or drag-and-drop) or pastes prompts, sees every
row with its line number and either "OK" or what is wrong with it, and submits only the valid
rows. A spreadsheet or CSV may fill a template (``<data dir>/templates``) chosen here, with a profile for
the rows that name none and, for a workbook, its sheet; the preview shows each rendered prompt and a row's
fan-out (several profiles, samples).

Parsing runs on a worker thread (:class:`~mediadesk.ui.jobs.workers.TaskJobs`, the console's one
way off the GUI thread): a big file must not freeze the window, and the lanes (which share the
GUI thread under qasync) must keep dispatching while it parses. A result that arrives after the
operator moved on (another file, edited text) is dropped by generation number; one that arrives
after the dialog is gone is not delivered at all.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path

from PySide6.QtCore import (
    QEvent,
    QObject,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from mediadesk.core.batch import (
    PRIORITY_MAX,
    PRIORITY_MIN,
    BatchRow,
    RowError,
    TemplateLibrary,
    parse_batch_file,
    parse_pasted,
)
from mediadesk.scheduler.duplicates import Duplicates, RowRepeat
from mediadesk.scheduler.scheduler import ProfileView
from mediadesk.ui.dialogs.batch_preview import PreviewModel, StagedBatch, parse_safely, stage_batch
from mediadesk.ui.jobs.workers import TaskJobs, cyclic_gc_paused, gil_handed_over_often
from mediadesk.ui.plain import plain, plain_tip
from mediadesk.ui.style import icon, is_dark, state_color

__all__ = ["BatchDialog", "PreviewModel"]

_FILE, _PASTE = "file", "paste"
_PASTE_DEBOUNCE_MS = 200

#: Staged rows -> line -> what that row repeats (a finished task of the workspace, a row above); called on the
#: parse's worker thread.
FindRepeats = Callable[[Sequence[BatchRow]], Mapping[int, RowRepeat]]


# --------------------------------------------------------------------------- dialog

class BatchDialog(QDialog):
    """Stage a batch from a file or pasted prompts; after ``accept`` read :meth:`rows`."""

    #: A preview was (re)built for the current source (also after a file-level error).
    parsed = Signal()

    def __init__(
        self,
        profiles: Sequence[ProfileView],
        parent: QWidget | None = None,
        *,
        known_profiles: Collection[str] | None = None,
        max_prompt_chars: int = 200_000,
        templates_dir: Path | None = None,
        find_repeats: FindRepeats | None = None,
    ) -> None:
        super().__init__(parent)
        self._find_repeats = find_repeats
        self._templates = TemplateLibrary(templates_dir)
        self._profiles = list(profiles)
        # Default: the profiles we were given. A row naming another profile would be refused
        # at submit time anyway; better to show it as a row error here.
        self._known = frozenset(known_profiles) if known_profiles is not None else frozenset(
            p.name for p in self._profiles
        )
        self._max_prompt_chars = max_prompt_chars
        self._staged: dict[str, StagedBatch | None] = {_FILE: None, _PASTE: None}
        self._gen: dict[str, int] = {_FILE: 0, _PASTE: 0}
        self._done_gen: dict[str, int] = {_FILE: 0, _PASTE: 0}
        self._file_path: Path | None = None
        self._jobs = TaskJobs(owner=self)  # a result that arrives after the dialog is gone is dropped

        self.setWindowTitle(self.tr("Submit batch"))
        self.setWindowIcon(icon("submit"))
        self.setAcceptDrops(True)
        self.resize(960, 640)
        self._build_ui()
        self._refresh()

    # ------------------------------------------------------------------ UI
    def _build_ui(self) -> None:
        self._tabs = QTabWidget(self)
        self._tabs.addTab(self._build_file_tab(), self.tr("From file"))
        self._tabs.addTab(self._build_paste_tab(), self.tr("Paste prompts"))
        self._tabs.currentChanged.connect(lambda _i: self._refresh())

        self._summary = plain(QLabel(self))
        self._errors_only = QCheckBox(self.tr("Show errors only"), self)
        self._errors_only.toggled.connect(self._on_errors_only)
        self._repeat_label = plain(QLabel(self))
        self._duplicates = QComboBox(self)
        self._duplicates.setObjectName("batchDuplicates")
        for text, choice in ((self.tr("Skip them"), Duplicates.SKIP), (self.tr("Run them again"), Duplicates.AGAIN),
                             (self.tr("Reuse the earlier answers (nothing sent, no cost)"), Duplicates.REUSE)):
            self._duplicates.addItem(text, choice.value)
        self._duplicates.setToolTip(self.tr("Rows with the same profile, instructions and prompt as a finished task "
                                            "or a row above. A repeat of a row above is run only by “Run them "
                                            "again”."))
        top = QHBoxLayout()
        top.addWidget(self._summary, 1)
        top.addWidget(self._repeat_label)
        top.addWidget(self._duplicates)
        top.addWidget(self._errors_only)

        self._model = PreviewModel(self)
        self._view = QTableView(self)
        self._view.setModel(self._model)
        self._view.setAlternatingRowColors(True)
        self._view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self._view.setWordWrap(False)
        self._view.setTextElideMode(Qt.TextElideMode.ElideRight)
        vh = self._view.verticalHeader()
        vh.setVisible(False)
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # no per-row measuring at 200k rows
        vh.setDefaultSectionSize(self.fontMetrics().height() + 6)
        hh = self._view.horizontalHeader()
        for col, width in ((0, 60), (1, 120), (2, 70), (3, 420)):
            hh.resizeSection(col, width)
        hh.setStretchLastSection(True)
        self._view.viewport().installEventFilter(self)

        self._message = plain(QLabel(self))
        self._message.setWordWrap(True)
        self._message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self._buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self._submit = self._buttons.button(QDialogButtonBox.StandardButton.Ok)
        self._submit.setIcon(icon("submit"))
        self._buttons.accepted.connect(self.accept)
        self._buttons.rejected.connect(self.reject)

        preview = QWidget(self)
        pv = QVBoxLayout(preview)
        pv.setContentsMargins(0, 0, 0, 0)
        pv.addLayout(top)
        pv.addWidget(self._view, 1)
        splitter = QSplitter(Qt.Orientation.Vertical, self)  # the operator decides: bigger paste box or preview
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self._tabs)
        splitter.addWidget(preview)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([200, 440])

        layout = QVBoxLayout(self)
        layout.addWidget(splitter, 1)
        layout.addWidget(self._message)
        layout.addWidget(self._buttons)

    def _build_file_tab(self) -> QWidget:
        page = QWidget(self)
        self._open_button = QPushButton(self.tr("Open file…"), page)
        self._open_button.clicked.connect(self._choose_file)
        self._path_label = plain(QLabel(self.tr("No file chosen"), page))
        self._path_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        hint = QLabel(self.tr("JSONL, CSV or XLSX with the fields profile (or profiles, n), prompt (or a template "
                              "and its columns) and optionally id, system, priority, route_key. You can also "
                              "drop a file onto this window."), page)
        hint.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self._open_button)
        row.addWidget(self._path_label, 1)
        lay = QVBoxLayout(page)
        lay.addLayout(row)
        lay.addWidget(hint)
        lay.addWidget(self._build_table_choices(page))
        lay.addStretch(1)
        return page

    def _build_table_choices(self, page: QWidget) -> QWidget:
        """The template, profile and sheet a spreadsheet or CSV is read with (shown for those files)."""
        self._table_box = QWidget(page)
        self._template_combo = QComboBox(self._table_box)
        self._template_combo.setObjectName("batchTemplate")
        self._template_combo.setToolTip(self.tr("Every other column of the file fills the template's "
                                                "{placeholders}"))
        self._file_profile_combo = QComboBox(self._table_box)
        self._file_profile_combo.setObjectName("batchProfile")
        self._file_profile_combo.addItem(self.tr("From the file (profile or profiles column)"), None)
        for p in self._profiles:
            self._file_profile_combo.addItem(f"{p.name} ({p.kind})", p.name)
        self._sheet_combo = QComboBox(self._table_box)
        self._sheet_combo.setObjectName("batchSheet")
        self._sheet_label = QLabel(self.tr("Sheet"), self._table_box)
        self._fill_templates()
        form = QFormLayout(self._table_box)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow(self.tr("Template"), self._template_combo)
        form.addRow(self.tr("Profile"), self._file_profile_combo)
        form.addRow(self._sheet_label, self._sheet_combo)
        for combo in (self._template_combo, self._file_profile_combo, self._sheet_combo):
            combo.activated.connect(lambda _i: self._reload_file())
        self._table_box.setVisible(False)
        return self._table_box

    def _fill_templates(self) -> None:
        """The templates folder as it is now (the operator may have added one since the dialog opened)."""
        chosen = self._template_combo.currentData()
        self._template_combo.clear()
        self._template_combo.addItem(self.tr("None: the file's prompt or template column"), None)
        for name in self._templates.names():
            self._template_combo.addItem(name, name)
        self._template_combo.setCurrentIndex(max(0, self._template_combo.findData(chosen)))

    def _build_paste_tab(self) -> QWidget:
        page = QWidget(self)
        self._paste_edit = QPlainTextEdit(page)
        self._paste_edit.setPlaceholderText(self.tr("One prompt per line"))
        self._paste_edit.viewport().installEventFilter(self)
        self._profile_combo = QComboBox(page)
        for p in self._profiles:
            self._profile_combo.addItem(f"{p.name} ({p.kind})", p.name)
        self._priority = QSpinBox(page)
        self._priority.setRange(PRIORITY_MIN, PRIORITY_MAX)
        self._priority.setToolTip(self.tr("Higher runs first"))
        self._system = QLineEdit(page)
        self._system.setPlaceholderText(self.tr("Empty: the profile's default instructions"))
        self._nep_hint = QLabel(page)
        self._nep_hint.setWordWrap(True)

        self._paste_timer = QTimer(self)
        self._paste_timer.setSingleShot(True)
        self._paste_timer.setInterval(_PASTE_DEBOUNCE_MS)
        self._paste_timer.timeout.connect(self._parse_pasted_now)
        self._paste_edit.textChanged.connect(self._schedule_paste)
        self._profile_combo.currentIndexChanged.connect(lambda _i: self._on_profile_changed())
        self._priority.valueChanged.connect(lambda _v: self._schedule_paste())
        self._system.textChanged.connect(lambda _t: self._schedule_paste())

        form = QFormLayout()
        form.addRow(self.tr("Profile"), self._profile_combo)
        form.addRow(self.tr("Priority"), self._priority)
        form.addRow(self.tr("Instructions"), self._system)
        form.addRow("", self._nep_hint)
        lay = QHBoxLayout(page)
        lay.addWidget(self._paste_edit, 3)
        lay.addLayout(form, 2)
        self._on_profile_changed(schedule=False)
        return page

    # ------------------------------------------------------------------ public API
    def load_file(self, path: str | Path) -> None:
        """Show the file tab and parse ``path`` in the background (``parsed`` fires when done)."""
        p = Path(path)
        if p != self._file_path:
            self._sheet_combo.clear()  # another workbook: its first sheet
        self._file_path = p
        self._path_label.setText(str(p))
        self._path_label.setToolTip(plain_tip(str(p)))
        self._tabs.setCurrentIndex(0)
        self._fill_templates()
        known, limit, folder = self._known, self._max_prompt_chars, self._templates.folder
        template, profile = self._template_combo.currentData(), self._file_profile_combo.currentData()
        sheet = self._sheet_combo.currentData()

        def work() -> StagedBatch:
            parsed = parse_batch_file(p, known_profiles=known, max_prompt_chars=limit, templates_dir=folder,
                                      template=template, profile=profile, sheet=sheet)
            return stage_batch(parsed, p.name)

        self._start(_FILE, work)

    def _reload_file(self) -> None:
        if self._file_path is not None:
            self.load_file(self._file_path)

    def set_pasted(self, text: str, profile: str | None = None, priority: int = 0,
                   system: str | None = None) -> None:
        """Show the paste tab with ``text`` and parse it now (no typing debounce)."""
        if profile is not None:
            idx = self._profile_combo.findData(profile)
            if idx < 0:
                raise ValueError(f"unknown profile {profile!r}")
            self._profile_combo.setCurrentIndex(idx)
        self._priority.setValue(priority)
        self._system.setText(system or "")
        self._paste_edit.setPlainText(text)
        self._tabs.setCurrentIndex(1)
        self._parse_pasted_now()

    def rows(self) -> list[BatchRow]:
        """Valid rows of the current source, in file order."""
        staged = self._current()
        return list(staged.rows) if staged else []

    def errors(self) -> list[RowError]:
        staged = self._current()
        return list(staged.errors) if staged else []

    def source_name(self) -> str | None:
        """The file name for a file batch (the task table's batch column); None for pasted."""
        staged = self._current()
        return staged.source_name if staged else None

    def load_error(self) -> str | None:
        """Why the file as a whole could not be read (missing, too big...), else None."""
        staged = self._current()
        return staged.load_error if staged else None

    def is_busy(self) -> bool:
        """True while the current source is being parsed (or typing is being debounced)."""
        key = self._key()
        return self._gen[key] != self._done_gen[key] or (key == _PASTE and self._paste_timer.isActive())

    @property
    def jobs(self) -> TaskJobs:
        """The parses under way, superseded ones included (``len(dialog.jobs)``)."""
        return self._jobs

    def preview_model(self) -> PreviewModel:
        return self._model

    def submit_button(self) -> QPushButton:
        return self._submit

    def summary_text(self) -> str:
        return self._summary.text()

    def set_errors_only(self, on: bool) -> None:
        self._errors_only.setChecked(on)

    def duplicates(self) -> Duplicates:
        """The operator's choice for the rows that repeat."""
        return Duplicates(self._duplicates.currentData())

    def set_duplicates(self, choice: Duplicates) -> None:
        self._duplicates.setCurrentIndex(self._duplicates.findData(choice.value))

    def repeats(self) -> Mapping[int, RowRepeat]:
        """Line -> what that row of the current source repeats."""
        staged = self._current()
        return staged.repeats if staged else {}

    def accept(self) -> None:
        if self.is_busy() or not self.rows():
            return
        super().accept()

    # ------------------------------------------------------------------ drag and drop
    @staticmethod
    def _local_file(event: QDragEnterEvent | QDropEvent) -> Path | None:
        mime = event.mimeData()
        if mime is None or not mime.hasUrls():
            return None
        for url in mime.urls():
            if url.isLocalFile():
                return Path(url.toLocalFile())
        return None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._local_file(event) is not None:
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if self._local_file(event) is not None:
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        path = self._local_file(event)
        if path is None:
            super().dropEvent(event)
            return
        event.acceptProposedAction()
        self.load_file(path)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A file dropped on the text box or the preview loads it (instead of pasting its URL)."""
        etype = event.type()
        if etype in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop):
            assert isinstance(event, QDropEvent)  # QDragEnterEvent/QDragMoveEvent derive from it
            if self._local_file(event) is not None:
                if etype == QEvent.Type.Drop:
                    self.dropEvent(event)
                else:
                    event.acceptProposedAction()
                return True
        return super().eventFilter(watched, event)

    # ------------------------------------------------------------------ parsing
    def _key(self) -> str:
        return _FILE if self._tabs.currentIndex() == 0 else _PASTE

    def _current(self) -> StagedBatch | None:
        return self._staged[self._key()]

    def _start(self, key: str, work: Callable[[], StagedBatch]) -> None:
        self._gen[key] += 1
        gen = self._gen[key]
        find = self._find_repeats

        def parse() -> StagedBatch:
            with cyclic_gc_paused(), gil_handed_over_often():
                staged = parse_safely(work)
                if find is not None and staged.rows:
                    staged.repeats = find(staged.rows)
                return staged

        self._jobs.in_thread(parse, f"batch-dialog:parse-{key}",
                             lambda staged: self._on_parsed(key, gen, staged))
        self._refresh()

    def _choose_file(self) -> None:
        start = str(self._file_path.parent) if self._file_path else ""
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open batch file"), start,
            self.tr("Batch files (*.jsonl *.ndjson *.json *.csv *.xlsx);;All files (*)"),
        )
        if path:
            self.load_file(path)

    def _on_profile_changed(self, schedule: bool = True) -> None:
        name = self._profile_combo.currentData()
        view = next((p for p in self._profiles if p.name == name), None)
        if view is not None and view.need_empty_prompt:
            self._nep_hint.setText(self.tr("This profile sends the prompt only (need_empty_prompt is on): "
                                           "instructions are not sent."))
        else:
            self._nep_hint.setText("")
        if schedule:
            self._schedule_paste()

    def _schedule_paste(self) -> None:
        self._paste_timer.start()
        self._refresh()

    def _parse_pasted_now(self) -> None:
        self._paste_timer.stop()
        profile = self._profile_combo.currentData()
        text = self._paste_edit.toPlainText()
        if not profile or not text.strip():
            self._gen[_PASTE] += 1
            self._done_gen[_PASTE] = self._gen[_PASTE]
            self._staged[_PASTE] = None
            self._refresh()
            if self._key() == _PASTE:
                self.parsed.emit()
            return
        priority = self._priority.value()
        system = self._system.text() or None
        limit = self._max_prompt_chars

        def work() -> StagedBatch:
            parsed = parse_pasted(text, profile=profile, priority=priority, system=system, max_prompt_chars=limit)
            return stage_batch(parsed, None)

        self._start(_PASTE, work)

    def _on_parsed(self, key: str, gen: int, staged: StagedBatch) -> None:
        if gen != self._gen[key]:
            return  # superseded by a newer file or newer text
        self._done_gen[key] = gen
        self._staged[key] = staged
        if key == _FILE:
            self._show_table_choices(staged)
        self._refresh()
        if key == self._key():
            self.parsed.emit()

    def _show_table_choices(self, staged: StagedBatch) -> None:
        """The pickers for a spreadsheet or CSV (a workbook's sheets too); a JSONL file names its own."""
        self._table_box.setVisible(staged.format in ("csv", "xlsx"))
        workbook = staged.format == "xlsx"
        self._sheet_label.setVisible(workbook)
        self._sheet_combo.setVisible(workbook)
        if workbook and staged.sheets:
            self._sheet_combo.clear()
            for name in staged.sheets:
                self._sheet_combo.addItem(name, name)
            self._sheet_combo.setCurrentIndex(max(0, self._sheet_combo.findData(staged.sheet)))

    def _on_errors_only(self, on: bool) -> None:
        self._model.set_errors_only(on)

    # ------------------------------------------------------------------ display
    def _show_repeats(self, staged: StagedBatch | None) -> None:
        """The count of rows that repeat, and the choice for them (hidden when none do)."""
        repeats = staged.repeats if staged is not None else {}
        done = sum(1 for r in repeats.values() if r.earlier is not None)
        self._repeat_label.setText(self.tr("{done} rows repeat finished tasks, {above} repeat a row above:").format(
            done=done, above=len(repeats) - done))
        self._repeat_label.setVisible(bool(repeats))
        self._duplicates.setVisible(bool(repeats))

    def _refresh(self) -> None:
        staged = self._current()
        busy = self.is_busy()
        if not self._model.shows(staged):
            self._model.set_staged(staged, dark=is_dark(self.palette()))
        self._show_repeats(None if busy else staged)
        valid = len(staged.rows) if staged else 0
        errors = len(staged.errors) if staged else 0
        if busy:
            self._summary.setText(self.tr("Parsing…"))
        elif staged is None:
            self._summary.setText(self.tr("Nothing staged yet"))
        elif staged.encoding not in (None, "UTF-8"):  # the usual encoding goes unsaid, any other is news
            self._summary.setText(self.tr("{valid} valid, {errors} errors, read as {encoding}").format(
                valid=valid, errors=errors, encoding=staged.encoding))
        else:
            self._summary.setText(self.tr("{valid} valid, {errors} errors").format(valid=valid, errors=errors))
        if staged is not None and staged.load_error:
            self._message.setText(staged.load_error)
            self._message.setStyleSheet(f"color: {state_color('failed', is_dark(self.palette())).name()}")
        else:
            self._message.setText("")
            self._message.setStyleSheet("")
        tasks = staged.task_count if staged else 0
        if tasks == 1:
            self._submit.setText(self.tr("Submit 1 task"))
        else:
            self._submit.setText(self.tr("Submit {n} tasks").format(n=tasks))
        self._submit.setEnabled(valid > 0 and not busy)
