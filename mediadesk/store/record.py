"""A task as the store hands it out (:class:`TaskRecord`): the ONE definition of the task table's columns.

A dataclass, not the SQLModel table, so every caller types against it and opening a database never
imports SQLAlchemy. :data:`TASK_COLUMNS` / :data:`TASK_COLUMNS_SQL` (field order, so :func:`record_of`
builds records positionally) and the ``task`` table of :mod:`mediadesk.store.models` derive from it.
Adding a column: one field here (with a default) plus one Alembic revision in ``migrations/versions/``;
migrations never read this class (``tests/store/test_task_columns.py`` shows the whole change).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from mediadesk.core.log_lines import LogText
from mediadesk.core.states import TaskState

__all__ = ["TASK_COLUMNS", "TASK_COLUMNS_SQL", "AddResult", "LogLine", "NewTask", "TaskRecord", "columns_of",
           "record_of", "replace_record"]

#: ``field(metadata=...)`` key: the column is the primary key.
PRIMARY_KEY = "primary_key"
#: ``field(metadata=...)`` key: the column's SQL server default (for INSERTs that do not name it).
SERVER_DEFAULT = "server_default"
#: ``field(metadata=...)`` key: a ``str`` column typed TEXT (a long text) instead of VARCHAR.
LONG_TEXT = "long_text"


@dataclass(frozen=True)
class TaskRecord:
    # --- the six core columns ---
    task_id: str = field(metadata={PRIMARY_KEY: True})
    model_kind: str
    state: TaskState
    attempt: int
    started_at: float | None
    heartbeat_at: float | None
    # --- the rest ---
    profile: str
    account: str | None
    lane: str | None
    prompt: str
    system: str | None
    priority: int
    route_key: str | None
    batch: str | None
    result: str | None
    error_kind: str | None
    error_message: str | None
    created_at: float
    updated_at: float
    finished_at: float | None
    cancel_requested: bool
    #: optimistic lock: every transition is a compare-and-set on (state, version)
    version: int
    #: deferred re-delivery: a retry is not claimed before this time
    not_before: float
    #: submission order (unique, increasing across desktops)
    seq: int
    #: attempts made before the operator last re-queued the task (retry budget restarts there)
    attempt_base: int
    #: the scheduler ("desktop", ``host:pid:uuid8``) that last claimed the task
    owner: str | None
    # --- schema 2: capacity-aware dispatch (defaults: records built by hand in tests and tools
    # need not name them) ---
    #: When the task last entered the queue (submit or operator retry): the max_wait_s budget starts here.
    queued_at: float | None = None
    #: Attempts that crashed a browser/page or timed out the whole run (poison-pill count).
    crash_count: int = 0
    #: Who produced the result: the profile, ``rule_reply`` or ``operator``.
    served_by: str | None = None
    #: The profile the task was first submitted to (it may move down a fallback chain).
    origin_profile: str | None = None
    #: A person's resolution of an exception: retry | reroute | answer | drop, with a note.
    resolution: str | None = None
    resolution_note: str | None = None
    resolved_at: float | None = None
    # --- schema 3 ---
    #: A success whose answer the provider cut at its length limit (finish_reason "length").
    #: (A server default: inserts that do not name it, such as ``add_tasks``, must not break NOT NULL.)
    truncated: bool = field(default=False, metadata={SERVER_DEFAULT: "0"})
    # --- revision 0003_usage: what the task used (None: not known, e.g. not run yet) ---
    #: Tokens of the prompt (with the system prompt and history) as the provider counted them.
    prompt_tokens: int | None = None
    #: Tokens of the answer.
    completion_tokens: int | None = None
    #: The part of ``prompt_tokens`` the provider served from its prompt cache.
    cached_tokens: int | None = None
    #: The counts are MediaDesk's estimate (web tasks; a server that reported no usage), not the provider's.
    usage_estimated: bool = field(default=False, metadata={SERVER_DEFAULT: "0"})
    # --- revision 0004_spend: what the task cost (None: no usage yet, or its profile has no price) ---
    #: Summed over its attempts, at its profile's price; an estimate when ``usage_estimated``.
    cost: float | None = None
    #: The currency of ``cost`` (costs in different currencies are never added together).
    currency: str | None = None
    # --- revision 0007_reasoning: a reasoning model's thinking, kept apart from the answer ---
    #: The thinking of the attempt that succeeded (None: none was seen, or not a success).
    reasoning: str | None = field(default=None, metadata={LONG_TEXT: True})
    #: The part of ``completion_tokens`` the provider counted as thinking (summed over attempts).
    reasoning_tokens: int | None = None
    # --- revision 0008_batch_groups: the tasks of one batch row (several profiles, samples, a template) ---
    #: The id the tasks of one row share when it makes several (None: a row of one task).
    group_id: str | None = field(default=None, metadata={LONG_TEXT: True})
    #: The template ``prompt`` was rendered from, and its variables as a JSON object (None: a literal prompt).
    template: str | None = field(default=None, metadata={LONG_TEXT: True})
    template_vars: str | None = field(default=None, metadata={LONG_TEXT: True})
    #: 1..n among the samples of its row's profile (None: a row of one task).
    sample: int | None = None
    #: The operator's keep mark.
    kept: bool = field(default=False, metadata={SERVER_DEFAULT: "0"})
    #: The task whose answer this one reused (at no cost).
    reused_from: str | None = field(default=None, metadata={LONG_TEXT: True})

    @property
    def attempts_in_budget(self) -> int:
        """Attempts made since the task was (re)queued by the operator."""
        return self.attempt - self.attempt_base


def columns_of(record: type[Any]) -> tuple[str, ...]:
    """The column names of a record class, in field order."""
    return tuple(f.name for f in fields(record))


#: The task table's columns, in :class:`TaskRecord` field order.
TASK_COLUMNS: tuple[str, ...] = columns_of(TaskRecord)
#: ``TASK_COLUMNS`` as the select list of the store's SQL.
TASK_COLUMNS_SQL = ", ".join(TASK_COLUMNS)

_STATE = TASK_COLUMNS.index("state")
#: Positions of the boolean columns: SQLite hands them back as 0/1.
_BOOLS = tuple(i for i, f in enumerate(fields(TaskRecord)) if f.type in ("bool", bool))
_BOOL_NAMES = tuple(TASK_COLUMNS[i] for i in _BOOLS)


def record_of(row: tuple[Any, ...] | list[Any]) -> TaskRecord:
    """A record from a row of ``SELECT {TASK_COLUMNS_SQL}``."""
    r = list(row)
    r[_STATE] = TaskState(r[_STATE])
    for i in _BOOLS:
        r[i] = bool(r[i])
    return TaskRecord(*r)


def replace_record(rec: TaskRecord, **changes: Any) -> TaskRecord:
    """``rec`` with ``changes`` (``state`` as a :class:`TaskState`; booleans normalised)."""
    d = {name: getattr(rec, name) for name in TASK_COLUMNS}
    d.update(changes)
    d["state"] = TaskState(d["state"])
    for name in _BOOL_NAMES:
        d[name] = bool(d[name])
    return TaskRecord(**d)


@dataclass(frozen=True, slots=True)
class NewTask:
    """What a submitter gives for one task (the store fills in the rest)."""

    task_id: str
    profile: str
    model_kind: str
    prompt: str
    system: str | None = None
    priority: int = 0
    route_key: str | None = None
    batch: str | None = None
    #: See :class:`TaskRecord` (revision 0008_batch_groups); ``template_vars`` as a JSON object's text.
    group_id: str | None = None
    template: str | None = None
    template_vars: str | None = None
    sample: int | None = None


@dataclass(frozen=True)
class AddResult:
    added: tuple[str, ...]
    existing: tuple[str, ...]


@dataclass(frozen=True)
class LogLine:
    """One task-log line: ``message`` is its English text (exports, the CLI, grep); ``text`` its phrase
    and values, for showing it in the reader's language (None on a row written before lines had ids)."""

    task_id: str
    ts: float
    lane: str
    message: str
    text: LogText | None = None
