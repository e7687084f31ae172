"""Batch files (JSONL / CSV / pasted prompts) -> validated rows plus per-row errors.

(One module of ~560 lines on purpose: the three input formats share one row validator and one
line-numbering rule, and keeping them together keeps the error messages identical.)

Used by ``mediadesk run BATCH`` and by the console's staging preview, so it must never raise on
what a user hands it: every problem becomes a :class:`RowError` with the line number the user's
editor shows (1-based; ``\\r\\n``, ``\\n`` and a lone ``\\r`` each end a line), and every good row
still comes through. Being strict pays here: an unknown key (``promt``) or a wrong type is an
error, not a silently dropped field, because a dropped ``system`` override would quietly change
what hundreds of tasks ask for.

Format notes:
- JSONL: one object per line; blank lines and lines starting with ``#`` are skipped; ``null`` for
  an optional key means "absent"; ``"system": ""`` is kept (an explicit empty override).
- CSV: a header row (names are trimmed and case-folded); an empty cell of an optional column
  means "absent"; quoted fields may span lines; a row is reported at the line where it starts.
"""

from __future__ import annotations

import csv
import difflib
import hashlib
import json
import os
import re
import stat
import unicodedata
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "BatchFileError",
    "BatchRow",
    "ParsedBatch",
    "RowError",
    "assign_task_ids",
    "derive_task_id",
    "detect_format",
    "parse_batch",
    "parse_batch_file",
    "parse_pasted",
]

DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024
REQUIRED_FIELDS = ("profile", "prompt")
OPTIONAL_FIELDS = ("id", "system", "priority", "route_key")
ALL_FIELDS = REQUIRED_FIELDS + OPTIONAL_FIELDS
PRIORITY_MIN, PRIORITY_MAX = -1000, 1000
MAX_ID_CHARS = 200
MAX_ROUTE_KEY_CHARS = 200
EXCERPT_CHARS = 80

_BOM = b"\xef\xbb\xbf"
_NEWLINE = re.compile(r"\r\n|\r|\n")
_SURROGATE = re.compile("[\ud800-\udfff]")
_INT_TEXT = re.compile(r"[+-]?[0-9]{1,9}")
# The csv module's default field limit (128 KiB) turns one big prompt into a csv.Error that
# desynchronises the reader; the file-size limit bounds fields instead, and the prompt-size check
# turns a big field into a clean row error.
_CSV_FIELD_LIMIT = 2**31 - 1
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


# --------------------------------------------------------------------------- helpers

def _type_name(value: object) -> str:
    return _JSON_TYPE_NAMES.get(type(value), type(value).__name__)


def _escape_char(ch: str) -> str:
    special = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    if ch in special:
        return special[ch]
    o = ord(ch)
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


def _needs_escape(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") or ch in _BIDI_CONTROLS


def _excerpt(text: str) -> str:
    """First 80 chars, with control/bidi/separator characters escaped; never copies more."""
    head = text[:EXCERPT_CHARS]
    return "".join(_escape_char(c) if _needs_escape(c) else c for c in head)


def _bytes_excerpt(raw: bytes) -> str:
    # 4 bytes per char at most, so this prefix always holds 80 chars of valid text.
    return _excerpt(raw[: EXCERPT_CHARS * 4].decode("utf-8", errors="backslashreplace"))


def _suggest(name: str, choices: Iterable[str]) -> str:
    match = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {match[0]!r}?)" if match else ""


def _split_lines(text: str) -> list[str]:
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


def _fmt_count(n: int) -> str:
    return f"{n:,}"


# --------------------------------------------------------------------------- row validation

class _RowChecker:
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
                problems.append(f"unknown key {key[:100]!r}{_suggest(key[:100], ALL_FIELDS)}")
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
            problems.append(f"field 'profile' must be a string, got {_type_name(value)}")
            return None
        name = value.strip()
        if not name:
            problems.append("profile is empty")
            return None
        if self.known is not None and name not in self.known:
            if name not in self._profile_hint:
                hint = _suggest(name, sorted(self.known))
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
            problems.append(f"field 'prompt' must be a string, got {_type_name(value)}")
            return None
        if len(value) > self.max_prompt_chars:
            problems.append(f"prompt is {_fmt_count(len(value))} chars, over the limit of "
                            f"{_fmt_count(self.max_prompt_chars)}")
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
            problems.append(f"field 'id' must be a string or an integer, got {_type_name(value)}")
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
        problems.append(f"field {name!r} must be a string, got {_type_name(value)}")
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
            problems.append(f"field 'priority' must be an integer, got {_type_name(value)}")
            return 0
        if not PRIORITY_MIN <= value <= PRIORITY_MAX:
            shown = str(value) if value.bit_length() < 64 else "a huge number"
            problems.append(f"priority {shown} is out of range {PRIORITY_MIN}..{PRIORITY_MAX}")
            return 0
        return value


# --------------------------------------------------------------------------- formats

class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _pairs_no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs_no_duplicates)


def _load_json_line(text: str) -> dict[str, object] | str:
    """The line's object, or the message saying why it is not one."""
    try:
        obj = _DECODER.decode(text)
    except _DuplicateKey as exc:
        return f"duplicate key {exc.key[:100]!r}"
    except json.JSONDecodeError as exc:
        return f"invalid JSON: {exc.msg} (column {exc.colno})"
    except (ValueError, RecursionError) as exc:  # 5000-digit integers, absurd nesting
        return f"invalid JSON: {str(exc)[:120]}"
    if not isinstance(obj, dict):
        return f"expected a JSON object, got {_type_name(obj)}"
    return obj


def _parse_jsonl(data: bytes, checker: _RowChecker, out: ParsedBatch) -> None:
    """Decode per line, so one line of bad UTF-8 costs that line only."""
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    for lineno, raw in enumerate(data.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith(b"#"):
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            out.errors.append(RowError(lineno, f"invalid UTF-8 at byte {exc.start + 1} of the line",
                                       _bytes_excerpt(raw)))
            continue
        obj = _load_json_line(text)
        result = obj if isinstance(obj, str) else checker.check(obj, lineno, from_csv=False,
                                                                escapes="\\u" in text)
        if isinstance(result, BatchRow):
            out.rows.append(result)
        else:
            message = result if isinstance(result, str) else "; ".join(result)
            out.errors.append(RowError(lineno, message, _excerpt(text)))


def _csv_records(lines: list[str]) -> Iterator[tuple[int, int, list[str] | csv.Error]]:
    """Yield (first line, last line, fields or the csv.Error) per record."""
    if csv.field_size_limit() < _CSV_FIELD_LIMIT:
        csv.field_size_limit(_CSV_FIELD_LIMIT)
    reader = csv.reader(iter(lines), strict=True)
    prev = 0
    while True:
        try:
            rec: list[str] | csv.Error = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            rec = exc
        yield prev + 1, reader.line_num, rec
        prev = reader.line_num


def _check_header(fields: list[str]) -> tuple[list[str], list[str]]:
    names = [f.strip().casefold() for f in fields]
    problems: list[str] = []
    seen: set[str] = set()
    for pos, name in enumerate(names, start=1):
        if not name:
            problems.append(f"empty column name in column {pos}")
        elif name not in ALL_FIELDS:
            problems.append(f"unknown column {name[:100]!r}{_suggest(name, ALL_FIELDS)}")
        elif name in seen:
            problems.append(f"duplicate column {name!r}")
        seen.add(name)
    for req in REQUIRED_FIELDS:
        if req not in seen:
            problems.append(f"missing required column {req!r}")
    return names, problems


def _parse_csv(data: bytes, checker: _RowChecker, out: ParsedBatch) -> None:
    try:
        text, replaced = data.decode("utf-8-sig"), False
    except UnicodeDecodeError:
        text, replaced = data.decode("utf-8-sig", errors="replace"), True
    lines = _split_lines(text)

    def raw(first: int, last: int) -> str:
        acc: list[str] = []
        n = 0
        for ln in lines[first - 1 : last]:
            acc.append(ln)
            n += len(ln)
            if n >= EXCERPT_CHARS:
                break
        return "".join(acc).rstrip("\r\n")

    header: list[str] | None = None
    for first, last, rec in _csv_records(lines):
        if isinstance(rec, csv.Error):
            msg = (f"unterminated quoted field (runs to the end of the file, line {last})"
                   if "unexpected end of data" in str(rec) else f"malformed CSV: {rec}")
            out.errors.append(RowError(first, msg, _excerpt(raw(first, last))))
            if header is None:
                return
            continue
        if not rec or all(not f.strip() for f in rec):
            continue
        if replaced and any("\ufffd" in ln for ln in lines[first - 1 : last]):
            out.errors.append(RowError(first, "invalid UTF-8 on this line", _excerpt(raw(first, last))))
            if header is None:
                return
            continue
        if header is None:
            header, problems = _check_header(rec)
            if problems:
                message = "bad header: " + "; ".join(problems)
                out.errors.append(RowError(first, message, _excerpt(raw(first, last))))
                return
            continue
        if len(rec) != len(header):  # a lost quote or delimiter: never guess which cell moved
            out.errors.append(RowError(first, f"row has {len(rec)} fields, the header has {len(header)}",
                                       _excerpt(raw(first, last))))
            continue
        values = {k: v for k, v in zip(header, rec, strict=True) if v != "" or k in REQUIRED_FIELDS}
        result = checker.check(values, first, from_csv=True)
        if isinstance(result, BatchRow):
            out.rows.append(result)
        else:
            out.errors.append(RowError(first, "; ".join(result), _excerpt(raw(first, last))))
    if header is None:
        out.errors.append(RowError(1, "empty file: a CSV batch needs a header row with at least "
                                      "'profile' and 'prompt'", ""))


# --------------------------------------------------------------------------- public API

def detect_format(data: bytes, filename: str | None = None) -> str:
    """``jsonl`` or ``csv``: by extension first, else by the first meaningful character."""
    if filename:
        suffix = Path(filename).suffix.lower()
        if suffix in (".jsonl", ".ndjson", ".json"):
            return "jsonl"
        if suffix in (".csv", ".tsv"):
            return "csv"
    pos = len(_BOM) if data.startswith(_BOM) else 0
    n = len(data)
    while pos < n:
        ch = data[pos : pos + 1]
        if ch in b" \t\r\n\f\v":
            pos += 1
        elif ch == b"#":  # a JSONL comment line: look at the next line
            nl = data.find(b"\n", pos)
            if nl < 0:
                break
            pos = nl + 1
        else:
            return "jsonl" if ch in (b"{", b"[") else "csv"
    return "jsonl"


def parse_batch(
    data: bytes,
    *,
    fmt: str | None = None,
    known_profiles: Collection[str] | None = None,
    max_prompt_chars: int = 200_000,
    source: str = "<batch>",
) -> ParsedBatch:
    """Parse a whole batch. Never raises on ``data``; ``fmt`` None = :func:`detect_format` (which
    also looks at ``source`` as a file name). Raises ValueError only for a bad ``fmt``."""
    if fmt is None:
        fmt = detect_format(data, source)
    if fmt not in ("jsonl", "csv"):
        raise ValueError(f"unknown batch format {fmt!r} (expected 'jsonl' or 'csv')")
    out = ParsedBatch(rows=[], errors=[], format=fmt, source=source)
    checker = _RowChecker(known_profiles, max_prompt_chars)
    if fmt == "jsonl":
        _parse_jsonl(data, checker, out)
    else:
        _parse_csv(data, checker, out)
    return out


def parse_batch_file(
    path: Path | str,
    *,
    fmt: str | None = None,
    known_profiles: Collection[str] | None = None,
    max_prompt_chars: int = 200_000,
    max_bytes: int = DEFAULT_MAX_FILE_BYTES,
) -> ParsedBatch:
    """Read and parse a batch file; file-level problems raise :class:`BatchFileError`."""
    p = Path(path)
    try:
        if p.is_dir():
            raise BatchFileError(f"batch file {p} is a directory")
        # O_NONBLOCK: opening a FIFO (or a named pipe nobody writes to) must not hang before the
        # check below can refuse it; on a regular file the flag changes nothing.
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with open(fd, "rb") as fh:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise BatchFileError(
                    f"batch file {p} is not a regular file (it is {_file_kind(mode)}): MediaDesk reads "
                    "batches from files only, so that a batch can be checked whole before anything runs; "
                    "write the rows to a file first")
            data = fh.read(max_bytes + 1)  # bounded even if the file grows while we read
    except FileNotFoundError as exc:
        raise BatchFileError(f"batch file not found: {p}") from exc
    except OSError as exc:
        raise BatchFileError(f"cannot read batch file {p}: {exc.strerror or exc}") from exc
    if len(data) > max_bytes:
        raise BatchFileError(f"batch file {p} is over the size limit of {max_bytes / 2**20:.0f} MiB "
                             f"({max_bytes:,} bytes); split it into smaller batches")
    return parse_batch(data, fmt=fmt, known_profiles=known_profiles,
                       max_prompt_chars=max_prompt_chars, source=str(p))


def _file_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


def parse_pasted(
    text: str, *, profile: str, priority: int = 0, system: str | None = None,
    max_prompt_chars: int = 200_000,
) -> ParsedBatch:
    """One prompt per non-empty line (trimmed). ``profile``/``priority`` come from the dialog's
    own widgets, so bad values there are programming errors (ValueError), not row errors."""
    if not profile.strip():
        raise ValueError("profile is empty")
    if isinstance(priority, bool) or not PRIORITY_MIN <= priority <= PRIORITY_MAX:
        raise ValueError(f"priority {priority!r} is out of range {PRIORITY_MIN}..{PRIORITY_MAX}")
    out = ParsedBatch(rows=[], errors=[], format="pasted", source="<pasted>")
    for lineno, line in enumerate(_split_lines(text), start=1):
        prompt = line.strip()
        if not prompt:
            continue
        if len(prompt) > max_prompt_chars:
            out.errors.append(RowError(lineno, f"prompt is {_fmt_count(len(prompt))} chars, over the "
                                               f"limit of {_fmt_count(max_prompt_chars)}", _excerpt(prompt)))
            continue
        out.rows.append(BatchRow(line=lineno, profile=profile.strip(), prompt=prompt, id=None,
                                 system=system, priority=priority, route_key=None))
    return out


def derive_task_id(row: BatchRow, occurrence: int) -> str:
    """The row's own id, else ``b-`` + 20 hex of sha256(profile, system or "", prompt, occurrence).

    Deterministic so that re-running the same file yields the same ids (the CLI uses them as
    idempotency keys); ``occurrence`` tells identical rows of one file apart."""
    if row.id is not None:
        return row.id
    if occurrence < 0:
        raise ValueError("occurrence must be >= 0")
    key = json.dumps([row.profile, row.system or "", row.prompt, occurrence],
                     ensure_ascii=False, separators=(",", ":"))
    return "b-" + hashlib.sha256(key.encode("utf-8", errors="surrogatepass")).hexdigest()[:20]


def assign_task_ids(rows: Iterable[BatchRow],
                    seen: dict[tuple[str, str, str], int] | None = None) -> list[tuple[str, BatchRow]]:
    """Task ids for rows in file order. Only id-less rows count as occurrences, so adding an
    explicit id to one row never shifts the derived ids of the others.

    ``seen``: the occurrence counts so far, updated in place; passing the same dict to calls on
    consecutive slices of a file gives the ids one call on the whole file gives."""
    if seen is None:
        seen = {}
    out: list[tuple[str, BatchRow]] = []
    for row in rows:
        if row.id is not None:
            out.append((row.id, row))
            continue
        key = (row.profile, row.system or "", row.prompt)
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        out.append((derive_task_id(row, occurrence), row))
    return out

