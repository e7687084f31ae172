"""A stored task-log line in the reader's language.

A line written by this version carries its phrase (:class:`mediadesk.core.log_lines.LogText`): it is
shown as the phrase's translation with its values put back (words of ours translated in turn). A row
written before lines had ids, or by a newer MediaDesk with a phrase this one does not know, is shown
as its stored English.
"""

from __future__ import annotations

from collections.abc import Callable

from mediadesk.core.log_lines import CONTEXT, LogText

__all__ = ["CONTEXT", "shown_line"]


def shown_line(message: str, text: LogText | None, tr: Callable[[str], str]) -> str:
    """``text`` rendered through ``tr`` (a template -> its translation, "" when there is none), else
    the stored ``message``."""
    if text is None or not text.known:
        return message
    return text.render(tr)
