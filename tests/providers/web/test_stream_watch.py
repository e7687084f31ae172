"""The stream watcher's rules as pure logic (fake page events): what is a stream, what ends it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from mediadesk.providers.web.stream_watch import StreamWatch, is_stream_response, ws_frame_kind


class Emitter:
    def __init__(self) -> None:
        self.handlers: dict[str, list[Callable[..., None]]] = {}

    def on(self, event: str, fn: Callable[..., None]) -> None:
        self.handlers.setdefault(event, []).append(fn)

    def emit(self, event: str, *args: Any) -> None:
        for fn in self.handlers.get(event, []):
            fn(*args)


PROMPT = "写一首关于秋天的诗\nin two lines, please"
#: What the page sends for PROMPT (JSON, as a chat page's fetch does): the request that carries it is ours.
BODY = ('{"prompt": "写一首关于秋天的诗\\nin two lines, please", "stream": true}').encode()


class FakeRequest:
    def __init__(self, url: str, resource_type: str = "fetch", failure: str | None = None,
                 body: bytes | None = BODY) -> None:
        self.url, self.resource_type, self.method, self.failure = url, resource_type, "POST", failure
        self.post_data_buffer = body


class FakeResponse:
    def __init__(self, request: FakeRequest, headers: dict[str, str]) -> None:
        self.request, self.headers = request, headers


class FakeSocket(Emitter):
    url = "ws://127.0.0.1/api/ws"


def test_what_counts_as_an_answer_stream() -> None:
    assert is_stream_response("fetch", {"content-type": "text/event-stream"})
    assert is_stream_response("eventsource", {})
    assert is_stream_response("fetch", {"content-type": "application/x-ndjson", "content-length": "10"})
    assert is_stream_response("xhr", {"content-type": "text/plain; charset=utf-8", "transfer-encoding": "chunked"})
    assert not is_stream_response("fetch", {"content-type": "application/json"})  # a save, a title
    assert not is_stream_response("fetch", {"content-type": "text/plain", "content-length": "12"})
    assert not is_stream_response("image", {"content-type": "text/event-stream"})
    assert is_stream_response("fetch", {"content-type": "application/connect+json"})  # Connect RPC frames (Kimi)
    assert is_stream_response("fetch", {"content-type": "application/grpc-web+proto"})
    assert not is_stream_response("fetch", {"content-type": "application/proto", "content-length": "12"})
    # chunked JSON is a stream only where the adapter's stream_url names the request (Gemini's StreamGenerate)
    assert not is_stream_response("xhr", {"content-type": "application/json", "transfer-encoding": "chunked"})
    assert is_stream_response("xhr", {"content-type": "application/json", "transfer-encoding": "chunked"},
                              declared=True)
    assert not is_stream_response("xhr", {"content-type": "application/json", "content-length": "80"}, declared=True)


@pytest.mark.parametrize(("frame", "kind"), [
    ('{"t": "ping", "rid": "x"}', "keepalive"), ("2", "keepalive"), ("3probe", "keepalive"), ("", "keepalive"),
    ('{"type": "heartbeat"}', "keepalive"),
    ('{"t": "token", "d": "hi"}', "content"), ("plain words", "unknown"), ('42["chat", {"content": "a"}]', "content"),
    (b"\x03\x00\x00\x00\x02\xff\xfe", "unknown"), ("data: {\"t\": \"done\"}", "terminal"),
    ('42["task_end", {"id": "7"}]', "terminal"), ('42["stream_start", {"id": "7"}]', "content"),
    ('42["ping"]', "keepalive"), ('{"event": "all_done"}', "terminal"),
    ('{"t": "done"}', "terminal"), ('{"done": true}', "terminal"), ("data: [DONE]", "terminal"),
    ('{"choices": [{"finish_reason": "stop"}]}', "terminal"), ('42["chat", {"data": {"done": true}}]', "terminal"),
    ('{"type": "response.completed"}', "terminal"), (b'{"event": "end"}', "terminal"),
    ('{"choices": [{"finish_reason": "tool_calls"}]}', "content"),
])  # fmt: skip
def test_websocket_frames(frame: str | bytes, kind: str) -> None:
    assert ws_frame_kind(frame) == kind


def test_http_stream_open_then_ended_only_when_armed() -> None:
    page = Emitter()
    watch = StreamWatch(page)
    states: list[str] = []
    before = FakeRequest("http://x/api/old")
    page.emit("request", before)  # not armed: not this run's
    watch.arm(states.append, prompt=PROMPT)
    page.emit("response", FakeResponse(before, {"content-type": "text/event-stream"}))
    assert watch.state == "none"
    title = FakeRequest("http://x/api/title")
    page.emit("request", title)
    page.emit("response", FakeResponse(title, {"content-type": "application/json", "content-length": "9"}))
    page.emit("requestfinished", title)
    assert watch.state == "none"
    a, b = FakeRequest("http://x/api/a"), FakeRequest("http://x/api/b", failure="net::ERR_ABORTED")
    for r in (a, b):
        page.emit("request", r)
        page.emit("response", FakeResponse(r, {"content-type": "text/event-stream"}))
    assert watch.news() == {"state": "open", "urls": {"http://x/api/a": 1, "http://x/api/b": 1}, "ws": False}
    page.emit("requestfinished", a)
    assert watch.state == "open"  # one of two still runs
    # The page is told of every change of the open set, not only of the state: it counts the ends it
    # sees itself against these URLs, and the end of one must never pass for the end of both.
    assert watch.news()["urls"] == {"http://x/api/b": 1}
    page.emit("requestfailed", b)  # a page that closed its EventSource: ended all the same
    assert states == ["open", "open", "open", "ended"]
    assert any("failed (net::ERR_ABORTED)" in e for e in watch.events)
    watch.disarm()
    assert watch.state == "none" and watch.events == []


async def test_websocket_content_end_frame_keepalives_and_quiet() -> None:
    page = Emitter()
    watch = StreamWatch(page, ws_quiet_s=0.05)
    ws = FakeSocket()
    page.emit("websocket", ws)  # opened at page load, before the run
    changed = asyncio.Event()
    states: list[str] = []

    def on_change(state: str) -> None:
        states.append(state)
        changed.set()

    watch.arm(on_change, prompt=PROMPT)
    ws.emit("framereceived", '{"t": "ping"}')
    assert watch.state == "none"
    ws.emit("framereceived", '{"t": "token", "d": "a"}')
    assert watch.state == "none"  # content before our prompt went out on this socket is not ours
    ws.emit("framesent", '{"t": "generate", "prompt": "写一首关于秋天的诗\\nin two lines, please"}')
    assert watch.state == "none"  # what the page sends is not the answer
    ws.emit("framereceived", '{"t": "token", "d": "a"}')
    assert watch.state == "open"
    ws.emit("framereceived", '{"t": "done"}')
    assert states == ["open", "ended"]
    assert watch.news() == {"state": "ended", "urls": {}, "ws": False}
    # A follow-up after the end frame (a title) reopens it only until such frames stop: ended again.
    ws.emit("framereceived", '{"t": "title", "d": "a chat"}')
    assert watch.state == "open"
    changed.clear()
    async with asyncio.timeout(10):
        await changed.wait()
    assert watch.state == "ended"
    # Content without an end frame stops counting after ws_quiet_s: an unknown protocol must not hold the run.
    watch.arm(on_change, prompt=PROMPT)
    states.clear()
    ws.emit("framesent", '{"t": "generate", "prompt": "in two lines, please"}')
    ws.emit("framereceived", '{"t": "token", "d": "b"}')
    assert watch.state == "open"
    changed.clear()
    async with asyncio.timeout(10):
        await changed.wait()
    assert watch.state == "none" and states == ["open", "none"]
    # That socket's frames carry no end we recognise: its next answers go by the page rule at once.
    watch.arm(on_change, prompt=PROMPT)
    ws.emit("framesent", '{"t": "generate", "prompt": "in two lines, please"}')
    ws.emit("framereceived", '{"t": "token", "d": "c"}')
    assert watch.state == "none" and any("page rule" in e for e in watch.events)
    # The page's own socket (opened before the run) closing mid-answer is a cut, never an end.
    ws.emit("close", ws)
    assert watch.state == "cut" and watch.cut is not None and "mid-answer" in watch.cut


def test_news_counts_every_request_to_an_open_streams_url() -> None:
    """Two requests to one URL (a site that streams each answer part on the same endpoint): the page is
    told 2, so one Resource Timing entry for that URL is not yet the end."""
    page = Emitter()
    watch = StreamWatch(page)
    news: list[dict[str, object]] = []
    watch.arm(lambda _state: news.append(watch.news()), prompt=PROMPT)
    first, second = FakeRequest("http://x/api/chat"), FakeRequest("http://x/api/chat")
    page.emit("request", first)
    page.emit("response", FakeResponse(first, {"content-type": "text/event-stream"}))
    page.emit("request", second)
    page.emit("response", FakeResponse(second, {"content-type": "text/event-stream"}))
    page.emit("requestfinished", first)
    assert news[-1] == {"state": "open", "urls": {"http://x/api/chat": 2}, "ws": False}
    page.emit("requestfinished", second)
    assert news[-1]["state"] == "ended"


def test_only_the_stream_that_carries_our_prompt_counts() -> None:
    """A long-poll, telemetry and a presence socket beside the answer's stream: their ends never end the
    run and they never hold it; only the request that carries the prompt (or the adapter's stream_url) counts."""
    page = Emitter()
    watch = StreamWatch(page)
    states: list[str] = []
    watch.arm(states.append, prompt=PROMPT)
    poll = FakeRequest("http://x/api/poll", body=None)
    beacon = FakeRequest("http://x/api/telemetry", body=b'{"event": "typing"}')
    answer = FakeRequest("http://x/api/generate")
    presence = FakeSocket()
    page.emit("websocket", presence)
    for r in (poll, beacon, answer):
        page.emit("request", r)
        page.emit("response", FakeResponse(r, {"content-type": "text/event-stream"}))
    presence.emit("framereceived", '{"type": "presence", "done": true}')
    assert watch.state == "open" and watch.news()["urls"] == {"http://x/api/generate": 1}
    page.emit("requestfinished", poll)
    page.emit("requestfinished", beacon)
    presence.emit("close", presence)
    assert watch.state == "open" and states == ["open"]  # nothing of theirs ended ours
    page.emit("requestfinished", answer)
    assert watch.state == "ended"
    assert any("ignored GET /api/poll" in e or "ignored POST /api/poll" in e for e in watch.events)
    # The adapter's stream_url names the answer's stream even when its request does not carry the prompt.
    named = StreamWatch(Emitter(), stream_urls=("*/api/stream?*",))
    named.arm(None, prompt=PROMPT)
    assert named._ours(FakeRequest("http://x/api/stream?id=7", body=None))
    assert not named._ours(FakeRequest("http://x/api/poll", body=None))


def test_a_broken_stream_is_a_cut_and_an_open_one_lingers_into_the_next_run() -> None:
    page = Emitter()
    watch = StreamWatch(page)
    watch.arm(None, prompt=PROMPT)
    r = FakeRequest("http://x/api/generate", failure="net::ERR_INCOMPLETE_CHUNKED_ENCODING")
    page.emit("request", r)
    page.emit("response", FakeResponse(r, {"content-type": "application/x-ndjson"}))
    page.emit("requestfailed", r)
    assert watch.state == "cut" and "ERR_INCOMPLETE_CHUNKED_ENCODING" in (watch.cut or "")
    # A run that ended with its stream still open (stopped early): the next run waits for it.
    watch.arm(None, prompt=PROMPT)
    still = FakeRequest("http://x/api/generate")
    page.emit("request", still)
    page.emit("response", FakeResponse(still, {"content-type": "application/x-ndjson"}))
    watch.disarm()
    assert watch.lingering == ("/api/generate",)
    page.emit("requestfinished", still)
    assert watch.lingering == ()
    # A stream the page decided past (a channel the site keeps open) does not linger.
    watch.arm(None, prompt=PROMPT)
    channel = FakeRequest("http://x/api/generate")
    page.emit("request", channel)
    page.emit("response", FakeResponse(channel, {"content-type": "text/event-stream"}))
    watch.disarm(decided_past=True)
    assert watch.lingering == ()


def test_prompt_needles_match_what_pages_send() -> None:
    from mediadesk.providers.web.stream_watch import _carries, prompt_needles

    needles = prompt_needles('say "hi"\n第二行 🚀 with more words')
    assert _carries('{"messages":[{"content":"say \\"hi\\"\\n第二行 🚀 with more words"}]}', needles)
    assert _carries(b"\x01\x00\x00\x00\x20" + "第二行 🚀 with more words".encode(), needles)  # a binary frame
    assert _carries("q=%E7%AC%AC%E4%BA%8C%E8%A1%8C+%F0%9F%9A%80+with+more+words", needles)  # a form post
    assert not _carries('{"event": "typing"}', needles)
    assert prompt_needles("   ") == ()
