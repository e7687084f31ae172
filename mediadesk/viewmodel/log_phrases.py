"""Task-log lines in the operator's language, at display time.

The scheduler and the backends write task-log lines in English, and they stay English in the
database (exports, the CLI and bug reports read the same words). The console shows each line
through this catalog: every phrase the code can write is a *template* here (``"attempt {attempt}
started"``); a stored line that matches one is shown as the template's translation with the values
put back as they were (ids, numbers, paths and the servers' own error texts are never translated).
A value that is itself words of ours (``{why}``, ``{more}``: a retry decision, a suffix such as
``", retry after 2 s"``) is translated the same way, recursively. A line no template matches is shown
as stored.

Qt-free: the caller passes the translate function (``QCoreApplication.translate`` with
:data:`CONTEXT`). ``QT_TRANSLATE_NOOP`` marks the templates for ``pyside6-lupdate`` (run by
``packaging/i18n.py`` over this file too). ``tests/ui/test_log_phrases.py`` reads the source and fails
when the code writes a phrase this catalog does not know.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["CONTEXT", "PHRASES", "LogPhrase", "match", "translate_line"]

#: The translation context of every template (``QCoreApplication.translate(CONTEXT, template)``).
CONTEXT = "LogPhrases"


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # noqa: N802 - the name lupdate looks for
    """Marks ``text`` for lupdate; returns it unchanged."""
    return text


_NUM = r"-?\d+(?:\.\d+)?"
#: How each placeholder matches, and whether its value is translated in turn.
#: "num": a number; "text": any text, shown as stored; "phrase": words of ours (translated again);
#: "opt": like "phrase" but may be empty (a suffix: ``{more}``).
KINDS: dict[str, str] = {
    **dict.fromkeys(("attempt", "n", "seconds", "ms", "chars", "pid", "port", "status", "turn", "limit",
                     "max"), "num"),
    **dict.fromkeys(("why", "who", "how", "outcome", "line", "request"), "phrase"),
    "more": "opt",
}
_PATTERN = {"num": _NUM, "text": ".+?", "phrase": ".+?", "opt": ".*?"}
_FIELD = re.compile(r"\{([a-z_]+)\}")


def _t(text: str) -> str:
    return QT_TRANSLATE_NOOP("LogPhrases", text)


#: Every phrase the code writes to a task's log, most specific first (the first full match wins).
_TEMPLATES: tuple[str, ...] = (
    # ---- the store: attempts and operator actions
    _t("attempt {attempt} started"),
    _t("canceled while pending"),
    _t("cancel requested by operator"),
    _t("re-queued by operator"),
    _t("resolved by operator: {action} ({note})"),
    _t("resolved by operator: {action}"),
    _t("not run: {why}"),
    _t("an earlier turn ({task}) of conversation {conversation} ended {state}"),
    # ---- the lane: how an attempt ended
    _t("success in {seconds} s{more}"),
    _t(" (truncated: the provider stopped at its length limit)"),
    _t("canceled {who} while running"),
    _t("by operator"),
    _t("(the attempt was cancelled)"),
    _t("attempt abandoned: the task was taken over (stale heartbeat)"),
    _t("interrupted by shutdown; will resume"),
    _t("interrupted: the database failed; will resume"),
    _t("recovered after a crash: cancel had been requested"),
    _t("failed: {error}"),
    # ---- retries (the finalizer and the retry policy)
    _t("attempt {attempt} failed ({error}); {why}"),
    _t("not started ({error}); attempt not charged, back in the queue for {seconds} s{more}"),
    _t("attempt {attempt} {why} ({error}){more}"),
    _t("; callee paused {seconds} s{more}"),
    _t("; {callee} paused {seconds} s{more}"),
    _t("; breaker {state} ({reason}){more}"),
    _t(", next probe in {seconds} s"),
    _t("retry {n}/{max} in {seconds} s"),
    _t("not retryable"),
    _t("no retries left"),
    _t("not started; attempt not charged"),
    _t("refused by the callee; attempt not charged"),
    _t("could not reach the callee; attempt not charged"),
    _t("crashed or timed out on {n} attempts: set aside for a person"),
    # ---- schedule-to-start budget and fallback chains
    _t("expired: {why}"),
    _t("not started within max_wait_s = {limit} s (waited {seconds} s)"),
    _t("fallback exhausted: {why}"),
    _t("every step of the fallback chain failed; last: {profile} ({kind}: {error})"),
    _t("fallback: {why}; moved to {profile}"),
    _t("fallback: {why}; answered with the rule reply"),
    _t("{profile} could not serve it ({kind}: {error})"),
    _t("retry by operator"),
    _t("reroute by operator to {profile}"),
    _t("{action} by operator to {profile}"),
    _t("{action} by operator"),
    # ---- API lane
    _t("{request} -> {status} in {seconds} s, {chars} chars{more}"),
    _t("{request} -> {status} in {seconds} s ({kind}{more})"),
    _t("{request} -> not sent: {error}"),
    _t("{request} -> cancelled after {seconds} s"),
    _t("{request} -> {kind} after {seconds} s{more}"),
    _t("POST {path} stream={flag}"),
    _t(" (truncated: finish_reason=length)"),
    _t(", retry after {seconds} s"),
    # ---- web lane: runs
    _t("(at lane start) {line}"),
    _t("account {account}: chromium pid {pid}, debug port {port}"),
    _t("answer {chars} chars; driver overhead {ms} ms"),
    _t("recycling the browser after {n} tasks"),
    _t("the site answered this prompt with only a busy notice {n} times: counted as a failure of the task"),
    _t("conversation {conversation}: turn {turn} in its chat thread (reopening {url})"),
    _t("conversation {conversation}: turn {turn} in its chat thread"),
    _t("conversation {conversation}: its chat thread cannot be reopened on this account; "
       "replaying {n} earlier turn(s) in a new chat"),
    _t("not started: {error}"),
    _t("evidence: {files}"),
    _t("canceled: generation stopped and page replaced"),
    _t("canceled: browser did not answer within {seconds} s; killed it"),
    # ---- web lane: automatic login
    _t("automatic login: not tried again before {time} (one try per {seconds} s; the last one at {last} "
       "failed: {error})"),
    _t("automatic login: not tried again before {time} (one try per {seconds} s; the last one at {last} "
       "succeeded)"),
    _t("automatic login: {account} is logged in again"),
    _t("automatic login: {error}; logging {account} in with its stored credentials ({source})"),
    _t("automatic login failed: {why}; next try not before {time}"),
    _t("still logged out after submitting the login form ({error})"),
    # ---- web lane: the browser
    _t("browser: previous chromium is gone; relaunching on a fresh process"),
    _t("browser: the page could not be replaced; browser ended"),
    _t("browser: started chromium pid {pid} on {path}"),
    _t("browser: chromium pid {pid} listening on port {port} (CDP connected)"),
    _t("browser: closing chromium pid {pid} ({n} processes, grace {seconds} s)"),
    _t("browser: chromium pid {pid} closed {how} ({n} processes){more}"),
    _t("gracefully"),
    _t("after SIGKILL"),
    _t("after SIGTERM"),
    _t("; STILL RUNNING: {pids}"),
    _t("browser: chromium pid {pid} killed ({n} processes)"),
    _t("browser: could not write {path}/.mediadesk-browser.json: {error}"),
    _t("session cookies: restored {n} ({domains}) from {file}"),
    _t("session cookies: could not restore {n} from {file}: {error}"),
    _t("session cookies: could not save {file}: {error}"),
    _t("session cookies: not saved ({error})"),
    # ---- web lane: the profile self-check
    _t("self-check: clean{more}"),
    _t(" (removed stale {files})"),
    _t("self-check: found residue {name} pid {pid} on {path}: {outcome} ({n} processes); {reason}"),
    _t("terminated"),
    _t("killed after {seconds} s grace"),
    _t("could NOT end pids {pids}"),
    _t("self-check: our recorded port {port} is used by {process}, not on this profile: left alone"),
    _t("self-check: profile {path} is in use by {process}; close it or wait ({reason})"),
)


@dataclass(frozen=True)
class LogPhrase:
    """One template: ``template`` is the English text with ``{name}`` placeholders (also the
    translation's source text); ``regex`` matches a whole stored line of it."""

    template: str
    regex: re.Pattern[str]
    names: tuple[str, ...]

    @property
    def shape(self) -> str:
        """The template with ``{}`` for every value (what the source scan compares with)."""
        return _FIELD.sub("{}", self.template)

    @property
    def open_end(self) -> bool:
        """Ends with an optional suffix (``{more}``): words appended to the line go there."""
        return bool(self.names) and KINDS.get(self.names[-1]) == "opt" and self.template.endswith("{" +
                                                                                                    self.names[-1] + "}")


def kind_of(name: str) -> str:
    return KINDS.get(name, "text")


def _compile(template: str) -> LogPhrase:
    out: list[str] = []
    names: list[str] = []
    pos = 0
    for m in _FIELD.finditer(template):
        out.append(re.escape(template[pos:m.start()]))
        name = m.group(1)
        if name in names:
            raise ValueError(f"{template!r}: placeholder {{{name}}} twice")
        names.append(name)
        out.append(f"(?P<{name}>{_PATTERN[kind_of(name)]})")
        pos = m.end()
    out.append(re.escape(template[pos:]))
    return LogPhrase(template, re.compile("".join(out), re.S), tuple(names))


PHRASES: tuple[LogPhrase, ...] = tuple(_compile(t) for t in _TEMPLATES)

#: Nested words deeper than this are shown as stored (a guard; real lines nest two or three deep).
_MAX_DEPTH = 6


def match(line: str) -> tuple[LogPhrase, dict[str, str]] | None:
    """The first template that matches the whole ``line``, with the values it holds."""
    for phrase in PHRASES:
        m = phrase.regex.fullmatch(line)
        if m is not None:
            return phrase, {k: v for k, v in m.groupdict().items() if v is not None}
    return None


def _fill(template: str, values: dict[str, str]) -> str:
    return _FIELD.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def translate_line(line: str, tr: Callable[[str], str], *, _depth: int = 0) -> str:
    """``line`` in the language of ``tr`` (template -> its translation; "" or the template itself
    when there is none). Values are put back verbatim, except words of ours, translated in turn.
    A line no template matches comes back unchanged."""
    if _depth > _MAX_DEPTH or not line:
        return line
    found = match(line)
    if found is None:
        return line
    phrase, values = found
    shown = {
        name: translate_line(value, tr, _depth=_depth + 1) if kind_of(name) in ("phrase", "opt") else value
        for name, value in values.items()
    }
    return _fill(tr(phrase.template) or phrase.template, shown)
