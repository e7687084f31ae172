"""Giving freed heap back to the system after a burst (a big submit, the initial load)."""

from __future__ import annotations

import ctypes
import sys


def release_free_memory() -> None:
    """Hand the heap's free pages back to the system (glibc ``malloc_trim``; nothing elsewhere).
    After a big batch went in, its freed rows and tasks otherwise stay in the resident set."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None)
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, ...)
        return
    trim(0)
