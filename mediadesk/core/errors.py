"""Error kinds of a failed run, and whether each is worth another attempt."""

from __future__ import annotations

from enum import Enum


class ErrorKind(str, Enum):
    # retryable
    TIMEOUT = "timeout"
    RATE_LIMITED = "rate_limited"          # HTTP 429
    SERVER_ERROR = "server_error"          # HTTP 5xx
    CONNECTION = "connection"              # reset, refused, protocol error
    HEARTBEAT_TIMEOUT = "heartbeat_timeout"
    OWNER_LOST = "owner_lost"              # the process that ran it died (recovered at start)
    BROWSER_CRASH = "browser_crash"
    SITE_ERROR = "site_error"              # the chat page showed an error mid-run
    TRUNCATED_STREAM = "truncated_stream"  # the stream ended without [DONE] and without finish_reason
    # not retryable
    BAD_REQUEST = "bad_request"            # HTTP 400/404/422
    AUTH = "auth"                          # HTTP 401/403, missing API key
    NEEDS_LOGIN = "needs_login"
    PROFILE_IN_USE = "profile_in_use"
    CANCELED = "canceled"
    CONFIG = "config"                      # profile vanished, adapter broken, ...
    INTERNAL = "internal"                  # a bug of ours: never retried blindly
    OUT_OF_CREDIT = "out_of_credit"        # 429 insufficient_quota: the account, not the load
    EXPIRED = "expired"                    # waited longer than the profile's max_wait_s to start
    QUARANTINED = "quarantined"            # crashed a browser/page or timed out on N attempts
    CONVERSATION_BROKEN = "conversation_broken"  # an earlier turn of its route_key failed for good
    FALLBACK_EXHAUSTED = "fallback_exhausted"    # every profile of the fallback chain failed
    ANSWER_TOO_LARGE = "answer_too_large"  # the answer passed the profile's max_answer_chars
    CHALLENGE = "challenge"                # a bot check on the site: the account waits for a person
    ANSWER_NOT_FOUND = "answer_not_found"  # the site answered, but nothing on the page proved to be the answer
    EMPTY_ANSWER = "empty_answer"          # the site's answer holds no text
    ANSWER_CUT = "answer_cut"              # finish_reason length with no answer: max_tokens all spent thinking
    PROMPT_TOO_LONG_FOR_SITE = "prompt_too_long_for_site"  # over the site adapter's paste_limit, no `attach`: not sent

    @property
    def retryable(self) -> bool:
        return self in RETRYABLE


RETRYABLE = frozenset(
    {
        ErrorKind.TIMEOUT,
        ErrorKind.RATE_LIMITED,
        ErrorKind.SERVER_ERROR,
        ErrorKind.CONNECTION,
        ErrorKind.HEARTBEAT_TIMEOUT,
        ErrorKind.OWNER_LOST,
        ErrorKind.BROWSER_CRASH,
        ErrorKind.SITE_ERROR,
        ErrorKind.TRUNCATED_STREAM,
        ErrorKind.ANSWER_NOT_FOUND,
    }
)


#: Kinds of an ``unavailable`` failure that stop the callee until the operator acts (no retry and no
#: probe can help): a TLS error (``config``), the API key rejected (``auth``, HTTP 401/403).
STOPPING_KINDS = frozenset({ErrorKind.CONFIG, ErrorKind.AUTH})


class TaskFailure(Exception):
    """Raised by a runner to end an attempt. The lane turns it into a retry or a final failure."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        retry_after_s: float | None = None,
        retryable: bool | None = None,
        not_started: bool = False,
        refusal: bool | None = None,
        unavailable: bool = False,
    ) -> None:
        super().__init__(message)
        #: The callee refused for lack of capacity (429, 503 with Retry-After, a busy chat session):
        #: its capacity speaking, not a failure of the task. It pauses the endpoint and never costs
        #: the task an attempt. Every ``rate_limited`` failure is a refusal unless said otherwise.
        self.refusal = (kind is ErrorKind.RATE_LIMITED) if refusal is None else refusal
        #: The callee could not be reached at all (connection refused, 502/503/504 without a wait):
        #: the endpoint is down, not the task broken. It opens the endpoint's breaker; no attempt
        #: is charged.
        self.unavailable = unavailable
        #: The work never began (e.g. the profile is held by another process): the attempt is not
        #: charged and the task waits ``retry_after_s`` before it may be dispatched again.
        self.not_started = not_started
        self.kind = kind
        self.message = message
        self.retry_after_s = retry_after_s
        self.retryable = kind.retryable if retryable is None else retryable

    def __repr__(self) -> str:
        return f"TaskFailure({self.kind.value}, {self.message!r})"
