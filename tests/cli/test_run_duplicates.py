"""``mediadesk run BATCH --duplicates skip|again|reuse``: the second run of the same file says how many rows
repeat finished tasks and what became of them; ``reuse`` sends nothing and ``again`` sends them anew (a real
subprocess, a real API simulator on 127.0.0.1, a real SQLite file)."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.cli.test_cli import write_config
from tests.support import mediadesk_async


@pytest.fixture
async def sim() -> AsyncIterator[ApiSimServer]:
    async with ApiSimServer(ApiSimConfig(latency=(0.0, 0.01), seed=7)) as server:
        yield server


def reused(db: Path) -> list[tuple[str, float]]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return list(con.execute("SELECT reused_from, cost FROM task WHERE reused_from IS NOT NULL"))
    finally:
        con.close()


async def test_the_flag_and_its_line(tmp_path: Path, sim: ApiSimServer) -> None:
    cfg = write_config(tmp_path, sim.base_url)
    batch = tmp_path / "daily.csv"
    batch.write_text("profile,prompt\nwriter,one\nwriter,two\nwriter,two\n", encoding="utf-8")
    db = tmp_path / "t.db"
    run = ("run", str(batch), "--config", str(cfg), "--db", str(db), "--quiet")
    rc, out, err = await mediadesk_async(*run)
    assert rc == 0, (out, err)
    assert "1 rows repeat a row above: dropped (use --duplicates again to run them)" in out
    assert sim.stats()["requests_total"] == 2

    rc, out, err = await mediadesk_async(*run)
    assert rc == 0 and "2 rows repeat finished tasks: skipped (use --duplicates again or reuse)" in out, (out, err)
    assert sim.stats()["requests_total"] == 2

    rc, out, err = await mediadesk_async(*run, "--duplicates", "reuse")
    assert rc == 0 and "2 rows repeat finished tasks: their earlier answers reused" in out, (out, err)
    assert sim.stats()["requests_total"] == 2 and len(reused(db)) == 2 and all(c == 0 for _t, c in reused(db))

    rc, out, err = await mediadesk_async(*run, "--duplicates", "again")
    assert rc == 0 and "2 rows repeat finished tasks: sent again as new tasks" in out, (out, err)
    assert "1 rows repeat a row above: run as distinct tasks" in out
    assert sim.stats()["requests_total"] == 5  # "one", "two" and the second "two", sent anew
