"""Shared fixtures: fast timing config, workspaces in tmp dirs, and the chat simulator's invariants
(``web_invariants``, judged after every test: see tests/web_invariants.py)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from mediadesk.config.location import PgLocation, SqliteLocation, StoreLocation
from mediadesk.config.workspace import Workspace
from tests import web_invariants as wi
from tests.pgserver import PgServer, PgUnavailable
from tests.support import require

_WI_PATCH = pytest.StashKey[pytest.MonkeyPatch]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--all", action="store_true", dest="run_nightly",
                     help="run the nightly tests too (`./dev test --all`): the slow end-to-end cases whose "
                          "claims a faster test of the default run also proves")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("run_nightly"):
        return
    nightly = [item for item in items if item.get_closest_marker("nightly") is not None]
    if nightly:
        config.hook.pytest_deselected(items=nightly)
        items[:] = [item for item in items if item.get_closest_marker("nightly") is None]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", wi.MARKER_HELP)
    # Before any fixture: simulators made by session- and module-scoped fixtures are tracked too.
    mp = pytest.MonkeyPatch()
    wi.install(mp)
    config.stash[_WI_PATCH] = mp


def pytest_unconfigure(config: pytest.Config) -> None:
    mp = config.stash.get(_WI_PATCH, None)
    if mp is not None:
        mp.undo()


@pytest.fixture(autouse=True)
def web_invariants(request: pytest.FixtureRequest) -> Iterator[None]:
    """The two invariants of tests/web_invariants.py, judged at this test's teardown."""
    watch = wi.TestWatch(request.node.nodeid)
    yield
    probe = request.node.get_closest_marker(wi.MARKER) is not None
    problems = watch.judge(concurrency=not probe)
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return Workspace.resolve(data_dir=tmp_path / "data").ensure()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One throw-away PostgreSQL server for the whole run (started on first use, ~2 s)."""
    try:
        server = PgServer.start()
    except PgUnavailable as exc:  # CI installs it (./dev); a bare checkout may not have it
        require(False, f"no PostgreSQL server to start: {exc}")
        raise  # (require does not return)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    """The URL of a fresh, empty PostgreSQL database on the session's server."""
    return pg_server.new_database()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreLocation]:
    """The task store on each back-end: a fresh SQLite file, or a fresh PostgreSQL database (dropped
    afterwards: a hundred left over make the server's stop at the end of the run take ~10 s)."""
    if request.param == "sqlite":
        yield SqliteLocation(tmp_path / "t.db")
        return
    server: PgServer = request.getfixturevalue("pg_server")
    template: str = request.getfixturevalue("pg_head_template")
    name = f"s_{uuid.uuid4().hex[:12]}"
    server.psql(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    loc = PgLocation(server.url(name))
    yield loc
    server.psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def pg_head_template(pg_server: PgServer) -> str:
    """A database migrated to the head revision once per run, copied by ``store_location`` (CREATE
    DATABASE ... TEMPLATE: the suites skip ~0.4 s of Alembic per test; a fresh database's upgrade is
    tested on ``pg_url`` in tests/store/test_migrations.py)."""
    from mediadesk.store import open_store

    url = pg_server.new_database("head")
    open_store(url).close()
    return url.rsplit("/", 1)[1]


@pytest.fixture
def any_workspace(store_location: StoreLocation, tmp_path: Path) -> Workspace:
    """A workspace whose store is ``store_location`` (SQLite: the default file of its data dir)."""
    db = store_location.url if isinstance(store_location, PgLocation) else None
    return Workspace.resolve(data_dir=tmp_path / "data", db=db).ensure()
