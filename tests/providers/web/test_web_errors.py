"""One error hierarchy for the web lane, and its kind (nothing else) decides the retry."""

from __future__ import annotations

from pathlib import Path

import pytest

from mediadesk.config.model import AppConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.backend import TaskSpec
from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.providers.web import errors
from mediadesk.providers.web.backend import build_web_backend, task_failure
from mediadesk.scheduler import Scheduler
from tests.providers.web.helpers import RecordingCtx, until
from tests.support import make_config

#: Every concrete error class and the kind the task row must say.
KINDS: dict[type[errors.WebLaneError], ErrorKind] = {
    errors.BrowserNotFoundError: ErrorKind.CONFIG,
    errors.BrowserStartError: ErrorKind.BROWSER_CRASH,
    errors.InstanceLockedError: ErrorKind.CONFIG,
    errors.NeedsLogin: ErrorKind.NEEDS_LOGIN,
    errors.SiteError: ErrorKind.SITE_ERROR,
    errors.RunTimeout: ErrorKind.TIMEOUT,
    errors.RunCanceled: ErrorKind.CANCELED,
    errors.PageGone: ErrorKind.BROWSER_CRASH,
    errors.AdapterMismatch: ErrorKind.CONFIG,
    errors.BadPrompt: ErrorKind.BAD_REQUEST,
    errors.SiteDown: ErrorKind.CONNECTION,
    errors.FinalSiteError: ErrorKind.BAD_REQUEST,
    errors.StreamCut: ErrorKind.CONNECTION,
    errors.EmptyAnswer: ErrorKind.EMPTY_ANSWER,
    errors.PromptTooLong: ErrorKind.PROMPT_TOO_LONG_FOR_SITE,
}


def _make(cls: type[errors.WebLaneError]) -> errors.WebLaneError:
    if issubclass(cls, errors.LockHeldError):
        return cls("held", lock_path=Path("/x.lock"), holder_pid=None)
    return cls("boom")


@pytest.mark.parametrize("cls", list(KINDS), ids=lambda c: c.__name__)
def test_the_kind_alone_decides_the_retry(cls: type[errors.WebLaneError]) -> None:
    err = _make(cls)
    failure = task_failure(err)
    assert failure.kind is KINDS[cls]
    assert failure.retryable is KINDS[cls].retryable
    assert failure.message == "boom" if not isinstance(err, errors.LockHeldError) else "held"
    assert not failure.not_started


def test_what_proves_done_fails_the_right_way() -> None:
    """A cut stream and an answer not found go back uncharged (the site's absence; no guess stored); an
    empty answer is an error the operator sees, not retried."""
    cut = task_failure(errors.StreamCut("the socket closed mid-answer"))
    assert cut.unavailable and cut.kind is ErrorKind.CONNECTION
    missing = task_failure(errors.AnswerNotFound("nothing qualified"))
    assert missing.kind is ErrorKind.ANSWER_NOT_FOUND and missing.not_started and missing.retry_after_s
    empty = task_failure(errors.EmptyAnswer("no text"))
    assert empty.kind is ErrorKind.EMPTY_ANSWER and not empty.retryable and not empty.not_started


def test_browser_not_found_is_final_not_a_crash() -> None:
    failure = task_failure(errors.BrowserNotFoundError("configured browser /nope does not exist"))
    assert (failure.kind, failure.retryable) == (ErrorKind.CONFIG, False)


def test_profile_in_use_is_not_charged_and_waits() -> None:
    for err in (errors.ProfileInUseError(Path("/p/acct-a")),
                errors.AccountLockedError("locked", lock_path=Path("/x.lock"), holder_pid=1)):
        failure = task_failure(err)
        assert failure.kind is ErrorKind.PROFILE_IN_USE
        assert failure.not_started and failure.retry_after_s == errors.PROFILE_IN_USE_RETRY_S


def test_every_error_of_the_package_is_a_web_lane_error() -> None:
    public = [getattr(errors, name) for name in errors.__all__ if isinstance(getattr(errors, name), type)]
    assert public and all(issubclass(c, errors.WebLaneError) for c in public)
    concrete = {c for c in public if c is not errors.WebLaneError and c is not errors.LockHeldError}
    # (these take their own arguments or are not charged; each has its own test: SiteBusy in
    # test_busy_text.py, UsageLimit and ChallengeShown in test_web_capacity_signals.py)
    special = {errors.ProfileInUseError, errors.AccountLockedError, errors.SiteBusy, errors.UsageLimit,
               errors.ChallengeShown, errors.AnswerNotFound}
    assert concrete - special == set(KINDS)


def missing_browser_config(tmp_path: Path) -> AppConfig:
    return make_config(
        [{"name": "chat", "kind": "web", "site": "simchat", "url": "http://127.0.0.1:9/chat"}],
        [{"name": "acct-a", "profile": "chat"}],
        browser={"executable": str(tmp_path / "no-such-chromium")},
    )


@pytest.mark.asyncio(loop_scope="module")  # both share one loop, so one Playwright driver
@pytest.mark.usefixtures("playwright_hub")
async def test_backend_with_a_missing_browser_fails_as_config(workspace: Workspace, tmp_path: Path) -> None:
    cfg = missing_browser_config(tmp_path)
    backend = build_web_backend(cfg, workspace, cfg.profiles[0], cfg.accounts[0])
    await backend.start()
    try:
        assert backend.health()[0] == "error" and "no-such-chromium" in (backend.health()[1] or "")
        spec = TaskSpec(task_id="t", profile="chat", prompt="hi", attempt=1, instructions=None)
        with pytest.raises(TaskFailure) as info:
            await backend.run(spec, RecordingCtx(tmp_path / "ev"))
        assert (info.value.kind, info.value.retryable) == (ErrorKind.CONFIG, False)
        assert "no-such-chromium" in info.value.message
        assert backend.browser.pids == []
    finally:
        await backend.stop()


@pytest.mark.asyncio(loop_scope="module")  # both share one loop, so one Playwright driver
@pytest.mark.usefixtures("playwright_hub")
async def test_lane_with_a_missing_browser_fails_the_task_once_as_config(
    workspace: Workspace, tmp_path: Path
) -> None:
    cfg = missing_browser_config(tmp_path)
    async with Scheduler(cfg, workspace) as s:
        s.intake.submit([s.intake.new_task("t", "chat", "hello")])

        def first_attempt_ended() -> bool:
            rec = s.store.get("t")
            return rec is not None and (rec.error_kind is not None or rec.state in ("failed", "success"))

        await until(first_attempt_ended, 60, "the first attempt to end")
        rec = s.store.get("t")
    assert rec is not None
    # Today's bug was: kind browser_crash, back to pending for a retry (3 attempts in all).
    assert (rec.state, rec.error_kind, rec.attempt) == ("failed", "config", 1), rec.error_message
    assert "no-such-chromium" in (rec.error_message or "")
