"""Events out: the scheduler's bus turned into the few events an operator wires to notifications.

``batch_done`` (a batch's last task became terminal), ``task_failed`` (a task needs a person's judgement),
``account_needs_person`` (a web account needs a login by hand), ``endpoint_stopped`` (an API endpoint's
breaker opened, or it is stopped until the operator acts) and ``budget_reached`` (a budget cap stopped a lane).
Each is one JSON envelope ``{"id", "event", "ts", "data"}``. Batch and task events need the task's row, so
terminal task ids are collected and looked up together on the reading thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

from mediadesk.remote.context import RemoteContext
from mediadesk.scheduler.events import AccountChanged, Event, LaneStats, TaskChanged
from mediadesk.scheduler.scheduler import EXCEPTION_KINDS
from mediadesk.store import TaskReader, TaskRecord

log = logging.getLogger(__name__)

Envelope = dict[str, Any]
TERMINAL = frozenset({"success", "failed", "canceled"})


def envelope(kind: str, data: dict[str, Any]) -> Envelope:
    return {"id": uuid.uuid4().hex, "event": kind, "ts": time.time(), "data": data}


class EventRouter:
    """Bus events -> envelopes, handed to ``emit`` (the sinks pick the kinds they listen to)."""

    def __init__(self, ctx: RemoteContext, emit: Callable[[Envelope], None]) -> None:
        self._ctx = ctx
        self._emit = emit
        self._ended: set[str] = set()
        self._wake = asyncio.Event()
        self._announced: dict[str, dict[str, int]] = {}
        self._health: dict[str, str] = {}
        self._breakers: dict[str, str] = {}
        #: lane -> the budget key stopping it; the keys already announced (again once raised and reached)
        self._budget_of: dict[str, str | None] = {}
        self._reached: set[str] = set()
        self._task: asyncio.Task[None] | None = None
        self._unsubscribe: Callable[[], None] | None = None

    def start(self) -> None:
        self._unsubscribe = self._ctx.scheduler.bus.subscribe(self.on_event)
        self._task = asyncio.create_task(self._loop(), name="remote:events")

    async def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def _budget(self, ev: LaneStats) -> None:
        was, key = self._budget_of.get(ev.lane), ev.budget_key
        self._budget_of[ev.lane] = key
        if was is not None and was != key and was not in self._budget_of.values():
            self._reached.discard(was)  # raised (or rolled over): a later stop is news again
        if key is not None and key not in self._reached:
            self._reached.add(key)
            self._emit(envelope("budget_reached", {"budget": key, "lane": ev.lane, "profiles": list(ev.profiles),
                                                   "message": ev.budget_stop}))

    def on_event(self, ev: Event) -> None:
        if isinstance(ev, LaneStats):
            self._budget(ev)
        if isinstance(ev, TaskChanged) and ev.state in TERMINAL:
            self._ended.add(ev.task_id)
            self._wake.set()
        elif isinstance(ev, AccountChanged):
            was = self._health.get(ev.account)
            self._health[ev.account] = ev.health
            if ev.health == "needs_login" and was != "needs_login":
                self._emit(envelope("account_needs_person", {
                    "account": ev.account, "enabled": ev.enabled, "health": ev.health, "last_error": ev.last_error,
                }))
        elif isinstance(ev, LaneStats) and ev.callee is not None and ev.callee.kind == "endpoint":
            cap = ev.callee
            was = self._breakers.get(cap.name, "closed")
            self._breakers[cap.name] = cap.breaker
            if cap.breaker == "open" and was != "open":
                self._emit(envelope("endpoint_stopped", {
                    "endpoint": cap.name, "reason": cap.breaker_reason, "next_probe_at": cap.next_probe_at,
                    # its key rejected ("auth") or a TLS error ("config"): no probe, the operator acts
                    "until_operator": cap.stopped_kind,
                }))

    async def _loop(self) -> None:
        while True:
            await self._wake.wait()
            await asyncio.sleep(0.05)  # a burst of endings: one look-up
            self._wake.clear()
            ids, self._ended = sorted(self._ended), set()
            try:
                recs, batches = await self._ctx.read(functools.partial(_look_up, ids=ids))
            except Exception:  # the store may be gone (a storage fault): the scheduler says so
                log.warning("remote: could not read ended tasks for the event hooks", exc_info=True)
                continue
            for rec in recs:
                if rec.state == "failed" and rec.error_kind in EXCEPTION_KINDS and rec.resolution is None:
                    self._emit(envelope("task_failed", {
                        "task_id": rec.task_id, "profile": rec.profile, "batch": rec.batch, "lane": rec.lane,
                        "account": rec.account, "attempt": rec.attempt, "error_kind": rec.error_kind,
                        "error_message": rec.error_message,
                    }))
            for batch, counts in batches.items():
                if any(counts.get(s) for s in ("pending", "running")) or self._announced.get(batch) == counts:
                    continue
                self._announced[batch] = counts
                self._emit(envelope("batch_done", {"batch": batch, "counts": counts, "tasks": sum(counts.values())}))


def _look_up(reader: TaskReader, *, ids: list[str]) -> tuple[list[TaskRecord], dict[str, dict[str, int]]]:
    recs = reader.get_many(ids)
    batches = {rec.batch for rec in recs if rec.batch is not None}
    return recs, {b: reader.batch_counts(b) for b in sorted(batches)}
