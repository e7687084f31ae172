"""A desktop process for the team-mode tests: ``python -m tests.team.worker MODE JSON``.

It opens its own psycopg connections to the test database, runs one :class:`TeamCoordinator`
and records what it observed in the test tables (``t_hold``, ``t_event``), timed by the DATABASE
clock, so that a SIGKILLed worker's record survives it. It loops until a row appears in ``t_stop``.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from typing import Any

import psycopg

from mediadesk.store.team import TeamCoordinator

NOW = "CAST(extract(epoch from clock_timestamp()) AS DOUBLE PRECISION)"

TEST_TABLES = (
    "CREATE TABLE t_hold (worker VARCHAR NOT NULL, kind VARCHAR NOT NULL, key VARCHAR NOT NULL, "
    "lim INTEGER, t0 DOUBLE PRECISION NOT NULL, t1 DOUBLE PRECISION NOT NULL, released BOOLEAN NOT NULL)",
    "CREATE TABLE t_event (worker VARCHAR NOT NULL, what VARCHAR NOT NULL, detail VARCHAR, "
    "at DOUBLE PRECISION NOT NULL)",
    "CREATE TABLE t_stop (flag INTEGER)",
)


class Worker:
    def __init__(self, args: dict[str, Any]) -> None:
        self.name: str = args["name"]
        self.args = args
        # the coordinator's connection, and one for the records (never inside the coordinator's)
        self.conn = psycopg.connect(args["url"], autocommit=True)
        self.rec = psycopg.connect(args["url"], autocommit=True)
        self.coord = TeamCoordinator(
            self.conn, owner=f"{self.name}:{os.getpid()}", host=f"host-{self.name}", operator=f"op-{self.name}",
            pid=os.getpid(), stale_after_s=float(args.get("stale", 90.0)), dialect="postgresql")
        self._checked = 0.0
        self._stopped = False

    def now(self) -> float:
        return float(self.rec.execute(f"SELECT {NOW}").fetchone()[0])  # type: ignore[index]

    def event(self, what: str, detail: object = None, at: float | None = None) -> None:
        self.rec.execute(f"INSERT INTO t_event (worker, what, detail, at) VALUES (%s, %s, %s, COALESCE(%s, {NOW}))",
                         (self.name, what, None if detail is None else str(detail), at))

    def hold(self, kind: str, key: object, t0: float, t1: float, released: bool, lim: int | None = None) -> None:
        """One holding of ``key`` seen from inside: ``[t0, t1]`` lies within the real holding."""
        self.rec.execute(
            "INSERT INTO t_hold (worker, kind, key, lim, t0, t1, released) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (self.name, kind, str(key), lim, t0, t1, released))

    def stopped(self) -> bool:
        """True once the test asked us to stop (checked at most every 20 ms)."""
        if not self._stopped and time.monotonic() - self._checked >= 0.02:
            self._checked = time.monotonic()
            self._stopped = self.rec.execute("SELECT count(*) FROM t_stop").fetchone()[0] > 0  # type: ignore[index]
        return self._stopped

    # -- modes -----------------------------------------------------------------------------------

    def accounts(self) -> None:
        """Acquire / hold 1-5 ms / release each account in turn, recording each holding interval."""
        accounts = list(self.args["accounts"])
        while not self.stopped():
            random.shuffle(accounts)
            for acct in accounts:
                if not self.coord.acquire_account(acct).acquired:
                    continue
                t0 = self.now()  # after the lease was ours
                time.sleep(random.uniform(0.001, 0.005))
                t1 = self.now()  # before we give it back
                self.hold("account", acct, t0, t1, self.coord.release_account(acct))
            time.sleep(random.uniform(0, 0.002))

    def hold_account(self) -> None:
        """Acquire the account, then beat every ``beat`` s, reporting any loss, until stopped/killed."""
        acct, beat = self.args["account"], float(self.args["beat"])
        self.coord.join([acct])
        while not self.coord.acquire_account(acct).acquired:
            time.sleep(0.01)
        self.event("acquired", acct)
        while not self.stopped():
            time.sleep(beat)
            res = self.coord.beat()
            if res.lost_accounts or acct not in res.accounts:
                self.event("lost", acct)
        self.event("still-held", self.coord.beat().accounts == frozenset({acct}))

    def grab_account(self) -> None:
        """Try to take the account every 5 ms; once taken, record it and keep it (beating)."""
        acct = self.args["account"]
        beat = float(self.args.get("beat", 0.1))
        tries = 0
        while not self.stopped():
            res = self.coord.acquire_account(acct)
            tries += 1
            if tries % 20 == 0:
                self.event("tried", tries)
            if res.acquired:
                row = self.rec.execute("SELECT acquired_at FROM account_lease WHERE account = %s AND owner = %s",
                                       (acct, self.coord.owner)).fetchone()
                self.event("took", self.coord.owner, at=None if row is None else float(row[0]))
                while not self.stopped():
                    time.sleep(beat)
                    self.coord.beat()
                return
            time.sleep(0.005)

    def slots(self) -> None:
        """Take up to ``per`` slots (limit ``limit``), hold 1-5 ms, free them; record every interval."""
        endpoint, limit, per = self.args["endpoint"], int(self.args["limit"]), int(self.args.get("per", 2))
        n = 0
        while not self.stopped():
            held: list[tuple[int, float]] = []
            for _ in range(per):
                slot = self.coord.acquire_slot(endpoint, limit, f"{self.name}-{n}")
                n += 1
                if slot is None:
                    break
                held.append((slot, self.now()))
            if held:
                time.sleep(random.uniform(0.001, 0.005))
            for slot, t0 in held:
                t1 = self.now()
                self.hold("slot", slot, t0, t1, self.coord.release_slot(endpoint, slot), limit)
            if not held:
                time.sleep(random.uniform(0, 0.002))

    def hold_slots(self) -> None:
        """Take ``limit`` slots and keep them without beating until killed."""
        endpoint, limit = self.args["endpoint"], int(self.args["limit"])
        got: list[int] = []
        while len(got) < limit:
            slot = self.coord.acquire_slot(endpoint, limit, f"{self.name}-{len(got)}")
            if slot is None:
                time.sleep(0.01)
            else:
                got.append(slot)
        self.event("held", ",".join(map(str, sorted(got))))
        while not self.stopped():
            time.sleep(0.05)

    def tokens(self) -> None:
        """Take tokens as fast as the shared bucket allows (sleeping exactly the announced wait)."""
        bucket, rpm, burst = self.args["bucket"], float(self.args["rpm"]), float(self.args.get("burst", 1))
        self.event("start")
        while not self.stopped():
            wait = self.coord.take_token(bucket, rpm, burst)
            if wait == 0:
                self.event("token")
            else:
                assert 0 < wait <= 60 / rpm + 1e-4, wait  # one token away at most (+ clock slack)
                time.sleep(wait)
        self.event("end")

    def desktop(self) -> None:
        """Join with accounts, hold the first one and a slot, beat every ``beat`` s; leave when stopped."""
        accounts, beat = list(self.args["accounts"]), float(self.args["beat"])
        self.coord.join(accounts)
        assert self.coord.acquire_account(accounts[0]).acquired
        assert self.coord.acquire_slot("ep", 2, "task-x") is not None
        self.event("ready", self.coord.owner)
        while not self.stopped():
            time.sleep(beat)
            self.coord.beat()
        self.coord.leave()


def main() -> None:
    mode, args = sys.argv[1], json.loads(sys.argv[2])
    worker = Worker(args)
    getattr(worker, mode)()
    worker.event("exit", mode)


if __name__ == "__main__":
    main()
