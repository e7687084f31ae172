"""File names made from operator data. Pure: no I/O."""

from __future__ import annotations

import hashlib
import re

__all__ = ["evidence_name"]

_SAFE = re.compile(r"[A-Za-z0-9._-]{1,100}")
_UNSAFE_CHAR = re.compile(r"[^A-Za-z0-9._-]+")


def evidence_name(task_id: str) -> str:
    """The folder name of a task's evidence under ``evidence/``: the id itself when it is a plain file
    name, else a readable, safe form of it plus a short hash of the whole id (so ``a/../../x``, ``..``
    or a 300-character id can never point outside ``evidence/`` nor collide with another id)."""
    if _SAFE.fullmatch(task_id) and task_id.strip(".") and not task_id.startswith("-"):
        return task_id
    digest = hashlib.sha256(task_id.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    readable = _UNSAFE_CHAR.sub("_", task_id).strip("._-")[:60]
    return f"{readable}~{digest}" if readable else f"task~{digest}"
