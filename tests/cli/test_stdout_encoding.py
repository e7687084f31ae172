"""What the CLI writes to a redirected stdout or stderr is UTF-8 whatever the console's code page: a real
``python -m mediadesk`` child whose streams are set to a legacy code page (cp936, Chinese Windows' ANSI code
page; ascii, POSIX under LANG=C) never dies on an emoji. Also: ``run`` says which encoding it read a batch in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mediadesk.core.states import TaskState
from mediadesk.store import NewTask, TaskStore

ROOT = Path(__file__).resolve().parents[2]
RESULT = "答复 😀 done"
BOM = b"\xef\xbb\xbf"


def run(*args: str | Path, encoding: str) -> subprocess.CompletedProcess[bytes]:
    """``python -m mediadesk ARGS`` with both streams piped (not a terminal) in ``encoding``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": encoding, "PYTHONUTF8": "0"}
    return subprocess.run([sys.executable, "-m", "mediadesk", *map(str, args)], capture_output=True, env=env,
                          cwd=ROOT, timeout=120, check=False)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "t.db"
    store = TaskStore(path)
    store.add_tasks([NewTask("emoji-1", "writer", "api", "说点什么 🎉")])
    (rec,) = store.claim(["writer"], 1, lane="api:writer", account=None, owner="test")
    store.finish(rec, TaskState.SUCCESS, result=RESULT)
    store.close()
    return path


@pytest.mark.parametrize("encoding", ["ascii", "cp936"])
def test_the_legacy_code_page_really_fails_without_us(encoding: str) -> None:
    """The set-up reproduces the bug: plain Python on these streams dies on the emoji."""
    env = {**os.environ, "PYTHONIOENCODING": encoding, "PYTHONUTF8": "0"}
    proc = subprocess.run([sys.executable, "-c", "print('😀')"], capture_output=True, env=env, timeout=60,
                          check=False)
    assert proc.returncode != 0 and b"UnicodeEncodeError" in proc.stderr


@pytest.mark.parametrize("encoding", ["ascii", "cp936"])
def test_export_to_a_redirected_stdout_is_utf8(db: Path, encoding: str) -> None:
    proc = run("export", "--db", db, "--format", "jsonl", encoding=encoding)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    (row,) = [json.loads(line) for line in proc.stdout.decode("utf-8").splitlines()]
    assert row["result"] == RESULT and row["prompt"] == "说点什么 🎉"

    proc = run("export", "--db", db, "--format", "md", encoding=encoding)
    assert proc.returncode == 0 and RESULT in proc.stdout.decode("utf-8")


def test_csv_to_a_redirected_stdout_has_the_bom_unless_asked(db: Path) -> None:
    proc = run("export", "--db", db, "--format", "csv", encoding="cp936")
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    assert proc.stdout.startswith(BOM + b"task_id,") and RESULT in proc.stdout.decode("utf-8-sig")
    proc = run("export", "--db", db, "--format", "csv", "--no-bom", encoding="cp936")
    assert proc.returncode == 0 and proc.stdout.startswith(b"task_id,")


def test_errors_on_stderr_are_utf8_too(tmp_path: Path) -> None:
    missing = tmp_path / "任务 😀" / "t.db"
    proc = run("export", "--db", missing, encoding="ascii")
    assert proc.returncode == 2
    assert "任务 😀" in proc.stderr.decode("utf-8") and b"Traceback" not in proc.stderr


def test_run_says_which_encoding_it_read_the_batch_in(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'data_dir = "{(tmp_path / "data").as_posix()}"\n[[profiles]]\nname = "writer"\nkind = "api"\n'
                   'base_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n', encoding="utf-8")
    batch = tmp_path / "excel.csv"
    batch.write_bytes("profile,prompt\r\n写手,写一首诗\r\n".encode("gb18030"))  # no such profile: rejected
    proc = run("run", batch, "--config", cfg, "--db", tmp_path / "t.db", encoding="cp936")
    err = proc.stderr.decode("utf-8")
    assert proc.returncode == 2, err
    assert "unknown profile '写手'" in err and "all 1 rows were rejected (read as GB18030)" in err
