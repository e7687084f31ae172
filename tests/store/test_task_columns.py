"""Where a task's columns come from, and proof that they agree.

The one definition is :class:`mediadesk.store.record.TaskRecord` (a frozen dataclass: typed for every
caller, and free of SQLAlchemy, which opening a database never imports). Built from it:

==========================================  ====================================================
``record.TASK_COLUMNS`` / ``TASK_COLUMNS_SQL``  the select list of every store read and RETURNING
``record.record_of``                         a row of that select list -> a record
``models.Task`` (``models.task_table``)      the table as SQLAlchemy sees it (types, nullability,
                                             primary key, server default, indexes)
==========================================  ====================================================

History, frozen, never derived from the record (a change is a NEW revision):

- ``migrations/versions/*.py``: the Alembic revisions, the only place a schema change goes;
- ``schema.MIGRATIONS``: the three migrations of the ``user_version`` era (``LEGACY_VERSION`` = 3).

Echoes, which only pick fields of the record: ``scheduler.events.TaskChanged``, ``viewmodel.columns.Row``
and ``store.export.EXPORT_FIELDS``.

So adding a column is one field of ``TaskRecord`` plus one revision file: the last test does exactly
that on a copy of the revisions and shows that nothing else has to change.
"""

from __future__ import annotations

import dataclasses
import shutil
import sqlite3
import textwrap
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from mediadesk.core.states import TaskState
from mediadesk.scheduler.events import TaskChanged
from mediadesk.store import NewTask, TaskRecord, open_store, record, schema
from mediadesk.store.export import EXPORT_FIELDS
from mediadesk.store.migrations import HEAD, REVISIONS, read_revisions, upgrade
from mediadesk.store.models import Task, task_table
from mediadesk.viewmodel.columns import Row

MIGRATIONS_DIR = Path(schema.__file__).with_name("migrations")
FIELDS = tuple(f.name for f in dataclasses.fields(TaskRecord))


def sqlite_columns(path: Path) -> tuple[str, ...]:
    con = sqlite3.connect(path)
    try:
        return tuple(r[1] for r in con.execute("PRAGMA table_info(task)"))
    finally:
        con.close()


#: The tables the models declare (the team tables are plain SQL of their own, see store.team_schema).
MODEL_TABLES = ("task", "task_log", "account_state", "profile_setting", "budget_cap")


def _model_tables(name: str | None, type_: str, parent: Any) -> bool:
    return type_ != "table" or name in MODEL_TABLES


def schema_diff(engine: sa.engine.Engine, metadata: sa.MetaData) -> list[Any]:
    """What Alembic's autogenerate would add or drop to make the database's tables the models' (columns
    with types and nullability, server defaults, indexes). Empty: they agree."""
    with engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"include_name": _model_tables, "compare_type": True,
                                                     "compare_server_default": True})
        return list(compare_metadata(ctx, metadata))


def test_record_select_list_and_model_are_one_list_of_columns() -> None:
    assert record.TASK_COLUMNS == FIELDS
    assert record.TASK_COLUMNS_SQL.split(", ") == list(FIELDS)
    assert tuple(Task.c.keys()) == FIELDS
    # the six core columns of the spec lead, in its order
    assert FIELDS[:6] == ("task_id", "model_kind", "state", "attempt", "started_at", "heartbeat_at")
    assert [c.name for c in Task.primary_key] == ["task_id"]
    # nullability from the annotations: a column is NULL-able exactly when its field may be None
    assert {c.name for c in Task.c if c.nullable} == {
        "started_at", "heartbeat_at", "account", "lane", "system", "route_key", "batch", "result", "error_kind",
        "error_message", "finished_at", "owner", "queued_at", "served_by", "origin_profile", "resolution",
        "resolution_note", "resolved_at", "prompt_tokens", "completion_tokens", "cached_tokens", "cost", "currency",
        "reasoning", "reasoning_tokens", "group_id", "template", "template_vars", "sample", "reused_from"}


def test_state_is_a_task_state_that_still_compares_and_prints_as_text(tmp_path: Path) -> None:
    s = open_store(tmp_path / "t.db")
    try:
        s.add_tasks([NewTask("a", "writer", "api", "q")])
        rec = s.get("a")
        assert rec is not None and rec.state is TaskState.PENDING
        assert rec.state == "pending" and f"{rec.state}" == "pending" and str(rec.state) == "pending"
        (run,) = s.claim(["writer"], 1, lane="api:writer", account=None, owner="me")
        assert run.state is TaskState.RUNNING
        done = s.finish(run, TaskState.SUCCESS, result="x")
        assert done is not None and done.state is TaskState.SUCCESS and s.get("a") == done
    finally:
        s.close()


def test_a_fresh_sqlite_database_at_head_has_exactly_the_model_columns(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    open_store(db).close()
    assert sqlite_columns(db) == FIELDS
    engine = sa.create_engine(f"sqlite:///{db}")
    try:
        assert schema_diff(engine, Task.metadata) == []
    finally:
        engine.dispose()


def test_a_fresh_postgresql_database_at_head_has_exactly_the_model_columns(pg_url: str) -> None:
    open_store(pg_url).close()  # a new database: the whole Alembic chain runs
    engine = sa.create_engine(pg_url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with engine.connect() as conn:
            cols = tuple(r[0] for r in conn.exec_driver_sql(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'task'"
                " ORDER BY ordinal_position"))
        assert cols == FIELDS
        assert schema_diff(engine, Task.metadata) == []
    finally:
        engine.dispose()


def test_the_echoes_only_name_fields_of_the_record() -> None:
    event_fields = {f.name for f in dataclasses.fields(TaskChanged)} - {"type"}
    assert event_fields <= set(FIELDS), event_fields - set(FIELDS)
    # the table row renames two (kind = model_kind; error = error_kind + message, see viewmodel.columns)
    row_fields = set(Row._fields) - {"kind", "error"}
    assert row_fields <= set(FIELDS), row_fields - set(FIELDS)
    assert set(EXPORT_FIELDS) <= set(FIELDS), set(EXPORT_FIELDS) - set(FIELDS)


def test_the_legacy_migrations_are_frozen_history() -> None:
    """A new schema change is an Alembic revision: appending a fourth legacy migration would run only on
    databases of the ``user_version`` era and move neither LEGACY_VERSION nor the baseline."""
    assert isinstance(schema.MIGRATIONS, tuple), "MIGRATIONS is history: a tuple, not appended to"
    assert len(schema.MIGRATIONS) == schema.LEGACY_VERSION == 3, (
        "a schema change goes into a new Alembic revision (mediadesk/store/migrations/versions), never into "
        "schema.MIGRATIONS")
    assert schema.SCHEMA_VERSION == 4
    # and neither the legacy era nor a revision reads the record or the models
    for path in [Path(schema.__file__), *sorted((MIGRATIONS_DIR / "versions").glob("*.py"))]:
        text = path.read_text(encoding="utf-8")
        assert "store.models" not in text and "store.record" not in text and "TaskRecord" not in text, path
        assert "create_all(" not in text and "SQLModel" not in text, path


def test_the_frozen_first_migration_still_completes_an_old_file_of_ours(tmp_path: Path) -> None:
    """``MIGRATIONS[0]`` (frozen DDL, no longer the models' ``create_all``) on a file of ours at
    ``user_version`` 0 that lacks a table: the table is made, and the file ends at the head with
    exactly the record's columns."""
    from tests.store.test_migrations import V1_DDL

    db = tmp_path / "v0.db"
    con = sqlite3.connect(db)
    con.executescript(V1_DDL + "DROP TABLE profile_setting; PRAGMA user_version = 0;")
    con.close()
    s = open_store(db)
    try:
        assert s.profile_settings() == {} and s.account_states() == {"acct": (False, "ready", None)}
        old = s.get("old-done")
        assert old is not None and old.state is TaskState.SUCCESS and old.origin_profile == "writer"
    finally:
        s.close()
    assert sqlite_columns(db) == FIELDS


def test_the_revisions_are_read_from_the_folder() -> None:
    assert read_revisions(MIGRATIONS_DIR / "versions") == REVISIONS and REVISIONS[-1] == HEAD


# ------------------------------------------------------------------ the dry run of adding a column
NEW_REVISION = '''
"""Dry run: a note per task."""

import sqlalchemy as sa
from alembic import op

revision = "0003_note"
down_revision = "{head}"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("task", sa.Column("note", sa.String()))


def downgrade() -> None:
    op.drop_column("task", "note")
'''


def _upgrade(db: Path, script_location: Path) -> None:
    upgrade("sqlite", lambda: sqlite3.connect(db, check_same_thread=False), script_location=str(script_location))


def test_adding_a_column_is_one_record_field_and_one_revision(tmp_path: Path) -> None:
    # 1. the field, as it would be written in TaskRecord (with a default: hand-built records need not name it)
    with_note = dataclasses.make_dataclass(
        "TaskRecord", [("note", str | None, dataclasses.field(default=None))], bases=(TaskRecord,), frozen=True)
    metadata = sa.MetaData()
    task_table(metadata, with_note)
    for table in Task.metadata.sorted_tables:  # the other tables as they are
        if table.name != "task":
            table.to_metadata(metadata)

    # without its revision, the check above names what is missing: the new column
    migrations = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_DIR, migrations, ignore=shutil.ignore_patterns("__pycache__"))
    before = tmp_path / "before.db"
    _upgrade(before, migrations)
    engine = sa.create_engine(f"sqlite:///{before}")
    try:
        diff = schema_diff(engine, metadata)
    finally:
        engine.dispose()
    assert [(d[0], d[2], d[3].name) for d in diff] == [("add_column", "task", "note")], diff

    # 2. the revision: one new file in versions/ (its id is read from the folder, nothing else to list)
    (migrations / "versions" / "0003_note.py").write_text(textwrap.dedent(NEW_REVISION).format(head=HEAD))
    assert read_revisions(migrations / "versions") == (*REVISIONS, "0003_note")
    after = tmp_path / "after.db"
    _upgrade(after, migrations)
    _upgrade(before, migrations)  # an existing database gets it too
    for db in (after, before):
        assert sqlite_columns(db) == (*FIELDS, "note")
        engine = sa.create_engine(f"sqlite:///{db}")
        try:
            assert schema_diff(engine, metadata) == []
        finally:
            engine.dispose()

    # and the store's select list and row builder follow from the record alone
    columns = record.columns_of(with_note)
    assert columns == (*FIELDS, "note")
    con = sqlite3.connect(after)
    try:
        con.execute("INSERT INTO task (task_id, model_kind, state, attempt, profile, prompt, priority, created_at,"
                    " updated_at, cancel_requested, version, not_before, seq, attempt_base, crash_count, note)"
                    " VALUES ('a', 'api', 'pending', 0, 'p', 'q', 0, 1, 1, 0, 0, 0, 1, 0, 0, 'hello')")
        row = con.execute(f"SELECT {', '.join(columns)} FROM task").fetchone()
    finally:
        con.close()
    rec = with_note(*row)
    assert rec.note == "hello" and rec.task_id == "a"


@pytest.mark.parametrize("name", ["cancel_requested", "truncated", "usage_estimated"])
def test_booleans_come_back_as_booleans(tmp_path: Path, name: str) -> None:
    s = open_store(tmp_path / "t.db")
    try:
        s.add_tasks([NewTask("a", "writer", "api", "q")])
        rec = s.get("a")
        assert rec is not None and getattr(rec, name) is False
    finally:
        s.close()
