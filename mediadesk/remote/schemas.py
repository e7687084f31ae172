"""The API's JSON shapes (pydantic models: they validate the bodies and write the OpenAPI document).

Field names are the store's and the event bus's own, so a script reading ``/v1/tasks`` and one reading
``mediadesk export --format jsonl`` see the same words. Nothing here carries a secret: no API key, no
token, no key variable's value (only task data, lane and capacity state).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mediadesk.scheduler.events import CapacityView, LaneStats
from mediadesk.store import LogLine, TaskRecord


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)


class TaskOut(_Out):
    task_id: str
    state: str
    model_kind: str
    profile: str
    attempt: int
    account: str | None
    lane: str | None
    batch: str | None
    priority: int
    route_key: str | None
    prompt: str
    error_kind: str | None
    error_message: str | None
    created_at: float
    updated_at: float
    started_at: float | None
    heartbeat_at: float | None
    finished_at: float | None
    not_before: float
    cancel_requested: bool
    truncated: bool
    served_by: str | None
    origin_profile: str | None
    resolution: str | None
    resolution_note: str | None
    seq: int

    @classmethod
    def of(cls, rec: TaskRecord) -> TaskOut:
        return cls(**{name: getattr(rec, name) for name in cls.model_fields})


class LogLineOut(_Out):
    ts: float
    lane: str
    message: str

    @classmethod
    def of(cls, line: LogLine) -> LogLineOut:
        return cls(ts=line.ts, lane=line.lane, message=line.message)


class TaskDetailOut(TaskOut):
    system: str | None
    result: str | None
    log: list[LogLineOut]


class TaskPage(_Out):
    tasks: list[TaskOut]
    #: Pass as ``after`` for the next page; None when this page is the last.
    next_after: int | None


class RowErrorOut(_Out):
    line: int
    message: str
    excerpt: str


class SubmitOut(_Out):
    batch: str
    task_ids: list[str]
    added: int
    existing: int
    errors: list[RowErrorOut]
    refused: str | None = None


class TaskIds(BaseModel):
    task_ids: list[str] = Field(..., min_length=1, max_length=100_000)


class CountOut(_Out):
    changed: int


class LaneSelector(BaseModel):
    #: "api" | "web" | a lane name ("api:writer", "web:acct-a"); none: every lane.
    lane: str | None = None


class LaneOut(_Out):
    lane: str
    kind: str
    profiles: list[str]
    capacity: int
    running: list[str]
    paused: bool
    available: bool
    health: str
    last_error: str | None
    completed: int
    backlog: dict[str, int]
    callee: str | None

    @classmethod
    def of(cls, s: LaneStats) -> LaneOut:
        return cls(lane=s.lane, kind=s.kind, profiles=list(s.profiles), capacity=s.capacity,
                   running=[r.task_id for r in s.running], paused=s.paused, available=s.available, health=s.health,
                   last_error=s.last_error, completed=s.completed, backlog=dict(s.backlog),
                   callee=None if s.callee is None else s.callee.name)


class CapacityOut(_Out):
    name: str
    kind: str
    limit: int
    current_limit: int
    in_flight: int
    paused_until: float | None
    breaker: str
    breaker_reason: str | None
    next_probe_at: float | None
    last_signal: str | None
    refusals: int

    @classmethod
    def of(cls, key: str, v: CapacityView) -> CapacityOut:
        paused = v.paused_until if v.paused_until > 0 else None  # -inf (never paused) is not JSON
        return cls(name=key, kind=v.kind, limit=v.limit, current_limit=v.current_limit, in_flight=v.in_flight,
                   paused_until=paused, breaker=v.breaker, breaker_reason=v.breaker_reason,
                   next_probe_at=v.next_probe_at, last_signal=v.last_signal, refusals=v.refusals)


class AccountOut(_Out):
    account: str
    enabled: bool
    health: str
    last_error: str | None


class AccountSwitch(BaseModel):
    #: Disabling: also cancel the task the account is running now (else it finishes).
    cancel_running: bool = False


class ResolveIn(BaseModel):
    action: Literal["retry", "reroute", "answer", "drop"]
    note: str = ""
    answer: str | None = None
    profile: str | None = None


class StatusOut(_Out):
    #: {profile: {state: tasks}}
    counts: dict[str, dict[str, int]]
    lanes: list[LaneOut]
    storage_error: str | None
    desktops: int
