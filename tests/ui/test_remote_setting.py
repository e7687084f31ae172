"""The console's ``[remote] enabled``: the workspace session starts the HTTP API on the qasync loop
beside its scheduler and stops it first (a problem with it: tests/remote/test_routes.py, without Qt)."""

from __future__ import annotations

import secrets
from pathlib import Path

import httpx
import pytest

from mediadesk.config.model import AppConfig
from mediadesk.config.workspace import Workspace
from mediadesk.scheduler.events import Event, Notice
from mediadesk.scheduler.scheduler import Scheduler
from mediadesk.sim.api_server import ApiSimServer
from mediadesk.ui.app.workspace_session import WorkspaceSession, WorkspaceSpec
from tests.ui.conftest import ARun

TOKEN = "console-" + secrets.token_urlsafe(20)


def _config(tmp: Path, url: str, remote: str) -> Path:
    path = tmp / "config.toml"
    path.write_text(f"""
data_dir = "{tmp / 'data'}"
[[profiles]]
name = "writer"
kind = "api"
base_url = "{url}"
model = "sim-model"
[remote]
{remote}
""", encoding="utf-8")
    return path


def _session(config: Path, notices: list[str]) -> WorkspaceSession:
    def factory(cfg: AppConfig, ws: Workspace) -> Scheduler:
        sched = Scheduler(cfg, ws)

        def on(ev: Event) -> None:
            if isinstance(ev, Notice):
                notices.append(ev.message)

        sched.bus.subscribe(on)
        return sched

    return WorkspaceSession(WorkspaceSpec(config), scheduler_factory=factory)


async def _get(url: str, token: str) -> int:
    async with httpx.AsyncClient(trust_env=False) as c:
        return (await c.get(f"{url}/v1/status", headers={"Authorization": f"Bearer {token}"})).status_code


def test_the_console_serves_the_api_while_its_workspace_is_open(
    tmp_path: Path, api_sim: ApiSimServer, arun: ARun, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEDIADESK_CONSOLE_TOKEN", TOKEN)
    notices: list[str] = []
    session = _session(_config(tmp_path, api_sim.base_url,
                               'enabled = true\nport = 0\ntoken_env = "MEDIADESK_CONSOLE_TOKEN"'), notices)
    arun(session.start())
    try:
        url = next(n.split()[-1] for n in notices if n.startswith("remote API listening on "))
        assert arun(_get(url, TOKEN)) == 200
        assert arun(_get(url, "wrong-" + TOKEN)) == 401
    finally:
        arun(session.stop())
    with pytest.raises(httpx.ConnectError):
        arun(_get(url, TOKEN))

