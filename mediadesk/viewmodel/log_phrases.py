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


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """Marks ``text`` for lupdate; returns it unchanged."""
    return text


_NUM = r"-?\d+(?:\.\d+)?"
#: How each placeholder matches, and whether its value is translated in turn.
#: "num": a number; "text": any text, shown as stored; "phrase": words of ours (translated again);
#: "opt": like "phrase" but may be empty (a suffix: ``{more}``).
KINDS: dict[str, str] = {
    **dict.fromkeys(("attempt", "n", "seconds", "ms", "chars", "pid", "port", "status", "turn", "limit",
                     "interval", "max", "failed"), "num"),
    **dict.fromkeys(("why", "who", "how", "outcome", "line", "request", "reason", "what", "was",
                     "breaker", "callee", "state"), "phrase"),
    "more": "opt",
}
#: A suffix (``{more}``) is empty or starts the way every suffix phrase does ("; ", ", ", " ("): so an
#: error text with brackets of its own ("HTTP 429 (slow down)") is not cut at its first ")".
_PATTERN = {"num": _NUM, "text": ".+?", "phrase": ".+?", "opt": r"(?:(?:; |, | \().*?)?"}
_FIELD = re.compile(r"\{([a-z_]+)\}")



#: Every phrase the code writes to a task's log, most specific first (the first full match wins).
_TEMPLATES: tuple[str, ...] = (
    # ---- the store: attempts and operator actions
    QT_TRANSLATE_NOOP("LogPhrases", "attempt {attempt} started"),
    QT_TRANSLATE_NOOP("LogPhrases", "canceled while pending"),
    QT_TRANSLATE_NOOP("LogPhrases", "cancel requested by operator"),
    QT_TRANSLATE_NOOP("LogPhrases", "re-queued by operator"),
    QT_TRANSLATE_NOOP("LogPhrases", "resolved by operator: {action} ({note})"),
    QT_TRANSLATE_NOOP("LogPhrases", "resolved by operator: {action}"),
    QT_TRANSLATE_NOOP("LogPhrases", "not run: {why}"),
    QT_TRANSLATE_NOOP("LogPhrases", "an earlier turn ({task}) of conversation {conversation} ended {state}"),
    QT_TRANSLATE_NOOP("LogPhrases", "failed"),
    QT_TRANSLATE_NOOP("LogPhrases", "canceled"),
    # ---- the lane: how an attempt ended
    QT_TRANSLATE_NOOP("LogPhrases", "success in {seconds} s{more}"),
    QT_TRANSLATE_NOOP("LogPhrases", " (truncated: the provider stopped at its length limit)"),
    QT_TRANSLATE_NOOP("LogPhrases", "canceled {who} while running"),
    QT_TRANSLATE_NOOP("LogPhrases", "by operator"),
    QT_TRANSLATE_NOOP("LogPhrases", "(the attempt was cancelled)"),
    QT_TRANSLATE_NOOP("LogPhrases", "attempt abandoned: the task was taken over (stale heartbeat)"),
    QT_TRANSLATE_NOOP("LogPhrases", "interrupted by shutdown; will resume"),
    QT_TRANSLATE_NOOP("LogPhrases", "interrupted: the database failed; will resume"),
    QT_TRANSLATE_NOOP("LogPhrases", "recovered after a crash: cancel had been requested"),
    QT_TRANSLATE_NOOP("LogPhrases", "recovered: cancel had been requested"),
    QT_TRANSLATE_NOOP("LogPhrases", "failed: {error}"),
    # ---- retries (the finalizer and the retry policy)
    QT_TRANSLATE_NOOP("LogPhrases", "attempt {attempt} failed ({error}); {why}"),
    QT_TRANSLATE_NOOP("LogPhrases", "not started ({error}); attempt not charged, back in the queue for {seconds} "
                                    "s{more}"),
    QT_TRANSLATE_NOOP("LogPhrases", "attempt {attempt} {why} ({error}){more}"),
    QT_TRANSLATE_NOOP("LogPhrases", "; callee paused {seconds} s{more}"),
    QT_TRANSLATE_NOOP("LogPhrases", "; {callee} paused {seconds} s{more}"),
    QT_TRANSLATE_NOOP("LogPhrases", "; breaker {breaker} ({reason}){more}"),
    QT_TRANSLATE_NOOP("LogPhrases", "; {callee} stopped, not probed: it waits for the operator"),
    QT_TRANSLATE_NOOP("LogPhrases", ", next probe in {seconds} s"),
    QT_TRANSLATE_NOOP("LogPhrases", "retry {n}/{max} in {seconds} s"),
    QT_TRANSLATE_NOOP("LogPhrases", "not retryable"),
    QT_TRANSLATE_NOOP("LogPhrases", "no retries left"),
    QT_TRANSLATE_NOOP("LogPhrases", "not started; attempt not charged"),
    QT_TRANSLATE_NOOP("LogPhrases", "refused by the callee; attempt not charged"),
    QT_TRANSLATE_NOOP("LogPhrases", "could not reach the callee; attempt not charged"),
    QT_TRANSLATE_NOOP("LogPhrases", "stopped the callee until the operator fixes it; attempt not charged"),
    QT_TRANSLATE_NOOP("LogPhrases", "crashed or timed out on {n} attempts: set aside for a person"),
    # ---- schedule-to-start budget and fallback chains
    QT_TRANSLATE_NOOP("LogPhrases", "expired: {why}"),
    QT_TRANSLATE_NOOP("LogPhrases", "not started within max_wait_s = {limit} s (waited {seconds} s)"),
    QT_TRANSLATE_NOOP("LogPhrases", "fallback exhausted: {why}"),
    QT_TRANSLATE_NOOP("LogPhrases", "every step of the fallback chain failed; last: {profile} ({kind}: {error})"),
    QT_TRANSLATE_NOOP("LogPhrases", "fallback: {why}; moved to {profile}"),
    QT_TRANSLATE_NOOP("LogPhrases", "fallback: {why}; answered with the rule reply"),
    QT_TRANSLATE_NOOP("LogPhrases", "{profile} could not serve it ({kind}: {error})"),
    QT_TRANSLATE_NOOP("LogPhrases", "retry by operator"),
    QT_TRANSLATE_NOOP("LogPhrases", "reroute by operator to {profile}"),
    QT_TRANSLATE_NOOP("LogPhrases", "{action} by operator to {profile}"),
    QT_TRANSLATE_NOOP("LogPhrases", "{action} by operator"),
    # ---- API lane
    QT_TRANSLATE_NOOP("LogPhrases", "{request} -> {status} in {seconds} s, {chars} chars{more}"),
    QT_TRANSLATE_NOOP("LogPhrases", "{request} -> {status} in {seconds} s ({kind}{more})"),
    QT_TRANSLATE_NOOP("LogPhrases", "{request} -> not sent: {error}"),
    QT_TRANSLATE_NOOP("LogPhrases", "{request} -> cancelled after {seconds} s"),
    QT_TRANSLATE_NOOP("LogPhrases", "{request} -> {kind} after {seconds} s{more}"),
    QT_TRANSLATE_NOOP("LogPhrases", "POST {path} stream={flag}"),
    QT_TRANSLATE_NOOP("LogPhrases", " (truncated: finish_reason=length)"),
    QT_TRANSLATE_NOOP("LogPhrases", ", retry after {seconds} s"),
    QT_TRANSLATE_NOOP("LogPhrases", "; usage {prompt} in ({cached} cached) / {completion} out"),
    QT_TRANSLATE_NOOP("LogPhrases", "; usage {prompt} in / {completion} out"),
    QT_TRANSLATE_NOOP("LogPhrases", "; no usage reported (estimated from characters)"),
    QT_TRANSLATE_NOOP("LogPhrases", "rate limits: {why}"),
    QT_TRANSLATE_NOOP("LogPhrases", "the provider allows {n} tokens a minute"),
    QT_TRANSLATE_NOOP("LogPhrases", "the provider allows {n} requests a minute"),
    QT_TRANSLATE_NOOP("LogPhrases", "{n} tokens left in the provider's window: waiting for them"),
    QT_TRANSLATE_NOOP("LogPhrases", "{n} tokens left in the provider's window: holding {seconds} s"),
    QT_TRANSLATE_NOOP("LogPhrases", "no request left in the provider's window: waiting for one"),
    QT_TRANSLATE_NOOP("LogPhrases", "no request left in the provider's window: holding {seconds} s"),
    # ---- the economy channel (a provider's Batch API)
    QT_TRANSLATE_NOOP("LogPhrases", "sent in provider batch {batch} ({n} tasks, economy)"),
    QT_TRANSLATE_NOOP("LogPhrases", "provider batch {batch} found again after a restart"),
    QT_TRANSLATE_NOOP("LogPhrases", "back in the queue, not charged: {reason}"),
    QT_TRANSLATE_NOOP("LogPhrases", "canceled by operator; provider batch {batch} ended"),
    QT_TRANSLATE_NOOP("LogPhrases", "success from provider batch {batch} (economy)"),
    QT_TRANSLATE_NOOP("LogPhrases", "its provider batch was never created (interrupted)"),
    QT_TRANSLATE_NOOP("LogPhrases", "the provider did not take the batch ({kind}: {error})"),
    # ---- web lane: runs
    QT_TRANSLATE_NOOP("LogPhrases", "(at lane start) {line}"),
    QT_TRANSLATE_NOOP("LogPhrases", "account {account}: chromium pid {pid}, debug port {port}"),
    QT_TRANSLATE_NOOP("LogPhrases", "answer {chars} chars; driver overhead {ms} ms"),
    QT_TRANSLATE_NOOP("LogPhrases", "done: stream ended"),
    QT_TRANSLATE_NOOP("LogPhrases", "done: page settled"),
    QT_TRANSLATE_NOOP("LogPhrases", "done: page settled (stream still open)"),
    QT_TRANSLATE_NOOP("LogPhrases", "done: {why}"),
    QT_TRANSLATE_NOOP("LogPhrases", "waited: {why}"),
    QT_TRANSLATE_NOOP("LogPhrases", "the site was still generating (its busy indicator showed): waited {seconds} s "
                                    "before typing"),
    QT_TRANSLATE_NOOP("LogPhrases", "an earlier answer's stream ({streams}) was still open: waited {seconds} s "
                                    "before typing"),
    QT_TRANSLATE_NOOP("LogPhrases", "stream ended: the stream our send started ended, then the answer was still "
                                    "{ms} ms"),
    QT_TRANSLATE_NOOP("LogPhrases", "page settled (stream still open): no busy indicator and the answer unchanged for "
                                    "{seconds} s while a stream of ours stayed open (a channel the site keeps open)"),
    QT_TRANSLATE_NOOP("LogPhrases", "page settled: no stream of ours to read the end from, so busy gone and the answer "
                                    "unchanged for settle_ms = {ms} ms"),
    QT_TRANSLATE_NOOP("LogPhrases", "answer not found: {error}; the task goes back uncharged, the account rests"),
    QT_TRANSLATE_NOOP("LogPhrases", "no answer was found for this prompt {n} times: counted as a failure of the task"),
    QT_TRANSLATE_NOOP("LogPhrases", "warning: {warning}"),
    QT_TRANSLATE_NOOP("LogPhrases", "interrupted: another desktop took this account over; will resume"),
    QT_TRANSLATE_NOOP("LogPhrases", "recycling the browser after {n} tasks"),
    QT_TRANSLATE_NOOP("LogPhrases", "the site answered this prompt with only a busy notice {n} times: counted as a "
                                    "failure of the task"),
    QT_TRANSLATE_NOOP("LogPhrases", "conversation {conversation}: turn {turn} in its chat thread (reopening {url})"),
    QT_TRANSLATE_NOOP("LogPhrases", "conversation {conversation}: turn {turn} in its chat thread"),
    QT_TRANSLATE_NOOP("LogPhrases", "conversation {conversation}: its chat thread cannot be reopened on this account; "
                      "replaying {n} earlier turn(s) in a new chat"),
    QT_TRANSLATE_NOOP("LogPhrases", "not started: {error}"),
    QT_TRANSLATE_NOOP("LogPhrases", "evidence: {files}"),
    QT_TRANSLATE_NOOP("LogPhrases", "canceled: generation stopped and page replaced"),
    QT_TRANSLATE_NOOP("LogPhrases", "canceled: browser did not answer within {seconds} s; killed it"),
    # ---- web lane: automatic login
    QT_TRANSLATE_NOOP("LogPhrases", "automatic login: not tried again before {time} "
                      "(one try per {seconds} s; the last one at {last} failed: {error})"),
    QT_TRANSLATE_NOOP("LogPhrases", "automatic login: not tried again before {time} "
                      "(one try per {seconds} s; the last one at {last} succeeded)"),
    QT_TRANSLATE_NOOP("LogPhrases", "automatic login: {account} is logged in again"),
    QT_TRANSLATE_NOOP("LogPhrases", "automatic login: {error}; logging {account} in with its stored credentials "
                                    "({source})"),
    QT_TRANSLATE_NOOP("LogPhrases", "automatic login failed: {why}; next try not before {time}"),
    QT_TRANSLATE_NOOP("LogPhrases", "still logged out after submitting the login form ({error})"),
    # ---- web lane: the browser
    QT_TRANSLATE_NOOP("LogPhrases", "browser: previous chromium is gone; relaunching on a fresh process"),
    QT_TRANSLATE_NOOP("LogPhrases", "browser: the page could not be replaced; browser ended"),
    QT_TRANSLATE_NOOP("LogPhrases", "browser: started chromium pid {pid} on {path}"),
    QT_TRANSLATE_NOOP("LogPhrases", "browser: chromium pid {pid} listening on port {port} (CDP connected)"),
    QT_TRANSLATE_NOOP("LogPhrases", "browser: closing chromium pid {pid} ({n} processes, grace {seconds} s)"),
    QT_TRANSLATE_NOOP("LogPhrases", "browser: chromium pid {pid} closed {how} ({n} processes){more}"),
    QT_TRANSLATE_NOOP("LogPhrases", "gracefully"),
    QT_TRANSLATE_NOOP("LogPhrases", "after SIGKILL"),
    QT_TRANSLATE_NOOP("LogPhrases", "after SIGTERM"),
    QT_TRANSLATE_NOOP("LogPhrases", "; STILL RUNNING: {pids}"),
    QT_TRANSLATE_NOOP("LogPhrases", "browser: chromium pid {pid} killed ({n} processes)"),
    QT_TRANSLATE_NOOP("LogPhrases", "browser: could not write {path}/.mediadesk-browser.json: {error}"),
    QT_TRANSLATE_NOOP("LogPhrases", "session cookies: restored {n} ({domains}) from {file}"),
    QT_TRANSLATE_NOOP("LogPhrases", "session cookies: could not restore {n} from {file}: {error}"),
    QT_TRANSLATE_NOOP("LogPhrases", "session cookies: could not save {file}: {error}"),
    QT_TRANSLATE_NOOP("LogPhrases", "session cookies: not saved ({error})"),
    # ---- web lane: the profile self-check
    QT_TRANSLATE_NOOP("LogPhrases", "self-check: clean{more}"),
    QT_TRANSLATE_NOOP("LogPhrases", " (removed stale {files})"),
    QT_TRANSLATE_NOOP("LogPhrases", "self-check: found residue {name} pid {pid} on {path}: {outcome} ({n} processes); "
                                    "{reason}"),
    QT_TRANSLATE_NOOP("LogPhrases", "terminated"),
    QT_TRANSLATE_NOOP("LogPhrases", "killed after {seconds} s grace"),
    QT_TRANSLATE_NOOP("LogPhrases", "could NOT end pids {pids}"),
    QT_TRANSLATE_NOOP("LogPhrases", "self-check: our recorded port {port} is used by {process}, not on this profile: "
                                    "left alone"),
    QT_TRANSLATE_NOOP("LogPhrases", "self-check: profile {path} is in use by {process}; close it or wait ({reason})"),
    QT_TRANSLATE_NOOP("LogPhrases", "an open browser of this MediaDesk uses it"),
    QT_TRANSLATE_NOOP("LogPhrases", "Chromium's SingletonLock says another computer uses this profile; if that is "
                                    "stale, delete the SingletonLock file in the profile"),
    QT_TRANSLATE_NOOP("LogPhrases", "Chromium's SingletonLock names it and its command line cannot be read"),
    QT_TRANSLATE_NOOP("LogPhrases", "the account lock is held by pid {pid}"),
    QT_TRANSLATE_NOOP("LogPhrases", "an orphaned chromium {type} process whose browser is gone"),
    QT_TRANSLATE_NOOP("LogPhrases", "recorded by this MediaDesk"),
    QT_TRANSLATE_NOOP("LogPhrases", "recorded by MediaDesk pid {pid}, which is gone"),
    QT_TRANSLATE_NOOP("LogPhrases", "it belongs to MediaDesk pid {pid}, which is still running"),
    QT_TRANSLATE_NOOP("LogPhrases", "it only holds our recorded debug port; not on our profile, not ours"),
    QT_TRANSLATE_NOOP("LogPhrases", "the account lock was free and this MediaDesk started it but no longer has it "
                                    "open"),
    QT_TRANSLATE_NOOP("LogPhrases", "the account lock was free and the MediaDesk that started it is gone"),
    QT_TRANSLATE_NOOP("LogPhrases", "it was not started by MediaDesk and cannot be attributed"),
    # ---- hostile answers kept safe
    QT_TRANSLATE_NOOP("LogPhrases", "the answer quoted the API key (the server echoed the Authorization header): "
                                    "stored with *** in its place"),
    QT_TRANSLATE_NOOP("LogPhrases", "stored with U+FFFD in place of {what} that no database can hold as text (a "
                                    "lone surrogate or NUL the provider sent)"),
    # ---- capacity notices (endpoint and account breakers; shown in the log dock) and breaker reasons
    QT_TRANSLATE_NOOP("LogPhrases", "{callee} {name}: breaker {was} -> {breaker} ({reason}); waiting since "
                                    "{since} ({seconds} s) for it to answer a probe (every {interval} s); its "
                                    "tasks stay pending, nothing is charged"),
    QT_TRANSLATE_NOOP("LogPhrases", "{callee} {name}: breaker {was} -> {breaker} ({reason}){more}"),
    QT_TRANSLATE_NOOP("LogPhrases", "{callee} {name}: breaker {was} -> {breaker}"),
    QT_TRANSLATE_NOOP("LogPhrases", "{callee} {name}: probe ok ({what})"),
    QT_TRANSLATE_NOOP("LogPhrases", "{callee} {name}: probe failed ({what}); waiting since {since} ({seconds} s) "
                                    "for it to answer a probe (every {interval} s); its tasks stay pending, "
                                    "nothing is charged"),
    QT_TRANSLATE_NOOP("LogPhrases", "{callee} {name}: probe failed ({what}){more}"),
    QT_TRANSLATE_NOOP("LogPhrases", "{callee} {name}: {reason}; no task is sent and no probe either until the "
                                    "config is fixed and MediaDesk restarted"),
    QT_TRANSLATE_NOOP("LogPhrases", "{callee} {name}: {reason}; no task is sent and no probe either until the "
                                    "key is fixed and the endpoint resumed (console: Exceptions, Check and resume) or "
                                    "MediaDesk started again; its tasks stay pending, nothing is charged"),
    QT_TRANSLATE_NOOP("LogPhrases", "{callee} {name}: {reason}; no task is sent and no probe either until the "
                                    "config is fixed and the endpoint resumed (console: Exceptions, Check and "
                                    "resume) or MediaDesk started again; its tasks stay pending, nothing is charged"),
    QT_TRANSLATE_NOOP("LogPhrases", "{callee} {name}: resumed by the operator (it was stopped: {reason})"),
    QT_TRANSLATE_NOOP("LogPhrases", "stopped: {error}"),
    QT_TRANSLATE_NOOP("LogPhrases", "endpoint"),
    QT_TRANSLATE_NOOP("LogPhrases", "account"),
    QT_TRANSLATE_NOOP("LogPhrases", "closed"),
    QT_TRANSLATE_NOOP("LogPhrases", "open"),
    QT_TRANSLATE_NOOP("LogPhrases", "half_open"),
    QT_TRANSLATE_NOOP("LogPhrases", "no probe for this callee: one trial task decides"),
    QT_TRANSLATE_NOOP("LogPhrases", "probe error: {error}"),
    QT_TRANSLATE_NOOP("LogPhrases", "the trial task failed"),
    QT_TRANSLATE_NOOP("LogPhrases", "{failed} of the last {n} calls failed"),
    QT_TRANSLATE_NOOP("LogPhrases", "refused with no success for {seconds} s"),
    QT_TRANSLATE_NOOP("LogPhrases", "unavailable: {error}"),
    QT_TRANSLATE_NOOP("LogPhrases", "out of credit: {error}"),
    # ---- web lane: the site's own capacity signals (outage, usage limit, bot check)
    QT_TRANSLATE_NOOP("LogPhrases", "site unreachable: {error}"),
    QT_TRANSLATE_NOOP("LogPhrases", "site down: {error}; the task goes back uncharged and the account's breaker "
                                    "probes the site"),
    QT_TRANSLATE_NOOP("LogPhrases", "network: {error} and the site does not answer ({answer}): the run is cut"),
    QT_TRANSLATE_NOOP("LogPhrases", "network: {error}, but the site answers ({answer}): the run goes on"),
    QT_TRANSLATE_NOOP("LogPhrases", "usage limit: account {account} {rest}; it takes no task until then"),
    QT_TRANSLATE_NOOP("LogPhrases", "challenge: account {account} needs a person: {error}; resolve it with the "
                                    "account's 'Log in' (a visible browser on its profile); the task goes back "
                                    "uncharged"),
    QT_TRANSLATE_NOOP("LogPhrases", "account {account} needs a person: {error}"),
    # ---- health probes' answers (API endpoint, web account)
    QT_TRANSLATE_NOOP("LogPhrases", "not started"),
    QT_TRANSLATE_NOOP("LogPhrases", "no answer within {seconds} s"),
    QT_TRANSLATE_NOOP("LogPhrases", "HTTP {status}"),
    QT_TRANSLATE_NOOP("LogPhrases", "stopped"),
    QT_TRANSLATE_NOOP("LogPhrases", "an operator is logging in"),
    QT_TRANSLATE_NOOP("LogPhrases", "a run is in progress"),
    QT_TRANSLATE_NOOP("LogPhrases", "needs login: {error}"),
    QT_TRANSLATE_NOOP("LogPhrases", "logged in, prompt box ready"),
)


@dataclass(frozen=True)
class LogPhrase:
    """One template: ``template`` is the English text with ``{name}`` placeholders (also the
    translation's source text); ``regex`` matches a whole stored line of it."""

    template: str
    regex: re.Pattern[str]
    names: tuple[str, ...]
    #: The literal text before the first placeholder (a cheap test before the regex).
    prefix: str = ""

    @property
    def shape(self) -> str:
        """The template with ``{}`` for every value (what the source scan compares with)."""
        return _FIELD.sub("{}", self.template)

    @property
    def open_end(self) -> bool:
        """Ends with an optional suffix (``{more}``): words appended to the line go there."""
        if not self.names or KINDS.get(self.names[-1]) != "opt":
            return False
        return self.template.endswith("{" + self.names[-1] + "}")


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
    first = _FIELD.search(template)
    prefix = template if first is None else template[:first.start()]
    return LogPhrase(template, re.compile("".join(out), re.S), tuple(names), prefix)


PHRASES: tuple[LogPhrase, ...] = tuple(_compile(t) for t in _TEMPLATES)

#: Nested words deeper than this are shown as stored (a guard; real lines nest two or three deep).
_MAX_DEPTH = 6


def match(line: str) -> tuple[LogPhrase, dict[str, str]] | None:
    """The first template that matches the whole ``line``, with the values it holds."""
    for phrase in PHRASES:
        if not line.startswith(phrase.prefix):
            continue
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
