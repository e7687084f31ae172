"""Tables as SQLAlchemy sees them: what the Alembic head must create (the tests compare the two).

Nothing at run time creates tables from here: a database is created and upgraded by the Alembic
revisions alone (``migrations/versions/``), and those are history, never derived from this module.

The ``task`` table is built from :class:`~mediadesk.store.record.TaskRecord` (the one definition of
its columns, see :mod:`mediadesk.store.record` for why): a column's type and nullability come from
its annotation (TEXT where the field's metadata says ``long_text``), the primary key and server
defaults from the field's metadata. The small tables
that no record mirrors are declared here with SQLModel.
"""

from __future__ import annotations

import types
import typing
from dataclasses import fields
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from mediadesk.core.states import TaskState
from mediadesk.store.record import LONG_TEXT, PRIMARY_KEY, SERVER_DEFAULT, TaskRecord

__all__ = ["AccountState", "BudgetCap", "ProfileSetting", "Task", "TaskLog", "task_columns", "task_table"]

_SQL_TYPES: dict[type, type[sa.types.TypeEngine[Any]]] = {
    str: sa.String, TaskState: sa.String, int: sa.Integer, float: sa.Float, bool: sa.Boolean,
}


def task_columns(record: type[Any] = TaskRecord) -> list[sa.Column[Any]]:
    """The columns of the task table, one per field of ``record`` (a :class:`TaskRecord`, or in a test
    a record with one more field), in field order."""
    hints = typing.get_type_hints(record)
    out: list[sa.Column[Any]] = []
    for f in fields(record):
        hint = hints[f.name]
        args = typing.get_args(hint)
        nullable = isinstance(hint, types.UnionType) and type(None) in args
        base = next(a for a in args if a is not type(None)) if nullable else hint
        sql_type = sa.Text() if f.metadata.get(LONG_TEXT) else _SQL_TYPES[base]()
        out.append(sa.Column(
            f.name, sql_type, primary_key=bool(f.metadata.get(PRIMARY_KEY)),
            nullable=nullable, server_default=f.metadata.get(SERVER_DEFAULT)))
    return out


def task_table(metadata: sa.MetaData, record: type[Any] = TaskRecord) -> sa.Table:
    """The ``task`` table in ``metadata``: its columns (from ``record``) and the indexes the queries need."""
    table = sa.Table("task", metadata, *task_columns(record))
    # reaper: running tasks by heartbeat age
    sa.Index("ix_task_state_hb", table.c.state, table.c.heartbeat_at)
    # claim: head pending task of a profile, by priority (high first) then submission order; the DESC
    # must be in the index or each claim sorts every pending row
    sa.Index("ix_task_claim", table.c.state, table.c.profile, table.c.priority.desc(), table.c.seq)
    # conversations: earlier turns of a route_key, in submit order
    sa.Index("ix_task_route", table.c.route_key, table.c.seq, sqlite_where=table.c.route_key.isnot(None),
             postgresql_where=table.c.route_key.isnot(None))
    # the tasks of one batch row (several profiles, samples), side by side
    sa.Index("ix_task_group", table.c.group_id)
    return table


#: The task table, in the same metadata as the SQLModel tables below.
Task = task_table(SQLModel.metadata)


class TaskLog(SQLModel, table=True):
    __tablename__ = "task_log"
    id: int | None = Field(default=None, primary_key=True)
    task_id: str = Field(index=True)
    ts: float
    lane: str
    message: str
    #: the phrase of ``message`` and its values as JSON (mediadesk.core.log_lines); NULL on older rows
    message_id: str | None = None
    message_params: str | None = None


class AccountState(SQLModel, table=True):
    """The operator's switch (``enabled``) and the program's view (``health``) are kept apart:
    the program never changes ``enabled``."""

    __tablename__ = "account_state"
    name: str = Field(primary_key=True)
    enabled: bool = True
    health: str = "ready"
    last_error: str | None = None
    updated_at: float = 0.0


class ProfileSetting(SQLModel, table=True):
    """Console edits of a profile, overriding the config file's values."""

    __tablename__ = "profile_setting"
    name: str = Field(primary_key=True)
    need_empty_prompt: bool | None = None
    concurrency: int | None = None
    updated_at: float = 0.0


class BudgetCap(SQLModel, table=True):
    """A cap set at submit (a batch's ``--budget``) or raised by the operator, by budget key
    (``scope:name:per:unit``); it wins over the config's value."""

    __tablename__ = "budget_cap"
    key: str = Field(primary_key=True)
    cap: float
    updated_at: float
