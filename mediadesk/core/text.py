"""Text from outside (server answers and error bodies, batch files, config values, task results) made
safe to print on a terminal.

Why one helper: a server's error message, an answer in ``export --format md`` or a profile name in a
config error can carry terminal control sequences (ESC ``[2J`` clears the screen, OSC 52 writes the
clipboard, OSC 8 plants links, a lone CR overwrites what was printed before). Every place the CLI
prints outside text goes through :func:`printable`, which shows each control character as a visible
escape (``\\x1b``) instead of sending it to the terminal.
"""

from __future__ import annotations

import re

__all__ = ["REPLACEMENT", "printable", "storable"]

#: C0 controls (but tab and newline), DEL, C1 controls, and the bidirectional overrides and
#: isolates that reorder what a terminal shows. CR is only a control when no LF follows it.
_CONTROLS = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]|\r(?!\n)"
)
_CONTROLS_ONE_LINE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _escape(m: re.Match[str]) -> str:
    ch = m.group(0)
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: object, *, multiline: bool = True) -> str:
    """``text`` with every control character shown as a visible escape: ``\\x1b`` for ESC,
    ``\\x9b`` for the C1 CSI, ``\\u202e`` for a right-to-left override. Newlines and tabs (and CR
    before LF) are kept where ``multiline`` (a message of several lines); ``multiline=False``
    escapes them too (one table cell, one log line). A lone surrogate (text decoded with
    ``surrogateescape`` or from JSON ``\\ud800``) is shown as ``\\udXXX`` too: it cannot be encoded."""
    s = text if isinstance(text, str) else str(text)
    return (_CONTROLS if multiline else _CONTROLS_ONE_LINE).sub(_escape, s)


#: What no database column holds as text: a lone surrogate (not Unicode, so not encodable as UTF-8:
#: SQLite's and psycopg's encoders raise) and NUL (PostgreSQL refuses it in text; SQLite's C API
#: cuts the string there).
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def storable(text: str) -> tuple[str, int]:
    """``text`` as the store can keep it: each lone surrogate and NUL replaced by U+FFFD; returns
    (the text, how many characters were replaced). A valid surrogate *pair* cannot occur in a
    Python string (it holds code points), so every surrogate found is a lone one."""
    fixed, n = _UNSTORABLE.subn(REPLACEMENT, text)
    return fixed, n
