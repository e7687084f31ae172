"""Tokens in the console: the detail pane, the Batches tab and the Profiles tree show what tasks used
(a real Scheduler on a tmp SQLite workspace; scripted API backends that report no usage, so the
numbers are MediaDesk's estimate and marked so; and a record with the provider's usage)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from mediadesk.core.states import TaskState
from mediadesk.core.usage import Usage
from mediadesk.scheduler.events import EventBus
from mediadesk.store import NewTask, open_store
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.panels.batches_view import BatchesView
from mediadesk.ui.panels.detail_pane import DetailPane
from mediadesk.ui.panels.profiles_editor import ProfilesEditor
from tests.ui.test_profiles_tab import Env, env  # noqa: F401  (the fixture)


def test_tokens_in_the_profiles_tree_and_the_batches_tab(env: Env, qtbot: Any) -> None:  # noqa: F811
    s = env.scheduler
    bridge = SchedulerBridge(s.bus)
    editor = ProfilesEditor(s, bridge)
    qtbot.addWidget(editor)
    editor.show()
    assert editor.tokens_text("drafts") == ""  # nothing used yet
    s.intake.submit([s.intake.new_task(f"d{i}", "drafts", "x" * 400, batch="b1") for i in range(2)]
             + [s.intake.new_task("s0", "summaries", "y" * 40, batch="b1")])
    qtbot.waitUntil(lambda: {env.state(t) for t in ("d0", "d1", "s0")} == {"success"}, timeout=10_000)
    # estimated from characters (~4 a token): 400 -> 100 in, "answer to " + 400 -> 102 out; 40 -> 10, 50 -> 12
    assert editor.refresh_usage(force=True)
    qtbot.waitUntil(lambda: editor.tokens_text("drafts") != "", timeout=10_000)
    assert editor.tokens_text("drafts") == "~200 in / ~204 out"
    assert editor.tokens_text("summaries") == "~10 in / ~12 out"
    assert editor.tokens_text("provider-x") == "~210 in / ~216 out"  # the endpoint: its profiles' sum
    assert editor.tokens_text("writer") == ""

    view = BatchesView(s.workspace.location, s.lanes, bridge)
    qtbot.addWidget(view)
    view.refresh(force=True)
    qtbot.waitUntil(lambda: view.table.rowCount() == 1 and view.table.item(0, 10) is not None, timeout=10_000)
    assert view.table.horizontalHeaderItem(10).text() == "Tokens"
    assert view.table.item(0, 10).text() == "~210 in / ~216 out"


def test_the_detail_pane_says_what_a_task_used(tmp_path: Path, qtbot: Any, qloop: asyncio.AbstractEventLoop) -> None:
    db = tmp_path / "t.db"
    store = open_store(db)
    try:
        store.add_tasks([NewTask("api", "writer", "api", "q"), NewTask("web", "chat", "web", "q"),
                         NewTask("new", "writer", "api", "q")])
        running = {r.task_id: r for r in store.claim(["writer", "chat"], 2, lane="x", account=None, owner="me")}
        for tid, usage in (("api", Usage(120, 340, 20)), ("web", Usage(30, 12, estimated=True))):
            store.finish(running[tid], TaskState.SUCCESS, result="a", usage=usage)
    finally:
        store.close()
    pane = DetailPane(db, SchedulerBridge(EventBus()))
    qtbot.addWidget(pane)
    pane.show()
    for tid, text in (("api", "tokens: 120 in (20 cached) / 340 out"),
                      ("web", "tokens: 30 in / 12 out (~ estimate from characters)"), ("new", "")):
        pane.show_task(tid)
        qtbot.waitUntil(lambda t=tid: pane.record is not None and pane.record.task_id == t, timeout=5_000)
        assert pane.usage_label.text() == text
        assert pane.usage_label.isVisible() is bool(text)


def test_the_detail_pane_folds_the_reasoning_above_the_answer(
        tmp_path: Path, qtbot: Any, qloop: asyncio.AbstractEventLoop) -> None:
    db = tmp_path / "t.db"
    store = open_store(db)
    thinking = "The user asks for 2+2.\nAdd them: 4."
    try:
        store.add_tasks([NewTask("thought", "writer", "api", "2+2?"), NewTask("plain", "writer", "api", "q")])
        running = {r.task_id: r for r in store.claim(["writer"], 2, lane="x", account=None, owner="me")}
        store.finish(running["thought"], TaskState.SUCCESS, result="**4**", reasoning=thinking)
        store.finish(running["plain"], TaskState.SUCCESS, result="a")
    finally:
        store.close()
    pane = DetailPane(db, SchedulerBridge(EventBus()))
    qtbot.addWidget(pane)
    pane.show()
    pane.show_task("thought")
    qtbot.waitUntil(lambda: pane.record is not None and pane.record.task_id == "thought", timeout=5_000)
    assert pane.result_view.toPlainText() == "**4**"  # the answer alone
    assert pane.reasoning_button.isVisible() and not pane.reasoning_view.isVisible()  # folded
    assert pane.reasoning_button.text() == f"Reasoning ({len(thinking)} characters)"
    pane.reasoning_button.click()
    assert pane.reasoning_view.isVisible() and pane.reasoning_view.toPlainText() == thinking
    # above the answer, in the answer's column
    assert pane.reasoning_view.mapTo(pane, pane.reasoning_view.rect().topLeft()).y() < \
        pane.result_view.mapTo(pane, pane.result_view.rect().topLeft()).y()
    pane.show_task("plain")  # a task without thinking: no fold, and the next one opens closed
    qtbot.waitUntil(lambda: pane.record is not None and pane.record.task_id == "plain", timeout=5_000)
    assert not pane.reasoning_button.isVisible() and not pane.reasoning_view.isVisible()
