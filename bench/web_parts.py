"""Where a warm web task's claim-to-stored time goes, layer by layer, on the full durable path.

``bench web`` gives one figure per task (claim -> answer stored, minus the site's generation and the
completion rule's window). This bench takes that same path (scheduler, store, lane, owned Chromium,
page driver; the chat simulator in its own process, today's send path) and stamps the moments
between the layers: the claim, the lane's start of the run, the backend's ``run``, the driver's
``prepare`` (the new-chat reset, the readiness wait, typing and aiming) and ``run`` (the send press,
the did-it-leave check, the answer wait, the completion rule), the lane's settle, and the stored
finish. The stamps are bench-only wrappers set around those methods here; product code is untouched.

    python -m bench webparts [--tasks 12] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import itertools
import os
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench import web_overhead as wo
from bench.common import sim_process, table
from mediadesk.config.workspace import Workspace
from mediadesk.providers.web.backend import WebAccountBackend
from mediadesk.providers.web.driver import PageDriver
from mediadesk.scheduler.lane import Lane
from mediadesk.store import TaskReader

_CURRENT: contextvars.ContextVar[str] = contextvars.ContextVar("bench_webparts_task")
#: task id -> stamp name -> wall clock (the store's clock: the claim and finish stamps are wall time)
_STAMPS: dict[str, dict[str, float]] = defaultdict(dict)

#: The moments in a task's order, each with what the span from the one before it holds.
_ORDER = (
    ("claim", "claimed (started_at)"),
    ("lane start", "claim -> the lane starts the run"),
    ("backend run", "lane -> the backend's run"),
    ("prepare begins", "backend: browser/page checks, log lines"),
    ("prepare ends", "driver.prepare: new chat, ready + type + aim"),
    ("drive begins", "between prepare and run"),
    ("drive ends", "driver.run: send press ... answer done (generation and rule window inside)"),
    ("backend returns", "backend: cookies (debounced), log lines"),
    ("settle begins", "lane: back from the backend"),
    ("settle ends", "lane: settle (the store's finish)"),
)


def _stamp(name: str, task_id: str | None = None) -> None:
    tid = task_id if task_id is not None else _CURRENT.get(None)
    if tid is not None:
        _STAMPS[tid][name] = time.time()


@contextmanager
def _instrumented() -> Iterator[None]:
    """Wrap the layer boundaries with stamps; restored on exit."""
    saved: list[tuple[type, str, Any]] = []

    def patch(cls: type, name: str, new: Any) -> None:
        saved.append((cls, name, getattr(cls, name)))
        setattr(cls, name, new)

    lane_start = Lane._start
    backend_run = WebAccountBackend.run
    prepare = PageDriver.prepare
    drive = PageDriver.run
    settle = Lane._settle

    def start(self: Lane, rec: Any, reserved: float = 0.0) -> None:
        _stamp("lane start", rec.task_id)
        lane_start(self, rec, reserved)

    async def run(self: WebAccountBackend, task: Any, ctx: Any) -> str:
        _CURRENT.set(task.task_id)
        _stamp("backend run")
        try:
            return await backend_run(self, task, ctx)
        finally:
            _stamp("backend returns")

    def around(fn: Callable[..., Awaitable[Any]], before: str, after: str) -> Callable[..., Awaitable[Any]]:
        async def wrapped(*args: Any, **kwargs: Any) -> Any:
            _stamp(before)
            try:
                return await fn(*args, **kwargs)
            finally:
                _stamp(after)

        return wrapped

    def settled(self: Lane, run_: Any, work: Any) -> None:
        _stamp("settle begins", run_.rec.task_id)
        settle(self, run_, work)
        _stamp("settle ends", run_.rec.task_id)

    patch(Lane, "_start", start)
    patch(WebAccountBackend, "run", run)
    patch(PageDriver, "prepare", around(prepare, "prepare begins", "prepare ends"))
    patch(PageDriver, "run", around(drive, "drive begins", "drive ends"))
    patch(Lane, "_settle", settled)
    try:
        yield
    finally:
        for cls, name, old in reversed(saved):
            setattr(cls, name, old)


def _spans(root: Path) -> dict[str, list[float]]:
    """Per span, the milliseconds of each task."""
    spans: dict[str, list[float]] = defaultdict(list)
    for data in sorted(p for p in root.iterdir() if p.is_dir()):
        reader = TaskReader(Workspace.resolve(data_dir=data).db_path)
        try:
            for rec in reader.iter_tasks():
                stamps = _STAMPS.get(rec.task_id)
                if not stamps or rec.started_at is None or rec.finished_at is None:
                    continue
                stamps = {**stamps, "claim": rec.started_at}
                for (prev, _), (name, what) in itertools.pairwise(_ORDER):
                    if prev in stamps and name in stamps:
                        spans[what].append((stamps[name] - stamps[prev]) * 1e3)
        finally:
            reader.close()
    return spans


async def main_async(args: argparse.Namespace) -> None:
    row = next(r for r in wo.ROWS if r.mode == "warm-page")
    res = wo.Result()
    with sim_process("web", "--time-scale", "0.01", "--fixed-run-s", "30", "--answer-tokens", "30",
                     "--seed", "1") as chat_url, tempfile.TemporaryDirectory() as tmp:  # fmt: skip
        base = chat_url.rsplit("/", 1)[0]
        with _instrumented():
            for r in range(args.rounds):
                await wo.one_mode({row.site: base}, Path(tmp), row, args.tasks, r, res)
        spans = _spans(Path(tmp))
    one, five, _ = os.getloadavg()
    print(f"\nWarm web task (1 account, today's path), claim -> stored, by layer: median / p90 of "
          f"{len(res.overhead)} tasks, ms; load average {one:.1f} / {five:.1f} (1 / 5 min) on "
          f"{os.cpu_count()} cores")
    rows: list[tuple[str, ...]] = [("span", "median ms", "p90 ms")]
    for _, what in _ORDER[1:]:
        xs = spans.get(what)
        if xs:
            rows.append((what, f"{statistics.median(xs):.1f}", f"{wo.p90(xs):.1f}"))
    rows.append(("task overhead (bench web's figure)", f"{statistics.median(res.overhead):.1f}",
                 f"{wo.p90(res.overhead):.1f}"))
    print(table(rows))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="bench webparts")
    p.add_argument("--tasks", type=int, default=12)
    p.add_argument("--rounds", type=int, default=2)
    asyncio.run(main_async(p.parse_args(argv)))


if __name__ == "__main__":
    main()
