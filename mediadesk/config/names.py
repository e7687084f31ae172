"""Names that become file and folder names, held to Windows' rules on every system (a config moves between
machines): an account's browser profile folder, a site adapter's file, an export, a template.

:func:`portable_name_problem` refuses what Windows cannot store (a device name such as ``CON`` or ``COM1``,
with or without an extension, in any case; a trailing dot or space, which Windows drops; ``<>:"/\\|?*`` and
control characters). :func:`case_twin` finds two names that differ only by case, which NTFS and APFS (case
insensitive) take for the same file or folder. Messages are :class:`~mediadesk.config.messages.Msg` data.
"""

from __future__ import annotations

from collections.abc import Iterable

from mediadesk.config.messages import Msg, msg

__all__ = ["WINDOWS_RESERVED", "case_twin", "portable_name_problem"]

#: Device names Windows reserves in every folder, whatever the extension (``nul.txt`` is NUL too); the
#: superscript digits count as digits there.
WINDOWS_RESERVED = frozenset(
    {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}
    | {f"{dev}{d}" for dev in ("COM", "LPT") for d in "0123456789\u00b9\u00b2\u00b3"}
)
_INVALID_CHARS = frozenset('<>:"/\\|?*')


def portable_name_problem(name: str) -> Msg | None:
    """Why ``name`` cannot be a file or folder name on Windows, or None when it can (on every system)."""
    bad = sorted({c for c in name if c in _INVALID_CHARS or ord(c) < 32})
    if bad:
        shown = " ".join(repr(c) for c in bad)
        return msg("{chars} cannot be in a file or folder name on Windows", chars=shown)
    if name.endswith((".", " ")):
        return msg("must not end with a dot or a space (Windows drops them from file and folder names)")
    stem = name.split(".", 1)[0].rstrip(" ").upper()
    if stem in WINDOWS_RESERVED:
        return msg("{name} is a device name on Windows (CON, PRN, AUX, NUL, COM1-9, LPT1-9, with any "
                   "extension): no file or folder can have it; choose another name", name=repr(name))
    return None


def case_twin(names: Iterable[str]) -> tuple[int, int] | None:
    """The positions (earlier, later) of the first two of ``names`` that differ only by case; None when
    there are none (equal names are the caller's duplicates, not twins)."""
    first: dict[str, tuple[int, str]] = {}
    for i, name in enumerate(names):
        seen = first.setdefault(name.casefold(), (i, name))
        if seen[1] != name:
            return seen[0], i
    return None
