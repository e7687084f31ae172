"""One open workspace (:class:`WorkspaceSession`: config, single-instance lock, scheduler, bridge;
``start`` / ``stop``) and how a config becomes one (:func:`load_workspace`, the real loader).

The welcome panel's "Open a config...", the app's start and File > Open config… all go through
:func:`load_workspace`, and each starts its choice as a :class:`WorkspaceSession`; switching the
running console from one to another is :mod:`mediadesk.ui.app.workspace_switch`.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject

from mediadesk.config.location import mask_url
from mediadesk.config.model import AppConfig, ConfigError, load_config
from mediadesk.config.template import default_config_path
from mediadesk.config.workspace import Workspace
from mediadesk.files.locks import LockError, LockHeldError
from mediadesk.files.safe import UnsafePathError
from mediadesk.scheduler.backends import preload
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.store import DatabaseBusyError, SchemaError
from mediadesk.store.open_errors import StoreOpenError, storage_error
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.app.single_instance import SingleInstance, SingleInstanceError, instance_key

__all__ = [
    "EXIT_BUSY",
    "EXIT_CONFIG",
    "EXIT_OK",
    "SchedulerFactory",
    "WorkspaceSession",
    "WorkspaceSpec",
    "WorkspaceStartError",
    "load_workspace",
]

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_CONFIG = 2   # same code as the CLI's usage/user errors
EXIT_BUSY = 4     # the database (or the single-instance socket) is held by another process


def load_workspace(config_path: Path | None, data_dir: Path | None = None,
                   db: str | None = None) -> tuple[AppConfig, Workspace]:
    """The config at ``config_path`` (None: ``<data dir>/config.toml``, as the CLI documents), loaded
    with the real loader, and its workspace: the config's own ``data_dir`` unless ``data_dir`` is
    given; its store: ``db`` (``--db``: a file or a ``postgresql://`` URL) else the config's
    ``db_url`` (team mode) else ``<data dir>/mediadesk.db``. Raises :class:`ConfigError` (its message
    names the file and the key)."""
    if config_path is None:
        config_path = default_config_path(data_dir)
        if not config_path.is_file():
            raise ConfigError(QCoreApplication.translate(
                "Console", "{path}: config file not found (pass --config FILE, or try the demo with --demo)"
            ).format(path=config_path))
    config = load_config(config_path)
    try:
        workspace = Workspace.resolve(data_dir=data_dir or config.data_dir, db=db, db_url=config.db_url)
    except ValueError as exc:  # --db given as a URL that is not PostgreSQL's
        raise ConfigError(QCoreApplication.translate("Console", "--db {db}: {error}").format(
            db=mask_url(db or ""), error=exc)) from exc
    return config, workspace


@dataclass(frozen=True)
class WorkspaceSpec:
    """What to open: a config file (``data_dir``: the ``--data-dir`` given on the command line, which
    wins over the config's own), or the demo (``data_dir``: its folder, kept when it is reopened)."""

    config_path: Path | None
    data_dir: Path | None = None
    demo: bool = False
    #: ``--db`` as given (a file, or a ``postgresql://`` URL: team mode); None: the config's ``db_url``
    #: or the data dir's file.
    db: str | None = None

    def label(self) -> str:
        if self.demo:
            return QCoreApplication.translate("WorkspaceSwitcher", "the demo workspace")
        return str(self.config_path) if self.config_path is not None else "config.toml"


class WorkspaceStartError(Exception):
    """The workspace could not be started: ``title`` and ``text`` for the operator, ``exit_code``
    for a console that has nothing else to show. ``handed_over``: another console already has it
    open and was brought to the front."""

    def __init__(self, title: str, text: str, exit_code: int, *, handed_over: bool = False) -> None:
        super().__init__(text)
        self.title = title
        self.text = text
        self.exit_code = exit_code
        self.handed_over = handed_over


def _delete_later(obj: QObject) -> None:
    if shiboken6.isValid(obj):
        obj.deleteLater()


SchedulerFactory = Callable[[AppConfig, Workspace], Scheduler]


def _hand_over_if_open(data_dir: Path) -> None:
    """A console already open on ``data_dir`` is brought to the front: raises the ``handed_over``
    :class:`WorkspaceStartError` (exit 0). Nothing to do when none listens."""
    instance = SingleInstance(instance_key(data_dir))
    try:
        if not instance.activate_existing():
            return
    finally:
        instance.close()
    raise WorkspaceStartError(
        QCoreApplication.translate("Console", "MediaDesk is already running"),
        QCoreApplication.translate("Console", "a console is already open for {dir}; switched to it.").format(
            dir=data_dir),
        EXIT_OK, handed_over=True)


class WorkspaceSession:
    """One open workspace. :meth:`start` takes its single-instance socket and starts its scheduler
    (every failure a :class:`WorkspaceStartError`, with nothing left held); :meth:`stop` undoes it
    in reverse order (bridge, scheduler, socket, the demo's simulators)."""

    def __init__(self, spec: WorkspaceSpec, *, config: AppConfig | None = None, workspace: Workspace | None = None,
                 scheduler_factory: SchedulerFactory | None = None) -> None:
        self.spec = spec
        self.config = config
        self.workspace = workspace
        self.demo_batch: Path | None = None
        #: Another start of the console on this data folder asked for the window.
        self.on_activate: Callable[[], None] = lambda: None
        #: What :meth:`start` is doing now, in words (the demo's simulators, the database...).
        self.on_step: Callable[[str], None] = lambda _text: None
        self._factory: SchedulerFactory = scheduler_factory or (lambda c, w: Scheduler(c, w))
        self._scheduler: Scheduler | None = None
        self._bridge: SchedulerBridge | None = None
        self._stack: AsyncExitStack | None = None

    @property
    def scheduler(self) -> Scheduler:
        if self._scheduler is None:
            raise RuntimeError("workspace session not started")
        return self._scheduler

    @property
    def bridge(self) -> SchedulerBridge:
        if self._bridge is None:
            raise RuntimeError("workspace session not started")
        return self._bridge

    @property
    def started(self) -> bool:
        return self._stack is not None

    @property
    def config_path(self) -> Path | None:
        """The config file the window's Setup… edits."""
        if self.spec.config_path is not None:
            return self.spec.config_path
        return self.workspace.data_dir / "config.toml" if self.workspace is not None else None

    async def start(self) -> None:
        """Raises :class:`WorkspaceStartError` (or :class:`ConfigError` when a config that was not
        given loaded must be read and does not load)."""
        stack = AsyncExitStack()
        try:
            await self._start(stack)
        except BaseException:
            self._scheduler = self._bridge = None
            await stack.aclose()
            raise
        self._stack = stack

    async def _start(self, stack: AsyncExitStack) -> None:
        # the lanes' first imports (Alembic for a new database, Playwright's client for web lanes) in
        # a thread: the window that says what is starting keeps painting meanwhile
        web = self.spec.demo or self.config is None or any(p.kind == "web" for p in self.config.profiles)
        await asyncio.to_thread(preload, web)
        if self.spec.demo:
            await self._start_demo(stack)
        elif self.config is None or self.workspace is None:
            self.config, self.workspace = load_workspace(self.spec.config_path, self.spec.data_dir, self.spec.db)
        assert self.config is not None and self.workspace is not None
        workspace = self.workspace
        _hand_over_if_open(workspace.data_dir)
        instance = SingleInstance(instance_key(workspace.data_dir))
        try:
            instance.listen(lambda: self.on_activate())
        except SingleInstanceError as exc:
            instance.close()
            raise WorkspaceStartError(
                QCoreApplication.translate("Console", "MediaDesk is already running"), str(exc), EXIT_BUSY) from exc
        stack.callback(instance.close)
        self.on_step(QCoreApplication.translate("Console", "Opening the database and starting the lanes…"))
        scheduler = self._factory(self.config, workspace)
        stack.push_async_callback(scheduler.stop)  # also after a failed start: its locks are let go
        try:
            await scheduler.start()
        except DatabaseBusyError as exc:
            raise WorkspaceStartError(
                QCoreApplication.translate("Console", "MediaDesk: database in use"), str(exc), EXIT_BUSY) from exc
        except LockHeldError as exc:  # another MediaDesk on this data dir, with another database
            raise WorkspaceStartError(
                QCoreApplication.translate("Console", "MediaDesk is already running"), str(exc), EXIT_BUSY) from exc
        except LockError as exc:  # a lock file we refuse to use (a planted symlink)
            raise WorkspaceStartError(
                QCoreApplication.translate("Console", "MediaDesk: cannot start"), str(exc), EXIT_CONFIG) from exc
        except SchemaError as exc:
            raise WorkspaceStartError(
                QCoreApplication.translate("Console", "MediaDesk: database error"), str(exc), EXIT_CONFIG) from exc
        except (StoreOpenError, UnsafePathError) as exc:
            raise WorkspaceStartError(
                QCoreApplication.translate("Console", "MediaDesk: cannot open the workspace"), str(exc),
                EXIT_CONFIG) from exc
        except (sqlite3.Error, OSError) as exc:  # a storage fault past the open (disk full while recovering)
            err = storage_error(exc, workspace.db_path if workspace.db_url is None else None)
            if err is None:
                raise
            raise WorkspaceStartError(
                QCoreApplication.translate("Console", "MediaDesk: cannot open the workspace"), str(err),
                EXIT_CONFIG) from exc
        bridge = SchedulerBridge(scheduler.bus)
        stack.callback(lambda: _delete_later(bridge))
        stack.callback(bridge.detach)
        self._scheduler, self._bridge = scheduler, bridge
        if self.config.remote.enabled:  # [remote] enabled: the HTTP API with this workspace (stopped first)
            from mediadesk.remote import start_for_console

            remote = await start_for_console(scheduler)
            if remote is not None:
                stack.push_async_callback(remote.stop)

    async def _start_demo(self, stack: AsyncExitStack) -> None:
        """The demo's simulators and workspace. On a folder given by the caller, a console already
        open there is handed the window first, and the demo checks the folder's lock before it
        writes anything: a second demo never rewrites the config another console runs on."""
        from mediadesk.demo import demo_environment

        if self.spec.data_dir is not None:
            _hand_over_if_open(self.spec.data_dir)
        steps = {
            "simulators": QCoreApplication.translate("Console", "Starting the demo's simulators (a chat site and an "
                                                                "API)…"),
            "workspace": QCoreApplication.translate("Console", "Writing the demo workspace…"),
            "login": QCoreApplication.translate("Console", "Logging the demo accounts in…"),
        }
        try:
            env = await stack.enter_async_context(demo_environment(
                self.spec.data_dir, login=False, on_step=lambda step: self.on_step(steps.get(step, step))))
        except LockHeldError as exc:  # another MediaDesk (a headless run) uses that folder
            raise WorkspaceStartError(
                QCoreApplication.translate("Console", "MediaDesk is already running"), str(exc), EXIT_BUSY) from exc
        except LockError as exc:
            raise WorkspaceStartError(
                QCoreApplication.translate("Console", "MediaDesk: cannot start"), str(exc), EXIT_CONFIG) from exc
        self.config, self.workspace, self.demo_batch = env.config, env.workspace, env.batch_path
        self.spec = WorkspaceSpec(env.config_path, env.workspace.data_dir, demo=True)

    async def stop(self) -> None:
        """Stop the scheduler (running attempts go back to pending, attempt refunded), let go of the
        single-instance socket, stop the demo's simulators. Safe to call twice."""
        stack, self._stack = self._stack, None
        if stack is not None:
            await stack.aclose()
