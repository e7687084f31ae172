"""The durable table on both back-ends (a real SQLite file, a real PostgreSQL database): CAS
transitions, one row per task, the claim order and the conversation rule, schema versioning."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from pathlib import Path

import pytest

from mediadesk.config.location import PgLocation, StoreLocation
from mediadesk.core.log_lines import LOG
from mediadesk.core.picker import Channel
from mediadesk.core.states import HeartbeatResult, TaskState
from mediadesk.store import SCHEMA_VERSION, NewTask, SchemaError, TaskReader, TaskStore, open_store


@pytest.fixture
def loc(store_location: StoreLocation) -> StoreLocation:
    return store_location


def store(loc: StoreLocation) -> TaskStore:
    return open_store(loc)


def test_add_is_idempotent_by_task_id(loc: StoreLocation) -> None:
    s = store(loc)
    r1 = s.add_tasks([NewTask("a", "p", "api", "x"), NewTask("b", "p", "api", "y")])
    r2 = s.add_tasks([NewTask("a", "p", "api", "CHANGED"), NewTask("c", "p", "api", "z")])
    assert r1.added == ("a", "b") and r2.added == ("c",) and r2.existing == ("a",)
    assert s.get("a").prompt == "x"  # an existing task is never overwritten
    s.close()


def test_cas_lets_only_one_of_two_writers_win(loc: StoreLocation) -> None:
    s = store(loc)
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


def test_illegal_transition_is_refused(loc: StoreLocation) -> None:
    s = store(loc)
    s.add_tasks([NewTask("a", "p", "api", "x")])
    rec = s.get("a")
    with pytest.raises(ValueError, match="illegal transition pending -> success"):
        s.finish(rec, TaskState.SUCCESS, result="never ran")
    s.close()


def test_retry_is_the_same_row_with_not_before(loc: StoreLocation) -> None:
    s = store(loc)
    s.add_tasks([NewTask("a", "p", "api", "x")])
    (rec,) = s.claim(["p"], 1, lane="api:p", account=None, owner="me", now=100.0)
    back = s.finish(rec, TaskState.PENDING, error_kind="timeout", not_before=200.0, now=101.0)
    assert back is not None and back.attempt == 1
    assert s.claim(["p"], 1, lane="api:p", account=None, owner="me", now=150.0) == []  # deferred
    (again,) = s.claim(["p"], 1, lane="api:p", account=None, owner="me", now=201.0)
    assert again.attempt == 2 and again.task_id == "a"
    s.close()
    r = TaskReader(loc)
    assert r.counts() == {("p", "running"): 1}  # one row, claimed again
    r.close()


def test_logs_are_group_committed_and_readable(loc: StoreLocation) -> None:
    s = store(loc)
    s.add_tasks([NewTask("a", "p", "api", "x")])
    s.append_log("a", "api:p", LOG.warning(warning="hello"))
    r = TaskReader(loc)
    assert [ln.message for ln in r.logs("a")] == []  # buffered
    s.flush()
    assert [ln.message for ln in r.logs("a")] == ["warning: hello"]
    r.close()
    s.close()


def _insert_old_row(loc: StoreLocation, task_id: str, message: str) -> None:
    """A line as MediaDesk wrote it before lines had ids: its English text only."""
    sql = "INSERT INTO task_log (task_id, ts, lane, message) VALUES ('{}', 1.0, 'api:p', '{}')"
    if isinstance(loc, PgLocation):
        import psycopg

        with psycopg.connect(loc.url, autocommit=True) as conn:
            conn.execute(sql.format(task_id, message).encode())
    else:
        with contextlib.closing(sqlite3.connect(loc.path)) as conn, conn:
            conn.execute(sql.format(task_id, message))


def test_a_log_line_keeps_its_phrase_and_values_and_old_rows_still_read(loc: StoreLocation) -> None:
    s = store(loc)
    s.add_tasks([NewTask("a", "p", "api", "x")])
    (rec,) = s.claim(["p"], 1, lane="api:p", account=None, owner="me", now=100.0)
    why = LOG.retry_in(n=1, max=2, seconds="1.3")
    s.finish(rec, TaskState.PENDING, error_kind="timeout", not_before=200.0, now=101.0,
             log=LOG.attempt_failed(attempt=1, error="timeout: 60 s", why=why))
    s.flush()
    _insert_old_row(loc, "a", "attempt 2 started")
    r = TaskReader(loc)
    try:
        started, failed, old = r.logs("a")
    finally:
        r.close()
        s.close()
    assert (started.message, started.text) == ("attempt 1 started", LOG.attempt_started(attempt=1))
    assert failed.message == "attempt 1 failed (timeout: 60 s); retry 1/2 in 1.3 s"
    assert failed.text == LOG.attempt_failed(attempt=1, error="timeout: 60 s", why=why)
    assert failed.text is not None and failed.text.values["why"] == why  # nested words, as written
    assert (old.message, old.text) == ("attempt 2 started", None)


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


def test_reader_get_many_keeps_order_and_skips_missing(loc: StoreLocation) -> None:
    s = store(loc)
    s.add_tasks([NewTask(f"t{i}", "p", "api", f"q{i}") for i in range(1200)])
    r = TaskReader(loc)
    ids = ["t1100", "nope", "t3", *[f"t{i}" for i in range(600, 700)]]
    got = [rec.task_id for rec in r.get_many(ids)]
    assert got == [t for t in ids if t != "nope"]
    r.close()
    s.close()


def test_claim_takes_at_most_limit_in_claim_order(loc: StoreLocation) -> None:
    """High priority first, then submission order; never more than ``limit`` rows (PostgreSQL's first
    claim took two rows for limit 1: a re-scanned SKIP LOCKED sub-select)."""
    s = store(loc)
    s.add_tasks([NewTask(f"n{i}", "p", "api", "x") for i in range(5)])
    s.add_tasks([NewTask("hi", "p", "api", "x", priority=3), NewTask("lo", "p", "api", "x", priority=-1)])
    s.add_tasks([NewTask("other", "q", "api", "x")])
    got = [r.task_id for r in s.claim(["p"], 1, lane="api:p", account=None, owner="me")]
    assert got == ["hi"]
    got = [r.task_id for r in s.claim(["p"], 3, lane="api:p", account=None, owner="me")]
    assert got == ["n0", "n1", "n2"]
    assert [r.task_id for r in s.claim(["p"], 5, lane="api:p", account=None, owner="me",
                                       channel=Channel.LOW)] == ["lo"]
    rest = s.claim(["p", "q"], 10, lane="api:p", account=None, owner="me")
    assert [r.task_id for r in rest] == ["n3", "n4", "other"]
    assert all(r.state == "running" and r.version == 1 and r.attempt == 1 and r.owner == "me" for r in rest)
    assert s.claim(["p", "q"], 10, lane="api:p", account=None, owner="me") == []
    assert s.counts() == {("p", "running"): 7, ("q", "running"): 1}
    s.close()


def test_conversation_turns_are_claimed_one_at_a_time_by_their_account(loc: StoreLocation) -> None:
    s = store(loc)
    s.add_tasks([NewTask(f"c{i}", "chat", "web", f"turn {i}", route_key="conv") for i in range(3)]
                + [NewTask("solo", "chat", "web", "x")])
    first = s.claim(["chat"], 10, lane="web:a", account="a", owner="me")
    assert [r.task_id for r in first] == ["c0", "solo"]  # c1 waits for c0
    assert s.claim(["chat"], 10, lane="web:b", account="b", owner="me") == []
    c0 = next(r for r in first if r.task_id == "c0")
    assert s.finish(c0, TaskState.SUCCESS, result="one") is not None
    # the next turn belongs to account a (it ran the earlier turn): b cannot take it, a can
    assert s.claim(["chat"], 10, lane="web:b", account="b", owner="me") == []
    (c1,) = s.claim(["chat"], 10, lane="web:a", account="a", owner="me")
    assert c1.task_id == "c1" and s.history("conv", c1.seq) == (("turn 0", "one"),)
    s.close()


def test_heartbeat_reads_the_cancel_flag_and_loses_a_stale_version(loc: StoreLocation) -> None:
    s = store(loc)
    s.add_tasks([NewTask("a", "p", "api", "x"), NewTask("b", "p", "api", "y")])
    a, b = s.claim(["p"], 2, lane="api:p", account=None, owner="me")
    assert s.heartbeat(a) is HeartbeatResult.ALIVE
    (flagged,) = s.request_cancel(["a"])
    assert flagged.cancel_requested is True and flagged.state == "running"
    assert s.heartbeat(a) is HeartbeatResult.CANCEL_REQUESTED
    done = s.finish(b, TaskState.FAILED, error_kind="bad_request", error_message="400")
    assert done is not None and s.heartbeat(b) is HeartbeatResult.LOST
    (again,) = s.requeue(["b"])
    assert again.state == "pending" and again.cancel_requested is False and again.attempt_base == 1
    assert [r.task_id for r in s.select_stale(["p"], cutoff=a.heartbeat_at + 1)] == ["a"]
    s.close()


def test_settings_round_trip(loc: StoreLocation) -> None:
    s = store(loc)
    s.set_account_enabled("acct", False)
    s.set_account_health("acct", "needs_login", "login page", enabled_default=True)
    s.set_account_health("fresh", "ready", None, enabled_default=True)
    s.set_profile_setting("p", need_empty_prompt=True)
    s.set_profile_setting("p", concurrency=2)
    s.close()
    s = store(loc)
    assert s.account_states() == {"acct": (False, "needs_login", "login page"), "fresh": (True, "ready", None)}
    assert s.profile_settings() == {"p": (True, 2)}
    s.close()


def test_concurrent_submitters_get_unique_increasing_seq(loc: StoreLocation) -> None:
    """Two submitters (each its own store and connection) at once: every seq unique, and each
    submitter's tasks in its own order."""
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def submit(name: str) -> None:
        try:
            s = store(loc)
        except BaseException as exc:  # reported by the assert below
            errors.append(exc)
            barrier.abort()
            return
        try:
            barrier.wait(60)
            for batch in range(15):
                s.add_tasks([NewTask(f"{name}-{batch:02d}-{i:02d}", "p", "api", "x") for i in range(20)])
        except BaseException as exc:  # reported by the assert below
            errors.append(exc)
        finally:
            s.close()

    threads = [threading.Thread(target=submit, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    r = TaskReader(loc)
    recs = list(r.iter_tasks())
    r.close()
    seqs = [rec.seq for rec in recs]
    assert len(recs) == 600 and len(set(seqs)) == 600
    for name in ("a", "b"):
        mine = sorted((rec for rec in recs if rec.task_id.startswith(name)), key=lambda rec: rec.task_id)
        assert [rec.seq for rec in mine] == sorted(rec.seq for rec in mine)


def test_connect_shared_is_a_new_autocommit_connection_to_the_same_database(loc: StoreLocation) -> None:
    s = store(loc)
    assert s.dialect == loc.dialect and s.location == loc
    s.add_tasks([NewTask("a", "p", "api", "x")])
    conn = s.connect_shared()
    try:
        mark = "?" if s.dialect == "sqlite" else "%s"
        assert conn.execute(f"SELECT state FROM task WHERE task_id = {mark}", ("a",)).fetchone() == ("pending",)
        conn.execute("INSERT INTO rate_bucket (name, tokens, updated_at) VALUES ('global', 1.0, 2.0)")
    finally:
        conn.close()  # no commit: autocommit, so the row is there for everyone
    r = s.connect_shared()
    try:
        assert r.execute("SELECT tokens FROM rate_bucket").fetchall() == [(1.0,)]
    finally:
        r.close()
    s.close()
