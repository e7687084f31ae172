"""The welcome panel: what the console shows when it has no workspace to open.

Shown on first run or when the config cannot be loaded (its error shown here). Three ways on: try
the demo, open a config (``choose_file``, injectable), or create a workspace (the template written
0600, never over an existing file, then opened with ``open_editor``, injectable). The panel decides
nothing about the scheduler: it resolves :attr:`choice` and emits :attr:`chosen`; the app opens the window.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QCloseEvent, QDesktopServices, QKeyEvent, QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from mediadesk.config.model import load_config
from mediadesk.config.template import write_config_template
from mediadesk.files.safe import UnsafePathError
from mediadesk.ui.app.workspace_session import load_workspace
from mediadesk.ui.dialogs.config_text import config_error_text
from mediadesk.ui.plain import plain

__all__ = ["WelcomeChoice", "WelcomePanel", "open_in_system_editor"]


@dataclass(frozen=True)
class WelcomeChoice:
    """``kind``: "demo", "config" (``path`` set) or "quit" (the panel was closed)."""

    kind: str
    path: Path | None = None
    created: bool = False


def open_in_system_editor(path: Path) -> None:
    QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))


class WelcomePanel(QWidget):
    """The window shown when there is no workspace (first run, or a config that does not load)."""

    #: The operator chose (a :class:`WelcomeChoice`).
    chosen = Signal(object)

    def __init__(self, config_path: Path, *, error: str | BaseException | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        #: Where "Create a workspace" writes, and where the console looked for a config.
        self.config_path = config_path
        self.choice: WelcomeChoice | None = None
        #: "Open a config...": () -> the chosen file, or None. Tests replace it.
        self.choose_file: Callable[[], Path | None] = self._ask_file
        #: "Create a workspace" opens the written file here: (path) -> None. The in-window config
        #: editor replaces it; until then the system's editor for .toml files.
        self.open_editor: Callable[[Path], None] = open_in_system_editor
        #: Asked before anything when the template's place is taken: (path) -> open it instead?
        self.confirm_open_existing: Callable[[Path], bool] = self._ask_open_existing
        self.setObjectName("welcomePanel")
        self.setWindowTitle(self.tr("MediaDesk — welcome"))
        self.resize(760, 480)
        self._rows: list[tuple[QPushButton, QLabel]] = []
        self._build()
        self.set_error(error)

    def _build(self) -> None:
        title = QLabel(self.tr("Welcome to MediaDesk"))
        title.setObjectName("welcomeTitle")
        f = title.font()
        f.setPointSizeF(f.pointSizeF() * 1.6)
        f.setBold(True)
        title.setFont(f)
        intro = plain(QLabel())  # names the config path
        intro.setWordWrap(True)
        intro.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.intro = intro
        self.error_label = plain(QLabel())  # a config error quotes the file
        self.error_label.setObjectName("welcomeError")
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.setStyleSheet("QLabel#welcomeError { border: 1px solid #c0392b; border-radius: 4px;"
                                       " padding: 8px; background: rgba(192, 57, 43, 0.08); }")

        self.demo_button = self._choice_button(
            self.tr("Try the demo"),
            self.tr("A ready workspace with two local simulators (a chat site and an API): "
                    "no account, no network, both lanes work within a minute."))
        self.open_button = self._choice_button(
            self.tr("Open a config..."),
            self.tr("You already have a MediaDesk config file (TOML): open the console with it."))
        self.create_button = self._choice_button(
            self.tr("Create a workspace"),
            self.tr("Write a commented config to {path} and open it for editing; the console opens "
                    "with an empty workspace.").format(path=self.config_path))
        # the main action: drawn as the default, focused, and what Return does (a plain QWidget has no
        # default button of its own: keyPressEvent below)
        self.demo_button.setObjectName("welcomeDemo")
        self.demo_button.setDefault(True)
        self.demo_button.setAutoDefault(True)
        self.setFocusProxy(self.demo_button)
        self.demo_button.clicked.connect(self.choose_demo)
        self.open_button.clicked.connect(self.choose_open)
        self.create_button.clicked.connect(self.choose_create)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(32, 28, 32, 28)
        lay.setSpacing(14)
        lay.addWidget(title)
        lay.addWidget(intro)
        lay.addWidget(self.error_label)
        for button, hint in self._rows:
            row = QHBoxLayout()
            row.addWidget(button)
            row.addWidget(hint, 1)
            lay.addLayout(row)
        cli = QLabel(self.tr("From a terminal: “mediadesk demo”, “mediadesk --config FILE”, or “mediadesk init” "
                             "to write the template."))
        cli.setWordWrap(True)
        cli.setEnabled(False)
        lay.addStretch(1)
        lay.addWidget(cli)

    def _choice_button(self, text: str, hint: str) -> QPushButton:
        button = QPushButton(text)
        button.setMinimumWidth(190)
        button.setMinimumHeight(36)
        label = QLabel(hint)
        label.setWordWrap(True)
        self._rows.append((button, label))
        return button

    # ------------------------------------------------------------------ state
    def set_error(self, error: str | BaseException | None) -> None:
        """Show why the config could not be used (its own words name the file and the key), with
        what to do next; None hides the box. A ConfigError is shown in the console's language (its
        problems are data); a text as it is."""
        about = self.tr("MediaDesk runs batches of prompts over web chat accounts (in a real browser) and "
                        "API models, and keeps every task and answer in a database on this computer.")
        where = (self.tr("No workspace is open: no configuration was found at {path}.") if not error
                 else self.tr("No workspace is open: the configuration could not be used."))
        self.intro.setText(about + "\n\n" + where.format(path=self.config_path))
        if not error:
            self.error_label.hide()
            self.error_label.clear()
            return
        self.error_label.setText(self.tr(
            "The configuration could not be loaded:\n{error}\n\nFix that key in the file and choose "
            "“Open a config...” to load it again, or start from the demo or a fresh workspace."
        ).format(error=config_error_text(error)))
        self.error_label.show()

    def error_text(self) -> str:
        return self.error_label.text() if self.error_label.isVisibleTo(self) else ""

    def _finish(self, choice: WelcomeChoice) -> None:
        if self.choice is not None:
            return
        self.choice = choice
        self.chosen.emit(choice)

    # ------------------------------------------------------------------ the three ways on
    def choose_demo(self) -> None:
        self._finish(WelcomeChoice("demo"))

    def choose_open(self) -> None:
        path = self.choose_file()
        if path is None:
            return
        try:  # checked here (as File > Open config… checks): an error stays in this panel, next to the buttons
            load_workspace(Path(path))
        except Exception as exc:  # ConfigError (its message names the file and key)
            self.set_error(exc)
            return
        self._finish(WelcomeChoice("config", Path(path)))

    def choose_create(self) -> None:
        path = self.config_path
        created = False
        try:
            write_config_template(path)
            created = True
        except FileExistsError:
            if not self.confirm_open_existing(path):
                return
        except (OSError, UnsafePathError) as exc:
            self.set_error(self.tr("{path} could not be written: {error}").format(path=path, error=exc))
            return
        self.open_editor(path)
        try:
            load_config(path)
        except Exception as exc:  # an existing file the operator chose to open
            self.set_error(exc)
            return
        self._finish(WelcomeChoice("config", path, created=created))

    # ------------------------------------------------------------------ dialogs (replaced in tests)
    def _ask_file(self) -> Path | None:
        name, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open a MediaDesk config"), str(self.config_path.parent),
            self.tr("MediaDesk config (*.toml);;All files (*)"))
        return Path(name) if name else None

    def _ask_open_existing(self, path: Path) -> bool:
        answer = QMessageBox.question(
            self, self.tr("A config is already there"),
            self.tr("{path} already exists; it is left as it is. Open it instead?").format(path=path),
            QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Open)
        return answer == QMessageBox.StandardButton.Open

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.demo_button.setFocus(Qt.FocusReason.ActiveWindowFocusReason)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Return / Enter: the focused choice, else the main one (Try the demo)."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not event.modifiers() & ~(
                Qt.KeyboardModifier.KeypadModifier):
            focused = self.focusWidget()
            target = focused if isinstance(focused, QPushButton) and focused.isEnabled() else self.demo_button
            target.click()
            event.accept()
            return
        super().keyPressEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        event.accept()
        self._finish(WelcomeChoice("quit"))
