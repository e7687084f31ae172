"""Four real processes, each with its own TaskStore, claiming and finishing 500 tasks of one PostgreSQL
database at once: every task is claimed exactly once (never two running at once), every task ends
terminal, with exactly one finish."""

from __future__ import annotations

import multiprocessing
import random
import threading

from mediadesk.core.log_lines import LOG
from mediadesk.core.states import TaskState
from mediadesk.store import NewTask, TaskReader, open_store

N_TASKS = 500
N_PROCS = 4


def worker(url: str, name: str, seed: int, start: threading.Barrier) -> tuple[list[str], list[str], int]:
    """Claim batches of 1..8 until nothing is left; finish each claim. Returns (claimed ids, ids whose
    finish CAS failed, empty claims seen)."""
    rnd = random.Random(seed)
    store = open_store(url)
    start.wait(60)  # all four connected: none is done before the last one starts
    claimed: list[str] = []
    lost: list[str] = []
    empty = 0
    try:
        while True:
            recs = store.claim(["p"], rnd.randint(1, 8), lane=f"api:{name}", account=None, owner=name)
            if not recs:
                empty += 1
                if store.unfinished_count(["p"]) == 0:
                    return claimed, lost, empty
                continue
            for rec in recs:
                claimed.append(rec.task_id)
                done = store.finish(rec, TaskState.SUCCESS, result=f"by {name}", log=LOG.success(seconds="1", more=""))
                if done is None:
                    lost.append(rec.task_id)
    finally:
        store.close()


def test_four_processes_claim_every_task_exactly_once(pg_url: str) -> None:
    s = open_store(pg_url)
    s.add_tasks([NewTask(f"t{i:03d}", "p", "api", f"q{i}", priority=i % 3 - 1) for i in range(N_TASKS)])
    s.close()
    ctx = multiprocessing.get_context("spawn")
    with ctx.Manager() as manager, ctx.Pool(N_PROCS) as pool:
        start = manager.Barrier(N_PROCS)
        results = pool.starmap(worker, [(pg_url, f"w{i}", i, start) for i in range(N_PROCS)], chunksize=1)
    claimed = [tid for ids, _lost, _empty in results for tid in ids]
    assert sorted(claimed) == [f"t{i:03d}" for i in range(N_TASKS)]  # each exactly once
    assert [lost for _ids, lost, _empty in results] == [[]] * N_PROCS  # every finish CAS won
    assert sum(1 for ids, _l, _e in results if ids) >= 3  # they really shared the work
    r = TaskReader(pg_url)
    try:
        recs = list(r.iter_tasks())
        assert {rec.state for rec in recs} == {"success"} and len(recs) == N_TASKS
        # pending -> running -> success: one claim (attempt 1) and one finish (version 2) per task
        assert {(rec.attempt, rec.version) for rec in recs} == {(1, 2)}
        by_owner = {rec.task_id: rec.owner for rec in recs}
        assert all(rec.result == f"by {by_owner[rec.task_id]}" for rec in recs)
        for tid in ("t000", "t250", "t499"):
            assert [ln.message for ln in r.logs(tid)] == ["attempt 1 started", "success in 1 s"]
    finally:
        r.close()
