"""Capacity-aware dispatch under a provider's real limits, side by side in one run.

(a) Quota storm: N API tasks against a provider that allows 2 concurrent requests, with our gate at
    5. MediaDesk (shared adaptive gate, refusals pause the endpoint and cost no attempt) beside the
    previous behaviour (fixed gate; every refusal costs the task an attempt and delays only that
    task), same simulator settings. Reported: tasks failed, refusals per successful task, and
    makespan / (work / true quota), the ideal being 1.
(b) Outage: the endpoint answers 503 (no Retry-After) for 20 % of the batch's expected length.
    Reported: tasks failed, requests that reached it while down (goal <= outage / probe_interval + 1),
    and time from the end of the outage to full concurrency again (goal <= one probe interval + one
    run time).
(c) Tokens per minute: 100 tasks of mixed prompt sizes against a provider's TPM limit, the token
    gate beside the request-only gate (:mod:`bench.storm_tokens`).

    python -m bench storm [--tasks 200] [--latency 0.3] [--retry-after 0.3] [--tpm 36000] [--only tokens]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import table
from bench.storm_tokens import token_storm
from mediadesk.config.model import AccountConfig, AppConfig, ProfileConfig, parse_config
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import LaneBackend, RunContext, TaskSpec
from mediadesk.core.errors import TaskFailure
from mediadesk.providers.api import ApiBackend
from mediadesk.scheduler import Scheduler
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from mediadesk.store import TaskReader


class ChargedRefusals:
    """The previous behaviour: a refusal is a plain retryable failure of the task (charged, delayed
    for that task only by its Retry-After), so the lane at once starts the next queued task."""

    #: Optional LaneBackend abilities this wrapper does not pass on.
    attempt_deadline_s = None
    domain = None
    probe = None
    login = None
    unavailable_reason = None
    max_run_s = None
    check = None
    check_adapter = None
    resolve_challenge = None
    challenge_screenshot = None

    def __init__(self, inner: ApiBackend) -> None:
        self.inner = inner

    async def start(self) -> None:
        await self.inner.start()

    async def stop(self) -> None:
        await self.inner.stop()

    def available(self) -> bool:
        return True

    def health(self) -> tuple[str, str | None]:
        return self.inner.health()

    async def run(self, task: TaskSpec, ctx: RunContext) -> str:
        try:
            return await self.inner.run(task, ctx)
        except TaskFailure as exc:
            raise TaskFailure(exc.kind, exc.message, retry_after_s=exc.retry_after_s, refusal=False) from None


def config(base_url: str, data_dir: Path, *, concurrency: int, adaptive: bool, probe_s: float) -> AppConfig:
    return parse_config({
        "data_dir": str(data_dir),
        "retry": {"max_retries": 2, "backoff_base_s": 0.2, "backoff_max_s": 10},
        "heartbeat": {"interval_s": 1, "stale_after_s": 30},
        "scheduler": {"poll_interval_s": 0.2},
        "breaker": {"probe_interval_s": probe_s, **({} if adaptive else {"window": 10_000, "min_calls": 10_000})},
        "endpoints": [{"name": "provider", "base_url": base_url, "concurrency": concurrency, "adaptive": adaptive}],
        "profiles": [{"name": "w", "kind": "api", "endpoint": "provider", "model": "m", "timeout_s": 30}],
    }, "bench")


def rows(ws: Workspace) -> list[Any]:
    r = TaskReader(ws.db_path)
    try:
        return list(r.iter_tasks())
    finally:
        r.close()


async def run_batch(cfg: AppConfig, n: int, *, legacy: bool, during: Any = None) -> tuple[float, list[Any]]:
    ws = Workspace.resolve(data_dir=cfg.data_dir)

    def factory(p: ProfileConfig, a: AccountConfig | None) -> LaneBackend:
        from mediadesk.scheduler.backends import default_backend

        b = default_backend(cfg, ws, p, a)
        return ChargedRefusals(b) if legacy else b  # type: ignore[arg-type, return-value]

    async with Scheduler(cfg, ws, backend_factory=factory) as s:
        t0 = time.time()
        s.intake.submit([s.intake.new_task(f"t{i:04d}", "w", f"prompt {i}") for i in range(n)])
        extra = asyncio.create_task(during(s, t0)) if during else None
        await s.wait_idle(poll_s=0.1)
        makespan = time.time() - t0
        if extra is not None:
            await extra
    return makespan, rows(ws)


async def storm(n: int, latency: float, retry_after: float) -> list[list[str]]:
    out = []
    ideal = n * latency / 2
    for label, legacy in (("MediaDesk (shared adaptive gate)", False), ("previous (refusals charged)", True)):
        sim_cfg = ApiSimConfig(latency=(latency, latency), quota=2, retry_after_s=retry_after, seed=1)
        async with ApiSimServer(sim_cfg) as sim:
            with tempfile.TemporaryDirectory() as d:
                cfg = config(sim.base_url, Path(d), concurrency=5, adaptive=not legacy, probe_s=2.0)
                makespan, recs = await run_batch(cfg, n, legacy=legacy)
            st = sim.stats()
        ok = sum(1 for r in recs if r.state == "success")
        failed = sum(1 for r in recs if r.state == "failed")
        out.append([label, str(ok), str(failed), f"{st['refused_429'] / max(ok, 1):.3f}",
                    f"{makespan:.1f} s", f"{makespan / ideal:.3f}"])
    return out


async def outage(n: int, latency: float, probe_s: float) -> list[list[str]]:
    expected = n * latency / 2
    down_s = 0.2 * expected

    async def cut(s: Scheduler, t0: float) -> None:
        await asyncio.sleep(0.3 * expected)
        sim.set_outage("503", duration_s=down_s, retry_after_s=None)

    async with ApiSimServer(ApiSimConfig(latency=(latency, latency), quota=2, seed=2)) as sim:
        with tempfile.TemporaryDirectory() as d:
            cfg = config(sim.base_url, Path(d), concurrency=2, adaptive=True, probe_s=probe_s)
            makespan, recs = await run_batch(cfg, n, legacy=False, during=cut)
        st = sim.stats()
    failed = sum(1 for r in recs if r.state != "success")
    charged = sum(r.attempt - 1 for r in recs)
    # when the outage ended (wall clock), as the simulator recorded it
    [record] = st["outages"]
    up = record["ended_at"]
    starts = sorted(r.started_at for r in recs if r.started_at and r.started_at >= up)
    # full concurrency again: the moment the 2nd task (of 2 slots) started after the outage ended
    recovery = (starts[1] - up) if len(starts) >= 2 else float("nan")
    during = st["requests_during_outage"]
    return [
        ["outage length", f"{down_s:.1f} s", ""],
        ["tasks failed", str(failed), "goal 0"],
        ["attempts charged (beyond the first)", str(charged), "goal 0"],
        ["requests that reached it while down", str(during), f"goal <= {down_s / probe_s + 1:.1f}"],
        ["recovery to full concurrency", f"{recovery:.2f} s", f"goal <= {probe_s + latency:.2f} s"],
        ["makespan", f"{makespan:.1f} s", f"ideal {expected + down_s:.1f} s"],
    ]


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="bench storm")
    ap.add_argument("--tasks", type=int, default=200)
    ap.add_argument("--latency", type=float, default=0.3, help="provider run time per task (s)")
    ap.add_argument("--retry-after", type=float, default=0.3)
    ap.add_argument("--probe-interval", type=float, default=1.0)
    ap.add_argument("--tpm", type=int, default=36000, help="(c) the provider's tokens per minute")
    ap.add_argument("--token-tasks", type=int, default=100)
    ap.add_argument("--only", choices=("requests", "outage", "tokens"), help="run one case only")
    args = ap.parse_args(argv)
    if args.only in (None, "tokens"):
        res_c = asyncio.run(token_storm(args.token_tasks, args.tpm, args.latency))
        print(f"(c) {args.token_tasks} tasks of mixed prompt sizes, provider limit {args.tpm} tokens/min "
              f"(one minute banked at the start) and 6000 requests/min, run time {args.latency} s")
        print(table([("design", "succeeded", "failed", "refusals/success", "tokens", "makespan",
                      "/ (tokens / TPM)", "beyond 1st minute at TPM"), *map(tuple, res_c)]))
    if args.only == "tokens":
        return
    res = asyncio.run(storm(args.tasks, args.latency, args.retry_after))
    print(f"(a) {args.tasks} tasks, provider quota 2, our gate 5, run time {args.latency} s, "
          f"Retry-After {args.retry_after} s; ideal makespan {args.tasks * args.latency / 2:.1f} s")
    print(table([("design", "succeeded", "failed", "refusals/success", "makespan", "/ (work / quota)"),
                 *map(tuple, res)]))
    if args.only == "requests":
        return
    res_b = asyncio.run(outage(args.tasks, args.latency, args.probe_interval))
    print(f"(b) {args.tasks} tasks, quota 2 = gate 2, 503 outage for 20 % of the batch, probe every "
          f"{args.probe_interval} s")
    print(table([("measure", "value", "goal"), *map(tuple, res_b)]))


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
