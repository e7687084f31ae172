"""The "cannot serve" message names each account of the profile, why it takes no task, and what to do."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mediadesk.config.model import AccountConfig, ProfileConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import RunContext, TaskSpec
from mediadesk.scheduler import Scheduler
from tests.cli.test_cli import db_states
from tests.support import make_config, mediadesk_async


class StillBackend:
    """A web account that never runs anything; its health is set by the test."""

    capacity = 1
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

    def __init__(self, health: str, error: str | None = None) -> None:
        self._health = (health, error)

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        pass

    def available(self) -> bool:
        return self._health[0] == "ready"

    def health(self) -> tuple[str, str | None]:
        return self._health

    async def run(self, task: TaskSpec, ctx: RunContext) -> str:
        raise AssertionError("not dispatched in these tests")


async def test_blocked_accounts_says_why_for_each_account(workspace: Workspace) -> None:
    cfg = make_config(
        [{"name": "chat", "kind": "web", "site": "simchat"}],
        [{"name": "off", "profile": "chat", "enabled": False}, {"name": "out", "profile": "chat"},
         {"name": "tripped", "profile": "chat"}, {"name": "fine", "profile": "chat"}],
    )
    healths = {"off": StillBackend("ready"), "out": StillBackend("needs_login", "simchat: not logged in"),
               "tripped": StillBackend("ready"), "fine": StillBackend("ready")}

    def factory(profile: ProfileConfig, account: AccountConfig | None) -> StillBackend:
        assert account is not None
        return healths[account.name]

    async with Scheduler(cfg, workspace, backend_factory=factory) as s:  # type: ignore[arg-type]
        s.capacities["account:tripped"].trip("3 site errors in a row")
        blocks = {b.account: b for b in s.blocked_accounts("chat")}
    assert (blocks["off"].reason, blocks["off"].action) == ("disabled by the operator", "enable")
    assert (blocks["out"].reason, blocks["out"].action) == ("needs login (simchat: not logged in)", "login")
    assert blocks["tripped"].action == "wait"
    assert re.fullmatch(r"breaker open \(3 site errors in a row\); next probe at \d\d:\d\d:\d\d",
                        blocks["tripped"].reason), blocks["tripped"].reason
    assert (blocks["fine"].reason, blocks["fine"].action) == ("ready", "none")


@pytest.mark.browser
async def test_run_names_each_account_why_and_what_to_do(tmp_path: Path) -> None:
    from mediadesk.sim.web_server import WebSimConfig, WebSimServer

    async with WebSimServer(WebSimConfig(time_scale=0.005)) as web:
        cfg = tmp_path / "config.toml"
        cfg.write_text(
            f'data_dir = "{tmp_path / "data"}"\n[[profiles]]\nname = "chat"\nkind = "web"\nsite = "simchat"\n'
            f'url = "{web.chat_url}"\n'
            '[[accounts]]\nname = "never-logged-in"\nprofile = "chat"\n'
            '[[accounts]]\nname = "switched-off"\nprofile = "chat"\nenabled = false\n',
            encoding="utf-8",
        )
        batch = tmp_path / "b.jsonl"
        batch.write_text(json.dumps({"id": "w1", "profile": "chat", "prompt": "hello"}) + "\n", encoding="utf-8")
        rc, out, err = await mediadesk_async("run", str(batch), "--config", str(cfg), limit_s=120)
        assert web.stats()["generations_started"] == 0
    assert rc == 1, (out, err)
    assert "no account can take the tasks of profile(s) chat" in err
    line = next(ln for ln in err.splitlines() if "chat / never-logged-in:" in ln)
    assert re.search(r"needs login since \d\d:\d\d:\d\d \(simchat: not logged in", line), line
    assert f"mediadesk login never-logged-in --config {cfg}" in line
    line = next(ln for ln in err.splitlines() if "chat / switched-off:" in ln)
    assert "disabled by the operator -> switch it on in the console" in line
    assert db_states(tmp_path / "data" / "mediadesk.db") == {"w1": "pending"}
