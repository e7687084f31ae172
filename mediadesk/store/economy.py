"""The economy channel's rows: one per provider batch (``economy_batch``), so a batch sent through a
provider's Batch API survives a restart. :class:`~mediadesk.store.taskstore.TaskStore` reads and
writes them.

A row is written BEFORE the provider is asked to create the batch (``state = 'sending'``, no
``batch_id``), so a crash between the two leaves a row that says so: on resume the provider's list
of batches is searched for ours (its metadata carries ``ref``), and only a batch it never made sends
its tasks back to the queue. The tasks of an open row are ``running`` on lane ``batch:<profile>``:
the reaper and the crash recovery leave them to the channel (:data:`ECONOMY_LANE_PREFIX`).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ECONOMY_LANE_PREFIX", "OPEN_STATES", "EconomyBatch"]

#: The lane of a task that is in a provider batch.
ECONOMY_LANE_PREFIX = "batch:"
#: The states of a row whose batch is still open (being sent, or with the provider).
OPEN_STATES = ("sending", "submitted")


@dataclass(frozen=True)
class EconomyBatch:
    ref: str
    profile: str
    batch_id: str | None
    state: str
    task_ids: tuple[str, ...]
    provider_status: str | None
    created_at: float
