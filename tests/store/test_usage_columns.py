"""Usage per task in the store: the columns, summed per batch / profile / endpoint / day, exported."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

from mediadesk.config.location import StoreLocation
from mediadesk.core.states import TaskState
from mediadesk.core.usage import Usage
from mediadesk.store import NewTask, open_store
from mediadesk.store.export import export_tasks
from mediadesk.store.metrics import MetricsReader
from mediadesk.store.usage import DAY_S, UsageSum, by_endpoint

T0 = 1_760_000_000.0 - (1_760_000_000.0 % DAY_S)  # a UTC midnight


def _run(store, task_id: str, usage: Usage | None, now: float) -> None:  # type: ignore[no-untyped-def]
    (rec,) = [r for r in store.claim([store.get(task_id).profile], 1, lane="api:x", account=None, owner="me", now=now)]
    assert rec.task_id == task_id
    assert store.finish(rec, TaskState.SUCCESS, result="ok", usage=usage, now=now + 1) is not None


def test_usage_is_stored_summed_and_exported(store_location: StoreLocation, tmp_path: Path) -> None:
    s = open_store(store_location)
    try:
        s.add_tasks([NewTask("a", "writer", "api", "q", batch="b1"), NewTask("b", "writer", "api", "q", batch="b1"),
                     NewTask("c", "web", "web", "q", batch="b2"), NewTask("d", "writer", "api", "q", batch="b2")],
                    now=T0)
        _run(s, "a", Usage(120, 340, 20), T0 + 10)
        _run(s, "b", Usage(30, 10, None), T0 + DAY_S + 10)
        _run(s, "c", Usage(5, 7, estimated=True), T0 + 20)
        _run(s, "d", None, T0 + 30)  # no usage known: NULL, left out of the sums
        a = s.get("a")
        assert a is not None and (a.prompt_tokens, a.completion_tokens, a.cached_tokens, a.usage_estimated) == (
            120, 340, 20, False)
        c, d = s.get("c"), s.get("d")
        assert c is not None and c.usage_estimated is True and c.prompt_tokens == 5
        assert d is not None and (d.prompt_tokens, d.completion_tokens, d.usage_estimated) == (None, None, False)
    finally:
        s.close()
    with MetricsReader(store_location) as m:
        assert m.usage("batch") == {"b1": UsageSum(150, 350, 20, 2, 0), "b2": UsageSum(5, 7, 0, 1, 1)}
        per_profile = m.usage("profile")
        assert per_profile == {"writer": UsageSum(150, 350, 20, 2, 0), "web": UsageSum(5, 7, 0, 1, 1)}
        assert m.usage("day") == {T0: UsageSum(125, 347, 20, 2, 1), T0 + DAY_S: UsageSum(30, 10, 0, 1, 0)}
        assert m.usage("profile", since=T0 + DAY_S) == {"writer": UsageSum(30, 10, 0, 1, 0)}
    assert by_endpoint(per_profile, {"writer": "openai", "web": None}) == {"openai": UsageSum(150, 350, 20, 2, 0)}

    out = io.StringIO()
    export_tasks(store_location, out, "jsonl")
    rows = {r["task_id"]: r for r in map(json.loads, out.getvalue().splitlines())}
    assert (rows["a"]["prompt_tokens"], rows["a"]["completion_tokens"], rows["a"]["cached_tokens"]) == (120, 340, 20)
    assert rows["c"]["usage_estimated"] is True and rows["d"]["prompt_tokens"] is None
    out = io.StringIO()
    export_tasks(store_location, out, "csv")
    by_id = {r["task_id"]: r for r in csv.DictReader(io.StringIO(out.getvalue()))}
    assert by_id["a"]["completion_tokens"] == "340" and by_id["c"]["usage_estimated"] == "True"


def test_usage_of_retried_attempts_adds_up(tmp_path: Path) -> None:
    s = open_store(tmp_path / "t.db")
    try:
        s.add_tasks([NewTask("a", "writer", "api", "q")], now=T0)
        (rec,) = s.claim(["writer"], 1, lane="api:x", account=None, owner="me", now=T0)
        rec2 = s.finish(rec, TaskState.PENDING, error_kind="truncated_stream", error_message="cut",
                        usage=Usage(100, 50, estimated=True), now=T0 + 1)
        assert rec2 is not None
        (rec,) = s.claim(["writer"], 1, lane="api:x", account=None, owner="me", now=T0 + 2)
        done = s.finish(rec, TaskState.SUCCESS, result="x", usage=Usage(100, 80, 60), now=T0 + 3)
        assert done is not None and (done.prompt_tokens, done.completion_tokens, done.cached_tokens) == (200, 130, 60)
        assert done.usage_estimated is True and s.get("a") == done
    finally:
        s.close()


def test_an_older_database_gets_empty_usage_columns(tmp_path: Path) -> None:
    from mediadesk.store.migrations import REVISIONS, upgrade

    db = tmp_path / "t.db"
    s = open_store(db)
    s.add_tasks([NewTask("old", "writer", "api", "q")], now=T0)
    s.close()
    con = sqlite3.connect(db)  # back to the revision before usage, as an older MediaDesk left it
    # (and without the columns and tables of later revisions)
    con.executescript("DROP INDEX ix_task_group; ALTER TABLE task DROP COLUMN group_id;"  # 0008_batch_groups
                      " ALTER TABLE task DROP COLUMN template; ALTER TABLE task DROP COLUMN template_vars;"
                      " ALTER TABLE task DROP COLUMN sample; ALTER TABLE task DROP COLUMN kept;"
                      " ALTER TABLE task DROP COLUMN reused_from;"
                      " ALTER TABLE task DROP COLUMN reasoning_tokens; ALTER TABLE task DROP COLUMN reasoning;"
                      " ALTER TABLE task_log DROP COLUMN message_params; ALTER TABLE task_log DROP COLUMN message_id;"
                      " DROP TABLE IF EXISTS economy_batch;"
                      " ALTER TABLE task DROP COLUMN currency; ALTER TABLE task DROP COLUMN cost;"  # 0004_spend
                      " DROP TABLE budget_cap;"
                      " ALTER TABLE task DROP COLUMN usage_estimated; ALTER TABLE task DROP COLUMN cached_tokens;"
                      " ALTER TABLE task DROP COLUMN completion_tokens; ALTER TABLE task DROP COLUMN prompt_tokens;"
                      f" UPDATE alembic_version SET version_num = '{REVISIONS[REVISIONS.index('0003_usage') - 1]}';")
    con.close()
    upgrade("sqlite", lambda: sqlite3.connect(db, check_same_thread=False))
    s = open_store(db)
    try:
        old = s.get("old")
        assert old is not None and old.prompt_tokens is None and old.usage_estimated is False
    finally:
        s.close()
