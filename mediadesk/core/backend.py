"""The contract between a lane (scheduling) and a backend (the work itself: an HTTP call, a browser run).

A lane owns *when* and *how many*; a backend owns *how*. The lane loop never changes for a new kind
of backend: the API lane and the web lane are the same loop over different backends.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from mediadesk.core.log_lines import LogText
from mediadesk.core.token_rate import RateHints
from mediadesk.core.usage import Usage, estimate_usage

#: A cheap health check: (healthy, what was seen, in words for the log dock). Never raises.
Probe = Callable[[], Awaitable[tuple[bool, LogText]]]
#: Why a backend takes no task now and what would change it, as (reason, action) with action one of
#: "login", "wait", "fix"; None when it can take one.
UnavailableReason = Callable[[], tuple[str, str] | None]


class CheckVerdict(str, Enum):
    """What an authenticated check of an endpoint (the setup editor's Test, the operator's Resume) found."""

    OK = "ok"                      # it answered a one-token request: the key works
    KEY_REJECTED = "key_rejected"  # HTTP 401/403: the key (or its absence) is refused
    TLS = "tls"                    # a TLS error: it cannot answer as configured
    FAILED = "failed"              # anything else: not there, 5xx, a wrong model, no key configured


class LoginFlow(Protocol):
    """An operator's interactive login (a visible browser on the account's profile); True once
    logged in. A bot check solved by a person is the same flow."""

    def __call__(self, *, on_status: Callable[[str], None] | None = None) -> Awaitable[bool]: ...


#: An authenticated one-token request to an endpoint: (verdict, what was seen, key-free).
EndpointCheck = Callable[[], Awaitable[tuple[CheckVerdict, str]]]


class AdapterCheckFlow(Protocol):
    """``adapter check`` in the backend's own browser (it holds the account's profile); the result is
    the web provider's report."""

    def __call__(
        self, *, prompt: str | None, out_dir: Path, progress: Callable[[str], None] = ...
    ) -> Awaitable[Any]: ...


@dataclass(frozen=True)
class TaskSpec:
    """What a backend needs for one attempt. Settings are resolved at dispatch time, so a profile
    edit (e.g. the ``need_empty_prompt`` toggle) applies to every task dispatched after it."""

    task_id: str
    profile: str
    prompt: str
    attempt: int
    #: The system prompt for this attempt (task override, else profile default). None = none.
    instructions: str | None
    #: Reasoning models: send the user's content only, no instructions at all.
    need_empty_prompt: bool = False
    #: Conversation key: tasks sharing it are turns of one conversation, run one at a time in order.
    route_key: str | None = None
    #: Earlier turns of this conversation as (prompt, answer), oldest first. Empty for a first turn.
    #: The API sends them as the message history; the web lane types a later turn into the same
    #: chat thread instead of starting a new chat.
    history: tuple[tuple[str, str], ...] = ()
    #: The most tokens the answer may use (the profile's ``max_tokens``; sent to the API). None: the server's.
    max_tokens: int | None = None

    def effective_instructions(self) -> str | None:
        """The instructions to send, honouring ``need_empty_prompt``."""
        if self.need_empty_prompt:
            return None
        return self.instructions or None


class Answer(str):
    """An answer text with what the backend knows about it. ``truncated``: the provider stopped at
    its output limit (``finish_reason: "length"``); a success, but not the whole answer, and marked
    so in the task table, the console and exports. ``usage``: the tokens the provider counted (None:
    it reported none; the lane then stores an estimate). ``hints``: the provider's ``x-ratelimit-*``
    headers, for the callee's token gate. ``reasoning``: the model's thinking, kept apart from the
    answer (None: none was seen). ``source``: what gave the text (a web run: ``"stream"`` or
    ``"page"``). A backend may return a plain ``str``."""

    truncated: bool
    usage: Usage | None
    hints: RateHints | None
    reasoning: str | None
    source: str | None

    def __new__(cls, text: str, *, truncated: bool = False, usage: Usage | None = None,
                hints: RateHints | None = None, reasoning: str | None = None,
                source: str | None = None) -> Answer:
        obj = super().__new__(cls, text)
        obj.truncated = truncated
        obj.usage = usage
        obj.hints = hints
        obj.reasoning = reasoning
        obj.source = source
        return obj


def is_truncated(answer: str) -> bool:
    """True for an :class:`Answer` marked truncated."""
    return bool(getattr(answer, "truncated", False))


def answer_usage(answer: str, task: TaskSpec) -> Usage:
    """The provider's usage of ``answer`` when it reported one, else an estimate from the characters
    sent and received (marked estimated): web runs, and servers that send no ``usage``."""
    usage = getattr(answer, "usage", None)
    if isinstance(usage, Usage):
        return usage
    return estimate_usage(task.prompt, str(answer), system=task.effective_instructions(), history=task.history)


def answer_reasoning(answer: str) -> str | None:
    """The thinking an :class:`Answer` carries apart from its text (None: none)."""
    reasoning = getattr(answer, "reasoning", None)
    return reasoning if isinstance(reasoning, str) and reasoning else None


def answer_hints(answer: str) -> RateHints | None:
    hints = getattr(answer, "hints", None)
    return hints if isinstance(hints, RateHints) else None


class RunContext(Protocol):
    """Handed to a backend for one attempt."""

    #: Lane label used as the log prefix, e.g. ``api:writer`` or ``web:acct-a``.
    lane: str
    #: A directory where the backend may store evidence for this task (screenshots, HTML).
    evidence_dir: Path

    def log(self, text: LogText) -> None:
        """Append a timestamped line to this task's log (never put secrets here)."""


class HealthStatus(str, Enum):
    """What the console shows for a lane's backend (an account or an endpoint)."""

    READY = "ready"
    BUSY = "busy"
    NEEDS_LOGIN = "needs_login"
    DISABLED = "disabled"
    ERROR = "error"
    STARTING = "starting"
    #: A bot check / CAPTCHA on the site: the account takes nothing until a person has solved it.
    CHALLENGE = "challenge"
    #: A usage limit with a reset time: the account takes nothing until then, and comes back by itself.
    RESTING = "resting"


def effective_health(enabled: bool, health: str, running: int) -> HealthStatus:
    """The health an operator sees: the switch wins (``disabled``), and a ready backend with work
    in progress is ``busy``. One rule for the lane stats and the accounts panel."""
    if not enabled:
        return HealthStatus.DISABLED
    status = HealthStatus(health)
    if status in (HealthStatus.READY, HealthStatus.BUSY):
        return HealthStatus.BUSY if running else HealthStatus.READY
    return status


@runtime_checkable
class LaneBackend(Protocol):
    """The work behind one lane: an API profile on its endpoint, or one web account. How many
    attempts run at once is not the backend's to say: the scheduler's capacities own it.

    Besides the lifecycle and ``run``, a backend declares its optional abilities; one it has not got
    is None (a class attribute ``login = None`` will do), so the scheduler reads them directly and
    never guesses."""

    @property
    def attempt_deadline_s(self) -> float | None:
        """The lane's backstop for one attempt (the backend bounds it itself); None: the lane's own."""

    @property
    def max_run_s(self) -> float | None:
        """The longest one run may take, which the backend enforces (team mode holds an account's
        lease that long); None: not known."""

    @property
    def domain(self) -> str | None:
        """The callee's host name, whose ``[rates.per_domain]`` bucket counts this backend's runs."""

    @property
    def probe(self) -> Probe | None:
        """The circuit breaker's health probe (and the setup editor's "Test"), if any."""

    @property
    def login(self) -> LoginFlow | None:
        """The operator's interactive login, for backends that have one (web accounts)."""

    @property
    def unavailable_reason(self) -> UnavailableReason | None:
        """Why it takes no task now (the "cannot serve" message), for backends that can say."""

    @property
    def check(self) -> EndpointCheck | None:
        """The setup editor's Test and the operator's Resume of an endpoint, for API backends."""

    @property
    def check_adapter(self) -> AdapterCheckFlow | None:
        """``adapter check`` on the account's own browser, for web backends."""

    @property
    def resolve_challenge(self) -> LoginFlow | None:
        """A visible browser for a person to solve a bot check, for web backends."""

    @property
    def challenge_screenshot(self) -> Path | None:
        """The screenshot of the bot check the account waits on, if any."""

    async def start(self) -> None:
        """Prepare (e.g. prewarm a browser). Called when the lane starts."""

    async def stop(self) -> None:
        """Release everything (close clients, end browser processes)."""

    def available(self) -> bool:
        """False while the backend cannot take new work (e.g. needs login)."""

    def health(self) -> tuple[str, str | None]:
        """(status, last error message) for the console, e.g. ("needs_login", "logged out at ...")."""

    async def run(self, task: TaskSpec, ctx: RunContext) -> str:
        """Do one attempt and return the answer text.

        Raise :class:`mediadesk.core.errors.TaskFailure` to fail the attempt (the lane decides on
        retries). On ``asyncio.CancelledError`` (operator cancel, stale heartbeat, shutdown) stop the
        work for real before re-raising: the lane writes the final state only after this returns.
        """
