"""The chat simulator's capacity modes: the site's own capacity signals, switchable at run time
(in-process or over ``/admin/*``): an outage that refuses connections or serves a gateway page, a
bot check (challenge page), a usage limit with a reset time, and a model error that is final.
"""

from __future__ import annotations

import asyncio
import functools
import json
import math
import time
from collections.abc import Callable
from string import Template
from typing import Any

from aiohttp import web

#: ``set_outage`` modes: "refuse" (the port is closed: connects are refused, open connections cut) and
#: "502" (a gateway page for every page and API request, as a reverse proxy shows with its backend down).
OUTAGE_MODES = ("refuse", "502")
#: ``set_challenge`` kinds: "turnstile" (a Cloudflare-like interstitial with a Turnstile frame),
#: "recaptcha" (a reCAPTCHA frame), "text" (no frame: "Verify you are human", in Chinese too).
CHALLENGE_KINDS = ("turnstile", "recaptcha", "text")
GATEWAY_PAGE = (
    "<!doctype html><html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1>"
    "</center><hr><center>nginx</center></body></html>"
)
CHALLENGE_MESSAGE = "Unusual activity detected. Please verify you are human to continue. 请确认您是真人。"
#: A usage-limit banner; ``{reset}`` is the reset time, local HH:MM:SS.
LIMIT_MESSAGE = "You've reached your usage limit for this model. Your limit resets at {reset}."
MODEL_ERROR_MESSAGE = "Error 400: This model's maximum context length is 4096 tokens (invalid_request_error)"
_CHALLENGE_FRAMES = {
    "turnstile": '<iframe class="cf-frame" title="Widget containing a Cloudflare security challenge" '
                 'src="/challenge/frame/challenges.cloudflare.com/turnstile/v0" width="300" height="65"></iframe>',
    "recaptcha": '<iframe title="reCAPTCHA" src="/challenge/frame/www.google.com/recaptcha/api2/anchor" '
                 'width="304" height="78"></iframe>',
    "text": "",
}
_CHALLENGE_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Just a moment...</title></head>
<body class="challenge-page"><main>
<h1>Checking your browser</h1><p>Verify you are human by completing the action below. 请确认您是真人。</p>
$frame
<script>
// As real interstitials do: once the check is passed the page goes on to the site by itself.
setInterval(async () => {
  try {
    const r = await fetch("/challenge/status", {cache: "no-store"});
    if (r.ok && !(await r.json()).challenge) location.replace("/chat");
  } catch (e) { /* site away: keep waiting */ }
}, 300);
</script>
</main></body></html>
"""


class CapacityModes:
    """Outage, challenge, usage-limit and model-error modes of the chat simulator. Counts on ``/stats``:
    ``outage``, ``outage_requests`` (requests answered by the gateway page), ``challenge`` /
    ``challenge_pages`` / ``challenge_refusals``, ``limit_refusals``, ``model_errors``.

    From the server: ``account_of`` (the logged-in account of a request), ``cut_streams`` (abort the
    answer streams under way), ``close_port`` (stop listening and reset every open connection) and
    ``open_port`` (listen again)."""

    def __init__(
        self,
        *,
        account_of: Callable[[web.Request], str | None],
        cut_streams: Callable[[], None],
        close_port: Callable[[], None],
        open_port: Callable[[], None],
    ) -> None:
        self._account_of = account_of
        self._cut_streams = cut_streams
        self._close_port = close_port
        self._open_port = open_port
        self._outage: str | None = None
        self._outage_timer: asyncio.TimerHandle | None = None
        self._challenge: dict[str | None, str] = {}  # account (None: every one) -> kind
        self._limits: dict[str | None, float] = {}  # account (None: every one) -> reset, wall clock
        self._model_error: str | None = None
        self._limit_message: str | None = None
        self._cap_counts = {"outage_requests": 0, "challenge_pages": 0, "challenge_refusals": 0,
                            "limit_refusals": 0, "model_errors": 0}  # fmt: skip

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get("/admin/outage", self._h_admin_outage),
            web.post("/admin/outage", self._h_admin_outage),
            web.get("/admin/challenge", self._h_admin_challenge),
            web.post("/admin/challenge", self._h_admin_challenge),
            web.post("/admin/limit", self._h_admin_limit),
            web.post("/admin/model_error", self._h_admin_model_error),
            web.get("/challenge/status", self._h_challenge_status),
            web.get("/challenge/frame/{tail:.*}", self._h_challenge_frame),
        ]

    def stats(self) -> dict[str, Any]:
        return {"outage": self._outage, "challenge": {("*" if k is None else k): v for k, v in self._challenge.items()},
                **self._cap_counts}  # fmt: skip

    # --- outages -----------------------------------------------------------------------------------
    def set_outage(self, mode: str | None, *, seconds: float | None = None) -> None:
        """Start an outage of ``mode`` (:data:`OUTAGE_MODES`) now, or end it (None). Either way the
        streams under way are cut, as a site that goes down cuts them. ``seconds``: it ends by itself
        then (the only way to end a "refuse" outage over HTTP: ``/admin/*`` is on the closed port)."""
        if mode is not None and mode not in OUTAGE_MODES:
            raise ValueError(f"mode must be one of {', '.join(OUTAGE_MODES)} or null, got {mode!r}")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int | float)
                                    or not 0 < seconds < math.inf):
            raise ValueError(f"seconds must be a number > 0 or null, got {seconds!r}")
        if self._outage_timer is not None:
            self._outage_timer.cancel()
            self._outage_timer = None
        was, self._outage = self._outage, mode
        if mode is not None and mode != was:
            self._cut_streams()
        if mode == "refuse":
            self._close_port()
        elif was == "refuse":
            self._open_port()
        if mode is not None and seconds is not None:
            self._outage_timer = asyncio.get_running_loop().call_later(seconds, self.set_outage, None)

    @web.middleware
    async def outage_middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if self._outage == "502" and not request.path.startswith(("/admin/", "/stats")):
            self._cap_counts["outage_requests"] += 1
            return web.Response(text=GATEWAY_PAGE, status=502, content_type="text/html")
        resp: web.StreamResponse = await handler(request)
        return resp

    async def _h_admin_outage(self, request: web.Request) -> web.Response:
        """``POST {"mode": "refuse"|"502"|null, "seconds": n|null}``; both: the outage in force."""
        if request.method == "POST":
            try:
                body = await request.json()
                if not isinstance(body, dict) or set(body) - {"mode", "seconds"}:
                    raise ValueError("body must be {\"mode\": ..., \"seconds\": ...}")
                mode, seconds = body.get("mode"), body.get("seconds")
                if mode is not None and mode not in OUTAGE_MODES:
                    raise ValueError(f"mode must be one of {', '.join(OUTAGE_MODES)} or null")
                if mode == "refuse" and seconds is None:
                    raise ValueError("a 'refuse' outage over HTTP needs 'seconds': this port closes")
            except (ValueError, TypeError) as exc:
                return web.json_response({"error": str(exc)}, status=400)
            # after this answer has gone out: a "refuse" outage resets this very connection
            asyncio.get_running_loop().call_later(0.05, functools.partial(self.set_outage, mode, seconds=seconds))
            return web.json_response({"outage": mode, "seconds": seconds})
        return web.json_response({"outage": self._outage})

    # --- challenges ----------------------------------------------------------------------------------
    def set_challenge(self, kind: str | None, *, account: str | None = None) -> None:
        """Show ``account`` (None: every account) a bot check of ``kind`` (:data:`CHALLENGE_KINDS`)
        instead of the chat page, and refuse its sends with :data:`CHALLENGE_MESSAGE` (403); None
        ends it (a person "solved" it: an open challenge page goes on to the chat by itself)."""
        if kind is not None and kind not in CHALLENGE_KINDS:
            raise ValueError(f"kind must be one of {', '.join(CHALLENGE_KINDS)} or null, got {kind!r}")
        if kind is None:
            self._challenge.pop(account, None)
        else:
            self._challenge[account] = kind

    def _challenge_for(self, account: str | None) -> str | None:
        if account is not None and account in self._challenge:
            return self._challenge[account]
        return self._challenge.get(None)

    def challenge_page(self, account: str | None) -> web.Response | None:
        """The bot check's page when ``account`` is shown one, else None."""
        kind = self._challenge_for(account)
        if kind is None:
            return None
        self._cap_counts["challenge_pages"] += 1
        page = Template(_CHALLENGE_PAGE).safe_substitute(frame=_CHALLENGE_FRAMES[kind])
        return web.Response(text=page, status=403, content_type="text/html", headers={"Cache-Control": "no-store"})

    async def _h_admin_challenge(self, request: web.Request) -> web.Response:
        """``POST {"kind": "turnstile"|"recaptcha"|"text"|null, "account": name|null}``."""
        if request.method == "POST":
            try:
                body = await request.json()
                if not isinstance(body, dict) or set(body) - {"kind", "account"}:
                    raise ValueError("body must be {\"kind\": ..., \"account\": ...}")
                self.set_challenge(body.get("kind"), account=body.get("account"))
            except (ValueError, TypeError) as exc:
                return web.json_response({"error": str(exc)}, status=400)
        return web.json_response({"challenge": self.stats()["challenge"]})

    async def _h_challenge_status(self, request: web.Request) -> web.Response:
        account = self._account_of(request)
        return web.json_response({"challenge": self._challenge_for(account) is not None})

    async def _h_challenge_frame(self, request: web.Request) -> web.Response:
        # The widget itself (served here: the simulator never sends a browser anywhere else).
        return web.Response(text="<!doctype html><label><input type=checkbox> I am human</label>",
                            content_type="text/html")

    # --- usage limits and model errors ------------------------------------------------------------------
    def set_limit(self, reset_at: float | None, *, account: str | None = None, message: str | None = None) -> None:
        """Until ``reset_at`` (wall-clock seconds), refuse ``account``'s (None: every account's) sends
        with a usage-limit banner naming the reset time (``message``, ``{reset}`` = local HH:MM:SS;
        default :data:`LIMIT_MESSAGE`). None ends it."""
        if reset_at is None:
            self._limits.pop(account, None)
            self._limit_message = None
            return
        if isinstance(reset_at, bool) or not isinstance(reset_at, int | float) or not math.isfinite(reset_at):
            raise ValueError(f"reset_at must be a wall-clock time in seconds, got {reset_at!r}")
        self._limits[account] = float(reset_at)
        self._limit_message = message

    def set_model_error(self, message: str | None = MODEL_ERROR_MESSAGE) -> None:
        """Answer every send with a 400 model error (``message``) until called with None."""
        self._model_error = message

    async def _h_admin_limit(self, request: web.Request) -> web.Response:
        """``POST {"reset_at": wall seconds|null, "in_s": seconds from now, "account", "message"}``."""
        try:
            body = await request.json()
            if not isinstance(body, dict) or set(body) - {"reset_at", "in_s", "account", "message"}:
                raise ValueError("unknown fields")
            at = body.get("reset_at")
            if body.get("in_s") is not None:
                at = time.time() + float(body["in_s"])
            self.set_limit(at, account=body.get("account"), message=body.get("message"))
        except (ValueError, TypeError) as exc:
            return web.json_response({"error": str(exc)}, status=400)
        return web.json_response({"limits": {("*" if k is None else k): v for k, v in self._limits.items()}})

    async def _h_admin_model_error(self, request: web.Request) -> web.Response:
        """``POST {"message": text|null}`` (no body field: the default 400 message)."""
        try:
            body = await request.json()
            self.set_model_error(body.get("message", MODEL_ERROR_MESSAGE) if isinstance(body, dict) else None)
        except (ValueError, TypeError) as exc:
            return web.json_response({"error": str(exc)}, status=400)
        return web.json_response({"model_error": self._model_error})

    def refusal(self, account: str) -> web.Response | None:
        """A send the site's capacity modes refuse (checked before any generation starts), or None."""
        if self._challenge_for(account) is not None:
            self._cap_counts["challenge_refusals"] += 1
            return web.json_response({"error": "challenge", "message": CHALLENGE_MESSAGE}, status=403,
                                     dumps=lambda o: json.dumps(o, ensure_ascii=False))
        now = time.time()
        for key in (account, None):
            reset = self._limits.get(key)
            if reset is not None and now < reset:
                self._cap_counts["limit_refusals"] += 1
                shown = time.strftime("%H:%M:%S", time.localtime(reset))
                message = (self._limit_message or LIMIT_MESSAGE).replace("{reset}", shown)
                return web.json_response({"error": "busy", "style": "banner", "message": message}, status=429,
                                         dumps=lambda o: json.dumps(o, ensure_ascii=False))
            if reset is not None:
                del self._limits[key]
        if self._model_error is not None:
            self._cap_counts["model_errors"] += 1
            return web.json_response({"error": "bad_request", "message": self._model_error}, status=400)
        return None
