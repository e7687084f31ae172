"""Batch files (JSONL / CSV / XLSX / pasted prompts) -> validated rows plus per-row errors.

Bytes are read in the encoding ``encoding`` finds (a BOM, UTF-8, UTF-16, GB18030). All formats share one
row validator and one line-numbering rule (``rows``); ``formats`` reads each format, ``task_ids`` names the
tasks. Import from here. Never raises on user input: every problem becomes a :class:`RowError` at the
1-based line the user's editor shows, and good rows still come through. Strict on purpose: an unknown key
or a wrong type is an error, never a silently dropped field (a dropped ``system`` override would change
what every task asks).

A row may be a template (``templates``) and its variables instead of a prompt, and may name several profiles
and samples (``task_ids.row_tasks``: one task each, in one group); ``xlsx`` reads a workbook's sheet.
"""

from mediadesk.core.batch.encoding import detect_encoding
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
from mediadesk.core.batch.task_ids import RowTask, assign_task_ids, derive_task_id, row_tasks
from mediadesk.core.batch.templates import TemplateLibrary, TemplateProblem, templates_dir
from mediadesk.core.batch.xlsx import is_xlsx, sheet_names

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "PRIORITY_MAX",
    "PRIORITY_MIN",
    "BatchFileError",
    "BatchRow",
    "ParsedBatch",
    "RowError",
    "RowTask",
    "TemplateLibrary",
    "TemplateProblem",
    "assign_task_ids",
    "derive_task_id",
    "detect_encoding",
    "detect_format",
    "is_xlsx",
    "parse_batch",
    "parse_batch_file",
    "parse_pasted",
    "row_tasks",
    "sheet_names",
    "templates_dir",
]
