"""Every file MediaDesk creates is private (0600 files, 0700 directories) whatever the umask, files of
older versions are tightened, and a symlink planted where we create a file is refused, never followed.

Real files, real SQLite, a real Chromium for the browser profile and the evidence.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler
from mediadesk.store import TaskStore, migrate
from mediadesk.store.export import export_to_file
from mediadesk.store.taskstore import NewTask
from tests.faults.commands import mediadesk
from tests.support import Result, make_config, require

ROOT = Path(__file__).resolve().parents[2]
API = [{"name": "writer", "kind": "api", "base_url": "http://127.0.0.1:9/v1", "model": "m"}]


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def modes(paths: list[Path]) -> dict[str, str]:
    return {str(p): oct(mode(p)) for p in paths}


@pytest.fixture(params=[0o022, 0o000], ids=["umask022", "umask000"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    """The process umask for one test (restored after it)."""
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def failure_of(call: Callable[[], object]) -> Exception | None:
    """The exception ``call`` raised, if any (checked after what must hold either way)."""
    try:
        call()
    except Exception as exc:
        return exc
    return None


async def async_failure_of(call: Awaitable[object]) -> Exception | None:
    try:
        await call
    except Exception as exc:
        return exc
    return None


def cli(*args: str | Path, umask_value: int = 0o022) -> Result:
    """``mediadesk ARGS`` under the umask ``umask_value``: in-process through ``cli.main`` (set and
    restored around it), or a process of its own with MEDIADESK_FAULTS_SUBPROCESS=1 (tests/faults/commands.py)."""
    return mediadesk(*args, umask=umask_value)


# ------------------------------------------------------------------------------------------ the workspace
async def test_workspace_database_wal_shm_and_locks_are_private(tmp_path: Path, umask: int) -> None:
    ws = Workspace.resolve(data_dir=tmp_path / "new" / "data")
    sched = Scheduler(make_config(API), ws)
    sched.open()
    try:
        sched.store.add_tasks([NewTask("t1", "writer", "api", "hello")])
        db = ws.db_path
        files = [db, Path(f"{db}-wal"), Path(f"{db}-shm"), Path(f"{db}.lock"), Path(f"{db}.lock.owner"),
                 ws.data_dir / "mediadesk.instance.lock", ws.data_dir / "mediadesk.instance.lock.owner"]
        dirs = [tmp_path / "new", ws.data_dir, ws.profiles_dir, ws.evidence_dir]
        assert all(p.exists() for p in files + dirs), [p for p in files + dirs if not p.exists()]
        assert modes(files) == {str(p): "0o600" for p in files}
        assert modes(dirs) == {str(p): "0o700" for p in dirs}
    finally:
        await sched.stop()


async def test_files_left_loose_by_older_versions_are_tightened(tmp_path: Path) -> None:
    data = tmp_path / "data"
    for d in (data, data / "profiles", data / "profiles" / "acct", data / "evidence"):
        d.mkdir(mode=0o755)
        os.chmod(d, 0o755)
    db = data / "mediadesk.db"
    store = TaskStore(db)
    store.add_tasks([NewTask("t1", "writer", "api", "hello")])
    store.close()
    os.chmod(db, 0o644)
    ws = Workspace.resolve(data_dir=data)
    sched = Scheduler(make_config(API), ws)
    sched.open()
    try:
        assert modes([db, Path(f"{db}-wal"), Path(f"{db}-shm")]) == {
            str(db): "0o600", f"{db}-wal": "0o600", f"{db}-shm": "0o600"}
        assert modes([data / "profiles", data / "evidence"]) == {
            str(data / "profiles"): "0o700", str(data / "evidence"): "0o700"}
        assert mode(data) == 0o755  # an existing data dir is the user's folder: checked, not chmod-ed
    finally:
        await sched.stop()


def test_a_database_given_with_db_is_private_and_its_folder_is_left_as_is(tmp_path: Path, umask: int) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    os.chmod(shared, 0o755)
    db = shared / "t.db"
    store = TaskStore(db)
    try:
        store.add_tasks([NewTask("t1", "writer", "api", "hello")])
        assert modes([db, Path(f"{db}-wal"), Path(f"{db}-shm")]) == {
            str(db): "0o600", f"{db}-wal": "0o600", f"{db}-shm": "0o600"}
    finally:
        store.close()
    assert mode(shared) == 0o755  # not ours to change


def test_a_cli_run_leaves_only_private_files(tmp_path: Path) -> None:
    """``mediadesk cancel`` on a new database under umask 000 (nothing to run)."""
    db = tmp_path / "fresh" / "t.db"
    res = cli("cancel", "nothing", "--db", db, umask_value=0o000)
    assert res.rc == 2 and "database not found" in res.err  # cancel never creates one
    store = TaskStore(db)
    store.add_tasks([NewTask("t1", "writer", "api", "hello")])
    store.close()
    os.chmod(db, 0o666)
    res = cli("cancel", "t1", "--db", db, umask_value=0o000)
    assert res.rc == 0, res.err
    left = sorted(p for p in (tmp_path / "fresh").iterdir())
    assert modes(left) == {str(p): "0o600" for p in left}
    assert mode(tmp_path / "fresh") == 0o700


# ------------------------------------------------------------------------------------------ exports, backups
def test_exports_are_private_whatever_the_umask(tmp_path: Path, umask: int) -> None:
    """Already private before this work (store/export.py); kept as proof."""
    db = tmp_path / "t.db"
    store = TaskStore(db)
    store.add_tasks([NewTask("t1", "writer", "api", "hello")])
    store.close()
    out = tmp_path / "out.csv"
    assert export_to_file(db, out, "csv") == 1
    assert mode(out) == 0o600
    res = cli("export", "--db", db, "--out", tmp_path / "cli.jsonl", umask_value=0o000)
    assert res.rc == 0, res.err
    assert mode(tmp_path / "cli.jsonl") == 0o600


def test_an_export_onto_a_planted_link_never_writes_its_target(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    store = TaskStore(db)
    store.add_tasks([NewTask("t1", "writer", "api", "hello")])
    store.close()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    (tmp_path / "out.jsonl").symlink_to(victim)
    res = cli("export", "--db", db, "--out", tmp_path / "out.jsonl")
    assert victim.read_bytes() == b"precious\n"
    assert res.rc == 2 and "is a symbolic link" in res.err and "Traceback" not in res.err, res


def _old_v1_database(db: Path) -> None:
    """A database as MediaDesk's schema 1 left it (a current one with user_version 1: v2 only adds
    what is missing)."""
    TaskStore(db).close()
    con = sqlite3.connect(db)
    con.execute("PRAGMA user_version = 1")
    con.commit()
    con.close()


def test_the_migration_backup_is_private(tmp_path: Path, umask: int) -> None:
    db = tmp_path / "t.db"
    _old_v1_database(db)
    os.chmod(db, 0o644)
    assert migrate(db) == 1
    backup = tmp_path / "t.db.bak-v1"
    assert backup.exists() and mode(backup) == 0o600
    con = sqlite3.connect(backup)
    try:
        assert con.execute("PRAGMA user_version").fetchone() == (1,)
    finally:
        con.close()


def test_the_migration_backup_never_follows_a_planted_link(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    _old_v1_database(db)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    (tmp_path / "t.db.bak-v1").symlink_to(victim)
    refusal = failure_of(lambda: migrate(db))
    assert victim.read_bytes() == b"precious\n"
    assert type(refusal).__name__ == "UnsafePathError" and "is a symbolic link" in str(refusal)


# ------------------------------------------------------------------------------------------ owner records
def test_planted_owner_record_links_are_refused(tmp_path: Path) -> None:
    """Item 11: no ``<db>.owner`` exists any more; the owner records are ``<lock>.owner``, opened without
    following links (mediadesk/files/locks.py, before this work). Proved here through the CLI."""
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'data_dir = "{data}"\n[[profiles]]\nname = "writer"\nkind = "api"\n'
                   'base_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n', encoding="utf-8")
    for planted in ("mediadesk.db.lock.owner", "mediadesk.instance.lock.owner", "mediadesk.db.owner"):
        link = data / planted
        link.symlink_to(victim)
        # takes both locks and writes both owner records, then finds no task t0 to resolve
        res = cli("exceptions", "resolve", "t0", "drop", "--config", cfg, "--data-dir", data)
        link.unlink()
        assert victim.read_bytes() == b"precious\n", planted
        assert res.rc == 2 and "Traceback" not in res.err, (planted, res.err)
        if planted != "mediadesk.db.owner":  # nothing of ours has that name any more: not even looked at
            assert "is a symbolic link" in res.err, (planted, res.err)


# ------------------------------------------------------------------------------------------ browser side
def test_the_browser_record_never_follows_a_planted_link(tmp_path: Path) -> None:
    from mediadesk.providers.web.selfcheck import RECORD_NAME, BrowserRecord, write_browser_record

    profile = tmp_path / "profile"
    profile.mkdir(mode=0o700)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    (profile / f"{RECORD_NAME}.tmp").symlink_to(victim)
    write_browser_record(profile, BrowserRecord(pid=1, port=2, profile_dir=str(profile), started_at=0.0,
                                                owner_pid=os.getpid()))
    assert victim.read_bytes() == b"precious\n"
    assert mode(profile / RECORD_NAME) == 0o600


@pytest.fixture(scope="module")
def chromium_exe() -> Path:
    from mediadesk.providers.web import BrowserNotFoundError, find_browser

    try:
        return find_browser(probe_version=False).path
    except BrowserNotFoundError as exc:
        require(False, f"no Chromium on this machine: {exc}")
        raise  # (require does not return)


@pytest_asyncio.fixture
async def playwright() -> AsyncIterator[object]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        yield pw


@pytest.mark.browser
async def test_browser_profiles_and_the_browser_log_are_private(
    tmp_path: Path, chromium_exe: Path, playwright: object
) -> None:
    from mediadesk.providers.web.launcher import OwnedBrowser

    old = os.umask(0)
    try:
        ws = Workspace.resolve(data_dir=tmp_path / "data")
        profile = ws.account_profile_dir("acct")
        browser = OwnedBrowser(playwright, chromium_exe, profile)  # type: ignore[arg-type]
        await browser.start()
        try:
            dirs = [ws.data_dir, ws.profiles_dir, profile]
            assert modes(dirs) == {str(p): "0o700" for p in dirs}
            assert mode(browser.log_path) == 0o600
        finally:
            await browser.close()
    finally:
        os.umask(old)


@pytest.mark.browser
async def test_a_planted_link_at_the_browser_log_is_not_followed(
    tmp_path: Path, chromium_exe: Path, playwright: object
) -> None:
    from mediadesk.providers.web.launcher import OwnedBrowser

    profile = tmp_path / "profiles" / "acct"
    profile.parent.mkdir(mode=0o700)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    browser = OwnedBrowser(playwright, chromium_exe, profile)  # type: ignore[arg-type]
    browser.log_path.symlink_to(victim)
    try:
        refusal = await async_failure_of(browser.start())
    finally:
        await browser.close()
    assert victim.read_bytes() == b"precious\n"
    assert type(refusal).__name__ == "UnsafePathError" and "is a symbolic link" in str(refusal)


@pytest.mark.browser
async def test_evidence_is_private_and_never_follows_a_planted_link(
    tmp_path: Path, chromium_exe: Path, playwright: object
) -> None:
    from mediadesk.providers.web.adapter import load_adapter
    from mediadesk.providers.web.driver import PageDriver
    from mediadesk.providers.web.finder import chromium_flags

    adapter = load_adapter(ROOT / "tests" / "providers" / "web" / "pages" / "site_a.toml")
    b = await playwright.chromium.launch(  # type: ignore[attr-defined]
        executable_path=str(chromium_exe), args=chromium_flags(headless=True))
    old = os.umask(0)
    try:
        page = await b.new_page()
        await page.set_content("<html><body><p>an error page</p></body></html>")
        driver = PageDriver(adapter)
        root = tmp_path / "data" / "evidence"
        written = await driver.evidence(page, root / "task-1", "attempt1")
        assert sorted(p.name for p in written) == ["attempt1.html", "attempt1.png"]
        assert modes([root, root / "task-1"]) == {str(root): "0o700", str(root / "task-1"): "0o700"}
        assert modes(written) == {str(p): "0o600" for p in written}
        # planted links at both names: neither victim is written
        victims = []
        for name in ("attempt2.png", "attempt2.html"):
            victim = tmp_path / f"victim-{name}"
            victim.write_text("precious\n", encoding="utf-8")
            (root / "task-1" / name).symlink_to(victim)
            victims.append(victim)
        written = await driver.evidence(page, root / "task-1", "attempt2")
        assert written == []
        assert all(v.read_bytes() == b"precious\n" for v in victims)
    finally:
        os.umask(old)
        await b.close()


async def test_the_demo_workspace_files_are_private(tmp_path: Path) -> None:
    """What the demo writes itself. Its accounts' logins are left to their lanes (``login=False``, as
    the console's demo starts): a browser profile's privacy is the test above, and the profiles
    folder is made (0700) before any login could."""
    from mediadesk.demo import demo_environment

    old = os.umask(0o022)
    try:
        async with demo_environment(tmp_path / "demo", login=False) as env:
            files = [env.config_path, env.batch_path]
            assert modes(files) == {str(p): "0o600" for p in files}
            assert mode(env.workspace.data_dir) == 0o700
            assert mode(env.workspace.profiles_dir) == 0o700
    finally:
        os.umask(old)
