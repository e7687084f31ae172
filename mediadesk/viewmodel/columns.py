"""One task as the console's table sees it (:class:`Row`), and tasks in bulk, field by field
(:class:`Columns`): the mirror's storage and the form in which rows travel from worker threads."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from sys import intern
from typing import NamedTuple

from mediadesk.scheduler.events import TaskChanged
from mediadesk.store.taskstore import TaskRecord

__all__ = [
    "PROMPT_CHARS", "TRUNCATED_MARK", "Columns", "Row", "error_text", "prompt_head", "record_row", "row_change",
]

#: Characters of the prompt kept per row (shown in the table and searched by the filter).
PROMPT_CHARS = 80
#: The error column of a success whose answer the provider cut at its length limit (a marker
#: like an error kind, searchable with the filter; the detail pane explains it in words).
TRUNCATED_MARK = "truncated (finish_reason=length)"


class Row(NamedTuple):
    """One task as the mirror receives it (from a record, in a worker thread or on the loop)."""

    task_id: str
    kind: str
    state: str
    attempt: int
    started_at: float | None
    heartbeat_at: float | None
    profile: str
    account: str | None
    lane: str | None
    #: The first :data:`PROMPT_CHARS` characters, on one line.
    prompt: str
    #: The error column: kind and first line of the message (see :func:`error_text`).
    error: str | None
    version: int
    finished_at: float | None
    #: The batch the task was submitted with (never changes; "show only this batch").
    batch: str | None = None
    #: The scheduler ("desktop") that last claimed the task: ``host:pid:uuid8`` (None: never run).
    owner: str | None = None


def prompt_head(prompt: str) -> str:
    head = prompt[:PROMPT_CHARS]
    return head.replace("\n", " ").replace("\r", " ") if "\n" in head or "\r" in head else head


def error_text(kind: str | None, message: str | None, truncated: bool = False) -> str | None:
    """The error column: the kind, then the first line of the message (full text in the detail
    pane); for a truncated success, :data:`TRUNCATED_MARK`."""
    if not kind:
        return TRUNCATED_MARK if truncated else None
    if not message:
        return kind
    first = message.splitlines()[0] if message.strip() else ""
    return f"{kind}: {first[:200]}" if first else kind


def record_row(rec: TaskRecord) -> Row:
    return Row(task_id=rec.task_id, kind=rec.model_kind, state=rec.state.value, attempt=rec.attempt,
               started_at=rec.started_at, heartbeat_at=rec.heartbeat_at, profile=rec.profile, account=rec.account,
               lane=rec.lane, prompt=prompt_head(rec.prompt),
               error=error_text(rec.error_kind, rec.error_message, rec.truncated),
               version=rec.version, finished_at=rec.finished_at, batch=rec.batch,
               owner=None if rec.owner is None else intern(rec.owner))


def row_change(row: Row) -> TaskChanged:
    """A row as a change event (a newer record of a task already in the mirror)."""
    return TaskChanged(task_id=row.task_id, state=row.state, attempt=row.attempt, lane=row.lane,
                       account=row.account, started_at=row.started_at, heartbeat_at=row.heartbeat_at,
                       finished_at=row.finished_at, error_kind=row.error, version=row.version)


class Columns:
    """Tasks field by field: one list per :class:`Row` field, all of one length.

    Both the mirror's storage (by storage index; written only by :class:`TaskRows`, read directly by
    the Qt model on its hot path) and the way rows travel in bulk from worker threads. Why lists, not
    row objects: lists are a handful of objects for the cyclic GC, while many row objects made its
    GIL-holding full collections stall the GUI thread."""

    __slots__ = (
        "account",
        "attempt",
        "batch",
        "error",
        "finished_at",
        "heartbeat_at",
        "kind",
        "lane",
        "owner",
        "profile",
        "prompt",
        "started_at",
        "state",
        "task_id",
        "version",
    )

    def __init__(self) -> None:
        self.task_id: list[str] = []
        self.kind: list[str] = []
        self.state: list[str] = []
        self.attempt: list[int] = []
        self.started_at: list[float | None] = []
        self.heartbeat_at: list[float | None] = []
        self.profile: list[str] = []
        self.account: list[str | None] = []
        self.lane: list[str | None] = []
        self.prompt: list[str] = []
        self.error: list[str | None] = []
        self.version: list[int] = []
        self.finished_at: list[float | None] = []
        self.batch: list[str | None] = []
        self.owner: list[str | None] = []

    @classmethod
    def from_rows(cls, rows: Iterable[Row]) -> Columns:
        out = cls()
        rows = list(rows)
        if rows:
            for name, values in zip(Row._fields, zip(*rows, strict=True), strict=True):
                getattr(out, name).extend(values)
        return out

    @classmethod
    def from_records(cls, records: Iterable[TaskRecord]) -> Columns:
        """Columns straight from store records (no intermediate row objects)."""
        out = cls()
        ids, kinds, states, attempts = out.task_id.append, out.kind.append, out.state.append, out.attempt.append
        started, hbs, profiles, accounts = (out.started_at.append, out.heartbeat_at.append, out.profile.append,
                                            out.account.append)
        lanes, prompts, errors, versions, finished = (out.lane.append, out.prompt.append, out.error.append,
                                                      out.version.append, out.finished_at.append)
        batches, owners = out.batch.append, out.owner.append
        # One string object per distinct kind, state, profile, lane, account, batch and owner, not one
        # per row: SQLite hands each row new ones (5 per row, ~19 MB of the 100k rows of a batch).
        for rec in records:
            ids(rec.task_id)
            kinds(intern(rec.model_kind))
            states(rec.state.value)  # (one string per state already: the enum member's)
            attempts(rec.attempt)
            started(rec.started_at)
            hbs(rec.heartbeat_at)
            profiles(intern(rec.profile))
            a = rec.account
            accounts(None if a is None else intern(a))
            lane = rec.lane
            lanes(None if lane is None else intern(lane))
            prompts(prompt_head(rec.prompt))
            errors(error_text(rec.error_kind, rec.error_message, rec.truncated))
            versions(rec.version)
            finished(rec.finished_at)
            b = rec.batch
            batches(None if b is None else intern(b))
            o = rec.owner
            owners(None if o is None else intern(o))
        return out

    def __len__(self) -> int:
        return len(self.task_id)

    def row(self, i: int) -> Row:
        """Entry ``i`` as a :class:`Row` (not for hot paths: it builds a tuple)."""
        return Row(*(getattr(self, name)[i] for name in Row._fields))

    def slice(self, start: int, stop: int) -> Columns:
        out = Columns()
        for name in Row._fields:
            setattr(out, name, getattr(self, name)[start:stop])
        return out

    def take(self, indexes: Sequence[int]) -> Columns:
        """The entries at ``indexes``, in that order."""
        out = Columns()
        for name in Row._fields:
            col = getattr(self, name)
            setattr(out, name, [col[i] for i in indexes])
        return out

    def extend(self, other: Columns) -> None:
        for name in Row._fields:
            getattr(self, name).extend(getattr(other, name))
