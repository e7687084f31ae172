"""Durable store: the task table, CAS transitions, migrations (Alembic), team coordination.

Below the scheduler and the providers-free; above ``config`` (where a store lives) and ``files``."""

from mediadesk.files.db_lock import DatabaseBusyError, DatabaseLock
from mediadesk.store.reader import TaskReader
from mediadesk.store.schema import SCHEMA_VERSION, SchemaError, migrate
from mediadesk.store.taskstore import AddResult, LogLine, NewTask, TaskRecord, TaskStore

__all__ = [
    "SCHEMA_VERSION",
    "AddResult",
    "DatabaseBusyError",
    "DatabaseLock",
    "LogLine",
    "NewTask",
    "SchemaError",
    "TaskReader",
    "TaskRecord",
    "TaskStore",
    "migrate",
]
