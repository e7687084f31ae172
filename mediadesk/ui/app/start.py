"""Start the console: one QApplication, one asyncio loop (qasync), the scheduler inside the app.

Order matters: QApplication and translators; the config (none or unloadable: the welcome panel, or
stderr and exit 2 without a screen; never a traceback); single instance and ``scheduler.start()`` (a
busy database or unusable workspace is shown, exit non-zero; shared with workspace switching via
:class:`~mediadesk.ui.app.workspace_session.WorkspaceSession`); the window, until it closes; then
the scheduler stops (running attempts back to pending, refunded). The app never quits on "last
window closed": the main coroutine stops the scheduler inside its own loop.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import qasync
from PySide6.QtCore import QCoreApplication, QLocale, QSettings
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QMessageBox

from mediadesk.config.model import AppConfig, ConfigError
from mediadesk.config.template import default_config_path
from mediadesk.config.workspace import Workspace
from mediadesk.core.text import printable
from mediadesk.files.safe import UnsafePathError
from mediadesk.scheduler.backends import preload
from mediadesk.store.open_errors import StoreOpenError, storage_error
from mediadesk.ui.app.log_file import install_log_file, remove_log_file
from mediadesk.ui.app.workspace_session import (
    EXIT_BUSY,
    EXIT_CONFIG,
    EXIT_OK,
    WorkspaceSession,
    WorkspaceSpec,
    WorkspaceStartError,
    load_workspace,
)
from mediadesk.ui.app.workspace_switch import WorkspaceSwitcher
from mediadesk.ui.dialogs.starting import StartingWindow
from mediadesk.ui.dialogs.welcome import WelcomeChoice, WelcomePanel
from mediadesk.ui.language import chosen_locale
from mediadesk.ui.plain import plain
from mediadesk.ui.screen_fit import install_screen_fit
from mediadesk.ui.style import apply_style, install_translator, missing_fonts
from mediadesk.ui.window.main_window import MainWindow

__all__ = ["EXIT_BUSY", "EXIT_CONFIG", "EXIT_OK", "console_main", "install_asyncgen_hooks", "run_console"]

log = logging.getLogger(__name__)

def _headless() -> bool:
    return QGuiApplication.platformName() in ("offscreen", "minimal", "minimalegl")


def show_error(title: str, text: str) -> None:
    """Always to stderr; also a message box when there is a screen to show it on."""
    print(f"mediadesk: {printable(text)}", file=sys.stderr, flush=True)
    if not _headless() and not os.environ.get("MEDIADESK_NO_DIALOGS"):
        box = plain(QMessageBox(QMessageBox.Icon.Critical, title, text, QMessageBox.StandardButton.Ok))
        box.exec()


def _resolve_config(config_path: Path | None, data_dir: Path | None,
                    db: str | None = None) -> tuple[AppConfig, Workspace]:
    """``config_path`` or ``<data dir>/config.toml`` (as the CLI documents); the config's own
    ``data_dir`` applies unless ``data_dir`` is given, its ``db_url`` unless ``db`` (``--db``) is
    (see :func:`load_workspace`)."""
    return load_workspace(config_path, data_dir, db)


def _welcome_wanted() -> bool:
    """The welcome panel needs a screen; a script (offscreen, MEDIADESK_NO_DIALOGS) gets exit 2."""
    return not _headless() and not os.environ.get("MEDIADESK_NO_DIALOGS")


async def _ask_welcome(
    app: QApplication, create_path: Path, error: str | ConfigError | None,
    on_welcome: Callable[[WelcomePanel], None] | None,
) -> WelcomeChoice:
    """Show the welcome panel until the operator chooses (closing it is "quit")."""
    panel = WelcomePanel(create_path, error=error)
    fut: asyncio.Future[WelcomeChoice] = asyncio.get_running_loop().create_future()

    def done(choice: object) -> None:
        if not fut.done():
            fut.set_result(choice if isinstance(choice, WelcomeChoice) else WelcomeChoice("quit"))

    panel.chosen.connect(done)
    app.aboutToQuit.connect(done)
    panel.open_editor = lambda _path: None  # the console opens it in its Setup editor once up
    panel.show()
    # while the operator reads the panel, import what starting a workspace needs (seconds on a
    # loaded machine): "Try the demo" then reaches its window sooner
    threading.Thread(target=preload, name="preload", daemon=True).start()
    if on_welcome is not None:
        on_welcome(panel)
    try:
        return await fut
    finally:
        app.aboutToQuit.disconnect(done)
        panel.chosen.disconnect(done)
        panel.hide()
        panel.deleteLater()


def install_asyncgen_hooks(loop: asyncio.AbstractEventLoop) -> Callable[[], None]:
    """Make ``loop`` finalize abandoned async generators, as ``asyncio``'s own loop does.

    qasync (0.28, Python 3.11) never installs the hooks, so an async generator left unfinished
    (httpx-sse's event iterator after ``[DONE]``; httpcore's byte stream) is closed by the garbage
    collector outside any task: "async generator ignored GeneratorExit", a connection not given
    back to the pool. Returns a function that restores the previous hooks."""
    old = sys.get_asyncgen_hooks()
    first = getattr(loop, "_asyncgen_firstiter_hook", None)
    final = getattr(loop, "_asyncgen_finalizer_hook", None)
    if first is not None and final is not None:
        sys.set_asyncgen_hooks(firstiter=first, finalizer=final)
    return lambda: sys.set_asyncgen_hooks(*old)


async def console_main(
    app: QApplication,
    config_path: Path | None,
    *,
    data_dir: Path | None = None,
    demo: bool = False,
    db: str | None = None,
    on_window: Callable[[MainWindow], None] | None = None,
    welcome: bool | None = None,
    on_welcome: Callable[[WelcomePanel], None] | None = None,
    tray_available: bool | Callable[[], bool] | None = None,
) -> int:
    """The main coroutine (runs on the qasync loop). ``on_window`` / ``on_welcome`` let a test or a
    script reach the window / the welcome panel once shown. ``welcome``: show the welcome panel when
    no config loads (default: when there is a screen). ``tray_available``: default, ask the system."""
    restore_hooks = install_asyncgen_hooks(asyncio.get_running_loop())
    try:
        return await _console_main(app, config_path, data_dir=data_dir, demo=demo, db=db, on_window=on_window,
                                   welcome=_welcome_wanted() if welcome is None else welcome,
                                   on_welcome=on_welcome, tray_available=tray_available)
    except (StoreOpenError, UnsafePathError, sqlite3.Error, OSError) as exc:
        # the workspace cannot be used (a database that is not ours or is damaged, a full or read-only
        # disk, a planted link...): say so, as the CLI does; anything else is a bug and keeps its traceback
        err = exc if isinstance(exc, StoreOpenError | UnsafePathError) else storage_error(exc)
        if err is None:
            raise
        show_error(QCoreApplication.translate("Console", "MediaDesk: cannot open the workspace"), str(err))
        return EXIT_CONFIG
    finally:
        restore_hooks()


async def _console_main(
    app: QApplication,
    config_path: Path | None,
    *,
    data_dir: Path | None,
    demo: bool,
    on_window: Callable[[MainWindow], None] | None,
    db: str | None = None,
    welcome: bool = False,
    on_welcome: Callable[[WelcomePanel], None] | None = None,
    tray_available: bool | Callable[[], bool] | None = None,
) -> int:
    if demo:
        return await _run_window(app, _demo_session(data_dir), on_window=on_window, tray_available=tray_available)
    error: ConfigError | None = None
    try:
        config, workspace = _resolve_config(config_path, data_dir, db)
    except ConfigError as exc:
        if not welcome:
            show_error(QCoreApplication.translate("Console", "MediaDesk: configuration error"), str(exc))
            return EXIT_CONFIG
        # none found (the first run) is no error: the panel says where it looked
        found = config_path is not None or default_config_path(data_dir).is_file()
        error = exc if found else None  # the panel shows it in the console's language
        while True:
            choice = await _ask_welcome(app, default_config_path(data_dir), error, on_welcome)
            if choice.kind == "demo":
                return await _run_window(app, _demo_session(data_dir), on_window=on_window,
                                         tray_available=tray_available)
            if choice.kind != "config" or choice.path is None:
                return EXIT_OK
            try:  # the same loader and session as File > Open config… in the running console
                config, workspace = _resolve_config(choice.path, data_dir, db)
                break
            except ConfigError as again:  # changed since the panel read it
                error = again
        # a workspace just created opens with its config in the Setup editor
        session = WorkspaceSession(WorkspaceSpec(choice.path, data_dir, db=db), config=config, workspace=workspace)
        return await _run_window(app, session, on_window=on_window, tray_available=tray_available,
                                 open_setup=choice.created)
    setup_path = config_path or Workspace.resolve(data_dir=data_dir).data_dir / "config.toml"
    session = WorkspaceSession(WorkspaceSpec(setup_path, data_dir, db=db), config=config, workspace=workspace)
    return await _run_window(app, session, on_window=on_window, tray_available=tray_available)


def _demo_session(data_dir: Path | None) -> WorkspaceSession:
    """The demo's session, with a window that says what is starting, shown at once."""
    session = WorkspaceSession(WorkspaceSpec(None, data_dir, demo=True))
    starting = StartingWindow(QCoreApplication.translate("Console", "Starting the MediaDesk demo"))
    session.on_step = starting.step
    starting.show()
    starting.step(QCoreApplication.translate("Console", "Starting the demo…"))
    _starting[session] = starting
    return session


#: The "what is starting" window of a session still starting (closed when its main window shows).
_starting: dict[WorkspaceSession, StartingWindow] = {}


def _close_starting(session: WorkspaceSession) -> None:
    starting = _starting.pop(session, None)
    if starting is not None:
        starting.close()
        starting.deleteLater()


async def _say_when_lanes_ready(window: MainWindow, session: WorkspaceSession) -> None:
    """The demo's window is up before its accounts are: say what they are doing until every lane
    has started (browsers warm, the accounts logged in by themselves), then that the demo is ready."""
    accounts = ", ".join(a.name for a in session.config.accounts) if session.config is not None else ""
    window.status_line.show_status(QCoreApplication.translate(
        "Console", "Demo: the accounts ({accounts}) are logging in and their browsers warming up; "
                   "the API lane is ready.").format(accounts=accounts), 0)
    await session.scheduler.wait_ready()
    window.status_line.show_status(QCoreApplication.translate(
        "Console", "Demo ready: both lanes can take tasks. Submit the staged batch to see them work."))


async def _run_window(
    app: QApplication,
    session: WorkspaceSession,
    *,
    on_window: Callable[[MainWindow], None] | None = None,
    tray_available: bool | Callable[[], bool] | None = None,
    open_setup: bool = False,
) -> int:
    try:
        await session.start()
    except WorkspaceStartError as err:
        _close_starting(session)
        if err.handed_over:  # another console has this data folder: it came to the front
            print("mediadesk: " + err.text, file=sys.stderr, flush=True)
        else:
            show_error(err.title, err.text)
        return err.exit_code
    except BaseException:
        _close_starting(session)
        raise
    switcher: WorkspaceSwitcher | None = None
    try:
        closed = asyncio.Event()
        window = MainWindow(session.scheduler, session.bridge, demo_batch=session.demo_batch)
        window.closed.connect(closed.set)
        app.aboutToQuit.connect(closed.set)
        # File > Open config… / Recent configs; the tray icon and the close question (per workspace)
        switcher = WorkspaceSwitcher(window, session, tray_available=tray_available)
        window.show()
        _close_starting(session)
        if on_window is not None:
            on_window(window)
        ready: asyncio.Task[None] | None = None
        try:
            if session.demo_batch is not None:
                ready = asyncio.get_running_loop().create_task(_say_when_lanes_ready(window, session))
            await window.start()
            for advice in missing_fonts():  # text would show as empty boxes: say what to install
                log.warning("%s", advice)
                window.status_line.show_status(advice, 0)
            if open_setup:  # "Create a workspace": its fresh config, in the Setup editor
                window.open_setup_editor(window.config_path)
            if session.demo_batch is not None:
                # a new user sees both lanes work within a minute: the demo batch is staged, one
                # click on Submit runs it
                window.submission.open_batch_dialog(session.demo_batch)
            await closed.wait()
            await switcher.cancel_switch()  # the app quits mid-switch: what it started is stopped
        finally:
            if ready is not None:
                ready.cancel()
            switcher.close()
            await window.aclose()
            window.deleteLater()
        return EXIT_OK
    finally:
        # the workspace the window shows now (File > Open config… may have switched it)
        await (switcher.session if switcher is not None else session).stop()


def run_console(config_path: Path | None, *, data_dir: Path | None = None, demo: bool = False,
                db: str | None = None) -> int:
    """Open the console and block until it is closed; returns the process exit code. ``db``: ``--db``
    (a file, or a ``postgresql://`` URL: team mode)."""
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([sys.argv[0] if sys.argv else "mediadesk"])
    app.setOrganizationName("MediaDesk")
    app.setApplicationName("MediaDesk")
    app.setQuitOnLastWindowClosed(False)
    apply_style(app)
    locale = chosen_locale(QSettings())  # View > Language, else the system's
    if locale is not None:
        QLocale.setDefault(locale)  # numbers and dates too
    translators = install_translator(app, locale)  # keep references: a collected translator uninstalls itself
    screen_fit = install_screen_fit(app)  # every window and dialog fits the screen it opens on
    log_file = install_log_file()  # Help > Open the logs folder
    try:
        with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
            return runner.run(console_main(app, config_path, data_dir=data_dir, demo=demo, db=db))
    except KeyboardInterrupt:
        return 130
    finally:
        remove_log_file(log_file)
        del translators, screen_fit
