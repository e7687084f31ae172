"""Results out of the task table as JSONL or CSV: one writer for the console and the CLI, so both
produce the same file."""

from __future__ import annotations

import csv
import json
import os
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from mediadesk.safefiles import create_private_file, refuse_symlink
from mediadesk.store.open_errors import OlderSchemaError
from mediadesk.store.reader import TaskReader
from mediadesk.store.schema import migrate

EXPORT_FORMATS = ("jsonl", "csv")

EXPORT_FIELDS = (
    "task_id", "state", "model_kind", "profile", "account", "attempt", "prompt", "result",
    "error_kind", "error_message", "created_at", "started_at", "finished_at", "batch",
    "served_by", "origin_profile", "route_key", "resolution", "resolution_note", "truncated",
)


class ExportError(Exception):
    """A user-level export problem (no database, unknown format); the message says what to do."""


def export_tasks(db: Path, out: TextIO, fmt: str, states: Sequence[str] | None = None) -> int:
    """Write the tasks of ``db`` (optionally only those in ``states``) to ``out``; returns the row count."""
    if fmt not in EXPORT_FORMATS:
        raise ExportError(f"unknown export format {fmt!r}: use one of {', '.join(EXPORT_FORMATS)}")
    if not os.path.lexists(db):
        raise ExportError(f"database not found: {db} (pass --db or --data-dir of the workspace to export)")
    try:
        reader = TaskReader(db)  # reads only: a current database exports from a read-only disk too
    except OlderSchemaError:
        migrate(db)  # an older MediaDesk's database lacks newer columns: upgrade it once (backup kept)
        reader = TaskReader(db)
    n = 0
    try:
        writer = csv.DictWriter(out, fieldnames=EXPORT_FIELDS) if fmt == "csv" else None
        if writer is not None:
            writer.writeheader()
        for rec in reader.iter_tasks(states=states):
            row = {f: getattr(rec, f) for f in EXPORT_FIELDS}
            if writer is not None:
                writer.writerow(row)
            else:
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    finally:
        reader.close()
    return n


def export_to_file(db: Path, path: Path, fmt: str, states: Sequence[str] | None = None) -> int:
    """Export into ``path`` through a private temp file that is renamed into place, so a failed
    export never leaves half a file under the chosen name. The file is created 0600 (results can be
    confidential) whatever the umask; a symlink at ``path`` is refused (never followed nor replaced)."""
    refuse_symlink(path, "export")
    if path.is_dir():
        raise ExportError(f"{path} is a directory: give --out a file name")
    if not path.parent.is_dir():
        raise ExportError(f"folder {path.parent} does not exist: create it, or choose another --out")
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.part")
    try:
        fd = create_private_file(tmp)
    except OSError as exc:  # (read-only or full disk, no permission): name the file the user chose
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    try:
        with open(fd, "w", encoding="utf-8", newline="") as fh:
            n = export_tasks(db, fh, fmt, states)
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return n
