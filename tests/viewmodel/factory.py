"""Synthetic task records and change events for the mirror's tests (no Qt, no scheduler)."""

from __future__ import annotations

from mediadesk.core.states import TaskState
from mediadesk.scheduler.events import TaskChanged
from mediadesk.store import TaskRecord

T0 = 1_700_000_000.0


def rec(i: int, *, state: str = "pending", profile: str | None = None, kind: str | None = None,
        prompt: str | None = None, version: int = 0, started: float | None = None) -> TaskRecord:
    """Task ``t{i:06d}``: web for every third i (profile ``chat``), else api (profile ``writer``)."""
    kind = kind or ("web" if i % 3 == 0 else "api")
    return TaskRecord(
        task_id=f"t{i:06d}", model_kind=kind, state=TaskState(state), attempt=0, started_at=started,
        heartbeat_at=started,
        profile=profile or ("chat" if kind == "web" else "writer"), account=None, lane=None,
        prompt=prompt if prompt is not None else f"prompt {i}\nsecond line", system=None, priority=0,
        route_key=None, batch=None, result=None, error_kind=None, error_message=None, created_at=T0,
        updated_at=T0, finished_at=None, cancel_requested=False, version=version, not_before=0.0, seq=i,
        attempt_base=0, owner=None,
    )


def change(tid: str, state: str, version: int, *, started: float | None = T0, hb: float | None = T0,
           finished: float | None = None, error: str | None = None, lane: str = "api:writer") -> TaskChanged:
    return TaskChanged(task_id=tid, state=state, attempt=1, lane=lane, account=None, started_at=started,
                       heartbeat_at=hb, finished_at=finished, error_kind=error, version=version)


class Clock:
    """A settable clock for ``clock=`` parameters."""

    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
