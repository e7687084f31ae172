"""Task ids of a batch's rows: deterministic, so running the same file again finds the same tasks."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

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


