"""The durable table on real SQLite files: CAS transitions, one row per task, schema versioning."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mediadesk.core.states import TaskState
from mediadesk.store import SCHEMA_VERSION, NewTask, SchemaError, TaskReader, TaskStore


def store(tmp_path: Path) -> TaskStore:
    return TaskStore(tmp_path / "t.db")


def test_add_is_idempotent_by_task_id(tmp_path: Path) -> None:
    s = store(tmp_path)
    r1 = s.add_tasks([NewTask("a", "p", "api", "x"), NewTask("b", "p", "api", "y")])
    r2 = s.add_tasks([NewTask("a", "p", "api", "CHANGED"), NewTask("c", "p", "api", "z")])
    assert r1.added == ("a", "b") and r2.added == ("c",) and r2.existing == ("a",)
    assert s.get("a").prompt == "x"  # an existing task is never overwritten
    s.close()


def test_cas_lets_only_one_of_two_writers_win(tmp_path: Path) -> None:
    s = store(tmp_path)
    s.add_tasks([NewTask("a", "p", "api", "x")])
    (rec,) = s.claim(["p"], 1, lane="api:p", account=None, owner="me")
    assert rec.state == "running" and rec.attempt == 1
    won = s.finish(rec, TaskState.SUCCESS, result="first")
    lost = s.finish(rec, TaskState.SUCCESS, result="second")  # stale version
    assert won is not None and lost is None
    assert s.get("a").result == "first"
    # a second claim finds nothing: one row, one run
    assert s.claim(["p"], 5, lane="api:p", account=None, owner="other") == []
    s.close()


def test_illegal_transition_is_refused(tmp_path: Path) -> None:
    s = store(tmp_path)
    s.add_tasks([NewTask("a", "p", "api", "x")])
    rec = s.get("a")
    with pytest.raises(ValueError, match="illegal transition pending -> success"):
        s.finish(rec, TaskState.SUCCESS, result="never ran")
    s.close()


def test_retry_is_the_same_row_with_not_before(tmp_path: Path) -> None:
    s = store(tmp_path)
    s.add_tasks([NewTask("a", "p", "api", "x")])
    (rec,) = s.claim(["p"], 1, lane="api:p", account=None, owner="me", now=100.0)
    back = s.finish(rec, TaskState.PENDING, error_kind="timeout", not_before=200.0, now=101.0)
    assert back is not None and back.attempt == 1
    assert s.claim(["p"], 1, lane="api:p", account=None, owner="me", now=150.0) == []  # deferred
    (again,) = s.claim(["p"], 1, lane="api:p", account=None, owner="me", now=201.0)
    assert again.attempt == 2 and again.task_id == "a"
    s.close()
    con = sqlite3.connect(tmp_path / "t.db")
    assert con.execute("SELECT count(*) FROM task").fetchone()[0] == 1
    con.close()


def test_logs_are_group_committed_and_readable(tmp_path: Path) -> None:
    s = store(tmp_path)
    s.add_tasks([NewTask("a", "p", "api", "x")])
    s.append_log("a", "api:p", "hello")
    r = TaskReader(tmp_path / "t.db")
    assert [ln.message for ln in r.logs("a")] == []  # buffered
    s.flush()
    assert [ln.message for ln in r.logs("a")] == ["hello"]
    r.close()
    s.close()


def test_schema_version_newer_database_is_refused(tmp_path: Path) -> None:
    TaskStore(tmp_path / "t.db").close()
    con = sqlite3.connect(tmp_path / "t.db")
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.commit()
    con.close()
    with pytest.raises(SchemaError, match="newer MediaDesk"):
        TaskStore(tmp_path / "t.db")


def test_foreign_sqlite_file_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE customers(id INTEGER)")
    con.commit()
    con.close()
    with pytest.raises(SchemaError, match="not a MediaDesk database"):
        TaskStore(path)
    con = sqlite3.connect(path)
    assert [r[0] for r in con.execute("SELECT name FROM sqlite_master")] == ["customers"]
    con.close()


def test_reader_get_many_keeps_order_and_skips_missing(tmp_path: Path) -> None:
    s = store(tmp_path)
    s.add_tasks([NewTask(f"t{i}", "p", "api", f"q{i}") for i in range(1200)])
    r = TaskReader(tmp_path / "t.db")
    ids = ["t1100", "nope", "t3", *[f"t{i}" for i in range(600, 700)]]
    got = [rec.task_id for rec in r.get_many(ids)]
    assert got == [t for t in ids if t != "nope"]
    r.close()
    s.close()
