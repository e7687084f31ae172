"""The seed batch (the real batch that motivated two lanes): 40 tasks, 12 web + 28 API, MediaDesk's
two lanes vs the old design.

Both designs run the SAME tasks with the SAME run times (drawn once from the simulator's web
distribution, 31 s..370 s, and 8..20 s for the API, then scaled by ``--scale``), against the same
simulators, the same warm browsers and the same provider quota (3 concurrent API requests), in one
run. The old design is one shared pool of 8 workers taking tasks in submission order; it is even
given our per-account lock (without it its web runs would break each other, as they did in
production), and still loses, because workers blocked on an account keep their pool slot.

The lower bound is max(sum of web run times / web accounts, sum of API run times / API concurrency).

    python -m bench seed [--scale 0.03]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import table
from mediadesk.config.model import AppConfig, parse_config
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import TaskSpec
from mediadesk.core.errors import TaskFailure
from mediadesk.providers.api import ApiBackend
from mediadesk.providers.web.backend import build_web_backend, login_with_form
from mediadesk.scheduler import Scheduler
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from mediadesk.sim.web_server import WebSimConfig, WebSimServer, draw_run_seconds
from mediadesk.store import TaskReader

ACCOUNTS = ("acct-a", "acct-b")
API_CONCURRENCY = 3
POOL_WORKERS = 8


@dataclass
class Item:
    task_id: str
    kind: str
    seconds: float  # unscaled run time
    prompt: str


def make_batch(seed: int) -> list[Item]:
    rng = random.Random(seed)
    wcfg = WebSimConfig(seed=seed)
    items = [Item(f"web-{i:02d}", "web", s, f"web question {i} [[sim:slow={s:.1f}]]")
             for i, s in enumerate(draw_run_seconds(wcfg, rng) for _ in range(12))]
    items += [Item(f"api-{i:02d}", "api", s, f"api question {i} [[sim:sleep={s:.2f}]]")
              for i, s in enumerate(rng.uniform(8, 20) for _ in range(28))]
    rng.shuffle(items)
    return items


def list_schedule(durations: list[float], machines: int) -> float:
    """Makespan of greedy list scheduling in submission order, with zero overhead: what any online
    dispatcher that does not know run times in advance can reach at best."""
    free = [0.0] * machines
    for d in durations:
        i = free.index(min(free))
        free[i] += d
    return max(free)


def config(api_url: str, chat_url: str) -> AppConfig:
    return parse_config({
        "retry": {"max_retries": 5, "backoff_base_s": 0.2, "backoff_max_s": 2},
        "heartbeat": {"interval_s": 2, "stale_after_s": 60},
        "profiles": [
            {"name": "api", "kind": "api", "base_url": api_url, "model": "m", "concurrency": API_CONCURRENCY},
            {"name": "web", "kind": "web", "site": "simchat", "url": chat_url, "max_run_s": 120},
        ],
        "accounts": [{"name": a, "profile": "web"} for a in ACCOUNTS],
    })


@dataclass
class Outcome:
    makespan: float
    api_waits: list[float] = field(default_factory=list)
    web_waits: list[float] = field(default_factory=list)
    failures: int = 0


async def run_mediadesk(cfg: AppConfig, ws: Workspace, items: list[Item]) -> Outcome:
    async with Scheduler(cfg, ws) as s:
        async with asyncio.timeout(60):
            await s.wait_ready()
        t0 = time.time()
        s.intake.submit([s.intake.new_task(it.task_id, it.kind, it.prompt) for it in items])
        await s.wait_idle(poll_s=0.05)
    reader = TaskReader(ws.db_path)
    recs = list(reader.iter_tasks())
    reader.close()
    out = Outcome(makespan=max(r.finished_at or 0 for r in recs) - t0)
    first_start = {r.task_id: r.started_at for r in recs}
    for r in recs:
        (out.api_waits if r.profile == "api" else out.web_waits).append((first_start[r.task_id] or t0) - t0)
        out.failures += r.state != "success"
    return out


class _Ctx:
    def __init__(self, lane: str, evidence: Path) -> None:
        self.lane = lane
        self.evidence_dir = evidence

    def log(self, message: str) -> None:
        pass


async def run_shared_pool(cfg: AppConfig, ws: Workspace, items: list[Item]) -> Outcome:
    """The old design: 8 workers, one FIFO queue, no lanes."""
    api_prof = cfg.profile("api")
    assert api_prof.base_url is not None and api_prof.model is not None
    api = ApiBackend(name="api", base_url=api_prof.base_url, model=api_prof.model)
    webs = [build_web_backend(cfg, ws, cfg.profile("web"), a) for a in cfg.accounts]
    await api.start()
    for w in webs:
        await w.start()
    queue: asyncio.Queue[Item] = asyncio.Queue()
    for it in items:
        queue.put_nowait(it)
    out = Outcome(makespan=0.0)
    rr = 0
    t0 = time.time()

    async def worker() -> None:
        nonlocal rr
        while True:
            try:
                it = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            started = time.time()
            (out.api_waits if it.kind == "api" else out.web_waits).append(started - t0)
            spec = TaskSpec(it.task_id, it.kind, it.prompt, 1, None)
            backend = api if it.kind == "api" else webs[rr % len(webs)]
            if it.kind == "web":
                rr += 1
            for _attempt in range(6):
                try:
                    await backend.run(spec, _Ctx(it.kind, ws.evidence_dir))
                    break
                except TaskFailure as f:  # e.g. 429 from the provider quota: wait inside the worker
                    await asyncio.sleep(f.retry_after_s or 0.5)
            else:
                out.failures += 1

    await asyncio.gather(*(worker() for _ in range(POOL_WORKERS)))
    out.makespan = time.time() - t0
    await api.stop()
    for w in webs:
        await w.stop()
    return out


async def main_async(args: argparse.Namespace) -> None:
    items = make_batch(args.seed)
    scale = args.scale
    web_sum = sum(it.seconds for it in items if it.kind == "web") * scale
    api_sum = sum(it.seconds for it in items if it.kind == "api") * scale
    bound = max(web_sum / len(ACCOUNTS), api_sum / API_CONCURRENCY)
    greedy = max(list_schedule([it.seconds * scale for it in items if it.kind == "web"], len(ACCOUNTS)),
                 list_schedule([it.seconds * scale for it in items if it.kind == "api"], API_CONCURRENCY))
    async with (
        ApiSimServer(ApiSimConfig(time_scale=scale, quota=API_CONCURRENCY, retry_after_s=0.2)) as api_sim,
        WebSimServer(WebSimConfig(time_scale=scale, answer_tokens=20, seed=args.seed)) as web_sim,
    ):
        with tempfile.TemporaryDirectory() as tmp:
            cfg = config(api_sim.base_url, web_sim.chat_url)
            ws = Workspace.resolve(data_dir=Path(tmp) / "md").ensure()
            for a in ACCOUNTS:
                await login_with_form(cfg, ws, a, web_sim.login_url, fields={"#account": a, "#password": "x"},
                                      submit="button.login", logged_in=".avatar")
            api_only_ws = Workspace.resolve(data_dir=Path(tmp) / "md", db_path=Path(tmp) / "api-only.db")
            api_only = await run_mediadesk(cfg, api_only_ws, [it for it in items if it.kind == "api"])
            api_sim.reset_stats()
            md = await run_mediadesk(cfg, ws, items)
            md_violations = web_sim.stats()["concurrent_violations"]
            md_429 = api_sim.stats()["refused_429"]
            api_sim.reset_stats()
            web_sim.reset_stats()
            ws2 = Workspace.resolve(data_dir=Path(tmp) / "md", db_path=Path(tmp) / "pool.db")
            old = await run_shared_pool(cfg, ws2, items)
            old_429 = api_sim.stats()["refused_429"]
    print(f"\nSeed batch: 12 web + 28 API tasks, run times x{scale} (web sum {web_sum:.1f} s on "
          f"{len(ACCOUNTS)} accounts, API sum {api_sum:.1f} s at concurrency {API_CONCURRENCY})")
    print(table([
        ("design", "makespan s", "/ bound", "/ list-schedule", "API mean queue wait s", "failed", "429s"),
        ("MediaDesk (two lanes)", f"{md.makespan:.1f}", f"{md.makespan / bound:.3f}", f"{md.makespan / greedy:.3f}",
         f"{statistics.mean(md.api_waits):.2f}", str(md.failures), str(md_429)),
        ("MediaDesk, API tasks alone", f"{api_only.makespan:.1f}", "-", "-",
         f"{statistics.mean(api_only.api_waits):.2f}", str(api_only.failures), "-"),
        (f"shared pool of {POOL_WORKERS}", f"{old.makespan:.1f}", f"{old.makespan / bound:.3f}",
         f"{old.makespan / greedy:.3f}", f"{statistics.mean(old.api_waits):.2f}", str(old.failures), str(old_429)),
    ]))
    print(f"lower bound {bound:.1f} s = max(web sum / accounts, API sum / concurrency); zero-overhead greedy "
          f"list schedule in submission order {greedy:.1f} s")
    print(f"MediaDesk/bound {md.makespan / bound:.3f} (goal <= 1.05), MediaDesk/list-schedule "
          f"{md.makespan / greedy:.3f}; pool/MediaDesk {old.makespan / md.makespan:.2f}x; API wait with web "
          f"tasks / alone {statistics.mean(md.api_waits) / max(1e-9, statistics.mean(api_only.api_waits)):.2f}; "
          f"web concurrency violations (MediaDesk) {md_violations}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="bench seed")
    p.add_argument("--scale", type=float, default=0.1, help="multiplies every run time")
    p.add_argument("--seed", type=int, default=11)
    asyncio.run(main_async(p.parse_args(argv)))


if __name__ == "__main__":
    main()
