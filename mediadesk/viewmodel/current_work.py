"""What a lane panel's progress counts: the current work, not the whole workspace.

Per lane kind, the current work is the batches that have had work since that kind's lanes were last
idle: a batch joins when one of its tasks of that kind becomes pending or running, and starts the
set afresh if the kind was idle; finished batches stay until new work arrives. Unbatched tasks count
as one batch. After a restart it is the batches with pending or running tasks. Qt-free; fed by
:class:`~mediadesk.viewmodel.task_rows.TaskRows`.
"""

from __future__ import annotations

__all__ = ["OPEN_STATES", "CurrentWork"]

#: A task in one of these states is work still to do.
OPEN_STATES = frozenset({"pending", "running"})


class CurrentWork:
    def __init__(self) -> None:
        #: (kind, batch) -> state -> tasks
        self._counts: dict[tuple[str, str | None], dict[str, int]] = {}
        #: kind -> batch -> its pending + running tasks of that kind
        self._open: dict[str, dict[str | None, int]] = {}
        #: kind -> the batches of its current work
        self._current: dict[str, set[str | None]] = {}

    def add(self, kind: str, batch: str | None, state: str) -> None:
        """A task appeared (loaded or submitted) in ``state``."""
        by_state = self._counts.setdefault((kind, batch), {})
        by_state[state] = by_state.get(state, 0) + 1
        if state in OPEN_STATES:
            self._opened(kind, batch, 1)

    def change(self, kind: str, batch: str | None, old: str, new: str) -> None:
        """A task went from ``old`` to ``new``."""
        by_state = self._counts.setdefault((kind, batch), {})
        by_state[old] = by_state.get(old, 0) - 1
        by_state[new] = by_state.get(new, 0) + 1
        was, now = old in OPEN_STATES, new in OPEN_STATES
        if now and not was:
            self._opened(kind, batch, 1)
        elif was and not now:
            self._opened(kind, batch, -1)

    def _opened(self, kind: str, batch: str | None, delta: int) -> None:
        open_ = self._open.setdefault(kind, {})
        if delta > 0:
            if not any(open_.values()):  # the lanes of this kind were idle: a new run starts
                self._current[kind] = {batch}
            else:
                self._current.setdefault(kind, set()).add(batch)
        open_[batch] = open_.get(batch, 0) + delta

    def batches(self, kind: str) -> set[str | None]:
        """The batches of ``kind``'s current work."""
        return set(self._current.get(kind, ()))

    def counts(self, kind: str) -> dict[str, int]:
        """State counts over ``kind``'s current work (tasks of that kind only)."""
        out: dict[str, int] = {}
        for batch in self._current.get(kind, ()):
            for state, n in self._counts.get((kind, batch), {}).items():
                out[state] = out.get(state, 0) + n
        return out
