"""Every error of the web lane, in one hierarchy under :class:`WebLaneError`.

Each class carries the :class:`~mediadesk.core.errors.ErrorKind` the task row should say, and the kind alone
decides whether the lane retries: the backend turns any of these into a ``TaskFailure`` with one function
(``backend.task_failure``), never a per-call-site choice. Hints: ``not_started`` (the work never began: not
charged) and ``retry_after_s`` (how long to wait first). :class:`SiteBusy` (``rate_limited``) is a *refusal*:
never charged, the account pauses.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from mediadesk.core.errors import ErrorKind
from mediadesk.files import locks as locking
from mediadesk.providers.web._proctree import ProcInfo

__all__ = [
    "PROFILE_IN_USE_RETRY_S",
    "AccountLockedError",
    "AdapterMismatch",
    "AnswerNotFound",
    "BadPrompt",
    "BrowserNotFoundError",
    "BrowserStartError",
    "ChallengeShown",
    "EmptyAnswer",
    "FinalSiteError",
    "InstanceLockedError",
    "LockHeldError",
    "NeedsLogin",
    "PageGone",
    "ProfileInUseError",
    "PromptTooLong",
    "RunCanceled",
    "RunTimeout",
    "SiteBusy",
    "SiteDown",
    "SiteError",
    "StreamCut",
    "UsageLimit",
    "WebLaneError",
]

#: After "profile in use", how long the task (and the account) waits before it tries again.
PROFILE_IN_USE_RETRY_S = 15.0


class WebLaneError(Exception):
    """Base class. ``kind`` is what the task row says and decides retries; never raised itself."""

    kind: ClassVar[ErrorKind] = ErrorKind.INTERNAL
    #: The work never began: the attempt is not charged (the task waits ``retry_after_s``).
    not_started: ClassVar[bool] = False
    #: Wait at least this long before the next attempt; None = the lane's backoff. (A class default;
    #: an error may set its own, e.g. the wait a busy site states.)
    retry_after_s: float | None = None
    #: The site could not be reached (connection refused, a gateway page): its capacity speaking.
    #: The account's breaker opens and the attempt is not charged; probes decide when it is back.
    unavailable: ClassVar[bool] = False


# --- finding, starting and locking browsers ---------------------------------------------------------


class BrowserNotFoundError(WebLaneError):
    """No usable Chromium: the message says which paths were tried and how to install one. Another
    attempt finds the same nothing, so this is a config problem, not retried."""

    kind = ErrorKind.CONFIG


class BrowserStartError(WebLaneError):
    """Chromium did not come up (exited early, never wrote DevToolsActivePort, CDP connect failed)."""

    kind = ErrorKind.BROWSER_CRASH


class ProfileInUseError(WebLaneError):
    """Another process holds the profile directory. ``holders`` names it when it could be found.

    Not the task's fault and nothing was sent: the attempt is not charged and the task waits."""

    kind = ErrorKind.PROFILE_IN_USE
    not_started = True
    retry_after_s = PROFILE_IN_USE_RETRY_S

    def __init__(
        self,
        profile_dir: Path,
        holders: Sequence[ProcInfo] = (),
        *,
        exit_code: int | None = None,
        detail: str = "",
    ) -> None:
        self.profile_dir = profile_dir
        self.holders = list(holders)
        self.exit_code = exit_code
        if self.holders:
            who = ", ".join(h.describe() for h in self.holders)
            msg = f"profile {profile_dir} is in use by {who}; close it or wait"
        else:
            msg = f"profile {profile_dir} is in use by another browser process (holder not found)"
        if exit_code is not None:
            msg += f" [chromium exit code {exit_code}]"
        if detail:
            msg += f"; {detail}"
        super().__init__(msg)

    @property
    def holder(self) -> ProcInfo | None:
        return self.holders[0] if self.holders else None


class LockHeldError(WebLaneError, locking.LockHeldError):
    """An on-disk lock (account or instance) is held by another process or lock object."""

    kind = ErrorKind.PROFILE_IN_USE


class AccountLockedError(LockHeldError):
    """The account's lock file is held: another lane, process or MediaDesk drives that profile."""

    not_started = True
    retry_after_s = PROFILE_IN_USE_RETRY_S


class InstanceLockedError(LockHeldError):
    """Another MediaDesk already runs on this data directory."""

    kind = ErrorKind.CONFIG


# --- driving the page ---------------------------------------------------------------------------------


class NeedsLogin(WebLaneError):
    """The account is logged out; an operator must log in (not retried)."""

    kind = ErrorKind.NEEDS_LOGIN


class SiteError(WebLaneError):
    """The site showed an error, or behaved in a way that ends the run (retryable)."""

    kind = ErrorKind.SITE_ERROR


class SiteBusy(WebLaneError):
    """The site refused the run: the account is busy (another generation of it runs elsewhere) or
    rate limited ("too many requests", "try again in 20 seconds"). Its capacity speaking, not a
    failure of the task: its kind ``rate_limited`` makes the ``TaskFailure`` a refusal, never
    charged; the account pauses for ``retry_after_s`` (what the site stated) or the lane's refusal
    backoff. ``text`` is what the site said, ``where`` where it said it (banner, error, answer)."""

    kind = ErrorKind.RATE_LIMITED

    def __init__(self, text: str, *, where: str, wait_s: float | None = None) -> None:
        self.text = text
        self.where = where
        self.retry_after_s = wait_s
        shown = " ".join(text.split())
        if len(shown) > 200:
            shown = shown[:200] + "…"
        msg = f"the site is busy and refused the run ({where}: {shown!r})"
        if wait_s is not None:
            msg += f"; it asks to wait {wait_s:g} s"
        super().__init__(msg)


class UsageLimit(SiteBusy):
    """The account used up its quota and the site says when it resets ("You've reached your limit,
    it resets at 14:30", "额度已用完，明天再来"): a refusal like :class:`SiteBusy`, and the account
    rests until ``until`` (wall-clock seconds) instead of pausing for the refusal backoff."""

    def __init__(self, text: str, *, where: str, until: float, now: float) -> None:
        super().__init__(text, where=where, wait_s=max(0.0, until - now))
        self.until = until


class SiteDown(WebLaneError):
    """The site could not be reached: a page load or request failed at the connection level
    (refused, reset, name not resolved, unreachable) or a gateway/5xx page was served instead of
    the chat page. Not the task's fault: ``unavailable`` opens the account's breaker, the attempt is
    not charged, and a probe (one plain HTTP GET of the chat URL) closes it when the site is back."""

    kind = ErrorKind.CONNECTION
    unavailable = True


class StreamCut(SiteDown):
    """The answer's stream broke before its end: the connection failed mid-stream, or the socket the page
    had opened before our send closed mid-answer (the site restarted or shut down, the network dropped).
    A cut is never an end: the partial answer is not stored, the attempt is not charged (as for an
    outage) and the account's breaker probes the site before the task runs again."""


class AnswerNotFound(WebLaneError):
    """The site worked on the run (its busy indicator came and went, or our stream ran) but nothing on the
    page proved to be this run's answer: the ``answer`` key matched nothing new even after the page
    settled, and no element passed the role fallback's proofs (new since the send, text not on the page
    before, not chrome, hidden or a control). Never a guess: the task goes back uncharged, the evidence is
    saved and the account says its adapter needs a look."""

    kind = ErrorKind.ANSWER_NOT_FOUND
    not_started = True
    retry_after_s = 30.0


class EmptyAnswer(WebLaneError):
    """The site's answer holds no text (after leaving out icons, hidden text and controls). Never a
    success: an error the operator sees (when the site went away meanwhile, the backend makes it
    :class:`SiteDown` instead: uncharged)."""

    kind = ErrorKind.EMPTY_ANSWER


class FinalSiteError(WebLaneError):
    """The site showed an error that another attempt would get again (the model behind it refused the
    prompt: "400", "context length exceeded", "content policy", or an adapter's ``final_error_text``):
    failed at once, not retried."""

    kind = ErrorKind.BAD_REQUEST


class ChallengeShown(WebLaneError):
    """A bot check / CAPTCHA / "unusual activity" page: the account pauses (``challenge``) until a person
    has solved it in the account's browser; the task goes back uncharged. Never solved automatically."""

    kind = ErrorKind.CHALLENGE
    not_started = True
    retry_after_s = 1.0


class RunTimeout(WebLaneError):
    """No answer started in time, the page did not load, or the run exceeded ``max_run_s``."""

    kind = ErrorKind.TIMEOUT


class RunCanceled(WebLaneError):
    """``cancel_event`` was set; generation was stopped (best effort) before this was raised."""

    kind = ErrorKind.CANCELED


class PageGone(WebLaneError):
    """The page, its context or the browser closed or crashed under the run."""

    kind = ErrorKind.BROWSER_CRASH


class AdapterMismatch(WebLaneError):
    """The adapter does not fit the page: invalid selector, prompt box or send button not found,
    or the prompt box did not take the text. Needs an operator, so not retried."""

    kind = ErrorKind.CONFIG


class BadPrompt(WebLaneError):
    """The prompt cannot be sent as it is (e.g. empty); another attempt would send the same."""

    kind = ErrorKind.BAD_REQUEST


class PromptTooLong(WebLaneError):
    """The prompt as typed (instructions and content) is longer than the site adapter's ``paste_limit`` and
    the adapter has no ``attach`` input to send it as a file: refused before anything is typed (a prompt is
    never sent cut). Another attempt would meet the same limit, so it fails at once."""

    kind = ErrorKind.PROMPT_TOO_LONG_FOR_SITE
