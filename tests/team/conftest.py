"""Team-mode fixtures: a PostgreSQL database with the team tables, and real worker processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from mediadesk.store.team import TeamCoordinator
from mediadesk.store.team_schema import TEAM_TABLES_V1
from tests.support import until
from tests.team.worker import NOW, TEST_TABLES

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def team_url(pg_url: str) -> str:
    """A fresh PostgreSQL database with the team tables (and the workers' record tables)."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        for ddl in (*TEAM_TABLES_V1, *TEST_TABLES):
            conn.execute(ddl)
    return pg_url


class Fleet:
    """Worker processes (tests/team/worker.py) on one database, and the test's own view of it."""

    def __init__(self, url: str, logs: Path) -> None:
        self.url = url
        self.logs = logs
        self.db = psycopg.connect(url, autocommit=True)
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, mode: str, name: str, **args: Any) -> subprocess.Popen[bytes]:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        with (self.logs / f"{name}.log").open("wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "tests.team.worker", mode, json.dumps({"url": self.url, "name": name, **args})],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        self.procs[name] = proc
        return proc

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.log").read_text(errors="replace")[-3000:]

    def kill(self, name: str) -> None:
        """SIGKILL a worker we started, and reap it."""
        proc = self.procs[name]
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL, self.log(name)

    def q(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self.db.execute(sql, params).fetchall()

    def now(self) -> float:
        return float(self.q(f"SELECT {NOW}")[0][0])

    def events(self, what: str, worker: str | None = None) -> list[tuple[str, str | None, float]]:
        if worker is None:
            return [(r[0], r[1], r[2]) for r in
                    self.q("SELECT worker, detail, at FROM t_event WHERE what = %s ORDER BY at", (what,))]
        return [(r[0], r[1], r[2]) for r in self.q(
            "SELECT worker, detail, at FROM t_event WHERE what = %s AND worker = %s ORDER BY at", (what, worker))]

    def crashed(self) -> str | None:
        """The log of a worker that exited on its own with an error (an assertion in it failed)."""
        for name, proc in self.procs.items():
            if proc.poll() not in (None, 0, -signal.SIGKILL):
                return f"worker {name} exited with {proc.returncode}:\n{self.log(name)}"
        return None

    async def stop(self) -> None:
        """Ask every worker to finish, and check that each exited cleanly."""
        self.db.execute("INSERT INTO t_stop (flag) VALUES (1)")
        await until(lambda: all(p.poll() is not None for p in self.procs.values()), "every worker to exit",
                    limit_s=60)
        for name, proc in self.procs.items():
            assert proc.returncode in (0, -signal.SIGKILL), f"worker {name}: {proc.returncode}\n{self.log(name)}"

    def close(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=30)
        self.db.close()


@pytest.fixture
def fleet(team_url: str, tmp_path: Path) -> Iterator[Fleet]:
    f = Fleet(team_url, tmp_path)
    try:
        yield f
    finally:
        f.close()


@pytest.fixture
def coordinators(team_url: str) -> Iterator[Any]:
    """``make(owner, stale_after_s=...)``: a PostgreSQL coordinator in this process, closed at teardown."""
    conns: list[psycopg.Connection[Any]] = []

    def make(owner: str, *, stale_after_s: float = 90.0) -> TeamCoordinator:
        conn = psycopg.connect(team_url, autocommit=True)
        conns.append(conn)
        return TeamCoordinator(conn, owner=owner, host=f"host-{owner}", operator=f"op-{owner}", pid=os.getpid(),
                               stale_after_s=stale_after_s, dialect="postgresql")

    try:
        yield make
    finally:
        for conn in conns:
            conn.close()
