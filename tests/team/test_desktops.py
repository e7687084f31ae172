"""The console's view of the other desktops, and who is dead, after a real SIGKILL (PostgreSQL)."""

from __future__ import annotations

from collections.abc import Callable

from mediadesk.store.team import ReapResult, TeamCoordinator
from tests.support import until
from tests.team.conftest import Fleet

STALE = 5.0  # a loaded machine can stall a beating process ~1 s: staleness must be well past that


async def test_desktops_and_dead_owners_after_a_sigkill(
        fleet: Fleet, coordinators: Callable[..., TeamCoordinator]) -> None:
    fleet.db.execute("CREATE TABLE task (task_id VARCHAR PRIMARY KEY, state VARCHAR NOT NULL, owner VARCHAR)")
    me = coordinators("observer", stale_after_s=STALE)
    me.join(["acct-o"])
    assert me.dead_owners() == [] and me.dead_owners(with_running_tasks=True) == []

    p1 = fleet.start("desktop", "d1", accounts=["acct-1", "acct-1b"], beat=0.1, stale=STALE)
    p2 = fleet.start("desktop", "d2", accounts=["acct-2"], beat=0.1, stale=STALE)
    await until(lambda: len(fleet.events("ready")) == 2, "both desktops to join", limit_s=60)
    d1 = fleet.events("ready", "d1")[0][1]
    d2 = fleet.events("ready", "d2")[0][1]
    assert d1 and d2
    ghost = "ghost:1:deadbeef"  # ran a task, never joined
    fleet.db.execute("INSERT INTO task VALUES ('t1', 'running', %s), ('t2', 'running', %s), ('t3', 'running', %s), "
                     "('t4', 'running', %s), ('t5', 'success', %s), ('t6', 'pending', NULL)", (d1, d1, d2, ghost, d1))
    me.beat()

    view = {d.owner: d for d in me.desktops()}
    assert sorted(view) == sorted([d1, d2, "observer"])
    assert (view[d1].host, view[d1].operator, view[d1].pid) == ("host-d1", "op-d1", p1.pid)
    assert (view[d2].host, view[d2].pid) == ("host-d2", p2.pid)
    assert view[d1].accounts == ("acct-1", "acct-1b") and view[d1].held_accounts == ("acct-1",)
    assert (view[d1].running_tasks, view[d2].running_tasks, view["observer"].running_tasks) == (2, 1, 0)
    assert all(d.alive and not d.stopped and d.heartbeat_age_s < STALE for d in view.values())
    assert me.dead_owners() == [ghost]

    fleet.kill("d1")
    [(last_beat,)] = fleet.q("SELECT heartbeat_at FROM desktop WHERE owner = %s", (d1,))

    def d1_dead() -> bool:
        me.beat()  # the observer stays alive meanwhile
        dead = me.dead_owners()
        after = fleet.now()
        if d1 in dead:  # judged at a database time before `after`: must be past the staleness
            assert after > last_beat + STALE, f"declared dead {last_beat + STALE - after:.3f} s early"
        return d1 in dead

    await until(d1_dead, "the killed desktop to be dead", limit_s=60, step_s=0.02)
    me.beat()  # the observer is alive (a stall since its last beat must not make it look dead)
    assert me.dead_owners() == sorted([d1, ghost])
    assert me.dead_owners(with_running_tasks=True) == sorted([d1, ghost])
    view = {d.owner: d for d in me.desktops()}
    assert not view[d1].alive and view[d1].heartbeat_age_s >= STALE and view[d1].running_tasks == 2
    assert view[d2].alive and view["observer"].alive
    assert [d.owner for d in me.desktops()][-1] == d1  # the dead listed last

    # its lease and slot expire with it (d1 renewed them with each beat): reaped once expired
    [(lease_expiry,)] = fleet.q("SELECT expires_at FROM account_lease WHERE owner = %s", (d1,))
    await until(lambda: fleet.now() > lease_expiry + 0.01, "the dead desktop's lease to expire", limit_s=30)
    assert me.reap_dead() == ReapResult(leases=1, slots=1)
    assert me.reap_dead() == ReapResult(leases=0, slots=0)
    assert fleet.q("SELECT owner FROM account_lease ORDER BY owner") == [(d2,)]  # the live one's untouched
    assert fleet.q("SELECT owner FROM endpoint_slot WHERE owner IS NOT NULL") == [(d2,)]

    # a clean exit: stopped at once, its leases and slots given back
    await fleet.stop()
    me.beat()
    assert me.dead_owners() == sorted([d1, d2, ghost])
    view = {d.owner: d for d in me.desktops()}
    assert view[d2].stopped and not view[d2].alive and view[d2].held_accounts == ()
    assert fleet.q("SELECT count(*) FROM account_lease") == [(0,)]
    assert fleet.q("SELECT count(*) FROM endpoint_slot WHERE owner IS NOT NULL") == [(0,)]
