"""One batch row, several tasks: a row naming three profiles with n = 2 becomes six tasks through the scheduler's
intake (distinct ids, one group, samples 1..2), stored with the template's name and variables beside the rendered
prompt, on SQLite and PostgreSQL; re-submitting the same file adds nothing; the exports carry the new columns."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from mediadesk.config.workspace import Workspace
from mediadesk.core.batch import parse_batch, templates_dir
from mediadesk.scheduler import Scheduler
from mediadesk.store import TaskReader
from mediadesk.store.export import EXPORT_FIELDS, export_tasks
from tests.support import make_config

PROFILES = ("writer", "critic", "poet")


@pytest.fixture
async def sched(any_workspace: Workspace) -> AsyncIterator[Scheduler]:
    cfg = make_config([{"name": name, "kind": "api", "base_url": f"http://127.0.0.1:{9 + i}/v1", "model": "m"}
                       for i, name in enumerate(PROFILES)])
    s = Scheduler(cfg, any_workspace)
    s.open()
    yield s
    await s.stop()


def _batch(folder: Path) -> bytes:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "blurb.txt").write_text("A blurb for {product}, {tone}.", encoding="utf-8")
    rows = [
        {"template": "blurb", "vars": {"product": "茶壶", "tone": "warm"}, "profiles": list(PROFILES), "n": 2},
        {"prompt": "plain", "profile": "writer"},
    ]
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()


async def test_three_profiles_and_two_samples_make_six_tasks_in_one_group(
        sched: Scheduler, any_workspace: Workspace) -> None:
    folder = templates_dir(any_workspace.data_dir)
    parsed = parse_batch(_batch(folder), known_profiles=PROFILES, templates_dir=folder)
    assert parsed.errors == [] and parsed.task_count == 7
    done = await sched.intake.submit_rows_async(parsed.rows, "b1")
    assert len(done.ids) == len(set(done.ids)) == 7 and len(done.result.added) == 7

    reader = TaskReader(any_workspace.location)
    try:
        recs = reader.get_many(done.ids)
    finally:
        reader.close()
    six, (plain,) = recs[:6], recs[6:]
    assert [(r.profile, r.sample) for r in six] == [(p, s) for p in PROFILES for s in (1, 2)]
    assert len({r.group_id for r in six}) == 1 and six[0].group_id is not None
    assert {r.prompt for r in six} == {"A blurb for 茶壶, warm."}
    assert {(r.template, r.template_vars) for r in six} == {("blurb", '{"product":"茶壶","tone":"warm"}')}
    assert {(r.batch, r.kept, r.reused_from) for r in six} == {("b1", False, None)}
    assert (plain.group_id, plain.sample, plain.template, plain.template_vars) == (None, None, None, None)

    # the same file again: the same ids, nothing added (samples are never collapsed, nor doubled)
    again = await sched.intake.submit_rows_async(parsed.rows, "b1")
    assert again.ids == done.ids and not again.result.added

    out = io.StringIO()
    assert export_tasks(any_workspace.location, out, "csv", task_ids=done.ids) == 7
    table = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert tuple(table[0]) == EXPORT_FIELDS and EXPORT_FIELDS[-4:] == ("group_id", "template", "sample", "kept")
    assert [(t["profile"], t["sample"], t["template"]) for t in table[:2]] == [
        ("writer", "1", "blurb"), ("writer", "2", "blurb")]
    assert {t["group_id"] for t in table[:6]} == {six[0].group_id} and table[6]["group_id"] == ""
