"""A batch's rows and the one validator every input format shares (so a message reads the same in
JSONL, CSV and pasted text), plus the excerpt and line-splitting rules its errors use."""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from mediadesk.core.batch.templates import TemplateLibrary, TemplateProblem

DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024
REQUIRED_FIELDS = ("profile", "prompt")
OPTIONAL_FIELDS = ("id", "system", "priority", "route_key")
#: A row's fan-out and template: several profiles, ``n`` samples, a template and its variables (``vars``:
#: JSONL only; a CSV or XLSX row gives them as the header's other columns).
FAN_OUT_FIELDS = ("profiles", "n", "template", "vars")
ALL_FIELDS = REQUIRED_FIELDS + OPTIONAL_FIELDS + FAN_OUT_FIELDS
PRIORITY_MIN, PRIORITY_MAX = -1000, 1000
SAMPLES_MIN, SAMPLES_MAX = 1, 20
#: What separates the names of a ``profiles`` cell (CSV, XLSX): a comma or a bar.
_PROFILE_SEP = re.compile(r"[,|]")
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
    #: Every profile of a row that names several (``profiles``), in order; ``profile`` is the first. Empty:
    #: the row runs on ``profile`` alone.
    profiles: tuple[str, ...] = ()
    #: Samples per profile (``n``): one task per profile per sample, all in one group.
    samples: int = 1
    #: The template ``prompt`` was rendered from, and the variables it was filled in with (for the record).
    template: str | None = None
    template_vars: tuple[tuple[str, object], ...] = ()

    @property
    def targets(self) -> tuple[str, ...]:
        """The profiles the row's tasks go to, in order."""
        return self.profiles or (self.profile,)

    @property
    def task_count(self) -> int:
        """How many tasks the row makes: one per profile per sample."""
        return len(self.targets) * self.samples


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
    #: A CSV or XLSX batch's columns that are template variables, in order.
    variables: tuple[str, ...] = ()
    #: An XLSX batch: the sheet read, and every sheet of the workbook (to choose another).
    sheet: str | None = None
    sheets: tuple[str, ...] = ()

    @property
    def task_count(self) -> int:
        """The tasks the good rows make (a row with several profiles or samples makes several)."""
        return sum(r.task_count for r in self.rows)


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
    """Validates one record (a JSON object, or a CSV or XLSX row as a dict); shared by every format.

    ``templates``: where a row's ``template`` is found; ``template`` / ``profile``: the caller's choice for
    rows that name none (the staging dialog's pickers, ``mediadesk run --template/--profile``)."""

    def __init__(self, known_profiles: Collection[str] | None, max_prompt_chars: int, *,
                 templates: TemplateLibrary | None = None, template: str | None = None,
                 profile: str | None = None) -> None:
        self.known = frozenset(known_profiles) if known_profiles is not None else None
        self.max_prompt_chars = max_prompt_chars
        self.templates = templates if templates is not None else TemplateLibrary(None)
        self.default_template = template
        self.default_profile = profile
        self.first_line_of_id: dict[str, int] = {}
        self._profile_hint: dict[str, str] = {}

    def check(
        self, rec: Mapping[str, object], line: int, *, from_csv: bool, escapes: bool = False,
        variables: Mapping[str, object] | None = None, cells: Mapping[str, str] | None = None,
    ) -> BatchRow | list[str]:
        """``escapes``: the raw JSON held a ``\\u`` escape, the only way to smuggle in a lone
        surrogate (which would fail later, at the first UTF-8 encode in the store or UI).
        ``variables``: a CSV or XLSX row's template variables (its columns that are no field);
        ``cells``: where each variable of the row is (``"cell C5"``, ``"column 3"``), for messages."""
        problems: list[str] = []
        if not from_csv:
            unknown = [key for key in rec if key not in ALL_FIELDS]
            for key in unknown[:5]:
                problems.append(f"unknown key {key[:100]!r}{suggest(key[:100], ALL_FIELDS)}")
            if len(unknown) > 5:
                problems.append(f"and {len(unknown) - 5} more unknown keys")
        profiles = self._profiles(rec, problems, from_csv=from_csv)
        samples = self._int(rec, "n", problems, from_csv=from_csv, default=1, lo=SAMPLES_MIN, hi=SAMPLES_MAX)
        template, template_vars = self._template(rec, problems, from_csv=from_csv, variables=variables)
        if template is None:
            prompt = self._prompt(rec, problems)
        else:
            prompt = self._render(template, template_vars, problems, cells)
        id_ = self._id(rec, line, problems)
        system = self._opt_str(rec, "system", problems)
        route_key = self._opt_str(rec, "route_key", problems)
        if route_key is not None and len(route_key) > MAX_ROUTE_KEY_CHARS:
            problems.append(f"route_key is {len(route_key)} chars, over the limit of {MAX_ROUTE_KEY_CHARS}")
        if route_key is not None and profiles is not None and len(profiles) * samples > 1:
            problems.append("route_key cannot go with several profiles or samples (one conversation, one task "
                            "per turn)")
        priority = self._int(rec, "priority", problems, from_csv=from_csv, default=0, lo=PRIORITY_MIN,
                             hi=PRIORITY_MAX)
        if escapes:
            for name, value in (("profile", profiles and ",".join(profiles)), ("prompt", prompt),
                                ("id", rec.get("id")), ("system", system), ("route_key", route_key)):
                if isinstance(value, str) and _SURROGATE.search(value):
                    problems.append(f"{name} contains an unpaired surrogate (a bad \\u escape)")
        if problems or not profiles or prompt is None:
            return problems or ["invalid row"]
        return BatchRow(line=line, profile=profiles[0], prompt=prompt, id=id_, system=system,
                        priority=priority, route_key=route_key, profiles=profiles if len(profiles) > 1 else (),
                        samples=samples, template=template, template_vars=tuple(template_vars.items()))

    # ------------------------------------------------------------------ profiles
    def _profiles(self, rec: Mapping[str, object], problems: list[str], *, from_csv: bool) -> tuple[str, ...] | None:
        one, many = rec.get("profile"), rec.get("profiles")
        if one is not None and many is not None:
            problems.append("give 'profile' or 'profiles', not both")
            return None
        if many is None:
            if one is None:
                one = self.default_profile
            if one is None:
                problems.append("missing required field 'profile'")
                return None
            name = self._profile(one, "profile", problems)
            return None if name is None else (name,)
        if from_csv and isinstance(many, str):
            items: list[object] = [part for part in _PROFILE_SEP.split(many) if part.strip()]
        elif isinstance(many, list):
            items = list(many)
        else:
            problems.append(f"field 'profiles' must be an array of names, got {type_name(many)}")
            return None
        if not items:
            problems.append("profiles is empty")
            return None
        names: list[str] = []
        for item in items:
            name = self._profile(item, "profiles", problems)
            if name is None:
                return None
            if name in names:
                problems.append(f"profile {name[:100]!r} is named twice in 'profiles'")
                return None
            names.append(name)
        return tuple(names)

    def _profile(self, value: object, field: str, problems: list[str]) -> str | None:
        if not isinstance(value, str):
            what = "must be a string" if field == "profile" else "must hold strings"
            problems.append(f"field {field!r} {what}, got {type_name(value)}")
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

    # ------------------------------------------------------------------ prompt or template
    def _template(
        self, rec: Mapping[str, object], problems: list[str], *, from_csv: bool,
        variables: Mapping[str, object] | None,
    ) -> tuple[str | None, dict[str, object]]:
        own = rec.get("template")
        if own is not None and not isinstance(own, str):
            problems.append(f"field 'template' must be a string, got {type_name(own)}")
            return None, {}
        own = own.strip() if own is not None else None
        template = own or self.default_template
        found = self._vars(rec, problems) if not from_csv else dict(variables or {})
        if template is None:
            if "vars" in rec:
                problems.append("'vars' given without a 'template'")
            return None, {}
        if rec.get("prompt") is not None:
            problems.append("give 'prompt' or 'template', not both" if own
                            else f"the row gives a 'prompt', but the batch's template is {template!r}")
            return None, {}
        return template, found

    @staticmethod
    def _vars(rec: Mapping[str, object], problems: list[str]) -> dict[str, object]:
        value = rec.get("vars")
        if value is None:
            return {}
        if not isinstance(value, dict):
            problems.append(f"field 'vars' must be an object, got {type_name(value)}")
            return {}
        out: dict[str, object] = {}
        for key, item in value.items():
            if item is not None and not isinstance(item, str | int | float | bool):
                problems.append(f"vars[{key[:100]!r}] must be a string, a number or a boolean, got {type_name(item)}")
                continue
            out[key] = item
        return out

    def _render(self, template: str, variables: Mapping[str, object], problems: list[str],
                cells: Mapping[str, str] | None) -> str | None:
        present = {k: v for k, v in variables.items() if v is not None and v != ""}
        try:
            needs = self.templates.needs(template)
            missing = [v for v in needs if v not in present]
            if missing:
                for var in missing:
                    where = f" ({cells[var]} is empty)" if cells and var in cells else ""
                    problems.append(f"missing variable {var!r}{where}: template {template!r} uses it")
                return None
            prompt = self.templates.render(template, present)
        except TemplateProblem as exc:
            problems.append(str(exc))
            return None
        if len(prompt) > self.max_prompt_chars:
            problems.append(f"rendered prompt is {fmt_count(len(prompt))} chars, over the limit of "
                            f"{fmt_count(self.max_prompt_chars)}")
            return None
        if not prompt or prompt.isspace():
            problems.append(f"template {template!r} renders an empty prompt")
            return None
        return prompt

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
    def _int(rec: Mapping[str, object], name: str, problems: list[str], *, from_csv: bool, default: int,
             lo: int, hi: int) -> int:
        value = rec.get(name)
        if value is None:
            return default
        if from_csv and isinstance(value, str):  # CSV cells are text; JSON must say 5, not "5"
            text = value.strip()
            if not _INT_TEXT.fullmatch(text):
                problems.append(f"field {name!r} must be an integer, got {text[:40]!r}")
                return default
            value = int(text)
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append(f"field {name!r} must be an integer, got {type_name(value)}")
            return default
        if not lo <= value <= hi:
            shown = str(value) if value.bit_length() < 64 else "a huge number"
            problems.append(f"{name} {shown} is out of range {lo}..{hi}")
            return default
        return value


# --------------------------------------------------------------------------- formats
