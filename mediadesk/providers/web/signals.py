"""What a chat site says about its own capacity, read from its signals before anything is guessed.

The site is down (:func:`connection_failure`, a gateway/5xx page): the account's breaker opens, the task goes
back uncharged and a cheap probe (:func:`reach`, one GET of the chat URL) says when it is back. A final error
(:class:`FinalErrorMatcher`: "context length exceeded", "content policy"...): a retry would get the same
answer, so the task fails at once (``bad_request``). A challenge (:class:`ChallengeMatcher`,
:data:`CHALLENGE_JS`: a CAPTCHA, "verify you are human"): never solved automatically; the account pauses for
a person. Pure text rules, except :func:`reach` (one HTTP request) and the page script.
"""

from __future__ import annotations

import functools
import re
import ssl
from collections.abc import Sequence
from dataclasses import dataclass

import httpx

__all__ = [
    "BUILTIN_CHALLENGE_TEXT",
    "BUILTIN_FINAL_ERROR_TEXT",
    "CHALLENGE_FRAME_SRC",
    "CHALLENGE_JS",
    "CONNECTION_FAILURES",
    "ChallengeMatcher",
    "ChallengeSeen",
    "FinalErrorMatcher",
    "connection_failure",
    "reach",
]

#: Chromium's network errors that mean the site could not be reached (or the connection to it
#: broke): https://source.chromium.org/chromium/chromium/src/+/main:net/base/net_error_list.h
CONNECTION_FAILURES: tuple[str, ...] = (
    "ERR_CONNECTION_REFUSED",
    "ERR_CONNECTION_RESET",
    "ERR_CONNECTION_CLOSED",
    "ERR_CONNECTION_ABORTED",
    "ERR_CONNECTION_FAILED",
    "ERR_CONNECTION_TIMED_OUT",
    "ERR_TIMED_OUT",
    "ERR_NAME_NOT_RESOLVED",
    "ERR_NAME_RESOLUTION_FAILED",
    "ERR_ADDRESS_UNREACHABLE",
    "ERR_INTERNET_DISCONNECTED",
    "ERR_NETWORK_CHANGED",
    "ERR_EMPTY_RESPONSE",
    "ERR_PROXY_CONNECTION_FAILED",
    "ERR_TUNNEL_CONNECTION_FAILED",
    # a stream cut mid-body: the connection went away under an answer
    "ERR_INCOMPLETE_CHUNKED_ENCODING",
    "ERR_CONTENT_LENGTH_MISMATCH",
    "ERR_HTTP2_PROTOCOL_ERROR",
    "ERR_QUIC_PROTOCOL_ERROR",
)
_CONNECTION_RE = re.compile(r"\b(?:net::)?(" + "|".join(CONNECTION_FAILURES) + r")\b")


def connection_failure(text: str | None) -> str | None:
    """The connection-level network error named in ``text`` (a Playwright error or a request's
    ``failure``), e.g. ``"ERR_CONNECTION_REFUSED"``; None when it names none. ``net::ERR_ABORTED``
    (a page that closed its own request, a stop click) is not one."""
    if not text:
        return None
    m = _CONNECTION_RE.search(text)
    return m.group(1) if m else None


@dataclass(frozen=True)
class Reach:
    """What one plain HTTP GET of the chat URL said: ``up`` (any answer below 500, a login redirect
    included) and, for the log, what it got."""

    up: bool
    what: str


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """Made once: building a client's SSL context is slow and blocks the event loop."""
    return httpx.create_ssl_context()


async def reach(url: str, *, timeout_s: float = 3.0) -> Reach:
    """One plain GET of ``url`` from Python (no browser, no cookies, redirects not followed): the
    cheap probe of a site that looked down. A connection that fails, a timeout or a 5xx (a gateway
    page in front of a dead backend) is down; anything else is up."""
    try:
        async with httpx.AsyncClient(timeout=timeout_s, follow_redirects=False, trust_env=False,
                                     verify=_ssl_context()) as client:
            resp = await client.get(url, headers={"Cache-Control": "no-cache"})
    except httpx.TimeoutException as exc:
        return Reach(False, f"no answer within {timeout_s:g} s ({type(exc).__name__})")
    except httpx.HTTPError as exc:
        return Reach(False, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
    if resp.status_code >= 500:
        if _bot_check_answer(resp):  # a bot check answers plain clients with a 5xx: the site is there
            return Reach(True, f"HTTP {resp.status_code} from a bot check (the site answers)")
        return Reach(False, f"HTTP {resp.status_code} {resp.reason_phrase}".rstrip())
    return Reach(True, f"HTTP {resp.status_code}")


def _bot_check_answer(resp: httpx.Response) -> bool:
    """A 5xx that is a challenge page (Cloudflare marks its own with ``cf-mitigated: challenge``)."""
    if resp.headers.get("cf-mitigated", "").lower() == "challenge":
        return True
    head = resp.text[:4000].lower() if "html" in resp.headers.get("content-type", "") else ""
    return any(word in head for word in ("captcha", "challenge-platform", "verify you are human", "turnstile"))


# --- final errors ------------------------------------------------------------------------------------

#: Error wordings that mean the model behind the site refused this prompt for good: another attempt
#: sends the same prompt and gets the same error. Matched in a run's ``error`` text only (never in an
#: answer), case-insensitive, anywhere. Turned off with ``final_error_text_builtin = false``.
BUILTIN_FINAL_ERROR_TEXT: tuple[str, ...] = (
    r"\b(?:error|status|code|http)[ :]*(?:400|404|413|422)\b",
    r"\b(?:400|404|413|422)\b[ :-]*(?:bad request|not found|payload too large|unprocessable)",
    r"\bbad request\b",
    r"\binvalid[ _](?:request|prompt|argument|parameter|model)",
    r"context[ _](?:length|window)[ _](?:exceeded|too long|limit)",
    r"maximum context length",
    r"(?:prompt|input|message) is too long",
    r"too many (?:input )?tokens",
    r"model[ _](?:not[ _]found|does not exist|is not available|unavailable for this)",
    r"\b(?:no such|unknown) model\b",
    r"\bmodel\b.{0,60}\b(?:does not exist|not found)",
    r"content[ _](?:policy|filter|management policy)",
    r"violat\w* (?:our|the) (?:usage |content )?polic",
    r"(?:flagged|blocked) by (?:our|the) (?:safety|moderation|content)",
    r"上下文(?:长度)?(?:超出|超过|过长)|超出(?:了)?(?:最大)?上下文",
    r"模型不存在|找不到(?:该)?模型|模型不可用",
    r"(?:无效|非法)的?(?:请求|参数)|请求参数(?:错误|有误)",
    r"违反(?:了)?.{0,8}(?:政策|规定|规范)|内容(?:违规|不合规|安全审核未通过)",
)


class FinalErrorMatcher:
    """The final-error wordings of one site (built-in unless turned off, plus ``final_error_text``)."""

    def __init__(self, patterns: Sequence[str]) -> None:
        self.patterns = tuple(patterns)
        self._compiled = tuple(re.compile(p, re.IGNORECASE) for p in self.patterns)

    @classmethod
    def for_site(cls, extra: Sequence[str] = (), *, builtin: bool = True) -> FinalErrorMatcher:
        return cls([*(BUILTIN_FINAL_ERROR_TEXT if builtin else ()), *extra])

    def matches(self, text: str | None) -> bool:
        return bool(text) and any(p.search(text or "") for p in self._compiled)


# --- challenges -----------------------------------------------------------------------------------

#: iframe sources of the usual bot checks: reCAPTCHA, hCaptcha, Cloudflare Turnstile / challenge
#: pages, Arkose (FunCaptcha), GeeTest.
CHALLENGE_FRAME_SRC = (
    r"google\.com/recaptcha|recaptcha\.net|gstatic\.com/recaptcha|hcaptcha\.com|challenges\.cloudflare\.com"
    r"|/cdn-cgi/challenge-platform|turnstile|arkoselabs\.com|funcaptcha\.com|geetest\.com"
)
#: Markup the same widgets leave in the page itself.
_CHALLENGE_MARKS = (
    ".g-recaptcha, .h-captcha, .cf-turnstile, #challenge-form, #challenge-running, #challenge-stage, "
    "#cf-challenge-running, [data-hcaptcha-widget-id], iframe[title*='captcha' i], iframe[title*='challenge' i]"
)

#: What challenge pages and dialogs say (English and Chinese). Read only where a challenge would be:
#: the page title, an open dialog (``role=dialog|alertdialog``, ``<dialog open>``), or a page without
#: the prompt box; never inside an answer.
BUILTIN_CHALLENGE_TEXT: tuple[str, ...] = (
    r"verify (?:that )?you(?:'re| are) (?:a )?human",
    r"(?:are you|confirm you(?:'re| are)) (?:a )?(?:human|robot)",
    r"i(?:'m| am) not a robot",
    r"unusual (?:activity|traffic)",
    r"suspicious activity",
    r"complete the (?:security )?(?:check|challenge|captcha)",
    r"checking (?:if the site connection is secure|your browser)",
    r"just a moment\.\.\.",
    r"attention required!? \| cloudflare",
    r"(?:please )?(?:re-?)?verify your (?:identity|account) to continue",
    r"\bcaptcha\b",
    r"bot (?:check|detection|protection)",
    r"确认您?是真人|验证您?是真人|请证明您?不是机器人|我不是机器人",
    r"人机验证|安全验证|异常(?:活动|流量|访问)|检测到异常",
)

#: Page script: the challenge signals of the current document (frames, widget markup, dialog texts,
#: the title and, when there is no prompt box, the page text), for :class:`ChallengeMatcher`.
CHALLENGE_JS = r"""(cfg) => {
  const frameRe = new RegExp(cfg.frameSrc, 'i');
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const frames = [...document.querySelectorAll('iframe')]
    .map((f) => f.src || f.getAttribute('data-src') || '')
    .filter((s) => frameRe.test(s));
  const mark = [...document.querySelectorAll(cfg.marks)].find(visible);
  const dialogs = [...document.querySelectorAll("[role=dialog], [role=alertdialog], dialog[open]")]
    .filter(visible).map((d) => (d.innerText || '').slice(0, 2000));
  let prompt = false;
  try { prompt = !!(cfg.prompt && document.querySelector(cfg.prompt)); } catch (e) { prompt = false; }
  const body = prompt ? '' : ((document.body && document.body.innerText) || '').slice(0, 4000);
  const name = (el) => el.id ? '#' + el.id
    : (el.className ? '.' + String(el.className).split(' ')[0] : el.tagName.toLowerCase());
  return {frames, mark: mark ? name(mark) : null, dialogs, body, title: document.title || '', prompt};
}"""


@dataclass(frozen=True)
class ChallengeSeen:
    """A challenge on the page: ``what`` says which signal (for the operator and the log)."""

    what: str


class ChallengeMatcher:
    """The challenge wordings of one site (built-in plus ``challenge_text``) applied to what
    :data:`CHALLENGE_JS` returned."""

    def __init__(self, patterns: Sequence[str]) -> None:
        self.patterns = tuple(patterns)
        self._compiled = tuple(re.compile(p, re.IGNORECASE) for p in self.patterns)

    @classmethod
    def for_site(cls, extra: Sequence[str] = ()) -> ChallengeMatcher:
        return cls([*BUILTIN_CHALLENGE_TEXT, *extra])

    def script_arg(self, prompt_selector: str | None) -> dict[str, str | None]:
        return {"frameSrc": CHALLENGE_FRAME_SRC, "marks": _CHALLENGE_MARKS, "prompt": prompt_selector}

    def _said(self, text: str) -> str | None:
        for p in self._compiled:
            if m := p.search(text):
                return m.group(0)
        return None

    def judge(self, signals: dict[str, object] | None) -> ChallengeSeen | None:
        """A challenge, or None, from the page's signals (the frames and widget markup first: they
        are unambiguous; then texts, read only where a challenge would be)."""
        if not signals:
            return None
        frames = [str(f) for f in signals.get("frames") or []]  # type: ignore[attr-defined]
        if frames:
            return ChallengeSeen(f"a bot-check frame ({frames[0][:120]})")
        if signals.get("mark"):
            return ChallengeSeen(f"a bot-check widget ({signals['mark']})")
        for where, text in (("the page title", str(signals.get("title") or "")),
                            *(("a dialog", str(d)) for d in signals.get("dialogs") or []),  # type: ignore[attr-defined]
                            ("the page (no prompt box)", str(signals.get("body") or ""))):
            if text and (said := self._said(text)):
                return ChallengeSeen(f"{where} says {said!r}")
        return None
