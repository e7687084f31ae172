"""A batch that arrives over HTTP: the JSONL body goes through the same parser and row checks as a
file handed to ``mediadesk run`` or the console's batch dialog, and into the scheduler's one intake
(:class:`~mediadesk.scheduler.intake.Intake`: caps, API keys, chunked transactions that yield to
the loop), so the task ids, the per-row errors (with the line numbers an editor shows) and the
refusals read the same whichever face the batch came in by."""

from __future__ import annotations

from dataclasses import dataclass, field

from mediadesk.core.batch import BatchRow, RowError, parse_batch
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.intake import MissingApiKeysError, QueueFullError, Submitted


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


async def submit(sched: Scheduler, rows: list[BatchRow], batch: str) -> Submitted:
    """The one call into the scheduler's intake (refused whole: ``QueueFullError``,
    ``MissingApiKeysError``); in chunks, so a big batch never stalls the lanes' loop."""
    return await sched.intake.submit_rows_async(rows, batch)


async def submit_jsonl(sched: Scheduler, body: bytes, batch: str) -> SubmitOutcome:
    rows, errors = parse_jsonl(sched, body, batch)
    out = SubmitOutcome(batch=batch, errors=errors)
    if not rows:
        return out
    try:
        done = await submit(sched, rows, batch)
    except (QueueFullError, MissingApiKeysError) as exc:
        out.refused = str(exc)
        return out
    out.task_ids, out.added, out.existing = done.ids, len(done.result.added), len(done.result.existing)
    return out
