"""A pause outlives the process that set it (as qBittorrent keeps paused torrents paused): the names
of the paused lanes are kept in ``<data dir>/paused_lanes.json`` (private, never through a planted
link), written at every pause or resume, read when a scheduler starts on that data dir (the console,
``mediadesk run``, ``mediadesk serve``). Kept per data dir, not in the database: a desktop's pause is
its own, also in team mode where several desktops share one database.

A file that cannot be read (damaged, not ours) pauses nothing and is said in the log; the next pause
or resume rewrites it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path

from mediadesk.files.safe import UnsafePathError, refuse_symlink, write_private_file

__all__ = ["PAUSED_LANES_FILE", "load_paused", "save_paused"]

log = logging.getLogger(__name__)

PAUSED_LANES_FILE = "paused_lanes.json"


def load_paused(data_dir: Path) -> set[str]:
    """The lane names paused when the last scheduler on ``data_dir`` stopped (empty: none, or no file)."""
    path = data_dir / PAUSED_LANES_FILE
    try:
        refuse_symlink(path, "paused lanes file")
        if not path.is_file():
            return set()
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnsafePathError) as exc:
        log.warning("pause memory: %s cannot be read (%s); no lane starts paused", path, exc)
        return set()
    lanes = data.get("paused") if isinstance(data, dict) else None
    if not isinstance(lanes, list):
        log.warning("pause memory: %s has no list 'paused'; no lane starts paused", path)
        return set()
    return {name for name in lanes if isinstance(name, str)}


def save_paused(data_dir: Path, lanes: Iterable[str]) -> None:
    """Keep ``lanes`` as the paused ones (an empty set removes nothing: it writes an empty list)."""
    path = data_dir / PAUSED_LANES_FILE
    try:
        write_private_file(path, json.dumps({"paused": sorted(set(lanes))}) + "\n", "paused lanes file")
    except (OSError, UnsafePathError) as exc:  # the pause holds for this session all the same
        log.warning("pause memory: %s cannot be written (%s); the pause is not kept after a restart", path, exc)
