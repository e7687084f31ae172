"""Chat-site simulator: a real web site on 127.0.0.1 that a real Chromium uses like a chat site.

It enforces on the server the web lane's hard rule, ONE generation per account at a time, and counts every
breach on ``GET /stats`` so tests can prove the scheduler never breaks it; it also produces on demand the
failures a web run must survive (hangs, forced logouts, site errors, busy periods, killed browsers).
A run: ``POST /api/generate`` answers 401 (no session), 409 (another generation of this account), 429 (busy)
or 200 with NDJSON events (``start``, ``token``..., then one of ``done``/``stopped``/``error``, none on a hang,
``ping`` while idle); ``POST /api/stop`` stops a run. The switchable modes live in the ``_web_*`` modules.
``POST /admin/answers`` queues exact answers that the next generations give instead of their default ones
(:meth:`WebSimServer.queue_answers`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import hashlib
import html
import json
import math
import random
import re
import secrets
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from string import Template
from typing import TYPE_CHECKING, Any

from aiohttp import web

from mediadesk.sim._server import LocalServer
from mediadesk.sim._site_streams import SITE_STREAMS
from mediadesk.sim._web_capacity import (
    CHALLENGE_KINDS,
    CHALLENGE_MESSAGE,
    LIMIT_MESSAGE,
    MODEL_ERROR_MESSAGE,
    OUTAGE_MODES,
    CapacityModes,
)
from mediadesk.sim._web_page_modes import (
    PageModes,
    _check_page_modes,
    code_answer,
    code_tokens,
)
from mediadesk.sim._web_personas import PERSONAS, SITE_PERSONAS, PersonaSite, check_personas
from mediadesk.sim._web_transports import BINARY_OPS, Transports, decode_frame, encode_frame

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext

__all__ = [
    "ANSWER_STYLES",
    "BINARY_OPS",
    "CHALLENGE_KINDS",
    "CHALLENGE_MESSAGE",
    "CONCURRENT_MESSAGE",
    "DEFAULT_PORT",
    "LIMIT_MESSAGE",
    "MODEL_ERROR_MESSAGE",
    "OUTAGE_MODES",
    "PERSONAS",
    "SESSION_COOKIE",
    "SESSION_EXPIRED_MESSAGE",
    "SITE_ERROR_MESSAGE",
    "TRANSPORTS",
    "WebSimConfig",
    "WebSimServer",
    "add_arguments",
    "answer_tokens",
    "code_answer",
    "code_tokens",
    "config_from_args",
    "decode_frame",
    "deepseek_answer",
    "deepseek_thinking",
    "draw_run_seconds",
    "encode_frame",
    "login_context",
    "markdown_answer",
    "markdown_tokens",
    "parse_markers",
    "serve_from_args",
    "site_tokens",
]

DEFAULT_PORT = 8002
#: What a busy site says, with and without a stated wait (``{wait}``: whole seconds).
BUSY_MESSAGE_WAIT = "Too many requests: you've reached the limit for now. Please try again in {wait} seconds."
BUSY_MESSAGE = "Another response is already being generated for this account. Please wait until it finishes."
BUSY_STYLES = ("banner", "error", "answer")
SESSION_COOKIE = "simchat_session"
CONCURRENT_MESSAGE = "another generation is in progress"
SESSION_EXPIRED_MESSAGE = "session expired"
SITE_ERROR_MESSAGE = "something went wrong, please retry (site error)"
#: How often an idle stream checks whether the client is still there.
_POLL_S = 0.05

#: ``WebSimConfig.answer_style`` values.
ANSWER_STYLES = ("text", "markdown")
#: ``WebSimConfig.transport`` values: how the page receives the answer stream.
TRANSPORTS = ("ndjson", "sse", "websocket", "binary_ws")

_MARKER = re.compile(r"\[\[sim:(hang|logout|error|slow=(\d+(?:\.\d+)?))\]\]")
_VOCAB = (
    " 模拟", "内容", "，", " streaming", " token", " 👩‍💻", " ✨", "测试", "答案", " 第二段",
    "。", " 🚀", " données", " 数据", " 🎉", " naïve", "：", " 结论", " 中文", " 👍",
)  # fmt: skip


@dataclass
class WebSimConfig:
    """Behaviour knobs. ``time_scale`` multiplies every run time (tests use 0.005–0.02)."""

    time_scale: float = 1.0
    #: Every run takes exactly ``fixed_run_s * time_scale`` (benchmarks); None = draw from the distribution.
    fixed_run_s: float | None = None
    #: Tokens per full answer (at least 5: a fixed head and tail).
    answer_tokens: int = 40
    hang_rate: float = 0.0
    logout_rate: float = 0.0
    error_rate: float = 0.0
    seed: int | None = None
    #: If set, only this password logs in; otherwise any non-empty password does.
    password: str | None = None
    # Run-time distribution, shaped like measured web runs.
    run_median_s: float = 90.0
    run_sigma: float = 0.6
    run_min_s: float = 31.0
    run_max_s: float = 370.0
    #: A ping line is written when a stream was silent this long (real seconds, not scaled).
    keepalive_s: float = 0.5
    #: The login is a SESSION cookie (no Expires/Max-Age), as on many real sites: a browser drops it
    #: whenever it closes. False: a persistent ("remember me") cookie that survives a restart.
    session_cookie: bool = False
    #: A logged-out visit to the chat page is redirected to the login form (as most real sites do)
    #: instead of showing the "not logged in" page.
    login_redirect: bool = False
    #: "text": the answer is plain text appended token by token. "markdown": the answer is a Markdown
    #: document the page renders to HTML as it streams (bold, list, fenced code with a copy button and
    #: an SVG icon, framework comments), like real chat sites.
    answer_style: str = "text"
    #: How the page receives the answer: "ndjson" (a chunked fetch of NDJSON lines), "sse" (a fetch of
    #: ``text/event-stream``, ``data:`` events), "websocket" (JSON frames on a socket the page opens at
    #: load and keeps) or "binary_ws" (binary frames on such a socket). The events are the same in all.
    transport: str = "ndjson"
    #: A pause of this many REAL seconds (not scaled) in the middle of every answer, the stream kept
    #: open (keep-alives only), as a model that thinks mid-answer does. 0: none.
    pause_mid_s: float = 0.0
    #: Page modes (see ``_web_page_modes``): None | "escape" | "sticky".
    overlay: str | None = None
    send_block_ms: int = 0
    #: "pre" (the default code block) | "codemirror" | "lines"; not "pre": answers are ``code_answer``.
    code_widget: str = "pre"
    #: Personas (see ``_web_personas``), names of :data:`PERSONAS` or ``SITE_PERSONAS`` (``deepseek``...); a list
    #: is taken as a tuple.
    personas: tuple[str, ...] = ()
    #: REAL milliseconds (not scaled) between a run's admission and its ``start`` event (any persona;
    #: with ``status_widget`` the page shows only its status widget meanwhile).
    start_delay_ms: int = 0
    #: ``late_render``: REAL milliseconds between the stream's end and the page rendering the turn.
    render_delay_ms: int = 0

    def __post_init__(self) -> None:
        if self.time_scale <= 0:
            raise ValueError("time_scale must be > 0")
        if self.answer_tokens < 1:
            raise ValueError("answer_tokens must be >= 1")
        rates = (self.hang_rate, self.logout_rate, self.error_rate)
        if any(not 0.0 <= r <= 1.0 for r in rates) or sum(rates) > 1.0:
            raise ValueError("fault rates must be in [0, 1] and sum to at most 1")
        if self.answer_style not in ANSWER_STYLES:
            raise ValueError(f"answer_style must be one of {', '.join(ANSWER_STYLES)}")
        if self.transport not in TRANSPORTS:
            raise ValueError(f"transport must be one of {', '.join(TRANSPORTS)}")
        if not 0.0 <= self.pause_mid_s < math.inf:
            raise ValueError("pause_mid_s must be >= 0")
        _check_page_modes(self.overlay, self.send_block_ms, self.code_widget)
        self.personas = check_personas(self.personas, self.start_delay_ms, self.render_delay_ms, self.answer_style)


@dataclass(frozen=True)
class Markers:
    """Faults requested by ``[[sim:...]]`` markers in a prompt."""

    fault: str | None = None  # "hang" | "logout" | "error"
    slow_s: float | None = None


def parse_markers(prompt: str) -> Markers:
    """Read ``[[sim:hang]]``, ``[[sim:logout]]``, ``[[sim:error]]``, ``[[sim:slow=SECONDS]]``."""
    fault: str | None = None
    slow: float | None = None
    for m in _MARKER.finditer(prompt):
        if m.group(2) is not None:
            slow = float(m.group(2))
        elif fault is None:
            fault = m.group(1)
    return Markers(fault, slow)


def answer_tokens(prompt: str, n: int) -> list[str]:
    """The deterministic answer to ``prompt`` as ``max(n, 5)`` tokens, with Chinese and emoji.

    The joined text has no leading/trailing whitespace and no whitespace runs, so what a browser
    shows can be compared to what the server sent without any normalising.
    """
    shown = " ".join(prompt.split())
    if len(shown) > 40:
        shown = shown[:40] + "…"
    head = ["好的，", "这是对「", shown or "…", "」的回答 🚀"]
    tail = [" 完毕 ✅"]
    digest = hashlib.sha256(prompt.encode("utf-8")).digest()
    body = [_VOCAB[(digest[i % len(digest)] + i) % len(_VOCAB)] for i in range(n - len(head) - len(tail))]
    return head + body + tail


def _echo(prompt: str) -> str:
    """The prompt as an answer quotes it: one line, at most 40 characters, no Markdown syntax of the user's."""
    shown = " ".join(prompt.split())
    if len(shown) > 40:
        shown = shown[:40] + "…"
    return re.sub(r"[\\`*_\[\]<>#|~-]", "", shown) or "…"


def markdown_answer(prompt: str) -> str:
    """The deterministic Markdown answer of ``answer_style = "markdown"``: a paragraph with bold and
    italics, a list with inline code, a fenced code block with its language, a closing paragraph.

    Written in the canonical form an HTML-to-Markdown converter gives back (``-`` bullets, ``**``/``*``,
    blank lines between blocks), so a test can compare what it read from the page to this text."""
    shown = _echo(prompt)
    return (
        f"好的，这是对「{shown}」的回答 🚀\n\n"
        "**要点**：*模拟* 内容 streaming\n\n"
        "- 第一项 ✨\n"
        "- 第二项 `token`\n"
        "- third item 👍\n\n"
        "```python\n"
        "def answer(x):\n"
        "    return x * 2  # 完毕\n"
        "```\n\n"
        "完毕 ✅"
    )


def deepseek_answer(prompt: str) -> str:
    """The deterministic answer of the site personas (``deepseek``, ``claude``...), Markdown as a model
    writes it (not the form an HTML-to-Markdown converter gives back): a heading, a table with aligned
    columns, an ordered list with ``*`` sub-items, a fenced code block with its language, a closing line. A
    page that renders it to HTML loses these marks; only the stream carries them."""
    shown = _echo(prompt)
    return (
        f"好的，这是对「{shown}」的回答 🚀\n\n"
        "### 对比\n\n"
        "| 项目 | 数值 | 说明 |\n"
        "|:-----|-----:|:----:|\n"
        "| alpha | 1 | **粗体** |\n"
        "| beta | 22 | `code` |\n\n"
        "1. 第一步\n"
        "   * 子项 a\n"
        "   * 子项 b 👍\n"
        "2. 第二步 *streaming*\n\n"
        "```python\n"
        "def answer(x):\n"
        "    return x * 2  # 完毕\n"
        "```\n\n"
        "完毕 ✅"
    )


def deepseek_thinking(prompt: str) -> str:
    """The thinking a site persona streams (and shows) before its answer."""
    shown = " ".join(prompt.split())[:40] or "…"
    return (f"嗯，用户问的是「{shown}」。我先想想：一张表、一个嵌套列表和一段代码。\n\n"
            "Let me check the table's columns once more. 好，开始回答。")


def site_tokens(prompt: str, *, plain: bool = False) -> tuple[list[str], list[str]]:
    """(thinking pieces, answer pieces) of a site persona; ``plain`` (``ds_plain``): the answer
    is :func:`markdown_answer`."""
    answer = markdown_answer(prompt) if plain else deepseek_answer(prompt)
    return text_pieces(deepseek_thinking(prompt)), text_pieces(answer)


def markdown_tokens(prompt: str) -> list[str]:
    """:func:`markdown_answer` cut into streamed pieces (words with their following whitespace), so the
    page re-renders half-written Markdown as it arrives, as real sites do."""
    return text_pieces(markdown_answer(prompt))


def text_pieces(text: str) -> list[str]:
    """``text`` cut into streamed pieces: words with their following whitespace (joined: ``text`` exactly)."""
    return re.findall(r"\S+\s*|\s+", text)


def draw_run_seconds(config: WebSimConfig, rng: random.Random) -> float:
    """Nominal (unscaled) run time: fixed, or a clipped log-normal like real web runs."""
    if config.fixed_run_s is not None:
        return config.fixed_run_s
    s = rng.lognormvariate(math.log(config.run_median_s), config.run_sigma)
    return min(max(s, config.run_min_s), config.run_max_s)


class _Disconnected(Exception):
    """The browser went away mid-stream (write failed or the connection is closed)."""


def _client_gone(request: web.Request | None) -> bool:
    transport = None if request is None else request.transport
    return transport is None or transport.is_closing()


@dataclass
class _Generation:
    id: str
    request_id: str
    account: str
    conversation_id: str
    prompt: str
    fault: str | None
    run_s: float
    started: float
    status: str = "running"  # running|hung while active; then completed|stopped|error|disconnected|aborted
    ended: float | None = None
    error: str | None = None
    parts: list[str] = field(default_factory=list)
    #: The thinking streamed before the answer (a site persona), kept apart from ``parts``.
    thinking: list[str] = field(default_factory=list)
    stop_event: asyncio.Event = field(default_factory=asyncio.Event)
    stop_reason: str | None = None  # "stop" | "shutdown"
    last_write: float = 0.0
    request: web.Request | None = None
    #: The text typed in the box. ``prompt`` is what the model answers: the text of the file attached to the
    #: request when one came (the ``paste_limit`` persona), else this text.
    typed: str = ""

    def request_stop(self, reason: str) -> None:
        if self.stop_reason is None:
            self.stop_reason = reason
        self.stop_event.set()

    def record(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "request_id": self.request_id,
            "account": self.account,
            "conversation_id": self.conversation_id,
            "prompt": self.prompt,
            "typed": self.typed,
            "answer": "".join(self.parts),
            "thinking": "".join(self.thinking),
            "tokens_sent": len(self.parts),
            "status": self.status,
            "fault": self.fault,
            "error": self.error,
            "run_s": self.run_s,
            "started": self.started,
            "ended": self.ended,
        }


def _asset(name: str) -> str:
    return resources.files("mediadesk.sim").joinpath("web_assets", name).read_text(encoding="utf-8")


class WebSimServer(LocalServer):
    """The chat site. ``async with WebSimServer(WebSimConfig(time_scale=0.01)) as sim: ...``."""

    def __init__(self, config: WebSimConfig | None = None, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(host, port)
        self.config = config or WebSimConfig()
        self._sessions: dict[str, str] = {}  # token -> account
        self._active: dict[str, list[_Generation]] = {}  # account -> admitted, not yet ended
        self._pending_stops: set[str] = set()  # stop requests that raced ahead of their run
        seed = self.config.seed
        self._fault_rng = random.Random(None if seed is None else f"{seed}:faults")
        self._time_rng = random.Random(None if seed is None else f"{seed}:times")
        self._assets = {n: _asset(n) for n in ("chat.html", "login.html", "logged_out.html", "chat.js", "chat.css")}
        self._busy: dict[str | None, _BusyWindow] = {}  # account (None: every account) -> busy period
        self._assets["markdown.js"] = _asset("markdown.js")
        self._capacity = CapacityModes(account_of=self._account, cut_streams=self._cut_streams,
                                       close_port=self._close_port, open_port=self.open_listener)
        self._page_modes = PageModes(lambda: self.config, self._account, self._page)
        # The modes' switches, as the server's own (tests, benches and the CLI call them here).
        self.set_outage = self._capacity.set_outage
        self.set_challenge = self._capacity.set_challenge
        self.set_limit = self._capacity.set_limit
        self.set_model_error = self._capacity.set_model_error
        self.set_page_modes = self._page_modes.set_page_modes
        self._transports = Transports(lambda: f"{self.base_url}/api/generate", SESSION_COOKIE,
                                      lambda: self.config.personas)
        self._assets["plain.html"] = _asset("plain.html")
        self._assets["personas.js"] = _asset("personas.js")
        self._assets["sites.js"] = _asset("sites.js")
        self._personas = PersonaSite(lambda: self.config, lambda: self._stopping, TRANSPORTS)
        # The ledger: every generation and violation since this object was made (never reset).
        self._ledger_generations: list[_Generation] = []
        self._ledger_violations: list[dict[str, Any]] = []
        self._ledger_max_concurrent = 0
        self._answers: deque[str] = deque()  # queue_answers: exact answers of the next generations
        self.reset_stats()

    # ----------------------------------------------------------------------------- lifecycle
    def _routes(self) -> list[web.RouteDef]:
        return [
            web.get("/", self._h_root),
            web.get("/login", self._h_login_form),
            web.post("/login", self._h_login),
            web.get("/logout", self._h_logout),
            web.get("/chat", self._h_chat),
            web.get("/static/{name}", self._h_static),
            web.post("/api/generate", self._h_generate),
            web.post("/api/generate/sse", self._transports.generate_sse),
            *(web.post(site.route, functools.partial(self._transports.site_stream, site))
              for site in SITE_STREAMS.values()),
            web.get("/api/ws", self._transports.websocket),
            web.get("/api/wsb", self._transports.websocket_binary),
            web.post("/api/stop", self._h_stop),
            web.get("/stats", self._h_stats),
            web.post("/stats/reset", self._h_stats_reset),
            web.post("/admin/logout", self._h_admin_logout),
            web.get("/admin/answers", self._h_admin_answers),
            web.post("/admin/answers", self._h_admin_answers),
            web.get("/admin/busy", self._h_admin_busy),
            web.post("/admin/busy", self._h_admin_busy),
            *self._page_modes.routes(),
            *self._capacity.routes(),
            *self._personas.routes(),
        ]

    def _middlewares(self) -> list[Any]:
        return [self._capacity.outage_middleware]

    def _before_stop(self) -> None:
        """Active (even hung) streams are ended ("aborted"; a hung one stays "hung") and their handlers
        woken before the runner is cleaned up."""
        for gens in self._active.values():
            for gen in list(gens):
                gen.request_stop("shutdown")
                self._end(gen, "hung" if gen.status == "hung" else "aborted", "shutdown")

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def chat_url(self) -> str:
        return f"{self.base_url}/chat"

    @property
    def login_url(self) -> str:
        return f"{self.base_url}/login"

    # ----------------------------------------------------------------------------- stats / admin
    def reset_stats(self) -> None:
        self._stats: dict[str, Any] = {
            "generations_started": 0,
            "generations_completed": 0,
            "concurrent_violations": 0,
            "violations_per_account": {},
            "max_concurrent_per_session": 0,
            "stopped": 0,
            "client_disconnects": 0,
            "errors": 0,
            "session_expirations": 0,
            "logins": 0,
            "login_failures": 0,
        }
        self._personas.reset_counts()
        self._generations: list[_Generation] = []
        self._violations: list[dict[str, Any]] = []
        self._busy_log: list[dict[str, Any]] = []

    def stats(self) -> dict[str, Any]:
        """A JSON-able snapshot (the same as ``GET /stats``)."""
        out = json.loads(json.dumps(self._stats))
        out["active_generations"] = sum(len(g) for g in self._active.values())
        out["generations"] = [g.record() for g in self._generations]
        out["violations"] = list(self._violations)
        out.update(self._busy_stats())
        out.update(self._capacity.stats())
        out["noise"] = dict(self._personas.counts)
        return out

    def ledger(self) -> dict[str, Any]:
        """Every generation (its :meth:`_Generation.record`) and every concurrency violation since this
        server object was made, and the most generations one account ever had at once. Unlike
        :meth:`stats`, never cleared (not by :meth:`reset_stats`, not by a stop and start): what a test
        fixture checks its invariants on."""
        return {
            "generations": [g.record() for g in self._ledger_generations],
            "violations": [dict(v) for v in self._ledger_violations],
            "max_concurrent_per_session": self._ledger_max_concurrent,
        }

    def set_personas(
        self,
        personas: Iterable[str] | str = (),
        *,
        start_delay_ms: int | None = None,
        render_delay_ms: int | None = None,
        transport: str | None = None,
    ) -> None:
        """Replace the personas (:data:`PERSONAS`; a string: names separated by commas) of later page
        loads; a delay or ``transport`` given is set too (None: left as it is). Same as
        ``POST /admin/persona``. ValueError (and nothing changed) for a bad value."""
        names = personas if isinstance(personas, str) else tuple(personas)
        self._personas.set(names, start_delay_ms=start_delay_ms, render_delay_ms=render_delay_ms,
                           transport=transport)  # fmt: skip

    def queue_answers(self, answers: Iterable[str]) -> int:
        """Queue exact answers: each next generation (any account, any persona) streams the first one queued,
        byte for byte, instead of its default answer (cut into pieces as the default ones are; a thinking
        persona still thinks first), until the queue is empty; then the default answers again. A run refused
        before it starts (busy, another generation...) takes none. Same as ``POST /admin/answers``
        ``{"answers": [...]}``. Returns how many are queued; ValueError (and nothing queued) for an answer
        that is not a non-empty string."""
        items = list(answers)
        if bad := [a for a in items if not isinstance(a, str) or not a.strip()]:
            raise ValueError(f"answers must be non-empty strings, got {bad[0]!r}")
        self._answers.extend(items)
        return len(self._answers)

    def logout(self, account: str) -> int:
        """Invalidate every session of ``account`` (as a site does when it logs a user out)."""
        tokens = [t for t, a in self._sessions.items() if a == account]
        for t in tokens:
            del self._sessions[t]
        return len(tokens)

    # ----------------------------------------------------------------------------- pages
    def _account(self, request: web.Request) -> str | None:
        token = request.cookies.get(SESSION_COOKIE)
        return self._sessions.get(token) if token else None

    def _page(self, name: str, status: int = 200, **values: str) -> web.Response:
        text = Template(self._assets[name]).safe_substitute(values)
        return web.Response(
            text=text, status=status, content_type="text/html", charset="utf-8",
            headers={"Cache-Control": "no-store"},
        )  # fmt: skip

    async def _h_root(self, request: web.Request) -> web.Response:
        return web.Response(status=303, headers={"Location": "/chat"})

    async def _h_login_form(self, request: web.Request) -> web.Response:
        return self._page("login.html", error="")

    async def _h_login(self, request: web.Request) -> web.Response:
        form = await request.post()
        account = str(form.get("account", "")).strip()[:64]
        password = str(form.get("password", ""))
        if not account or not password:
            self._stats["login_failures"] += 1
            return self._page("login.html", 400, error='<p class="login-error">Account and password required.</p>')
        if self.config.password is not None and not secrets.compare_digest(password, self.config.password):
            self._stats["login_failures"] += 1
            return self._page("login.html", 401, error='<p class="login-error">Wrong password.</p>')
        token = secrets.token_urlsafe(24)
        self._sessions[token] = account
        self._stats["logins"] += 1
        resp = web.Response(status=303, headers={"Location": "/chat"})
        # A persistent ("remember me") cookie by default: the login survives a browser restart. With
        # ``session_cookie`` no Expires/Max-Age: the browser keeps it only while it runs.
        max_age = None if self.config.session_cookie else 30 * 86400
        resp.set_cookie(SESSION_COOKIE, token, httponly=True, samesite="Lax", path="/", max_age=max_age)
        return resp

    async def _h_logout(self, request: web.Request) -> web.Response:
        token = request.cookies.get(SESSION_COOKIE)
        if token:
            self._sessions.pop(token, None)
        resp = web.Response(status=303, headers={"Location": "/login"})
        resp.del_cookie(SESSION_COOKIE, path="/")
        return resp

    async def _h_chat(self, request: web.Request) -> web.Response:
        account = self._account(request)
        if (challenge := self._capacity.challenge_page(account)) is not None:
            return challenge
        if account is None:
            if self.config.login_redirect:
                return web.Response(status=303, headers={"Location": "/login"})
            return self._page("logged_out.html")
        return self._page("chat.html", 200, account=html.escape(account, quote=True),
                          answer_style=self.config.answer_style, transport=self.config.transport,
                          **self._page_modes.page_values(request), **self._personas.page_values())

    async def _h_static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        types = {"chat.js": "application/javascript", "chat.css": "text/css", "markdown.js": "application/javascript",
                 "personas.js": "application/javascript", "sites.js": "application/javascript"}  # fmt: skip
        if name not in types:
            raise web.HTTPNotFound()
        return web.Response(text=self._assets[name], content_type=types[name], charset="utf-8")

    async def _h_stats(self, request: web.Request) -> web.Response:
        return web.json_response(self.stats(), dumps=lambda o: json.dumps(o, ensure_ascii=False))

    async def _h_stats_reset(self, request: web.Request) -> web.Response:
        self.reset_stats()
        return web.json_response({"reset": True})

    async def _h_admin_logout(self, request: web.Request) -> web.Response:
        account = request.query.get("account", "")
        if not account:
            return web.json_response({"error": "account required"}, status=400)
        return web.json_response({"account": account, "sessions_invalidated": self.logout(account)})

    async def _h_admin_answers(self, request: web.Request) -> web.Response:
        """``POST {"answers": ["...", ...]}``: :meth:`queue_answers`; both: how many are queued."""
        if request.method == "POST":
            try:
                body = await request.json()
                if not isinstance(body, dict) or set(body) != {"answers"} or not isinstance(body["answers"], list):
                    raise ValueError('the body must be {"answers": [...]}')
                self.queue_answers(body["answers"])
            except ValueError as exc:
                return web.json_response({"error": str(exc)}, status=400)
        return web.json_response({"queued": len(self._answers)})

    # ----------------------------------------------------------------------------- busy periods
    def set_busy(
        self,
        seconds: float,
        *,
        wait_s: float | str | None = None,
        account: str | None = None,
        style: str = "banner",
        message: str | None = None,
    ) -> None:
        """Make ``account`` (None: every account) busy for ``seconds`` from now; 0 ends it. A send
        meanwhile is refused with ``message`` (default: :data:`BUSY_MESSAGE_WAIT` when a wait is
        stated, else :data:`BUSY_MESSAGE`; ``{wait}`` in it is replaced by the stated wait).
        ``wait_s``: the wait the notice states, in seconds, ``"remaining"`` (what is left of the
        period, rounded up), or None for none. ``style``: how the page shows it (``BUSY_STYLES``): a
        429 ``{"error": "busy", "message", "style", "retry_after_s"}`` shown as a banner or an error
        message, or (``"answer"``) the notice streamed as the answer. Refusals count on ``/stats``."""
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 <= seconds < math.inf:
            raise ValueError(f"seconds must be a number >= 0, got {seconds!r}")
        if style not in BUSY_STYLES:
            raise ValueError(f"style must be one of {', '.join(BUSY_STYLES)}, got {style!r}")
        if wait_s is not None and wait_s != "remaining" and (
            isinstance(wait_s, bool) or not isinstance(wait_s, int | float) or not 0 < wait_s < math.inf
        ):
            raise ValueError(f"wait_s must be a number > 0, \"remaining\" or null, got {wait_s!r}")
        if account is not None and not isinstance(account, str):
            raise ValueError(f"account must be a string or null, got {account!r}")
        if message is not None and (not isinstance(message, str) or not message.strip()):
            raise ValueError(f"message must be a non-empty string or null, got {message!r}")
        if seconds == 0:
            self._busy.pop(account, None)
            return
        self._busy[account] = _BusyWindow(time.monotonic() + seconds, wait_s, style, message)

    def _busy_window(self, account: str) -> _BusyWindow | None:
        now = time.monotonic()
        for key in (account, None):
            window = self._busy.get(key)
            if window is not None:
                if now < window.until:
                    return window
                del self._busy[key]
        return None

    def _busy_stats(self) -> dict[str, Any]:
        per: dict[str, int] = {}
        for r in self._busy_log:
            per[r["account"]] = per.get(r["account"], 0) + 1
        now = time.monotonic()
        return {
            "busy_refusals": len(self._busy_log),
            "busy_refusals_per_account": per,
            "busy_log": [dict(r) for r in self._busy_log],
            "busy": {
                ("*" if k is None else k): round(w.until - now, 3) for k, w in self._busy.items() if now < w.until
            },
        }

    async def _refuse_busy(
        self, request: web.Request, account: str, prompt: str, window: _BusyWindow
    ) -> web.StreamResponse:
        message, wait = _busy_message(window, time.monotonic())
        self._busy_log.append({"account": account, "at": time.time(), "style": window.style, "prompt": prompt,
                               "message": message, "wait_s": wait})  # fmt: skip
        if window.style != "answer":
            headers = {"Retry-After": f"{math.ceil(wait)}"} if wait is not None else {}
            body = {"error": "busy", "message": message, "style": window.style, "retry_after_s": wait}
            return web.json_response(
                body, status=429, headers=headers, dumps=lambda o: json.dumps(o, ensure_ascii=False)
            )
        # Some sites answer with the notice itself, as if the assistant said it.
        resp = web.StreamResponse(headers={"Content-Type": "application/x-ndjson; charset=utf-8",
                                           "Cache-Control": "no-store"})  # fmt: skip
        await resp.prepare(request)
        with contextlib.suppress(ConnectionError):
            for event in ({"t": "start", "id": "busy-" + secrets.token_hex(4)}, {"t": "token", "d": message},
                          {"t": "done"}):  # fmt: skip
                await resp.write((json.dumps(event, ensure_ascii=False) + "\n").encode("utf-8"))
            await resp.write_eof()
        return resp

    async def _h_admin_busy(self, request: web.Request) -> web.Response:
        """``POST {"seconds", "wait_s", "account", "style", "message"}``: :meth:`set_busy`; both: the
        busy periods in force (seconds left per account, ``"*"`` = every account) and the counts."""
        if request.method == "POST":
            try:
                self.set_busy(**_busy_args(await request.json()))
            except (ValueError, TypeError) as exc:
                return web.json_response({"error": str(exc)}, status=400)
        st = self._busy_stats()
        return web.json_response({k: st[k] for k in ("busy", "busy_refusals", "busy_refusals_per_account")})

    # ----------------------------------------------------------------------------- generation
    async def _h_stop(self, request: web.Request) -> web.Response:
        try:
            body = await request.json()
            request_id = str(body["request_id"])
        except (ValueError, KeyError, TypeError):
            return web.json_response({"error": "request_id required"}, status=400)
        for gens in self._active.values():
            for gen in gens:
                if gen.request_id == request_id:
                    gen.request_stop("stop")
                    return web.json_response({"stopped": True})
        if len(self._pending_stops) < 1000:
            self._pending_stops.add(request_id)  # the stop overtook its run; honoured on admission
        return web.json_response({"stopped": False})

    async def _h_generate(self, request: web.Request) -> web.StreamResponse:
        if self._stopping:
            return web.json_response({"error": "shutting_down", "message": "server shutting down"}, status=503)
        account = self._account(request)
        if account is None:
            self._stats["session_expirations"] += 1
            return web.json_response({"error": "session_expired", "message": SESSION_EXPIRED_MESSAGE}, status=401)
        try:
            body = await request.json()
            prompt = body["prompt"]
        except (ValueError, KeyError, TypeError):
            return web.json_response({"error": "bad_request", "message": "prompt required"}, status=400)
        if not isinstance(prompt, str) or not prompt.strip():
            return web.json_response({"error": "bad_request", "message": "prompt required"}, status=400)
        typed = prompt
        if isinstance(attached := body.get("attachment"), str) and attached:  # a file's text came with it
            prompt = attached  # (the paste_limit persona): the model answers the file, received in full
        if (refused := self._capacity.refusal(account)) is not None:  # challenge, usage limit, model error
            return refused
        if (busy := self._busy_window(account)) is not None:  # refused before any generation starts
            return await self._refuse_busy(request, account, prompt, busy)
        # Server-side one-generation-per-session rule: check and admit with no await in between.
        active = self._active.setdefault(account, [])
        for old in list(active):
            if _client_gone(old.request):  # closed but its handler has not polled yet: it has ended
                self._end(old, "disconnected")
        if active:
            self._stats["concurrent_violations"] += 1
            per = self._stats["violations_per_account"]
            per[account] = per.get(account, 0) + 1
            violation = {"account": account, "prompt": prompt, "at": time.time()}
            self._violations.append(violation)
            self._ledger_violations.append(violation)
            return web.json_response({"error": "concurrent_generation", "message": CONCURRENT_MESSAGE}, status=409)
        gen = self._admit(account, prompt, str(body.get("request_id") or secrets.token_hex(8)), body)
        gen.request, gen.typed = request, typed
        resp = web.StreamResponse(
            headers={"Content-Type": "application/x-ndjson; charset=utf-8", "Cache-Control": "no-store",
                     "X-Generation-Id": gen.id},
        )  # fmt: skip
        try:
            await resp.prepare(request)
            await self._run(gen, request, resp)
            with contextlib.suppress(ConnectionError):
                await resp.write_eof()
        except (_Disconnected, ConnectionError):
            self._end(gen, "disconnected")
        except asyncio.CancelledError:
            self._end(gen, "disconnected")
            raise
        finally:
            if gen.ended is None:  # an unexpected exception: never leave the account blocked
                self._end(gen, "error", "internal")
        return resp

    def _admit(self, account: str, prompt: str, request_id: str, body: dict[str, Any]) -> _Generation:
        markers = parse_markers(prompt)
        fault = markers.fault
        if fault is None:
            u, c = self._fault_rng.random(), self.config
            for name, rate in (("hang", c.hang_rate), ("logout", c.logout_rate), ("error", c.error_rate)):
                if u < rate:
                    fault = name
                    break
                u -= rate
        nominal = markers.slow_s if markers.slow_s is not None else draw_run_seconds(self.config, self._time_rng)
        gen = _Generation(
            id=secrets.token_hex(6), request_id=request_id, account=account,
            conversation_id=str(body.get("conversation_id") or ""), prompt=prompt, fault=fault,
            run_s=nominal * self.config.time_scale, started=time.time(),
            last_write=asyncio.get_running_loop().time(),
        )  # fmt: skip
        active = self._active.setdefault(account, [])
        active.append(gen)
        self._stats["max_concurrent_per_session"] = max(self._stats["max_concurrent_per_session"], len(active))
        self._ledger_max_concurrent = max(self._ledger_max_concurrent, len(active))
        self._stats["generations_started"] += 1
        self._generations.append(gen)
        self._ledger_generations.append(gen)
        if request_id in self._pending_stops:
            self._pending_stops.discard(request_id)
            gen.request_stop("stop")
        return gen

    def _end(self, gen: _Generation, status: str, error: str | None = None) -> None:
        if gen.ended is not None:
            return
        gen.status, gen.error, gen.ended = status, error, time.time()
        key = {"completed": "generations_completed", "stopped": "stopped",
               "disconnected": "client_disconnects", "error": "errors"}.get(status)  # fmt: skip
        if key:
            self._stats[key] += 1
        active = self._active.get(gen.account, [])
        if gen in active:
            active.remove(gen)

    async def _run(self, gen: _Generation, request: web.Request, resp: web.StreamResponse) -> None:
        tokens = answer_tokens(gen.prompt, self.config.answer_tokens)
        if self.config.answer_style == "markdown":
            tokens = markdown_tokens(gen.prompt)
        if self.config.code_widget != "pre":
            tokens = code_tokens(gen.prompt)
        thinking: list[str] = []
        if any(p in SITE_STREAMS for p in self.config.personas):
            thinking, tokens = site_tokens(gen.prompt, plain="ds_plain" in self.config.personas)
        if self._answers:  # queue_answers: an exact answer instead of the default one
            tokens = text_pieces(self._answers.popleft())
        interval = gen.run_s / (len(tokens) + len(thinking))
        fault_at = {"hang": min(3, len(tokens) - 1), "logout": len(tokens) // 2, "error": len(tokens) // 2}
        at = fault_at.get(gen.fault or "", -1)
        if self.config.start_delay_ms > 0:  # admitted (the account is busy), but not started yet
            reason = await self._wait(gen, request, resp, self.config.start_delay_ms / 1000)
            if reason != "timeout":
                await self._interrupted(gen, resp, reason)
                return
        await self._send(resp, gen, {"t": "start", "id": gen.id})
        for tok in thinking:  # a site persona thinks first (a page of another persona ignores "think")
            reason = await self._wait(gen, request, resp, interval)
            if reason != "timeout":
                await self._interrupted(gen, resp, reason)
                return
            await self._send(resp, gen, {"t": "think", "d": tok})
            gen.thinking.append(tok)
        for i, tok in enumerate(tokens):
            if i == len(tokens) // 2 and self.config.pause_mid_s > 0:  # a long think mid-answer
                reason = await self._wait(gen, request, resp, self.config.pause_mid_s)
                if reason != "timeout":
                    await self._interrupted(gen, resp, reason)
                    return
            if i == at and gen.fault == "hang":
                gen.status = "hung"
                await self._interrupted(gen, resp, await self._wait(gen, request, resp, None))
                return
            if i == at:  # logout or error: end the stream with an error event
                code, message = ("site_error", SITE_ERROR_MESSAGE)
                if gen.fault == "logout":
                    self.logout(gen.account)
                    code, message = ("session_expired", SESSION_EXPIRED_MESSAGE)
                    self._stats["session_expirations"] += 1
                await self._send(resp, gen, {"t": "error", "code": code, "message": message})
                self._end(gen, "error", code)
                return
            reason = await self._wait(gen, request, resp, interval)
            if reason != "timeout":
                await self._interrupted(gen, resp, reason)
                return
            await self._send(resp, gen, {"t": "token", "d": tok})
            gen.parts.append(tok)
        await self._send(resp, gen, {"t": "done"})
        self._end(gen, "completed")

    async def _interrupted(self, gen: _Generation, resp: web.StreamResponse, reason: str) -> None:
        if reason == "stop":
            self._end(gen, "stopped")
            with contextlib.suppress(_Disconnected):
                await self._send(resp, gen, {"t": "stopped"})
        else:  # shutdown: a hung run stays "hung" in the record
            self._end(gen, "hung" if gen.status == "hung" else "aborted", "shutdown")

    async def _wait(
        self, gen: _Generation, request: web.Request, resp: web.StreamResponse, seconds: float | None
    ) -> str:
        """Sleep ``seconds`` (None = forever) but return early on stop/shutdown ("stop"/"shutdown").

        Raises _Disconnected as soon as the client's connection is gone, so a killed browser ends
        its generation promptly even during a hang (no token writes would reveal it).
        """
        loop = asyncio.get_running_loop()
        deadline = None if seconds is None else loop.time() + seconds
        while True:
            if gen.stop_event.is_set():
                return gen.stop_reason or "stop"
            if _client_gone(request):
                raise _Disconnected()
            now = loop.time()
            if deadline is not None and now >= deadline:
                return "timeout"
            if now - gen.last_write >= self.config.keepalive_s:
                await self._send(resp, gen, {"t": "ping"})
            step = _POLL_S if deadline is None else min(_POLL_S, deadline - now)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(gen.stop_event.wait(), step)

    async def _send(self, resp: web.StreamResponse, gen: _Generation, event: dict[str, Any]) -> None:
        data = (json.dumps(event, ensure_ascii=False) + "\n").encode("utf-8")
        try:
            await resp.write(data)
        except (ConnectionError, RuntimeError) as exc:
            raise _Disconnected() from exc
        gen.last_write = asyncio.get_running_loop().time()

    # ----------------------------------------------------------------------------- lifecycle: stop and restart
    #: A start after a stop listens on the port of the first start (a site coming back up), sessions kept.
    restart_on_same_port = True

    async def stop(self) -> None:
        """Stop serving: active streams end ("aborted"), every open socket (answer sockets, JSON and
        binary, and presence sockets) is closed. Sessions, the config and the ledger stay: a later
        :meth:`start` serves them again on the same port."""
        if self._runner is None:
            return
        self._stopping = True  # requests on open connections: sends refused, held polls answered at once
        self.close_listener()
        self._before_stop()
        await asyncio.gather(self._transports.close(), self._personas.close())
        await super().stop()

    def _cut_streams(self) -> None:
        """Abort every answer stream under way (a site going down)."""
        for gens in self._active.values():
            for gen in gens:
                transport = None if gen.request is None else gen.request.transport
                if transport is not None:
                    transport.abort()

    def _close_port(self) -> None:
        """Stop listening and reset every open connection, keep-alive ones included (a browser would
        reuse them)."""
        self.close_listener()
        server = None if self._runner is None else self._runner.server
        for transport in list(getattr(server, "_connections", {}).values()):
            transport.abort()


@dataclass(frozen=True)
class _BusyWindow:
    until: float  # time.monotonic()
    wait_s: float | str | None  # stated wait: seconds, "remaining", or None (none stated)
    style: str
    message: str | None


def _busy_message(window: _BusyWindow, now: float) -> tuple[str, float | None]:
    """The notice and the wait it states, for a refusal at ``now``."""
    wait: float | None
    if window.wait_s == "remaining":
        wait = float(max(1, math.ceil(window.until - now)))
    else:
        wait = None if window.wait_s is None else float(window.wait_s)
    if window.message is not None:
        return window.message.replace("{wait}", f"{wait:g}" if wait is not None else ""), wait
    if wait is None:
        return BUSY_MESSAGE, None
    return BUSY_MESSAGE_WAIT.format(wait=f"{wait:g}"), wait


def _busy_args(body: object) -> dict[str, Any]:
    """``POST /admin/busy`` body -> ``set_busy`` keyword arguments; ValueError for a bad one."""
    if not isinstance(body, dict):
        raise ValueError("request body must be a JSON object")
    known = {"seconds", "wait_s", "account", "style", "message"}
    if unknown := sorted(set(body) - known):
        raise ValueError(f"unknown field(s) {', '.join(map(repr, unknown))}; known: {', '.join(sorted(known))}")
    if "seconds" not in body:
        raise ValueError("'seconds' is required (0 ends the busy period)")
    return dict(body)


async def login_context(
    context: BrowserContext, base_url: str, account: str, password: str = "secret", timeout_ms: float = 10_000
) -> None:
    """Log a Playwright BrowserContext in by filling the real login form (as an operator would).

    The session cookie (HttpOnly) lands in the context; pages opened on it afterwards are logged in.
    """
    page = await context.new_page()
    try:
        await page.goto(f"{base_url}/login")
        await page.fill("#account", account)
        await page.fill("#password", password)
        await page.click("button.login")
        await page.wait_for_selector(".avatar, .login-error", timeout=timeout_ms)
        if await page.query_selector(".avatar") is None:
            raise RuntimeError(f"simchat login failed for account {account!r}")
    finally:
        await page.close()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mediadesk sim web``."""
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="port on 127.0.0.1 (0 = any free)")
    parser.add_argument("--time-scale", type=float, default=1.0, help="multiply every run time by this")
    parser.add_argument("--fixed-run-s", type=float, default=None, help="every run takes exactly this (scaled)")
    parser.add_argument("--answer-tokens", type=int, default=40, help="tokens per answer")
    parser.add_argument("--hang-rate", type=float, default=0.0, help="share of runs that stall forever")
    parser.add_argument("--logout-rate", type=float, default=0.0, help="share of runs that expire the session")
    parser.add_argument("--error-rate", type=float, default=0.0, help="share of runs that fail mid-stream")
    parser.add_argument("--seed", type=int, default=None, help="seed for run times and injected faults")
    parser.add_argument("--password", default=None, help="only this password logs in (default: any)")
    parser.add_argument("--session-cookie", action="store_true",
                        help="log in with a session cookie (no expiry: dropped when the browser closes)")
    parser.add_argument("--login-redirect", action="store_true",
                        help="send a logged-out visit of the chat page to the login form")
    parser.add_argument("--answer-style", choices=ANSWER_STYLES, default="text",
                        help="markdown: answers are Markdown rendered to HTML by the page")
    parser.add_argument("--transport", choices=TRANSPORTS, default="ndjson",
                        help="how the page receives answers: chunked NDJSON fetch, SSE, or WebSocket frames")
    parser.add_argument("--pause-mid-s", type=float, default=0.0,
                        help="a pause of this many real seconds in the middle of every answer")
    parser.add_argument("--persona", action="append", type=_persona_list, default=None, metavar="NAMES",
                        help=f"personas, separated by commas (repeatable): {', '.join(PERSONAS + SITE_PERSONAS)}")
    parser.add_argument("--start-delay-ms", type=int, default=0,
                        help="real milliseconds between a run's admission and its start event")
    parser.add_argument("--render-delay-ms", type=int, default=0,
                        help="late_render: real milliseconds between the stream's end and the rendered turn")


def _persona_list(text: str) -> tuple[str, ...]:
    try:
        return check_personas(text, 0, 0, "markdown")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def config_from_args(args: argparse.Namespace) -> WebSimConfig:
    return WebSimConfig(
        time_scale=args.time_scale, fixed_run_s=args.fixed_run_s, answer_tokens=args.answer_tokens,
        hang_rate=args.hang_rate, logout_rate=args.logout_rate, error_rate=args.error_rate,
        seed=args.seed, password=args.password,
        session_cookie=getattr(args, "session_cookie", False), login_redirect=getattr(args, "login_redirect", False),
        answer_style=getattr(args, "answer_style", "text"),
        transport=getattr(args, "transport", "ndjson"), pause_mid_s=getattr(args, "pause_mid_s", 0.0),
        personas=tuple(p for group in getattr(args, "persona", None) or () for p in group),
        start_delay_ms=getattr(args, "start_delay_ms", 0), render_delay_ms=getattr(args, "render_delay_ms", 0),
    )  # fmt: skip


async def serve_from_args(args: argparse.Namespace) -> None:
    """Run the site until cancelled (Ctrl-C in the CLI)."""
    server = WebSimServer(config_from_args(args), port=args.port)
    await server.start()
    print(f"Chat simulator on {server.chat_url}", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await server.stop()
