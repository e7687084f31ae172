"""The mirror's per-row storage stays small: rows read from the database share one string object
per distinct kind, state, profile, lane, account and batch (SQLite hands every row new ones), while
each row keeps its own task id and its prompt head. A real SQLite file, read as the console does."""

from __future__ import annotations

from pathlib import Path

from mediadesk.core.states import TaskState
from mediadesk.store.reader import TaskReader
from mediadesk.store.taskstore import NewTask, TaskStore
from mediadesk.viewmodel.columns import PROMPT_CHARS, Columns
from mediadesk.viewmodel.task_rows import TaskRows


def read_columns(db: Path) -> Columns:
    reader = TaskReader(db)
    try:
        return Columns.from_records(reader.iter_tasks())
    finally:
        reader.close()


def test_rows_from_the_store_share_their_repeated_strings(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    store = TaskStore(db)
    long_prompt = "x" * 10_000
    store.add_tasks([NewTask(f"task-{i}", "writer", "api", f"prompt {i}" if i else long_prompt, batch="nightly")
                     for i in range(6)])
    for _ in range(2):
        (rec,) = store.claim(["writer"], 1, lane="api:writer", account=None, owner="test")
        store.finish(rec, TaskState.SUCCESS, result="ok")
    store.close()

    cols = read_columns(db)
    assert len(cols) == 6
    for name in ("kind", "profile", "lane", "batch"):
        values = [v for v in getattr(cols, name) if v is not None]
        assert len({id(v) for v in values}) == 1, f"{name}: one object per distinct value"
    assert cols.lane.count(None) == 4 and cols.lane.count("api:writer") == 2
    # two distinct states, two objects
    assert sorted(cols.state) == ["pending"] * 4 + ["success"] * 2
    assert len({id(v) for v in cols.state}) == 2
    # equal to what was stored; per-row values stay per row
    assert set(cols.profile) == {"writer"} and set(cols.kind) == {"api"} and set(cols.batch) == {"nightly"}
    assert cols.task_id == [f"task-{i}" for i in range(6)]
    assert cols.prompt[0] == "x" * PROMPT_CHARS
    assert cols.prompt[1:] == [f"prompt {i}" for i in range(1, 6)]
    # a second read (the next batch of new rows) shares the same objects
    again = read_columns(db)
    assert again.profile[0] is cols.profile[0] and again.batch[0] is cols.batch[0]


def test_display_order_survives_sorts_and_appends(tmp_path: Path) -> None:
    """The display order and its inverse are compact arrays: sorting, appending after a sort and
    looking rows up by task id still agree."""
    db = tmp_path / "t.db"
    store = TaskStore(db)
    store.add_tasks([NewTask(f"id-{i:03d}", "writer", "api", f"p{i}") for i in range(300)])
    store.close()
    rows = TaskRows()
    rows.queue_columns(read_columns(db))
    rows.flush()
    rows.sort("id", descending=True)
    assert [rows.task_id_at(r) for r in range(3)] == ["id-299", "id-298", "id-297"]
    rows.queue_columns(Columns.from_records([]))
    extra = TaskStore(db)
    extra.add_tasks([NewTask("id-999", "writer", "api", "late")])
    extra.close()
    reader = TaskReader(db)
    try:
        late = reader.get_many(["id-999"])
    finally:
        reader.close()
    rows.queue_records(late)
    rows.flush()
    assert len(rows) == 301
    assert rows.task_id_at(300) == "id-999"  # appended after the sort, not moved
    for tid in ("id-000", "id-150", "id-299", "id-999"):
        row = rows.row_of(tid)
        assert row is not None and rows.task_id_at(row) == tid
    rows.sort(None)
    assert [rows.task_id_at(r) for r in (0, 299, 300)] == ["id-000", "id-299", "id-999"]
