"""A site whose login is a SESSION cookie (no Expires/Max-Age): Chromium drops it whenever the browser
closes, so without help the login never sticks. MediaDesk keeps the account's session cookies in a
private jar in its profile dir and puts them back before the first navigation of every launch; these
tests prove the login survives a clean close (the login flow, a recycle) and a SIGKILLed browser."""

from __future__ import annotations

import json
import os
import signal
import stat
from pathlib import Path

import pytest

from mediadesk.config.model import AppConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import TaskSpec
from mediadesk.providers.web.backend import WebAccountBackend, build_web_backend
from mediadesk.providers.web.cookies import JAR_NAME
from mediadesk.providers.web.login import login_with_form
from mediadesk.sim.web_server import SESSION_COOKIE, WebSimConfig, WebSimServer
from tests.providers.web.helpers import RecordingCtx, until
from tests.support import make_config

#: One event loop for the module's tests, so they share one Playwright driver (``playwright_hub``).
pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("playwright_hub")]


def spec(tid: str, prompt: str) -> TaskSpec:
    return TaskSpec(task_id=tid, profile="chat", prompt=prompt, attempt=1, instructions=None)


def session_config(sim: WebSimServer, recycle_after: int = 50) -> AppConfig:
    return make_config([{"name": "chat", "kind": "web", "site": "simchat", "url": sim.chat_url}],
                       [{"name": "acct-s", "profile": "chat"}], browser={"recycle_after": recycle_after})


async def log_in(cfg: AppConfig, ws: Workspace, sim: WebSimServer) -> None:
    await login_with_form(cfg, ws, "acct-s", sim.login_url, fields={"#account": "acct-s", "#password": "pw"},
                          submit="button.login", logged_in=".avatar")


def session_tokens(sim: WebSimServer) -> list[str]:
    return list(sim._sessions)


async def test_session_cookie_login_survives_close_recycle_and_a_killed_browser(
    workspace: Workspace, tmp_path: Path
) -> None:
    async with WebSimServer(WebSimConfig(time_scale=0.005, answer_tokens=8, session_cookie=True)) as sim:
        cfg = session_config(sim, recycle_after=2)
        await log_in(cfg, workspace, sim)  # a browser logged in, then CLOSED: the session cookie went with it
        assert sim.stats()["logins"] == 1
        backend: WebAccountBackend = build_web_backend(cfg, workspace, cfg.profiles[0], cfg.accounts[0])
        ctx = RecordingCtx(tmp_path / "evidence")
        await backend.start()
        try:
            assert backend.health() == ("ready", None), backend.health()
            assert (await backend.run(spec("t1", "first after login"), ctx)).startswith("好的")
            # recycle_after = 2: the browser is closed cleanly after this task; the next one gets a new browser
            assert (await backend.run(spec("t2", "before a recycle"), ctx)).startswith("好的")
            assert backend.browser.browser is None and len(backend.browser.pids) == 1
            assert (await backend.run(spec("t3", "after a recycle"), ctx)).startswith("好的")
            assert len(backend.browser.pids) == 2
            # a crash: the browser is SIGKILLed between tasks, nothing is saved at close
            assert backend.browser.browser is not None
            os.kill(backend.browser.browser.pid, signal.SIGKILL)
            await until(lambda: not backend.browser.alive(), 10, "the killed browser to be noticed")
            assert (await backend.run(spec("t4", "after a crash"), ctx)).startswith("好的")
            assert len(backend.browser.pids) == 3
        finally:
            await backend.stop()
        stats = sim.stats()
        assert stats["logins"] == 1  # never logged in again: the one session carried through
        assert stats["generations_completed"] == 4
        assert stats["session_expirations"] == 0
        token = session_tokens(sim)[0]
    jar = workspace.account_profile_dir("acct-s") / JAR_NAME
    st = jar.lstat()
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600
    saved = json.loads(jar.read_text(encoding="utf-8"))
    assert [c["name"] for c in saved["cookies"]] == [SESSION_COOKIE]
    assert all(c["expires"] == -1 for c in saved["cookies"])  # only session cookies are kept by us
    assert token not in "\n".join(ctx.lines)  # a cookie value never goes to a log
