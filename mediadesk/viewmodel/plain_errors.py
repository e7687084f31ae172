"""Technical error texts in the operator's words, the original one click away.

Stored error texts stay exact (the library's words, right for logs, bug reports and exports).
:func:`explain` replaces each known technical fragment with a translated sentence, keeps the rest,
and returns the original as ``detail``; unknown texts are shown as they are. The ONE translation
layer for error wording (sibling of :mod:`mediadesk.core.log_lines`). Qt-free: callers pass the
translate function (context :data:`CONTEXT`); ``QT_TRANSLATE_NOOP`` marks phrases for lupdate.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["CONTEXT", "RULES", "Explained", "explain"]

#: The translation context of every phrase.
CONTEXT = "PlainErrors"


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """Marks ``text`` for lupdate; returns it unchanged."""
    return text


@dataclass(frozen=True)
class Explained:
    """``summary``: what to show; ``detail``: the text as stored when it differs, else ''."""

    summary: str
    detail: str

    @property
    def has_detail(self) -> bool:
        return bool(self.detail)


#: (fragment pattern, phrase). A phrase's ``{name}`` takes the pattern's group of that name, as
#: stored. Most specific first; every match of every rule is replaced.
RULES: tuple[tuple[str, str], ...] = (
    # ---- httpx transport errors (providers/api/failures.py, the probes and the Test buttons)
    (r"\bConnect(?:Error|Timeout)\b:?[^;)\n]*",
     QT_TRANSLATE_NOOP("PlainErrors", "could not reach the service (nothing answered at its address: is it running, "
                                      "is the address right?)")),
    (r"\b(?:Read|Write|Pool)Timeout after (?P<seconds>\d+(?:\.\d+)?) s",
     QT_TRANSLATE_NOOP("PlainErrors", "no answer within {seconds} s")),
    (r"\b(?:Read|Write|Pool)Timeout\b:?[^;)\n]*",
     QT_TRANSLATE_NOOP("PlainErrors", "the service took too long to answer")),
    (r"\bRemoteProtocolError\b:?[^;)\n]*",
     QT_TRANSLATE_NOOP("PlainErrors", "the service closed the connection in the middle of an answer")),
    (r"\bReadError\b:?[^;)\n]*",
     QT_TRANSLATE_NOOP("PlainErrors", "the connection broke while the answer was being read")),
    # ---- a reasoning model that thought its whole budget away (providers/api/failures.py answer_cut)
    (r"the model spent its whole max_tokens \((?P<limit>[^)]*)\) thinking(?: \((?P<spent>\d+) reasoning tokens\))? "
     r"and wrote no answer: raise max_tokens for this profile",
     QT_TRANSLATE_NOOP("PlainErrors", "the model used up its whole answer budget (max_tokens = {limit}) thinking and "
                                      "wrote no answer: raise this profile's max_tokens in config.toml")),
    # ---- a prompt longer than a site takes in its box (providers/web/driver.py, PromptTooLong)
    (r"the prompt is (?P<chars>\d+) characters long \(instructions and content as typed\), over the site adapter's "
     r"paste_limit of (?P<limit>\d+), and the adapter has no 'attach' to send it as a file; nothing was sent\. "
     r"Shorten the prompt, or set 'attach' in the adapter",
     QT_TRANSLATE_NOOP("PlainErrors", "the prompt ({chars} characters with its instructions) is longer than this site "
                                      "takes in its box ({limit}, the site adapter's paste_limit) and the adapter "
                                      "cannot send it as a file, so nothing was sent: shorten the prompt, or set "
                                      "“attach” (the page's file input) in the site adapter")),
    # ---- the web lane's login checks (providers/web/page_ready.py, backend.py)
    (r"not logged in \(the page shows logged_out [^)]*\)",
     QT_TRANSLATE_NOOP("PlainErrors", "not logged in (the site shows its login link)")),
    (r"not logged in \(the page lacks logged_in [^)]*\)",
     QT_TRANSLATE_NOOP("PlainErrors", "not logged in (the page shows no sign of a logged-in account)")),
    (r"not logged in \(the page lacks a prompt box\)",
     QT_TRANSLATE_NOOP("PlainErrors", "not logged in (the page has no prompt box)")),
    (r"not logged in \(the page shows a password field\)",
     QT_TRANSLATE_NOOP("PlainErrors", "not logged in (the site asks for a password)")),
    (r"\blogged in, prompt box ready\b",
     QT_TRANSLATE_NOOP("PlainErrors", "logged in and ready for a prompt")),
    # ---- config keys named in messages: the Setup editor's names for them
    (r"\bbase_url\b", QT_TRANSLATE_NOOP("PlainErrors", "the Base URL")),
    (r"\bapi_key_env\b", QT_TRANSLATE_NOOP("PlainErrors", "the API key variable")),
    (r"\bneed_empty_prompt\b", QT_TRANSLATE_NOOP("PlainErrors", "“Needs an empty prompt”")),
    (r"\bmax_pending\b", QT_TRANSLATE_NOOP("PlainErrors", "“Most pending tasks”")),
    (r"\bmax_wait_s\b", QT_TRANSLATE_NOOP("PlainErrors", "“Longest wait”")),
    (r"\bmax_run_s\b", QT_TRANSLATE_NOOP("PlainErrors", "“Longest run”")),
    (r"\bmax_answer_chars\b", QT_TRANSLATE_NOOP("PlainErrors", "“Longest answer”")),
    (r"\blogin_cooldown_s\b", QT_TRANSLATE_NOOP("PlainErrors", "“Login cooldown”")),
)

_COMPILED = tuple((re.compile(pattern), phrase) for pattern, phrase in RULES)
_FIELD = re.compile(r"\{([a-z_]+)\}")


def explain(text: str, tr: Callable[[str], str] = lambda s: s) -> Explained:
    """``text`` with every known technical fragment in the operator's words (``tr``: the phrase's
    translation); ``detail`` is ``text`` itself when anything was replaced."""
    if not text:
        return Explained("", "")
    out = text
    for pattern, phrase in _COMPILED:
        def put(m: re.Match[str], phrase: str = phrase) -> str:
            values = {k: v for k, v in m.groupdict().items() if v is not None}
            return _FIELD.sub(lambda f: values.get(f.group(1), f.group(0)), tr(phrase))
        out = pattern.sub(put, out)
    return Explained(out, "" if out == text else text)
