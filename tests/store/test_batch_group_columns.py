"""Revision ``0008_batch_groups`` on SQLite and PostgreSQL: an older database gets ``group_id`` (indexed),
``template``, ``template_vars``, ``sample``, ``kept`` (NOT NULL, false) and ``reused_from``, keeps its rows,
goes back down, and the store writes the new columns at submit."""

from __future__ import annotations

import sqlalchemy as sa

from mediadesk.config.location import StoreLocation
from mediadesk.store import NewTask, open_store
from mediadesk.store.migrations import HEAD
from tests.store.test_reasoning_columns import _alembic, _columns, _engine, _revision

T0 = 1_760_000_000.0
NEW = ("group_id", "template", "template_vars", "sample", "kept", "reused_from")


def _indexes(loc: StoreLocation) -> dict[str, list[str]]:
    engine = _engine(loc)
    try:
        return {str(i["name"]): [str(c) for c in i["column_names"]] for i in sa.inspect(engine).get_indexes("task")}
    finally:
        engine.dispose()


def test_a_database_before_0008_gets_the_columns_and_keeps_its_rows(store_location: StoreLocation) -> None:
    assert HEAD == "0008_batch_groups"
    s = open_store(store_location)
    try:
        s.add_tasks([NewTask("old", "w", "api", "q1")], now=T0)
    finally:
        s.close()
    _alembic(store_location, "downgrade", "0007_reasoning")
    assert _revision(store_location) == "0007_reasoning"
    assert not set(NEW) & set(_columns(store_location)) and "ix_task_group" not in _indexes(store_location)

    s = open_store(store_location)  # opening upgrades it to the head
    try:
        assert _revision(store_location) == HEAD
        cols = _columns(store_location)
        assert {name: cols[name][1] for name in NEW} == {
            "group_id": True, "template": True, "template_vars": True, "sample": True, "kept": False,
            "reused_from": True}
        assert {cols[name][0].upper() for name in ("group_id", "template", "template_vars", "reused_from")} == {"TEXT"}
        assert cols["sample"][0].upper() == "INTEGER"
        assert _indexes(store_location)["ix_task_group"] == ["group_id"]
        old = s.get("old")
        assert old is not None and old.prompt == "q1"
        assert (old.group_id, old.template, old.template_vars, old.sample, old.kept, old.reused_from) == (
            None, None, None, None, False, None)
        s.add_tasks([NewTask("new", "w", "api", "A blurb.", group_id="g-1", template="blurb",
                             template_vars='{"product":"x"}', sample=2)], now=T0 + 1)
        new = s.get("new")
        assert new is not None
        assert (new.group_id, new.template, new.template_vars, new.sample, new.kept) == (
            "g-1", "blurb", '{"product":"x"}', 2, False)
    finally:
        s.close()
