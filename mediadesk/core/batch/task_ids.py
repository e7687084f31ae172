"""Task ids of a batch's rows: deterministic, so running the same file again finds the same tasks."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass

from mediadesk.core.batch.rows import BatchRow


def derive_task_id(row: BatchRow, occurrence: int) -> str:
    """The row's own id, else ``b-`` + 20 hex of sha256(profile, system or "", prompt, occurrence).

    Deterministic so that re-running the same file yields the same ids (the CLI uses them as
    idempotency keys); ``occurrence`` tells identical rows of one file apart."""
    if row.id is not None:
        return row.id
    if occurrence < 0:
        raise ValueError("occurrence must be >= 0")
    key = json.dumps([row.profile, row.system or "", row.prompt, occurrence],
                     ensure_ascii=False, separators=(",", ":"))
    return "b-" + hashlib.sha256(key.encode("utf-8", errors="surrogatepass")).hexdigest()[:20]


def assign_task_ids(rows: Iterable[BatchRow],
                    seen: dict[tuple[str, str, str], int] | None = None) -> list[tuple[str, BatchRow]]:
    """Task ids for rows in file order. Only id-less rows count as occurrences, so adding an
    explicit id to one row never shifts the derived ids of the others.

    ``seen``: the occurrence counts so far, updated in place; passing the same dict to calls on
    consecutive slices of a file gives the ids one call on the whole file gives."""
    if seen is None:
        seen = {}
    out: list[tuple[str, BatchRow]] = []
    for row in rows:
        if row.id is not None:
            out.append((row.id, row))
            continue
        key = (row.profile, row.system or "", row.prompt)
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        out.append((derive_task_id(row, occurrence), row))
    return out




@dataclass(frozen=True, slots=True)
class RowTask:
    """One task of a row: the row makes one per profile per sample (``BatchRow.task_count``)."""

    task_id: str
    profile: str
    #: 1..n of a row that makes several tasks, else None.
    sample: int | None
    #: The id the tasks of one such row share, else None.
    group_id: str | None


def row_tasks(base_id: str, row: BatchRow) -> list[RowTask]:
    """The tasks of ``row``, whose id from :func:`assign_task_ids` is ``base_id``. A row that makes one
    task keeps that id (so a batch without profiles or samples has the ids it always had); a row that
    makes several gets distinct, deterministic ids, one per profile per sample, never equal to each other
    (no deduplication collapses two samples), and shares ``base_id`` as its group: the row's own id, or
    ``g-`` + the hash part of the derived one. Row id ``r`` names its tasks ``r:profile:sample``."""
    if row.task_count == 1:
        return [RowTask(base_id, row.profile, None, None)]
    explicit = row.id is not None
    group = base_id if explicit else "g-" + base_id.removeprefix("b-")
    out: list[RowTask] = []
    for profile in row.targets:
        for sample in range(1, row.samples + 1):
            if explicit:
                task_id = f"{base_id}:{profile}:{sample}"
            else:
                key = json.dumps([base_id, profile, sample], ensure_ascii=False, separators=(",", ":"))
                task_id = "b-" + hashlib.sha256(key.encode("utf-8", errors="surrogatepass")).hexdigest()[:20]
            out.append(RowTask(task_id, profile, sample, group))
    return out
