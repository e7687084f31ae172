"""Switching the running console to another workspace (:class:`WorkspaceSwitcher`: File > Open
config…, File > Recent configs, Setup's "Restart lanes"), and the questions a switch asks.

Order, so nothing is lost and the window always has a workspace: load the new config (an error
keeps the current one running); defer to another console holding that data folder; ask if work is
running or pending; stop the current workspace as closing does; start the new one in the same
window, or offer the previous one again if it cannot start. One module because these steps share
one switcher state (busy flag, current session, tray).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, TypeAlias, TypeVar

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QAbstractButton, QFileDialog, QMenu, QMessageBox, QWidget

from mediadesk.config.model import ConfigError
from mediadesk.ui.app.single_instance import SingleInstance, instance_key
from mediadesk.ui.app.workspace_session import (
    EXIT_CONFIG,
    SchedulerFactory,
    WorkspaceSession,
    WorkspaceSpec,
    WorkspaceStartError,
    load_workspace,
)
from mediadesk.ui.dialogs.close_question import work_in_progress
from mediadesk.ui.dialogs.config_text import config_error_text
from mediadesk.ui.plain import plain
from mediadesk.ui.window.main_window import MainWindow
from mediadesk.ui.window.tray import TrayController
from mediadesk.ui.window.window_state import forget_config, recent_configs, remember_config

__all__ = [
    "StartFailed",
    "StartFailedChoice",
    "SwitchQuestion",
    "WorkspaceSwitcher",
    "ask_start_failed",
    "ask_switch",
]

log = logging.getLogger(__name__)

@dataclass(frozen=True)
class SwitchQuestion:
    running: int
    pending: int
    #: What would be opened.
    target: str


def switch_question_text(q: SwitchQuestion) -> str:
    # the first line is the close question's own (already translated)
    text = QCoreApplication.translate("CloseQuestion", "{running} running, {pending} pending.").format(
        running=q.running, pending=q.pending)
    text += "\n\n" + QCoreApplication.translate(
        "WorkspaceSwitcher", "Switch to {target}: this workspace stops; its running tasks go back to the queue "
        "and resume when this workspace is opened again.").format(target=q.target)
    return text


_T = TypeVar("_T")
Answer: TypeAlias = _T | Awaitable[_T]


async def _answer(value: Answer[_T]) -> _T:
    """An injected dialog may answer at once (tests) or later (the real ones)."""
    if inspect.isawaitable(value):
        return await value
    return value


async def _clicked(box: QMessageBox) -> QAbstractButton | None:
    """Show ``box`` window-modal with ``open()`` and wait for the click without blocking the loop.
    Never ``exec()`` inside a task: its nested event loop would run the lanes' tasks while this one
    is still being executed (asyncio refuses, and tasks are lost)."""
    fut: asyncio.Future[QAbstractButton | None] = asyncio.get_running_loop().create_future()

    def done(*_args: object) -> None:
        if not fut.done():
            fut.set_result(box.clickedButton() if shiboken6.isValid(box) else None)

    box.finished.connect(done)
    box.destroyed.connect(done)
    box.open()
    try:
        return await fut
    finally:
        if shiboken6.isValid(box):
            box.deleteLater()


async def ask_switch(parent: QWidget | None, q: SwitchQuestion) -> bool:
    """The close question's shape: Switch (destructive) / Cancel (default). True: switch."""
    box = plain(QMessageBox(QMessageBox.Icon.Question, QCoreApplication.translate("CloseQuestion", "Work in progress"),
                            switch_question_text(q), QMessageBox.StandardButton.NoButton, parent))
    box.setObjectName("switchQuestion")
    switch_b = box.addButton(QCoreApplication.translate("WorkspaceSwitcher", "Switch"),
                             QMessageBox.ButtonRole.DestructiveRole)
    cancel_b = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(cancel_b)
    box.setEscapeButton(cancel_b)
    return await _clicked(box) is switch_b


class StartFailedChoice(str, Enum):
    REOPEN = "reopen"    # the previous workspace
    OTHER = "other"      # choose another config
    QUIT = "quit"


@dataclass(frozen=True)
class StartFailed:
    error: WorkspaceStartError
    target: str
    #: The workspace that can be reopened (None: it could not be reopened either).
    previous: str | None


async def ask_start_failed(parent: QWidget | None, f: StartFailed) -> StartFailedChoice:
    text = QCoreApplication.translate("WorkspaceSwitcher", "{target} could not be opened:\n{error}").format(
        target=f.target, error=f.error.text)
    box = plain(QMessageBox(QMessageBox.Icon.Warning, f.error.title, text, QMessageBox.StandardButton.NoButton, parent))
    box.setObjectName("switchFailed")
    reopen_b = (box.addButton(QCoreApplication.translate("WorkspaceSwitcher", "Reopen {previous}").format(
        previous=f.previous), QMessageBox.ButtonRole.AcceptRole) if f.previous is not None else None)
    other_b = box.addButton(QCoreApplication.translate("WorkspaceSwitcher", "Open another config…"),
                            QMessageBox.ButtonRole.ActionRole)
    quit_b = box.addButton(QCoreApplication.translate("CloseQuestion", "Quit"),
                           QMessageBox.ButtonRole.DestructiveRole)
    box.setDefaultButton(reopen_b if reopen_b is not None else other_b)
    box.setEscapeButton(reopen_b if reopen_b is not None else other_b)
    clicked = await _clicked(box)
    if reopen_b is not None and clicked is reopen_b:
        return StartFailedChoice.REOPEN
    if clicked is other_b:
        return StartFailedChoice.OTHER
    if clicked is quit_b:
        return StartFailedChoice.QUIT
    return StartFailedChoice.OTHER if reopen_b is None else StartFailedChoice.REOPEN  # the box went away


# --------------------------------------------------------------------------- the switcher


class WorkspaceSwitcher(QObject):
    """File > Open config… and File > Recent configs for one console window.

    Owns the current :attr:`session` and its :class:`TrayController` (notices and close question
    are per scheduler). The dialogs are injectable: ``choose_file``, ``ask`` (the switch question),
    ``ask_failed`` (what to do when the new workspace cannot start)."""

    def __init__(self, window: MainWindow, session: WorkspaceSession, *, settings: QSettings | None = None,
                 tray_available: bool | Callable[[], bool] | None = None,
                 scheduler_factory: SchedulerFactory | None = None) -> None:
        super().__init__(window)
        self.window = window
        self.session: WorkspaceSession = session
        self.settings = settings if settings is not None else window.settings
        self.tray_available = tray_available
        self.scheduler_factory = scheduler_factory
        self.choose_file: Callable[[], Answer[Path | None]] = self._ask_file
        self.ask: Callable[[SwitchQuestion], Answer[bool]] = lambda q: ask_switch(self.window, q)
        self.ask_failed: Callable[[StartFailed], Answer[StartFailedChoice]] = (
            lambda f: ask_start_failed(self.window, f))
        #: Every switch question asked, and every start failure met (tests read them).
        self.asked: list[SwitchQuestion] = []
        self.failures: list[StartFailed] = []
        #: The config error of the last refused config (its text names the key), else "".
        self.last_error = ""
        #: Set when the operator chose Quit after a failed start: the app closes the window.
        self.gave_up = False
        self._task: asyncio.Task[bool] | None = None
        self._busy = False
        self.tray = self._make_tray()
        session.on_activate = window.bring_to_front
        acts = window.window_actions
        acts.open_config.triggered.connect(self.choose_and_open)
        window.restartLanesRequested.connect(self.restart_lanes)
        window.can_restart_lanes = not session.spec.demo  # the demo rewrites its setup at each start
        acts.recent_menu.aboutToShow.connect(self.fill_recent_menu)
        self.window.config_path = session.config_path
        self.window.show_workspace_title()
        if not session.spec.demo and session.config_path is not None:
            remember_config(self.settings, session.config_path)
        self.fill_recent_menu()

    def _make_tray(self) -> TrayController:
        return TrayController(self.window, self.session.scheduler, self.session.bridge,
                              tray_available=self.tray_available)

    # ------------------------------------------------------------------ entry points
    @property
    def busy(self) -> bool:
        return self._busy or (self._task is not None and not self._task.done())

    def choose_and_open(self) -> asyncio.Task[bool] | None:
        """File > Open config…: ask for a file, then :meth:`open_config` it (a task on the loop)."""
        return self._spawn(self._choose_then_open())

    async def _choose_then_open(self) -> bool:
        path = await _answer(self.choose_file())
        return await self.open_config(path) if path is not None else False

    def open_later(self, path: Path) -> asyncio.Task[bool] | None:
        """Start :meth:`open_config` on the loop (menu actions); None while a switch is under way."""
        return self._spawn(self.open_config(path))

    def _spawn(self, coro: Coroutine[Any, Any, bool]) -> asyncio.Task[bool] | None:
        if self.busy:
            coro.close()
            self.window.status_line.show_status(self.tr("A workspace switch is already under way"))
            return None
        self._task = task = asyncio.get_running_loop().create_task(coro, name="console:switch")
        task.add_done_callback(self._switch_done)
        return task

    def _switch_done(self, task: asyncio.Task[bool]) -> None:
        """A switch that raised (a bug: every known failure is a question) is logged and said."""
        if task.cancelled() or (exc := task.exception()) is None:
            return
        log.error("console: the workspace switch failed", exc_info=exc)
        if shiboken6.isValid(self.window):
            self.window.setEnabled(True)
            self.window.status_line.notify(self.tr("Config not opened"), str(exc), error=True)

    async def cancel_switch(self) -> None:
        """The app is quitting (the window refuses to close during a switch, so: the system's
        quit): a switch under way stops where it is, and whatever it had started is stopped by its
        own cleanup; the app then stops :attr:`session`."""
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # ------------------------------------------------------------------ the switch
    async def open_config(self, path: Path) -> bool:
        """Switch this window to the config at ``path``; True when it now shows it."""
        if self._busy:
            self.window.status_line.show_status(self.tr("A workspace switch is already under way"))
            return False
        self._busy = True
        try:
            return await self._open_config(Path(path))
        finally:
            self._busy = False

    async def _open_config(self, path: Path) -> bool:
        try:
            config, workspace = load_workspace(path)
        except ConfigError as exc:
            self.last_error = str(exc)
            self._forget_if_gone(path)
            self.window.status_line.notify(self.tr("Config not opened"), self.tr(
                "The configuration could not be loaded:\n{error}\n\nFix that key in the file and open it "
                "again. {current} keeps running.").format(error=config_error_text(exc),
                                                          current=self.session.spec.label()),
                error=True)
            return False
        self.last_error = ""
        current = self.session.workspace
        if current is not None and workspace.data_dir == current.data_dir and self._same_file(path):
            self.window.status_line.show_status(self.tr("{path} is already open").format(path=path))
            return False
        editor = self.window.setup_editor
        if editor is not None and editor.dirty:  # closing it would ask, and edits another workspace's config
            editor.show()
            editor.raise_()
            self.window.status_line.notify(self.tr("Config not opened"), self.tr(
                "Setup has changes not saved to {path}: save or close it first. {current} keeps running.").format(
                    path=editor.path, current=self.session.spec.label()), error=True)
            return False
        if current is None or workspace.data_dir != current.data_dir:
            probe = SingleInstance(instance_key(workspace.data_dir))
            try:
                if probe.activate_existing():
                    self.window.status_line.notify(self.tr("Config not opened"), self.tr(
                        "Another MediaDesk console already has {dir} open; it was brought to the front. "
                        "{current} keeps running here.").format(dir=workspace.data_dir,
                                                                 current=self.session.spec.label()))
                    return False
            finally:
                probe.close()
                probe.deleteLater()
        running, pending = work_in_progress(self.session.scheduler)
        if running or pending:
            q = SwitchQuestion(running, pending, str(path))
            self.asked.append(q)
            if not await _answer(self.ask(q)):
                self.window.status_line.show_status(self.tr("Nothing changed: {current} keeps running").format(
                    current=self.session.spec.label()))
                return False
        nxt = WorkspaceSession(WorkspaceSpec(path), config=config, workspace=workspace,
                               scheduler_factory=self.scheduler_factory)
        return await self._switch(nxt)

    def restart_lanes(self) -> asyncio.Task[bool] | None:
        """Setup's "Restart lanes": stop this workspace's lanes cleanly (running tasks go back to the
        queue, their attempt refunded), start them again from the saved config, resume."""
        return self._spawn(self._restart())

    async def _restart(self) -> bool:
        spec = self.session.spec
        if self._busy or spec.demo:
            return False
        self._busy = True
        try:
            try:
                config, workspace = load_workspace(spec.config_path, spec.data_dir, spec.db)
            except ConfigError as exc:
                self.window.status_line.notify(self.tr("Lanes not restarted"), self.tr(
                    "The saved configuration could not be loaded:\n{error}\n\nThe lanes keep running as they "
                    "are.").format(error=config_error_text(exc)), error=True)
                return False
            running, pending = work_in_progress(self.session.scheduler)
            if running:
                q = SwitchQuestion(running, pending, self.tr("the same workspace, restarted with the saved setup"))
                self.asked.append(q)
                if not await _answer(self.ask(q)):
                    self.window.status_line.show_status(self.tr("Lanes not restarted"))
                    return False
            editor = self.window.setup_editor
            if editor is not None and not editor.dirty:
                editor.close()  # it edits the stopping scheduler's setup; reopen it on the new one
            nxt = WorkspaceSession(spec, config=config, workspace=workspace,
                                   scheduler_factory=self.scheduler_factory)
            done = await self._switch(nxt)
            if done:
                self.window.status_line.show_status(self.tr("Lanes restarted with the saved setup"))
            return done
        finally:
            self._busy = False

    def _forget_if_gone(self, path: Path) -> None:
        if not path.exists():
            forget_config(self.settings, path)
            self.fill_recent_menu()

    def _same_file(self, path: Path) -> bool:
        mine = self.session.spec.config_path or self.session.config_path
        try:
            return mine is not None and mine.resolve() == path.resolve()
        except OSError:
            return False

    async def _switch(self, nxt: WorkspaceSession) -> bool:
        """Stop the current workspace, start ``nxt`` in its place; on failure offer the previous one
        (or another config, or quit) until the window has a workspace again or the operator quits."""
        wanted = nxt
        previous: WorkspaceSpec | None = self.session.spec
        self.window.status_line.show_status(self.tr("Opening {target}…").format(target=nxt.spec.label()), 0)
        await self._stop_current()
        while True:
            try:
                nxt.on_activate = self.window.bring_to_front
                await nxt.start()
            except (WorkspaceStartError, ConfigError) as exc:
                err = exc if isinstance(exc, WorkspaceStartError) else WorkspaceStartError(
                    self.tr("Config not opened"), config_error_text(exc), EXIT_CONFIG)
                failed_previous = nxt.spec == previous
                if failed_previous:
                    previous = None  # it could not be reopened: offer the other ways on
                failure = StartFailed(err, nxt.spec.label(), previous.label() if previous is not None else None)
                self.failures.append(failure)
                log.warning("console: %s could not be opened: %s", nxt.spec.label(), err.text)
                self.window.setEnabled(True)
                spec = await self._after_failure(failure, previous)
                if spec is None:
                    self.gave_up = True
                    self.window.status_line.show_status(self.tr("No workspace is open"), 0)
                    self.window.close_guard = None
                    self.window.close()
                    return False
                nxt = WorkspaceSession(spec, scheduler_factory=self.scheduler_factory)
                self.window.setEnabled(False)
                continue
            await self._bind(nxt)
            return nxt is wanted

    async def _after_failure(self, failure: StartFailed, previous: WorkspaceSpec | None) -> WorkspaceSpec | None:
        """What to start now: the previous workspace, another config (asked again until one is
        chosen), or None: quit."""
        while True:
            choice = await _answer(self.ask_failed(failure))
            if choice is StartFailedChoice.REOPEN and previous is not None:
                return previous
            if choice is StartFailedChoice.OTHER:
                path = await _answer(self.choose_file())
                if path is not None:
                    return WorkspaceSpec(path)
                continue  # no file chosen: the same question again
            if choice is StartFailedChoice.QUIT:
                return None

    async def _stop_current(self) -> None:
        """The window close's own path: background jobs end, then the scheduler stops."""
        self.window.setEnabled(False)  # no action reaches a scheduler that is stopping
        self.window.close_guard = self._refuse_close
        self.tray.close()
        self.tray.deleteLater()
        await self.window.aclose()
        await self.session.stop()

    def _refuse_close(self) -> bool:
        self.window.status_line.show_status(self.tr("Wait until the workspace switch is done"))
        return False

    async def _bind(self, session: WorkspaceSession) -> None:
        self.session = session
        self.window.can_restart_lanes = not session.spec.demo
        self.window.rebind_workspace(session.scheduler, session.bridge, demo_batch=session.demo_batch)
        self.window.config_path = session.config_path
        self.window.show_workspace_title()
        self.tray = self._make_tray()  # its close guard is the window's again
        self.window.setEnabled(True)
        if not session.spec.demo and session.spec.config_path is not None:
            remember_config(self.settings, session.spec.config_path)
        self.fill_recent_menu()
        await self.window.start()
        self.window.status_line.show_status(self.tr("Opened {target}").format(target=session.spec.label()))

    # ------------------------------------------------------------------ recent configs
    def fill_recent_menu(self) -> None:
        """The last configs opened, newest first; a file no longer there is shown disabled."""
        menu: QMenu = self.window.window_actions.recent_menu
        for act in menu.actions():
            menu.removeAction(act)
            act.deleteLater()
        paths = recent_configs(self.settings)
        for i, path in enumerate(paths, 1):
            present = path.is_file()
            text = f"&{i} {path}" if present else self.tr("{path} (not found)").format(path=path)
            act = QAction(text, menu)
            act.setObjectName(f"recentConfig{i}")
            act.setData(str(path))
            act.setEnabled(present)
            act.triggered.connect(lambda _c=False, p=path: self.open_recent(p))
            menu.addAction(act)
        if not paths:
            none = QAction(self.tr("No recent configs"), menu)
            none.setEnabled(False)
            menu.addAction(none)
            return
        menu.addSeparator()
        clear = QAction(self.tr("Clear the list"), menu)
        clear.setObjectName("recentConfigsClear")
        clear.triggered.connect(self.clear_recent)
        menu.addAction(clear)

    def open_recent(self, path: Path) -> asyncio.Task[bool] | None:
        if not path.is_file():
            forget_config(self.settings, path)
            self.fill_recent_menu()
            self.window.status_line.show_status(self.tr("{path} is no longer there; removed from the recent configs")
                                    .format(path=path))
            return None
        return self.open_later(path)

    def clear_recent(self) -> None:
        for path in recent_configs(self.settings):
            forget_config(self.settings, path)
        self.fill_recent_menu()

    # ------------------------------------------------------------------ dialogs and teardown
    async def _ask_file(self) -> Path | None:
        """The file dialog, window-modal with ``open()`` (see :func:`_clicked` for why not ``exec()``)."""
        here = self.session.config_path
        # the welcome panel's own words (already translated)
        dlg = QFileDialog(self.window, QCoreApplication.translate("WelcomePanel", "Open a MediaDesk config"),
                          str(here.parent) if here is not None else "",
                          QCoreApplication.translate("WelcomePanel", "MediaDesk config (*.toml);;All files (*)"))
        dlg.setFileMode(QFileDialog.FileMode.ExistingFile)
        dlg.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
        fut: asyncio.Future[Path | None] = asyncio.get_running_loop().create_future()

        def done(*_args: object) -> None:
            if not fut.done():
                files = dlg.selectedFiles() if shiboken6.isValid(dlg) and dlg.result() else []
                fut.set_result(Path(files[0]) if files else None)

        dlg.finished.connect(done)
        dlg.destroyed.connect(done)
        dlg.open()
        try:
            return await fut
        finally:
            if shiboken6.isValid(dlg):
                dlg.deleteLater()

    def close(self) -> None:
        """The window is going: hide the tray icon."""
        if shiboken6.isValid(self.tray):
            self.tray.close()
