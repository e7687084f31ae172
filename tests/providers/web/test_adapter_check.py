"""``adapter check`` on real Chromium: against the simulator through the scheduler facade and the CLI
(on one profile logged in once for the module), and against small pages (in a fresh context of the
module's Chromium) with a covered button and two prompt boxes, or a send button shown only for text."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from aiohttp import web
from playwright.async_api import Page

from mediadesk.config.model import AppConfig, parse_config
from mediadesk.config.workspace import Workspace
from mediadesk.providers.web import find_our_residue
from mediadesk.providers.web._proctree import collect_tree, end_processes
from mediadesk.providers.web.adapter import parse_adapter
from mediadesk.providers.web.check import check_page
from mediadesk.providers.web.login import login_with_form
from mediadesk.scheduler.adapter_check import AdapterCheckError, check_adapter
from mediadesk.sim.web_server import WebSimConfig, WebSimServer
from tests.providers.web.helpers import serve

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

ROOT = Path(__file__).resolve().parents[3]
PNG = b"\x89PNG\r\n\x1a\n"

SITE = """
name = "simcheck"
url = "{url}"
login_url = "{login}"
logged_in = ".avatar"
logged_out = "a.login-link"
prompt = "textarea"
send = "{send}"
new_chat = "button.new-chat"
answer = ".assistant .content"
busy = ".stop"
error = ".msg.error"
busy_selector = ".notice.busy"
settle_ms = 300
max_run_s = 30
start_timeout_s = 5
"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def sim() -> AsyncIterator[WebSimServer]:
    async with WebSimServer(WebSimConfig(time_scale=0.02, fixed_run_s=30.0, answer_tokens=12)) as server:
        yield server


def site_config(sim: WebSimServer, root: Path, send: str = "button.send") -> AppConfig:
    """The test's own sites dir (its ``simcheck.toml``, with ``send`` as the send selector) and a config
    naming it, with one account ``acct`` on it."""
    sites = root / "sites"
    sites.mkdir(parents=True)
    (sites / "simcheck.toml").write_text(SITE.format(url=sim.chat_url, login=sim.login_url, send=send))
    raw = {
        "browser": {"sites_dir": str(sites)},
        "profiles": [{"name": "chat", "kind": "web", "site": "simcheck"}],
        "accounts": [{"name": "acct", "profile": "chat"}],
    }
    return parse_config(raw)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def logged_in_data(sim: WebSimServer, tmp_path_factory: pytest.TempPathFactory, playwright_hub: None) -> Path:
    """A data dir whose account ``acct`` logged in to the simulator once (a browser on its profile, filling
    the login form). The checks only read the page: they share this profile, one after the other (and one
    Playwright driver, ``playwright_hub``)."""
    root = tmp_path_factory.mktemp("adapter-check")
    cfg = site_config(sim, root)
    ws = Workspace.resolve(data_dir=root / "data").ensure()
    await login_with_form(cfg, ws, "acct", sim.login_url, fields={"#account": "acct", "#password": "x"},
                          submit="button.login", logged_in=".avatar")  # fmt: skip
    return ws.data_dir


@pytest.fixture
def data_dir(logged_in_data: Path) -> Iterator[Path]:
    """The logged-in data dir; as for the test's own ``tmp_path`` (conftest's leak guard), no process
    started on its profile may outlive the test."""
    yield logged_in_data
    left = find_our_residue(logged_in_data)
    if left:
        report = end_processes(collect_tree(p.pid for p in left), grace_s=0)
        pytest.fail(f"processes left running on the shared profile: {[p.describe() for p in left]} "
                    f"(killed now; survivors {report.survivors})")


async def workspace_for(sim: WebSimServer, root: Path, data_dir: Path,
                        send: str = "button.send") -> tuple[AppConfig, Workspace, Path]:
    """The test's config (in ``root``) on the logged-in ``data_dir``, and that config as a file."""
    cfg = site_config(sim, root, send)
    sites = root / "sites"
    ws = Workspace.resolve(data_dir=data_dir).ensure()
    config_file = root / "config.toml"
    config_file.write_text(
        f'[browser]\nsites_dir = "{sites}"\n\n[[profiles]]\nname = "chat"\nkind = "web"\nsite = "simcheck"\n\n'
        '[[accounts]]\nname = "acct"\nprofile = "chat"\n'
    )
    return cfg, ws, config_file


async def test_a_fitting_adapter_is_all_found(sim: WebSimServer, data_dir: Path, tmp_path: Path) -> None:
    cfg, ws, _ = await workspace_for(sim, tmp_path, data_dir)
    said: list[str] = []
    result = await check_adapter(cfg, ws, "simcheck", out_dir=tmp_path / "shots", say=said.append)
    status = {k.key: k.status for k in result.keys}
    assert status["logged_in"] == status["prompt"] == status["send"] == status["new_chat"] == "found", result
    assert status["answer"] == "found"
    assert status["busy"] == "found"  # seen while the test prompt was generating
    assert status["error"] == status["busy_selector"] == status["logged_out"] == "not shown"
    assert result.ok and result.error is None and result.account == "acct"
    assert result.answer and result.done_reason == "stream ended"
    assert result.answer_source == "page"  # no [stream] decoder in this adapter
    assert len(result.screenshots) == 2
    for shot in result.screenshots:
        assert shot.is_file() and shot.read_bytes().startswith(PNG) and shot.parent == tmp_path / "shots"
    assert any("opening" in m for m in said)
    assert sim.stats()["concurrent_violations"] == 0


async def test_a_broken_selector_is_missing(sim: WebSimServer, data_dir: Path, tmp_path: Path) -> None:
    cfg, ws, _ = await workspace_for(sim, tmp_path, data_dir, send="button.no-such-send")
    result = await check_adapter(cfg, ws, "simcheck", out_dir=tmp_path / "shots")
    status = {k.key: k.status for k in result.keys}
    assert status["send"] == "missing" and status["prompt"] == "found"
    assert not result.ok
    # the test prompt still goes out: the send button is found by role, and the check says so
    assert result.error is None and result.answer
    assert any("'send'" in n and "by role" in n for n in result.notes), result.notes
    assert result.screenshots and result.screenshots[0].read_bytes().startswith(PNG)


async def test_a_locked_account_is_refused(sim: WebSimServer, tmp_path: Path) -> None:
    from mediadesk.providers.web.profile_lock import AccountLock

    # the lock is checked before the browser starts: an account never logged in is refused the same way
    cfg = site_config(sim, tmp_path)
    ws = Workspace.resolve(data_dir=tmp_path / "data").ensure()
    lock = AccountLock("acct", ws.account_profile_dir("acct"))
    assert lock.try_acquire()
    try:
        with pytest.raises(AdapterCheckError, match="in use"):
            await check_adapter(cfg, ws, "simcheck", send_prompt=False)
    finally:
        lock.release()


async def test_cli_prints_the_report_with_page_text_escaped(sim: WebSimServer, data_dir: Path, tmp_path: Path) -> None:
    _, ws, config_file = await workspace_for(sim, tmp_path, data_dir)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mediadesk", "adapter", "check", "simcheck", "--account", "acct",
        "--config", str(config_file), "--data-dir", str(ws.data_dir), "--prompt", "say \x1b[2J hi",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    out_b, err_b = await proc.communicate()
    out, err = out_b.decode(), err_b.decode()
    assert proc.returncode == 0, (out, err)
    assert "\x1b" not in out and "\\x1b[2J" in out  # the answer echoes the prompt: escaped
    assert "done: stream ended" in out and "OK: the adapter fits the page" in out
    assert "answer source: page (the page's answer element)" in out
    shots = [line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("screenshot: ")]
    assert shots
    for shot in shots:
        assert (await asyncio.to_thread(Path(shot).read_bytes)).startswith(PNG)
    assert str(ws.evidence_dir / "adapter-check") in shots[0]


COVERED_PAGE = """<!doctype html><meta charset=utf-8>
<span class=avatar>me</span><textarea class=box></textarea><textarea class=box></textarea>
<button class=send style="position:absolute;left:20px;top:120px">Send</button>
<div class=dialog style="position:fixed;left:0;top:100px;width:300px;height:80px;background:#eee">What's new</div>
<div class=thread></div>"""


def one_page_app(html: str) -> web.Application:
    async def page_handler(_: web.Request) -> web.Response:
        return web.Response(text=html, content_type="text/html")

    app = web.Application()
    app.router.add_get("/chat", page_handler)
    return app


async def test_covered_and_ambiguous_keys(page: Page, tmp_path: Path) -> None:
    async with serve(one_page_app(COVERED_PAGE)) as base:
        adapter = parse_adapter({"url": f"{base}/chat", "logged_in": ".avatar", "prompt": "textarea.box",
                                 "send": "button.send", "answer": ".thread .a", "busy": ".stop"},
                                "covered.toml")  # fmt: skip
        result = await check_page(page, adapter, out_dir=tmp_path, stem="covered", prompt=None)
    by_key = {k.key: k for k in result.keys}
    assert by_key["send"].status == "covered" and "div.dialog" in by_key["send"].detail
    assert by_key["prompt"].status == "ambiguous"
    assert by_key["logged_in"].status == "found"
    assert not result.ok
    assert (tmp_path / "covered.png").read_bytes().startswith(PNG)


#: A chat page whose send button shows only while the box has text (Open WebUI shows a microphone
#: in its place while the box is empty).
SEND_WHEN_TYPED_PAGE = """<!doctype html><meta charset=utf-8>
<span class=avatar>me</span><div class=thread></div>
<textarea class=box></textarea><button class=send style="display:none">Send</button>
<script>
const box = document.querySelector('.box'), send = document.querySelector('.send');
box.addEventListener('input', () => { send.style.display = box.value ? '' : 'none'; });
send.addEventListener('click', () => {
  const a = document.createElement('div'); a.className = 'a'; a.textContent = 'echo: ' + box.value;
  box.value = ''; send.style.display = 'none';
  setTimeout(() => document.querySelector('.thread').appendChild(a), 50);
});
</script>"""


async def test_a_send_button_shown_only_once_there_is_text_is_found(page: Page, tmp_path: Path) -> None:
    async with serve(one_page_app(SEND_WHEN_TYPED_PAGE)) as base:
        adapter = parse_adapter({"url": f"{base}/chat", "logged_in": ".avatar", "prompt": "textarea.box",
                                 "send": "button.send", "answer": ".thread .a", "settle_ms": 200,
                                 "start_timeout_s": 10}, "typed.toml")  # fmt: skip
        result = await check_page(page, adapter, out_dir=tmp_path, stem="typed", prompt="hello there")
    by_key = {k.key: k for k in result.keys}
    assert by_key["send"].status == "found", result
    assert "only once the prompt box has text" in by_key["send"].detail
    assert result.answer == "echo: hello there" and result.error is None
    assert result.ok, result


async def test_the_report_names_the_stream_when_a_decoder_gave_the_answer() -> None:
    from io import StringIO

    from mediadesk.cli.adapter_cmd import render
    from mediadesk.providers.web.check import AdapterCheckResult

    out = StringIO()
    render(AdapterCheckResult(site="s", account="a", url="http://127.0.0.1:9/", keys=(), prompt="p",
                              answer="**4**", done_reason="stream ended", answer_source="stream"), out)
    assert "answer source: stream (the adapter's [stream] decoder read it from the site's own stream)" in out.getvalue()
    out = StringIO()
    render(AdapterCheckResult(site="s", account="a", url="http://127.0.0.1:9/", keys=()), out)
    assert "answer source" not in out.getvalue()  # no test prompt, no answer: nothing to name
