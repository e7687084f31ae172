"""Revision ``0007_reasoning``: a task's thinking (``reasoning``, TEXT) and its ``reasoning_tokens``, on
SQLite and PostgreSQL: an older database gets them and keeps its rows (and goes back down), the store
writes them on a success, and the export carries them when asked (``--with-reasoning``)."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import openpyxl
import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from mediadesk.cli import main as cli_main
from mediadesk.config.location import PgLocation, SqliteLocation, StoreLocation
from mediadesk.core.log_lines import LOG
from mediadesk.core.states import TaskState
from mediadesk.core.usage import Usage
from mediadesk.store import NewTask, TaskReader, open_store
from mediadesk.store.export import EXPORT_FIELDS, REASONING_FIELDS, export_tasks, export_to_file
from mediadesk.store.migrations import HEAD

T0 = 1_760_000_000.0
THOUGHT = "=HYPERLINK(\"http://127.0.0.1/\") first, a formula-like thought\nthen a second line"


def _engine(loc: StoreLocation) -> sa.engine.Engine:
    if isinstance(loc, PgLocation):
        return sa.create_engine(loc.url.replace("postgresql://", "postgresql+psycopg://", 1))
    assert isinstance(loc, SqliteLocation)
    return sa.create_engine(f"sqlite:///{loc.path}")


def _alembic(loc: StoreLocation, action: str, revision: str) -> None:
    cfg = Config()
    cfg.set_main_option("script_location", "mediadesk.store:migrations")
    engine = _engine(loc)
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            getattr(command, action)(cfg, revision)
    finally:
        engine.dispose()


def _columns(loc: StoreLocation) -> dict[str, tuple[str, bool]]:
    """The task table's columns: name -> (type, nullable)."""
    engine = _engine(loc)
    try:
        return {c["name"]: (str(c["type"]), bool(c["nullable"])) for c in sa.inspect(engine).get_columns("task")}
    finally:
        engine.dispose()


def _revision(loc: StoreLocation) -> str:
    engine = _engine(loc)
    try:
        with engine.connect() as conn:
            return str(conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar_one())
    finally:
        engine.dispose()


def _succeed(store: Any, task_id: str, result: str, *, reasoning: str | None = None,
             usage: Usage | None = None, now: float = T0) -> Any:
    (rec,) = store.claim([store.get(task_id).profile], 1, lane="api:w", account=None, owner="me", now=now)
    assert rec.task_id == task_id
    done = store.finish(rec, TaskState.SUCCESS, result=result, reasoning=reasoning, usage=usage, now=now + 1,
                        log=LOG.success(seconds="1", more=""))
    assert done is not None
    return done


def test_a_database_before_0007_gets_the_columns_and_keeps_its_rows(store_location: StoreLocation) -> None:
    assert HEAD in {"0007_reasoning", "0008_batch_groups"}  # (0008 adds the batch-group columns after it)
    s = open_store(store_location)
    try:
        s.add_tasks([NewTask("done", "w", "api", "q1"), NewTask("todo", "w", "api", "q2")], now=T0)
        _succeed(s, "done", "a1", usage=Usage(12, 34, 5))
    finally:
        s.close()
    # the database as MediaDesk left it before this revision (its downgrade is tested on the way)
    _alembic(store_location, "downgrade", "0006_log_ids")
    assert _revision(store_location) == "0006_log_ids"
    assert not {"reasoning", "reasoning_tokens"} & set(_columns(store_location))

    s = open_store(store_location)  # opening upgrades it to the head
    try:
        assert _revision(store_location) == HEAD
        columns = _columns(store_location)
        assert columns["reasoning"][1] and columns["reasoning_tokens"][1]  # both NULL-able
        assert columns["reasoning"][0].upper() == "TEXT" and columns["reasoning_tokens"][0].upper() == "INTEGER"
        old, todo = s.get("done"), s.get("todo")
        assert old is not None and todo is not None
        assert (old.state, old.result, old.prompt_tokens, old.completion_tokens, old.cached_tokens) == (
            "success", "a1", 12, 34, 5)
        assert (old.reasoning, old.reasoning_tokens, todo.state, todo.prompt) == (None, None, "pending", "q2")
        # and it is usable at once: a thinking model's success keeps its thinking apart
        done = _succeed(s, "todo", "a2", reasoning=THOUGHT, usage=Usage(5, 50, reasoning_tokens=40), now=T0 + 5)
        assert (done.result, done.reasoning, done.reasoning_tokens) == ("a2", THOUGHT, 40)
        assert s.get("todo") == done
    finally:
        s.close()


def test_reasoning_tokens_add_up_over_attempts_and_a_success_keeps_only_its_own_thinking(tmp_path: Path) -> None:
    s = open_store(tmp_path / "t.db")
    try:
        s.add_tasks([NewTask("a", "w", "api", "q")], now=T0)
        (rec,) = s.claim(["w"], 1, lane="api:w", account=None, owner="me", now=T0)
        again = s.finish(rec, TaskState.PENDING, error_kind="truncated_stream", error_message="cut",
                         usage=Usage(10, 30, reasoning_tokens=25), reasoning="lost", now=T0 + 1)
        assert again is not None and (again.reasoning, again.reasoning_tokens) == (None, 25)
        done = _succeed(s, "a", "x", reasoning="kept \ud800", usage=Usage(10, 40, reasoning_tokens=30), now=T0 + 2)
        assert (done.reasoning, done.reasoning_tokens, done.completion_tokens) == ("kept \ufffd", 55, 70)
    finally:
        s.close()
    r = TaskReader(tmp_path / "t.db")
    try:
        assert any("1 character(s) of the thinking" in ln.message for ln in r.logs("a"))
    finally:
        r.close()


@pytest.fixture
def db(store_location: StoreLocation) -> StoreLocation:
    s = open_store(store_location)
    s.add_tasks([NewTask("think", "w", "api", "q"), NewTask("plain", "w", "api", "p")], now=T0)
    _succeed(s, "think", "the answer", reasoning=THOUGHT, usage=Usage(3, 40, reasoning_tokens=33))
    _succeed(s, "plain", "just text", now=T0 + 2)
    s.close()
    return store_location


def test_the_reasoning_columns_are_exported_only_when_asked(db: StoreLocation, tmp_path: Path) -> None:
    assert not set(REASONING_FIELDS) & set(EXPORT_FIELDS)
    out = io.StringIO()
    export_tasks(db, out, "jsonl")
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert all(tuple(r) == EXPORT_FIELDS for r in rows)  # the default export is as before

    out = io.StringIO()
    assert export_tasks(db, out, "jsonl", with_reasoning=True) == 2
    rows = {r["task_id"]: r for r in map(json.loads, out.getvalue().splitlines())}
    assert tuple(rows["think"]) == EXPORT_FIELDS + REASONING_FIELDS
    assert (rows["think"]["result"], rows["think"]["reasoning"], rows["think"]["reasoning_tokens"]) == (
        "the answer", THOUGHT, 33)
    assert (rows["plain"]["reasoning"], rows["plain"]["reasoning_tokens"]) == (None, None)

    # CSV: the thinking is a text cell like the others, formula-escaped
    path = tmp_path / "out.csv"
    assert export_to_file(db, path, "csv", with_reasoning=True) == 2
    with path.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        by_id = {r["task_id"]: r for r in reader}
        assert tuple(reader.fieldnames or ()) == EXPORT_FIELDS + REASONING_FIELDS
    assert by_id["think"]["reasoning"] == "'" + THOUGHT and by_id["think"]["reasoning_tokens"] == "33"
    assert by_id["plain"]["reasoning"] == ""

    # XLSX: a string cell, never a formula
    path = tmp_path / "out.xlsx"
    assert export_to_file(db, path, "xlsx", with_reasoning=True) == 2
    ws = openpyxl.load_workbook(path).active
    assert ws is not None
    header = [c.value for c in ws[1]]
    assert tuple(header) == EXPORT_FIELDS + REASONING_FIELDS
    cells = {row[0].value: row for row in ws.iter_rows(min_row=2)}
    thought = cells["think"][header.index("reasoning")]
    assert thought.value == THOUGHT and thought.data_type == "s"
    path = tmp_path / "plain.xlsx"
    export_to_file(db, path, "xlsx")
    ws = openpyxl.load_workbook(path).active
    assert ws is not None and tuple(c.value for c in ws[1]) == EXPORT_FIELDS

    # Markdown: one line per task, the thinking's line break as <br>
    out = io.StringIO()
    export_tasks(db, out, "md", with_reasoning=True)
    lines = out.getvalue().splitlines()
    assert lines[0] == "| " + " | ".join(EXPORT_FIELDS + REASONING_FIELDS) + " |" and len(lines) == 4
    assert "formula-like thought<br>then a second line |" in lines[2] + lines[3]


def test_the_cli_exports_the_thinking_with_its_flag(db: StoreLocation, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    where = ["--db", str(db)]
    assert cli_main(["export", *where, "--format", "csv"]) == 0
    header = next(csv.reader(io.StringIO(capsys.readouterr().out.removeprefix("\ufeff"))))  # Excel's BOM
    assert tuple(header) == EXPORT_FIELDS
    assert cli_main(["export", *where, "--format", "jsonl", "--with-reasoning", "--state", "success"]) == 0
    rows = {r["task_id"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert rows["think"]["reasoning"] == THOUGHT and rows["think"]["reasoning_tokens"] == 33


def test_a_sqlite_file_gets_text_not_varchar_for_the_thinking(tmp_path: Path) -> None:
    open_store(tmp_path / "t.db").close()
    con = sqlite3.connect(tmp_path / "t.db")
    try:
        types = {r[1]: r[2] for r in con.execute("PRAGMA table_info(task)")}
    finally:
        con.close()
    assert (types["reasoning"], types["reasoning_tokens"], types["result"]) == ("TEXT", "INTEGER", "VARCHAR")
