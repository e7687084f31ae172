"""The chat simulator's personas (pages that behave like chat UIs we did not write), the binary socket
transport, the restart on the same port and the ledger: server behaviour over httpx / aiohttp, page
behaviour in a real Chromium (one per module, a BrowserContext per test).

Timing checks are lower bounds only (a delay the site promises is never shorter); everything else
waits on events or on conditions polled under a generous safety limit.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import ssl
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import httpx
import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, async_playwright

from mediadesk.providers.web import BrowserNotFoundError, find_browser
from mediadesk.sim.web_server import (
    BINARY_OPS,
    PERSONAS,
    SESSION_COOKIE,
    TRANSPORTS,
    WebSimConfig,
    WebSimServer,
    add_arguments,
    answer_tokens,
    config_from_args,
    decode_frame,
    encode_frame,
    markdown_answer,
)
from tests.support import require, until

#: The simulators speak plain HTTP; httpx builds a TLS context for every client (~0.2 s each on a loaded
#: machine) unless given one: this one serves them all.
TLS = ssl.create_default_context()

pytestmark = [pytest.mark.timeout(60), pytest.mark.asyncio(loop_scope="module")]

#: Every run: 40 * 0.01 = 0.4 s over 8 tokens, unless a [[sim:slow=S]] marker says otherwise.
BASE: dict[str, Any] = {"time_scale": 0.01, "fixed_run_s": 40, "answer_tokens": 8, "seed": 5}
FOOTER_TEXT = "AI can make mistakes. Check important info."
OPS = {v: k for k, v in BINARY_OPS.items()}


def expected(sim: WebSimServer, prompt: str) -> str:
    if sim.config.answer_style == "markdown":
        return markdown_answer(prompt)
    return "".join(answer_tokens(prompt, sim.config.answer_tokens))


def check_ledger(sim: WebSimServer) -> None:
    """No session ever ran two generations; every completed one generated the answer of its prompt."""
    led = sim.ledger()
    assert led["violations"] == [] and led["max_concurrent_per_session"] <= 1
    for g in led["generations"]:
        if g["status"] == "completed":
            assert g["answer"] == expected(sim, g["prompt"]), g


@contextlib.asynccontextmanager
async def site(**overrides: Any) -> AsyncIterator[WebSimServer]:
    async with WebSimServer(WebSimConfig(**{**BASE, **overrides})) as sim:
        yield sim
        check_ledger(sim)


async def login(sim: WebSimServer, account: str = "acct") -> str:
    async with httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c:
        r = await c.post("/login", data={"account": account, "password": "pw"})
        return r.cookies[SESSION_COOKIE]


# ----------------------------------------------------------------------------- browser helpers
@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    try:
        chromium = str(find_browser(probe_version=False).path)
    except BrowserNotFoundError as exc:
        require(False, f"no Chromium on this machine: {exc}")
        raise  # (require does not return)
    async with async_playwright() as pw:
        b = await pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"], headless=True)
        try:
            yield b
        finally:
            await b.close()


@contextlib.asynccontextmanager
async def chat(browser: Browser, sim: WebSimServer, account: str = "acct") -> AsyncIterator[Page]:
    ctx = await browser.new_context()
    try:
        # the login form's POST, sent by the context itself: its session cookie without a page to fill the
        # form (the form on a page: tests/sim/test_web_sim.py)
        resp = await ctx.request.post(sim.login_url, form={"account": account, "password": "pw"}, max_redirects=0)
        assert resp.status == 303, resp.status
        page = await ctx.new_page()
        await page.goto(sim.chat_url)
        yield page
    finally:
        await ctx.close()


async def send(page: Page, text: str) -> None:
    await page.fill("textarea#prompt", text)
    await page.click("button.send")


async def runs_ended(page: Page, n: int) -> None:
    await page.wait_for_selector(f'body[data-runs-ended="{n}"]', state="attached", timeout=20_000)


async def last_answer(page: Page) -> str:
    return await page.locator(".msg.assistant .content").last.text_content() or ""


#: A page-side log of what the page shows, with the wall clock (ms) of each change.
TIMELINE_JS = """() => {
  window.__log = [];
  const log = (what) => window.__log.push([Date.now(), what]);
  const seen = {};
  const watch = () => {
    const b = document.body, stop = document.querySelector("button.stop");
    const now = {
      widget: !!document.querySelector(".run-status"),
      turn: !!document.querySelector(".msg.assistant"),
      stop: !!stop && stop.style.display !== "none",
      state: b.dataset.state,
      ended: b.dataset.runsEnded,
    };
    for (const k of Object.keys(now)) if (seen[k] !== now[k]) { seen[k] = now[k]; log(k + ":" + now[k]); }
  };
  watch();
  new MutationObserver(watch).observe(document.body, {childList: true, subtree: true, attributes: true});
}"""


class Timeline:
    """The page-side log: when (wall clock, s) each change (e.g. ``"turn:true"``) was first / last seen."""

    def __init__(self, entries: list[tuple[float, str]]) -> None:
        self._at: dict[str, list[float]] = {}
        for at, what in entries:
            self._at.setdefault(what, []).append(at / 1000)

    def first(self, what: str) -> float:
        return self._at[what][0]

    def last(self, what: str) -> float:
        return self._at[what][-1]


async def timeline(page: Page) -> Timeline:
    return Timeline(await page.evaluate("window.__log"))


# ----------------------------------------------------------------------------- config, CLI, admin
async def test_persona_options_cli_and_validation() -> None:
    assert PERSONAS == ("footer", "icon_avatar", "status_widget", "late_render", "noise", "code_header", "css_bold",
                        "paste_limit")
    assert "binary_ws" in TRANSPORTS
    p = argparse.ArgumentParser()
    add_arguments(p)
    args = p.parse_args(["--persona", "footer,icon_avatar", "--start-delay-ms", "400", "--render-delay-ms", "300",
                         "--transport", "binary_ws", "--persona", "noise"])  # fmt: skip
    cfg = config_from_args(args)
    assert cfg.personas == ("footer", "icon_avatar", "noise")
    assert (cfg.start_delay_ms, cfg.render_delay_ms, cfg.transport) == (400, 300, "binary_ws")
    assert config_from_args(p.parse_args([])).personas == ()
    with pytest.raises(SystemExit):
        p.parse_args(["--persona", "footer,clippy"])
    listed: Any = ["noise", "footer", "noise"]
    assert WebSimConfig(personas=listed).personas == ("noise", "footer")
    for kwargs, fragment in [
        ({"personas": ("clippy",)}, "unknown persona"),
        ({"personas": ("code_header",)}, "answer_style='markdown'"),
        ({"personas": ("css_bold",), "answer_style": "text"}, "answer_style='markdown'"),
        ({"start_delay_ms": -1}, "start_delay_ms"),
        ({"render_delay_ms": 1.5}, "render_delay_ms"),
    ]:
        with pytest.raises(ValueError, match=fragment):
            WebSimConfig(**kwargs)
    assert WebSimConfig(personas=("code_header", "css_bold"), answer_style="markdown").personas


async def test_personas_switch_at_runtime_and_over_admin() -> None:
    async with site() as sim, httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c:
        await c.post("/login", data={"account": "a", "password": "pw"})
        assert 'data-personas=""' in (await c.get("/chat")).text
        sim.set_personas("footer, noise", start_delay_ms=250)
        page = (await c.get("/chat")).text
        assert 'data-personas="footer noise"' in page and 'src="/static/personas.js"' in page
        assert sim.config.start_delay_ms == 250
        r = await c.post("/admin/persona", json={"personas": ["status_widget", "late_render"], "render_delay_ms": 120,
                                                 "transport": "binary_ws"})  # fmt: skip
        assert r.json() == {"personas": ["status_widget", "late_render"], "start_delay_ms": 250,
                            "render_delay_ms": 120, "transport": "binary_ws"}  # fmt: skip
        page = (await c.get("/chat")).text
        assert 'data-personas="status_widget late_render"' in page and 'data-render-delay-ms="120"' in page
        assert 'data-transport="binary_ws"' in page
        for body, fragment in [
            ({"personas": ["clippy"]}, "unknown persona"),
            ({"personas": ["css_bold"]}, "answer_style='markdown'"),
            ({"start_delay_ms": "soon"}, "start_delay_ms"),
            ({"transport": "pigeon"}, "transport"),
            ({"colour": "red"}, "known fields"),
        ]:
            r = await c.post("/admin/persona", json=body)
            assert r.status_code == 400 and fragment in r.json()["error"], (body, r.text)
        assert (await c.get("/admin/persona")).json()["personas"] == ["status_widget", "late_render"]  # unchanged
        assert (await c.post("/admin/persona", json={"personas": []})).json()["personas"] == []
        r = await c.get("/static/personas.js")
        assert r.status_code == 200 and "window.simchatPersonas" in r.text


# ----------------------------------------------------------------------------- server side (no browser)
async def test_binary_socket_frames_carry_no_json() -> None:
    async with site(transport="binary_ws", pause_mid_s=0.6) as sim:
        token = await login(sim)
        async with (
            aiohttp.ClientSession(headers={"Cookie": f"{SESSION_COOKIE}={token}"}) as s,
            s.ws_connect(f"{sim.base_url}/api/wsb") as ws,
        ):
            # a JSON (text) frame is not this socket's protocol: ignored, nothing generated
            await ws.send_str(json.dumps({"t": "generate", "prompt": "json here", "request_id": "rj"}))
            await ws.send_bytes(encode_frame(BINARY_OPS["generate"], "r1", "conv-1", "二进制 please"))
            frames: list[tuple[str, list[str]]] = []
            raw: list[bytes] = []
            while not frames or frames[-1][0] != "eof":
                msg = await ws.receive(timeout=20)
                assert msg.type == aiohttp.WSMsgType.BINARY, msg
                raw.append(msg.data)
                op, fields = decode_frame(msg.data)
                frames.append((OPS[op], fields))
            kinds = [k for k, _ in frames]
            assert kinds[0] == "start" and kinds[-2:] == ["done", "eof"] and "ping" in kinds  # pings in the pause
            assert all(f[0] == "r1" for _, f in frames)
            assert all(len(f) == (2 if k == "token" else 1) for k, f in frames)
            assert "".join(f[1] for k, f in frames if k == "token") == expected(sim, "二进制 please")
            assert not any(b"{" in r or b'"t"' in r for r in raw)  # no JSON anywhere in the answer frames
        async with aiohttp.ClientSession() as anon, anon.ws_connect(f"{sim.base_url}/api/wsb") as ws:
            await ws.send_bytes(encode_frame(BINARY_OPS["generate"], "r2", "", "x"))
            op, fields = decode_frame((await ws.receive(timeout=20)).data)
            assert OPS[op] == "http_error" and fields[:2] == ["r2", "401"]
            assert json.loads(fields[2])["error"] == "session_expired"
        st = sim.stats()
        assert [g["prompt"] for g in st["generations"]] == ["二进制 please"]
        assert st["generations"][0]["conversation_id"] == "conv-1"
    assert encode_frame(0x03, "r", "é") == b"\x03\x00\x00\x00\x01r\x00\x00\x00\x02\xc3\xa9"
    with pytest.raises(ValueError, match="truncated"):
        decode_frame(b"\x03\x00\x00\x00\x09r")


@pytest.mark.sim_concurrency_probe  # sends the overlapping generation itself to prove the 409
async def test_start_delay_keeps_the_run_active_and_can_be_stopped() -> None:
    async with (
        WebSimServer(WebSimConfig(**BASE, start_delay_ms=30_000)) as sim,
        httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c,
    ):
        await c.post("/login", data={"account": "acct", "password": "pw"})
        async with c.stream("POST", "/api/generate", json={"prompt": "wait for it", "request_id": "r1"}) as resp:
            assert resp.status_code == 200
            assert sim.stats()["active_generations"] == 1  # admitted, not started
            second = await c.post("/api/generate", json={"prompt": "me too"})
            assert second.status_code == 409
            assert (await c.post("/api/stop", json={"request_id": "r1"})).json() == {"stopped": True}
            events = [json.loads(line) async for line in resp.aiter_lines() if line]
        assert [e["t"] for e in events if e["t"] != "ping"] == ["stopped"]  # no start, no token
        g = sim.stats()["generations"][0]
        assert (g["status"], g["tokens_sent"]) == ("stopped", 0)
        sim.reset_stats()
        led = sim.ledger()  # the ledger keeps the refused probe
        assert [v["prompt"] for v in led["violations"]] == ["me too"] and led["max_concurrent_per_session"] == 1


async def test_noise_endpoints_are_counted_and_never_generate() -> None:
    async with site() as sim, httpx.AsyncClient(verify=TLS, base_url=sim.base_url) as c:
        t0 = time.monotonic()
        r = await c.get("/api/poll")
        assert time.monotonic() - t0 >= 0.3  # held (a lower bound)
        assert r.headers["content-type"].startswith("text/event-stream")
        assert r.text == 'data: {"type":"done","updates":[]}\n\n'
        r = await c.post("/api/telemetry", content='{"event":"send"}')
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
        assert r.headers.get("transfer-encoding") == "chunked" and r.text == "ok\n"
        async with aiohttp.ClientSession() as s, s.ws_connect(f"{sim.base_url}/api/presence") as ws:
            frames = []
            while True:
                msg = await ws.receive(timeout=20)
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                frames.append(json.loads(msg.data))
            assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)  # the server closed it
            assert frames and all(f == {"type": "presence", "online": 3} for f in frames)
        st = sim.stats()
        assert st["noise"] == {"polls": 1, "beacons": 1, "presence_sockets": 1}
        assert st["generations_started"] == 0 and sim.ledger()["generations"] == []
        sim.reset_stats()
        assert sim.stats()["noise"] == {"polls": 0, "beacons": 0, "presence_sockets": 0}


async def test_ledger_survives_reset_and_restart_on_the_same_port_with_sockets_closed() -> None:
    async with site(transport="websocket", personas=("noise",)) as sim:
        port = sim.port
        async with httpx.AsyncClient(verify=TLS, base_url=sim.base_url, timeout=20) as c:
            await c.post("/login", data={"account": "acct", "password": "pw"})
            r = await c.post("/api/generate", json={"prompt": "before"})
            assert r.status_code == 200
            sim.reset_stats()
            assert sim.stats()["generations"] == [] and [g["prompt"] for g in sim.ledger()["generations"]] == ["before"]
            cookie = {"Cookie": f"{SESSION_COOKIE}={c.cookies[SESSION_COOKIE]}"}
            async with (
                aiohttp.ClientSession(headers=cookie) as s,
                s.ws_connect(f"{sim.base_url}/api/ws") as answer_ws,
                s.ws_connect(f"{sim.base_url}/api/wsb") as binary_ws,
                s.ws_connect(f"{sim.base_url}/api/presence") as presence_ws,
            ):
                await answer_ws.send_str(json.dumps({"t": "generate", "prompt": "[[sim:slow=300]] mid"}))
                while json.loads((await answer_ws.receive(timeout=20)).data)["t"] != "token":
                    pass  # mid-answer now
                stopping = asyncio.ensure_future(sim.stop())
                for ws in (answer_ws, binary_ws, presence_ws):  # read as a client does: the close is answered
                    while (msg := await ws.receive(timeout=20)).type in (aiohttp.WSMsgType.TEXT,
                                                                           aiohttp.WSMsgType.BINARY):
                        pass
                    assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED), msg
                await asyncio.wait_for(stopping, 15)  # safety net only
                assert not sim.listening
            mid = sim.ledger()["generations"][-1]
            assert (mid["prompt"], mid["status"], mid["error"]) == ("[[sim:slow=300]] mid", "aborted", "shutdown")
            assert sim.stats()["active_generations"] == 0
            await sim.start()
            assert sim.port == port
            page = (await c.get("/chat")).text  # the same cookie: the login survived the restart
            assert 'class="avatar"' in page
            r = await c.post("/api/generate", json={"prompt": "after"})
            assert r.status_code == 200 and json.loads(r.text.splitlines()[-1]) == {"t": "done"}
        led = sim.ledger()
        assert [g["prompt"] for g in led["generations"]] == ["before", "[[sim:slow=300]] mid", "after"]
        assert [g["status"] for g in led["generations"]] == ["completed", "aborted", "completed"]
        assert led["max_concurrent_per_session"] == 1
        assert [g["prompt"] for g in sim.stats()["generations"]] == ["[[sim:slow=300]] mid", "after"]


# ----------------------------------------------------------------------------- in Chromium
FOOTER_WATCH_JS = """(text) => {
  window.__footerChecks = [];
  const messages = document.getElementById("messages");
  let last = document.querySelector("div.disclaimer");
  // Created after the page's own observer: called after its re-render, on the same changes.
  new MutationObserver(() => {
    const cur = document.querySelector("div.disclaimer");
    window.__footerChecks.push(cur !== last && cur.isConnected && cur.textContent === text);
    last = cur;
  }).observe(messages, {childList: true, subtree: true, characterData: true});
  window.addEventListener("simchat:run-end", () => {
    const cur = document.querySelector("div.disclaimer");
    window.__footerAtEnd = cur !== last && cur.textContent === text;
  });
}"""


async def test_footer_is_replaced_whenever_the_list_changes(browser: Browser) -> None:
    async with site(personas=("footer",)) as sim, chat(browser, sim) as page:
        welcome = page.locator("div.welcome > h2")
        assert await welcome.text_content() == "How can I help you today?"
        assert await page.evaluate("document.querySelector('.welcome').nextElementSibling.id") == "messages"
        assert await page.evaluate("document.querySelector('footer.composer').nextElementSibling.className") == (
            "disclaimer"
        )
        before = await page.query_selector("div.disclaimer")
        assert before is not None and await before.text_content() == FOOTER_TEXT
        await page.evaluate(FOOTER_WATCH_JS, FOOTER_TEXT)
        await send(page, "footer test")
        await runs_ended(page, 1)
        assert await page.evaluate("(el) => el.isConnected", before) is False  # a different node now ...
        assert await page.locator("div.disclaimer").count() == 1
        assert await page.locator("div.disclaimer").text_content() == FOOTER_TEXT  # ... with the same text
        checks = await page.evaluate("window.__footerChecks")
        assert len(checks) >= 3 and all(checks)  # replaced at send, at each token
        assert await page.evaluate("window.__footerAtEnd") is True  # and at run end
        assert await last_answer(page) == expected(sim, "footer test")


async def test_icon_avatars_start_each_turn(browser: Browser) -> None:
    async with site(personas=("icon_avatar",)) as sim, chat(browser, sim) as page:
        await send(page, "avatar test")
        await runs_ended(page, 1)
        turns = await page.evaluate("""() => [...document.querySelectorAll('.msg.user, .msg.assistant')].map((m) => ({
            kind: m.className, first: m.firstElementChild.outerHTML, second: m.children[1].className,
            text: m.innerText}))""")  # fmt: skip
        assert [t["kind"] for t in turns] == ["msg user", "msg assistant"]
        icon = '<span class="material-symbols-outlined avatar-icon" aria-hidden="true">{}</span>'
        assert (turns[0]["first"], turns[1]["first"]) == (icon.format("person"), icon.format("smart_toy"))
        assert turns[1]["second"] == "content" and "smart_toy" in turns[1]["text"]
        assert await last_answer(page) == expected(sim, "avatar test")


async def test_status_widget_shows_alone_until_the_start_event(browser: Browser) -> None:
    delay_ms = 500
    async with site(personas=("status_widget",), start_delay_ms=delay_ms) as sim, chat(browser, sim) as page:
        await page.evaluate(TIMELINE_JS)
        await send(page, "widget test")
        widget = page.locator("#messages > div.run-status[role=status]")
        await widget.wait_for(state="attached")
        assert await widget.inner_html() == (
            '<span class="dot" aria-hidden="true"></span><span class="label">Stop</span>'
        )
        await runs_ended(page, 1)
        log = await timeline(page)
        shown = log.first("widget:true")  # at send: before the request went out
        assert shown < log.first("turn:true")
        for what in ("turn:true", "stop:true", "state:generating"):  # nothing else during the delay
            assert log.first(what) - shown >= delay_ms / 1000 - 0.005, what
        assert log.last("widget:false") >= log.first("turn:true") and await widget.count() == 0  # gone at run end
        assert await last_answer(page) == expected(sim, "widget test")
        # a click on the widget stops the run, during the delay too
        sim.set_personas(("status_widget",), start_delay_ms=30_000)
        await send(page, "stop me")
        await widget.wait_for()
        await until(lambda: sim.stats()["active_generations"] == 1, "the run to be admitted")
        await widget.click()
        await runs_ended(page, 2)
        assert await page.evaluate("document.body.dataset.lastStatus") == "stopped"
        g = sim.stats()["generations"][-1]
        assert (g["status"], g["tokens_sent"]) == ("stopped", 0)
        assert await page.locator(".msg.assistant").count() == 1 and await widget.count() == 0


async def test_late_render_goes_idle_then_renders_the_whole_turn(browser: Browser) -> None:
    delay_ms = 600
    async with site(personas=("late_render",), render_delay_ms=delay_ms) as sim, chat(browser, sim) as page:
        await page.evaluate(TIMELINE_JS)
        await send(page, "late test")
        await runs_ended(page, 1)
        log = await timeline(page)
        g = sim.stats()["generations"][-1]
        assert g["status"] == "completed" and g["tokens_sent"] == 8
        turn = log.first("turn:true")
        assert log.first("state:generating") < log.last("state:idle") < turn <= log.first("ended:1")
        assert log.first("stop:true") < log.last("stop:false") < turn  # idle before the turn showed
        assert turn >= g["ended"] + delay_ms / 1000 - 0.05  # not before the delay after the stream's end
        assert await last_answer(page) == expected(sim, "late test") == g["answer"]
        assert await page.locator(".msg.assistant").count() == 1


async def test_noise_traffic_while_the_page_is_open(browser: Browser) -> None:
    async with site(personas=("noise",), fixed_run_s=100) as sim, chat(browser, sim) as page:
        await until(lambda: sim.stats()["noise"]["polls"] >= 3, "three long polls", limit_s=20)
        await until(lambda: sim.stats()["noise"]["presence_sockets"] >= 3, "presence reconnects", limit_s=20)
        await send(page, "noisy")
        await runs_ended(page, 1)
        # at send (a beacon and a keepalive fetch) and every 300 ms of the >= 1 s run
        await until(lambda: sim.stats()["noise"]["beacons"] >= 4, "telemetry beacons", limit_s=20)
        assert await last_answer(page) == expected(sim, "noisy")
        assert sim.stats()["generations_started"] == 1
        before = sim.stats()["noise"]["polls"]
        await until(lambda: sim.stats()["noise"]["polls"] > before, "polling to go on", limit_s=20)


async def test_binary_transport_in_the_page_and_a_restart_mid_answer(browser: Browser) -> None:
    async with site(transport="binary_ws") as sim, chat(browser, sim) as page:
        port = sim.port
        await send(page, "binary page")
        await runs_ended(page, 1)
        assert await last_answer(page) == expected(sim, "binary page")
        await send(page, "[[sim:slow=300]] cut")
        await page.wait_for_function(
            "() => document.querySelectorAll('.msg.assistant .content')[1]?.textContent.length > 0", timeout=20_000
        )
        await asyncio.wait_for(sim.stop(), 15)  # safety net only
        await runs_ended(page, 2)
        assert await page.evaluate("document.body.dataset.lastStatus") == "error"
        assert sim.ledger()["generations"][-1]["status"] == "aborted"
        await sim.start()
        assert sim.port == port
        await page.reload()
        await page.wait_for_selector(".avatar")  # still logged in
        await send(page, "after restart")
        await runs_ended(page, 1)
        assert await last_answer(page) == expected(sim, "after restart")


async def test_code_header_and_css_bold_markup(browser: Browser) -> None:
    async with site(answer_style="markdown", personas=("code_header", "css_bold")) as sim, chat(browser, sim) as page:
        await send(page, "markup test")
        await runs_ended(page, 1)
        got = await page.evaluate("""() => {
            const c = document.querySelector('.msg.assistant .content');
            const block = c.querySelector('div.code-block');
            const style = (sel) => getComputedStyle(c.querySelector(sel));
            return {
              header: block.firstElementChild.outerHTML,
              pre: block.children[1].outerHTML.replace(/>[^]*$/, ">"),
              code: block.querySelector('pre > code').outerHTML.replace(/>[^]*$/, ">"),
              codeText: block.querySelector('pre > code').textContent,
              children: block.children.length,
              semibold: c.querySelector('span.font-semibold').textContent,
              italic: c.querySelector('span.italic').textContent,
              weight: style('span.font-semibold').fontWeight, fontStyle: style('span.italic').fontStyle,
              strongEm: c.querySelectorAll('strong, em').length,
            };
        }""")  # fmt: skip
        assert got["header"] == (
            '<div class="code-header"><span class="code-lang">python</span>'
            '<button type="button" class="copy">Copy</button></div>'
        )
        assert (got["pre"], got["code"], got["children"]) == ("<pre>", "<code>", 2)
        assert got["codeText"] == "def answer(x):\n    return x * 2  # 完毕"
        assert (got["semibold"], got["italic"]) == ("要点", "模拟")
        assert (got["weight"], got["fontStyle"], got["strongEm"]) == ("600", "italic", 0)
