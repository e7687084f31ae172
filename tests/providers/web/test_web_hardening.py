"""The web backend on a real Chromium against sites that punish sloppy page handling.

The site is fake site A (``pages/site_a.html``) served by a small server whose login is a SESSION
cookie (no expiry), set once through a one-time "magic" link that is the adapter's URL: after that
link is used, only the cookie keeps the account logged in. A headless Chromium drops session
cookies when its last tab closes, so closing the page after a failure before opening a new one would
log the account out.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import pytest_asyncio
from aiohttp import web

from mediadesk.config.model import BrowserConfig
from mediadesk.core.backend import TaskSpec
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.providers.web import page_send
from mediadesk.providers.web.adapter import load_adapter, with_url
from mediadesk.providers.web.backend import WebAccountBackend
from tests.providers.web.helpers import RecordingCtx

#: One event loop for the module's tests, so they share one Playwright driver (``playwright_hub``).
pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("playwright_hub")]

PAGES = Path(__file__).parent / "pages"
COOKIE = "sid"


@dataclass
class SessionSite:
    base: str
    magic: str
    sessions: set[str] = field(default_factory=set)
    magic_used: int = 0
    #: For every GET /chat: was the visitor logged in by its session cookie (not by the magic link)?
    by_cookie: list[bool] = field(default_factory=list)

    @property
    def chat_url(self) -> str:
        return f"{self.base}/chat?magic={self.magic}"


@pytest_asyncio.fixture(loop_scope="module")
async def session_site() -> AsyncIterator[SessionSite]:
    page = (PAGES / "site_a.html").read_text(encoding="utf-8")
    state = SessionSite(base="", magic=secrets.token_hex(8))

    async def chat(request: web.Request) -> web.Response:
        sid = request.cookies.get(COOKIE)
        logged_in = sid in state.sessions
        state.by_cookie.append(logged_in)
        new_sid = None
        if not logged_in and request.query.get("magic") == state.magic and not state.magic_used:
            state.magic_used += 1  # a one-time link: from now on only the cookie counts
            new_sid = secrets.token_hex(8)
            state.sessions.add(new_sid)
            logged_in = True
        html = page if logged_in else page.replace("<html>", '<html data-session="none">', 1)
        resp = web.Response(text=html, content_type="text/html")
        if new_sid is not None:
            resp.set_cookie(COOKIE, new_sid, path="/", httponly=True)  # no max_age/expires: a session cookie
        return resp

    app = web.Application()
    app.router.add_get("/chat", chat)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    state.base = f"http://127.0.0.1:{runner.addresses[0][1]}"
    yield state
    await runner.cleanup()


def spec(prompt: str, attempt: int = 1) -> TaskSpec:
    return TaskSpec(task_id=f"t{attempt}", profile="chat", prompt=prompt, attempt=attempt, instructions=None)


async def test_a_failure_never_leaves_the_browser_without_a_tab(
    session_site: SessionSite, chromium_exe: Path, profile_root: Path, lock_dir: Path, tmp_path: Path
) -> None:
    adapter = dataclasses.replace(with_url(load_adapter(PAGES / "site_a.toml"), session_site.chat_url),
                                  start_timeout_s=10.0)
    backend = WebAccountBackend(account="acct-a", adapter=adapter, browser=BrowserConfig(executable=chromium_exe),
                                profile_dir=profile_root / "acct-a", lock_dir=lock_dir, kill_grace_s=2.0)
    ctx = RecordingCtx(tmp_path / "evidence")
    await backend.start()
    try:
        assert backend.health() == ("ready", None)
        assert session_site.magic_used == 1
        with pytest.raises(TaskFailure) as info:
            await backend.run(spec("[error] boom", 1), ctx)
        assert info.value.kind is ErrorKind.SITE_ERROR
        # The page was replaced after the failure; the next task opens the chat again, logged in by
        # the session cookie alone (the magic link is spent).
        assert await backend.run(spec("still logged in?", 2), ctx) == "Echo: still logged in? | done."
        assert session_site.by_cookie[-1] is True
        assert backend.health()[0] == "ready"
        assert len(backend.browser.pids) == 1  # the same browser: nothing was relaunched
    finally:
        await backend.stop()


async def test_a_send_that_does_nothing_fails_fast_with_evidence(
    session_site: SessionSite, chromium_exe: Path, profile_root: Path, lock_dir: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    # nothing ever shows the prompt left: the whole confirm window is waited out, so it is shortened
    monkeypatch.setattr(page_send, "_SEND_CONFIRM_MS", 1000)
    adapter = dataclasses.replace(
        with_url(load_adapter(PAGES / "site_a.toml"), session_site.chat_url + "&deadsend=1"), start_timeout_s=30.0
    )
    backend = WebAccountBackend(account="acct-a", adapter=adapter, browser=BrowserConfig(executable=chromium_exe),
                                profile_dir=profile_root / "acct-a", lock_dir=lock_dir, kill_grace_s=2.0)
    ctx = RecordingCtx(tmp_path / "evidence")
    await backend.start()
    try:
        with pytest.raises(TaskFailure) as info:
            await backend.run(spec("hello"), ctx)
        assert (info.value.kind, info.value.retryable) == (ErrorKind.SITE_ERROR, True)
        assert info.value.message.startswith("send_failed: ")
        evidence = [line for line in ctx.lines if line.startswith("evidence: ")]
        assert evidence and "attempt1.png" in evidence[0] and "attempt1.html" in evidence[0]
        html = (tmp_path / "evidence" / "attempt1.html").read_text(encoding="utf-8")
        assert "Ask anything" in html and 'class="msg user"' not in html  # the page, with nothing sent
    finally:
        await backend.stop()
