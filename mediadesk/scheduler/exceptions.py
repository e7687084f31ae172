"""Exceptions: what a person must act on. Failed tasks to judge, API endpoints stopped until the
operator fixes them (key rejected, TLS error; their tasks wait pending, uncharged), and accounts
waiting for a person (a bot check).

A task's decision is kept with it and exported: ``retry``, ``reroute``, ``answer`` (pasted, counts
as success) or ``drop``. An account entry is not a task failure (its task went back uncharged); it
lasts while the account is in ``challenge``, and resolving it opens the account's browser visibly.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mediadesk.config.model import AppConfig, ProfileConfig
from mediadesk.config.workspace import Workspace
from mediadesk.core.errors import STOPPING_KINDS, ErrorKind
from mediadesk.core.log_lines import LOG
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


if TYPE_CHECKING:
    from mediadesk.scheduler.capacity import Capacity


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
        said = LOG.reroute_by_operator(profile=target) if action == "reroute" else LOG.retry_by_operator()
        moved = store.reroute(rec, target, profiles[target].kind, log=said)
        new = None if moved is None else store.resolve(task_id, action, note)
        wake({target})
    if new is None:
        raise ValueError(f"task {task_id} changed meanwhile; look again")
    return new


# ---------------------------------------------------------------------------------- stopped endpoints
@dataclass(frozen=True)
class EndpointStop:
    """An API endpoint stopped until the operator acts: ``kind`` ``auth`` (its key rejected, HTTP
    401/403) or ``config`` (a TLS error); ``reason`` as the endpoint said it, ``since`` (wall clock),
    the tasks of its profiles that wait (pending, none charged)."""

    endpoint: str
    profiles: tuple[str, ...]
    kind: str
    reason: str
    since: float
    waiting: int
    key_env: str | None = None
    key_keyring: str | None = None
    #: False when no config was at hand (read from the database alone): the key source is unknown.
    config_known: bool = True

    @property
    def key_rejected(self) -> bool:
        return self.kind == ErrorKind.AUTH.value

    def key_source(self) -> str:
        """Where the key is read from, in words (never the key)."""
        if not self.config_known:
            return "the place the profile's api_key_env or api_key_keyring names"
        return key_source(self.key_env, self.key_keyring)

    def remedy(self, config: str = "CONFIG", *, then: str = "run again") -> str:
        """What the operator does, in words: set the key (where), or fix the config; then ``then``."""
        if self.key_rejected:
            return (f"set the right key in {self.key_source()} (or point api_key_env / api_key_keyring in "
                    f"{config} to it), then {then} (nothing was charged)")
        return f"fix it in {config}, then {then} (nothing was charged)"

    def line(self, config: str = "CONFIG", *, then: str = "run again") -> str:
        """One line for a terminal: ``endpoint X stopped: key rejected (HTTP 401) since HH:MM:SS; ...``."""
        at = time.strftime("%H:%M:%S", time.localtime(self.since))
        return (f"endpoint {self.endpoint} stopped: {self.reason} since {at}; {self.waiting} task(s) wait "
                f"({', '.join(self.profiles)}) -> {self.remedy(config, then=then)}")


def key_source(env: str | None, keyring: str | None) -> str:
    if env and keyring:
        return f"environment variable {env} (or keyring entry {keyring})"
    if env:
        return f"environment variable {env}"
    if keyring:
        return f"keyring entry {keyring}"
    return "the endpoint's api_key_env or api_key_keyring (none is set: no key is sent)"


def live_stops(config: AppConfig, capacities: Mapping[str, Capacity],
               pending_count: Callable[[list[str]], int]) -> list[EndpointStop]:
    """The endpoints a running scheduler has stopped, with the tasks that wait on each."""
    out: list[EndpointStop] = []
    for ep in config.api_endpoints():
        cap = capacities.get(ep.name)
        if cap is None or cap.stopped is None:
            continue
        out.append(EndpointStop(
            ep.name, ep.profiles, cap.stopped_kind or ErrorKind.CONFIG.value, cap.stopped,
            cap.stopped_since or time.time(), pending_count(list(ep.profiles)), ep.api_key_env, ep.api_key_keyring,
        ))
    return out


def stored_stops(records: Iterable[TaskRecord], pending_count: Callable[[list[str]], int],
                 config: AppConfig | None = None) -> list[EndpointStop]:
    """What the database says about stopped endpoints when no scheduler runs (``mediadesk exceptions
    list``): the pending API tasks whose last attempt stopped their endpoint, one entry per profile
    and cause (with ``config``: per endpoint, with its key source)."""
    groups: dict[tuple[str, str], list[TaskRecord]] = {}
    for rec in records:
        if rec.state == TaskState.PENDING.value and rec.error_kind in _STOP_VALUES:
            groups.setdefault((rec.profile, rec.error_kind), []).append(rec)
    out: list[EndpointStop] = []
    for (profile, kind), recs in groups.items():
        ep = None
        if config is not None:
            ep = next((e for e in config.api_endpoints() if profile in e.profiles), None)
        reason = (recs[-1].error_message or kind).split("; ")[0]
        out.append(EndpointStop(
            ep.name if ep is not None else f"of profile {profile}", (profile,), kind, reason,
            min(r.updated_at for r in recs), pending_count([profile]),
            ep.api_key_env if ep is not None else None, ep.api_key_keyring if ep is not None else None,
            config_known=ep is not None,
        ))
    return out


_STOP_VALUES = frozenset(k.value for k in STOPPING_KINDS)
#: Error kinds of pending API rows left by a stopped endpoint (see ``TaskStore.stopped_pending``).
STOP_KINDS = tuple(sorted(_STOP_VALUES))
