"""Cost of durability: N tasks through the full durable path vs a bare asyncio + httpx loop.

Both sides send the same requests to the same zero-latency API simulator (its own process) at the
same concurrency, alternating rounds in one run so machine noise hits both alike. The ratio of
throughputs is the cost of the task table, heartbeats, logs and events.

    python -m bench api [--tasks 5000] [--rounds 3] [--concurrency 3]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

import httpx

from bench.common import median, sim_process, table
from mediadesk.config.model import parse_config
from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler


async def bare_loop(base_url: str, n: int, concurrency: int) -> float:
    sem = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(timeout=30) as client:

        async def one(i: int) -> None:
            async with sem:
                r = await client.post(
                    f"{base_url}/chat/completions",
                    json={"model": "m", "messages": [{"role": "user", "content": f"prompt {i}"}]},
                )
                r.raise_for_status()
                r.json()["choices"][0]["message"]["content"]

        t0 = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(n)))
        return time.perf_counter() - t0


async def durable(base_url: str, n: int, concurrency: int, tmp: Path, round_no: int) -> float:
    cfg = parse_config({
        "heartbeat": {"interval_s": 15, "stale_after_s": 90},
        "profiles": [{"name": "bench", "kind": "api", "base_url": base_url, "model": "m",
                      "concurrency": concurrency}],
    })
    ws = Workspace.resolve(data_dir=tmp / f"round{round_no}").ensure()
    async with Scheduler(cfg, ws) as s:
        tasks = [s.intake.new_task(f"t{i}", "bench", f"prompt {i}") for i in range(n)]
        t0 = time.perf_counter()
        s.intake.submit(tasks)
        await s.wait_idle(poll_s=0.05)
        elapsed = time.perf_counter() - t0
        states = s.store.counts()
    assert states == {("bench", "success"): n}, states
    return elapsed


async def main_async(args: argparse.Namespace) -> None:
    with sim_process("api") as url, tempfile.TemporaryDirectory() as tmp:
        await bare_loop(url, 200, args.concurrency)  # warm-up (connections, imports)
        bare: list[float] = []
        dur: list[float] = []
        for r in range(args.rounds):
            bare.append(await bare_loop(url, args.tasks, args.concurrency))
            dur.append(await durable(url, args.tasks, args.concurrency, Path(tmp), r))
    n = args.tasks
    b, d = median(bare), median(dur)
    print(f"\nAPI lane durability cost: {n} tasks, concurrency {args.concurrency}, zero-latency simulator, "
          f"median of {args.rounds} alternating rounds")
    print(table([
        ("path", "tasks/s", "ms/task", "rounds (s)"),
        ("bare asyncio+httpx", f"{n / b:,.0f}", f"{b / n * 1e3:.3f}", " ".join(f"{x:.2f}" for x in bare)),
        ("MediaDesk durable", f"{n / d:,.0f}", f"{d / n * 1e3:.3f}", " ".join(f"{x:.2f}" for x in dur)),
    ]))
    print(f"durable / bare throughput: {b / d:.2f}  (goal >= 0.50); "
          f"durability overhead per task: {(d - b) / n * 1e3:.3f} ms")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="bench api")
    p.add_argument("--tasks", type=int, default=5000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--concurrency", type=int, default=3)
    asyncio.run(main_async(p.parse_args(argv)))


if __name__ == "__main__":
    main()
