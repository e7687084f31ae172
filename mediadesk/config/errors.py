"""How a config's problems are told: as data, in TOML words, keyed to the file and the key.

Validators in :mod:`mediadesk.config.model` raise :class:`Problem` (about the key they check) or
:class:`KeyProblem` (a cross-field check that names its own key); :func:`issues_of` turns pydantic's
:class:`~pydantic.ValidationError` into :class:`~mediadesk.config.messages.ConfigIssue` lines, saying
what a key expected and what it got (``expected an integer, got a string ("3")``) rather than
pydantic's Python words. Kept apart from the model so the model reads as the file's shape and rules.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from mediadesk.config.messages import ConfigIssue, Msg, msg

__all__ = ["KeyProblem", "Problem", "issues_of", "problem"]


class Problem(ValueError):
    """A validator's complaint with its message as data (``str()`` is the English text)."""

    def __init__(self, message: Msg) -> None:
        super().__init__(message.english())
        self.message = message


def problem(template: str, **params: str | Msg) -> Problem:
    return Problem(msg(template, **params))


class KeyProblem(ValueError):
    """A cross-field error that knows its key path."""

    def __init__(self, key: str, message: Msg) -> None:
        super().__init__(message.english())
        self.key = key
        self.message = message


def _fmt_loc(loc: tuple[Any, ...], data: dict[str, Any]) -> str:
    out = ""
    node: Any = data
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            try:
                node = node[part]
                if isinstance(node, dict) and isinstance(node.get("name"), str):
                    out += f" ({node['name']})"
            except (IndexError, KeyError, TypeError):
                node = None
        else:
            if part in ("function-after", "function-before") or str(part).startswith("function-"):
                continue
            out += ("." if out else "") + str(part)
            node = node.get(part) if isinstance(node, dict) else None
    return out or "(top level)"


#: What a key of each pydantic type error expects, in TOML words.
_EXPECTED = {
    "int_type": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "bool_type": "true or false",
    "string_type": "a string",
    "path_type": "a path (a string)",
    "list_type": "a list",
    "tuple_type": "a list",
    "dict_type": "a table",
    "model_type": "a table",
    "model_attributes_type": "a table",
}


def _toml_kind(value: object) -> Msg:
    """The TOML type of a value, with the value itself when it is short (never a long string:
    whatever was pasted there is not echoed)."""
    if isinstance(value, bool):
        return msg("a boolean ({value})", value="true" if value else "false")
    if isinstance(value, int):
        return msg("an integer ({value})", value=str(value))
    if isinstance(value, float):
        return msg("a float ({value})", value=repr(value))
    if isinstance(value, str):
        return msg('a string ("{value}")', value=value) if len(value) <= 20 and value.isprintable() else msg("a string")
    if isinstance(value, list):
        return msg("a list")
    if isinstance(value, dict):
        return msg("a table")
    return msg("a {type}", type=type(value).__name__)


def _type_message(kind: str, value: object) -> Msg:
    """``expected an integer, got a string ("3") (write it without quotes)``."""
    hint: str | Msg = ""
    if isinstance(value, str):
        text = value.strip()
        if kind in ("int_type", "float_type") and re.fullmatch(r"[+-]?\d+(\.\d*)?([eE][+-]?\d+)?", text):
            hint = msg(" (write the number without quotes)")
        elif kind == "bool_type" and text.lower() in ("true", "false"):
            hint = msg(" (write {value} without quotes)", value=text.lower())
    elif kind == "bool_type" and isinstance(value, int) and value in (0, 1):
        hint = msg(" (write true or false)")
    elif kind == "int_from_float" or (kind == "int_type" and isinstance(value, float)):
        hint = msg(" (write a whole number without a decimal point)")
    return msg("expected {expected}, got {got}{hint}", expected=msg(_EXPECTED[kind]), got=_toml_kind(value), hint=hint)


#: pydantic's own messages as templates: error type -> (template, the ctx keys it takes). Used only
#: when the template gives back pydantic's exact words; anything else is shown as pydantic wrote it.
_PYDANTIC = {
    "missing": ("Field required", ()),
    "greater_than_equal": ("Input should be greater than or equal to {ge}", ("ge",)),
    "greater_than": ("Input should be greater than {gt}", ("gt",)),
    "less_than_equal": ("Input should be less than or equal to {le}", ("le",)),
    "less_than": ("Input should be less than {lt}", ("lt",)),
    "literal_error": ("Input should be {expected}", ("expected",)),
}


def _ctx_text(v: object) -> str:
    """A limit as pydantic prints it (``0.0`` as ``0``)."""
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def _pydantic_message(err: Mapping[str, Any]) -> Msg:
    text = str(err["msg"]).removeprefix("Value error, ")
    known = _PYDANTIC.get(str(err["type"]))
    if known is not None:
        ctx = err.get("ctx") or {}
        template, keys = known
        if all(k in ctx for k in keys):
            params: dict[str, str | Msg] = {k: _ctx_text(ctx[k]) for k in keys}
            choices = re.fullmatch(r"(.+) or (.+)", str(params.get("expected", "")))
            if choices:  # literal_error: "'api' or 'web'" (the choices stay as written)
                params["expected"] = msg("{choices} or {last}", choices=choices[1], last=choices[2])
            m = msg(template, **params)
            if m.english() == text:
                return m
    return msg("{message}", message=text)


def issues_of(exc: ValidationError, data: dict[str, Any], source: str) -> list[ConfigIssue]:
    """One issue per error of ``exc`` (raised validating ``data``, read from ``source``)."""
    issues = []
    for err in exc.errors():
        ctx_err = (err.get("ctx") or {}).get("error")
        if isinstance(ctx_err, KeyProblem):
            issues.append(ConfigIssue(source, ctx_err.key, ctx_err.message))
            continue
        key = _fmt_loc(tuple(err["loc"]), data)
        if isinstance(ctx_err, Problem):
            message = ctx_err.message
        elif err["type"] == "extra_forbidden":
            message = msg("unknown key (check the spelling; see the README for all keys)")
        elif err["type"] in _EXPECTED:
            message = _type_message(err["type"], err.get("input"))
        else:
            message = _pydantic_message(err)
        issues.append(ConfigIssue(source, key, message))
    return issues
