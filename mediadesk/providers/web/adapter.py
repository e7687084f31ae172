"""Declarative site adapters: how to drive one chat site, written as a small TOML file.

A site changes its DOM far more often than we release, so the knowledge of a site lives in data
(``resources/sites/*.toml``, overridable per user) and the driver knows no site by name. Every key
is checked when the file is loaded, and a mistake is reported as one :class:`AdapterError` naming
the file, the key and what is wrong -- an operator edits these files, so no traceback.

Every key with its default and meaning: ``docs/site-adapters.md`` ("Every adapter key"); the parts
found by role, selector lists and overlays: ``docs/web-lane-adapters.md``; a commented adapter to
copy: ``resources/sites/EXAMPLE.toml.txt``.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass, fields, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from mediadesk.providers.web.busy import BusyMatcher
from mediadesk.providers.web.signals import ChallengeMatcher, FinalErrorMatcher
from mediadesk.providers.web.stream_decode import StreamSpec, StreamSpecError, parse_stream_spec

__all__ = [
    "AdapterError",
    "Selector",
    "SiteAdapter",
    "compose_prompt",
    "load_adapter",
    "load_adapters",
    "parse_adapter",
    "selector_list",
    "show_selector",
    "with_url",
]

AnswerFormat = Literal["text", "html", "markdown"]
#: One CSS selector or several (the first that matches on the page is used).
Selector = str | tuple[str, ...]
InstructionsMode = Literal["prepend", "none"]
SendClick = Literal["direct", "checked"]

SETTLE_MS_RANGE = (50, 60_000)


class AdapterError(Exception):
    """A site adapter file is unusable. The message is meant for the operator, as is."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        super().__init__(f"site adapter {source}: " + "; ".join(problems))


@dataclass(frozen=True)
class SiteAdapter:
    """One chat site, as the driver needs it. See the module docstring for what each key means."""

    url: str
    logged_in: Selector | None = None
    prompt: Selector | None = None
    answer: Selector | None = None
    busy: Selector | None = None
    send: Selector | None = None
    send_key: str | None = None
    settle_ms: int = 800
    max_run_s: float = 600.0
    name: str = ""
    login_url: str | None = None
    new_chat: Selector | None = None
    error: Selector | None = None
    answer_format: AnswerFormat = "text"
    logged_out: Selector | None = None
    start_timeout_s: float = 20.0
    instructions_mode: InstructionsMode = "prepend"
    stop: Selector | None = None
    page_load_timeout_s: float = 30.0
    busy_selector: Selector | None = None
    busy_text: tuple[str, ...] = ()
    busy_text_builtin: bool = True
    login_user: str | None = None
    login_password: str | None = None
    login_submit: str | None = None
    dismiss: tuple[str, ...] = ()
    fallbacks: bool = True
    send_click: SendClick = "direct"
    final_error_text: tuple[str, ...] = ()
    final_error_text_builtin: bool = True
    challenge_text: tuple[str, ...] = ()
    #: The answer's stream: the top-level ``stream_url`` key or ``url`` in the ``[stream]`` table (one of them).
    stream_url: tuple[str, ...] = ()
    #: How to read the answer out of that stream (the ``[stream]`` table without its ``url``); None: the
    #: answer is read from the page only.
    stream: StreamSpec | None = None
    #: The date (YYYY-MM-DD) the adapter's knowledge of its site was last revised; "" when not given.
    version: str = ""
    #: The site's thinking shown on the page (read apart from the answer and removed from it); None: none.
    reasoning: Selector | None = None
    #: A prompt longer than this many characters is attached as a file (``attach``) or refused; None: no limit.
    paste_limit: int | None = None
    #: The page's file input (``input[type=file]``) a prompt over ``paste_limit`` is attached through.
    attach: Selector | None = None
    #: The line typed in place of a prompt that went as an attached file.
    attach_note: str = "The full prompt is in the attached file prompt.txt."
    #: Where it was loaded from (for messages); not a TOML key.
    source: str = ""

    @property
    def effective_login_url(self) -> str:
        return self.login_url or self.url

    @property
    def stop_selector(self) -> Selector | None:
        return self.stop or self.busy

    def selectors(self, key: str) -> list[str]:
        """The selectors of one selector key, in order (empty when the key is not set)."""
        return selector_list(getattr(self, key))

    def busy_matcher(self) -> BusyMatcher:
        """The busy wordings of this site: the built-in ones (unless turned off) plus ``busy_text``."""
        return BusyMatcher.for_site(self.busy_text, builtin=self.busy_text_builtin)

    def final_error_matcher(self) -> FinalErrorMatcher:
        """Error wordings that end a task at once: built-in (unless turned off) plus ``final_error_text``."""
        return FinalErrorMatcher.for_site(self.final_error_text, builtin=self.final_error_text_builtin)

    def challenge_matcher(self) -> ChallengeMatcher:
        """Bot-check wordings of this site: the built-in ones plus ``challenge_text``."""
        return ChallengeMatcher.for_site(self.challenge_text)

    @property
    def reads_stream(self) -> bool:
        """The adapter says how to read the answer out of its stream (a text path or a named decoder)."""
        return self.stream is not None and bool(self.stream.decoder or self.stream.text)

    @property
    def has_login_form(self) -> bool:
        """The adapter names the login form's fields (so stored credentials can be used)."""
        return bool(self.login_user and self.login_password and self.login_submit)


def selector_list(value: Selector | None) -> list[str]:
    """A selector key's value as a list: one selector or several, in order of preference."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def show_selector(value: Selector | None) -> str:
    """A selector key's value for a message: ``'a'`` or ``['a', 'b']``."""
    sels = selector_list(value)
    return repr(sels[0]) if len(sels) == 1 else repr(sels)


# Key -> (kind, required). Kinds: "str" (non-empty), "int", "num" (int or float; never bool), "bool",
# "regexes" (a list of valid regular expressions), "sel" (a selector or a non-empty list of them),
# "sels" (a list of selectors, possibly empty).
_KEYS: dict[str, tuple[str, bool]] = {
    "url": ("str", True),
    "logged_in": ("sel", False),
    "prompt": ("sel", False),
    "answer": ("sel", False),
    "busy": ("sel", False),
    "send": ("sel", False),
    "send_key": ("str", False),
    "settle_ms": ("int", False),
    "max_run_s": ("num", False),
    "name": ("str", False),
    "login_url": ("str", False),
    "new_chat": ("sel", False),
    "error": ("sel", False),
    "answer_format": ("str", False),
    "logged_out": ("sel", False),
    "start_timeout_s": ("num", False),
    "instructions_mode": ("str", False),
    "stop": ("sel", False),
    "page_load_timeout_s": ("num", False),
    "busy_selector": ("sel", False),
    "busy_text": ("regexes", False),
    "busy_text_builtin": ("bool", False),
    "login_user": ("str", False),
    "login_password": ("str", False),
    "login_submit": ("str", False),
    "dismiss": ("sels", False),
    "fallbacks": ("bool", False),
    "send_click": ("str", False),
    "final_error_text": ("regexes", False),
    "final_error_text_builtin": ("bool", False),
    "challenge_text": ("regexes", False),
    "stream_url": ("sels", False),
    "stream": ("table", False),
    "version": ("str", False),
    "reasoning": ("sel", False),
    "paste_limit": ("int", False),
    "attach": ("sel", False),
    "attach_note": ("str", False),
}
_CHOICES: dict[str, tuple[str, ...]] = {
    "answer_format": ("text", "html", "markdown"),
    "instructions_mode": ("prepend", "none"),
    "send_click": ("direct", "checked"),
}
#: What the driver needs when it may not find parts by role (``fallbacks = false``).
_STRICT_KEYS = ("logged_in", "prompt", "answer", "busy")
_LOGIN_FORM_KEYS = ("login_user", "login_password", "login_submit")
_KIND_NAMES = {"str": "a string", "num": "a number", "int": "an integer"}


def _check_value(key: str, kind: str, value: object) -> str | None:
    """One problem with one value, or None."""
    if kind == "bool":
        return None if isinstance(value, bool) else f"{key!r} must be true or false, got {value!r}"
    if kind == "regexes":
        return _check_regexes(key, value)
    if kind == "table":  # its keys are checked by _stream_table
        return None if isinstance(value, dict) else f"{key!r} must be a table ([{key}]), got {value!r}"
    if kind in ("sel", "sels"):
        return _check_selectors(key, value, allow_empty=kind == "sels")
    if kind == "str":
        if key == "version" and isinstance(value, date) and not isinstance(value, datetime):
            return None  # a TOML date (version = 2026-11-30) as well as a string
        if not isinstance(value, str):
            return f"{key!r} must be a string, got {type(value).__name__} {value!r}"
        if not value.strip():
            return f"{key!r} must not be empty"
        if key in _CHOICES and value not in _CHOICES[key]:
            return f"{key!r} must be one of {', '.join(_CHOICES[key])}, got {value!r}"
        if key in ("url", "login_url"):
            return _check_url(key, value)
        if key == "version" and not _is_date(value):
            return f"'version' must be a date as YYYY-MM-DD (when the adapter was last revised), got {value!r}"
        return None
    wrong_float = kind == "int" and isinstance(value, float)
    if isinstance(value, bool) or not isinstance(value, int | float) or wrong_float:
        return f"{key!r} must be {_KIND_NAMES[kind]}, got {type(value).__name__} {value!r}"
    number = float(value)
    if key == "settle_ms" and not SETTLE_MS_RANGE[0] <= number <= SETTLE_MS_RANGE[1]:
        return f"'settle_ms' must be between {SETTLE_MS_RANGE[0]} and {SETTLE_MS_RANGE[1]}, got {value}"
    if number <= 0:
        return f"{key!r} must be greater than 0, got {value}"
    return None


def _is_date(value: str) -> bool:
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) is not None


def _check_selectors(key: str, value: object, *, allow_empty: bool) -> str | None:
    if isinstance(value, str):
        return None if value.strip() else f"{key!r} must not be empty"
    if not isinstance(value, list):
        return f"{key!r} must be a string or a list of strings (CSS selectors), got {type(value).__name__} {value!r}"
    if not value and not allow_empty:
        return f"{key!r} must not be an empty list"
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            return f"{key}[{i}] must be a non-empty string (a CSS selector), got {item!r}"
    return None


def _check_regexes(key: str, value: object) -> str | None:
    if not isinstance(value, list):
        return f"{key!r} must be a list of regular expressions (strings), got {type(value).__name__} {value!r}"
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            return f"{key}[{i}] must be a non-empty string, got {item!r}"
        try:
            re.compile(item, re.IGNORECASE)
        except re.error as exc:
            return f"{key}[{i}] {item!r} is not a valid regular expression: {exc}"
    return None


def _check_url(key: str, value: str) -> str | None:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"{key!r} must be an http(s) URL, got {value!r}"
    return None


def parse_adapter(data: dict[str, Any], source: str, default_name: str = "") -> SiteAdapter:
    """Validate a decoded TOML table and build the adapter; every problem is reported at once."""
    problems: list[str] = []
    for key in data:
        if key not in _KEYS:
            close = difflib.get_close_matches(key, list(_KEYS), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            problems.append(f"unknown key {key!r}{hint}")
    for key, (kind, required) in _KEYS.items():
        if key not in data:
            if required:
                problems.append(f"missing required key {key!r}")
        elif msg := _check_value(key, kind, data[key]):
            problems.append(msg)
    if data.get("fallbacks") is False:
        strict = [k for k in _STRICT_KEYS if k not in data]
        if "send" not in data and "send_key" not in data:
            strict.append("send' or 'send_key")
        if strict:
            problems.append("with fallbacks = false these keys are required: "
                            + ", ".join(repr(k) for k in strict))
    if "send" in data and "send_key" in data:
        problems.append("at most one of 'send' (selector) or 'send_key' (key name) may be set, got both")
    login_keys = [k for k in _LOGIN_FORM_KEYS if k in data]
    if login_keys and len(login_keys) != len(_LOGIN_FORM_KEYS):
        missing = ", ".join(repr(k) for k in _LOGIN_FORM_KEYS if k not in data)
        problems.append(f"the login form needs all of 'login_user', 'login_password', 'login_submit'; "
                        f"missing {missing}")
    if "attach" in data and "paste_limit" not in data:
        problems.append("'attach' needs 'paste_limit' (the prompt length above which the prompt is attached)")
    note = data.get("attach_note", SiteAdapter.attach_note)
    limit = data.get("paste_limit")
    if isinstance(note, str) and isinstance(limit, int) and not isinstance(limit, bool) and len(note) > limit > 0:
        problems.append(f"'attach_note' ({len(note)} characters) must be shorter than 'paste_limit' ({limit})")
    spec, stream_url = _stream_table(data, problems)
    if problems:
        raise AdapterError(source, problems)
    values = dict(data)
    values["stream"] = spec
    if stream_url is not None:
        values["stream_url"] = stream_url
    if "version" in values:
        values["version"] = str(values["version"])
    for key in ("max_run_s", "start_timeout_s", "page_load_timeout_s"):
        if key in values:
            values[key] = float(values[key])
    for key in ("busy_text", "final_error_text", "challenge_text"):
        if key in values:
            values[key] = tuple(values[key])
    for key, (kind, _required) in _KEYS.items():
        if kind in ("sel", "sels") and isinstance(values.get(key), list):
            values[key] = tuple(values[key])
        elif kind == "sels" and isinstance(values.get(key), str):
            values[key] = (values[key],)
    values.setdefault("name", default_name)
    return SiteAdapter(source=source, **values)


def _stream_table(data: dict[str, Any], problems: list[str]) -> tuple[StreamSpec | None, Any]:
    """The ``[stream]`` table: its reading keys as a :class:`StreamSpec` (None when it has none) and its
    ``url`` (None when not set there), each problem named ``stream.<key>``. The URL has one owner,
    ``SiteAdapter.stream_url``: set it at the top level or in the table, not in both."""
    table = data.get("stream")
    if not isinstance(table, dict):
        return None, None
    keys = dict(table)
    url = keys.pop("url", None)
    if url is not None:
        if msg := _check_selectors("stream.url", url, allow_empty=True):
            problems.append(msg)
        if "stream_url" in data:
            problems.append("'stream_url' and 'stream.url' name the same thing: set one of them")
    if not keys:
        return None, url
    try:
        return parse_stream_spec(keys), url
    except StreamSpecError as exc:
        problems.append(f"stream.{exc.key}: {exc.message}")
        return None, url


def load_adapter(path: Path | str) -> SiteAdapter:
    """Read and validate one adapter file; raises :class:`AdapterError` for any user mistake."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise AdapterError(str(p), [f"not valid TOML: {exc}"]) from None
    except OSError as exc:
        raise AdapterError(str(p), [f"cannot be read: {exc.strerror or exc}"]) from None
    return parse_adapter(data, str(p), default_name=p.stem)


def load_adapters(
    builtin_dir: Path,
    user_dir: Path | None = None,
    *,
    errors: list[AdapterError] | None = None,
) -> dict[str, SiteAdapter]:
    """All adapters by file stem; a user file replaces the built-in one of the same stem.

    A broken file raises, unless ``errors`` is given: then it is appended there and skipped, so one
    bad user file does not take every other site down with it. A broken user override does NOT
    fall back to the built-in file of that stem: the operator meant to replace it.
    """
    files: dict[str, Path] = {}
    for folder in (builtin_dir, user_dir):
        if folder is not None and folder.is_dir():
            for f in sorted(folder.glob("*.toml")):
                files[f.stem] = f
    result: dict[str, SiteAdapter] = {}
    for stem, f in files.items():
        try:
            result[stem] = load_adapter(f)
        except AdapterError as exc:
            if errors is None:
                raise
            errors.append(exc)
    return result


def with_url(adapter: SiteAdapter, url: str) -> SiteAdapter:
    """The same site at another URL (a profile may point at a mirror, another port, or a specific
    model page).

    ``login_url`` follows: unset, it is the new URL; set on the same origin (scheme, host, port)
    as the old URL, it moves to the new origin with its path kept; on another origin (a separate
    login domain) it stays as it is.
    """
    if msg := _check_url("url", url):
        raise AdapterError(adapter.source or adapter.name, [msg])
    login_url = adapter.login_url
    if login_url:
        old, new, login = urlsplit(adapter.url), urlsplit(url), urlsplit(login_url)
        if (login.scheme, login.netloc) == (old.scheme, old.netloc):
            login_url = urlunsplit(login._replace(scheme=new.scheme, netloc=new.netloc))
    return replace(adapter, url=url, login_url=login_url)


def compose_prompt(adapter: SiteAdapter, content: str, instructions: str | None) -> str:
    """The exact text to type. ``instructions`` is None when ``need_empty_prompt`` is on
    (:meth:`TaskSpec.effective_instructions`), so reasoning models get the content alone."""
    if instructions and instructions.strip() and adapter.instructions_mode == "prepend":
        return f"{instructions.rstrip()}\n\n{content}"
    return content


# Keep the key table and the dataclass in step (a cheap guard against adding one without the other).
assert set(_KEYS) == {f.name for f in fields(SiteAdapter)} - {"source"}, "adapter keys out of sync"
