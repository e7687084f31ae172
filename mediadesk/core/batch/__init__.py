"""Batch files (JSONL / CSV / pasted prompts) -> validated rows plus per-row errors.

The three input formats share one row validator and one line-numbering rule (``rows``), so the
error messages read the same whichever way the batch came in; ``formats`` reads each format and
``task_ids`` names the tasks. Import from here: this package's names are the public ones.

Used by ``mediadesk run BATCH`` and by the console's staging preview, so it must never raise on
what a user hands it: every problem becomes a :class:`RowError` with the line number the user's
editor shows (1-based; ``\\r\\n``, ``\\n`` and a lone ``\\r`` each end a line), and every good row
still comes through. Being strict pays here: an unknown key (``promt``) or a wrong type is an
error, not a silently dropped field, because a dropped ``system`` override would quietly change
what hundreds of tasks ask for.

Format notes:
- JSONL: one object per line; blank lines and lines starting with ``#`` are skipped; ``null`` for
  an optional key means "absent"; ``"system": ""`` is kept (an explicit empty override).
- CSV: a header row (names are trimmed and case-folded); an empty cell of an optional column
  means "absent"; quoted fields may span lines; a row is reported at the line where it starts.
"""

from mediadesk.core.batch.formats import detect_format, parse_batch, parse_batch_file, parse_pasted
from mediadesk.core.batch.rows import (
    DEFAULT_MAX_FILE_BYTES,
    PRIORITY_MAX,
    PRIORITY_MIN,
    BatchFileError,
    BatchRow,
    ParsedBatch,
    RowError,
)
from mediadesk.core.batch.task_ids import assign_task_ids, derive_task_id

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "PRIORITY_MAX",
    "PRIORITY_MIN",
    "BatchFileError",
    "BatchRow",
    "ParsedBatch",
    "RowError",
    "assign_task_ids",
    "derive_task_id",
    "detect_format",
    "parse_batch",
    "parse_batch_file",
    "parse_pasted",
]
