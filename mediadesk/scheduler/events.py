"""Typed events the scheduler publishes; the CLI and the Qt bridge subscribe to the same stream."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from mediadesk.core.log_lines import LogText
from mediadesk.store.taskstore import TaskRecord

log = logging.getLogger(__name__)


class EventType(str, Enum):
    TASKS_ADDED = "tasks_added"
    TASK_CHANGED = "task_changed"
    TASK_LOG = "task_log"
    LANE_STATS = "lane_stats"
    ACCOUNT_CHANGED = "account_changed"
    PROFILE_CHANGED = "profile_changed"
    NOTICE = "notice"
    STORAGE_FAILED = "storage_failed"


@dataclass(frozen=True)
class TasksAdded:
    task_ids: tuple[str, ...]
    type: EventType = EventType.TASKS_ADDED


@dataclass(frozen=True)
class TaskChanged:
    task_id: str
    state: str
    attempt: int
    lane: str | None
    account: str | None
    started_at: float | None
    heartbeat_at: float | None
    finished_at: float | None
    error_kind: str | None
    version: int
    error_message: str | None = None
    #: A success whose answer the provider cut at its length limit.
    truncated: bool = False
    type: EventType = EventType.TASK_CHANGED


@dataclass(frozen=True)
class TaskLogLine:
    task_id: str
    ts: float
    lane: str
    #: the line in English (as stored); ``text`` its phrase, for the console's language
    message: str
    text: LogText | None = None
    type: EventType = EventType.TASK_LOG


@dataclass(frozen=True)
class RunningInfo:
    task_id: str
    account: str | None
    started_at: float
    heartbeat_at: float


@dataclass(frozen=True)
class CapacityView:
    """What the lane panels show of a capacity."""

    name: str
    kind: str                    # "endpoint" | "account"
    limit: int                   # configured gate
    current_limit: int           # learned (AIMD)
    in_flight: int
    paused_until: float
    breaker: str                 # closed | open | half_open
    breaker_reason: str | None
    next_probe_at: float | None
    last_signal: str | None
    refusals: int = 0            # refusals (429 / 503 with Retry-After) since start
    #: Why it is stopped until the operator acts (a TLS error, its key rejected), the error kind that
    #: stopped it (``config`` | ``auth``) and since when (wall clock); None while it is not.
    stopped: str | None = None
    stopped_kind: str | None = None
    stopped_since: float | None = None


@dataclass(frozen=True)
class LaneStats:
    lane: str                   # "api:writer", "web:acct-a"
    kind: str                   # "api" | "web"
    profiles: tuple[str, ...]
    capacity: int
    running: tuple[RunningInfo, ...]
    paused: bool
    available: bool
    health: str
    last_error: str | None
    completed: int              # attempts that ended in success on this lane since start
    durations: tuple[float, ...] = field(default=())  # recent successful run times (s), newest last
    #: The callee's gate and breaker (the endpoint, shared by its profiles; or the account).
    callee: CapacityView | None = None
    #: Pending tasks per priority channel ("high", "normal", "low").
    backlog: tuple[tuple[str, int], ...] = ()
    #: Paused since an earlier session (a pause is kept across restarts), not by this one.
    paused_kept: bool = False
    #: Quiet hours: the lane's windows ("22:00-07:00") and, outside them, when the next one opens
    #: (epoch seconds; None inside a window or without windows).
    active_hours: str | None = None
    waits_until: float | None = None
    #: Budgets: the cap that keeps this lane from starting its next task (English: which cap, how much
    #: is used, how to raise it) and its key (for a "raise cap" action); None when none does.
    budget_stop: str | None = None
    budget_key: str | None = None
    type: EventType = EventType.LANE_STATS


@dataclass(frozen=True)
class AccountChanged:
    account: str
    enabled: bool
    health: str
    last_error: str | None
    type: EventType = EventType.ACCOUNT_CHANGED


@dataclass(frozen=True)
class ProfileChanged:
    profile: str
    need_empty_prompt: bool
    concurrency: int
    type: EventType = EventType.PROFILE_CHANGED


@dataclass(frozen=True)
class Notice:
    """Something about a callee an operator should see (a breaker opened, a probe failed)."""

    ts: float
    #: in English; ``text`` its phrase, for the console's language (None: shown as ``message``)
    message: str
    text: LogText | None = None
    type: EventType = EventType.NOTICE


@dataclass(frozen=True)
class StorageFailed:
    """The database can no longer be trusted to keep results (deleted or replaced under us, disk
    full, I/O error): the scheduler stopped dispatching and ended its running attempts, none written
    as a success (back to pending where that can still be written). Published once; fatal for a
    run (the CLI exits 2, the console says so)."""

    ts: float
    kind: str          # "lost" | "full" | "error" (StorageError.kind)
    path: str          # the database file
    message: str       # English: what happened and what to do next (str of the StorageError)
    detail: str = ""   # the cause as the system said it ("database or disk is full", "deleted", ...)
    type: EventType = EventType.STORAGE_FAILED


Event = (
    TasksAdded | TaskChanged | TaskLogLine | LaneStats | AccountChanged | ProfileChanged | Notice | StorageFailed
)
Subscriber = Callable[[Event], None]


class EventBus:
    """Synchronous fan-out on the event loop. Subscribers must be cheap (coalesce in the UI);
    one failing subscriber is logged and never breaks the scheduler or the others."""

    def __init__(self) -> None:
        self._subs: list[Subscriber] = []

    def subscribe(self, fn: Subscriber) -> Callable[[], None]:
        self._subs.append(fn)

        def unsubscribe() -> None:
            if fn in self._subs:
                self._subs.remove(fn)

        return unsubscribe

    def publish(self, event: Event) -> None:
        for fn in tuple(self._subs):
            try:
                fn(event)
            except Exception:  # a UI bug must not stop a lane
                log.exception("event subscriber %r failed on %s", fn, event.type)


def task_changed(rec: TaskRecord) -> TaskChanged:
    return TaskChanged(
        task_id=rec.task_id, state=rec.state.value, attempt=rec.attempt, lane=rec.lane,
        account=rec.account, started_at=rec.started_at, heartbeat_at=rec.heartbeat_at,
        finished_at=rec.finished_at, error_kind=rec.error_kind, version=rec.version,
        error_message=rec.error_message, truncated=rec.truncated,
    )
