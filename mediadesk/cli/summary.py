"""What ``mediadesk run`` reports: rejected rows, the summary, ``--summary-json``, and the outcome
of a run stopped by a storage fault. Nothing is reported that is not in the database file."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import sys
from collections import Counter
from pathlib import Path
from typing import TextIO

from mediadesk.cli.errors import EXIT_INTERRUPTED, EXIT_OK, EXIT_ROWS_REJECTED, EXIT_TASK_FAILED, EXIT_USAGE
from mediadesk.config.workspace import Workspace
from mediadesk.core.batch import ParsedBatch
from mediadesk.store import TaskReader
from mediadesk.store.errors import StorageError, StoreLostError
from mediadesk.store.open_errors import StoreOpenError


def report_row_errors(parsed: ParsedBatch, out: TextIO, limit: int = 50) -> None:
    for err in parsed.errors[:limit]:
        print(f"{parsed.source}:{err.line}: {err.message}  [{err.excerpt}]", file=out)
    if len(parsed.errors) > limit:
        print(f"... and {len(parsed.errors) - limit} more rejected rows", file=out)


def storage_failure(
    exc: StorageError, ids: list[str], parsed: ParsedBatch, ws: Workspace, summary_json: Path | None
) -> int:
    """The run stopped on a storage fault: say what happened and what to do, report only what the
    database file really holds (nothing at all when the file was lost), exit 2."""
    print(f"mediadesk: {exc}", file=sys.stderr, flush=True)
    states: dict[str, tuple[str, str]] = {}
    if not isinstance(exc, StoreLostError) and ids:
        try:  # a fresh read-only connection: what the file at the path holds
            reader = TaskReader(ws.location)
            try:
                states = {r.task_id: (r.state, r.profile) for r in reader.get_many(ids)}
            finally:
                reader.close()
        except (sqlite3.Error, OSError, StoreOpenError) as read_exc:
            print(f"mediadesk: could not read {ws.location.display} back either ({read_exc})", file=sys.stderr)
    if states:
        counts = Counter(s for s, _ in states.values())
        print(
            "stored in the database: " + ", ".join(f"{k} {counts[k]}" for k in
                                                   ("success", "failed", "canceled", "pending", "running")
                                                   if counts[k])
            + f" of {len(ids)} (database {ws.location.display}); unfinished tasks resume on the next run",
            file=sys.stderr, flush=True,
        )
    return write_summary_json(summary_json, EXIT_USAGE, ws, ids, states, parsed, storage_error=exc)


def write_summary_json(
    path: Path | None,
    rc: int,
    ws: Workspace,
    ids: list[str],
    states: dict[str, tuple[str, str]],
    parsed: ParsedBatch,
    *,
    interrupted: bool = False,
    storage_error: StorageError | None = None,
) -> int:
    """``--summary-json``: the run's outcome for scripts and benchmarks. ``tasks`` holds only
    states read back from the database file at the end (empty when the file was lost), so a task
    listed ``success`` here is a success on disk. Private file (0600), written whole or not at all."""
    if path is None:
        return rc
    doc = {
        "exit_code": rc,
        "database": ws.location.display,
        "storage_error": None if storage_error is None else {"kind": storage_error.kind, "message": str(storage_error)},
        "interrupted": interrupted,
        "rejected_rows": len(parsed.errors),
        "counts": dict(Counter(s for s, _ in states.values())),
        "tasks": {t: states[t][0] for t in ids if t in states},
    }
    tmp = path.with_name(path.name + ".part")
    try:
        tmp.unlink(missing_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with open(fd, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, ensure_ascii=False, indent=1)
        tmp.replace(path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        print(f"mediadesk: could not write the summary {path}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return rc


def summary(
    states: dict[str, tuple[str, str]], ids: list[str], parsed: ParsedBatch, ws: Workspace, interrupted: bool
) -> int:
    counts = Counter(s for s, _ in states.values())
    print(
        "summary: " + ", ".join(f"{k} {counts[k]}" for k in ("success", "failed", "canceled", "pending", "running")
                                if counts[k])
        + f" (database {ws.location.display})",
        flush=True,
    )
    bad = [t for t in ids if states.get(t, ("?", ""))[0] in ("failed", "canceled")]
    if bad:
        reader = TaskReader(ws.location)
        try:
            for tid in bad[:20]:
                rec = reader.get(tid)
                if rec is not None:
                    print(f"  {rec.state:8} {tid}  {rec.error_kind}: {rec.error_message}", flush=True)
        finally:
            reader.close()
        if len(bad) > 20:
            print(f"  ... and {len(bad) - 20} more", flush=True)
    if interrupted:
        return EXIT_INTERRUPTED
    if bad or counts["pending"] or counts["running"]:
        return EXIT_TASK_FAILED
    return EXIT_ROWS_REJECTED if parsed.errors else EXIT_OK
