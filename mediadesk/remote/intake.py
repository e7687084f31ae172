"""A batch that arrives over HTTP: the JSONL body goes through the same parser and row checks as a
file handed to ``mediadesk run`` or the console's batch dialog, and into the scheduler's one submit
path, so the task ids, the per-row errors (with the line numbers an editor shows) and the refusals
read the same whichever face the batch came in by."""

from __future__ import annotations

from dataclasses import dataclass, field

from mediadesk.config.model import missing_api_keys
from mediadesk.core.batch import BatchRow, RowError, parse_batch
from mediadesk.scheduler import Scheduler
from mediadesk.store import AddResult


@dataclass
class SubmitOutcome:
    batch: str
    #: The accepted rows' task ids, in row order (a row already in the store keeps its task).
    task_ids: list[str] = field(default_factory=list)
    added: int = 0
    existing: int = 0
    errors: list[RowError] = field(default_factory=list)
    #: Why nothing was submitted although rows were valid (a missing API key, a full queue).
    refused: str | None = None


def parse_jsonl(sched: Scheduler, body: bytes, batch: str) -> tuple[list[BatchRow], list[RowError]]:
    cfg = sched.config
    parsed = parse_batch(body, fmt="jsonl", known_profiles=sched.profile_names(),
                         max_prompt_chars=cfg.scheduler.max_prompt_chars, source=batch)
    return parsed.rows, parsed.errors


def submit(sched: Scheduler, rows: list[BatchRow], batch: str) -> tuple[AddResult, list[str]]:
    """The one call into the scheduler's intake (refused whole: ``QueueFullError``)."""
    return sched.submit_rows(rows, batch=batch)


def submit_jsonl(sched: Scheduler, body: bytes, batch: str) -> SubmitOutcome:
    rows, errors = parse_jsonl(sched, body, batch)
    out = SubmitOutcome(batch=batch, errors=errors)
    if not rows:
        return out
    missing = missing_api_keys(sched.config, {r.profile for r in rows})
    if missing:  # one message instead of one auth failure per task, as the console and the CLI do
        out.refused = "; ".join(m.message() for m in missing)
        return out
    from mediadesk.scheduler.scheduler import QueueFullError

    try:
        res, ids = submit(sched, rows, batch)
    except QueueFullError as exc:
        out.refused = str(exc)
        return out
    out.task_ids, out.added, out.existing = ids, len(res.added), len(res.existing)
    return out
