"""A wrong API key (issue 19, item 16). The simulator checks the key on chat completions and, as many
servers do, serves ``GET /models`` to anyone. Before: the setup editor's Test said "OK: HTTP 200"
(it asked ``/models``), and a batch burnt its tasks (each ``failed auth: HTTP 401`` on attempt 1),
the breaker notice said it "resumes by itself", the Exceptions list stayed empty. Now: Test makes a
one-token completion with the key and says "key rejected"; the first 401 stops that endpoint (the
task back to pending uncharged, no other task sent, no probe), the stop is told in ``mediadesk run``
and listed by ``mediadesk exceptions list``; with the key fixed the endpoint resumes and every task
succeeds on attempt 1. Real simulator on 127.0.0.1, real scheduler and SQLite files, real
``python -m mediadesk`` processes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import CheckVerdict
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.checks import Checks
from mediadesk.scheduler.events import Notice
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.faults.test_endpoint_waits import write_files
from tests.support import log_messages, make_config, mediadesk_async, tasks_of, until

KEY = "sk-sim-right-7c1f0e"
WRONG = "sk-sim-WRONG-0000"
N = 15


@pytest.fixture
async def keyed() -> AsyncIterator[ApiSimServer]:
    """The API simulator expecting ``KEY`` on chat completions (401 otherwise); ``/models`` is open."""
    async with ApiSimServer(ApiSimConfig(api_key=KEY, latency=(0.02, 0.05), seed=5)) as server:
        yield server


def _profile(sim: ApiSimServer) -> dict[str, object]:
    return {"name": "w", "kind": "api", "base_url": sim.base_url, "model": "m", "api_key_env": "MD_KEY",
            "concurrency": 3}


async def test_test_proves_the_key_with_a_one_token_answer(keyed: ApiSimServer,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: ``GET /models`` answered 200 to the wrong key, and Test said OK."""
    cfg = make_config([_profile(keyed)])
    monkeypatch.setenv("MD_KEY", WRONG)
    bad = await Checks(cfg).test_profile("w")
    assert (bad.ok, bad.verdict) == (False, CheckVerdict.KEY_REJECTED), bad
    assert "key rejected (HTTP 401)" in bad.seen and WRONG not in bad.seen, bad
    assert keyed.stats()["models_requests"] == 0  # the listing proves nothing: not asked
    monkeypatch.setenv("MD_KEY", KEY)
    good = await Checks(cfg).test_profile("w")
    assert (good.ok, good.verdict, good.seen) == (True, CheckVerdict.OK, "HTTP 200"), good


async def test_a_rejected_key_stops_the_endpoint_uncharged_and_it_resumes_once_fixed(
    workspace: Workspace, keyed: ApiSimServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MD_KEY", WRONG)
    cfg = make_config([_profile(keyed)], breaker={"probe_interval_s": 0.05})
    notices: list[str] = []
    async with Scheduler(cfg, workspace) as s:
        s.bus.subscribe(lambda ev: notices.append(ev.message) if isinstance(ev, Notice) else None)
        s.intake.submit([s.intake.new_task(f"t{i:02d}", "w", f"hello {i}") for i in range(N)])
        await until(lambda: s.unservable_profiles() == ["w"], "the endpoint to be stopped", limit_s=60)
        await until(lambda: all(t.state == "pending" for t in tasks_of(workspace).values()),
                    "the attempts under way to be back in the queue")
        [stop] = s.stopped_endpoints()
        assert stop.key_rejected and stop.reason.startswith("key rejected (HTTP 401)"), stop
        assert stop.waiting == N and stop.profiles == ("w",)
        assert "environment variable MD_KEY" in stop.remedy()
        cap = s.capacities[stop.endpoint]
        view = cap.view()
        assert (view.stopped_kind, view.breaker, view.next_probe_at) == ("auth", "open", None)
        tasks = tasks_of(workspace)
        assert {(t.state, t.attempt) for t in tasks.values()} == {("pending", 0)}  # nothing charged
        rejected = keyed.stats()["status_counts"].get("401", 0)
        assert 1 <= rejected <= 3  # only the requests already under way when the first 401 came
        said = [n for n in notices if "key rejected" in n]
        assert said and "no probe" in said[0] and "resumes by itself" not in said[0], notices
        assert WRONG not in "".join(notices)

        # Resume with the key still wrong: checked first, still stopped, nothing dispatched
        check = await s.resume_endpoint(stop.endpoint)
        assert check.verdict is CheckVerdict.KEY_REJECTED and cap.stopped is not None
        assert cap.probes_sent == 0 and keyed.stats()["models_requests"] == 0  # never probed

        monkeypatch.setenv("MD_KEY", KEY)  # the operator fixes the key (a keyring entry, say)
        check = await s.resume_endpoint(stop.endpoint)
        assert check.ok and cap.stopped is None
        await asyncio.wait_for(s.wait_idle(), 120)
        assert s.stopped_endpoints() == []
    tasks = tasks_of(workspace)
    assert {(t.state, t.attempt) for t in tasks.values()} == {("success", 1)}, tasks
    held = next(t for t in tasks if any("key rejected" in m for m in log_messages(workspace, t)))
    assert any("attempt not charged" in m for m in log_messages(workspace, held))


async def test_run_stops_on_a_rejected_key_lists_it_and_succeeds_once_the_key_is_fixed(
    tmp_path: Path, keyed: ApiSimServer
) -> None:
    """Before: 15 tasks failed ``auth`` on attempt 1, the run ended 1 with nothing listed."""
    cfg, batch = write_files(tmp_path, keyed.base_url, n=N, profile='api_key_env = "MD_KEY"\nconcurrency = 3\n')
    db = tmp_path / "t.db"
    run = ("run", batch, "--config", cfg, "--db", db)
    rc, out, err = await mediadesk_async(*run, env={"MD_KEY": WRONG}, limit_s=90)  # no silent wait
    assert rc == 1, (out, err)
    assert "Traceback" not in err and WRONG not in out + err
    assert "stopped: key rejected (HTTP 401)" in err and " since " in err, err
    assert "set the right key in environment variable MD_KEY" in err and "nothing was charged" in err, err
    assert "probe failed" not in err
    ws = Workspace.resolve(data_dir=tmp_path / "data", db_path=db)
    tasks = tasks_of(ws)
    assert {(t.state, t.attempt) for t in tasks.values()} == {("pending", 0)}
    assert f"pending {N}" in out, out
    assert keyed.stats()["models_requests"] == 0

    listed = await mediadesk_async("exceptions", "list", "--db", db, "--config", cfg)
    assert listed.rc == 0, listed.err
    assert "stopped: key rejected (HTTP 401)" in listed.out and f"{N} task(s) wait" in listed.out
    assert "environment variable MD_KEY" in listed.out and "1 stopped endpoint(s)" in listed.err

    rc, out, err = await mediadesk_async(*run, env={"MD_KEY": KEY})
    assert rc == 0, (out, err)
    tasks = tasks_of(ws)
    assert {(t.state, t.attempt) for t in tasks.values()} == {("success", 1)}
    listed = await mediadesk_async("exceptions", "list", "--db", db)
    assert "stopped" not in listed.out and "0 exception(s)" in listed.err
