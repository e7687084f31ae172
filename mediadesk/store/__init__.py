"""Durable store: SQLModel schema, CAS transitions, schema versioning, the one-scheduler lock."""

from mediadesk.store.dblock import DatabaseBusyError, DatabaseLock
from mediadesk.store.location import PgLocation, SqliteLocation, StoreLocation, parse_location
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
    "PgLocation",
    "SchemaError",
    "SqliteLocation",
    "StoreLocation",
    "TaskReader",
    "TaskRecord",
    "TaskStore",
    "migrate",
    "parse_location",
]
