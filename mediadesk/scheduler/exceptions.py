"""Exceptions: failed tasks a person must judge, and the operator's decision on one; and accounts
that wait for a person (a bot check on their site).

A task's decision is kept with the task and exported: ``retry`` (same profile, fresh budget),
``reroute`` (to another profile), ``answer`` (a pasted answer -> success, served by the operator)
or ``drop`` (stays failed).

An account entry ("account X needs a person") is not a task's failure: its task went back to the
queue uncharged. It lasts while the account is in ``challenge``; resolving it opens the account's
browser visibly on its own profile at the chat page (the "Log in" flow), and once the person has
solved the check the account is ready again, the lane resumes and the entry is gone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from mediadesk.config.model import ProfileConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.errors import ErrorKind
from mediadesk.core.states import TaskState
from mediadesk.store import TaskRecord, TaskStore

#: Failures a person must judge: they land in the Exceptions view.
EXCEPTION_KINDS = frozenset({
    ErrorKind.NEEDS_LOGIN.value, ErrorKind.QUARANTINED.value, ErrorKind.EXPIRED.value, ErrorKind.SITE_ERROR.value,
    ErrorKind.FALLBACK_EXHAUSTED.value, ErrorKind.OUT_OF_CREDIT.value, ErrorKind.CONFIG.value,
    ErrorKind.CONVERSATION_BROKEN.value,
})
RESOLUTIONS = ("retry", "reroute", "answer", "drop")
#: The account health that makes an account entry.
NEEDS_A_PERSON = "challenge"


@dataclass(frozen=True)
class AccountException:
    """An account that waits for a person: ``message`` what the check said (page text: escape it
    before showing), ``screenshot`` the page as the lane saw it (None when none could be taken)."""

    account: str
    message: str
    screenshot: Path | None

    @property
    def title(self) -> str:
        return f"account {self.account} needs a person"


def account_exceptions(accounts: Iterable[tuple[str, str, str | None, Path | None]]) -> list[AccountException]:
    """The entries of ``(account, health, last error, screenshot)`` rows whose health is ``challenge``."""
    return [AccountException(name, (error or "a bot check on its site").removeprefix("needs a person: "), shot)
            for name, health, error, shot in accounts if health == NEEDS_A_PERSON]


def stored_account_exceptions(states: Mapping[str, tuple[bool, str, str | None]],
                              workspace: Workspace) -> list[AccountException]:
    """The account entries as the running scheduler last persisted them (for ``mediadesk exceptions``
    in another process), with the screenshot kept in the account's evidence folder, if any."""
    rows = []
    for name, (_enabled, health, error) in sorted(states.items()):
        shot = workspace.challenge_screenshot(name)
        rows.append((name, health, error, shot if shot.is_file() else None))
    return account_exceptions(rows)


def resolve_exception(
    store: TaskStore, profiles: Mapping[str, ProfileConfig], task_id: str, action: str, note: str = "", *,
    answer: str | None = None, profile: str | None = None, wake: Callable[[set[str]], None] = lambda _p: None,
) -> TaskRecord:
    """Apply the operator's decision on the failed task ``task_id`` and return the task as it is
    now; ``wake`` is told of the profile a retry or re-route gave a task to run. ValueError for a
    decision that cannot be applied (with why)."""
    rec = store.get(task_id)
    if rec is None:
        raise ValueError(f"no task {task_id!r}")
    if rec.state != TaskState.FAILED.value:
        raise ValueError(f"task {task_id} is {rec.state}, not failed: nothing to resolve")
    if action not in RESOLUTIONS:
        raise ValueError(f"unknown resolution {action!r}: use one of {', '.join(RESOLUTIONS)}")
    if action == "answer":
        if not answer or not answer.strip():
            raise ValueError("an answer by hand needs the answer text")
        new = store.resolve(task_id, "answer", note, answer=answer)
    elif action == "drop":
        new = store.resolve(task_id, "drop", note)
    else:
        target = rec.profile if action == "retry" else profile
        if target is None or target not in profiles:
            raise ValueError(f"re-route needs a known profile (profiles: {', '.join(profiles)})")
        moved = store.reroute(rec, target, profiles[target].kind,
                              log=f"{action} by operator" + (f" to {target}" if action == "reroute" else ""))
        new = None if moved is None else store.resolve(task_id, action, note)
        wake({target})
    if new is None:
        raise ValueError(f"task {task_id} changed meanwhile; look again")
    return new
