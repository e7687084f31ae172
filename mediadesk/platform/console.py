"""Text to a terminal or a redirected stdout and stderr: UTF-8, whatever the console's code page.

Windows gives a redirected stdout the ANSI code page (cp936 on Chinese Windows), and POSIX under
``LANG=C`` gives ASCII, so an emoji in an answer ends ``mediadesk export`` (or a log line) with a
UnicodeEncodeError half-way. :func:`utf8_std_streams`, called once at start, makes both streams UTF-8
(a Windows console window already is: Python writes it as UTF-16); a stream that cannot change its
encoding at least replaces what it cannot write instead of failing.
"""

from __future__ import annotations

import codecs
import io
import sys

__all__ = ["utf8_std_streams"]


def _is_utf8(encoding: str | None) -> bool:
    try:
        return encoding is not None and codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


def utf8_std_streams() -> None:
    """Reconfigure ``sys.stdout`` and ``sys.stderr`` to UTF-8 (their error handler kept, ``strict`` made
    ``replace``); leave alone what is already UTF-8 or absent (``pythonw`` has no streams)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None or _is_utf8(getattr(stream, "encoding", None)):
            continue
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:  # not a TextIOWrapper: nothing to change
            continue
        errors = getattr(stream, "errors", None)
        errors = "replace" if errors in (None, "strict") else errors
        try:
            reconfigure(encoding="utf-8", errors=errors)
        except (ValueError, OSError, io.UnsupportedOperation):
            try:  # the encoding is fixed (data already went through it): at least never crash on a character
                reconfigure(errors=errors)
            except (ValueError, OSError, io.UnsupportedOperation):
                continue
