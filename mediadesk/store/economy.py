"""The economy channel's rows: one per provider batch (``economy_batch``), so a batch sent through a
provider's Batch API survives a restart. Part of :class:`~mediadesk.store.taskstore.TaskStore`.

A row is written BEFORE the provider is asked to create the batch (``state = 'sending'``, no
``batch_id``), so a crash between the two leaves a row that says so: on resume the provider's list
of batches is searched for ours (its metadata carries ``ref``), and only a batch it never made sends
its tasks back to the queue. The tasks of an open row are ``running`` on lane ``batch:<profile>``:
the reaper and the crash recovery leave them to the channel (:data:`ECONOMY_LANE_PREFIX`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from mediadesk.store.connection import StoreBase, faults_typed

__all__ = ["ECONOMY_LANE_PREFIX", "EconomyBatch", "EconomyStore"]

#: The lane of a task that is in a provider batch.
ECONOMY_LANE_PREFIX = "batch:"
_OPEN = ("sending", "submitted")


@dataclass(frozen=True)
class EconomyBatch:
    ref: str
    profile: str
    batch_id: str | None
    state: str
    task_ids: tuple[str, ...]
    provider_status: str | None
    created_at: float


@faults_typed
class EconomyStore(StoreBase):
    """Reads and writes of ``economy_batch``."""

    def add_economy_batch(self, ref: str, profile: str, task_ids: list[str], now: float) -> None:
        self._conn.execute(
            "INSERT INTO economy_batch (ref, profile, batch_id, state, task_ids, provider_status, created_at,"
            " updated_at) VALUES (?, ?, NULL, 'sending', ?, NULL, ?, ?)",
            (ref, profile, json.dumps(task_ids), now, now))

    def set_economy_batch(self, ref: str, now: float, *, state: str, batch_id: str | None = None,
                          provider_status: str | None = None) -> None:
        self._conn.execute(
            "UPDATE economy_batch SET state = ?, batch_id = COALESCE(?, batch_id),"
            " provider_status = COALESCE(?, provider_status), updated_at = ? WHERE ref = ?",
            (state, batch_id, provider_status, now, ref))

    def open_economy_batches(self, profile: str) -> list[EconomyBatch]:
        rows = self._conn.execute(
            "SELECT ref, profile, batch_id, state, task_ids, provider_status, created_at FROM economy_batch"
            " WHERE profile = ? AND state IN (?, ?) ORDER BY created_at", (profile, *_OPEN)).fetchall()
        return [EconomyBatch(r[0], r[1], r[2], r[3], tuple(json.loads(r[4])), r[5], float(r[6])) for r in rows]

    def economy_heartbeat(self, task_ids: list[str], now: float) -> None:
        """The channel is alive and its tasks are in a provider batch (the console's "heartbeat")."""
        for i in range(0, len(task_ids), 500):
            part = task_ids[i:i + 500]
            marks = ",".join("?" * len(part))
            self._conn.execute(f"UPDATE task SET heartbeat_at = ? WHERE state = 'running' AND task_id IN ({marks})",
                               (now, *part))
