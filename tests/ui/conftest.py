"""Shared Qt + qasync fixtures for the console tests (used by every file in tests/ui).

The pattern (measured: 15 repeated runs clean under ``-W error``): a ``qasync.QEventLoop`` on the
pytest-qt ``qapp``, marked as the running loop, never ``stop()``-ed (that latches Qt's quit flag and
makes every later ``qtbot.waitUntil`` spin to its timeout); at teardown the pending tasks are
cancelled and awaited and the running loop is unset, or later ``asyncio.run()`` tests break. Async work is driven with
``loop.create_task(...)`` + ``qtbot.waitUntil(...)``; the ``arun`` fixture wraps that.

Fixtures:
- ``qloop``: the qasync loop (function scope).
- ``arun``: ``arun(coro, timeout=10.0) -> result`` runs a coroutine to completion on ``qloop``.
- ``api_sim``: a real :class:`ApiSimServer` on 127.0.0.1 (zero latency), started on ``qloop``.
- ``console_env``: tmp workspace + :class:`AppConfig` with two API profiles pointing at the sim
  (``writer`` concurrency 3, ``reasoner`` concurrency 2 with ``need_empty_prompt``), a web
  profile ``chat`` with accounts ``acct-a`` and ``acct-b`` run by :class:`FakeWebBackend`
  (in-process, capacity 1 - no browser), a config TOML file written to disk, and
  ``env.make_scheduler()``.
- ``console_scheduler``: ``console_env.make_scheduler()`` started on ``qloop``, stopped after.
- ``zh_translator``: the shipped ``resources/i18n/mediadesk_zh_CN.qm`` installed for the test
  (``installed_zh()`` is the same as a context manager, for a test that reads both languages).
- ``qsettings_tmp`` (autouse): QSettings (IniFormat) under a tmp dir so no test touches ~/.config.
- ``_no_leaked_widgets`` (autouse): fails a test that leaves a top-level widget behind (as napari's
  ``make_napari_viewer`` does): the top-level widgets after every other fixture's teardown are
  compared with those before the test; a widget already deleted, or hidden with a deleteLater
  pending (gone at the next DeferredDelete pass), is not a leak. Not checked after a failed test
  (its traceback holds the widgets).
- The heap frozen (``_no_leaked_widgets``'s setup, see ``_freeze_what_lives_now``): what lived before
  the test is moved out of the cyclic collector's sight (``gc.freeze``) after a collection, so the
  ``gc.collect()`` calls of the teardowns walk only what this test made (measured: about 0.2-0.5 s per
  teardown saved; a full collection walks every imported module's objects). Unfrozen after the last
  test of this directory in a row (``pytest_runtest_teardown``): other tests run with the collector as
  Python sets it up.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import qasync
import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QSettings, QTranslator
from PySide6.QtWidgets import QApplication

from mediadesk.config.model import AccountConfig, AppConfig, ProfileConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import HealthStatus, LaneBackend, RunContext, TaskSpec
from mediadesk.core.log_lines import LOG
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.backends import default_backend
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.app.start import install_asyncgen_hooks
from mediadesk.ui.window.main_window import MainWindow
from tests.support import make_config

ARun = Callable[..., Any]

SHIPPED_ZH_QM = Path(__file__).resolve().parents[2] / "resources" / "i18n" / "mediadesk_zh_CN.qm"


@contextlib.contextmanager
def installed_zh() -> Iterator[QTranslator]:
    """The shipped Chinese translation installed on the application while the block runs."""
    tr = QTranslator()
    assert tr.load(str(SHIPPED_ZH_QM)), f"{SHIPPED_ZH_QM} does not load"
    QCoreApplication.installTranslator(tr)
    try:
        yield tr
    finally:
        QCoreApplication.removeTranslator(tr)


@pytest.fixture
def zh_translator(qapp: Any) -> Iterator[QTranslator]:
    with installed_zh() as tr:
        yield tr


@contextlib.contextmanager
def open_window(scheduler: Scheduler, arun: ARun, settings: QSettings,
                size: tuple[int, int] | None = None) -> Iterator[MainWindow]:
    """A started main window over ``scheduler``, torn down in the app's own order: aclose (its
    background jobs end), then close and delete. Not qtbot.addWidget: pytest-qt would close and delete
    a registered widget BEFORE fixture teardown, while the window's jobs still run."""
    bridge = SchedulerBridge(scheduler.bus)
    w = MainWindow(scheduler, bridge, settings=settings)
    if size is not None:
        w.resize(*size)
    w.show()
    arun(w.start())
    try:
        yield w
    finally:
        arun(w.aclose(), timeout=60.0)  # bounded by the drains' own 10 s; a failure detector, not a speed budget
        bridge.detach()
        w.close()
        w.deleteLater()
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


#: Whether the test (or its setup) failed: its traceback then keeps the test's widgets alive, so the
#: leak check is skipped, as napari's is (the failure is what to read).
_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when in ("setup", "call") and report.failed:
        item.stash[_FAILED] = True
    return report


#: Top-level widgets Qt creates for itself and keeps for the application's life (one tooltip label,
#: reused by every tooltip): not ours, never a leak.
_QT_OWN_TOP_LEVELS = frozenset({"QTipLabel"})


@pytest.fixture(autouse=True)
def _no_leaked_widgets(qapp: Any, request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail the test if it leaves a top-level widget behind (checked after every other fixture's
    teardown: autouse and requested first, so torn down last).

    pytest keeps the values of the test's fixtures (``item.funcargs``) until just after this point;
    they are dropped here first, as pytest is about to, so that a Python-owned widget whose last
    owner was an already torn-down fixture value (pyqtgraph's parent-less plot menus under a closed
    window) is freed rather than counted. What is left is held by Qt itself or by something that
    outlives the test (a module, a class, a running task): a leak."""
    _freeze_what_lives_now()
    before = {id(w): w for w in QApplication.topLevelWidgets()}
    yield
    if request.node.stash.get(_FAILED, False):
        return
    request.node.funcargs.clear()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()  # a widget owned only by unreachable Python objects is freed here, not leaked
    leaked = [
        w for w in QApplication.topLevelWidgets()
        if shiboken6.isValid(w) and id(w) not in before and type(w).__name__ not in _QT_OWN_TOP_LEVELS
    ]
    if leaked:
        names = ", ".join(f"{type(w).__name__}({w.objectName() or w.windowTitle()!r}, "
                          f"{'visible' if w.isVisible() else 'hidden'})" for w in leaked)
        for w in leaked:  # do not let one leak fail every later test
            w.close()
            w.deleteLater()
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        pytest.fail(f"top-level widgets leaked by this test: {names}", pytrace=False)


def _freeze_what_lives_now() -> None:
    """Collect what is garbage now, then freeze what is left (``gc.freeze``): later ``gc.collect()``
    calls skip it. Only objects that lived before the test are frozen: everything the test makes stays
    collectable, so the teardowns' collections (and the leak check) see it as before. The collection
    here walks only what is not frozen yet (the previous test's survivors and leftovers; everything at
    the first test of a run of this directory's tests): garbage left after the previous teardown is
    freed here, not frozen."""
    gc.collect()
    gc.freeze()


_HERE = Path(__file__).resolve().parent


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    """Once the test's fixtures are torn down: unfreeze the heap unless the next test is one of this
    directory's too (its setup collects what is new and freezes again: one full collection per run of
    this directory's tests, not one per test). Tests elsewhere in this process run unfrozen."""
    try:
        return (yield)
    finally:
        if nextitem is None or _HERE not in nextitem.path.resolve().parents:
            gc.unfreeze()


@pytest.fixture
def qsettings_tmp(tmp_path: Path) -> Path:
    """Point QSettings at a tmp dir (IniFormat, user scope) for the whole test."""
    d = tmp_path / "qsettings"
    d.mkdir()
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(d))
    QCoreApplication.setOrganizationName("MediaDesk")
    QCoreApplication.setApplicationName("MediaDesk-test")
    return d


@pytest.fixture(autouse=True)
def _isolated_qsettings(qsettings_tmp: Path) -> Path:
    return qsettings_tmp


@pytest.fixture
def qloop(qapp: Any, qtbot: Any) -> Iterator[asyncio.AbstractEventLoop]:
    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)
    asyncio.events._set_running_loop(loop)
    restore_hooks = install_asyncgen_hooks(loop)  # as the console does (qasync does not)
    try:
        yield loop
    finally:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for t in pending:
            t.cancel()
        with contextlib.suppress(Exception):
            qtbot.waitUntil(lambda: all(t.done() for t in pending), timeout=10_000)
        closing = loop.create_task(loop.shutdown_asyncgens())
        with contextlib.suppress(Exception):
            qtbot.waitUntil(closing.done, timeout=10_000)
        restore_hooks()
        asyncio.events._set_running_loop(None)
        asyncio.set_event_loop(None)
        loop.close()
        _ignore_late_callbacks(loop)
        _destroy_loop_qobjects(loop)


def _ignore_late_callbacks(loop: asyncio.AbstractEventLoop) -> None:
    """Drop what worker threads hand to the loop after it closed.

    qasync's ``call_soon_threadsafe`` is a queued Qt signal: a thread that finished during the
    teardown above (a ``to_thread`` read, an executor job) may have queued its result before
    ``close()``, and Qt delivers it at the next event processing, by then pytest-qt's own teardown
    or a later test, where it would schedule on the deleted timer ("Internal C++ object
    (_SimpleTimer) already deleted"). A closed loop runs nothing; the queue is flushed here, on
    this test's time."""

    def dropped(callback: Any, *args: Any, context: Any = None) -> None:
        return None

    loop.call_soon = dropped  # type: ignore[method-assign,assignment]
    QApplication.sendPostedEvents()


def _destroy_loop_qobjects(loop: asyncio.AbstractEventLoop) -> None:
    """Destroy the closed loop's QObjects now, on the GUI thread.

    qasync's ``close()`` leaves its timer QObject with live Qt timers (every call_later handle that
    never fired, e.g. a cancelled 15 s timeout) and drops it into a reference cycle. Python's cyclic
    GC may then free it from ANY thread - a worker thread of a later test - where ~QObject cannot
    unregister the timers; the next one to fire hits a dangling receiver (SIGSEGV in
    QMetaObject::cast under QTimerInfoList::activateTimers). Deleting it here, then collecting,
    keeps every QObject death on the thread that owns it."""
    timer = getattr(loop, "_timer", None)
    if timer is not None and shiboken6.isValid(timer):
        shiboken6.delete(timer)
    gc.collect()


@pytest.fixture
def arun(qloop: asyncio.AbstractEventLoop, qtbot: Any) -> ARun:
    """Run a coroutine to completion on the qasync loop, processing Qt events meanwhile."""

    def run(coro: Coroutine[Any, Any, Any], timeout: float = 10.0) -> Any:
        task = qloop.create_task(coro)
        qtbot.waitUntil(task.done, timeout=int(timeout * 1000))
        return task.result()

    return run


@pytest.fixture
def api_sim(qloop: asyncio.AbstractEventLoop, arun: ARun) -> Iterator[ApiSimServer]:
    sim = ApiSimServer(ApiSimConfig(latency=(0.0, 0.0), seed=1))
    arun(sim.start())
    try:
        yield sim
    finally:
        arun(sim.stop())


class FakeWebBackend:
    """An in-process stand-in for one web account (capacity 1, no browser).

    ``delay_s`` per run; ``health_status`` / ``error`` settable by a test (e.g. ``needs_login``:
    then ``available()`` is False, as for a real logged-out account)."""

    #: Optional LaneBackend abilities this stand-in has not got.
    attempt_deadline_s = None
    domain = None
    probe = None
    unavailable_reason = None
    max_run_s = None
    check = None
    check_adapter = None
    resolve_challenge = None
    challenge_screenshot = None

    def __init__(self, account: str, delay_s: float = 0.05) -> None:
        # A web account runs one task at a time, always (one browser session); the lane reads this.
        self.capacity = 1
        self.account = account
        self.delay_s = delay_s
        self.health_status: str = HealthStatus.READY
        self.error: str | None = None
        self.runs: list[str] = []

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        pass

    def available(self) -> bool:
        return self.health_status in (HealthStatus.READY, HealthStatus.BUSY)

    def health(self) -> tuple[str, str | None]:
        return self.health_status, self.error

    async def login(self, *, on_status: Any = None) -> bool:
        """Stands in for the visible-browser login: the account is ready afterwards."""
        self.logins = getattr(self, "logins", 0) + 1
        if on_status is not None:
            on_status(f"log in {self.account} in the browser window")
        self.health_status, self.error = HealthStatus.READY, None
        return True

    async def run(self, task: TaskSpec, ctx: RunContext) -> str:
        self.runs.append(task.task_id)
        ctx.log(LOG.as_is(text=f"fake browser: prompt sent ({len(task.prompt)} chars)"))
        await asyncio.sleep(self.delay_s)
        return f"web answer to {task.prompt}"


@dataclass
class ConsoleEnv:
    config: AppConfig
    workspace: Workspace
    sim: ApiSimServer
    config_path: Path
    web_backends: dict[str, FakeWebBackend] = field(default_factory=dict)

    def backend_factory(self, profile: ProfileConfig, account: AccountConfig | None) -> LaneBackend:
        if profile.kind == "api":
            return default_backend(self.config, self.workspace, profile, account)
        assert account is not None
        backend = self.web_backends.setdefault(account.name, FakeWebBackend(account.name))
        return backend

    def make_scheduler(self) -> Scheduler:
        return Scheduler(self.config, self.workspace, backend_factory=self.backend_factory)


def _config_toml(sim_url: str) -> str:
    return f"""
[retry]
max_retries = 2
backoff_base_s = 0.01
backoff_max_s = 0.2

[heartbeat]
interval_s = 0.05
stale_after_s = 0.5

[scheduler]
poll_interval_s = 0.05
kill_grace_s = 1.0

[[profiles]]
name = "writer"
kind = "api"
base_url = "{sim_url}"
model = "sim-model"
concurrency = 3

[[profiles]]
name = "reasoner"
kind = "api"
base_url = "{sim_url}"
model = "sim-model"
concurrency = 2
need_empty_prompt = true
"""


@pytest.fixture
def console_env(tmp_path: Path, api_sim: ApiSimServer) -> ConsoleEnv:
    url = api_sim.base_url
    config = make_config(
        [
            {"name": "writer", "kind": "api", "base_url": url, "model": "sim-model", "concurrency": 3,
             "instructions": "be brief"},
            {"name": "reasoner", "kind": "api", "base_url": url, "model": "sim-model", "concurrency": 2,
             "need_empty_prompt": True},
            {"name": "chat", "kind": "web", "site": "sim"},
        ],
        [{"name": "acct-a", "profile": "chat"}, {"name": "acct-b", "profile": "chat"}],
    )
    workspace = Workspace.resolve(data_dir=tmp_path / "data").ensure()
    # A file with the API profiles only (a web account there would need a real browser).
    config_path = tmp_path / "mediadesk.toml"
    config_path.write_text(_config_toml(url), encoding="utf-8")
    return ConsoleEnv(config=config, workspace=workspace, sim=api_sim, config_path=config_path)


@pytest.fixture
def console_scheduler(console_env: ConsoleEnv, arun: ARun) -> Iterator[Scheduler]:
    s = console_env.make_scheduler()
    arun(s.start())
    try:
        yield s
    finally:
        arun(s.stop(), timeout=20.0)
