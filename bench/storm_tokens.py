"""(c) of ``bench storm``: a provider's tokens-per-minute limit, side by side in one run.

100 tasks of mixed prompt sizes (20 to 400 words; the simulator's answer repeats the prompt, so a
task costs about twice its prompt) against a simulator that allows ``--tpm`` tokens a minute and a
generous 6000 requests a minute, with a bucket that holds one minute's tokens (full at the start, as a
provider's is). The batch needs about 1.5 minutes' tokens, so the first minute's allowance runs out
about two thirds of the way through and the limit decides the rest.

Designs, same simulator settings, one after the other:

- the token gate (``tpm`` declared on the endpoint): reserves each task's expected tokens before
  sending, trues up on the answer, and lowers its bucket to ``x-ratelimit-remaining-tokens``;
- the headers alone (no ``tpm`` declared): the first answer's ``x-ratelimit-limit-tokens`` makes the
  bucket;
- the request-only gate (the previous behaviour: ``rpm`` only, the headers ignored): finds the limit
  by its 429s (each pauses the endpoint for the Retry-After).

Reported: tasks failed (goal 0), refusals per success (goal <= 0.1), and makespan / (total tokens /
TPM) (goal <= 1.10; the first minute's allowance makes values well below 1 possible, so the makespan
is also shown against the time the tokens beyond that allowance need at the limit).
"""

from __future__ import annotations

import random
import tempfile
import time
from typing import Any

from mediadesk.config.model import parse_config
from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from mediadesk.store import TaskReader

__all__ = ["token_storm"]

WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
         "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango")

DESIGNS = (
    ("token gate (tpm declared)", {"tpm": None, "rate_headers": True}),
    ("headers only (no tpm)", {"tpm": 0, "rate_headers": True}),
    ("request-only gate (previous)", {"tpm": 0, "rate_headers": False}),
)


def prompts(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [f"task {i}: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 400))) for i in range(n)]


async def _one(tpm: int, latency: float, items: list[str], endpoint: dict[str, Any]
               ) -> tuple[float, list[Any], dict[str, Any]]:
    sim_cfg = ApiSimConfig(latency=(latency, latency), tpm=tpm, rpm=6000, retry_after_s=1.0, seed=3)
    async with ApiSimServer(sim_cfg) as sim:
        with tempfile.TemporaryDirectory() as d:
            cfg = parse_config({
                "data_dir": str(d),
                "retry": {"max_retries": 2, "backoff_base_s": 0.2, "backoff_max_s": 10},
                "heartbeat": {"interval_s": 1, "stale_after_s": 30},
                "scheduler": {"poll_interval_s": 0.2},
                "endpoints": [{"name": "provider", "base_url": sim.base_url, "concurrency": 5, "rpm": 6000,
                               **{k: (tpm if v is None else v) for k, v in endpoint.items()}}],
                "profiles": [{"name": "w", "kind": "api", "endpoint": "provider", "model": "m", "timeout_s": 30}],
            }, "bench")
            ws = Workspace.resolve(data_dir=cfg.data_dir)
            async with Scheduler(cfg, ws) as s:
                t0 = time.time()
                s.intake.submit([s.intake.new_task(f"t{i:04d}", "w", p) for i, p in enumerate(items)])
                await s.wait_idle(poll_s=0.1)
                makespan = time.time() - t0
            r = TaskReader(ws.db_path)
            try:
                recs = list(r.iter_tasks())
            finally:
                r.close()
        return makespan, recs, sim.stats()


async def token_storm(n: int, tpm: int, latency: float) -> list[list[str]]:
    items = prompts(n)
    out = []
    for label, endpoint in DESIGNS:
        makespan, recs, st = await _one(tpm, latency, items, endpoint)
        ok = sum(1 for r in recs if r.state == "success")
        failed = sum(1 for r in recs if r.state == "failed")
        total = sum((r.prompt_tokens or 0) + (r.completion_tokens or 0) for r in recs)
        ideal = total / tpm * 60.0
        beyond = max(total - tpm, 0) / tpm * 60.0
        out.append([label, str(ok), str(failed), f"{st['refused_429'] / max(ok, 1):.3f}", str(total),
                    f"{makespan:.1f} s", f"{makespan / ideal:.3f}", f"{beyond:.1f} s"])
    return out
