"""The console's log file (Help > Open the logs folder): ``console.log`` in the user's log folder
(``platformdirs.user_log_dir``), warnings and errors (with their tracebacks). The CLI
logs to the terminal; a console started from a menu has none, so its messages would be lost.

Private (0600, in a 0700 folder), never written through a planted link; one previous file is kept
(``console.log.1``) when it passes :data:`KEEP_BYTES`. The log holds what the modules already log,
which never includes a key or a cookie (they are scrubbed where they are met).
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path

import platformdirs

from mediadesk.files.safe import UnsafePathError, ensure_private_dir, refuse_symlink, tighten_file

__all__ = ["KEEP_BYTES", "LOG_NAME", "install_log_file", "logs_dir", "remove_log_file"]

LOG_NAME = "console.log"
#: Past this size the log starts afresh at the next start (the previous one is kept as .1).
KEEP_BYTES = 2_000_000
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def logs_dir() -> Path:
    """The folder of the console's log (it may not exist before the first start)."""
    return Path(platformdirs.user_log_dir("mediadesk", appauthor=False))


def install_log_file(folder: Path | None = None) -> logging.Handler | None:
    """Log to ``<folder>/console.log`` (default: :func:`logs_dir`); None when it cannot be used
    (said on stderr by the logging module's last resort; the console runs all the same)."""
    folder = logs_dir() if folder is None else folder
    path = folder / LOG_NAME
    try:
        ensure_private_dir(folder, what="logs folder")
        refuse_symlink(path, "log file")
        if path.is_file() and path.stat().st_size > KEEP_BYTES:
            refuse_symlink(path.with_name(LOG_NAME + ".1"), "log file")
            os.replace(path, path.with_name(LOG_NAME + ".1"))
        tighten_file(path, "log file")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | _O_NOFOLLOW, 0o600)
    except (OSError, UnsafePathError) as exc:
        logging.getLogger(__name__).warning("the console's log file %s cannot be used: %s", path, exc)
        return None
    stream = os.fdopen(fd, "a", encoding="utf-8")
    handler = logging.StreamHandler(stream)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.getLogger().addHandler(handler)
    return handler


def remove_log_file(handler: logging.Handler | None) -> None:
    if handler is not None:
        logging.getLogger().removeHandler(handler)
        with contextlib.suppress(Exception):
            handler.close()
