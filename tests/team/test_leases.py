"""Account leases across real processes on one PostgreSQL database: exclusive, taken over from a
SIGKILLed holder only after its expiry (by the database clock), never lost by a live holder."""

from __future__ import annotations

from collections import Counter

from tests.support import until
from tests.team.conftest import Fleet
from tests.team.worker import NOW

ACCOUNTS = ("acct-a", "acct-b")
WORKERS = ("w1", "w2", "w3", "w4")


def _no_crash(fleet: Fleet) -> None:
    crash = fleet.crashed()
    assert crash is None, crash


async def test_account_leases_are_exclusive_under_contention(fleet: Fleet) -> None:
    for name in WORKERS:
        fleet.start("accounts", name, accounts=list(ACCOUNTS))
    t_start = fleet.now()

    def enough() -> bool:
        _no_crash(fleet)
        counts = Counter((w, k) for w, k in fleet.q("SELECT worker, key FROM t_hold WHERE kind = 'account'"))
        return fleet.now() >= t_start + 3.0 and all(counts[(w, a)] >= 5 for w in WORKERS for a in ACCOUNTS)

    await until(enough, "every worker to hold every account 5 times, over 3 s", limit_s=90, step_s=0.1)
    await fleet.stop()

    holds = fleet.q("SELECT key, worker, t0, t1 FROM t_hold WHERE kind = 'account' ORDER BY key, t0")
    for acct in ACCOUNTS:
        intervals = [(w, t0, t1) for k, w, t0, t1 in holds if k == acct]
        # recorded [t0, t1] lies inside the real holding (t0 after acquire, t1 before release): the
        # real holdings are disjoint iff no recorded interval starts before the previous one ended
        last_worker, last_end = None, float("-inf")
        for w, t0, t1 in intervals:
            assert t0 > last_end, f"{acct}: {w} held it from {t0:.6f} while {last_worker} held it until {last_end:.6f}"
            last_worker, last_end = w, max(last_end, t1)
        assert {w for w, _, _ in intervals} == set(WORKERS)
    assert fleet.q("SELECT count(*) FROM t_hold WHERE NOT released") == [(0,)]  # each was still ours at release
    assert fleet.q("SELECT count(*) FROM account_lease")[0][0] == 0  # every lease was given back


async def test_a_sigkilled_holders_lease_is_taken_over_only_after_it_expires(fleet: Fleet) -> None:
    stale = 1.5
    fleet.start("hold_account", "holder", account="acct", beat=0.2, stale=stale)
    await until(lambda: bool(fleet.events("acquired", "holder")), "the holder to acquire", limit_s=60)
    for name in ("g1", "g2"):
        fleet.start("grab_account", name, account="acct", stale=stale)
    # both grabbers are trying while the holder lives (and beats): none gets it

    def tried() -> bool:
        _no_crash(fleet)
        assert fleet.events("took") == [], "a grabber took the lease of a live holder"
        return all(fleet.events("tried", g) for g in ("g1", "g2"))

    await until(tried, "both grabbers to try", limit_s=60)

    fleet.kill("holder")
    [(holder, expires_at)] = fleet.q("SELECT owner, expires_at FROM account_lease WHERE account = 'acct'")
    assert holder.startswith("holder:")

    def taken() -> bool:
        _no_crash(fleet)
        [(owner, now)] = fleet.q(f"SELECT owner, {NOW} FROM account_lease WHERE account = 'acct'")
        if now < expires_at:  # not expired yet: still the dead holder's
            assert owner == holder, f"taken by {owner} {expires_at - now:.3f} s before the lease expired"
        return bool(fleet.events("took"))

    await until(taken, "a grabber to take the expired lease", limit_s=60, step_s=0.02)
    [(grabber, owner, acquired_at)] = fleet.events("took")
    assert acquired_at is not None and acquired_at > expires_at, (acquired_at, expires_at)
    assert fleet.q("SELECT owner FROM account_lease WHERE account = 'acct'") == [(owner,)]
    assert owner is not None and owner.startswith(f"{grabber}:")
    await fleet.stop()
    assert len(fleet.events("took")) == 1  # the new holder beats: the other grabber never got it


async def test_a_live_holder_that_beats_never_loses_its_lease(fleet: Fleet) -> None:
    stale = 1.0
    fleet.start("hold_account", "holder", account="acct", beat=0.1, stale=stale)
    await until(lambda: bool(fleet.events("acquired", "holder")), "the holder to acquire", limit_s=60)
    grabbers = ("g1", "g2", "g3")
    for name in grabbers:
        fleet.start("grab_account", name, account="acct", stale=stale)
    t_start = fleet.now()

    def long_enough() -> bool:
        _no_crash(fleet)
        assert fleet.events("took") == [] and fleet.events("lost") == []
        return fleet.now() >= t_start + 4 * stale and all(len(fleet.events("tried", g)) >= 5 for g in grabbers)

    await until(long_enough, "4 leases' time of grabbers trying (100 tries each)", limit_s=90, step_s=0.05)
    await fleet.stop()
    assert fleet.events("took") == [] and fleet.events("lost") == []
    assert [d for _, d, _ in fleet.events("still-held")] == ["True"]
