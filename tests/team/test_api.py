"""TeamCoordinator's contract, in one process, on both back-ends (PostgreSQL and an SQLite file)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from mediadesk.store.team import BeatResult, Dialect, LeaseResult, ReapResult, TeamCoordinator
from mediadesk.store.team_schema import TEAM_TABLES_V1
from tests.support import until

Make = Callable[..., TeamCoordinator]
SLACK = 0.002  # the padding of an announced wait (the server clock's resolution)


@pytest.fixture(params=["postgresql", "sqlite"])
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Make]:
    """``make(owner, stale_after_s=...)``: a coordinator on its own connection to one shared database."""
    dialect: Dialect = request.param
    conns: list[Any] = []
    if dialect == "postgresql":
        url: str = request.getfixturevalue("pg_url")

        def connect() -> Any:
            return psycopg.connect(url, autocommit=True)
    else:
        path = tmp_path / "team.sqlite3"

        def connect() -> Any:
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA busy_timeout=10000")
            return conn

    first = connect()
    conns.append(first)
    for ddl in TEAM_TABLES_V1:
        first.execute(ddl)

    def factory(owner: str, *, stale_after_s: float = 90.0) -> TeamCoordinator:
        conn = connect()
        conns.append(conn)
        return TeamCoordinator(conn, owner=owner, host=f"host-{owner}", operator=f"op-{owner}", pid=1000 + len(conns),
                               stale_after_s=stale_after_s, dialect=dialect)

    try:
        yield factory
    finally:
        for conn in conns:
            conn.close()


def db_now(c: TeamCoordinator) -> float:
    return float(c._run("SELECT {now}").fetchone()[0])


def lease_row(c: TeamCoordinator, account: str) -> tuple[str, float, float] | None:
    row = c._run("SELECT owner, acquired_at, expires_at FROM account_lease WHERE account = %s", (account,)).fetchone()
    return None if row is None else (row[0], float(row[1]), float(row[2]))


def test_a_held_account_is_refused_to_others_and_only_its_holder_releases_it(make: Make) -> None:
    a, b = make("a"), make("b")
    assert a.acquire_account("x") == LeaseResult(True, "a", "host-a", 90.0)
    refused = b.acquire_account("x")
    assert (refused.acquired, refused.holder_owner, refused.holder_host) == (False, "a", "host-a")
    assert refused.expires_in_s is not None and 85.0 < refused.expires_in_s <= 90.0
    first = lease_row(a, "x")
    assert a.acquire_account("x").acquired  # ours already: renewed, same acquisition time
    again = lease_row(a, "x")
    assert first is not None and again is not None and again[1] == first[1] and again[2] >= first[2]
    assert b.release_account("x") is False and lease_row(a, "x") is not None  # not b's to give back
    assert a.release_account("x") is True and lease_row(a, "x") is None
    assert a.release_account("x") is False
    assert b.acquire_account("x").acquired and lease_row(a, "x") is not None


async def test_a_lapsed_lease_goes_to_the_next_acquirer_and_the_old_holder_learns_it(make: Make) -> None:
    a, b = make("a", stale_after_s=0.3), make("b", stale_after_s=0.3)
    a.join(["x"])
    assert a.acquire_account("x").acquired and a.acquire_slot("ep", 1, "t1") == 0
    held = a.beat()
    assert held == BeatResult(frozenset({"x"}), frozenset({("ep", 0)}), frozenset(), frozenset())
    row = lease_row(a, "x")
    assert row is not None
    [(slot_expiry,)] = b._run("SELECT expires_at FROM endpoint_slot WHERE endpoint = 'ep'").fetchall()
    # a stops beating (a long pause): b takes both once they expired, not before
    await until(lambda: b.acquire_account("x").acquired, "b to take the lapsed lease", limit_s=30)
    taken = lease_row(b, "x")
    assert taken is not None and taken[0] == "b" and taken[1] > row[2]
    await until(lambda: b.acquire_slot("ep", 1, "t2") == 0, "b to take the lapsed slot", limit_s=30)
    [(new_expiry,)] = b._run("SELECT expires_at FROM endpoint_slot WHERE endpoint = 'ep'").fetchall()
    assert new_expiry - 0.3 > slot_expiry  # taken (at expiry - stale) after a's slot expired
    lost = a.beat()
    assert lost == BeatResult(frozenset(), frozenset(), frozenset({"x"}), frozenset({("ep", 0)}))
    assert a.release_account("x") is False and a.release_slot("ep", 0) is False  # b's now
    assert lease_row(a, "x") is not None and b.beat().accounts == frozenset({"x"})


async def test_beat_renews_every_lease_and_slot_on_the_database_clock(make: Make) -> None:
    a = make("a", stale_after_s=5.0)
    a.join(["x", "y"])
    assert a.acquire_account("x").acquired and a.acquire_account("y").acquired
    assert (a.acquire_slot("ep", 2), a.acquire_slot("ep", 2), a.acquire_slot("other", 1)) == (0, 1, 0)
    before = {k: lease_row(a, k) for k in ("x", "y")}
    t0 = db_now(a)
    await until(lambda: db_now(a) > t0 + 0.05, "the database clock to move on")
    res = a.beat()
    assert res.accounts == {"x", "y"} and res.slots == {("ep", 0), ("ep", 1), ("other", 0)}
    assert not res.lost_accounts and not res.lost_slots
    now = db_now(a)
    for k, old in before.items():
        new = lease_row(a, k)
        assert old is not None and new is not None and new[2] > old[2] and now < new[2] <= now + 5.0
    expiries = [float(r[0]) for r in a._run("SELECT expires_at FROM endpoint_slot").fetchall()]
    assert len(expiries) == 3 and all(now < e <= now + 5.0 for e in expiries)


def test_slots_below_each_acquirers_limit(make: Make) -> None:
    a, b = make("a"), make("b")
    assert (a.acquire_slot("ep", 2, "t1"), b.acquire_slot("ep", 2, "t2")) == (0, 1)
    assert a.acquire_slot("ep", 2) is None and b.acquire_slot("ep", 1) is None
    assert a._run("SELECT slot, owner, task_id FROM endpoint_slot ORDER BY slot").fetchall() == [
        (0, "a", "t1"), (1, "b", "t2")]
    assert b.acquire_slot("ep", 3, "t3") == 2  # b is configured with more: its own limit counts for it
    assert b.release_slot("ep", 0) is False  # a's
    assert a.release_slot("ep", 0) is True and a.release_slot("ep", 0) is False
    assert b.acquire_slot("ep", 1, "t4") == 0
    with pytest.raises(ValueError, match=r"^limit must be within 1\.\.10000, got 0$"):
        a.acquire_slot("ep", 0)


def test_a_shared_token_bucket(make: Make) -> None:
    a, b = make("a"), make("b")
    # one token every 100 s (no stall of the test refills one), 2 banked at first
    assert a.take_token("global", 0.6, burst=2) == 0.0 and b.take_token("global", 0.6, burst=2) == 0.0
    wait = a.take_token("global", 0.6, burst=2)
    assert 90.0 < wait <= 100.0 + SLACK  # both banked ones taken: about 100 s to the next
    assert b.take_token("other", 0.6) == 0.0 and 90.0 < b.take_token("other", 0.6) <= 100.0 + SLACK
    assert all(a.take_token("free", 0.0) == 0.0 for _ in range(10))  # rpm 0 = unlimited
    with pytest.raises(ValueError, match=r"^rpm must be finite and >= 0"):
        a.take_token("x", -1.0)
    with pytest.raises(ValueError, match=r"^burst must be finite and >= 1"):
        a.take_token("x", 60.0, burst=0.5)


def test_a_shared_tokens_per_minute_bucket_reserves_and_trues_up(make: Make) -> None:
    """The TPM bucket of an endpoint (one token a second, 60 banked): a reservation takes many tokens
    at once, the true-up gives back what an answer did not use or takes what it used beyond, and all
    desktops see one level."""
    a, b = make("a"), make("b")
    assert a.take_token("tokens:endpoint:x", 60.0, burst=60.0, n=50) == 0.0
    wait = b.take_token("tokens:endpoint:x", 60.0, burst=60.0, n=30)  # 10 left: 20 s to the other 20
    assert 19.0 < wait <= 20.0 + SLACK
    a.give_back_tokens("tokens:endpoint:x", 60.0, 60.0, 40)  # the answer used 10 of the 50
    assert b.take_token("tokens:endpoint:x", 60.0, burst=60.0, n=30) == 0.0  # 50 were there: 20 left
    b.give_back_tokens("tokens:endpoint:x", 60.0, 60.0, -40)  # it used 70: the level goes below zero
    wait = a.take_token("tokens:endpoint:x", 60.0, burst=60.0, n=10)
    assert 29.0 < wait <= 30.0 + SLACK  # from -20 to 10: 30 s
    assert a.take_token("big", 60.0, burst=60.0, n=500) == 0.0  # more than it holds: a full bucket will do
    assert 59.0 < a.take_token("big", 60.0, burst=60.0, n=500) <= 60.0 + SLACK
    with pytest.raises(ValueError, match=r"^n must be finite and > 0"):
        a.take_token("x", 60.0, n=0)


def test_a_providers_refusal_lowers_the_shared_bucket_for_every_desktop(make: Make) -> None:
    """A 429 with a stated wait: the bucket drops to the provider's level (never rises), so the desktop
    that was not refused waits too."""
    a, b = make("a"), make("b")
    assert a.take_token("tokens:endpoint:y", 60.0, burst=60.0, n=10) == 0.0  # 50 left, by our count
    a.cap_tokens("tokens:endpoint:y", 60.0, 60.0, 10 - 60.0 / 60.0 * 20)  # refused 10, "wait 20 s"
    wait = b.take_token("tokens:endpoint:y", 60.0, burst=60.0, n=10)
    assert 19.0 < wait <= 20.0 + SLACK  # from -10 to 10
    a.cap_tokens("tokens:endpoint:y", 60.0, 60.0, 55.0)  # a cap above the level changes nothing
    assert 19.0 < b.take_token("tokens:endpoint:y", 60.0, burst=60.0, n=10) <= 20.0 + SLACK


async def test_a_token_is_there_again_after_the_announced_wait(make: Make) -> None:
    a = make("a")
    assert a.take_token("b", 600.0) == 0.0
    waits = 0
    while waits < 20:
        wait = a.take_token("b", 600.0)
        assert 0 <= wait <= 0.1 + SLACK
        if wait == 0:  # a stall of 0.1 s since the last take refilled it: a token, no wait to check
            continue
        waits += 1
        t = db_now(a)
        # polled without pause: the take lands on the first clock tick at or after the wait
        await until(lambda: db_now(a) >= t + wait, "the announced wait to pass on the database clock",  # noqa: B023
                    step_s=0.0)
        assert a.take_token("b", 600.0) == 0.0


def test_a_desktop_that_stalled_past_its_staleness_never_declares_itself_dead(make: Make) -> None:
    """A loaded machine stalls a desktop between its beat and its look at who is dead: its own old
    heartbeat must not make it recover its own running tasks nor reap its own lease; the others do."""
    a, b = make("a", stale_after_s=0.5), make("b", stale_after_s=0.5)
    a._run("CREATE TABLE task (task_id VARCHAR PRIMARY KEY, state VARCHAR NOT NULL, owner VARCHAR)")
    a.join(["acct"])
    b.join([])
    assert a.acquire_account("acct").acquired
    a._run("INSERT INTO task VALUES ('t1', 'running', 'a')")
    # the stall: a's heartbeat and lease are older than its staleness, as if it froze a while
    a._run("UPDATE desktop SET heartbeat_at = {now} - 10 WHERE owner = 'a'")
    a._run("UPDATE account_lease SET expires_at = {now} - 5 WHERE owner = 'a'")
    assert a.dead_owners(with_running_tasks=True) == [] and a.dead_owners() == []
    assert a.reap_dead() == ReapResult(leases=0, slots=0)
    assert lease_row(a, "acct") is not None
    assert b.dead_owners(with_running_tasks=True) == ["a"]  # to the others it is dead, and they reap it
    assert b.reap_dead() == ReapResult(leases=1, slots=0)


def test_join_leave_and_the_console_view(make: Make) -> None:
    a, b = make("a"), make("b")
    a.join(["y", "x"])
    b.join([])
    assert b.acquire_account("z").acquired and b.acquire_slot("ep", 1) == 0
    view = {d.owner: d for d in a.desktops()}
    assert (view["a"].accounts, view["a"].host, view["a"].operator, view["a"].alive) == (("x", "y"), "host-a",
                                                                                         "op-a", True)
    assert view["b"].held_accounts == ("z",) and view["b"].running_tasks == 0  # no task table: none counted
    assert a.dead_owners() == [] and a.dead_owners(with_running_tasks=True) == []
    b.leave()
    assert lease_row(a, "z") is None and a.acquire_slot("ep", 1) == 0  # given back at once
    view = {d.owner: d for d in a.desktops()}
    assert view["b"].stopped and not view["b"].alive and a.dead_owners() == ["b"]
    assert a.reap_dead() == ReapResult(0, 0)
    b.join(["z"])  # the same process again (after a leave by mistake): alive again
    assert a.dead_owners() == [] and {d.owner: d for d in a.desktops()}["b"].accounts == ("z",)


async def test_long_dead_desktops_that_hold_nothing_are_forgotten(make: Make) -> None:
    a, b, c = (make(o, stale_after_s=0.2) for o in "abc")
    for x in (a, b, c):
        x.join([])
    assert c.acquire_account("z").acquired  # c dies holding a lease
    b.leave()
    assert a.forget_desktops(60.0) == 0  # b left less than a minute ago

    def b_forgotten() -> bool:
        a.forget_desktops(0.2)
        return "b" not in {d.owner for d in a.desktops()}

    await until(b_forgotten, "the desktop that left to be forgotten", limit_s=30)
    assert "c" in {d.owner for d in a.desktops()}  # still holds a lease: kept (shown dead)
    assert a.reap_dead().leases == 1 and lease_row(a, "z") is None
    a.forget_desktops(0.2)
    assert "c" not in {d.owner for d in a.desktops()}
    with pytest.raises(ValueError, match=r"^older_than_s must be >= stale_after_s"):
        a.forget_desktops(0.1)


def test_bad_arguments_are_refused(make: Make) -> None:
    a = make("a")
    with pytest.raises(ValueError, match=r"^account names must be non-empty and without ','"):
        a.join(["x,y"])
    with pytest.raises(ValueError, match=r"^stale_after_s must be finite and > 0"):
        TeamCoordinator(a._conn, owner="c", host="h", operator="o", pid=1, stale_after_s=0, dialect=a.dialect)
    with pytest.raises(ValueError, match=r"^dialect must be 'postgresql' or 'sqlite'"):
        TeamCoordinator(a._conn, owner="c", host="h", operator="o", pid=1, dialect="mysql")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^owner must not be empty"):
        TeamCoordinator(a._conn, owner="", host="h", operator="o", pid=1, dialect=a.dialect)


def test_a_connection_with_driver_managed_transactions_is_refused(pg_url: str, tmp_path: Path) -> None:
    with psycopg.connect(pg_url) as conn, pytest.raises(ValueError, match=r"must be in autocommit mode$"):
        TeamCoordinator(conn, owner="c", host="h", operator="o", pid=1, dialect="postgresql")
    lite = sqlite3.connect(tmp_path / "x.sqlite3")
    try:
        with pytest.raises(ValueError, match=r"must have isolation_level=None$"):
            TeamCoordinator(lite, owner="c", host="h", operator="o", pid=1, dialect="sqlite")
    finally:
        lite.close()


async def test_a_beat_chosen_as_deadlock_victim_is_run_again(team_url: str, coordinators: Make) -> None:
    """A reaper-like transaction locks our two leases in the other order: PostgreSQL aborts the
    beat (the first to wait) as the deadlock victim; the beat runs again and renews both."""
    me = coordinators("me")
    assert me.acquire_account("a").acquired and me.acquire_account("b").acquired
    with psycopg.connect(team_url) as other, psycopg.connect(team_url, autocommit=True) as watch:
        # `other`: a transaction of its own (not autocommit); `watch` sees the server's activity.
        # PostgreSQL aborts the session whose deadlock check finds the cycle; each waiting session checks
        # once, deadlock_timeout after it began to wait. By default (1 s) the beat's check could run
        # before `other` closes the cycle (a loaded machine), and `other`'s would then find it. No event
        # orders the two checks, so their times do: the beat checks 3 s into its wait (`other` closes
        # the cycle right after the beat is seen waiting), `other` only after 10 min.
        me._conn.execute("SET deadlock_timeout = '3s'")
        other.execute("SET deadlock_timeout = '10min'")
        other.execute("UPDATE account_lease SET host = host WHERE account = 'b'")
        done: dict[str, object] = {}

        def beat() -> None:
            try:
                done["result"] = me.beat()
            except Exception as exc:  # reported below
                done["error"] = exc

        thread = threading.Thread(target=beat)
        thread.start()
        try:
            await until(lambda: watch.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
            ).fetchone() == (1,), "the beat to wait for lease b (holding lease a)")
            other.execute("UPDATE account_lease SET host = host WHERE account = 'a'")  # the cycle: one is aborted
            other.commit()
        finally:
            thread.join(timeout=60)
    assert "error" not in done, done
    result = done["result"]
    assert isinstance(result, BeatResult) and result.accounts == {"a", "b"} and not result.lost_accounts
    # aborted at least once (a retry may meet the same cycle if it takes the freed row before `other`)
    assert 1 <= me.tx_retries < 3
