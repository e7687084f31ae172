"""Files and other users on a shared machine (issue 19, items 11-14): a shared folder named as an
account's ``profile_dir``, a ``--db`` file of another user, a database password on the command line,
a batch "file" that is a FIFO. Real files; the other user is ``nobody`` (files chowned to it), which
needs root: those tests are skipped with the reason otherwise. The commands run as in
tests/faults/commands.py (the headless ones in-process through ``cli.main``, the console in a child
process; MEDIADESK_FAULTS_SUBPROCESS=1: each in a process of its own); the FIFO's ``run``, which hung
for ever before, always gets a real ``python -m mediadesk`` process (killed after its time).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from mediadesk.store import TaskStore
from mediadesk.store.taskstore import NewTask
from tests.faults.commands import PROCESS_ENV, ConsoleServer, mediadesk
from tests.support import Result, skip_unless
from tests.support import mediadesk as run_mediadesk

ROOT = Path(__file__).resolve().parents[2]
NOBODY = 65534
_NOT_ROOT = "needs root to give a file to another user" if not hasattr(os, "geteuid") or os.geteuid() else None


@pytest.fixture(scope="module", autouse=True)
def _console_server() -> Iterator[None]:
    """The console commands of this module run one after another in one child process (commands.py)."""
    yield
    ConsoleServer.close_shared()


def refused(res: Result, words: str) -> bool:
    return res.rc == 2 and "Traceback" not in res.err and words.lower() in res.err.lower()


def write_config(tmp: Path, body: str = "") -> Path:
    cfg = tmp / "config.toml"
    cfg.write_text(
        f'data_dir = "{tmp / "data"}"\n[[profiles]]\nname = "writer"\nkind = "api"\n'
        f'base_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n{body}', encoding="utf-8")
    return cfg


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


# ------------------------------------------------------------------------ 11: a shared profile_dir
def test_a_shared_folder_named_as_profile_dir_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    """Before: ``mediadesk login`` chmod-ed the shared folder (1777) to 0700 and Chromium filled it."""
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    cfg = write_config(tmp_path, (
        '[[profiles]]\nname = "chat"\nkind = "web"\nsite = "simchat"\nurl = "http://127.0.0.1:9/chat"\n'
        f'[[accounts]]\nname = "acct"\nprofile = "chat"\nprofile_dir = "{shared}"\n'))
    res = mediadesk("login", "acct", "--config", cfg)
    assert refused(res, "every user of this machine may write"), res
    assert str(shared) in res.err
    assert mode(shared) == 0o1777  # not chmod-ed
    assert list(shared.iterdir()) == []  # and nothing written into it


def test_a_new_profile_dir_is_created_private(tmp_path: Path) -> None:
    """What MediaDesk creates for a profile it makes 0700 (and an existing folder of ours is used as is)."""
    from mediadesk.files.safe import ensure_private_dir

    mine = tmp_path / "mine"
    mine.mkdir()
    os.chmod(mine, 0o755)
    ensure_private_dir(mine, what="browser profile", user_chosen=True)
    assert mode(mine) == 0o755  # the user's folder: checked, never chmod-ed
    fresh = tmp_path / "fresh" / "profile"
    ensure_private_dir(fresh, what="browser profile", user_chosen=True)
    assert mode(fresh) == 0o700 and mode(fresh.parent) == 0o700


@skip_unless(_NOT_ROOT is None, _NOT_ROOT or "")
def test_a_profile_dir_of_another_user_is_refused(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    os.chown(theirs, NOBODY, NOBODY)
    cfg = write_config(tmp_path, (
        '[[profiles]]\nname = "chat"\nkind = "web"\nsite = "simchat"\nurl = "http://127.0.0.1:9/chat"\n'
        f'[[accounts]]\nname = "acct"\nprofile = "chat"\nprofile_dir = "{theirs}"\n'))
    res = mediadesk("login", "acct", "--config", cfg)
    assert refused(res, "belongs to another user"), res
    assert os.stat(theirs).st_uid == NOBODY and mode(theirs) == 0o700 and list(theirs.iterdir()) == []


# ------------------------------------------------------------------------ 12: a --db of another user
def _db_of(tmp: Path, name: str = "t.db") -> Path:
    db = tmp / name
    store = TaskStore(db)
    store.add_tasks([NewTask("t1", "writer", "api", "a confidential prompt")])
    store.close()
    return db


@skip_unless(_NOT_ROOT is None, _NOT_ROOT or "")
def test_a_world_writable_database_of_another_user_is_refused(tmp_path: Path) -> None:
    """Before: a 0666 file owned by another user was used as it was: that user reads every prompt and
    result written to it."""
    db = _db_of(tmp_path)
    os.chown(db, NOBODY, NOBODY)
    os.chmod(db, 0o666)
    before = db.read_bytes()
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps({"id": "t2", "profile": "writer", "prompt": "secret"}) + "\n", encoding="utf-8")
    cfg = write_config(tmp_path)
    commands: list[list[str | Path]] = [["run", batch, "--config", cfg, "--db", db, "--quiet"], ["export", "--db", db],
                                        ["cancel", "t1", "--db", db], ["exceptions", "list", "--db", db]]
    for args in commands:
        res = mediadesk(*args)
        assert refused(res, "belongs to another user"), (args, res)
        assert "uid 65534" in res.err or "nobody" in res.err
    assert db.read_bytes() == before  # never written
    assert (os.stat(db).st_uid, mode(db)) == (NOBODY, 0o666)


@skip_unless(_NOT_ROOT is None, _NOT_ROOT or "")
def test_a_sidecar_of_another_user_is_refused(tmp_path: Path) -> None:
    """Our database, but a ``-wal`` planted by another user (0666): SQLite would write our pages into it."""
    db = _db_of(tmp_path)
    wal = tmp_path / "t.db-wal"
    wal.write_bytes(b"")
    os.chown(wal, NOBODY, NOBODY)
    os.chmod(wal, 0o666)
    res = mediadesk("export", "--db", db)
    assert refused(res, "belongs to another user") and "t.db-wal" in res.err, res
    assert wal.read_bytes() == b""


# ------------------------------------------------------------------------ 13: a password in --db
@pytest.mark.parametrize("url", ["postgresql://md:s3cr3t-pw@127.0.0.1:9/md",
                                 "postgres://md@127.0.0.1:9/md?password=s3cr3t-pw&sslmode=disable"])
@pytest.mark.parametrize("command", ["export", "console"])
def test_a_password_in_a_db_url_on_the_command_line_is_refused(url: str, command: str) -> None:
    """Before: the run went on with the password visible to every local user in ``ps`` for its whole
    length. Now nothing is connected to; the message names the ways libpq takes a password."""
    res = mediadesk(command, "--db", url, timeout=60)
    assert refused(res, "PGPASSWORD") and "~/.pgpass" in res.err, res
    assert "s3cr3t-pw" not in res.err + res.out
    assert "visible to every user" in res.err


# ------------------------------------------------------------------------ 14: a FIFO as batch file
@skip_unless(hasattr(os, "mkfifo"), "no FIFOs on this platform")
def test_a_fifo_as_batch_file_is_refused_instead_of_hanging(tmp_path: Path) -> None:
    """Before: ``open()`` on a FIFO nobody writes to blocked for ever, with no output at all."""
    fifo = tmp_path / "batch.jsonl"
    os.mkfifo(fifo)
    cfg = write_config(tmp_path)
    try:
        res = run_mediadesk("run", fifo, "--config", cfg, "--db", tmp_path / "t.db", env=PROCESS_ENV, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("mediadesk run hung on a FIFO")
    assert refused(res, "is not a regular file") and "FIFO" in res.err, res
    assert not (tmp_path / "t.db").exists()  # refused before anything was opened


def test_a_device_as_batch_file_is_refused(tmp_path: Path) -> None:
    """Before: /dev/zero was read up to the size limit and refused as too big (a FIFO hung)."""
    res = mediadesk("run", "/dev/zero", "--config", write_config(tmp_path), "--db", tmp_path / "t.db", timeout=60)
    assert refused(res, "is not a regular file") and "character device" in res.err, res
