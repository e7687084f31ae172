"""Opt-in: the shipped Open WebUI adapter (resources/sites/openwebui.toml) against a REAL Open WebUI.

Open WebUI is a large install (~7 GB with torch), so this test is not part of CI: it runs only when
the environment names an instance and an account on it (docs/web-lane-adapters.md, "How to run the
Open WebUI test"):

    MEDIADESK_OWUI_URL        the instance, e.g. http://127.0.0.1:8080
    MEDIADESK_OWUI_EMAIL      an account on it (read from the environment only, never written)
    MEDIADESK_OWUI_PASSWORD
    MEDIADESK_OWUI_MODEL      optional: the model every new chat uses (?models=); default: the
                              instance's default model

What it shows, with the adapter as shipped (only the instance's URL given by the profile): the account
logs itself in with stored credentials (names of environment variables in the config, nothing
secret in any file), a small batch on one account all succeeds on the first attempt with answers
stored, and ``adapter check`` finds the prompt box, the send button and the answer, and says how
completion was decided.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

import pytest

from mediadesk.config.model import AppConfig
from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.adapter_check import check_adapter
from tests.support import log_messages, make_config, skip_unless, tasks_of, under_ci

URL, EMAIL, PASSWORD = "MEDIADESK_OWUI_URL", "MEDIADESK_OWUI_EMAIL", "MEDIADESK_OWUI_PASSWORD"
_GIVEN = all(os.environ.get(name) for name in (URL, EMAIL, PASSWORD))

pytestmark = [
    pytest.mark.browser,
    # Open WebUI is not installed by ./dev nor in CI: this runs only where an instance is named
    skip_unless(_GIVEN and not under_ci(),
                f"needs a running Open WebUI named by {URL}, {EMAIL} and {PASSWORD} (opt-in, never in CI)"),
]

BATCH = [
    "Name three primary colours, one per line.",
    "Write a haiku about a lighthouse.",
    "What is 17 times 23? Answer with the number.",
    "Give a Python function that reverses a string, in a code block.",
]


def chat_url() -> str:
    """The instance's chat page, with ``?models=`` when a model is named."""
    parts = urlsplit(os.environ[URL])
    model = os.environ.get("MEDIADESK_OWUI_MODEL")
    query = urlencode({"models": model}) if model else parts.query
    return urlunsplit(parts._replace(path=parts.path or "/", query=query))


def owui_config() -> AppConfig:
    return make_config(
        [{"name": "owui", "kind": "web", "site": "openwebui", "url": chat_url()}],
        [{"name": "owui-a", "profile": "owui", "login_user_env": EMAIL, "login_password_env": PASSWORD}],
        retry={"max_retries": 2, "backoff_base_s": 0.5, "backoff_max_s": 5.0},
        scheduler={"kill_grace_s": 2.0},
    )


async def test_a_small_batch_on_a_real_open_webui_then_adapter_check(tmp_path: Path) -> None:
    cfg = owui_config()
    ws = Workspace.resolve(data_dir=tmp_path / "data").ensure()
    async with Scheduler(cfg, ws) as s:
        lane = s.lanes[0]
        await lane.started.wait()
        s.intake.submit([s.intake.new_task(f"t{i}", "owui", prompt) for i, prompt in enumerate(BATCH)])
        await asyncio.wait_for(s.wait_idle(), 900)
        health = lane.backend.health()
    tasks = tasks_of(ws)
    for tid, t in sorted(tasks.items()):
        assert (t.state, t.attempt) == ("success", 1), (tid, t.error_kind, t.error_message, log_messages(ws, tid))
        assert t.result and t.result.strip(), (tid, log_messages(ws, tid))
        assert not any("found by role" in m for m in log_messages(ws, tid) if "prompt" in m or "send" in m), (
            "the shipped prompt/send selectors should match Open WebUI", log_messages(ws, tid))
    assert health[0] in ("ready", "busy"), health
    for name in (EMAIL, PASSWORD):  # nothing secret was written anywhere we keep
        secret = os.environ[name]
        for p in ws.data_dir.rglob("*"):
            if p.is_file() and p.suffix in (".txt", ".log", ".toml", ".html"):
                assert secret not in p.read_text(encoding="utf-8", errors="replace"), p
    said: list[str] = []
    result = await check_adapter(cfg, ws, "openwebui", account="owui-a", out_dir=tmp_path / "check", say=said.append)
    status = {k.key: k.status for k in result.keys}
    assert status["prompt"] == status["send"] == status["answer"] == "found", (result, said)
    assert result.error is None and result.answer, result
    assert result.done_reason in ("stream ended", "page settled"), result
    assert all(p.is_file() for p in result.screenshots)
