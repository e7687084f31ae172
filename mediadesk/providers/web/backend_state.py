"""One web account's health as the lane and the console read it: ready, resting, waiting for a login
or a person, in error (and until when), with the text that says why. The backend and its parts write
it; this module knows none of them."""

from __future__ import annotations

import logging
import time
from pathlib import Path

from mediadesk.core.backend import HealthStatus
from mediadesk.core.log_lines import LogText
from mediadesk.providers.web.errors import PROFILE_IN_USE_RETRY_S

#: The backend's log: its parts report under the one name operators filter on.
log = logging.getLogger("mediadesk.providers.web.backend")


class AccountState:
    """The account's health and the facts behind it (one owner; the backend's parts share it)."""

    def __init__(self, account: str) -> None:
        self.account = account
        self.health = HealthStatus.STARTING
        self.last_error: str | None = None
        #: Until when (monotonic) an account in error rests before it takes a task again.
        self.rest_until = 0.0
        #: A usage limit's reset (wall clock): the account rests (takes nothing) until then.
        self.resting_until: float | None = None
        #: What the last bot check said (the account waits for a person while ``challenge``).
        self.challenge: str | None = None
        #: The screenshot of that check, for the person (``challenge.png`` in the account's evidence folder).
        self.challenge_shot: Path | None = None
        #: Since when (wall clock) the account is logged out.
        self.needs_login_since: float | None = None
        self.logging_in = False
        self.stopped = False
        #: What the prewarm's self-check and launch said; written into the next task's log.
        self.notes: list[LogText] = []

    def note(self, message: LogText) -> None:
        log.info("%s: %s", self.account, message)
        self.notes.append(message)

    def set_ready(self) -> None:
        self.health, self.last_error = HealthStatus.READY, None
        self.needs_login_since = None

    def set_error(self, message: str, *, rest: bool = False) -> None:
        self.health, self.last_error = HealthStatus.ERROR, message
        if rest:
            self.rest_until = time.monotonic() + PROFILE_IN_USE_RETRY_S

    def set_challenge(self, message: str) -> None:
        self.challenge = message
        self.health, self.last_error = HealthStatus.CHALLENGE, f"needs a person: {message}"

    def resting(self) -> bool:
        """True while a usage limit's rest lasts; the first call after it ends makes the account ready."""
        if self.health != HealthStatus.RESTING:
            return False
        if self.resting_until is not None and time.time() < self.resting_until:
            return True
        self.resting_until = None
        self.health, self.last_error = HealthStatus.READY, None
        log.info("%s: usage limit reset; the account takes tasks again", self.account)
        return False


def clock_time(ts: float | None) -> str:
    """A wall-clock time for the operator: HH:MM:SS today, with the date otherwise."""
    if ts is None:
        return "?"
    today = time.strftime("%Y-%m-%d", time.localtime(ts)) == time.strftime("%Y-%m-%d")
    return time.strftime("%H:%M:%S" if today else "%Y-%m-%d %H:%M:%S", time.localtime(ts))
