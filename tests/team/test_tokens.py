"""A token bucket shared by real processes on one PostgreSQL database: together they never take
more than the rate allows (by the database clock), and each gets tokens."""

from __future__ import annotations

from collections import Counter

from tests.support import until
from tests.team.conftest import Fleet

RPM, BURST = 600.0, 1.0
WORKERS = ("w1", "w2", "w3")


async def test_processes_share_one_token_bucket(fleet: Fleet) -> None:
    for name in WORKERS:
        fleet.start("tokens", name, bucket="endpoint:ep", rpm=RPM, burst=BURST)
    await until(lambda: len(fleet.events("start")) == len(WORKERS), "every worker to start", limit_s=60)
    t_start = max(at for _, _, at in fleet.events("start"))

    def long_enough() -> bool:
        crash = fleet.crashed()
        assert crash is None, crash
        return fleet.now() >= t_start + 3.0

    await until(long_enough, "3 s of taking tokens", limit_s=60, step_s=0.05)
    await fleet.stop()

    first = min(at for _, _, at in fleet.events("start"))  # before any take (the bucket starts full)
    last = max(at for _, _, at in fleet.events("end"))  # after every take
    tokens = fleet.events("token")
    budget = BURST + RPM / 60.0 * (last - first)
    assert len(tokens) <= budget + 1e-6, (len(tokens), budget)
    assert len(tokens) >= 0.5 * RPM / 60.0 * (last - first), (len(tokens), last - first)  # not just refusing
    per_worker = Counter(w for w, _, _ in tokens)
    assert set(per_worker) == set(WORKERS), per_worker
