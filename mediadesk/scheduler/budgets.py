"""Budgets that stop, not fail: what each endpoint, profile and batch has spent, and whether its next
task may start.

Sums per (profile, batch) and currency, all-time and for the local day, are loaded from the task
table at start and day roll-over, then fed by ``TaskStore.on_spent``. :meth:`Budgets.check` tests the
next task's expected cost against every applicable cap; a task that would pass one stays pending,
uncharged, until the cap is raised (:meth:`Budgets.raise_cap`) or the day rolls over. Team mode:
sums are this desktop's view, so a shared cap can be passed by up to one task per desktop.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import tzinfo

from mediadesk.config.model import AppConfig
from mediadesk.core.hours import epoch_of, wall_of
from mediadesk.core.spend import NOTICE_AT, TOKENS, Budget, BudgetState, Price, Totals, budget_state
from mediadesk.core.token_rate import DEFAULT_COMPLETION_TOKENS, expected_tokens
from mediadesk.core.usage import Usage
from mediadesk.store import TaskRecord, TaskStore

__all__ = ["BudgetStop", "Budgets", "batch_budget_key"]

def batch_budget_key(batch: str, unit: str) -> str:
    return Budget("batch", batch, "total", 0.0, unit).key


@dataclass(frozen=True)
class BudgetStop:
    """A cap that stops a lane: which, how much is used, and how to raise it (English, for the CLI
    and the task-free places of the console)."""

    budget: Budget
    used: float

    def message(self) -> str:
        b = self.budget
        window = "today" if b.per == "day" else "so far"
        again = " or wait for tomorrow (local time)" if b.per == "day" else ""
        return (f"budget reached: {b.label()} ({b.amount(self.used)} used {window}); its tasks stay pending, "
                f"nothing failed; raise it ({b.source}){again}")


@dataclass
class _InFlight:
    profile: str
    batch: str | None
    cost: float | None
    currency: str | None
    tokens: int


class Budgets:
    """Caps from ``[[budgets]]`` and the ones stored (a batch's ``--budget``, caps the operator raised)."""

    def __init__(self, config: AppConfig, store: TaskStore, *, clock: Callable[[], float],
                 notice: Callable[[str], None], tz: tzinfo | None = None) -> None:
        self._config = config
        self._store = store
        self._clock = clock
        self._notice = notice
        self._tz = tz
        self.prices: dict[str, Price] = {}
        for p in config.profiles:
            price = config.price_of(p.name)
            if price is not None:
                self.prices[p.name] = price
        self.endpoint_of = {name: ep.name for ep in config.api_endpoints() for name in ep.profiles}
        self._config_budgets = [self._of_config(i) for i in range(len(config.budgets))]
        self.budgets: list[Budget] = []
        self._total: dict[tuple[str, str | None], Totals] = {}
        self._today: dict[tuple[str, str | None], Totals] = {}
        self._day_start = 0.0
        self._inflight: dict[str, _InFlight] = {}
        self._noticed: set[tuple[str, float]] = set()
        self._completions: dict[str, deque[int]] = {}
        #: The caps stopping something now, by key (what the faces show).
        self.stops: dict[str, BudgetStop] = {}
        self.reload()

    def _of_config(self, i: int) -> Budget:
        b = self._config.budgets[i]
        scope, name = ("endpoint", b.endpoint) if b.endpoint is not None else ("profile", b.profile)
        assert name is not None
        unit, limit = (TOKENS, float(b.max_tokens)) if b.max_tokens is not None else (b.currency, b.max_cost or 0.0)
        key = "max_tokens" if unit == TOKENS else "max_cost"
        return Budget(scope, name, b.per, limit, unit,
                      source=f"{key} of [[budgets]] entry {i + 1} in the config, or the console's Raise cap")

    # ------------------------------------------------------------------ sums
    @property
    def active(self) -> bool:
        return bool(self.budgets)

    def day_start(self, now: float) -> float:
        wall = wall_of(now, self._tz)
        return epoch_of(wall.replace(hour=0, minute=0, second=0, microsecond=0), self._tz)

    def reload(self) -> None:
        """Caps and sums from the database (at start, at a day roll-over, after a cap changed)."""
        caps = self._store.budget_caps()
        budgets = [Budget(b.scope, b.name, b.per, caps.get(b.key, b.limit), b.unit, b.source)
                   for b in self._config_budgets]
        for key, cap in caps.items():
            scope, _, rest = key.partition(":")
            if scope == "batch":
                name, per, unit = rest.rsplit(":", 2)
                budgets.append(Budget("batch", name, per, cap, unit,
                                      source="run the batch again with a higher --budget, or the console's Raise cap"))
        self.budgets = budgets
        self._day_start = self.day_start(self._clock())
        self._total = self._sums(None)
        self._today = self._sums(self._day_start)

    def _sums(self, since: float | None) -> dict[tuple[str, str | None], Totals]:
        out: dict[tuple[str, str | None], Totals] = {}
        for row in self._store.spend_rows("profile_batch", since=since):
            t = out.setdefault(row.key, Totals.empty())
            t.merge(Totals({row.currency: row.cost} if row.currency else {}, row.tokens, row.tasks, row.estimated))
        return out

    def spent(self, rec: TaskRecord, cost: float, usage: Usage) -> None:
        """The store wrote a cost (``TaskStore.on_spent``): add it to both windows."""
        self.roll(self._clock())
        for sums in (self._total, self._today):
            sums.setdefault((rec.profile, rec.batch), Totals.empty()).add(
                cost if rec.currency else None, rec.currency, usage.total, usage.estimated)
        if usage.completion_tokens is not None and not usage.estimated:
            self._completions.setdefault(rec.profile, deque(maxlen=200)).append(usage.completion_tokens)

    def roll(self, now: float) -> bool:
        """A new local day: the daily sums start again (read back from the database). True if it rolled."""
        if self.day_start(now) == self._day_start:
            return False
        self.reload()
        self.stops = {k: s for k, s in self.stops.items() if s.budget.per != "day"}
        return True

    def _applies(self, b: Budget, profile: str, batch: str | None) -> bool:
        if b.scope == "endpoint":
            return self.endpoint_of.get(profile) == b.name
        if b.scope == "profile":
            return profile == b.name
        return batch == b.name

    def _keys(self, b: Budget, keys: Iterable[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
        return [k for k in keys if self._applies(b, k[0], k[1])]

    def used(self, b: Budget) -> float:
        sums = self._today if b.per == "day" else self._total
        return sum(sums[k].used(b.unit) for k in self._keys(b, sums))

    def totals(self, scope: str, name: str, per: str = "total") -> Totals:
        """What an endpoint, profile or batch has used (``per`` "day": today)."""
        sums = self._today if per == "day" else self._total
        out = Totals.empty()
        probe = Budget(scope, name, per, 0.0, TOKENS)
        for k in self._keys(probe, sums):
            out.merge(sums[k])
        return out

    def today(self) -> Totals:
        """Everything used since local midnight (the status bar's "spent today")."""
        self.roll(self._clock())
        out = Totals.empty()
        for t in self._today.values():
            out.merge(t)
        return out

    # ------------------------------------------------------------------ the decision
    def expected(self, rec: TaskRecord) -> _InFlight:
        """What ``rec`` is expected to cost, as the token gate reserves it: its prompt (and instructions)
        as estimated tokens, plus the profile's ``max_tokens``, else its recent p90 of completions, else
        :data:`DEFAULT_COMPLETION_TOKENS`."""
        prof = self._config.profile(rec.profile)
        system = rec.system if rec.system is not None else prof.instructions
        prompt = expected_tokens(rec.prompt, system, max_tokens=0)
        seen = sorted(self._completions.get(rec.profile, ()))
        p90 = seen[min(len(seen) - 1, math.ceil(0.9 * len(seen)) - 1)] if len(seen) >= 3 else None
        completion = prof.max_tokens if prof.max_tokens is not None else (
            p90 if p90 is not None else DEFAULT_COMPLETION_TOKENS)
        price = self.prices.get(rec.profile)
        cost = None if price is None else price.cost(prompt, completion)
        return _InFlight(rec.profile, rec.batch, cost, None if price is None else price.currency,
                         prompt + completion)

    def _amount(self, f: _InFlight, unit: str) -> float:
        if unit == TOKENS:
            return float(f.tokens)
        return (f.cost or 0.0) if f.currency == unit else 0.0

    def check(self, rec: TaskRecord, now: float) -> BudgetStop | None:
        """None when ``rec`` may start; else the first cap it would pass (recorded in :attr:`stops`)."""
        self.roll(now)
        nxt = self.expected(rec)
        for b in self.budgets:
            if not self._applies(b, rec.profile, rec.batch):
                continue
            used = self.used(b)
            flying = sum(self._amount(f, b.unit) for f in self._inflight.values()
                         if self._applies(b, f.profile, f.batch))
            state = budget_state(b.limit, used, flying, self._amount(nxt, b.unit))
            window = self._day_start if b.per == "day" else 0.0
            if used + flying >= NOTICE_AT * b.limit and (b.key, window) not in self._noticed:
                self._noticed.add((b.key, window))  # once per cap and window, even on the way to a stop
                self._notice(f"budget at {100 * (used + flying) / b.limit:.0f} % (notice at {NOTICE_AT:.0%}): "
                             f"{b.label()}, {b.amount(used)} used")
            if state is BudgetState.STOP:
                stop = BudgetStop(b, used)
                if b.key not in self.stops:
                    self._notice(stop.message())
                self.stops[b.key] = stop
                return stop
            self.stops.pop(b.key, None)
        return None

    def admit(self, rec: TaskRecord) -> None:
        """``rec`` started: its expected cost counts against the caps until its own is stored."""
        self._inflight[rec.task_id] = self.expected(rec)

    def release(self, task_id: str) -> None:
        self._inflight.pop(task_id, None)

    def raise_cap(self, key: str, cap: float) -> Budget:
        """The operator raised (or set) a cap: kept in the database, in effect at once."""
        found = next((b for b in self.budgets if b.key == key), None)
        if found is None:
            raise ValueError(f"no budget {key!r}")
        if not cap > 0:
            raise ValueError("a cap must be greater than 0")
        self._store.set_budget_cap(key, cap)
        self.stops.pop(key, None)
        self._noticed = {n for n in self._noticed if n[0] != key}  # 80 % of the new cap is told again
        self.reload()
        return next(b for b in self.budgets if b.key == key)

    def set_batch_budget(self, batch: str, cap: float, unit: str) -> None:
        """A batch's cap given at submit (``--budget``): kept in the database with the batch."""
        if not cap > 0:
            raise ValueError("a budget must be greater than 0")
        self._store.set_budget_cap(batch_budget_key(batch, unit), cap)
        self.reload()
