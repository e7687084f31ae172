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
from mediadesk.core.log_lines import LOG, LogText, LogValue, breaker_word, callee_word, english
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
        why = LOG.not_started_within(limit=f"{max_wait_s:g}", seconds=f"{waited:.0f}")
        new = self._store.finish(rec, TaskState.FAILED, error_kind=ErrorKind.EXPIRED.value,
                                 error_message=why.english(), log=LOG.expired(why=why), now=now)
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
        why = LOG.could_not_serve(profile=rec.profile, kind=str(rec.error_kind), error=str(rec.error_message))
        if step.kind is StepKind.PROFILE and step.profile is not None and step.profile in self._profiles:
            target = self._profiles[step.profile]
            new = self._store.reroute(rec, target.name, target.kind,
                                      log=LOG.fallback_moved(why=why, profile=target.name))
            self._publish(new)
            self._wake(target.name)
            return new is not None
        if step.kind is StepKind.RULE_REPLY and step.reply is not None:
            new = self._store.finish(
                rec, TaskState.SUCCESS, result=step.reply, served_by=SERVED_BY_RULE_REPLY,
                log=LOG.fallback_rule_reply(why=why),
            )
            self._publish(new)
            return new is not None
        last = LOG.fallback_all_failed(profile=rec.profile, kind=str(rec.error_kind), error=str(rec.error_message))
        new = self._store.set_error(rec, ErrorKind.FALLBACK_EXHAUSTED.value, last.english(),
                                    log=LOG.fallback_exhausted(why=last))
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
    why: LogValue = outcome.why or ""
    if outcome.verdict is Verdict.REQUEUE:
        note: LogText
        if failure.not_started:
            note = LOG.not_started_requeued(error=what, seconds=f"{outcome.delay_s:.0f}", more="")
        else:
            more: list[LogValue] = []
            if pause:
                more.append(LOG.named_callee_paused(callee=callee_word(capacity.kind), seconds=f"{pause:.1f}", more="")
                            if capacity else LOG.callee_paused(seconds=f"{pause:.1f}", more=""))
            if capacity is not None and capacity.breaker.state.value != "closed":
                nxt = capacity.breaker.next_probe_at
                when = LOG.next_probe_in(seconds=f"{max(0.0, nxt - now):.0f}") if nxt is not None else ""
                b = capacity.breaker
                more.append(LOG.callee_stopped_not_probed(callee=callee_word(capacity.kind)) if capacity.stopped
                            else LOG.breaker_now(breaker=breaker_word(b.state.value),
                                                 reason=b.reason_text if b.reason_text is not None else "None",
                                                 more=when))
            note = LOG.attempt_requeued(attempt=rec.attempt, why=why, error=what, more=tuple(more))
        return store.finish(
            rec, TaskState.PENDING, error_kind=kind, error_message=failure.message,
            not_before=now + outcome.delay_s, refund_attempt=True, now=now, log=note,
        )
    if outcome.verdict is Verdict.RETRY:
        return store.finish(
            rec, TaskState.PENDING, error_kind=kind, error_message=failure.message,
            not_before=now + outcome.delay_s, now=now, crashed=crashed,
            log=LOG.attempt_failed(attempt=rec.attempt, error=what, why=why),
        )
    message = failure.message if outcome.kind in (None, failure.kind) else f"{english(why)} (last: {what})"
    return store.finish(
        rec, TaskState.FAILED, error_kind=kind, error_message=message, now=now, crashed=crashed,
        log=LOG.attempt_failed(attempt=rec.attempt, error=what, why=why),
    )
