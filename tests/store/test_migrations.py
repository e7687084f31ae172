"""Alembic on both back-ends, and the carry-over of databases of the ``user_version`` era.

``fixtures/release-v3.db`` was made by the release before Alembic (main at 8e55947: ``TaskStore`` writes,
then VACUUM): tasks in every state, a conversation, log lines, account switches and health, a profile
edit. It must come through the upgrade with every row and value, at the head revision, still usable."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mediadesk.config.location import PgLocation
from mediadesk.core.log_lines import LOG
from mediadesk.core.states import TaskState
from mediadesk.store import NewTask, SchemaError, TaskReader, TaskStore, open_store
from mediadesk.store.migrations import HEAD, REVISIONS
from mediadesk.store.open_errors import NewerSchemaError
from mediadesk.store.schema import SCHEMA_VERSION, migrate
from mediadesk.store.team_schema import TEAM_TABLES_V1
from tests.pgserver import PgServer

FIXTURE = Path(__file__).parent / "fixtures" / "release-v3.db"
ROOT = Path(__file__).resolve().parents[2]
OLD_TABLES = ("task", "task_log", "account_state", "profile_setting")
TEAM_TABLES = ("desktop", "account_lease", "endpoint_slot", "rate_bucket")

#: the DDL of schema 1 (before the capacity columns, the route index and ``truncated``)
V1_DDL = """
CREATE TABLE task (
    task_id VARCHAR NOT NULL, model_kind VARCHAR NOT NULL, state VARCHAR NOT NULL, attempt INTEGER NOT NULL,
    started_at FLOAT, heartbeat_at FLOAT, profile VARCHAR NOT NULL, account VARCHAR, lane VARCHAR,
    prompt VARCHAR NOT NULL, system VARCHAR, priority INTEGER NOT NULL, route_key VARCHAR, batch VARCHAR,
    result VARCHAR, error_kind VARCHAR, error_message VARCHAR, created_at FLOAT NOT NULL, updated_at FLOAT NOT NULL,
    finished_at FLOAT, cancel_requested BOOLEAN NOT NULL, version INTEGER NOT NULL, not_before FLOAT NOT NULL,
    seq INTEGER NOT NULL, attempt_base INTEGER NOT NULL, owner VARCHAR, PRIMARY KEY (task_id)
);
CREATE INDEX ix_task_state_hb ON task (state, heartbeat_at);
CREATE TABLE task_log (
    id INTEGER NOT NULL, task_id VARCHAR NOT NULL, ts FLOAT NOT NULL, lane VARCHAR NOT NULL,
    message VARCHAR NOT NULL, PRIMARY KEY (id)
);
CREATE INDEX ix_task_log_task_id ON task_log (task_id);
CREATE TABLE account_state (
    name VARCHAR NOT NULL, enabled BOOLEAN NOT NULL, health VARCHAR NOT NULL, last_error VARCHAR,
    updated_at FLOAT NOT NULL, PRIMARY KEY (name)
);
CREATE TABLE profile_setting (
    name VARCHAR NOT NULL, need_empty_prompt BOOLEAN, concurrency INTEGER, updated_at FLOAT NOT NULL,
    PRIMARY KEY (name)
);
CREATE INDEX ix_task_claim ON task (state, profile, priority DESC, seq);
INSERT INTO task (task_id, model_kind, state, attempt, profile, prompt, priority, result, created_at, updated_at,
    cancel_requested, version, not_before, seq, attempt_base)
    VALUES ('old-done', 'api', 'success', 1, 'writer', 'q1', 0, 'a1', 1.0, 2.0, 0, 2, 0, 1, 0),
           ('old-todo', 'api', 'pending', 0, 'writer', 'q2', 0, NULL, 1.5, 1.5, 0, 0, 0, 2, 0);
INSERT INTO task_log (task_id, ts, lane, message) VALUES ('old-done', 1.7, 'api:writer', 'success');
INSERT INTO account_state (name, enabled, health, updated_at) VALUES ('acct', 0, 'ready', 3.0);
PRAGMA user_version = 1;
"""


def _width(rows: list[tuple[object, ...]]) -> int | None:
    return len(rows[0]) if rows else None


def dump(path: Path, table: str, columns: int | None = None) -> list[tuple[object, ...]]:
    """The rows of ``table``; ``columns``: only its first ones (the columns a later revision added left out)."""
    con = sqlite3.connect(path)
    try:
        return [r[:columns] for r in con.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()]
    finally:
        con.close()


def sqlite_state(path: Path) -> tuple[int, list[str], set[str]]:
    con = sqlite3.connect(path)
    try:
        (version,) = con.execute("PRAGMA user_version").fetchone()
        revs = [r[0] for r in con.execute("SELECT version_num FROM alembic_version")]
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        return version, revs, tables
    finally:
        con.close()


def test_revisions_list_matches_alembic_scripts() -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", "mediadesk.store:migrations")
    walked = [s.revision for s in ScriptDirectory.from_config(cfg).walk_revisions()]
    assert tuple(reversed(walked)) == REVISIONS and HEAD == "0008_batch_groups"


def test_a_release_v3_file_upgrades_to_head_keeping_every_row(tmp_path: Path) -> None:
    db = tmp_path / "mediadesk.db"
    shutil.copyfile(FIXTURE, db)
    db.chmod(0o600)
    before = {t: dump(db, t) for t in OLD_TABLES}
    assert len(before["task"]) == 6 and len(before["task_log"]) >= 9 and len(before["account_state"]) == 2

    s = TaskStore(db)
    try:
        version, revs, tables = sqlite_state(db)
        assert (version, revs) == (SCHEMA_VERSION, [HEAD]) and tables >= set(TEAM_TABLES)
        assert {t: dump(db, t, _width(before[t])) for t in OLD_TABLES} == before  # every row and value kept
        assert dump(tmp_path / "mediadesk.db.bak-v3", "task") == before["task"]  # the copy from before
        assert s.get("done").truncated is True and s.get("done").result == "答复 ✅"
        assert s.account_states()["acct-a"] == (False, "ready", None)
        assert s.profile_settings() == {"writer": (True, 2)}
        # still usable: the conversation's next turn goes to the account that ran the first one
        assert s.claim(["chat"], 5, lane="web:acct-b", account="acct-b", owner="me") == []
        (turn,) = s.claim(["chat"], 5, lane="web:acct-a", account="acct-a", owner="me")
        assert turn.task_id == "turn-1" and s.history("conv", turn.seq) == (("hello ✅", "hi there"),)
        assert s.finish(turn, TaskState.SUCCESS, result="then this", log=LOG.success(seconds="1", more="")) is not None
        assert s.add_tasks([NewTask("new", "writer", "api", "x")]).added == ("new",)
        assert s.get("new").seq == 7
    finally:
        s.close()
    # a second open changes nothing: no second backup, same revision, file not rewritten
    mtime = db.stat().st_mtime_ns
    assert migrate(db) == SCHEMA_VERSION
    assert sqlite_state(db)[:2] == (SCHEMA_VERSION, [HEAD]) and db.stat().st_mtime_ns == mtime
    assert sorted(p.name for p in tmp_path.iterdir() if ".bak-" in p.name) == ["mediadesk.db.bak-v3"]
    r = TaskReader(db)
    assert r.get("turn-1").result == "then this" and [ln.message for ln in r.logs("todo")] == ["a note line"]
    r.close()


def test_a_v1_file_upgrades_through_the_old_migrations_then_alembic(tmp_path: Path) -> None:
    db = tmp_path / "v1.db"
    con = sqlite3.connect(db)
    con.executescript(V1_DDL)
    con.close()
    s = TaskStore(db)
    try:
        assert sqlite_state(db)[:2] == (SCHEMA_VERSION, [HEAD])
        old = s.get("old-done")
        assert (old.state, old.result, old.origin_profile, old.served_by, old.truncated) == (
            "success", "a1", "writer", "writer", False)
        (todo,) = s.claim(["writer"], 5, lane="api:writer", account=None, owner="me")
        assert todo.task_id == "old-todo" and todo.queued_at == 1.5
        assert s.account_states() == {"acct": (False, "ready", None)}
    finally:
        s.close()
    assert dump(tmp_path / "v1.db.bak-v1", "task_log") == [(1, "old-done", 1.7, "api:writer", "success")]


def test_a_new_sqlite_database_has_exactly_the_release_schema_plus_team_tables(tmp_path: Path) -> None:
    TaskStore(tmp_path / "new.db").close()

    def schema(path: Path) -> dict[str, str]:
        con = sqlite3.connect(path)
        try:
            return {name: " ".join(sql.split()) for name, sql in con.execute(
                "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name != 'alembic_version'")}
        finally:
            con.close()

    new, release = schema(tmp_path / "new.db"), schema(FIXTURE)
    team = {name for name in new if name not in release} - {"ix_task_group"}  # (0008_batch_groups)
    # the release's task table with the columns later revisions added (0003_usage, 0004_spend,
    # 0007_reasoning, 0008_batch_groups) at its end
    usage = (", prompt_tokens INTEGER, completion_tokens INTEGER, cached_tokens INTEGER,"
             " usage_estimated BOOLEAN DEFAULT '0' NOT NULL, cost FLOAT, currency VARCHAR,"
             " reasoning TEXT, reasoning_tokens INTEGER, group_id TEXT, template TEXT, template_vars TEXT,"
             " sample INTEGER, kept BOOLEAN DEFAULT '0' NOT NULL, reused_from TEXT")
    assert new["task"].replace(usage, "") == release["task"]
    # the release's task_log with each line's phrase (0006_log_ids) at its end
    assert new["task_log"].replace(", message_id VARCHAR, message_params VARCHAR", "") == release["task_log"]
    assert {name: new[name] for name in release if name not in ("task", "task_log")} == {
        name: sql for name, sql in release.items() if name not in ("task", "task_log")}
    assert team == {*TEAM_TABLES, "ix_account_lease_owner", "ix_endpoint_slot_owner", "budget_cap",
                    "economy_batch", "ix_economy_batch_open"}
    assert sqlite_state(tmp_path / "new.db")[:2] == (SCHEMA_VERSION, [HEAD])


def test_opening_a_current_database_does_not_import_alembic(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    TaskStore(db).close()
    code = ("import sys; from mediadesk.store import TaskStore; TaskStore(sys.argv[1]).close(); "
            "print(sorted(m for m in ('alembic', 'sqlalchemy', 'sqlmodel', 'psycopg') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(db)], capture_output=True, text=True, cwd=ROOT,
                         timeout=60, check=True)
    assert out.stdout.strip() == "[]"


def test_an_unknown_revision_is_a_newer_mediadesk_on_sqlite(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    TaskStore(db).close()
    con = sqlite3.connect(db)
    con.execute("UPDATE alembic_version SET version_num = '0099_future'")
    con.commit()
    con.close()
    for opener in (TaskStore, TaskReader):
        with pytest.raises(NewerSchemaError, match=r"newer MediaDesk.*0099_future"):
            opener(db)
    assert sqlite_state(db)[1] == ["0099_future"]  # left as it was


def test_a_new_postgresql_database_gets_head_and_a_second_open_is_a_no_op(
    pg_server: PgServer, pg_url: str
) -> None:
    name = pg_url.rsplit("/", 1)[1]
    open_store(pg_url).close()
    assert pg_server.psql("SELECT version_num FROM alembic_version", name).split() == [HEAD]
    tables = set(pg_server.psql("SELECT tablename FROM pg_tables WHERE schemaname = 'public'", name).split())
    assert tables == {*OLD_TABLES, *TEAM_TABLES, "budget_cap", "economy_batch", "alembic_version"}
    indexes = pg_server.psql("SELECT indexdef FROM pg_indexes WHERE tablename = 'task'", name)
    assert "(state, profile, priority DESC, seq)" in indexes and "WHERE (route_key IS NOT NULL)" in indexes
    s = open_store(pg_url)
    s.add_tasks([NewTask("a", "p", "api", "x")])
    s.close()
    assert pg_server.psql("SELECT count(*) FROM alembic_version", name).split() == ["1"]
    assert len(TEAM_TABLES_V1) == 6


def test_desktops_opening_a_new_postgresql_database_at_once_do_not_race(pg_url: str) -> None:
    errors: list[BaseException] = []
    barrier = threading.Barrier(3)

    def open_it() -> None:
        try:
            barrier.wait()
            open_store(pg_url).close()
        except BaseException as exc:  # reported by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []


def test_three_openers_of_a_new_sqlite_file_at_once_all_succeed(tmp_path: Path) -> None:
    """Before: "database is locked" (switching the new file to WAL) in 2 of 40 tries with Alembic,
    28 of 40 with the old create_all; each try here is three openers of one new file."""
    errors: list[BaseException] = []
    for n in range(25):
        db = tmp_path / f"n{n}.db"
        barrier = threading.Barrier(3)

        def open_it(db: Path = db, barrier: threading.Barrier = barrier) -> None:
            try:
                barrier.wait(30)
                TaskStore(db).close()
            except BaseException as exc:  # reported by the assert below
                errors.append(exc)

        threads = [threading.Thread(target=open_it) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert sqlite_state(db)[:2] == (SCHEMA_VERSION, [HEAD])
    assert errors == []


def test_an_unknown_revision_is_a_newer_mediadesk_on_postgresql(pg_server: PgServer, pg_url: str) -> None:
    name = pg_url.rsplit("/", 1)[1]
    open_store(pg_url).close()
    pg_server.psql("UPDATE alembic_version SET version_num = '0099_future'", name)
    for opener in (open_store, TaskReader):
        with pytest.raises(NewerSchemaError, match=r"newer MediaDesk.*0099_future") as err:
            opener(pg_url)
        assert PgLocation(pg_url).display in str(err.value)


def test_someone_elses_task_table_on_postgresql_is_refused_untouched(pg_server: PgServer, pg_url: str) -> None:
    name = pg_url.rsplit("/", 1)[1]
    pg_server.psql("CREATE TABLE task (id integer); INSERT INTO task VALUES (42)", name)
    with pytest.raises(SchemaError, match="did not make"):
        open_store(pg_url)
    assert pg_server.psql("SELECT tablename FROM pg_tables WHERE schemaname = 'public'", name).split() == ["task"]
    assert pg_server.psql("SELECT id FROM task", name).split() == ["42"]
