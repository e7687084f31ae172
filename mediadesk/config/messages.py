"""Config error messages as data: a template and its values, in English or in the console's language.

The loader (:mod:`mediadesk.config.model`) reports a :class:`Msg`: an English template (its id and
translators' source, context :data:`CONTEXT`) plus values. ``Msg.english()`` is what the CLI prints
and ``str(ConfigError)`` holds; ``Msg.render(tr)`` translates it. Nested :class:`Msg` values are
translated too; plain values never are. Qt-free. ``QT_TRANSLATE_NOOP`` marks every template for
``pyside6-lupdate``; a test fails when the loader uses a template missing from :data:`TEMPLATES`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Union

__all__ = ["CONTEXT", "TEMPLATES", "ConfigIssue", "Msg", "msg"]

#: The translation context of every template.
CONTEXT = "ConfigIssues"


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """Marks ``text`` for lupdate; returns it unchanged."""
    return text



#: Every template the loader uses (the test checks the loader against this list).
TEMPLATES: tuple[str, ...] = (
    # ---- reading the file
    QT_TRANSLATE_NOOP("ConfigIssues", "config file not found"),
    QT_TRANSLATE_NOOP("ConfigIssues", "cannot read config: {error}"),
    QT_TRANSLATE_NOOP("ConfigIssues", "not UTF-8 text ({reason} at byte {pos})"),
    QT_TRANSLATE_NOOP("ConfigIssues", "invalid TOML: {error}"),
    # ---- pydantic's own checks (same words as pydantic writes them)
    QT_TRANSLATE_NOOP("ConfigIssues", "unknown key (check the spelling; see the README for all keys)"),
    QT_TRANSLATE_NOOP("ConfigIssues", "Field required"),
    QT_TRANSLATE_NOOP("ConfigIssues", "Input should be greater than or equal to {ge}"),
    QT_TRANSLATE_NOOP("ConfigIssues", "Input should be greater than {gt}"),
    QT_TRANSLATE_NOOP("ConfigIssues", "Input should be less than or equal to {le}"),
    QT_TRANSLATE_NOOP("ConfigIssues", "Input should be less than {lt}"),
    QT_TRANSLATE_NOOP("ConfigIssues", "Input should be {expected}"),
    QT_TRANSLATE_NOOP("ConfigIssues", "{choices} or {last}"),
    QT_TRANSLATE_NOOP("ConfigIssues", "{message}"),
    # ---- a value of the wrong TOML type
    QT_TRANSLATE_NOOP("ConfigIssues", "expected {expected}, got {got}{hint}"),
    QT_TRANSLATE_NOOP("ConfigIssues", "an integer"),
    QT_TRANSLATE_NOOP("ConfigIssues", "a number"),
    QT_TRANSLATE_NOOP("ConfigIssues", "true or false"),
    QT_TRANSLATE_NOOP("ConfigIssues", "a string"),
    QT_TRANSLATE_NOOP("ConfigIssues", "a path (a string)"),
    QT_TRANSLATE_NOOP("ConfigIssues", "a list"),
    QT_TRANSLATE_NOOP("ConfigIssues", "a table"),
    QT_TRANSLATE_NOOP("ConfigIssues", "a boolean ({value})"),
    QT_TRANSLATE_NOOP("ConfigIssues", "an integer ({value})"),
    QT_TRANSLATE_NOOP("ConfigIssues", "a float ({value})"),
    QT_TRANSLATE_NOOP("ConfigIssues", "a string (\"{value}\")"),
    QT_TRANSLATE_NOOP("ConfigIssues", "a {type}"),
    QT_TRANSLATE_NOOP("ConfigIssues", " (write the number without quotes)"),
    QT_TRANSLATE_NOOP("ConfigIssues", " (write {value} without quotes)"),
    QT_TRANSLATE_NOOP("ConfigIssues", " (write true or false)"),
    QT_TRANSLATE_NOOP("ConfigIssues", " (write a whole number without a decimal point)"),
    # ---- our validators
    QT_TRANSLATE_NOOP("ConfigIssues", "use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"),
    QT_TRANSLATE_NOOP("ConfigIssues", "must be the NAME of an environment variable (the key itself never goes in the "
                                      "config)"),
    QT_TRANSLATE_NOOP("ConfigIssues", "must be the NAME of an environment variable (the value itself never goes in "
                                      "the config)"),
    QT_TRANSLATE_NOOP("ConfigIssues", "must be a keyring entry 'service:username' (the value never goes in the "
                                      "config)"),
    QT_TRANSLATE_NOOP("ConfigIssues", "min_calls ({min_calls}) must not exceed window ({window})"),
    QT_TRANSLATE_NOOP("ConfigIssues", "{domain}: requests per minute must be a number >= 0"),
    QT_TRANSLATE_NOOP("ConfigIssues", "base_url must start with http:// or https://"),
    QT_TRANSLATE_NOOP("ConfigIssues", "stale_after_s ({stale_after_s}) must be greater than interval_s ({interval_s})"),
    QT_TRANSLATE_NOOP("ConfigIssues", "{key} belongs to the endpoint {endpoint}; remove it here"),
    QT_TRANSLATE_NOOP("ConfigIssues", "an api profile needs model"),
    QT_TRANSLATE_NOOP("ConfigIssues", "an api profile needs {keys} (or endpoint and model)"),
    QT_TRANSLATE_NOOP("ConfigIssues", "{key} is for web profiles only"),
    QT_TRANSLATE_NOOP("ConfigIssues", "{key} is for api profiles only"),
    QT_TRANSLATE_NOOP("ConfigIssues", "a web profile needs site (the name of a site adapter)"),
    QT_TRANSLATE_NOOP("ConfigIssues", "web profiles run exactly one task per account "
                      "(a chat account allows one generation at a time); "
                      "remove concurrency and add accounts instead"),
    QT_TRANSLATE_NOOP("ConfigIssues", "fallback must not name the profile itself"),
    QT_TRANSLATE_NOOP("ConfigIssues", "stored credentials need both a user and a password: add {keys}"),
    # ---- names that become file and folder names (mediadesk.config.names)
    QT_TRANSLATE_NOOP("ConfigIssues", "{chars} cannot be in a file or folder name on Windows"),
    QT_TRANSLATE_NOOP("ConfigIssues", "must not end with a dot or a space (Windows drops them from file and folder "
                                      "names)"),
    QT_TRANSLATE_NOOP("ConfigIssues", "{name} is a device name on Windows (CON, PRN, AUX, NUL, COM1-9, LPT1-9, with "
                                      "any extension): no file or folder can have it; choose another name"),
    # ---- active_hours (the texts of mediadesk.core.hours.HOURS_TEMPLATES)
    QT_TRANSLATE_NOOP("ConfigIssues", "use HH:MM-HH:MM ranges separated by commas, e.g. \"22:00-07:00\" or "
                                      "\"09:00-12:00,14:00-18:00\""),
    QT_TRANSLATE_NOOP("ConfigIssues", "{part} is not a range HH:MM-HH:MM (e.g. \"22:00-07:00\")"),
    QT_TRANSLATE_NOOP("ConfigIssues", "{time} is not a time of day (00:00-23:59, or 24:00 as an end)"),
    QT_TRANSLATE_NOOP("ConfigIssues", "{part} is empty (start equals end); for all day leave active_hours out"),
    # ---- prices and budgets (mediadesk.config.spend)
    QT_TRANSLATE_NOOP("ConfigIssues", "currency must be a three-letter code such as \"USD\", \"EUR\" or \"CNY\""),
    QT_TRANSLATE_NOOP("ConfigIssues", "a budget names exactly one of endpoint or profile"),
    QT_TRANSLATE_NOOP("ConfigIssues", "a budget has exactly one of max_cost (money) or max_tokens"),
    # ---- across entries
    QT_TRANSLATE_NOOP("ConfigIssues", "duplicate profile name {name}"),
    QT_TRANSLATE_NOOP("ConfigIssues", "duplicate endpoint name {name}"),
    QT_TRANSLATE_NOOP("ConfigIssues", "duplicate account name {name}"),
    QT_TRANSLATE_NOOP("ConfigIssues", "no endpoint named {name} ({known})"),
    QT_TRANSLATE_NOOP("ConfigIssues", "none defined"),
    QT_TRANSLATE_NOOP("ConfigIssues", "no profile named {name}"),
    QT_TRANSLATE_NOOP("ConfigIssues", "profile {name} is an api profile; accounts are for web"),
    QT_TRANSLATE_NOOP("ConfigIssues", "{name} and {other} ({other_key}) differ only by case: on Windows and macOS "
                                      "these are the same folder (the account's browser profile); rename one"),
    QT_TRANSLATE_NOOP("ConfigIssues", "{name} and {other} ({other_key}) differ only by case: on Windows and macOS "
                                      "these are the same site adapter file; write one the same way in both"),
)

_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")

Value = Union[str, "Msg"]


def _fill(template: str, values: Mapping[str, str]) -> str:
    return _FIELD.sub(lambda m: values.get(m.group(1), m.group(0)), template)


@dataclass(frozen=True)
class Msg:
    """A message: ``template`` (one of :data:`TEMPLATES`) and the values that go in it."""

    template: str
    params: Mapping[str, Value] = field(default_factory=dict)

    def english(self) -> str:
        return _fill(self.template, {k: v.english() if isinstance(v, Msg) else v for k, v in self.params.items()})

    def render(self, tr: Callable[[str], str]) -> str:
        """Through ``tr`` (template -> translation; "" when there is none: the English template)."""
        values = {k: v.render(tr) if isinstance(v, Msg) else v for k, v in self.params.items()}
        return _fill(tr(self.template) or self.template, values)

    def templates(self) -> list[str]:
        """This template and those of the nested messages."""
        out = [self.template]
        for v in self.params.values():
            if isinstance(v, Msg):
                out += v.templates()
        return out

    def __str__(self) -> str:
        return self.english()


def msg(template: str, **params: Value) -> Msg:
    return Msg(template, params)


@dataclass(frozen=True)
class ConfigIssue:
    """One problem in a config: the file (``source``), the key path as the loader prints it
    (``profiles[2] (x).concurrency``; None for the file as a whole) and the message."""

    source: str
    key: str | None
    message: Msg

    def line(self, tr: Callable[[str], str] | None = None) -> str:
        """``<file>: <key>: <message>``, in English (the CLI's words) or through ``tr``."""
        text = self.message.english() if tr is None else self.message.render(tr)
        return f"{self.source}: {self.key}: {text}" if self.key is not None else f"{self.source}: {text}"
