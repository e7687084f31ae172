"""The task log of a web run says which completion rule decided, through the account's backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import TaskSpec
from mediadesk.providers.web.backend import WebAccountBackend, build_web_backend
from mediadesk.providers.web.login import login_with_form
from mediadesk.sim.web_server import WebSimConfig, WebSimServer
from tests.providers.web.helpers import RecordingCtx
from tests.support import make_config

#: One event loop for the module's tests, so they share one Playwright driver (``playwright_hub``).
pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("playwright_hub")]


@pytest.mark.parametrize("transport", ["sse", "websocket"])
async def test_task_log_names_the_stream_rule(workspace: Workspace, tmp_path: Path, transport: str) -> None:
    async with WebSimServer(WebSimConfig(time_scale=0.005, answer_tokens=8, transport=transport)) as sim:
        cfg = make_config([{"name": "chat", "kind": "web", "site": "simchat", "url": sim.chat_url}],
                          [{"name": "acct-s", "profile": "chat"}])  # fmt: skip
        await login_with_form(cfg, workspace, "acct-s", sim.login_url, fields={"#account": "acct-s", "#password": "pw"},
                              submit="button.login", logged_in=".avatar")  # fmt: skip
        backend: WebAccountBackend = build_web_backend(cfg, workspace, cfg.profiles[0], cfg.accounts[0])
        ctx = RecordingCtx(tmp_path / "evidence")
        await backend.start()
        try:
            for n in range(2):
                spec = TaskSpec(task_id=f"t{n}", profile="chat", prompt=f"task {n}", attempt=1, instructions=None)
                assert (await backend.run(spec, ctx)).startswith("好的")
        finally:
            await backend.stop()
    done = [line for line in ctx.lines if line.startswith("done: ")]
    assert len(done) == 2, ctx.lines
    assert all(line.startswith("done: stream ended: the stream our send started") for line in done), ctx.lines
