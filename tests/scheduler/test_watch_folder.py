"""The watched intake folder (``[intake] watch``): real files in a real folder, a real SQLite store, a real
``mediadesk serve`` killed with SIGKILL. The lanes are paused (or point at a closed port): what is
checked is what went into the queue, never a call to an endpoint. Every wait is for an event (a notice,
a file in done/ or failed/, a line of the ledger); the limits are safety nets, not speed budgets."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sqlite3
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from mediadesk.config.model import AppConfig
from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.events import Notice, TasksAdded
from mediadesk.scheduler.watch_folder import LEDGER_NAME
from tests.support import ROOT, make_config, tasks_of, until

PROFILE = {"name": "free", "kind": "api", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
TOKEN_ENV, TOKEN = "MD_WATCH_TEST_TOKEN", "watch-folder-test-token"
LIMIT_S = 60.0


def config(inbox: Path) -> AppConfig:
    return make_config([PROFILE], intake={"watch": str(inbox), "poll_s": 0.1})


def jsonl(prompts: list[str]) -> bytes:
    return "".join(json.dumps({"profile": "free", "prompt": p}) + "\n" for p in prompts).encode()


class Heard:
    """The scheduler's notices and added tasks, as they are published."""

    def __init__(self, sched: Scheduler) -> None:
        self.notices: list[str] = []
        self.added: list[tuple[str, ...]] = []
        self.on_notice: Callable[[str], None] = lambda _m: None
        self.unsubscribe = sched.bus.subscribe(self._on_event)

    def _on_event(self, ev: object) -> None:
        if isinstance(ev, Notice):
            self.notices.append(ev.message)
            self.on_notice(ev.message)
        elif isinstance(ev, TasksAdded):
            self.added.append(ev.task_ids)

    def said(self, words: str) -> bool:
        return any(words in m for m in self.notices)


async def started(cfg: AppConfig, ws: Workspace) -> Scheduler:
    sched = Scheduler(cfg, ws)
    await sched.start()
    sched.pause()  # nothing is dispatched: the queue is what these tests read
    return sched


@pytest.fixture
def inbox(tmp_path: Path) -> Path:
    return tmp_path / "inbox"


async def test_a_file_written_slowly_is_taken_once_complete_with_all_its_rows(workspace: Workspace,
                                                                               inbox: Path) -> None:
    prompts = [f"question {i}" for i in range(400)]
    sched = Scheduler(config(inbox), workspace)
    heard = Heard(sched)
    open_said = threading.Event()
    closed = threading.Event()
    heard.on_notice = lambda m: open_said.set() if "orders.csv to be closed by its writer" in m else None
    closed_when_added: list[bool] = []
    sched.bus.subscribe(lambda ev: closed_when_added.append(closed.is_set()) if isinstance(ev, TasksAdded) else None)
    await sched.start()
    sched.pause()
    try:
        await until(lambda: heard.said(f"watching {inbox}"), "the watcher to start", limit_s=LIMIT_S)

        def writer() -> None:  # an application saving a big file: open all along, written in chunks
            with open(inbox / "orders.csv", "w", encoding="utf-8", newline="") as fh:
                fh.write("profile,prompt\n")
                for p in prompts[:100]:
                    fh.write(f"free,{p}\n")
                fh.flush()
                # the size stays put now: only the open descriptor tells the watcher to wait
                assert open_said.wait(LIMIT_S), "the watcher never said it waits for the writer"
                for start in range(100, len(prompts), 50):
                    fh.writelines(f"free,{p}\n" for p in prompts[start:start + 50])
                    fh.flush()
            closed.set()

        thread = threading.Thread(target=writer, name="slow writer")
        thread.start()
        report = inbox / "done" / "orders.csv.report.txt"
        await until(report.exists, "orders.csv to be filed in done/", limit_s=LIMIT_S)
        thread.join()
    finally:
        heard.unsubscribe()
        await sched.stop()
    assert heard.said("waiting for orders.csv to stop growing")
    assert closed_when_added == [True]  # one submit, after the writer closed the file
    assert sorted(t.prompt for t in tasks_of(workspace).values()) == sorted(prompts)
    assert {t.batch for t in tasks_of(workspace).values()} == {"orders.csv"}
    text = report.read_text(encoding="utf-8")
    assert "rows submitted: 400 (400 new tasks, 0 already in the queue)" in text
    assert "row errors: 0" in text and "encoding: UTF-8" in text and "when: " in text
    assert (inbox / "done" / "orders.csv").read_bytes().count(b"\n") == 401
    assert not (inbox / "orders.csv").exists()
    assert heard.said("took orders.csv: 400 rows submitted")


async def test_a_file_of_bad_rows_only_goes_to_failed_with_its_errors(workspace: Workspace, inbox: Path) -> None:
    sched = await started(config(inbox), workspace)
    heard = Heard(sched)
    try:
        bad = b'{"profile": "nobody", "prompt": "x"}\n{"profile": "free"}\nnot json\n'
        await until(lambda: heard.said(f"watching {inbox}"), "the watcher to make its folder", limit_s=LIMIT_S)
        (inbox / "bad.jsonl").write_bytes(bad)
        report = inbox / "failed" / "bad.jsonl.report.txt"
        await until(report.exists, "bad.jsonl to be filed in failed/", limit_s=LIMIT_S)
    finally:
        heard.unsubscribe()
        await sched.stop()
    text = report.read_text(encoding="utf-8")
    assert "no row could go in" in text
    for line in (1, 2, 3):
        assert f"\nline {line}: " in text
    assert "nobody" in text and "prompt" in text
    assert (inbox / "failed" / "bad.jsonl").read_bytes() == bad
    assert tasks_of(workspace) == {} and heard.added == []
    assert heard.said("bad.jsonl: no row could go in (3 row errors); moved to failed/")


async def test_the_same_file_dropped_again_after_a_restart_is_not_submitted_again(
    workspace: Workspace, inbox: Path,
) -> None:
    body = b'{"prompt": "one"}\n{"prompt": "two"}\n{"prompt": "three"}\n'  # the profile: in the side file
    sched = await started(config(inbox), workspace)
    heard = Heard(sched)
    try:
        await until(lambda: heard.said(f"watching {inbox}"), "the watcher to make its folder", limit_s=LIMIT_S)
        (inbox / "a.json").write_text('{"profile": "free", "colour": "red"}', encoding="utf-8")
        (inbox / "a.jsonl").write_bytes(body)
        await until((inbox / "done" / "a.jsonl.report.txt").exists, "a.jsonl in done/", limit_s=LIMIT_S)
    finally:
        heard.unsubscribe()
        await sched.stop()
    first = tasks_of(workspace)
    assert sorted(t.prompt for t in first.values()) == ["one", "three", "two"]
    report = (inbox / "done" / "a.jsonl.report.txt").read_text(encoding="utf-8")
    assert "options a.json: profile = 'free'" in report and "unknown key 'colour' ignored" in report
    assert {t.profile for t in first.values()} == {"free"}
    assert (inbox / "done" / "a.json").exists()  # the side file goes with its batch
    sched = await started(config(inbox), workspace)  # a new scheduler on the same store
    heard = Heard(sched)
    try:
        (inbox / "a.jsonl").write_bytes(body)  # the same file, the same name
        (inbox / "copy.jsonl").write_bytes(body)  # and under another name: the content decides
        for name in ("a.jsonl", "copy.jsonl"):
            await until(lambda n=name: not (inbox / n).exists(), f"{name} to be filed", limit_s=LIMIT_S)
    finally:
        heard.unsubscribe()
        await sched.stop()
    assert heard.added == [] and not heard.said("took ")
    assert tasks_of(workspace).keys() == first.keys()
    reports = sorted((inbox / "done").glob("*.report.txt"))
    assert len(reports) == 3  # a.jsonl, a.<time>.jsonl, copy.jsonl
    again = [r for r in reports if r.name != "a.jsonl.report.txt"]
    for r in again:
        assert "already submitted on " in r.read_text(encoding="utf-8")
        assert "(as a.jsonl): not submitted again" in r.read_text(encoding="utf-8")
    assert heard.said("copy.jsonl: already submitted on ")


async def test_a_workbook_is_read_on_the_sheet_its_side_file_names(workspace: Workspace, inbox: Path) -> None:
    """Whatever parse_batch_file reads is taken, with the side file's options passed on to it."""
    from openpyxl import Workbook

    book = Workbook()
    first = book.active
    assert first is not None
    first.title = "Notes"
    first.append(["not", "a", "batch"])
    march = book.create_sheet("March")
    march.append(["profile", "prompt"])
    march.append(["free", "spring"])
    march.append(["free", "rain"])
    sched = await started(config(inbox), workspace)
    heard = Heard(sched)
    try:
        await until(lambda: heard.said(f"watching {inbox}"), "the watcher to make its folder", limit_s=LIMIT_S)
        (inbox / "book.json").write_text('{"sheet": "March"}', encoding="utf-8")
        book.save(inbox / "book.xlsx")
        await until((inbox / "done" / "book.xlsx.report.txt").exists, "book.xlsx in done/", limit_s=LIMIT_S)
    finally:
        heard.unsubscribe()
        await sched.stop()
    assert sorted(t.prompt for t in tasks_of(workspace).values()) == ["rain", "spring"]
    assert "options book.json: sheet = 'March'" in (inbox / "done" / "book.xlsx.report.txt").read_text(encoding="utf-8")


async def test_a_planted_symlink_is_refused_never_followed(workspace: Workspace, tmp_path: Path,
                                                           inbox: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.jsonl").write_bytes(jsonl(["not for the queue"]))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.mkdir(inbox, 0o700)
    os.symlink(outside / "secret.jsonl", inbox / "link.jsonl")
    sched = await started(config(inbox), workspace)
    heard = Heard(sched)
    try:
        await until(lambda: heard.said("refused link.jsonl"), "the planted file link to be refused",
                    limit_s=LIMIT_S)
        (inbox / "failed").rmdir()
        (inbox / "failed").symlink_to(elsewhere, target_is_directory=True)  # planted as failed/
        (inbox / "bad.jsonl").write_bytes(b"not json\n")
        await until(lambda: heard.said("watched folder not used") and heard.said("is a symbolic link"),
                    "the planted failed/ link to be refused", limit_s=LIMIT_S)
    finally:
        heard.unsubscribe()
        await sched.stop()
    assert (inbox / "link.jsonl").is_symlink() and (inbox / "bad.jsonl").exists()
    assert list(elsewhere.iterdir()) == []  # nothing written through the link
    assert tasks_of(workspace) == {}
    assert (outside / "secret.jsonl").read_bytes() == jsonl(["not for the queue"])
    linked = tmp_path / "linked-inbox"
    linked.symlink_to(outside, target_is_directory=True)  # a link as the watched folder itself
    sched = await started(config(linked), workspace)
    heard = Heard(sched)
    try:
        await until(lambda: heard.said("watched folder not used") and heard.said("linked-inbox is a symbolic link"),
                    "the linked watched folder to be refused", limit_s=LIMIT_S)
    finally:
        heard.unsubscribe()
        await sched.stop()
    assert sorted(p.name for p in outside.iterdir()) == ["secret.jsonl"] and tasks_of(workspace) == {}


def serve_config(tmp_path: Path, inbox: Path) -> Path:
    cfg = tmp_path / "config.toml"
    cfg.write_text(f"""
[intake]
watch = {json.dumps(str(inbox))}
poll_s = 0.1
[[profiles]]
name = "free"
kind = "api"
base_url = "http://127.0.0.1:9/v1"
model = "m"
[remote]
token_env = "{TOKEN_ENV}"
""", encoding="utf-8")
    return cfg


async def test_a_process_killed_between_record_and_move_submits_nothing_twice(workspace: Workspace,
                                                                              tmp_path: Path, inbox: Path) -> None:
    """``mediadesk serve`` records the file, then its submit waits for the database, which this test
    holds (BEGIN IMMEDIATE): a natural wait between the record and the move, where it is SIGKILLed.
    A new scheduler on the same store submits the file once; dropped again, it is not submitted."""
    prompts = [f"row {i}" for i in range(50)]
    body = jsonl(prompts)
    sha256 = hashlib.sha256(body).hexdigest()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mediadesk", "serve", "--config", str(serve_config(tmp_path, inbox)), "--data-dir",
        str(workspace.data_dir), "--port", "0", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT), TOKEN_ENV: TOKEN})
    assert proc.stdout is not None and proc.stderr is not None
    db: sqlite3.Connection | None = None
    try:
        line = (await asyncio.wait_for(proc.stdout.readline(), LIMIT_S)).decode()
        assert line.startswith("listening on "), line + (await proc.stderr.read()).decode()
        db = sqlite3.connect(workspace.db_path, timeout=30, isolation_level=None)
        db.execute("BEGIN IMMEDIATE")  # the child's submit waits for this lock
        (inbox / "drop.jsonl").write_bytes(body)

        def recorded() -> bool:
            try:
                files = json.loads((workspace.data_dir / LEDGER_NAME).read_text(encoding="utf-8"))["files"]
            except (OSError, ValueError):
                return False
            return files.get(sha256, {}).get("state") == "recorded"

        await until(recorded, "the child to record drop.jsonl in the intake ledger", limit_s=LIMIT_S)
        proc.kill()  # SIGKILL while its submit waits for the database
        await proc.wait()
        db.execute("ROLLBACK")
    finally:
        if db is not None:
            db.close()
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    err = (await proc.stderr.read()).decode()
    assert f"watching {inbox}" in err and "waiting for drop.jsonl to stop growing" in err  # serve says it
    assert (inbox / "drop.jsonl").exists() and tasks_of(workspace) == {}
    sched = await started(config(inbox), workspace)
    heard = Heard(sched)
    try:
        report = inbox / "done" / "drop.jsonl.report.txt"
        await until(report.exists, "drop.jsonl to be taken after the restart", limit_s=LIMIT_S)
        (inbox / "drop.jsonl").write_bytes(body)  # dropped once more
        await until(lambda: not (inbox / "drop.jsonl").exists(), "the second drop to be filed", limit_s=LIMIT_S)
    finally:
        heard.unsubscribe()
        await sched.stop()
    assert sorted(t.prompt for t in tasks_of(workspace).values()) == sorted(prompts)  # each once
    assert "taken again after an interruption" in report.read_text(encoding="utf-8")
    assert len(heard.added) == 1 and len(heard.added[0]) == len(prompts)
    assert heard.said("drop.jsonl: already submitted on ")
