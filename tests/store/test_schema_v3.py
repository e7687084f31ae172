"""Schema 3 (``task.truncated``): a database written at schema 2 upgrades without losing anything.

The v2 tables below are the exact DDL MediaDesk wrote at schema 2 (``sqlite3 db .schema`` of a
database created by main at a0b6d52), not the current models: a v2 file made with today's models
would already have the new column and prove nothing."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

from mediadesk.core.log_lines import LOG
from mediadesk.core.states import TaskState
from mediadesk.store import TaskReader, TaskStore
from mediadesk.store.export import export_tasks
from mediadesk.store.schema import LEGACY_VERSION, SCHEMA_VERSION

V2_DDL = """
CREATE TABLE task (
    task_id VARCHAR NOT NULL, model_kind VARCHAR NOT NULL, state VARCHAR NOT NULL, attempt INTEGER NOT NULL,
    started_at FLOAT, heartbeat_at FLOAT, profile VARCHAR NOT NULL, account VARCHAR, lane VARCHAR,
    prompt VARCHAR NOT NULL, system VARCHAR, priority INTEGER NOT NULL, route_key VARCHAR, batch VARCHAR,
    result VARCHAR, error_kind VARCHAR, error_message VARCHAR, created_at FLOAT NOT NULL, updated_at FLOAT NOT NULL,
    finished_at FLOAT, cancel_requested BOOLEAN NOT NULL, version INTEGER NOT NULL, not_before FLOAT NOT NULL,
    seq INTEGER NOT NULL, attempt_base INTEGER NOT NULL, owner VARCHAR, queued_at FLOAT,
    crash_count INTEGER NOT NULL, served_by VARCHAR, origin_profile VARCHAR, resolution VARCHAR,
    resolution_note VARCHAR, resolved_at FLOAT, PRIMARY KEY (task_id)
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
CREATE INDEX ix_task_route ON task (route_key, seq) WHERE route_key IS NOT NULL;
PRAGMA user_version = 2;
"""

V2_ROWS = [
    # task_id, state, attempt, result, error_kind, served_by, seq
    ("done", "success", 1, "答复 ✅", None, "writer", 1),
    ("bad", "failed", 3, None, "timeout", None, 2),
    ("todo", "pending", 0, None, None, None, 3),
]


def make_v2(path: Path) -> None:
    con = sqlite3.connect(path)
    con.executescript(V2_DDL)
    for tid, state, attempt, result, kind, served, seq in V2_ROWS:
        con.execute(
            "INSERT INTO task (task_id, model_kind, state, attempt, profile, prompt, priority, result, error_kind,"
            " created_at, updated_at, cancel_requested, version, not_before, seq, attempt_base, crash_count,"
            " served_by, origin_profile, queued_at, resolution_note)"
            " VALUES (?, 'api', ?, ?, 'writer', ?, 0, ?, ?, 1.0, 2.0, 0, ?, 0, ?, 0, 0, ?, 'writer', 1.0, ?)",
            (tid, state, attempt, f"prompt of {tid}", result, kind, attempt * 2, seq, served,
             "note" if tid == "bad" else None),
        )
    con.execute("INSERT INTO task_log (task_id, ts, lane, message) VALUES ('done', 1.5, 'api:writer', 'success')")
    con.execute("INSERT INTO account_state (name, enabled, health, updated_at) VALUES ('acct', 0, 'ready', 3.0)")
    con.execute("INSERT INTO profile_setting (name, need_empty_prompt, concurrency, updated_at)"
                " VALUES ('writer', 1, 2, 4.0)")
    con.commit()
    con.close()


def _width(rows: list[tuple[object, ...]]) -> int | None:
    return len(rows[0]) if rows else None


def dump(path: Path, table: str, width: int | None = None) -> list[tuple[object, ...]]:
    """The rows of ``table`` (without the v3 ``truncated`` column); only the first ``width`` columns
    when given (columns added by later revisions come after those of v2)."""
    con = sqlite3.connect(path)
    try:
        cols = [r[1] for r in con.execute(f"PRAGMA table_info({table})") if r[1] != "truncated"][:width]
        return con.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY 1").fetchall()
    finally:
        con.close()


def test_v2_database_upgrades_to_v3_without_losing_data(tmp_path: Path) -> None:
    db = tmp_path / "mediadesk.db"
    make_v2(db)
    before = {t: dump(db, t) for t in ("task", "task_log", "account_state", "profile_setting")}

    store = TaskStore(db)  # migrates
    try:
        assert LEGACY_VERSION == 3 and SCHEMA_VERSION == 4  # 4: managed by Alembic from here on
        con = sqlite3.connect(db)
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        con.close()
        assert {t: dump(db, t, _width(before[t])) for t in before} == before  # every row and value kept
        assert (tmp_path / "mediadesk.db.bak-v2").exists()  # the copy kept before the upgrade
        assert dump(tmp_path / "mediadesk.db.bak-v2", "task") == before["task"]
        assert {tid: store.get(tid).truncated for tid, *_ in V2_ROWS} == {"done": False, "bad": False, "todo": False}

        # the upgraded table works: a new task runs to a truncated success
        [todo] = store.claim(["writer"], 1, lane="api:writer", account=None, owner="me")
        assert todo.task_id == "todo"
        new = store.finish(todo, TaskState.SUCCESS, result="half an ans", truncated=True,
                           log=LOG.success(seconds="1", more=LOG.truncated_at_limit()))
        assert new is not None and new.truncated is True
    finally:
        store.close()
    reader = TaskReader(db)
    try:
        assert reader.get("todo").truncated is True and reader.get("done").truncated is False
    finally:
        reader.close()


def test_export_of_a_v2_database_upgrades_it_first(tmp_path: Path) -> None:
    """``mediadesk export`` reads without the scheduler: it must not fail on the missing column."""
    db = tmp_path / "old.db"
    make_v2(db)
    out = io.StringIO()
    assert export_tasks(db, out, "jsonl") == 3
    rows = {r["task_id"]: r for r in map(json.loads, out.getvalue().splitlines())}
    assert rows["done"]["result"] == "答复 ✅" and rows["done"]["truncated"] is False
    assert rows["bad"]["error_kind"] == "timeout" and rows["bad"]["resolution_note"] == "note"
