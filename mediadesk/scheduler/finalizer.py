"""After an attempt has failed: the retry decision written (:func:`apply_failure`), and after a task
has failed for good (or spent its wait budget): the fallback chain, then the conversation's later turns.

A task its profile cannot serve moves down ``fallback = [...]`` (one profile after another, each
tried once), then to the chain's ``rule_reply``, then it ends ``fallback_exhausted``. Each step is
written in the task log and ``served_by`` records which step produced the result. Turns of a
conversation (``route_key``) never move: the conversation lives on one account or endpoint, so a
turn that fails for good fails the later turns (``conversation_broken``) instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from mediadesk.core.errors import RETRYABLE, ErrorKind, TaskFailure
from mediadesk.core.fallback import SERVED_BY_RULE_REPLY, StepKind, next_step
from mediadesk.core.policy import RetryPolicy, Verdict
from mediadesk.core.quarantine import counts_toward_quarantine
from mediadesk.core.states import TaskState
from mediadesk.scheduler.capacity import Capacity
from mediadesk.scheduler.events import EventBus, task_changed
from mediadesk.store.taskstore import TaskRecord, TaskStore

#: Failures that mean "this profile could not serve it" rather than "this task is bad".
FALLBACK_KINDS = frozenset(
    {*(k.value for k in RETRYABLE), ErrorKind.EXPIRED.value, ErrorKind.OUT_OF_CREDIT.value,
     ErrorKind.NEEDS_LOGIN.value}
)


class _Profile(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def fallback(self) -> tuple[str, ...]: ...
    @property
    def rule_reply(self) -> str | None: ...


class Finalizer:
    def __init__(
        self,
        store: TaskStore,
        bus: EventBus,
        profiles: Mapping[str, _Profile] | None = None,
        wake_profile: Callable[[str], None] | None = None,
    ) -> None:
        self._store = store
        self._bus = bus
        self._profiles = profiles or {}
        self._wake = wake_profile or (lambda _p: None)

    def _publish(self, rec: TaskRecord | None) -> None:
        if rec is not None:
            self._bus.publish(task_changed(rec))

    def expire(self, rec: TaskRecord, max_wait_s: float, now: float) -> None:
        """A pending task not started within its profile's budget: never run late."""
        waited = now - (rec.queued_at or rec.created_at)
        msg = f"not started within max_wait_s = {max_wait_s:g} s (waited {waited:.0f} s)"
        new = self._store.finish(rec, TaskState.FAILED, error_kind=ErrorKind.EXPIRED.value, error_message=msg,
                                 log=f"expired: {msg}", now=now)
        self._publish(new)
        if new is not None:
            self.after_final(new)

    def after_final(self, rec: TaskRecord) -> None:
        """``rec`` has just ended failed or canceled."""
        if rec.state == TaskState.FAILED.value and self._fall_back(rec):
            return
        for later in self._store.break_conversation(rec):
            self._publish(later)

    def _fall_back(self, rec: TaskRecord) -> bool:
        """Move ``rec`` one step down its chain; False when there is no chain for it."""
        origin = self._profiles.get(rec.origin_profile or rec.profile)
        if origin is None or rec.route_key is not None or rec.error_kind not in FALLBACK_KINDS:
            return False
        chain, rule = origin.fallback, origin.rule_reply
        if not chain and rule is None:
            return False
        tried = [origin.name, *chain[: chain.index(rec.profile) + 1]] if rec.profile in chain else [origin.name]
        step = next_step(chain, rule, tried)
        why = f"{rec.profile} could not serve it ({rec.error_kind}: {rec.error_message})"
        if step.kind is StepKind.PROFILE and step.profile is not None and step.profile in self._profiles:
            target = self._profiles[step.profile]
            new = self._store.reroute(rec, target.name, target.kind, log=f"fallback: {why}; moved to {target.name}")
            self._publish(new)
            self._wake(target.name)
            return new is not None
        if step.kind is StepKind.RULE_REPLY and step.reply is not None:
            new = self._store.finish(
                rec, TaskState.SUCCESS, result=step.reply, served_by=SERVED_BY_RULE_REPLY,
                log=f"fallback: {why}; answered with the rule reply",
            )
            self._publish(new)
            return new is not None
        msg = f"every step of the fallback chain failed; last: {rec.profile} ({rec.error_kind}: {rec.error_message})"
        new = self._store.set_error(rec, ErrorKind.FALLBACK_EXHAUSTED.value, msg, log=f"fallback exhausted: {msg}")
        self._publish(new)
        return True


def apply_failure(
    store: TaskStore,
    policy: RetryPolicy,
    rec: TaskRecord,
    failure: TaskFailure,
    now: float,
    *,
    pause: float | None = None,
    quarantinable: bool = False,
    capacity: Capacity | None = None,
) -> TaskRecord | None:
    """Write what the retry policy decided for a failed attempt (the decision itself is pure, in
    :meth:`RetryPolicy.decide`): pending again on the same row (charged or not), or failed."""
    crashed = quarantinable and counts_toward_quarantine(failure.kind)
    outcome = policy.decide(
        failure, rec.attempts_in_budget, crash_count=rec.crash_count + (1 if crashed else 0)
    )
    kind = (outcome.kind or failure.kind).value
    what = f"{failure.kind.value}: {failure.message}"
    if outcome.verdict is Verdict.REQUEUE:
        if failure.not_started:
            note = f"not started ({what}); attempt not charged, back in the queue for {outcome.delay_s:.0f} s"
        else:
            note = f"attempt {rec.attempt} {outcome.why} ({what})"
            if pause:
                note += f"; {capacity.kind if capacity else 'callee'} paused {pause:.1f} s"
            if capacity is not None and capacity.breaker.state.value != "closed":
                nxt = capacity.breaker.next_probe_at
                when = f", next probe in {max(0.0, nxt - now):.0f} s" if nxt is not None else ""
                note += (f"; {capacity.kind} stopped, not probed: it waits for the operator" if capacity.stopped
                         else f"; breaker {capacity.breaker.state.value} ({capacity.breaker.reason}){when}")
        return store.finish(
            rec, TaskState.PENDING, error_kind=kind, error_message=failure.message,
            not_before=now + outcome.delay_s, refund_attempt=True, now=now, log=note,
        )
    if outcome.verdict is Verdict.RETRY:
        return store.finish(
            rec, TaskState.PENDING, error_kind=kind, error_message=failure.message,
            not_before=now + outcome.delay_s, now=now, crashed=crashed,
            log=f"attempt {rec.attempt} failed ({what}); {outcome.why}",
        )
    message = failure.message if outcome.kind in (None, failure.kind) else f"{outcome.why} (last: {what})"
    return store.finish(
        rec, TaskState.FAILED, error_kind=kind, error_message=message, now=now, crashed=crashed,
        log=f"attempt {rec.attempt} failed ({what}); {outcome.why}",
    )
