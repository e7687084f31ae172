"""How the task table shows its rows: display states (``stalled``), the operator's filter, the sort keys.

Apart from :mod:`mediadesk.viewmodel.task_rows` (the mirror's storage and its feeding) because these
are the operator's questions about a row, each a pure function of the columns: a new column to
filter or sort by is added here, and the mirror does not change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from mediadesk.core.states import TaskState
from mediadesk.viewmodel.columns import Columns

__all__ = [
    "DISPLAY_STATES",
    "SORT_KEYS",
    "STALLED",
    "STATES",
    "RowFilter",
    "duration_of",
    "owner_host",
    "sort_key_function",
]

#: Display-only state of a running task whose last heartbeat is too old.
STALLED = "stalled"
PENDING, RUNNING, SUCCESS, FAILED, CANCELED = (s.value for s in TaskState)
#: Stored states, in their sort order.
STATES: tuple[str, ...] = (PENDING, RUNNING, SUCCESS, FAILED, CANCELED)
#: States as displayed (``stalled`` included).
DISPLAY_STATES: tuple[str, ...] = (PENDING, RUNNING, STALLED, SUCCESS, FAILED, CANCELED)
_TERMINAL = frozenset({SUCCESS, FAILED, CANCELED})
_STATE_RANK = {st: i for i, st in enumerate(STATES)}
#: What :meth:`TaskRows.sort` can sort by (the task table's column names).
SORT_KEYS: tuple[str, ...] = ("id", "lane", "profile", "account", "state", "attempt", "started", "heartbeat",
                              "duration", "prompt", "error", "desktop")


def owner_host(owner: str | None) -> str:
    """The host of an owner ``host:pid:uuid8`` (the Desktop column); "" for None."""
    if not owner:
        return ""
    parts = owner.rsplit(":", 2)
    return parts[0] if len(parts) == 3 else owner


@dataclass(frozen=True)
class RowFilter:
    """What the operator filters the table by; build it with :meth:`of` (normalises the inputs)."""

    kind: str | None = None
    states: frozenset[str] | None = None
    profile: str | None = None
    #: Case-folded text searched in id, profile, lane, account, error and the prompt head.
    text: str = ""
    #: Only tasks run by this web account ("show only this account").
    account: str | None = None
    #: Only tasks of this batch ("show only this batch").
    batch: str | None = None

    @classmethod
    def of(cls, *, kind: str | None = None, states: Iterable[str] | None = None, profile: str | None = None,
           text: str = "", account: str | None = None, batch: str | None = None) -> RowFilter:
        return cls(kind or None, frozenset(states) if states else None, profile or None, text.strip().casefold(),
                   account or None, batch or None)

    @property
    def active(self) -> bool:
        return bool(self.kind or self.states or self.profile or self.text or self.account or self.batch)

    def matches(self, cols: Columns, s: int, display_state: Callable[[int], str]) -> bool:
        """Does storage row ``s`` of ``cols`` pass? ``display_state`` tells a stalled task apart."""
        c = cols
        if self.kind is not None and c.kind[s] != self.kind:
            return False
        states = self.states
        if (states is not None and c.state[s] not in states
                and not (STALLED in states and display_state(s) == STALLED)):
            return False
        if self.profile is not None and c.profile[s] != self.profile:
            return False
        if self.account is not None and c.account[s] != self.account:
            return False
        if self.batch is not None and c.batch[s] != self.batch:
            return False
        t = self.text
        if t:
            return (t in c.task_id[s].casefold() or t in c.profile[s].casefold()
                    or t in (c.lane[s] or "").casefold() or t in (c.account[s] or "").casefold()
                    or t in (c.error[s] or "").casefold() or t in c.prompt[s].casefold()
                    or t in (c.owner[s] or "").casefold())
        return True


def duration_of(cols: Columns, s: int, clock: Callable[[], float]) -> float | None:
    """Run time so far (running) or of the finished attempt (terminal); else None."""
    start = cols.started_at[s]
    if start is None:
        return None
    state = cols.state[s]
    if state == RUNNING:
        return clock() - start
    end = cols.finished_at[s]
    if end is None or state not in _TERMINAL:
        return None
    return end - start


def _num(v: float | None) -> float:
    return float("-inf") if v is None else v


def sort_key_function(cols: Columns, key: str | None, clock: Callable[[], float]) -> Callable[[int], Any] | None:
    """Key over storage indexes for :data:`SORT_KEYS` ``key`` (None for an unknown one). None sorts
    first ascending (missing times, no account)."""
    c = cols
    if key == "id":
        return c.task_id.__getitem__
    if key == "state":
        state = c.state
        return lambda s: _STATE_RANK.get(state[s], 9)
    if key == "attempt":
        return c.attempt.__getitem__
    if key == "prompt":
        prompt = c.prompt
        return lambda s: prompt[s].casefold()
    text_cols: dict[str, list[str] | list[str | None]] = {
        "lane": c.lane, "profile": c.profile, "account": c.account, "error": c.error}
    if key == "desktop":
        owners = c.owner
        return lambda s: owner_host(owners[s])
    if key in text_cols:
        col = text_cols[key]
        return lambda s: col[s] or ""
    if key == "started":
        started = c.started_at
        return lambda s: _num(started[s])
    if key == "heartbeat":
        now = clock()
        hbs, states = c.heartbeat_at, c.state

        def age(s: int) -> float:
            hb = hbs[s]
            return float("-inf") if states[s] != RUNNING or hb is None else now - hb

        return age
    if key == "duration":
        return lambda s: _num(duration_of(c, s, clock))
    return None
