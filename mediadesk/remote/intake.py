"""A batch that arrives over HTTP: the JSONL body (or an XLSX workbook: by its content type, or a body that is
a zip archive) goes through the same parser and row checks as a file handed to ``mediadesk run`` or the
console's batch dialog (a row's ``template`` is found in the workspace's templates folder), and into the
scheduler's one intake (:class:`~mediadesk.scheduler.intake.Intake`: caps, API keys, chunked transactions that
yield to the loop), so the task ids, the per-row errors (with the line numbers an editor shows) and the
refusals read the same whichever face the batch came in by."""

from __future__ import annotations

from dataclasses import dataclass, field

from mediadesk.core.batch import BatchRow, RowError, is_xlsx, parse_batch, templates_dir
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.duplicates import Duplicates
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


#: The content type of an .xlsx body.
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def parse_jsonl(sched: Scheduler, body: bytes, batch: str,
                content_type: str | None = None) -> tuple[list[BatchRow], list[RowError]]:
    """The body's rows: JSONL, unless ``content_type`` says CSV (``text/csv``) or XLSX, or the body is a zip
    archive (a workbook: its first sheet, the header naming the columns, ``template`` and ``profile`` columns
    included)."""
    cfg = sched.config
    ctype = (content_type or "").split(";")[0].strip().lower()
    fmt = "xlsx" if ctype == XLSX_TYPE or is_xlsx(body) else "csv" if ctype == "text/csv" else "jsonl"
    parsed = parse_batch(body, fmt=fmt, known_profiles=sched.profile_names(),
                         max_prompt_chars=cfg.scheduler.max_prompt_chars, source=batch,
                         templates_dir=templates_dir(sched.workspace.data_dir))
    return parsed.rows, parsed.errors


async def submit(sched: Scheduler, rows: list[BatchRow], batch: str,
                 duplicates: Duplicates = Duplicates.SKIP) -> Submitted:
    """The one call into the scheduler's intake (refused whole: ``QueueFullError``,
    ``MissingApiKeysError``); in chunks, so a big batch never stalls the lanes' loop; repeats as
    ``duplicates`` says."""
    return await sched.intake.submit_rows_async(rows, batch, duplicates=duplicates)


async def submit_jsonl(sched: Scheduler, body: bytes, batch: str, content_type: str | None = None,
                       duplicates: Duplicates = Duplicates.SKIP) -> SubmitOutcome:
    rows, errors = parse_jsonl(sched, body, batch, content_type)
    out = SubmitOutcome(batch=batch, errors=errors)
    if not rows:
        return out
    try:
        done = await submit(sched, rows, batch, duplicates)
    except (QueueFullError, MissingApiKeysError) as exc:
        out.refused = str(exc)
        return out
    out.task_ids, out.added, out.existing = done.ids, len(done.result.added), len(done.result.existing)
    return out
