"""The Profiles tab shows how API profiles share endpoints (issue 8): a tree endpoint -> its profiles,
each endpoint with its gate (configured, and what the scheduler learned from refusals), each profile
with its share. A real Scheduler on a tmp SQLite workspace; the API endpoints are in-process scripted
backends (no network), so refusals and run ends happen when the test says."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mediadesk.config.model import AccountConfig, ProfileConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import LaneBackend, RunContext, TaskSpec
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.scheduler import Scheduler
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.panels.profiles_editor import ProfilesEditor
from tests.support import make_config
from tests.ui.conftest import ARun, FakeWebBackend

URL = "http://127.0.0.1:9/v1"  # never contacted: the backends are scripted


class ScriptedApi:
    """One API profile's backend: a run of task ``t`` ends once ``gates[t]`` is set (at once when it
    has no gate); a task in ``refuse_once`` is refused (429) the first time it is run."""

    #: Optional LaneBackend abilities this stand-in has not got.
    attempt_deadline_s = None
    domain = None
    probe = None
    login = None
    unavailable_reason = None
    max_run_s = None
    check = None
    check_adapter = None
    resolve_challenge = None
    challenge_screenshot = None

    def __init__(self, capacity: int, gates: dict[str, asyncio.Event], refuse_once: set[str]) -> None:
        self.capacity = capacity
        self.gates = gates
        self.refuse_once = refuse_once

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        pass

    def available(self) -> bool:
        return True

    def health(self) -> tuple[str, str | None]:
        return "ready", None

    async def run(self, task: TaskSpec, ctx: RunContext) -> str:
        if task.task_id in self.refuse_once:
            self.refuse_once.discard(task.task_id)
            raise TaskFailure(ErrorKind.RATE_LIMITED, "429 too many requests", retry_after_s=0.0)
        gate = self.gates.get(task.task_id)
        if gate is not None:
            await gate.wait()
        return f"answer to {task.prompt}"


class Env:
    def __init__(self, tmp_path: Path) -> None:
        self.gates: dict[str, asyncio.Event] = {}
        self.refuse_once: set[str] = set()
        self.config = make_config(
            [
                {"name": "drafts", "kind": "api", "endpoint": "provider-x", "model": "m", "concurrency": 2},
                {"name": "summaries", "kind": "api", "endpoint": "provider-x", "model": "m"},
                {"name": "writer", "kind": "api", "base_url": URL, "model": "m", "concurrency": 3},
                {"name": "reasoner", "kind": "api", "base_url": URL + "/", "model": "m", "concurrency": 2},
                {"name": "solo", "kind": "api", "base_url": URL, "model": "m", "concurrency": 1,
                 "api_key_env": "SOLO_KEY"},
                {"name": "chat", "kind": "web", "site": "sim"},
            ],
            [{"name": "acct-a", "profile": "chat"}],
            endpoints=[{"name": "provider-x", "base_url": URL, "api_key_env": "X_KEY", "concurrency": 4}],
        )
        self.workspace = Workspace.resolve(data_dir=tmp_path / "data").ensure()
        self.scheduler = Scheduler(self.config, self.workspace, backend_factory=self._factory)

    def _factory(self, prof: ProfileConfig, acc: AccountConfig | None) -> LaneBackend:
        if acc is not None:
            return FakeWebBackend(acc.name)
        return ScriptedApi(prof.api_concurrency, self.gates, self.refuse_once)

    def state(self, task_id: str) -> str:
        rec = self.scheduler.store.get(task_id)
        assert rec is not None
        return rec.state


@pytest.fixture
def env(tmp_path: Path, qloop: asyncio.AbstractEventLoop, arun: ARun) -> Iterator[Env]:
    e = Env(tmp_path)
    arun(e.scheduler.start())
    try:
        yield e
    finally:
        for gate in e.gates.values():
            gate.set()
        arun(e.scheduler.stop(), timeout=20)


def tree_of(editor: ProfilesEditor) -> list[tuple[str, list[str]]]:
    """The tree as (top-level text, [child texts])."""
    t = editor.tree
    out = []
    for i in range(t.topLevelItemCount()):
        item = t.topLevelItem(i)
        out.append((item.text(0), [item.child(j).text(0) for j in range(item.childCount())]))
    return out


def test_profiles_tab_groups_api_profiles_by_endpoint(env: Env, qtbot: Any) -> None:
    s = env.scheduler
    editor = ProfilesEditor(s, SchedulerBridge(s.bus))
    qtbot.addWidget(editor)
    editor.show()

    # the grouping is the config's (AppConfig.api_endpoints), shown as a tree
    assert editor.endpoints() == [e.name for e in env.config.api_endpoints()]
    assert editor.endpoints() == ["provider-x", "127.0.0.1:9", "127.0.0.1:9#2"]
    assert tree_of(editor) == [
        ("provider-x", ["drafts", "summaries"]),
        (f"implicit: {URL}", ["writer", "reasoner"]),  # same base URL and key source: one endpoint
        (f"implicit: {URL}", ["solo"]),                # another key source: its own endpoint
        ("chat", []),
    ]
    assert editor.profiles() == ["drafts", "summaries", "writer", "reasoner", "solo", "chat"]
    assert editor.endpoint_of("writer") == editor.endpoint_of("reasoner") == "127.0.0.1:9"
    assert editor.endpoint_of("drafts") == "provider-x" and editor.endpoint_of("chat") is None
    assert "solo" in editor.endpoint_item("127.0.0.1:9#2").toolTip(0)  # which one is which

    # each endpoint's gate: explicit = its concurrency; implicit = the smallest of its profiles'
    assert editor.gate_text("provider-x").startswith("gate 4")
    assert editor.gate_text("127.0.0.1:9").startswith("gate 2")
    assert editor.gate_text("127.0.0.1:9#2").startswith("gate 1")
    # each profile's share within its endpoint's gate
    assert "share 2" in editor.share_text("drafts")
    assert "share 3" in editor.share_text("summaries")  # the default
    assert "share 3" in editor.share_text("writer") and "up to 2 at once" in editor.share_text("writer")
    spin = editor.concurrency_spin("drafts")
    assert spin is not None and spin.value() == 2

    # lowering a profile of the implicit endpoint lowers its gate, shown at once
    writer_spin = editor.concurrency_spin("writer")
    assert writer_spin is not None
    writer_spin.setValue(1)
    assert s.capacity_views()["127.0.0.1:9"].limit == 1
    assert editor.gate_text("127.0.0.1:9").startswith("gate 1")
    assert "up to 1 at once" in editor.share_text("reasoner")
    # ...and a profile of an explicit endpoint changes only its share
    assert spin is not None
    spin.setValue(1)
    assert editor.gate_text("provider-x").startswith("gate 4")
    assert "share 1" in editor.share_text("drafts")
    spin.setValue(2)


def test_profiles_tab_shows_the_learned_limit(env: Env, qtbot: Any) -> None:
    """A refusal with 3 requests in flight teaches provider-x's gate 2 (of 4): the tab says so."""
    s = env.scheduler
    editor = ProfilesEditor(s, SchedulerBridge(s.bus))
    qtbot.addWidget(editor)
    editor.show()
    assert "learned" not in editor.gate_text("provider-x")
    env.gates.update({"g1": asyncio.Event(), "g2": asyncio.Event()})
    s.intake.submit([s.intake.new_task("g1", "drafts", "one"), s.intake.new_task("g2", "drafts", "two")])
    qtbot.waitUntil(lambda: env.state("g1") == env.state("g2") == "running", timeout=10_000)
    env.refuse_once.add("r")
    s.intake.submit([s.intake.new_task("r", "summaries", "refused once")])
    qtbot.waitUntil(lambda: s.capacity_views()["provider-x"].current_limit == 2, timeout=10_000)
    qtbot.waitUntil(lambda: "learned 2" in editor.gate_text("provider-x"), timeout=10_000)
    assert editor.gate_text("provider-x").startswith("gate 4")
    for gate in env.gates.values():
        gate.set()
    qtbot.waitUntil(lambda: {env.state(t) for t in ("g1", "g2", "r")} == {"success"}, timeout=10_000)
    qtbot.waitUntil(lambda: "0 in flight" in editor.gate_text("provider-x"), timeout=10_000)
