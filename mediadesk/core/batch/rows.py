"""A batch's rows and the one validator every input format shares (so a message reads the same in
JSONL, CSV and pasted text), plus the excerpt and line-splitting rules its errors use."""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024
REQUIRED_FIELDS = ("profile", "prompt")
OPTIONAL_FIELDS = ("id", "system", "priority", "route_key")
ALL_FIELDS = REQUIRED_FIELDS + OPTIONAL_FIELDS
PRIORITY_MIN, PRIORITY_MAX = -1000, 1000
MAX_ID_CHARS = 200
MAX_ROUTE_KEY_CHARS = 200
EXCERPT_CHARS = 80

_NEWLINE = re.compile(r"\r\n|\r|\n")
_SURROGATE = re.compile("[\ud800-\udfff]")
_INT_TEXT = re.compile(r"[+-]?[0-9]{1,9}")
_JSON_TYPE_NAMES: dict[type, str] = {
    type(None): "null", bool: "boolean", int: "integer", float: "number",
    str: "string", list: "array", dict: "object",
}
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class BatchFileError(Exception):
    """The batch file as a whole cannot be read (missing, unreadable, too big)."""


@dataclass(frozen=True, slots=True)
class BatchRow:
    line: int
    profile: str
    prompt: str
    id: str | None
    system: str | None
    priority: int
    route_key: str | None


@dataclass(frozen=True)
class RowError:
    line: int
    message: str
    #: The first 80 chars of the raw line, control characters escaped (safe to show in a table).
    excerpt: str


@dataclass
class ParsedBatch:
    rows: list[BatchRow]
    errors: list[RowError]
    format: str
    source: str = "<batch>"
    #: The encoding the bytes were read in ("UTF-8", "GB18030", "UTF-16 LE" ...); None for pasted text.
    encoding: str | None = None


# --------------------------------------------------------------------------- helpers

def type_name(value: object) -> str:
    return _JSON_TYPE_NAMES.get(type(value), type(value).__name__)


def _escape_char(ch: str) -> str:
    special = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    if ch in special:
        return special[ch]
    o = ord(ch)
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


def _needs_escape(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") or ch in _BIDI_CONTROLS


def excerpt(text: str) -> str:
    """First 80 chars, with control/bidi/separator characters escaped; never copies more."""
    head = text[:EXCERPT_CHARS]
    return "".join(_escape_char(c) if _needs_escape(c) else c for c in head)


def suggest(name: str, choices: Iterable[str]) -> str:
    match = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {match[0]!r}?)" if match else ""


def split_lines(text: str) -> list[str]:
    """Split on \\r\\n, \\r and \\n only, keeping the ends (str.splitlines also splits on \\x0c,
    \\x1c, U+2028 ..., which would cut CSV records and disagree with our line numbers)."""
    out: list[str] = []
    pos = 0
    for m in _NEWLINE.finditer(text):
        out.append(text[pos : m.end()])
        pos = m.end()
    if pos < len(text):
        out.append(text[pos:])
    return out


def fmt_count(n: int) -> str:
    return f"{n:,}"


# --------------------------------------------------------------------------- row validation

class RowChecker:
    """Validates one record (a JSON object or a CSV row as a dict); shared by both formats."""

    def __init__(self, known_profiles: Collection[str] | None, max_prompt_chars: int) -> None:
        self.known = frozenset(known_profiles) if known_profiles is not None else None
        self.max_prompt_chars = max_prompt_chars
        self.first_line_of_id: dict[str, int] = {}
        self._profile_hint: dict[str, str] = {}

    def check(
        self, rec: Mapping[str, object], line: int, *, from_csv: bool, escapes: bool = False
    ) -> BatchRow | list[str]:
        """``escapes``: the raw JSON held a ``\\u`` escape, the only way to smuggle in a lone
        surrogate (which would fail later, at the first UTF-8 encode in the store or UI)."""
        problems: list[str] = []
        if not from_csv:
            unknown = [key for key in rec if key not in ALL_FIELDS]
            for key in unknown[:5]:
                problems.append(f"unknown key {key[:100]!r}{suggest(key[:100], ALL_FIELDS)}")
            if len(unknown) > 5:
                problems.append(f"and {len(unknown) - 5} more unknown keys")
        profile = self._profile(rec, problems)
        prompt = self._prompt(rec, problems)
        id_ = self._id(rec, line, problems)
        system = self._opt_str(rec, "system", problems)
        route_key = self._opt_str(rec, "route_key", problems)
        if route_key is not None and len(route_key) > MAX_ROUTE_KEY_CHARS:
            problems.append(f"route_key is {len(route_key)} chars, over the limit of {MAX_ROUTE_KEY_CHARS}")
        priority = self._priority(rec, problems, from_csv=from_csv)
        if escapes:
            for name in ("profile", "prompt", "id", "system", "route_key"):
                value = rec.get(name)
                if isinstance(value, str) and _SURROGATE.search(value):
                    problems.append(f"{name} contains an unpaired surrogate (a bad \\u escape)")
        if problems or profile is None or prompt is None:
            return problems or ["invalid row"]
        return BatchRow(line=line, profile=profile, prompt=prompt, id=id_, system=system,
                        priority=priority, route_key=route_key)

    def _profile(self, rec: Mapping[str, object], problems: list[str]) -> str | None:
        value = rec.get("profile")
        if value is None:
            problems.append("missing required field 'profile'")
            return None
        if not isinstance(value, str):
            problems.append(f"field 'profile' must be a string, got {type_name(value)}")
            return None
        name = value.strip()
        if not name:
            problems.append("profile is empty")
            return None
        if self.known is not None and name not in self.known:
            if name not in self._profile_hint:
                hint = suggest(name, sorted(self.known))
                if not hint and 0 < len(self.known) <= 10:
                    hint = f" (known: {', '.join(sorted(self.known))})"
                self._profile_hint[name] = hint
            problems.append(f"unknown profile {name[:100]!r}{self._profile_hint[name]}")
            return None
        return name

    def _prompt(self, rec: Mapping[str, object], problems: list[str]) -> str | None:
        value = rec.get("prompt")
        if value is None:
            problems.append("missing required field 'prompt'")
            return None
        if not isinstance(value, str):
            problems.append(f"field 'prompt' must be a string, got {type_name(value)}")
            return None
        if len(value) > self.max_prompt_chars:
            problems.append(f"prompt is {fmt_count(len(value))} chars, over the limit of "
                            f"{fmt_count(self.max_prompt_chars)}")
            return None
        if not value or value.isspace():
            problems.append("prompt is empty")
            return None
        return value

    def _id(self, rec: Mapping[str, object], line: int, problems: list[str]) -> str | None:
        value = rec.get("id")
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, str | int):
            problems.append(f"field 'id' must be a string or an integer, got {type_name(value)}")
            return None
        text = str(value) if isinstance(value, int) else value
        if not text.strip():
            problems.append("id is empty")
            return None
        if len(text) > MAX_ID_CHARS:
            problems.append(f"id is {len(text)} chars, over the limit of {MAX_ID_CHARS}")
            return None
        if not text.isprintable():
            problems.append("id contains a control or non-printable character")
            return None
        first = self.first_line_of_id.setdefault(text, line)
        if first != line:
            problems.append(f"duplicate id {text!r} (first on line {first})")
            return None
        return text

    @staticmethod
    def _opt_str(rec: Mapping[str, object], name: str, problems: list[str]) -> str | None:
        value = rec.get(name)
        if value is None or isinstance(value, str):
            return value
        problems.append(f"field {name!r} must be a string, got {type_name(value)}")
        return None

    @staticmethod
    def _priority(rec: Mapping[str, object], problems: list[str], *, from_csv: bool) -> int:
        value = rec.get("priority")
        if value is None:
            return 0
        if from_csv and isinstance(value, str):  # CSV cells are text; JSON must say 5, not "5"
            text = value.strip()
            if not _INT_TEXT.fullmatch(text):
                problems.append(f"field 'priority' must be an integer, got {text[:40]!r}")
                return 0
            value = int(text)
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append(f"field 'priority' must be an integer, got {type_name(value)}")
            return 0
        if not PRIORITY_MIN <= value <= PRIORITY_MAX:
            shown = str(value) if value.bit_length() < 64 else "a huge number"
            problems.append(f"priority {shown} is out of range {PRIORITY_MIN}..{PRIORITY_MAX}")
            return 0
        return value


# --------------------------------------------------------------------------- formats
