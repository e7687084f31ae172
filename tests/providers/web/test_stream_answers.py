"""The web lane stores the answer read from the site's own stream (the adapter's ``[stream]`` table): the
Markdown the model wrote and its thinking apart, with the page's answer as the fallback and a cross-check.
Real Chromium, the chat simulator on 127.0.0.1 (its ``deepseek`` persona behaves like DeepSeek's public chat)."""

from __future__ import annotations

import asyncio
import tomllib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from aiohttp import web
from playwright.async_api import Browser

from mediadesk.config.model import AppConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import TaskSpec
from mediadesk.providers.web.adapter import AdapterError, parse_adapter
from mediadesk.providers.web.backend import WebAccountBackend, build_web_backend
from mediadesk.providers.web.driver import PageDriver, answer_words, words_differ
from mediadesk.providers.web.login import login_with_form
from mediadesk.providers.web.stream_watch import CAPTURE_LIMIT, StreamWatch
from mediadesk.scheduler import Scheduler
from mediadesk.sim.web_server import (
    WebSimConfig,
    WebSimServer,
    answer_tokens,
    deepseek_answer,
    deepseek_thinking,
    markdown_answer,
)
from mediadesk.store import TaskReader
from tests.providers.web.helpers import RecordingCtx, serve, sim_site, until
from tests.support import make_config

#: One event loop for the module's tests, so they share one Playwright driver (``playwright_hub``).
pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("playwright_hub")]

#: An adapter for the simulator's DeepSeek-like page, reading the answer with the named decoder.
DEEPSEEK_SITE = """\
url = "http://127.0.0.1:8002/chat"
logged_in = ".avatar"
prompt = "textarea"
send = "button.send"
answer = ".msg.assistant .content"
busy = ".stop"
new_chat = "button.new-chat"
answer_format = "markdown"
settle_ms = 300

[stream]
decoder = "deepseek"
"""

#: The same keys alone read the simulator's plain SSE transport (``data: {"t": "token", "d": "..."}``).
PLAIN_SSE_SITE = """\
url = "{url}"
logged_in = ".avatar"
prompt = "textarea"
send = "button.send"
answer = ".assistant .content"
busy = ".stop"
new_chat = "button.new-chat"
settle_ms = 300

[stream]
framing = "sse"
text = "d"
end_path = "t"
end_value = "done"
"""

DEEPSEEK = ("deepseek",)


def deepseek_config(**overrides: object) -> WebSimConfig:
    settings: dict[str, object] = {"time_scale": 0.0025, "seed": 5, "answer_style": "markdown",
                                   "personas": DEEPSEEK, **overrides}
    return WebSimConfig(**settings)  # type: ignore[arg-type]


def site_config(sim: WebSimServer, workspace: Workspace, site: str = DEEPSEEK_SITE) -> AppConfig:
    """A web profile on the DeepSeek-like page through ``site`` (the adapter above unless given), written to
    the user sites dir."""
    workspace.sites_dir.mkdir(parents=True, exist_ok=True)
    (workspace.sites_dir / "deepseeklike.toml").write_text(site, encoding="utf-8")
    return make_config(
        [{"name": "chat", "kind": "web", "site": "deepseeklike", "url": sim.chat_url}],
        [{"name": "acct-d", "profile": "chat"}],
        heartbeat={"interval_s": 0.2, "stale_after_s": 30},
        scheduler={"kill_grace_s": 1.0},
    )


async def log_in(cfg: AppConfig, workspace: Workspace, sim: WebSimServer) -> None:
    await login_with_form(cfg, workspace, "acct-d", sim.login_url, fields={"#account": "acct-d", "#password": "pw"},
                          submit="button.login", logged_in=".avatar")  # fmt: skip


def task_logs(workspace: Workspace, tid: str) -> list[str]:
    r = TaskReader(workspace.db_path)
    try:
        return [ln.message for ln in r.logs(tid)]
    finally:
        r.close()


async def backend_run(
    workspace: Workspace, tmp_path: Path, sim: WebSimServer, prompt: str, site: str = DEEPSEEK_SITE
) -> tuple[str, RecordingCtx, WebAccountBackend]:
    """One task through the account's backend (the lane's part below the scheduler)."""
    cfg = site_config(sim, workspace, site)
    await log_in(cfg, workspace, sim)
    backend = build_web_backend(cfg, workspace, cfg.profiles[0], cfg.accounts[0])
    ctx = RecordingCtx(tmp_path / "evidence")
    await backend.start()
    try:
        answer = await backend.run(TaskSpec(task_id="t", profile="chat", prompt=prompt, attempt=1,
                                            instructions=None), ctx)  # fmt: skip
    finally:
        await backend.stop()
    return answer, ctx, backend


# --- the lane ---------------------------------------------------------------------------------------


async def test_a_batch_stores_the_models_markdown_and_its_thinking_apart(workspace: Workspace) -> None:
    """Six tasks through the real web lane on the DeepSeek-like page: each stored answer is byte for byte the
    Markdown the model wrote (a table's alignment, an ordered list with ``*`` sub-items, a heading: marks the
    page's HTML does not keep), the thinking is stored apart and is nowhere in the answer."""
    async with WebSimServer(deepseek_config()) as sim:
        cfg = site_config(sim, workspace)
        await log_in(cfg, workspace, sim)
        prompts = {f"d{i}": f"问题 {i}: compare the options {i}" for i in range(6)}
        async with Scheduler(cfg, workspace) as s:
            s.intake.submit([s.intake.new_task(t, "chat", p) for t, p in prompts.items()])
            await asyncio.wait_for(s.wait_idle(), 120)
        made = {g["prompt"]: g for g in sim.stats()["generations"] if g["status"] == "completed"}
    r = TaskReader(workspace.db_path)
    try:
        tasks = {t.task_id: t for t in r.iter_tasks()}
    finally:
        r.close()
    assert {t.state for t in tasks.values()} == {"success"}, {k: (t.state, t.error_message) for k, t in tasks.items()}
    for tid, prompt in prompts.items():
        gen = made[prompt]
        task = tasks[tid]
        assert gen["answer"] == deepseek_answer(prompt) and gen["thinking"] == deepseek_thinking(prompt)
        assert task.result == gen["answer"]  # byte for byte what the model wrote
        for mark in ("|:-----|-----:|:----:|", "\n   * 子项 a\n", "### 对比", "```python\n"):
            assert mark in task.result
        assert task.reasoning == gen["thinking"]
        assert "用户问的是" not in task.result  # the thinking never in the answer
        lines = task_logs(workspace, tid)
        assert any(ln.startswith("answer read from the site's stream (") and
                   f"{len(gen['answer'])} chars as the model wrote them, {len(gen['thinking'])} chars of reasoning"
                   in ln for ln in lines), lines
        assert not any(ln.startswith("warning:") for ln in lines), lines  # the page's text agrees


# --- the fallback and the cross-check -----------------------------------------------------------------


async def test_a_stream_format_the_decoder_does_not_know_falls_back_to_the_page(
    workspace: Workspace, tmp_path: Path
) -> None:
    """The site changed its stream's format: the decoder reads nothing, the page's answer is stored (here one
    the page's HTML converts back to exactly) and the task log says why."""
    # at a site's pace (not the fast default), so that our stream is kept whatever the machine's load (see the
    # capture test below) and the decoder is what finds nothing
    config = deepseek_config(personas=("deepseek", "ds_new_format", "ds_plain"), time_scale=0.03)
    async with WebSimServer(config) as sim:
        answer, ctx, _backend = await backend_run(workspace, tmp_path, sim, "a new format")
        gen = sim.stats()["generations"][-1]
    assert gen["status"] == "completed" and gen["answer"] == markdown_answer("a new format")
    assert answer == gen["answer"]
    assert getattr(answer, "source", None) == "page" and getattr(answer, "reasoning", None) is None
    page_lines = [ln for ln in ctx.lines if ln.startswith("answer read from the page, not the stream: ")]
    assert len(page_lines) == 1, ctx.lines
    assert "the adapter's stream decoder found no answer in" in page_lines[0]
    assert "has the site changed its stream's format?" in page_lines[0]


async def test_a_page_showing_another_text_keeps_the_streams_answer_and_warns(
    workspace: Workspace, tmp_path: Path
) -> None:
    """The page shows a sentence the stream never carried: the stream's answer is stored, and the warning
    reaches the task log and the account's health text."""
    async with WebSimServer(deepseek_config(personas=("deepseek", "ds_page_differs"))) as sim:
        answer, ctx, backend = await backend_run(workspace, tmp_path, sim, "differs")
        gen = sim.stats()["generations"][-1]
    assert answer == gen["answer"] == deepseek_answer("differs")
    assert getattr(answer, "source", None) == "stream"
    assert getattr(answer, "reasoning", None) == deepseek_thinking("differs")
    warned = [ln for ln in ctx.lines if ln.startswith("warning: the page shows another answer than the site's stream")]
    assert len(warned) == 1, ctx.lines
    assert "'this sentence is on the page only'" in warned[0]
    assert backend.state.last_error is not None and "the stream's answer is kept" in backend.state.last_error


# --- the page's thinking block (the ``reasoning`` key) ----------------------------------------------------


async def test_the_reasoning_key_reads_the_pages_thinking_apart(workspace: Workspace, tmp_path: Path) -> None:
    """No stream decoder: the answer comes from the page, whose assistant message holds the thinking block
    above the answer. With the ``reasoning`` key the thinking is read into the reasoning (without its
    "Thought for..." label) and is not in the answer (without the key it leaks into the answer, which the
    module's invariant check reports as an answer the site never generated)."""
    page_site = DEEPSEEK_SITE.split("[stream]")[0].replace('answer = ".msg.assistant .content"',
                                                           'answer = ".msg.assistant"') + 'reasoning = ".ds-think"\n'
    async with WebSimServer(deepseek_config(personas=("deepseek", "ds_plain"))) as sim:
        answer, _ctx, _backend = await backend_run(workspace, tmp_path, sim, "think first", page_site)
        gen = sim.stats()["generations"][-1]
    assert gen["status"] == "completed" and gen["thinking"] == deepseek_thinking("think first")
    assert getattr(answer, "source", None) == "page"
    assert answer == gen["answer"] == markdown_answer("think first")
    assert getattr(answer, "reasoning", None) == gen["thinking"]
    assert "Thought for" not in gen["thinking"]


# --- keys alone, and what the watcher can keep ----------------------------------------------------------


async def test_keys_alone_read_a_plain_sse_stream(browser: Browser) -> None:
    """No decoder in code: framing, a text path and an end path read the simulator's plain SSE persona."""
    async with sim_site(browser, transport="sse") as (sim, page):
        adapter = parse_adapter(tomllib.loads(PLAIN_SSE_SITE.format(url=sim.chat_url)), "plain-sse")
        driver = PageDriver(adapter)
        for prompt in ("first 第一", "second"):
            await driver.prepare(page)
            result = await driver.run(page, prompt)
            assert result.answer == "".join(answer_tokens(prompt, 12))
            assert result.source == "stream", (result.source_note, result.timings.stream_events)
            assert result.reasoning is None and not result.warnings
            assert result.source_note is not None
            assert result.source_note.english().startswith("answer read from the site's stream ("), result.source_note


async def test_stream_table_errors_name_the_key() -> None:
    base = DEEPSEEK_SITE.split("[stream]")[0]
    with pytest.raises(AdapterError, match=r"stream\.framing: "):
        parse_adapter(tomllib.loads(base + '[stream]\ntext = "d"\nframing = "xml"\n'), "x")
    with pytest.raises(AdapterError, match=r"stream_url' and 'stream\.url'"):
        parse_adapter(tomllib.loads('stream_url = "/a"\n' + base + '[stream]\nurl = "/b"\ndecoder = "deepseek"\n'), "x")
    a = parse_adapter(tomllib.loads(base + '[stream]\nurl = "*/api/v0/*"\ndecoder = "deepseek"\n'), "x")
    assert a.stream_url == ("*/api/v0/*",) and a.reads_stream and a.stream is not None
    only_url = parse_adapter(tomllib.loads(base + '[stream]\nurl = "/s"\n'), "x")
    assert only_url.stream_url == ("/s",) and only_url.stream is None and not only_url.reads_stream


async def test_words_compare_markdown_with_the_pages_text() -> None:
    md = deepseek_answer("q")
    page_text = ("好的，这是对「q」的回答 🚀\n对比\n项目\t数值\t说明\nalpha\t1\t粗体\nbeta\t22\tcode\n第一步\n子项 a\n"
                 "子项 b 👍\n第二步 streaming\npython\ndef answer(x):\n    return x * 2  # 完毕\n完毕 ✅")
    assert words_differ(md, page_text) is None
    assert answer_words("中文ab 12") == ["中", "文", "ab", "12"]
    assert words_differ(md, page_text.replace("python\n", "")) is None  # a code block's label may not show
    assert words_differ(md, page_text + "\nextra words") is not None


_BODY = b'data: {"d": "one"}\n\ndata: {"d": "two"}\n\n'
_CAPTURE_PAGE = """<!doctype html><body><script>
window.viaFetch = async () => { const r = await fetch('/s?fetch', {method: 'POST', body: 'PROMPT'}); return r.text(); };
window.viaXhr = () => new Promise((ok) => { const x = new XMLHttpRequest(); x.open('POST', '/s?xhr');
  x.onload = () => ok(x.responseText); x.send('PROMPT'); });
window.viaEventSource = () => new Promise((ok) => { const e = new EventSource('/s?es'); let n = 0;
  e.onmessage = () => { if (++n === 2) { e.close(); ok('two'); } }; });
</script></body>"""


@pytest_asyncio.fixture(loop_scope="module")
async def capture_site() -> AsyncIterator[str]:
    async def stream(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"})
        await resp.prepare(request)
        for part in _BODY.split(b"\n\n")[:2]:
            await resp.write(part + b"\n\n")
            # the pace of a site's stream: CDP's streaming starts on the response's headers, one round trip
            # later; a stream over before that round trip is kept only by response.body(), if at all
            await asyncio.sleep(0.25)
        await resp.write_eof()
        return resp

    async def home(_request: web.Request) -> web.Response:
        return web.Response(text=_CAPTURE_PAGE, content_type="text/html")

    app = web.Application()
    app.router.add_get("/", home)
    app.router.add_route("*", "/s", stream)
    async with serve(app) as base:
        yield base


@pytest.mark.parametrize("how", ["viaFetch", "viaXhr", "viaEventSource"])
@pytest.mark.parametrize("cdp", [False, True])
async def test_the_watcher_keeps_a_finished_streams_body(
    browser: Browser, capture_site: str, how: str, cdp: bool
) -> None:
    """What a stream carried, read back after it ended. ``response.body()``: a streamed fetch and an XHR can
    be read; an EventSource the page closed mostly cannot (Chromium usually keeps no body for it; when it
    does, it is the whole body; when not, the watcher says so in its events). With the bytes gathered
    through CDP as they came, all three are kept."""
    ctx = await browser.new_context()
    try:
        page = await ctx.new_page()
        await page.goto(capture_site)
        watch = StreamWatch(page, capture=True, stream_urls=("*/s*",))
        if cdp:
            await watch.attach_cdp(await ctx.new_cdp_session(page))
        watch.arm(prompt="PROMPT")
        await page.evaluate(f"() => window.{how}()")
        await until(lambda: watch.state == "ended", 10.0, "the news of the stream's end")
        captured = await watch.capture()
        # an EventSource's body without CDP: when Chromium kept it after all, it is the whole of it
        if cdp or how != "viaEventSource" or captured.bodies:
            assert captured.bodies == (_BODY,), watch.events
        else:
            assert any("could not be read" in e for e in watch.events), watch.events
        watch.disarm()
    finally:
        await ctx.close()


class _NoPage:
    """Enough of a page for a watcher that is fed by hand."""

    def on(self, *_args: object) -> None:
        return None


async def test_a_capture_past_the_limit_keeps_nothing() -> None:
    watch = StreamWatch(_NoPage(), capture=True)
    watch.arm(prompt="x")
    watch._keep("a" * (CAPTURE_LIMIT // 2))
    watch._keep(b"b" * (CAPTURE_LIMIT // 2 + 1))
    assert (await watch.capture()).empty
    assert watch.events[-1] == "the stream's messages passed 8 MB: none kept"
    watch.disarm()
    watch.arm(prompt="x")
    watch._keep('{"d": "ok"}')
    assert (await watch.capture()).messages == ('{"d": "ok"}',)
