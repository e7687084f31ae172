"""Storage faults while a run is going (issue 9 items 6-8): the database deleted under the process,
a pending task canceled by another process, the disk filling up. Real processes (`python -m
mediadesk run`), the real API simulator on 127.0.0.1, real SQLite files; the disk-full cases mount a
real tmpfs (root only) and fill it with a real file.

What every case checks: the run ends (never waits for ever), it says what happened naming the file,
it exits 2 on a storage fault, and it never reports a success that is not in the database file.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.events import LaneStats, StorageFailed, TaskChanged
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.support import make_config, mediadesk_async, skip_here, until

ROOT = Path(__file__).resolve().parents[2]
#: A safety net against a hung run, never a speed assertion.
LIMIT_S = 90.0


def write_config(tmp: Path, base_url: str) -> Path:
    cfg = tmp / "config.toml"
    cfg.write_text(
        f"""
data_dir = "{tmp / 'data'}"
[retry]
max_retries = 2
backoff_base_s = 0.05
backoff_max_s = 0.5
[heartbeat]
interval_s = 0.2
stale_after_s = 5
[[profiles]]
name = "writer"
kind = "api"
base_url = "{base_url}"
model = "m"
concurrency = 3
""",
        encoding="utf-8",
    )
    return cfg


def write_batch(tmp: Path, rows: list[dict[str, object]]) -> Path:
    batch = tmp / "b.jsonl"
    batch.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return batch


#: Two tasks that take two of the three slots for a minute (claimed first): the run is surely still
#: going when the fault comes, however slow the machine; a halted run ends them at once.
ANCHORS: list[dict[str, object]] = [
    {"id": f"anchor{i}", "profile": "writer", "prompt": f"anchor {i} [[sim:sleep=60]]", "priority": 1}
    for i in range(2)
]


async def start_run(*args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mediadesk", "run", *args, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


async def finish(proc: asyncio.subprocess.Process) -> tuple[int, str, str]:
    """The run's exit code and output; kills it (and fails) if it does not end within LIMIT_S."""
    try:
        out, err = await asyncio.wait_for(proc.communicate(), LIMIT_S)
    except TimeoutError:
        proc.kill()
        out, err = await proc.communicate()
        raise AssertionError(
            f"the run did not exit within {LIMIT_S:g} s (it hangs)\nstdout: {out.decode()[-2000:]}\n"
            f"stderr: {err.decode()[-2000:]}"
        ) from None
    return proc.returncode or 0, out.decode(), err.decode()


def db_rows(db: Path) -> dict[str, tuple[str, str | None]]:
    """{task_id: (state, result)} as the file at ``db`` holds them (read-only; {} while not there)."""
    if not db.exists():
        return {}
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return {t: (s, r) for t, s, r in con.execute("SELECT task_id, state, result FROM task")}
    except sqlite3.OperationalError:  # not created yet
        return {}
    finally:
        con.close()


def states(db: Path) -> dict[str, str]:
    return {t: s for t, (s, _) in db_rows(db).items()}


def successes(db: Path) -> dict[str, str | None]:
    return {t: r for t, (s, r) in db_rows(db).items() if s == "success"}


async def wait_for_db(db: Path, what: str, predicate: object) -> None:
    assert callable(predicate)
    await until(lambda: predicate(states(db)), what, limit_s=LIMIT_S, step_s=0.02)


@pytest.fixture
async def sim() -> ApiSimServer:
    async with ApiSimServer(ApiSimConfig(latency=(0.1, 0.3), quota=3, seed=5)) as server:
        yield server


# ------------------------------------------------------------------------------------ (a) deleted
async def test_deleting_the_database_mid_run_exits_2_and_reports_no_success(tmp_path: Path, sim: ApiSimServer) -> None:
    cfg = write_config(tmp_path, sim.base_url)
    batch = write_batch(tmp_path, [*ANCHORS, *({"id": f"t{i}", "profile": "writer", "prompt": f"q{i}"}
                                              for i in range(40))])
    db = tmp_path / "t.db"
    summary = tmp_path / "summary.json"
    proc = await start_run(str(batch), "--config", str(cfg), "--db", str(db), "--summary-json", str(summary))
    try:
        await wait_for_db(db, "a few successes and a running task",
                          lambda st: list(st.values()).count("success") >= 3 and "running" in st.values())
        delete_database(db)
        rc, out, err = await finish(proc)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert rc == 2, (out, err)
    assert str(db) in err and "deleted" in err and "Traceback" not in err
    assert "summary:" not in out and "success" not in out  # no count of successes that are not on disk
    doc = json.loads(summary.read_text(encoding="utf-8"))
    assert doc["exit_code"] == 2 and doc["storage_error"]["kind"] == "lost"
    assert doc["tasks"] == {} and doc["counts"] == {}  # nothing reported: no false success is countable
    assert not db.exists()  # and no empty database was created in its place


# ------------------------------------------------------------------------------------ (b) cancel
async def test_a_pending_task_canceled_by_another_process_ends_the_run(tmp_path: Path, sim: ApiSimServer) -> None:
    cfg = write_config(tmp_path, sim.base_url)
    # "quick" runs first and succeeds; three slow tasks then fill the three slots, and "last"
    # (lower priority) stays pending behind them for as long as the test needs
    rows: list[dict[str, object]] = [{"id": "quick", "profile": "writer", "prompt": "quick", "priority": 2}]
    rows += [{"id": f"s{i}", "profile": "writer", "prompt": f"slow {i} [[sim:sleep=60]]", "priority": 1}
             for i in range(3)]
    rows.append({"id": "last", "profile": "writer", "prompt": "last", "priority": -1})
    batch = write_batch(tmp_path, rows)
    db = tmp_path / "t.db"
    summary = tmp_path / "summary.json"
    proc = await start_run(str(batch), "--config", str(cfg), "--db", str(db), "--summary-json", str(summary))
    try:
        await wait_for_db(db, "the three slow tasks running",
                          lambda st: [st.get(f"s{i}") for i in range(3)] == ["running"] * 3)
        crc, cout, cerr = await mediadesk_async("cancel", "--db", str(db), "last", limit_s=LIMIT_S)
        assert (crc, cout.strip()) == (0, "last: canceled"), cerr  # canceled while pending, by another process
        # the slow ones too (running: through the database flag, which the run already follows)
        crc, cout, cerr = await mediadesk_async("cancel", "--db", str(db), "s0", "s1", "s2", limit_s=LIMIT_S)
        assert crc == 0 and cout.count("cancel requested") == 3, (cout, cerr)
        # every task is terminal in the database now: the run must end (it waited for ever before)
        rc, out, err = await finish(proc)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    final = states(db)
    assert final == {"quick": "success", "s0": "canceled", "s1": "canceled", "s2": "canceled", "last": "canceled"}
    assert rc == 1, (out, err)  # documented: a task was canceled
    assert "summary: success 1, canceled 4" in out  # the counts are the database's
    doc = json.loads(summary.read_text(encoding="utf-8"))
    assert doc["counts"] == {"success": 1, "canceled": 4} and doc["tasks"] == final


# ------------------------------------------------------------------------------------ (c) disk full
@contextlib.contextmanager
def small_tmpfs(where: Path, size: str) -> Iterator[Path]:
    if os.name != "posix" or os.geteuid() != 0:
        skip_here("mounting a small tmpfs to fill needs root")
    if shutil.which("mount") is None:
        skip_here("no mount command")
    where.mkdir()
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(where)],
                         capture_output=True, text=True, check=False)
    if res.returncode != 0:
        skip_here(f"mount -t tmpfs is not permitted here: {res.stderr.strip()}")
    try:
        yield where
    finally:
        if subprocess.run(["umount", str(where)], capture_output=True, check=False).returncode != 0:
            subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


def fill(directory: Path) -> Path:
    """Write a filler file until the disk says ENOSPC."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        while os.write(fd, b"\0" * 65536):
            pass
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
    finally:
        os.close(fd)
    return filler


def delete_database(db: Path) -> None:
    """What an operator's ``rm mediadesk.db*`` does."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)


async def test_disk_full_mid_run_exits_2_and_keeps_what_is_stored(tmp_path: Path, sim: ApiSimServer) -> None:
    cfg = write_config(tmp_path, sim.base_url)
    # ~8 KB answers (the simulator echoes the prompt): every success needs new pages in the file
    batch = write_batch(tmp_path, [*ANCHORS, *({"id": f"t{i}", "profile": "writer", "prompt": f"q{i} " + "x" * 8000}
                                              for i in range(40))])
    summary = tmp_path / "summary.json"
    with small_tmpfs(tmp_path / "disk", "4m") as disk:
        db = disk / "t.db"
        proc = await start_run(str(batch), "--config", str(cfg), "--db", str(db), "--summary-json", str(summary))
        try:
            await wait_for_db(db, "a few successes", lambda st: list(st.values()).count("success") >= 3)
            stored_before = successes(db)
            filler = fill(disk)
            rc, out, err = await finish(proc)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        assert rc == 2, (out, err)
        assert f"the disk holding the database {db} is full" in err and "Traceback" not in err
        assert "summary:" not in out
        filler.unlink()  # free the space, then look at what is stored
        con = sqlite3.connect(db)
        try:
            assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        finally:
            con.close()
        after = db_rows(db)
    assert len(after) == 42  # every row is still there
    for tid, result in stored_before.items():  # what was stored before the disk filled is intact
        assert after[tid] == ("success", result)
    doc = json.loads(summary.read_text(encoding="utf-8"))
    assert doc["exit_code"] == 2 and doc["storage_error"]["kind"] == "full"
    reported = {t for t, s in doc["tasks"].items() if s == "success"}
    on_disk = {t for t, (s, _) in after.items() if s == "success"}
    assert reported <= on_disk and len(reported) >= len(stored_before)  # no false success
    assert f"stored in the database: success {len(reported)}" in err


# ------------------------------------------------------------------------------------ in process
def api_profile(sim: ApiSimServer) -> dict[str, object]:
    return {"name": "writer", "kind": "api", "base_url": sim.base_url, "model": "m", "concurrency": 3}


async def test_the_scheduler_stops_dispatch_once_its_database_file_is_deleted(
    workspace: Workspace, sim: ApiSimServer
) -> None:
    """The stats loop's periodic identity check finds the deleted file: dispatch stops, running
    attempts end without a success, the loop itself keeps publishing, nothing hangs."""
    events: list[object] = []
    async with Scheduler(make_config([api_profile(sim)]), workspace) as s:
        s.bus.subscribe(events.append)
        s.intake.submit([s.intake.new_task(f"t{i}", "writer", f"q{i} [[sim:sleep=60]]") for i in range(9)])
        await until(lambda: len(s.store.running()) == 3, "three attempts running")
        delete_database(workspace.db_path)

        def failed_at() -> int | None:
            return next((i for i, ev in enumerate(events) if isinstance(ev, StorageFailed)), None)

        await until(lambda: failed_at() is not None, "a StorageFailed event")
        at = failed_at()
        assert at is not None
        fatal = events[at]
        assert isinstance(fatal, StorageFailed)
        assert (fatal.kind, fatal.path) == ("lost", str(workspace.db_path))
        # the stats loop survived it: lane stats keep coming, showing the lane unavailable, none running
        await until(lambda: any(isinstance(ev, LaneStats) and not ev.available and not ev.running
                                for ev in events[at + 1:]), "lane stats after the failure, lane halted")
        await asyncio.wait_for(s.wait_idle(poll_s=0.05), LIMIT_S)  # returns: the run is over
        after = events[at + 1:]
        assert not any(isinstance(ev, TaskChanged) and ev.state in ("success", "running")
                       for ev in after)  # no success, no new dispatch after the failure
        assert sim.stats()["requests_total"] == 3  # the six pending tasks were never sent
    assert not workspace.db_path.exists()  # the checkpoint did not create an empty file in its place


async def test_the_scheduler_stops_cleanly_when_the_disk_fills(tmp_path: Path, sim: ApiSimServer) -> None:
    """Disk full under running attempts: the lanes and the stats loop stop dispatching instead of
    dying with tasks left running, wait_idle returns, stop() returns, stored rows are intact."""
    events: list[object] = []
    with small_tmpfs(tmp_path / "disk", "2m") as disk:
        ws = Workspace.resolve(data_dir=tmp_path / "data", db_path=disk / "t.db").ensure()
        s = Scheduler(make_config([api_profile(sim)]), ws)
        await s.start()
        try:
            s.bus.subscribe(events.append)
            s.intake.submit([s.intake.new_task("anchor", "writer", "anchor [[sim:sleep=60]]", priority=1)]
                     + [s.intake.new_task(f"t{i}", "writer", f"q{i} " + "y" * 8000) for i in range(60)])
            await until(lambda: list(states(ws.db_path).values()).count("success") >= 3, "a few successes")
            stored_before = successes(ws.db_path)
            filler = fill(disk)
            await asyncio.wait_for(s.wait_idle(poll_s=0.05), LIMIT_S)  # hung for ever before
            assert s.storage_error is not None and s.storage_error.kind == "full"
            kinds = [ev.kind for ev in events if isinstance(ev, StorageFailed)]
            assert kinds == ["full"]  # told once
        finally:
            await asyncio.wait_for(s.stop(), LIMIT_S)
        filler.unlink()
        after = db_rows(ws.db_path)
    assert len(after) == 61
    for tid, result in stored_before.items():
        assert after[tid] == ("success", result)
    assert "pending" in {st for st, _ in after.values()}  # dispatch stopped: work was left for the next run
