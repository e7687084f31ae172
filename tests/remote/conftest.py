"""A real scheduler (SQLite file) with the remote API on 127.0.0.1 (an ephemeral port), over the API
simulator; httpx on the client side."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from mediadesk.config.model import AccountConfig, AppConfig, ProfileConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import LaneBackend, RunContext, TaskSpec
from mediadesk.remote import RemoteServer
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.backends import default_backend
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from tests.support import make_config

TOKEN_ENV = "MEDIADESK_TEST_REMOTE_TOKEN"
KEY_ENV = "MEDIADESK_TEST_API_KEY"
#: Fresh per run: found in a response body means a leak, never a coincidence.
TOKEN = "tok-" + secrets.token_urlsafe(24)
API_KEY = "sk-" + secrets.token_urlsafe(24)


class DeskWebBackend:
    """A web account's backend without a browser (the remote API's account routes act on the
    scheduler's lanes, not on Chromium): answers at once, health as set by the test."""

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

    def __init__(self) -> None:
        self.state: tuple[str, str | None] = ("ready", None)

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        pass

    def available(self) -> bool:
        return self.state[0] == "ready"

    def health(self) -> tuple[str, str | None]:
        return self.state

    async def run(self, task: TaskSpec, ctx: RunContext) -> str:
        return f"web answer to {task.prompt}"


def api_profile(name: str, sim: ApiSimServer, **kw: object) -> dict:
    return {"name": name, "kind": "api", "base_url": sim.base_url, "model": "m", "api_key_env": KEY_ENV, **kw}


def remote_config(profiles: list[dict], accounts: list[dict] | None = None, **remote: object) -> AppConfig:
    extra: dict[str, object] = {"token_env": TOKEN_ENV, "port": 0, **remote}
    return make_config(profiles, accounts, remote=extra)


@dataclass
class Desk:
    sched: Scheduler
    server: RemoteServer
    client: httpx.AsyncClient
    web: DeskWebBackend
    bodies: list[bytes] = field(default_factory=list)

    async def call(self, method: str, path: str, *, token: str | None = TOKEN, headers: dict[str, str] | None = None,
                   **kw: object) -> httpx.Response:
        sent = {} if token is None else {"Authorization": f"Bearer {token}"}
        resp = await self.client.request(method, path, headers={**sent, **(headers or {})}, **kw)  # type: ignore[arg-type]
        self.bodies.append(resp.content)
        self.bodies.append(str(resp.headers).encode())
        return resp


@pytest.fixture
def secrets_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    monkeypatch.setenv(KEY_ENV, API_KEY)


@pytest.fixture
async def sim() -> AsyncIterator[ApiSimServer]:
    async with ApiSimServer(ApiSimConfig(latency=(0.01, 0.03), quota=3, seed=7, api_key=API_KEY)) as server:
        yield server


@pytest.fixture
async def open_desk(secrets_env: None, tmp_path: Path) -> AsyncIterator[Callable[..., object]]:
    """``await open_desk(config)``: the scheduler started, the API listening, a client for it."""
    opened: list[Desk] = []

    async def make(config: AppConfig, workspace: Workspace | None = None) -> Desk:
        ws = workspace or Workspace.resolve(data_dir=tmp_path / "data").ensure()
        web = DeskWebBackend()

        def backend(profile: ProfileConfig, account: AccountConfig | None) -> LaneBackend:
            if profile.kind == "web":
                return web  # type: ignore[return-value]
            return default_backend(config, ws, profile, account)

        sched = Scheduler(config, ws, backend_factory=backend)
        await sched.start()
        server = RemoteServer(sched)
        try:
            await server.start()
        except BaseException:
            await sched.stop()
            raise
        desk = Desk(sched, server, httpx.AsyncClient(base_url=server.url, trust_env=False), web)
        opened.append(desk)
        return desk

    yield make
    for desk in reversed(opened):
        await desk.client.aclose()
        await desk.server.stop()
        await desk.sched.stop()
    for desk in opened:  # whatever the test did, no response carried a secret
        for body in desk.bodies:
            assert TOKEN.encode() not in body and API_KEY.encode() not in body
