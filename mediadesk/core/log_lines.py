"""Task-log lines as data: a message id with its values, rendered in the reader's language.

Log writers pass a :class:`LogText` made from a :class:`LOG` phrase (``LOG.attempt_started(attempt=2)``).
The store keeps the id and values beside the English text; the console renders the template through
Qt's translation (context :data:`CONTEXT`). Values are shown as given (callers format numbers),
except nested :class:`LogText` and tuples. A phrase's id is its attribute name and is stored:
renaming one shows its old rows as their stored English. Qt-free: callers pass the translate function.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

__all__ = ["CONTEXT", "LOG", "PHRASES", "LogText", "LogValue", "Phrase", "breaker_word", "callee_word", "english"]

#: The translation context of every template (``QCoreApplication.translate(CONTEXT, template)``).
CONTEXT = "LogPhrases"

#: A value in a line: shown as given (str, int), or rendered in turn (a LogText, a tuple joined).
LogValue: TypeAlias = "str | int | LogText | tuple[LogValue, ...]"

_FIELD = re.compile(r"\{([a-z_]+)\}")


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """Marks ``text`` for lupdate; returns it unchanged."""
    return text


@dataclass(frozen=True)
class LogText:
    """One line (or a piece of one): a phrase's ``id`` and its values, in template order."""

    id: str
    params: tuple[tuple[str, LogValue], ...] = ()

    @property
    def values(self) -> dict[str, LogValue]:
        return dict(self.params)

    @property
    def known(self) -> bool:
        """This version has the phrase (and every nested one): a row from a newer MediaDesk may not."""
        return self.id in PHRASES and all(_known(v) for _k, v in self.params)

    def render(self, tr: Callable[[str], str]) -> str:
        """The line in the language of ``tr`` (template -> translation; "" when there is none)."""
        template = PHRASES[self.id].template
        shown = {name: _render(value, tr) for name, value in self.params}
        return _FIELD.sub(lambda m: shown[m.group(1)], tr(template) or template)

    def english(self) -> str:
        return self.render(_same)

    def __str__(self) -> str:
        return self.english()

    # ------------------------------------------------------------------ storage
    def params_json(self) -> str:
        """The values as JSON (ASCII: a lone surrogate or NUL stays storable as ``\\uXXXX``)."""
        return json.dumps({k: _to_json(v) for k, v in self.params}, separators=(",", ":"))

    def to_json(self) -> str:
        return json.dumps(_to_json(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> LogText:
        return _text_of(json.loads(text))

    @classmethod
    def from_stored(cls, message_id: str, params_json: str | None) -> LogText:
        """The form the store keeps: the id and :meth:`params_json`."""
        return _text_of({"id": message_id, "params": json.loads(params_json) if params_json else {}})


def _same(template: str) -> str:
    return template


def _known(value: LogValue) -> bool:
    if isinstance(value, LogText):
        return value.known
    if isinstance(value, tuple):
        return all(_known(v) for v in value)
    return True


def _render(value: LogValue, tr: Callable[[str], str]) -> str:
    if isinstance(value, LogText):
        return value.render(tr)
    if isinstance(value, tuple):
        return "".join(_render(v, tr) for v in value)
    return str(value)


def _to_json(value: LogValue) -> Any:
    if isinstance(value, LogText):
        return {"id": value.id, "params": {k: _to_json(v) for k, v in value.params}}
    if isinstance(value, tuple):
        return [_to_json(v) for v in value]
    return value


def _value_of(data: Any) -> LogValue:
    if isinstance(data, dict):
        return _text_of(data)
    if isinstance(data, list):
        return tuple(_value_of(v) for v in data)
    if isinstance(data, bool) or not isinstance(data, str | int):
        raise ValueError(f"not a log value: {data!r}")
    return data


def _text_of(data: Mapping[str, Any]) -> LogText:
    params = data.get("params") or {}
    return LogText(str(data["id"]), tuple((str(k), _value_of(v)) for k, v in params.items()))


class Phrase:
    """A template with ``{name}`` placeholders; calling it with exactly those values gives a LogText."""

    def __init__(self, template: str) -> None:
        self.template = template
        self.names = tuple(m.group(1) for m in _FIELD.finditer(template))
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"{template!r}: a placeholder twice")
        self.id = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.id = name

    def __call__(self, **values: LogValue) -> LogText:
        if set(values) != set(self.names):
            raise TypeError(f"log phrase {self.id} ({self.template!r}) takes {sorted(self.names)}, "
                            f"got {sorted(values)}")
        return LogText(self.id, tuple((name, values[name]) for name in self.names))

    def __repr__(self) -> str:
        return f"Phrase({self.id}: {self.template!r})"


class LOG:
    """Every phrase that reaches a task's log or the log dock (the attribute name is the stored id)."""

    # ---- the store: attempts and operator actions
    attempt_started = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "attempt {attempt} started"))
    canceled_while_pending = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "canceled while pending"))
    cancel_requested = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "cancel requested by operator"))
    requeued_by_operator = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "re-queued by operator"))
    reused_answer = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "reused the answer of task {task}: nothing sent, no cost"))
    resolved_with_note = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "resolved by operator: {action} ({note})"))
    resolved = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "resolved by operator: {action}"))
    not_run = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "not run: {why}"))
    earlier_turn_ended = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "an earlier turn ({task}) of conversation {conversation} ended {state}"))
    state_failed = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "failed"))
    state_canceled = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "canceled"))
    # ---- the lane: how an attempt ended
    success = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "success in {seconds} s{more}"))
    truncated_at_limit = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", " (truncated: the provider stopped at its length limit)"))
    canceled_while_running = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "canceled {who} while running"))
    by_operator = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "by operator"))
    attempt_was_cancelled = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "(the attempt was cancelled)"))
    attempt_abandoned = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "attempt abandoned: the task was taken over (stale heartbeat)"))
    interrupted_by_shutdown = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "interrupted by shutdown; will resume"))
    interrupted_database_failed = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "interrupted: the database failed; will resume"))
    recovered_after_crash_cancel = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "recovered after a crash: cancel had been requested"))
    recovered_cancel = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "recovered: cancel had been requested"))
    failed = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "failed: {error}"))
    # ---- retries (the finalizer and the retry policy)
    attempt_failed = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "attempt {attempt} failed ({error}); {why}"))
    not_started_requeued = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "not started ({error}); attempt not charged, back in the queue for {seconds} s{more}"))
    attempt_requeued = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "attempt {attempt} {why} ({error}){more}"))
    callee_paused = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "; callee paused {seconds} s{more}"))
    named_callee_paused = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "; {callee} paused {seconds} s{more}"))
    breaker_now = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "; breaker {breaker} ({reason}){more}"))
    callee_stopped_not_probed = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "; {callee} stopped, not probed: it waits for the operator"))
    next_probe_in = Phrase(QT_TRANSLATE_NOOP("LogPhrases", ", next probe in {seconds} s"))
    retry_in = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "retry {n}/{max} in {seconds} s"))
    not_retryable = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "not retryable"))
    no_retries_left = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "no retries left"))
    not_started_not_charged = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "not started; attempt not charged"))
    refused_not_charged = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "refused by the callee; attempt not charged"))
    unreachable_not_charged = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "could not reach the callee; attempt not charged"))
    stopped_callee_not_charged = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "stopped the callee until the operator fixes it; attempt not charged"))
    quarantined = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "crashed or timed out on {n} attempts: set aside for a person"))
    # ---- schedule-to-start budget and fallback chains
    expired = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "expired: {why}"))
    not_started_within = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "not started within max_wait_s = {limit} s (waited {seconds} s)"))
    fallback_exhausted = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "fallback exhausted: {why}"))
    fallback_all_failed = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "every step of the fallback chain failed; last: {profile} ({kind}: {error})"))
    fallback_moved = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "fallback: {why}; moved to {profile}"))
    fallback_rule_reply = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "fallback: {why}; answered with the rule reply"))
    could_not_serve = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "{profile} could not serve it ({kind}: {error})"))
    retry_by_operator = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "retry by operator"))
    reroute_by_operator = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "reroute by operator to {profile}"))
    # ---- API lane
    api_answered = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "{request} -> {status} in {seconds} s, {chars} chars{more}"))
    api_http_failed = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "{request} -> {status} in {seconds} s ({kind}{more})"))
    api_not_sent = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "{request} -> not sent: {error}"))
    api_cancelled = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "{request} -> cancelled after {seconds} s"))
    api_failed = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "{request} -> {kind} after {seconds} s{more}"))
    api_request = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "POST {path} stream={flag}"))
    truncated_finish_reason = Phrase(QT_TRANSLATE_NOOP("LogPhrases", " (truncated: finish_reason=length)"))
    retry_after = Phrase(QT_TRANSLATE_NOOP("LogPhrases", ", retry after {seconds} s"))
    usage_cached = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "; usage {prompt} in ({cached} cached) / {completion} out"))
    usage = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "; usage {prompt} in / {completion} out"))
    usage_estimated = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "; no usage reported (estimated from characters)"))
    thinking_apart = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "; thinking kept apart: {chars} chars"))
    thinking_apart_tokens = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "; thinking kept apart: {chars} chars, {tokens} tokens"))
    rate_limits = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "rate limits: {why}"))
    provider_tpm = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "the provider allows {n} tokens a minute"))
    provider_rpm = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "the provider allows {n} requests a minute"))
    tokens_left_waiting = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "{n} tokens left in the provider's window: waiting for them"))
    tokens_left_holding = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "{n} tokens left in the provider's window: holding {seconds} s"))
    no_request_left_waiting = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "no request left in the provider's window: waiting for one"))
    no_request_left_holding = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "no request left in the provider's window: holding {seconds} s"))
    # ---- the economy channel (a provider's Batch API)
    economy_sent = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "sent in provider batch {batch} ({n} tasks, economy)"))
    economy_found_again = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "provider batch {batch} found again after a restart"))
    economy_requeued = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "back in the queue, not charged: {reason}"))
    economy_canceled = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "canceled by operator; provider batch {batch} ended"))
    economy_success = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "success from provider batch {batch} (economy)"))
    economy_never_created = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "its provider batch was never created (interrupted)"))
    economy_not_taken = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "the provider did not take the batch ({kind}: {error})"))
    # ---- web lane: runs
    at_lane_start = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "(at lane start) {line}"))
    account_browser = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "account {account}: chromium pid {pid}, debug port {port}"))
    web_answer = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "answer {chars} chars; driver overhead {ms} ms"))
    prompt_attached = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "the prompt ({chars} chars) is longer than the site's paste_limit ({limit}): it went as the "
        "attached file prompt.txt, with the adapter's attach_note typed in the box"))
    done = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "done: {why}"))
    waited = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "waited: {why}"))
    waited_site_busy = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "the site was still generating (its busy indicator showed): waited {seconds} s before typing"))
    waited_stream_open = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "an earlier answer's stream ({streams}) was still open: waited {seconds} s before typing"))
    why_stream_ended = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "stream ended: the stream our send started ended, then the answer was still {ms} ms"))
    why_settled_stream_open = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "page settled (stream still open): no busy indicator and the answer unchanged for "
        "{seconds} s while a stream of ours stayed open (a channel the site keeps open)"))
    why_settled = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "page settled: no stream of ours to read the end from, so busy gone and the answer "
        "unchanged for settle_ms = {ms} ms"))
    answer_from_stream = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "answer read from the site's stream ({frames} frames): {chars} chars as the model wrote "
        "them, {reasoning} chars of reasoning kept apart"))
    answer_from_page = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "answer read from the page, not the stream: {why}"))
    stream_no_answer = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "the adapter's stream decoder found no answer in {frames} frames (has the site changed "
        "its stream's format?)"))
    stream_not_kept = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "nothing of our stream could be kept to read the answer from (see the stream's events)"))
    answer_not_found = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "answer not found: {error}; the task goes back uncharged, the account rests"))
    no_answer_counted = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "no answer was found for this prompt {n} times: counted as a failure of the task"))
    warning = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "warning: {warning}"))
    interrupted_taken_over = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "interrupted: another desktop took this account over; will resume"))
    recycling_browser = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "recycling the browser after {n} tasks"))
    busy_notice_counted = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "the site answered this prompt with only a busy notice {n} times: counted as a failure of the "
        "task"))
    turn_reopening = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "conversation {conversation}: turn {turn} in its chat thread (reopening {url})"))
    turn_in_thread = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "conversation {conversation}: turn {turn} in its chat thread"))
    turns_replayed = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "conversation {conversation}: its chat thread cannot be reopened on this account; "
        "replaying {n} earlier turn(s) in a new chat"))
    not_started = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "not started: {error}"))
    evidence = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "evidence: {files}"))
    canceled_page_replaced = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "canceled: generation stopped and page replaced"))
    canceled_browser_killed = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "canceled: browser did not answer within {seconds} s; killed it"))
    # ---- web lane: automatic login
    autologin_not_before_failed = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "automatic login: not tried again before {time} "
        "(one try per {seconds} s; the last one at {last} failed: {error})"))
    autologin_not_before_succeeded = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "automatic login: not tried again before {time} "
        "(one try per {seconds} s; the last one at {last} succeeded)"))
    autologin_done = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "automatic login: {account} is logged in again"))
    autologin_trying = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "automatic login: {error}; logging {account} in with its stored credentials ({source})"))
    autologin_failed = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "automatic login failed: {why}; next try not before {time}"))
    still_logged_out = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "still logged out after submitting the login form ({error})"))
    # ---- web lane: the browser
    browser_relaunching = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "browser: previous chromium is gone; relaunching on a fresh process"))
    browser_page_not_replaced = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "browser: the page could not be replaced; browser ended"))
    browser_started = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "browser: started chromium pid {pid} on {path}"))
    browser_listening = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "browser: chromium pid {pid} listening on port {port} (CDP connected)"))
    browser_closing = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "browser: closing chromium pid {pid} ({n} processes, grace {seconds} s)"))
    browser_closed = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "browser: chromium pid {pid} closed {how} ({n} processes){more}"))
    gracefully = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "gracefully"))
    after_sigkill = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "after SIGKILL"))
    after_sigterm = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "after SIGTERM"))
    still_running = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "; STILL RUNNING: {pids}"))
    browser_killed = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "browser: chromium pid {pid} killed ({n} processes)"))
    browser_record_not_written = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "browser: could not write {path}/.mediadesk-browser.json: {error}"))
    cookies_restored = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "session cookies: restored {n} ({domains}) from {file}"))
    cookies_not_restored = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "session cookies: could not restore {n} from {file}: {error}"))
    cookies_not_saved_to = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "session cookies: could not save {file}: {error}"))
    cookies_not_saved = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "session cookies: not saved ({error})"))
    # ---- web lane: the profile self-check
    selfcheck_clean = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "self-check: clean{more}"))
    removed_stale = Phrase(QT_TRANSLATE_NOOP("LogPhrases", " (removed stale {files})"))
    selfcheck_residue = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "self-check: found residue {name} pid {pid} on {path}: {outcome} ({n} processes); {reason}"))
    terminated = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "terminated"))
    killed_after_grace = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "killed after {seconds} s grace"))
    could_not_end = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "could NOT end pids {pids}"))
    selfcheck_port_not_ours = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "self-check: our recorded port {port} is used by {process}, not on this profile: left alone"))
    selfcheck_profile_in_use = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "self-check: profile {path} is in use by {process}; close it or wait ({reason})"))
    in_use_by_open_browser = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "an open browser of this MediaDesk uses it"))
    singleton_other_computer = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "Chromium's SingletonLock says another computer uses this profile; if that is stale, delete "
        "the SingletonLock file in the profile"))
    singleton_unreadable = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "Chromium's SingletonLock names it and its command line cannot be read"))
    lock_held_by = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "the account lock is held by pid {pid}"))
    orphaned_process = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "an orphaned chromium {type} process whose browser is gone"))
    recorded_by_us = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "recorded by this MediaDesk"))
    recorded_by_gone = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "recorded by MediaDesk pid {pid}, which is gone"))
    belongs_to_running = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "it belongs to MediaDesk pid {pid}, which is still running"))
    holds_our_port_only = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "it only holds our recorded debug port; not on our profile, not ours"))
    started_by_us_not_open = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "the account lock was free and this MediaDesk started it but no longer has it open"))
    started_by_gone = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "the account lock was free and the MediaDesk that started it is gone"))
    not_attributable = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "it was not started by MediaDesk and cannot be attributed"))
    # ---- hostile answers kept safe
    key_quoted = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "the answer quoted the API key (the server echoed the Authorization header): "
        "stored with *** in its place"))
    replaced_unstorable = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "stored with U+FFFD in place of {what} that no database can hold as text (a lone surrogate "
        "or NUL the provider sent)"))
    with_note = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "{line}; {note}"))
    #: someone else's words (a server's error text as a probe's answer): shown as they came
    as_is = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "{text}"))
    # ---- capacity notices (endpoint and account breakers; shown in the log dock) and breaker reasons
    breaker_opened_waiting = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "{callee} {name}: breaker {was} -> {breaker} ({reason}); waiting since {since} ({seconds} s) "
        "for it to answer a probe (every {interval} s); its tasks stay pending, nothing is charged"))
    breaker_changed_reason = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "{callee} {name}: breaker {was} -> {breaker} ({reason}){more}"))
    breaker_changed = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "{callee} {name}: breaker {was} -> {breaker}"))
    probe_ok = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "{callee} {name}: probe ok ({what})"))
    probe_failed_waiting = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "{callee} {name}: probe failed ({what}); waiting since {since} ({seconds} s) for it to "
        "answer a probe (every {interval} s); its tasks stay pending, nothing is charged"))
    probe_failed = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "{callee} {name}: probe failed ({what}){more}"))
    stopped_until_key_fixed = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "{callee} {name}: {reason}; no task is sent and no probe either until the key is fixed and "
        "the endpoint resumed (console: Exceptions, Check and resume) or MediaDesk started again; its tasks stay "
        "pending, nothing is charged"))
    stopped_until_config_fixed = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "{callee} {name}: {reason}; no task is sent and no probe either until the config is fixed "
        "and the endpoint resumed (console: Exceptions, Check and resume) or MediaDesk started again; its tasks "
        "stay pending, nothing is charged"))
    resumed_by_operator = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "{callee} {name}: resumed by the operator (it was stopped: {reason})"))
    stopped = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "stopped: {error}"))
    callee_endpoint = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "endpoint"))
    callee_account = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "account"))
    breaker_closed = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "closed"))
    breaker_open = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "open"))
    breaker_half_open = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "half_open"))
    no_probe = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "no probe for this callee: one trial task decides"))
    probe_error = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "probe error: {error}"))
    trial_failed = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "the trial task failed"))
    calls_failed = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "{failed} of the last {n} calls failed"))
    refused_too_long = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "refused with no success for {seconds} s"))
    unavailable = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "unavailable: {error}"))
    out_of_credit = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "out of credit: {error}"))
    # ---- web lane: the site's own capacity signals (outage, usage limit, bot check)
    site_unreachable = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "site unreachable: {error}"))
    site_down = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "site down: {error}; the task goes back uncharged and the account's breaker probes the site"))
    network_cut = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "network: {error} and the site does not answer ({answer}): the run is cut"))
    network_goes_on = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "network: {error}, but the site answers ({answer}): the run goes on"))
    usage_limit = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "usage limit: account {account} {rest}; it takes no task until then"))
    challenge = Phrase(QT_TRANSLATE_NOOP(
        "LogPhrases", "challenge: account {account} needs a person: {error}; resolve it with the account's "
        "'Log in' (a visible browser on its profile); the task goes back uncharged"))
    needs_a_person = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "account {account} needs a person: {error}"))
    # ---- health probes' answers (API endpoint, web account)
    probe_not_started = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "not started"))
    no_answer_within = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "no answer within {seconds} s"))
    http_status = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "HTTP {status}"))
    probe_stopped = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "stopped"))
    operator_logging_in = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "an operator is logging in"))
    run_in_progress = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "a run is in progress"))
    needs_login = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "needs login: {error}"))
    logged_in_ready = Phrase(QT_TRANSLATE_NOOP("LogPhrases", "logged in, prompt box ready"))


def _phrases() -> Iterator[Phrase]:
    for value in vars(LOG).values():
        if isinstance(value, Phrase):
            yield value


#: Every phrase by its id.
PHRASES: dict[str, Phrase] = {p.id: p for p in _phrases()}


def english(value: LogValue) -> str:
    """A value as the English text it stands for."""
    return _render(value, _same)


def callee_word(kind: str) -> LogValue:
    """"endpoint" / "account" (a callee's kind) as words of ours; another kind as given."""
    return {"endpoint": LOG.callee_endpoint(), "account": LOG.callee_account()}.get(kind, kind)


def breaker_word(state: str) -> LogValue:
    """A breaker state's value ("closed", "open", "half_open") as words of ours."""
    return {"closed": LOG.breaker_closed(), "open": LOG.breaker_open(),
            "half_open": LOG.breaker_half_open()}.get(state, state)
