"""The remote API beside a running batch: does a script polling ``/v1/status`` slow the scheduler?

One process runs the scheduler and the API on one asyncio loop (as ``mediadesk serve`` and the
console do), with a batch running against the API simulator (its own process). A periodic asyncio
timer measures the loop's lag (how late each 10 ms tick fires). Three phases in the same run, the
batch running throughout: without load, with ``--rate`` status requests per second for
``--seconds`` from a client in another process (paced open loop, so a slow server shows as lag and
as late requests, not as a politely slower client), then without load again.

    python -m bench remote [--rate 1000] [--seconds 10] [--tasks 4000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.common import ROOT, sim_process, table

TOKEN_ENV = "MEDIADESK_BENCH_TOKEN"


def quantile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


class LagProbe:
    """Ticks every ``period_s``; records how late each tick fired (ms)."""

    def __init__(self, period_s: float = 0.01) -> None:
        self.period_s = period_s
        self.samples: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + self.period_s
            await asyncio.sleep(self.period_s)
            self.samples.append(max(0.0, (loop.time() - due) * 1000))

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="bench:lag")

    def take(self) -> list[float]:
        out, self.samples = self.samples, []
        return out

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)


# ------------------------------------------------------------------ the load (another process)
async def _client(url: str, rate: float, seconds: float, conns: int) -> dict[str, float]:
    """Paced keep-alive HTTP/1.1 GETs over raw asyncio streams: a tenth of a full client's CPU per
    request, so on a small machine the load generator does not take the server's core."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    request = (f"GET /v1/status HTTP/1.1\r\nHost: {host}:{port}\r\n"
               f"Authorization: Bearer {os.environ[TOKEN_ENV]}\r\n\r\n").encode()
    lat: list[float] = []
    errors = late = 0
    due: asyncio.Queue[float | None] = asyncio.Queue()

    async def connection() -> None:
        nonlocal errors
        reader, writer = await asyncio.open_connection(host, port)
        try:
            while await due.get() is not None:
                t0 = time.perf_counter()
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line[:15].lower() == b"content-length:":
                        length = int(line[15:])
                await reader.readexactly(length)
                if not head.startswith(b"HTTP/1.1 200"):
                    errors += 1
                lat.append((time.perf_counter() - t0) * 1000)
        finally:
            writer.close()

    workers = [asyncio.ensure_future(connection()) for _ in range(conns)]
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    n = int(rate * seconds)
    for i in range(n):
        wait = t0 + i / rate - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        if due.qsize() > conns:  # every connection busy and a backlog: the server is not keeping up
            late += 1
        due.put_nowait(t0 + i / rate)
    for _ in workers:
        due.put_nowait(None)
    await asyncio.gather(*workers)
    took = loop.time() - t0
    return {"sent": n, "errors": errors, "late_starts": late, "seconds": took, "achieved_rps": n / took,
            "latency_p50_ms": quantile(lat, 0.5), "latency_p99_ms": quantile(lat, 0.99)}


def _merge(outs: list[dict[str, float]]) -> dict[str, float]:
    """Several client processes as one: sums, and the worst of their quantiles."""
    return {"sent": sum(o["sent"] for o in outs), "errors": sum(o["errors"] for o in outs),
            "late_starts": sum(o["late_starts"] for o in outs),
            "achieved_rps": sum(o["achieved_rps"] for o in outs),
            "latency_p50_ms": max(o["latency_p50_ms"] for o in outs),
            "latency_p99_ms": max(o["latency_p99_ms"] for o in outs)}


def client_main(argv: list[str]) -> None:
    url, rate, seconds, conns = argv[0], float(argv[1]), float(argv[2]), int(argv[3])
    print(json.dumps(asyncio.run(_client(url, rate, seconds, conns))), flush=True)


# ------------------------------------------------------------------ the server side (this process)
async def run(args: argparse.Namespace, sim_url: str, tmp: Path) -> None:
    from mediadesk.config.model import parse_config
    from mediadesk.config.workspace import Workspace
    from mediadesk.remote import RemoteServer
    from mediadesk.scheduler import Scheduler

    os.environ[TOKEN_ENV] = secrets.token_urlsafe(24)
    cfg = parse_config({
        "heartbeat": {"interval_s": 15, "stale_after_s": 90},
        "profiles": [{"name": "bench", "kind": "api", "base_url": sim_url, "model": "m", "concurrency": 3}],
        "remote": {"token_env": TOKEN_ENV, "port": 0},
    })
    ws = Workspace.resolve(data_dir=tmp / "data").ensure()
    sched = Scheduler(cfg, ws)
    probe = LagProbe()
    async with sched, RemoteServer(sched) as server:
        body = "".join(json.dumps({"profile": "bench", "prompt": f"bench prompt {i}"}) + "\n"
                       for i in range(args.tasks)).encode()
        from mediadesk.remote.intake import submit_jsonl

        submitted = await submit_jsonl(sched, body, "bench.jsonl")
        probe.start()
        await asyncio.sleep(2.0)  # the lanes at their pace
        probe.take()
        phases: list[tuple[str, list[float], dict[str, float] | None]] = []
        done0 = sched.store.counts().get(("bench", "success"), 0)
        cpu = [time.process_time()]
        await asyncio.sleep(args.seconds)
        phases.append(("no load", probe.take(), None))
        cpu.append(time.process_time())
        share = args.rate / args.clients
        procs = [await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.remote_load", "--client", server.url, str(share), str(args.seconds),
            str(max(1, args.conns // args.clients)), stdout=asyncio.subprocess.PIPE, cwd=ROOT, env=os.environ.copy())
            for _ in range(args.clients)]
        outs = [json.loads((await p.communicate())[0]) for p in procs]
        phases.append((f"{args.rate:g} status/s", probe.take(), _merge(outs)))
        cpu.append(time.process_time())
        await asyncio.sleep(args.seconds)
        phases.append(("no load again", probe.take(), None))
        cpu.append(time.process_time())
        done1 = sched.store.counts().get(("bench", "success"), 0)
        left = sched.store.counts().get(("bench", "pending"), 0)
        await probe.stop()
    rows = [("phase", "ticks", "lag p50 ms", "lag p99 ms", "lag max ms", "server CPU s", "requests/s", "req p50 ms",
             "req p99 ms", "errors")]
    for i, (name, lag, client) in enumerate(phases):
        rows.append((name, str(len(lag)), f"{quantile(lag, 0.5):.2f}", f"{quantile(lag, 0.99):.2f}",
                     f"{max(lag, default=float('nan')):.1f}", f"{cpu[i + 1] - cpu[i]:.2f}",
                     f"{client['achieved_rps']:.0f}" if client else "-",
                     f"{client['latency_p50_ms']:.1f}" if client else "-",
                     f"{client['latency_p99_ms']:.1f}" if client else "-",
                     f"{client['errors']:.0f} ({client['late_starts']:.0f} late)" if client else "-"))
    print(table(rows))
    print(f"batch: {len(submitted.task_ids)} tasks, {done1 - done0} finished during the phases, {left} still "
          f"pending at the end (it ran throughout); lag mean with load "
          f"{statistics.fmean(phases[1][1]) if phases[1][1] else float('nan'):.2f} ms")
    sent = phases[1][2]["sent"] if phases[1][2] else 0
    extra_cpu = (cpu[2] - cpu[1]) - ((cpu[1] - cpu[0]) + (cpu[3] - cpu[2])) / 2
    if sent:
        print(f"server CPU per status request (load phase minus the mean quiet phase): "
              f"{extra_cpu / sent * 1000:.2f} ms")
    p99 = quantile(phases[1][1], 0.99)
    print(f"verdict: event-loop lag p99 under load {p99:.1f} ms ({'within' if p99 <= 50 else 'ABOVE'} 50 ms)")


def main(argv: list[str]) -> None:
    if argv and argv[0] == "--client":
        client_main(argv[1:])
        return
    p = argparse.ArgumentParser(prog="bench remote")
    p.add_argument("--rate", type=float, default=1000.0, help="status requests per second")
    p.add_argument("--seconds", type=float, default=10.0, help="length of each phase")
    p.add_argument("--tasks", type=int, default=4000, help="batch size (it must outlast the three phases)")
    p.add_argument("--conns", type=int, default=16, help="client connections (all clients together)")
    p.add_argument("--clients", type=int, default=1, help="client processes sharing the rate")
    p.add_argument("--latency", default="0.02,0.06", help="simulator generation time MIN,MAX seconds")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, sim_process("api", "--latency", args.latency) as url:
        asyncio.run(run(args, url, Path(tmp)))


if __name__ == "__main__":
    main(sys.argv[1:])
