"""The live progress of ``mediadesk run``: a bar per lane kind on a terminal, else a plain line
every few seconds."""

from __future__ import annotations

import sys
import time
from collections import Counter
from typing import Any

from mediadesk.core.states import TERMINAL_STATES, TaskState
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.events import TaskChanged

#: How often the run reads its tasks' states back from the database (seconds, at least).
DB_POLL_S = 1.0


class Progress:
    """Per-lane-kind progress: a live bar on a terminal, a plain line every few seconds otherwise."""

    def __init__(self, sched: Scheduler, ids: list[str], *, quiet: bool) -> None:
        self._sched = sched
        self._kind_of = {p.name: p.kind for p in sched.config.profiles}
        self._state: dict[str, str] = {}
        self._task_kind: dict[str, str] = {}
        self._task_profile: dict[str, str] = {}
        for tid, (state, profile) in sched.store.states_of(ids).items():
            self._state[tid] = state
            self._task_profile[tid] = profile
            self._task_kind[tid] = self._kind_of.get(profile, "?")
        self._quiet = quiet
        self._tty = sys.stdout.isatty()
        self._last_plain = 0.0
        self._t0 = time.monotonic()
        self._live: Any = None
        if not quiet and self._tty:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._live = Progress(
                TextColumn("{task.description:>4}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[detail]}"), TimeElapsedColumn(),
            )
            self._bars = {
                k: self._live.add_task(k, total=self._total(k), detail="")
                for k in ("web", "api") if self._total(k)
            }
            self._live.start()

    def _total(self, kind: str) -> int:
        return sum(1 for k in self._task_kind.values() if k == kind)

    def on_event(self, ev: object) -> None:
        if isinstance(ev, TaskChanged) and ev.task_id in self._state:
            self._state[ev.task_id] = ev.state

    def poll_db(self) -> None:
        """Read back the states of the tasks not yet terminal here (terminal ones stay terminal:
        only a scheduler re-queues a task, and this run holds the database's one scheduler lock)."""
        open_ids = [t for t, s in self._state.items() if s not in TERMINAL_STATES]
        if open_ids:
            for tid, (state, _profile) in self._sched.store.states_of(open_ids).items():
                self._state[tid] = state

    def done(self) -> bool:
        return all(TaskState(s).terminal for s in self._state.values())

    def only_pending_of(self, profiles: list[str]) -> bool:
        blocked = set(profiles)
        return all(
            TaskState(s).terminal or (s == "pending" and self._task_profile[t] in blocked)
            for t, s in self._state.items()
        )

    def _counts(self, kind: str) -> Counter[str]:
        return Counter(s for t, s in self._state.items() if self._task_kind[t] == kind)

    def render(self, final: bool = False) -> None:
        if self._quiet:
            return
        if self._live is not None:
            for kind, bar in self._bars.items():
                c = self._counts(kind)
                done = c["success"] + c["failed"] + c["canceled"]
                self._live.update(
                    bar, completed=done,
                    detail=f"run {c['running']} pend {c['pending']} ok {c['success']} fail {c['failed']}"
                    + (f" cxl {c['canceled']}" if c["canceled"] else ""),
                )
            return
        now = time.monotonic()
        if final or now - self._last_plain >= 2.0:
            self._last_plain = now
            parts = []
            for kind in ("web", "api"):
                total = self._total(kind)
                if total:
                    c = self._counts(kind)
                    done = c["success"] + c["failed"] + c["canceled"]
                    parts.append(f"{kind} {done}/{total} (run {c['running']} pend {c['pending']} "
                                 f"fail {c['failed']})")
            print(f"[{now - self._t0:6.1f}s] " + " | ".join(parts), flush=True)

    def close(self, *, storage_failed: bool = False) -> None:
        if self._live is not None:
            if storage_failed:  # the bars' counts are not what the file holds: do not leave them shown
                for bar in self._bars.values():
                    self._live.update(bar, detail="stopped: the database failed")
            self._live.stop()
