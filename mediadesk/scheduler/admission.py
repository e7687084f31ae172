"""Admission: whether a lane may start a task now, as an ordered list of checks.

Each check answers ``None`` (it lets a task start) or a :class:`Hold` saying why not and until when
(None: until something changes). The lane asks its :class:`Admission` once per round, before it
claims; the first hold wins, so a later check (and its side effects: a budget's notices, a reading
of the queue) runs only when every earlier one let the task through.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from mediadesk.store.taskstore import TaskRecord

if TYPE_CHECKING:
    from mediadesk.scheduler.budgets import BudgetStop

__all__ = ["Admission", "BudgetCheck", "Check", "DispatchGuard", "Dispatching", "FreeSlots", "Hold", "QuietHours"]


@dataclass(frozen=True)
class Hold:
    """Why a task may not start now, and until when (None: until something changes)."""

    why: str
    until: float | None = None


class Check(Protocol):
    def __call__(self, now: float) -> Hold | None: ...


class Admission:
    """The ordered checks a lane passes before it claims; the first hold wins."""

    def __init__(self, checks: Sequence[Check]) -> None:
        self.checks = tuple(checks)

    def hold(self, now: float) -> Hold | None:
        for check in self.checks:
            held = check(now)
            if held is not None:
                return held
        return None


class Dispatching:
    """The lane takes work at all: not stopping, paused, held, disabled or halted, its callee available."""

    def __init__(self, can_dispatch: Callable[[], bool]) -> None:
        self._can = can_dispatch

    def __call__(self, now: float) -> Hold | None:
        return None if self._can() else Hold("not dispatching")


class QuietHours:
    """Outside its active hours a lane starts nothing (what runs goes on). ``on_quiet`` is told at each
    quiet round (team mode hands the account back meanwhile); ``on_change`` when quiet hours begin or
    end, so the panels show it at once."""

    def __init__(self, opens_at: Callable[[float], float | None], *, on_quiet: Callable[[], None],
                 on_change: Callable[[], None]) -> None:
        self._opens_at = opens_at
        self._on_quiet = on_quiet
        self._on_change = on_change
        self.quiet = False

    def __call__(self, now: float) -> Hold | None:
        opening = self._opens_at(now)
        if opening is not None:
            self._on_quiet()
            if not self.quiet:
                self.quiet = True
                self._on_change()
            return Hold("quiet hours", opening)
        if self.quiet:
            self.quiet = False
            self._on_change()
        return None


class FreeSlots:
    """The lane has a free slot: its own share, within the callee's gate. ``free`` keeps the count of
    the last check, the number of tasks the lane may claim in this round."""

    def __init__(self, count: Callable[[float], int]) -> None:
        self._count = count
        self.free = 0

    def __call__(self, now: float) -> Hold | None:
        self.free = self._count(now)
        return None if self.free > 0 else Hold("no free slot")


class DispatchGuard(Protocol):
    """Budgets as a lane sees them (:class:`mediadesk.scheduler.budgets.Budgets` fits)."""

    @property
    def active(self) -> bool: ...
    def check(self, rec: TaskRecord, now: float) -> BudgetStop | None: ...
    def admit(self, rec: TaskRecord) -> None: ...
    def release(self, task_id: str) -> None: ...


class BudgetCheck:
    """The task the lane would take next fits every cap that applies (read, not claimed: a stopped
    lane's tasks stay pending, untouched). ``stop`` is the cap that stops the lane (None: none does);
    ``on_change`` is told when it changes."""

    def __init__(self, guard: DispatchGuard | None, head: Callable[[float], TaskRecord | None],
                 on_change: Callable[[], None]) -> None:
        self._guard = guard
        self._head = head
        self._on_change = on_change
        self.stop: BudgetStop | None = None

    @property
    def applies(self) -> bool:
        return self._guard is not None and self._guard.active

    def __call__(self, now: float) -> Hold | None:
        if self._guard is None or not self._guard.active:
            return None
        head = self._head(now)
        stop = None if head is None else self._guard.check(head, now)
        if stop != self.stop:
            self.stop = stop
            self._on_change()
        if head is None:
            return Hold("no pending task")
        return None if stop is None else Hold(stop.message())
