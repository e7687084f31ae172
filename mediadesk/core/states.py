"""Task states and the transitions the store allows."""

from __future__ import annotations

from enum import Enum


class TaskState(str, Enum):
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
    TaskState.PENDING: frozenset({TaskState.RUNNING, TaskState.CANCELED}),
    # running -> pending is a deferred retry (same row, attempt kept, not-before set).
    TaskState.RUNNING: frozenset(
        {TaskState.SUCCESS, TaskState.FAILED, TaskState.CANCELED, TaskState.PENDING}
    ),
    # An operator may re-queue a finished failed/canceled task ("retry selected").
    TaskState.FAILED: frozenset({TaskState.PENDING}),
    TaskState.CANCELED: frozenset({TaskState.PENDING}),
    TaskState.SUCCESS: frozenset(),
}


def can_transition(src: TaskState, dst: TaskState) -> bool:
    return dst in TRANSITIONS[src]
