"""Task states and the transitions the store allows."""

from __future__ import annotations

from enum import Enum, StrEnum


class TaskState(StrEnum):
    """A str Enum whose ``str()`` and f-string form is the value ("pending"): records carry it, and text
    built from a record's state reads the same as when the state was a plain string."""

    PENDING = "pending"
    RUNNING = "running"
    SUCCESS = "success"
    FAILED = "failed"
    CANCELED = "canceled"

    @property
    def terminal(self) -> bool:
        return self in TERMINAL_STATES


class ModelKind(str, Enum):
    WEB = "web"
    API = "api"


class HeartbeatResult(str, Enum):
    """What writing a heartbeat told the lane."""

    ALIVE = "alive"                    # written; carry on
    CANCEL_REQUESTED = "cancel"        # written, and someone (maybe another process) asked to cancel
    LOST = "lost"                      # not written: the row is no longer ours (reaped, finished)


TERMINAL_STATES = frozenset({TaskState.SUCCESS, TaskState.FAILED, TaskState.CANCELED})

#: Every allowed edge. The store checks each transition against this table *and* does a
#: compare-and-set on (state, version), so an illegal or lost-race transition never lands.
TRANSITIONS: dict[TaskState, frozenset[TaskState]] = {
    # pending -> pending: moved down a fallback chain (another profile) without running;
    # pending -> failed: expired (max_wait_s) or conversation broken, never started.
    # (Never pending -> success: a success always follows a run, or a failure that a fallback's
    # rule reply or a person's answer replaced, which the row records in served_by.)
    TaskState.PENDING: frozenset({TaskState.RUNNING, TaskState.CANCELED, TaskState.FAILED, TaskState.PENDING}),
    # running -> pending is a deferred retry (same row, attempt kept, not-before set).
    TaskState.RUNNING: frozenset(
        {TaskState.SUCCESS, TaskState.FAILED, TaskState.CANCELED, TaskState.PENDING}
    ),
    # An operator may re-queue a finished failed/canceled task ("retry selected"), and resolve a
    # failed one by pasting the answer by hand (failed -> success, served_by operator).
    TaskState.FAILED: frozenset({TaskState.PENDING, TaskState.SUCCESS}),
    TaskState.CANCELED: frozenset({TaskState.PENDING}),
    TaskState.SUCCESS: frozenset(),
}


def can_transition(src: TaskState, dst: TaskState) -> bool:
    return dst in TRANSITIONS[src]
