"""Hostile text (issue 19, items 6-9): what a server, a batch file or a config says never reaches a
terminal as control sequences, never breaks storing, and never hands the API key back as a result.

Real API simulator on 127.0.0.1 (its crafted modes ``controls``, ``html_400``, ``surrogate``,
``echo_auth``), real SQLite files, real ``python -m mediadesk`` processes whose output is read as a
terminal would get it.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler
from mediadesk.sim._api_hostile import crafted_answer
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.support import log_messages, make_config, tasks_of

ROOT = Path(__file__).resolve().parents[2]
#: What must never reach a terminal raw: ESC, BEL, the C1 CSI, a right-to-left override, a lone CR.
RAW_CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e")


def raw_controls(text: str) -> list[str]:
    found = [repr(c) for c in RAW_CONTROLS if c in text]
    if "\r" in text.replace("\r\n", ""):
        found.append(repr("\r"))
    return found


async def mediadesk(*args: str | Path, env: dict[str, str] | None = None, limit_s: float = 120) -> tuple[int, str, str]:
    """``python -m mediadesk ARGS`` as a child process (the simulator keeps serving meanwhile)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mediadesk", *map(str, args),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT), **(env or {})},
    )
    out, err = await asyncio.wait_for(proc.communicate(), limit_s)
    assert proc.returncode is not None
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def write_config(tmp: Path, sim: ApiSimServer, *, name: str = "writer", extra: str = "") -> Path:
    cfg = tmp / "config.toml"
    cfg.write_text(
        f'data_dir = "{tmp / "data"}"\n[retry]\nmax_retries = 0\n'
        f'[[profiles]]\nname = {json.dumps(name)}\nkind = "api"\nbase_url = "{sim.base_url}"\nmodel = "m"\n{extra}',
        encoding="utf-8",
    )
    return cfg


def write_batch(tmp: Path, rows: list[tuple[str, str]], profile: str = "writer") -> Path:
    batch = tmp / "b.jsonl"
    batch.write_text("".join(json.dumps({"id": i, "profile": profile, "prompt": p}) + "\n" for i, p in rows),
                     encoding="utf-8")
    return batch


@pytest.fixture
async def sim() -> Any:
    async with ApiSimServer(ApiSimConfig(chunks=2)) as server:
        yield server


# ------------------------------------------------------------------------ 6: terminal escapes
async def test_a_server_error_with_escapes_is_printed_escaped(tmp_path: Path, sim: ApiSimServer) -> None:
    """Before: the run's summary printed the 400's message (HTML and ESC sequences) as it came, so
    ``ESC[2J`` cleared the operator's terminal and ``ESC]0;`` retitled it."""
    cfg = write_config(tmp_path, sim)
    batch = write_batch(tmp_path, [("bad", "[[sim:html_400]]")])
    db = tmp_path / "t.db"
    rc, out, err = await mediadesk("run", batch, "--config", cfg, "--db", db, "--quiet")
    assert rc == 1, (out, err)
    assert not raw_controls(out + err), (out, err)
    line = next(ln for ln in out.splitlines() if "bad" in ln and "bad_request" in ln)
    assert "\\x1b[2J" in line and "\\x9b31m" in line and "\\u202eevil" in line
    assert "<h1>Bad request</h1>" in line  # shown as the text it is
    ws = Workspace.resolve(data_dir=tmp_path / "data", db_path=db)
    assert "\x1b]0;pwned\x07\x1b[2J" in (tasks_of(ws)["bad"].error_message or "")  # stored as sent


async def test_exports_on_stdout_never_carry_control_characters(tmp_path: Path, sim: ApiSimServer) -> None:
    """Before: ``export --format md`` and ``--format csv`` wrote an answer's ESC sequences to stdout
    raw. JSONL keeps the very same data (the escapes are JSON's own ``\\u`` form)."""
    cfg = write_config(tmp_path, sim)
    batch = write_batch(tmp_path, [("ctl", "[[sim:controls]]")])
    db = tmp_path / "t.db"
    rc, out, err = await mediadesk("run", batch, "--config", cfg, "--db", db, "--quiet")
    assert rc == 0, (out, err)
    answer = crafted_answer("controls", None)
    for fmt in ("md", "csv", "jsonl"):
        rc, out, err = await mediadesk("export", "--db", db, "--format", fmt)
        assert rc == 0, err
        assert not raw_controls(out), (fmt, out)
        if fmt == "jsonl":
            assert json.loads(out.splitlines()[0])["result"] == answer
        else:
            assert "\\x1b]0;pwned\\x07" in out, (fmt, out)
    # a file keeps the answer as it is (only what goes to a terminal is escaped)
    rc, _out, err = await mediadesk("export", "--db", db, "--format", "jsonl", "--out", tmp_path / "e.jsonl")
    assert rc == 0, err
    assert json.loads((tmp_path / "e.jsonl").read_text(encoding="utf-8"))["result"] == answer


async def test_a_config_error_naming_an_escape_is_printed_escaped(tmp_path: Path, sim: ApiSimServer) -> None:
    """Before: a profile name holding ESC ``]0;...`` BEL was quoted raw in the config error."""
    name = "w\x1b]0;pwned\x07\x1b[2J"
    cfg = write_config(tmp_path, sim, name="writer", extra=(
        f'[[accounts]]\nname = "a"\nprofile = {json.dumps(name)}\n'))
    batch = write_batch(tmp_path, [("t", "hello")])
    rc, out, err = await mediadesk("run", batch, "--config", cfg, "--db", tmp_path / "t.db")
    assert rc == 2, (out, err)
    assert "mediadesk: " in err and "Traceback" not in err
    assert not raw_controls(out + err), err
    assert "\\x1b]0;pwned\\x07" in err


async def test_a_batch_file_name_with_escapes_is_printed_escaped(tmp_path: Path, sim: ApiSimServer) -> None:
    cfg = write_config(tmp_path, sim)
    batch = write_batch(tmp_path, [("t", "hello")])
    named = batch.rename(tmp_path / "b\x1b[2J.jsonl")
    rc, out, err = await mediadesk("run", named, "--config", cfg, "--db", tmp_path / "t.db")
    assert rc == 0, (out, err)
    assert not raw_controls(out + err), (out, err)
    assert "b\\x1b[2J.jsonl" in out


# ------------------------------------------------------------------------ 8: lone surrogate / NUL
@pytest.mark.parametrize("stream", [True, False])
async def test_an_answer_with_a_lone_surrogate_is_stored_with_replacements(
    workspace: Workspace, sim: ApiSimServer, stream: bool
) -> None:
    """Before: the JSON ``\\ud800`` became a Python string SQLite cannot encode: a traceback, the
    task failed ``internal`` and the answer was lost."""
    cfg = make_config([{"name": "w", "kind": "api", "base_url": sim.base_url, "model": "m", "stream": stream}],
                      retry={"max_retries": 0})
    async with Scheduler(cfg, workspace) as s:
        s.intake.submit([s.intake.new_task("sur", "w", "[[sim:surrogate]]"), s.intake.new_task("fine", "w", "hello")])
        await asyncio.wait_for(s.wait_idle(), 60)
    tasks = tasks_of(workspace)
    t = tasks["sur"]
    assert (t.state, t.error_kind, t.attempt) == ("success", None, 1), t.error_message
    assert t.result == "half \ufffd a pair, a NUL \ufffd here"
    assert any("U+FFFD" in m and "2 character(s) of the answer" in m for m in log_messages(workspace, "sur"))
    assert tasks["fine"].state == "success"  # the group commit of log lines was not poisoned either


# ------------------------------------------------------------------------ 9: echoed API key
@pytest.mark.parametrize("stream", [True, False])
async def test_an_echoed_api_key_is_scrubbed_from_the_answer(
    workspace: Workspace, sim: ApiSimServer, stream: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the server's answer quoting ``Authorization: Bearer sk-...`` was stored as the result
    (and so exported and shown)."""
    key = "sk-test-5f0d2c9a7b1e4d3c"
    monkeypatch.setenv("MD_ECHO_TEST_KEY", key)
    cfg = make_config([{"name": "w", "kind": "api", "base_url": sim.base_url, "model": "m", "stream": stream,
                        "api_key_env": "MD_ECHO_TEST_KEY"}])
    async with Scheduler(cfg, workspace) as s:
        s.intake.submit([s.intake.new_task("echo", "w", "[[sim:echo_auth]]")])
        await asyncio.wait_for(s.wait_idle(), 60)
    t = tasks_of(workspace)["echo"]
    assert t.state == "success"
    assert t.result == "You sent Authorization: Bearer ***; here is your answer."
    logs = log_messages(workspace, "echo")
    assert any("quoted the API key" in m for m in logs)
    for f in (workspace.db_path, Path(f"{workspace.db_path}-wal")):  # nowhere in the database files
        assert not f.exists() or key.encode() not in f.read_bytes(), f

