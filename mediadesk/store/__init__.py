"""Durable store: the task table, CAS transitions, migrations (Alembic), team coordination.

Below the scheduler and the providers-free; above ``config`` (where a store lives) and ``files``.
The way in is :func:`open_store` (SQLite or PostgreSQL by location), giving a :class:`Store`; a task
is a :class:`TaskRecord` (the one definition of the task table's columns)."""

from mediadesk.files.db_lock import DatabaseBusyError, DatabaseLock
from mediadesk.store.open import open_store
from mediadesk.store.protocol import Store
from mediadesk.store.reader import TaskReader
from mediadesk.store.record import AddResult, LogLine, NewTask, TaskRecord
from mediadesk.store.schema import SCHEMA_VERSION, SchemaError, migrate
from mediadesk.store.taskstore import TaskStore

__all__ = [
    "SCHEMA_VERSION",
    "AddResult",
    "DatabaseBusyError",
    "DatabaseLock",
    "LogLine",
    "NewTask",
    "SchemaError",
    "Store",
    "TaskReader",
    "TaskRecord",
    "TaskStore",
    "migrate",
    "open_store",
]
