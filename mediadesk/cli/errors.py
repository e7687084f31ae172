"""Exit codes and the errors whose message is the whole story for the user (printed, exit 2).

Exit codes of ``run``: 0 every task of the batch succeeded; 1 a task failed or was canceled (or
could not be served); 2 usage / config / database error; 3 all submitted tasks succeeded but some
batch rows were rejected; 130 interrupted (running tasks go back to pending and resume next time).
"""

from __future__ import annotations

from mediadesk.config.model import ConfigError
from mediadesk.core.batch import BatchFileError
from mediadesk.files.locks import LockError
from mediadesk.files.safe import UnsafePathError
from mediadesk.scheduler.intake import QueueFullError
from mediadesk.store import SchemaError
from mediadesk.store.export import ExportError
from mediadesk.store.open_errors import StoreOpenError

EXIT_OK, EXIT_TASK_FAILED, EXIT_USAGE, EXIT_ROWS_REJECTED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


class UserError(Exception):
    """Printed as ``mediadesk: <message>`` with exit code 2."""


#: Errors whose message is the whole story for the user: printed, exit 2, no traceback.
USER_ERRORS = (
    UserError, ConfigError, LockError, SchemaError, StoreOpenError, UnsafePathError, BatchFileError, ExportError,
    QueueFullError,
)
