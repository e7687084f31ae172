"""A database that cannot be used is a clear message and exit 2 from every command and from the console,
never a traceback, and a file that is not ours is never changed.

Real files; the demo and runs as another user are real ``python -m mediadesk`` processes, the console
runs in a child process (one for the module, a command after another), the other commands run through
the same ``cli.main`` in-process (tests/faults/commands.py; set MEDIADESK_FAULTS_SUBPROCESS=1 to run
them all as processes of their own). The storage
faults are real too: a small tmpfs (full, or remounted read-only), and a database of another user opened
as ``nobody``; those need root and are skipped with the reason otherwise.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from mediadesk.store import TaskReader, TaskStore
from mediadesk.store.taskstore import NewTask
from tests.faults.commands import ConsoleServer, mediadesk
from tests.support import Result, skip_unless

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------------------------------ helpers
@pytest.fixture(scope="module", autouse=True)
def _console_server() -> Iterator[None]:
    """The console commands of this module run one after another in one child process (commands.py)."""
    yield
    ConsoleServer.close_shared()


def write_config(where: Path, data_dir: Path) -> Path:
    """An API profile on a port nobody listens on: a command that wrongly gets past the database fails
    fast instead of waiting for a server."""
    cfg = where / "config.toml"
    cfg.write_text(
        f"""
data_dir = "{data_dir}"
[retry]
max_retries = 0
backoff_base_s = 0.05
[[profiles]]
name = "writer"
kind = "api"
base_url = "http://127.0.0.1:9/v1"
model = "m"
""",
        encoding="utf-8",
    )
    return cfg


def write_batch(where: Path, rows: int = 1, prompt_chars: int = 10) -> Path:
    batch = where / "b.jsonl"
    batch.write_text(
        "".join(json.dumps({"id": f"t{i}", "profile": "writer", "prompt": f"{i} " + "x" * prompt_chars}) + "\n"
                for i in range(rows)),
        encoding="utf-8",
    )
    return batch


def commands(cfg: Path, batch: Path, data: Path, *, console: bool = True) -> dict[str, list[str | Path]]:
    """Every command that opens the database of the workspace ``data``."""
    cmds: dict[str, list[str | Path]] = {
        "run": ["run", batch, "--config", cfg, "--data-dir", data, "--quiet"],
        "export": ["export", "--data-dir", data],
        "export --out": ["export", "--data-dir", data, "--out", data.parent / "out.jsonl"],
        "cancel": ["cancel", "t0", "--data-dir", data],
        "exceptions list": ["exceptions", "list", "--data-dir", data],
        "exceptions resolve": ["exceptions", "resolve", "t0", "drop", "--config", cfg, "--data-dir", data],
    }
    if console:
        cmds["console"] = ["console", "--config", cfg, "--data-dir", data]
    return cmds


def refusals(cmds: dict[str, list[str | Path]], words: str, **kw: object) -> dict[str, Result]:
    """The commands that did NOT refuse with ``words`` (empty: all did), with what they did instead."""
    bad = {}
    for name, args in cmds.items():
        res = mediadesk(*args, **kw)  # type: ignore[arg-type]
        if not res.refused(words):
            bad[name] = res
    return bad


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_mediadesk_db(db: Path, tasks: int = 3) -> None:
    store = TaskStore(db)
    try:
        store.add_tasks([NewTask(f"t{i}", "writer", "api", f"prompt {i}") for i in range(tasks)])
    finally:
        store.close()


@pytest.fixture
def ws(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(config, batch, data dir): the database is ``<data>/mediadesk.db``."""
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    return write_config(tmp_path, data), write_batch(tmp_path), data


# ------------------------------------------------------------------------------------------ bad files
def test_a_database_path_that_is_a_directory(ws: tuple[Path, Path, Path]) -> None:
    cfg, batch, data = ws
    (data / "mediadesk.db").mkdir()
    bad = refusals(commands(cfg, batch, data), "is a directory")
    assert not bad, bad


def test_a_garbage_file_is_not_a_database_and_stays_as_it_was(ws: tuple[Path, Path, Path]) -> None:
    cfg, batch, data = ws
    db = data / "mediadesk.db"
    db.write_bytes(os.urandom(8192))
    before = digest(db)
    bad = refusals(commands(cfg, batch, data), "is not an SQLite database")
    assert not bad, bad
    assert digest(db) == before


def test_a_file_too_short_to_be_a_database(ws: tuple[Path, Path, Path]) -> None:
    cfg, batch, data = ws
    (data / "mediadesk.db").write_text("these are my notes, not a database\n", encoding="utf-8")
    bad = refusals(commands(cfg, batch, data, console=False), "is not an SQLite database")
    assert not bad, bad


def test_a_truncated_database_is_reported_damaged_and_left_alone(ws: tuple[Path, Path, Path]) -> None:
    cfg, batch, data = ws
    db = data / "mediadesk.db"
    make_mediadesk_db(db, tasks=400)
    raw = db.read_bytes()
    assert len(raw) >= 4 * 4096
    db.write_bytes(raw[: len(raw) // 2])
    before = digest(db)
    bad = refusals(commands(cfg, batch, data), "is damaged")
    assert not bad, bad
    assert digest(db) == before


def test_a_foreign_database_is_refused_and_never_modified(ws: tuple[Path, Path, Path]) -> None:
    cfg, batch, data = ws
    db = data / "mediadesk.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE users (name TEXT)")
    con.execute("INSERT INTO users VALUES ('ada')")
    con.commit()
    con.close()
    before = digest(db)
    bad = refusals(commands(cfg, batch, data), "not a MediaDesk database")
    assert not bad, bad
    assert digest(db) == before


def test_a_foreign_database_with_a_task_table_is_refused_and_never_modified(ws: tuple[Path, Path, Path]) -> None:
    """Another program's ``task`` table is not ours: today's check only looked for a table of that name,
    and ``run`` then ALTERed the other program's table."""
    cfg, batch, data = ws
    db = data / "mediadesk.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE task (id INTEGER PRIMARY KEY, title TEXT, done INTEGER)")
    con.execute("INSERT INTO task VALUES (1, 'buy milk', 0)")
    con.commit()
    con.close()
    before = digest(db)
    bad = refusals(commands(cfg, batch, data), "not a MediaDesk database")
    assert not bad, bad
    assert digest(db) == before


def test_a_database_of_another_program_marked_with_its_own_application_id(ws: tuple[Path, Path, Path]) -> None:
    cfg, batch, data = ws
    db = data / "mediadesk.db"
    con = sqlite3.connect(db)
    con.execute("PRAGMA application_id = 1")
    con.execute("PRAGMA user_version = 1")
    con.commit()
    con.close()
    before = digest(db)
    bad = refusals(commands(cfg, batch, data, console=False), "not a MediaDesk database")
    assert not bad, bad
    assert digest(db) == before


def test_a_newer_schema_is_refused_by_every_command_export_included(ws: tuple[Path, Path, Path]) -> None:
    cfg, batch, data = ws
    db = data / "mediadesk.db"
    make_mediadesk_db(db)
    con = sqlite3.connect(db)
    con.execute("PRAGMA user_version = 99")
    con.commit()
    con.close()
    bad = refusals(commands(cfg, batch, data), "newer MediaDesk")
    assert not bad, bad


def test_a_symlinked_database_is_refused_and_its_target_untouched(ws: tuple[Path, Path, Path]) -> None:
    """An empty file is a valid empty SQLite database: followed, the link would get our tables."""
    cfg, batch, data = ws
    victim = data.parent / "victim.db"
    victim.write_bytes(b"")
    (data / "mediadesk.db").symlink_to(victim)
    bad = refusals(commands(cfg, batch, data), "is a symbolic link")
    assert not bad, bad
    assert victim.read_bytes() == b""
    assert not list(data.parent.glob("victim.db-*"))


def test_a_dangling_symlinked_database_creates_nothing_at_its_target(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    cfg, batch = write_config(tmp_path, data), write_batch(tmp_path)
    target = tmp_path / "elsewhere" / "planted.db"
    target.parent.mkdir()
    db = tmp_path / "shared.db"
    db.symlink_to(target)
    for args in (["run", batch, "--config", cfg, "--db", db], ["cancel", "t0", "--db", db],
                 ["export", "--db", db]):
        res = mediadesk(*args)
        assert res.refused("is a symbolic link"), (args, res)
    assert not target.exists()


def test_a_symlinked_lock_file_is_refused_by_every_command_that_locks(ws: tuple[Path, Path, Path]) -> None:
    """Already refused before this work (locking.OwnedFileLock); kept to prove it for every locking command."""
    cfg, batch, data = ws
    victim = data.parent / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    (data / "mediadesk.db.lock").symlink_to(victim)
    cmds = commands(cfg, batch, data)
    locking = {k: v for k, v in cmds.items() if k in ("run", "exceptions resolve", "console")}
    bad = refusals(locking, "is a symbolic link")
    assert not bad, bad
    assert victim.read_bytes() == b"precious\n"


def test_a_symlinked_wal_file_is_refused(ws: tuple[Path, Path, Path]) -> None:
    """SQLite opens ``<db>-wal`` by name: a link there would be written through."""
    cfg, batch, data = ws
    db = data / "mediadesk.db"
    make_mediadesk_db(db)
    victim = data.parent / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    (data / "mediadesk.db-wal").symlink_to(victim)
    bad = refusals({k: v for k, v in commands(cfg, batch, data).items() if k in ("run", "export", "cancel")},
                   "is a symbolic link")
    assert not bad, bad
    assert victim.read_bytes() == b"precious\n"


def test_a_data_dir_that_is_a_file(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.write_text("not a folder\n", encoding="utf-8")
    cfg, batch = write_config(tmp_path, data), write_batch(tmp_path)
    bad = refusals({k: v for k, v in commands(cfg, batch, data).items() if k in ("run", "console")},
                   "is not a directory")
    assert not bad, bad


def test_the_demo_refuses_a_database_path_that_is_a_directory(tmp_path: Path) -> None:
    data = tmp_path / "demo"
    (data / "mediadesk.db").mkdir(parents=True)
    res = mediadesk("demo", "--data-dir", data, timeout=180)
    assert res.refused("is a directory"), res


# ------------------------------------------------------------------------------------------ real storage faults
def _can_mount() -> str | None:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "needs root to mount a small tmpfs"
    if shutil.which("mount") is None or shutil.which("umount") is None:
        return "no mount/umount"
    probe = Path(tempfile.mkdtemp(prefix="mediadesk-mountprobe-"))
    try:
        ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(probe)],
                            capture_output=True, check=False).returncode == 0
        if ok:
            subprocess.run(["umount", str(probe)], check=True)
        return None if ok else "mount -t tmpfs is not permitted here"
    finally:
        probe.rmdir()


_MOUNT_SKIP = _can_mount()
needs_mount = skip_unless(_MOUNT_SKIP is None, _MOUNT_SKIP or "")


class Tmpfs:
    def __init__(self, path: Path) -> None:
        self.path = path

    def remount_ro(self) -> None:
        subprocess.run(["mount", "-o", "remount,ro", str(self.path)], check=True)

    def free_bytes(self) -> int:
        st = os.statvfs(self.path)
        return st.f_bavail * st.f_frsize

    def fill(self, leave: int = 0) -> Path:
        """Write a filler file until only about ``leave`` bytes are free (0: until ENOSPC)."""
        filler = self.path / "filler"
        chunk = b"\0" * 4096
        with open(filler, "wb") as fh:
            try:
                while self.free_bytes() > leave:
                    fh.write(chunk)
                    fh.flush()
            except OSError:
                pass
        return filler


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Tmpfs]:
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(mnt)], check=True)
    try:
        yield Tmpfs(mnt)
    finally:
        if subprocess.run(["umount", str(mnt)], capture_output=True, check=False).returncode != 0:
            subprocess.run(["umount", "-l", str(mnt)], check=False)


@needs_mount
def test_read_only_file_system(tmpfs: Tmpfs, tmp_path: Path) -> None:
    data = tmpfs.path / "data"
    data.mkdir(mode=0o700)
    make_mediadesk_db(data / "mediadesk.db", tasks=3)
    cfg, batch = write_config(tmp_path, data), write_batch(tmp_path)
    tmpfs.remount_ro()
    cmds = commands(cfg, batch, data)
    cmds["export --out"] = ["export", "--data-dir", data, "--out", tmpfs.path / "out.jsonl"]
    del cmds["export"]  # reading needs no write: below
    bad = refusals(cmds, "read-only")
    assert not bad, bad
    # export only reads: it works on a read-only disk
    res = mediadesk("export", "--data-dir", data)
    assert res.rc == 0 and "Traceback" not in res.err, res
    assert sorted(json.loads(line)["task_id"] for line in res.out.splitlines()) == ["t0", "t1", "t2"]


@needs_mount
def test_read_only_file_system_without_a_workspace_yet(tmpfs: Tmpfs, tmp_path: Path) -> None:
    tmpfs.remount_ro()
    data = tmpfs.path / "new-data"
    cfg, batch = write_config(tmp_path, data), write_batch(tmp_path)
    bad = refusals({k: v for k, v in commands(cfg, batch, data).items() if k in ("run", "console")}, "read-only")
    assert not bad, bad


@needs_mount
def test_disk_full_at_start(tmpfs: Tmpfs, tmp_path: Path) -> None:
    """A fresh workspace on a full disk: the tables cannot be created."""
    data = tmpfs.path / "data"
    cfg, batch = write_config(tmp_path, data), write_batch(tmp_path)
    tmpfs.fill()
    bad = refusals({k: v for k, v in commands(cfg, batch, data).items() if k in ("run", "console")}, "is full")
    assert not bad, bad


@needs_mount
def test_disk_full_at_submit_keeps_the_database_whole(tmpfs: Tmpfs, tmp_path: Path) -> None:
    """The database opens (it exists, a little space is left) but the batch does not fit: a message, exit
    2, and the database is intact with none of the batch half-written."""
    data = tmpfs.path / "data"
    data.mkdir(mode=0o700)
    db = data / "mediadesk.db"
    make_mediadesk_db(db, tasks=3)
    cfg = write_config(tmp_path, data)
    batch = write_batch(tmp_path, rows=200, prompt_chars=20_000)  # ~4 MB: more than the whole disk
    filler = tmpfs.fill(leave=512 * 1024)
    res = mediadesk("run", batch, "--config", cfg, "--data-dir", data, "--quiet")
    assert res.refused("is full"), res
    assert "valid rows" not in res.out  # never reported as submitted
    filler.unlink()
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert sorted(r[0] for r in con.execute("SELECT task_id FROM task")) == ["t0", "t1", "t2"]
    finally:
        con.close()


def _nobody() -> str | None:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "needs root to run a command as another user"
    if shutil.which("setpriv") is None:
        return "no setpriv"
    return None


_NOBODY_SKIP = _nobody()


@skip_unless(_NOBODY_SKIP is None, _NOBODY_SKIP or "")
def test_permission_denied_on_a_database_of_another_user() -> None:
    """``--db`` names a database of root's (0600, in root's folder); the commands run as ``nobody``, with a
    data dir of nobody's own."""
    base = Path(tempfile.mkdtemp(prefix="mediadesk-perm-"))
    try:
        os.chmod(base, 0o755)
        shared = base / "shared"
        shared.mkdir(mode=0o755)
        db = shared / "mediadesk.db"
        make_mediadesk_db(db)
        os.chmod(db, 0o600)
        data = base / "nobody-data"
        data.mkdir(mode=0o700)
        os.chown(data, 65534, 65534)
        cfg, batch = write_config(base, data), write_batch(base)
        for p in (cfg, batch):
            os.chmod(p, 0o644)
        cmds: dict[str, list[str | Path]] = {
            "run": ["run", batch, "--config", cfg, "--data-dir", data, "--db", db, "--quiet"],
            "export": ["export", "--db", db],
            "cancel": ["cancel", "t0", "--db", db],
            "exceptions list": ["exceptions", "list", "--db", db],
            "exceptions resolve": ["exceptions", "resolve", "t0", "drop", "--config", cfg, "--db", db],
        }
        bad = refusals(cmds, "permission denied", user="65534", cwd=base)
        assert not bad, bad
    finally:
        with contextlib.suppress(OSError):
            shutil.rmtree(base)


def test_reader_and_store_raise_typed_errors_in_process(tmp_path: Path) -> None:
    """The store's own API (not only the CLI) says what is wrong with a typed error."""
    from mediadesk.store.open_errors import DatabasePathError, NotADatabaseError, StoreOpenError

    (tmp_path / "dir.db").mkdir()
    with pytest.raises(DatabasePathError, match="is a directory"):
        TaskStore(tmp_path / "dir.db")
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"x" * 4096)
    with pytest.raises(NotADatabaseError):
        TaskReader(garbage)
    assert issubclass(NotADatabaseError, StoreOpenError)
