"""How a lane claims its tasks: alone, or as one desktop of a team.

Alone (:class:`Solo`) a claim is the store's compare-and-set. In team mode (several desktops on one
PostgreSQL queue, see :mod:`mediadesk.scheduler.team_link`) the claim is made under what the team
shares: a web lane claims only while this desktop holds its account's lease
(:class:`AccountLease`), an API lane takes one of its endpoint's shared slots per task
(:class:`EndpointSlots`), and both draw from the team's shared token buckets (:class:`SharedTokens`).
The lane calls one :class:`Claims` the same way in every mode.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Protocol

from mediadesk.core.picker import PriorityPicker
from mediadesk.core.usage import Usage
from mediadesk.scheduler.capacity import Signal
from mediadesk.store.taskstore import TaskRecord, TaskStore

if TYPE_CHECKING:
    from mediadesk.scheduler.team_link import TeamLink

__all__ = ["AccountLease", "Claims", "EndpointSlots", "SharedTokens", "Solo", "StoreClaim"]

#: Starts one claimed task (the lane's: its gate slot, budget hold and run).
Start = Callable[[TaskRecord, float], None]


class Claims(Protocol):
    #: After a start checked against the budgets, the round may check and start the next one (alone);
    #: False: the lane's next round does (a team claim takes its lease or slots once per round).
    rechecks_in_round: bool

    @property
    def waits_until(self) -> float:
        """No claim before then (a shared token bucket is empty); 0.0: no such wait."""
        ...

    def take(self, n: int, now: float, need: float) -> int:
        """Claim up to ``n`` tasks (``need``: the head task's expected tokens), start each; how many."""
        ...

    def let_go(self) -> None:
        """The lane starts nothing for a while (quiet hours): hand back what another desktop may use."""
        ...

    def ended(self, task_id: str) -> None:
        """An attempt is over: what it ran under goes back."""
        ...

    def true_up(self, reserved: float, signal: Signal, usage: Usage | None, retry_after_s: float | None) -> None:
        """An attempt that reserved ``reserved`` tokens ended: the shared token bucket learns what it used."""
        ...


class StoreClaim:
    """The lane's compare-and-set claim on the store. When several priority channels have work, the
    picker chooses the channel of each task (5:1 by weight, a waiting lower channel is never starved).
    ``economy`` is False while the profile's economy channel takes its non-urgent tasks."""

    def __init__(self, store: TaskStore, profiles: Sequence[str], *, lane: str, account: str | None, owner: str,
                 economy: bool | None) -> None:
        self._store = store
        self._profiles = profiles
        self._lane = lane
        self._account = account
        self._owner = owner
        self.economy = economy
        self._picker = PriorityPicker()

    def __call__(self, n: int, now: float) -> list[TaskRecord]:
        claim = partial(self._store.claim, self._profiles, lane=self._lane, account=self._account,
                        owner=self._owner, now=now, economy=self.economy)
        channels = self._store.priority_span(self._profiles, now)
        if len(channels) <= 1:
            return claim(n)
        out: list[TaskRecord] = []
        while len(out) < n and channels:
            ch = self._picker.pick(channels)
            if ch is None:
                break
            got = claim(1, channel=ch)
            if got:
                out.extend(got)
            else:
                channels.discard(ch)
        return out

    def head(self, now: float) -> TaskRecord | None:
        """The task the next claim would take (read only)."""
        return self._store.head_pending(self._profiles, account=self._account, now=now, economy=self.economy)


class Solo:
    """One desktop alone on its database: a claim is the store's compare-and-set, nothing more."""

    rechecks_in_round = True
    waits_until = 0.0

    def __init__(self, claim: Callable[[int, float], list[TaskRecord]], start: Start) -> None:
        self._claim = claim
        self._start = start

    def take(self, n: int, now: float, need: float) -> int:
        claimed = self._claim(n, now)
        for rec in claimed:
            self._start(rec, now)
        return len(claimed)

    def let_go(self) -> None:
        pass

    def ended(self, task_id: str) -> None:
        pass

    def true_up(self, reserved: float, signal: Signal, usage: Usage | None, retry_after_s: float | None) -> None:
        pass


class SharedTokens:
    """The team's shared buckets of one callee: one token per dispatch from each ``(name, requests/min)``
    bucket, and the expected tokens from the endpoint's tokens-per-minute bucket (all desktops draw
    from them)."""

    def __init__(self, team: TeamLink, buckets: tuple[tuple[str, float], ...],
                 token_bucket: tuple[str, float] | None) -> None:
        self._team = team
        self._buckets = buckets
        self._token_bucket = token_bucket
        self.wait_until = 0.0

    def take(self, now: float, need: float) -> bool:
        """False, and no dispatch until the named wait is over, when one bucket is empty."""
        if not self._buckets and self._token_bucket is None:
            return True
        if now < self.wait_until:
            return False
        wait = self._team.take_tokens(self._buckets)
        if wait <= 0 and self._token_bucket is not None and need > 0:
            name, tpm = self._token_bucket
            wait = self._team.take_token_count(name, tpm, need)
        if wait > 0:
            self.wait_until = now + wait
            return False
        return True

    def give_back(self, need: float, unused: int) -> None:
        """Tokens taken for ``unused`` tasks another desktop claimed first go back."""
        if self._token_bucket is not None and need > 0 and unused > 0:
            name, tpm = self._token_bucket
            with contextlib.suppress(Exception):
                self._team.give_back_tokens(name, tpm, need * unused)

    def true_up(self, reserved: float, signal: Signal, usage: Usage | None, retry_after_s: float | None) -> None:
        """The bucket gets back what the attempt did not use (or owes more); after a refusal with a
        stated wait it drops to the provider's level, for every desktop."""
        if self._token_bucket is None or reserved <= 0:
            return
        used = usage.total if usage is not None and usage.prompt_tokens is not None else (
            0.0 if signal is Signal.REFUSAL else None)
        name, tpm = self._token_bucket
        with contextlib.suppress(Exception):  # an error here costs accuracy, never a task
            if used is not None and used != reserved:
                self._team.give_back_tokens(name, tpm, reserved - used)
            if signal is Signal.REFUSAL and retry_after_s is not None and retry_after_s > 0:
                self._team.refused_tokens(name, tpm, reserved, retry_after_s)


class AccountLease:
    """Team mode, a web lane: it runs its account only while this desktop holds the account's lease,
    and hands the lease back when it has nothing to do, so another desktop with the same account can
    use it. ``busy``: the lane has a run going."""

    rechecks_in_round = False

    def __init__(self, team: TeamLink, account: str, claim: Callable[[int, float], list[TaskRecord]], start: Start,
                 tokens: SharedTokens, *, hold_s: float, has_pending: Callable[[], bool],
                 busy: Callable[[], bool]) -> None:
        self._team = team
        self._account = account
        self._claim = claim
        self._start = start
        self._tokens = tokens
        self._hold_s = hold_s
        self._has_pending = has_pending
        self._busy = busy

    @property
    def waits_until(self) -> float:
        return self._tokens.wait_until

    def take(self, n: int, now: float, need: float) -> int:
        team, account = self._team, self._account
        if not self._has_pending():
            if not self._busy():
                team.release_account(account)
            return 0
        # The lease is checked on the database (fenced) right before the claim: this desktop may
        # have been frozen past its lease, and its memory of holding it is then out of date.
        if team.try_account(account) and self._tokens.take(now, need) and team.fence_account(account, self._hold_s):
            claimed = self._claim(n, now)
            for rec in claimed:
                self._start(rec, now)
            if not claimed and not self._busy():
                team.unhold_account(account)
            return len(claimed)
        return 0

    def let_go(self) -> None:
        if not self._busy():
            self._team.release_account(self._account)  # another desktop may use it meanwhile

    def ended(self, task_id: str) -> None:
        with contextlib.suppress(Exception):  # the slot expires by itself if this fails
            self._team.release_slot(task_id)
        if not self._busy():
            with contextlib.suppress(Exception):  # the run ended: an ordinary lease again
                self._team.unhold_account(self._account)

    def true_up(self, reserved: float, signal: Signal, usage: Usage | None, retry_after_s: float | None) -> None:
        self._tokens.true_up(reserved, signal, usage, retry_after_s)


class EndpointSlots:
    """Team mode, an API lane: one of the endpoint's shared slots per task started, so all desktops
    together stay within the endpoint's concurrency; slots taken for tasks that were not there go
    back at once. ``limit``: the endpoint's concurrency now; ``next_due``: the lane's earliest due task."""

    rechecks_in_round = False

    def __init__(self, team: TeamLink, endpoint: str, limit: Callable[[], int],
                 claim: Callable[[int, float], list[TaskRecord]], start: Start, tokens: SharedTokens, *,
                 hold_s: float, next_due: Callable[[], float | None]) -> None:
        self._team = team
        self._endpoint = endpoint
        self._limit = limit
        self._claim = claim
        self._start = start
        self._tokens = tokens
        self._hold_s = hold_s
        self._next_due = next_due

    @property
    def waits_until(self) -> float:
        return self._tokens.wait_until

    def take(self, n: int, now: float, need: float) -> int:
        team, endpoint = self._team, self._endpoint
        due = self._next_due()
        if due is None or due > now:
            return 0
        slots = team.reserve(endpoint, self._limit(), n, self._hold_s)
        if not slots:
            return 0
        go = 0
        while go < len(slots) and self._tokens.take(now, need):
            go += 1
        claimed = self._claim(go, now) if go else []
        for rec, slot in zip(claimed, slots, strict=False):
            team.bind(rec.task_id, endpoint, slot)
            self._start(rec, now)
        team.unreserve(endpoint, slots[len(claimed):])
        self._tokens.give_back(need, go - len(claimed))  # tokens taken for tasks another desktop claimed first
        return len(claimed)

    def let_go(self) -> None:
        pass

    def ended(self, task_id: str) -> None:
        with contextlib.suppress(Exception):  # the slot expires by itself if this fails
            self._team.release_slot(task_id)

    def true_up(self, reserved: float, signal: Signal, usage: Usage | None, retry_after_s: float | None) -> None:
        self._tokens.true_up(reserved, signal, usage, retry_after_s)
