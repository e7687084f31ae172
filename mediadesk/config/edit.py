"""Editing the config file in place: endpoints, profiles and accounts, keeping the operator's text.

The TOML file stays the source of truth. :class:`ConfigDoc` wraps a round-trip (tomlkit) document,
so untouched comments, order and formatting come back byte for byte. The WHOLE result is validated by
the real loader (:func:`mediadesk.config.model.parse_config`) before writing, its messages mapped to
entries and keys (:class:`FieldError`). Saves are atomic and private
(:func:`mediadesk.files.safe.write_private_file`) and refuse a file changed on disk since loading.
Qt-free: the Setup editor and the CLI share it.
"""

from __future__ import annotations

import copy
import errno
import hashlib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import tomlkit
import tomlkit.exceptions
from tomlkit.items import AoT, Item, Table

from mediadesk.config.messages import ConfigIssue, msg
from mediadesk.config.model import AppConfig, ConfigError, parse_config
from mediadesk.files.safe import O_NOFOLLOW, UnsafePathError, ensure_private_dir, write_private_file

__all__ = [
    "SECTIONS",
    "ConfigChangedOnDisk",
    "ConfigDoc",
    "ConfigInvalid",
    "FieldError",
    "LiveChanges",
    "Section",
    "live_changes",
]

Section = Literal["endpoints", "profiles", "accounts"]
SECTIONS: tuple[Section, ...] = ("endpoints", "profiles", "accounts")

_LOC_RE = re.compile(r"^(endpoints|profiles|accounts)\[(\d+)\](?: \([^()]*\))?(?:\.([A-Za-z_][A-Za-z0-9_]*))?")


@dataclass(frozen=True)
class FieldError:
    """One loader message, placed: ``section``/``index`` name the entry (None: not in an entry),
    ``key`` the key (None: the entry as a whole). ``message`` is the loader's text after the key;
    ``line`` its whole line as the loader prints it (file and key path)."""

    section: Section | None
    index: int | None
    key: str | None
    message: str
    line: str
    #: The same problem as data (message template and values), for a translated display.
    issue: ConfigIssue | None = None


class ConfigInvalid(ConfigError):
    """The edited document does not load; nothing was written."""

    def __init__(self, errors: list[FieldError]) -> None:
        issues = [e.issue for e in errors if e.issue is not None]
        super().__init__("\n".join(e.line for e in errors), issues if len(issues) == len(errors) else ())
        self.errors = errors


class ConfigChangedOnDisk(ConfigError):
    """The file changed (or appeared, or went) since it was loaded; nothing was written."""


def _read_nofollow(path: Path) -> bytes | None:
    """The file's bytes (None: missing); a symlink is refused, never followed."""
    try:
        fd = os.open(path, os.O_RDONLY | O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePathError.symlink(path, "config file") from None
        raise
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


def _digest(raw: bytes | None) -> str | None:
    return None if raw is None else hashlib.sha256(raw).hexdigest()


def _plain(value: Any) -> Any:
    """A tomlkit value as plain Python (what tomllib would give)."""
    return value.unwrap() if hasattr(value, "unwrap") else value


class ConfigDoc:
    """One config file, loaded for editing. Entries are addressed by section and index (their order
    in the file); values are plain Python (str, int, float, bool, list)."""

    def __init__(self, path: Path, raw: bytes | None) -> None:
        self.path = Path(path)
        self._loaded_digest = _digest(raw)
        text = "" if raw is None else raw.decode("utf-8-sig")
        try:
            self._doc = tomlkit.parse(text)
        except tomlkit.exceptions.ParseError as exc:
            raise ConfigError.of([ConfigIssue(str(self.path), None, msg("invalid TOML: {error}", error=str(exc)))]) \
                from None
        self._bom = raw is not None and raw.startswith(b"\xef\xbb\xbf")

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(cls, path: Path | str) -> ConfigDoc:
        """Open ``path`` for editing; a missing file is an empty document (created on save)."""
        path = Path(path)
        try:
            raw = _read_nofollow(path)
        except OSError as exc:
            raise ConfigError.of([ConfigIssue(str(path), None, msg("cannot read config: {error}",
                                                                   error=str(exc.strerror)))]) from None
        try:
            return cls(path, raw)
        except UnicodeDecodeError as exc:
            raise ConfigError.of([ConfigIssue(str(path), None, msg("not UTF-8 text ({reason} at byte {pos})",
                                                                   reason=exc.reason, pos=str(exc.start)))]) from None

    @property
    def exists(self) -> bool:
        return self._loaded_digest is not None

    def text(self) -> str:
        return self._doc.as_string()

    def data(self) -> dict[str, Any]:
        """The document as the loader reads it (through tomllib, as the loader does)."""
        return tomllib.loads(self.text())

    def changed_on_disk(self) -> bool:
        try:
            return _digest(_read_nofollow(self.path)) != self._loaded_digest
        except (OSError, UnsafePathError):
            return True

    # ------------------------------------------------------------------ entries
    def _aot(self, section: Section, create: bool = False) -> AoT | None:
        if section not in SECTIONS:
            raise ValueError(f"unknown section {section!r}")
        item = self._doc.get(section)
        if item is None:
            if not create:
                return None
            aot = tomlkit.aot()
            self._doc.append(section, aot)
            return self._doc[section]
        if not isinstance(item, AoT):
            raise ConfigError(f"{self.path}: {section} must be written as [[{section}]] tables to be edited here")
        return item

    def _table(self, section: Section, index: int) -> Table:
        aot = self._aot(section)
        if aot is None or not 0 <= index < len(aot):
            raise IndexError(f"{section}[{index}]: no such entry")
        table = aot[index]
        assert isinstance(table, Table)
        return table

    def entries(self, section: Section) -> list[dict[str, Any]]:
        aot = self._aot(section)
        return [] if aot is None else [{k: _plain(v) for k, v in t.items()} for t in aot]

    def entry(self, section: Section, index: int) -> dict[str, Any]:
        return {k: _plain(v) for k, v in self._table(section, index).items()}

    def names(self, section: Section) -> list[str]:
        return [str(e.get("name", "")) for e in self.entries(section)]

    def index_of(self, section: Section, name: str) -> int:
        return self.names(section).index(name)

    def add(self, section: Section, values: Mapping[str, Any]) -> int:
        """Append a new entry (keys in the given order; None values left out); return its index."""
        aot = self._aot(section, create=True)
        assert aot is not None
        table = tomlkit.table()
        for k, v in values.items():
            if v is not None:
                table[k] = v
        _insert_table(aot, len(aot), table)
        return len(aot) - 1

    def update(self, section: Section, index: int, values: Mapping[str, Any]) -> None:
        """Set keys of one entry; a None value removes the key. A key whose value does not change is
        not touched (its text stays as written); a changed one keeps its place and its comment."""
        table = self._table(section, index)
        for k, v in values.items():
            if v is None:
                if k in table:
                    del table[k]
                continue
            old = table.item(k) if k in table else None
            if isinstance(old, Item):
                if _plain(old) == v and type(_plain(old)) is type(v):
                    continue
                new = tomlkit.item(v)
                new.trivia.comment_ws = old.trivia.comment_ws
                new.trivia.comment = old.trivia.comment
                new.trivia.trail = old.trivia.trail
                table[k] = new
            elif k in table:
                table[k] = v
            else:
                self._insert_key(table, k, v)

    @staticmethod
    def _insert_key(table: Table, key: str, value: Any) -> None:
        """A new key goes after the entry's last key (before the blank lines that end it)."""
        body = table.value.body
        pos = len(body)
        while pos > 0 and body[pos - 1][0] is None:
            pos -= 1
        if pos == len(body):
            table[key] = value
            return
        tail = body[pos:]
        del body[pos:]
        table[key] = value
        body.extend(tail)

    def duplicate(self, section: Section, index: int, name: str | None = None) -> int:
        """A copy of an entry right after it, under ``name`` (default: a free "<name>-copy"). An
        account's copy gets no ``profile_dir`` (two accounts never share a browser profile)."""
        aot = self._aot(section)
        src = self._table(section, index)
        assert aot is not None
        values = {k: _plain(v) for k, v in src.items()}
        taken = set(self.names(section))
        if name is None:
            base = f"{values.get('name', section)}-copy"
            name, n = base, 2
            while name in taken:
                name, n = f"{base}{n}", n + 1
        values["name"] = name
        if section == "accounts":
            values.pop("profile_dir", None)
        table = tomlkit.table()
        for k, v in values.items():
            table[k] = copy.deepcopy(v)
        _insert_table(aot, index + 1, table)
        return index + 1

    def remove(self, section: Section, index: int) -> None:
        aot = self._aot(section)
        self._table(section, index)  # IndexError when missing
        assert aot is not None
        del aot[index]

    def set_setting(self, table: str, key: str, value: Any) -> None:
        """Set ``key`` of the top-level ``[table]`` (made, at the end, when missing); None removes the key.
        An unchanged value is not touched (its text stays as written)."""
        item = self._doc.get(table)
        if item is None:
            if value is None:
                return
            self._doc.append(table, tomlkit.table())
            item = self._doc[table]
        if not isinstance(item, Table):
            raise ConfigError(f"{self.path}: {table} must be written as a [{table}] table to be edited here")
        if value is None:
            if key in item:
                del item[key]
        elif key not in item or _plain(item[key]) != value:
            item[key] = value

    # ------------------------------------------------------------------ validating, saving
    def validate(self) -> tuple[AppConfig | None, list[FieldError]]:
        """Load the whole document as the app would: (config, []) or (None, errors)."""
        source = str(self.path)
        try:
            data = self.data()
        except tomllib.TOMLDecodeError as exc:
            line = f"{source}: invalid TOML: {exc}"
            issue = ConfigIssue(source, None, msg("invalid TOML: {error}", error=str(exc)))
            return None, [FieldError(None, None, None, f"invalid TOML: {exc}", line, issue)]
        try:
            cfg = parse_config(data, source=source, base_dir=self.path.parent.resolve())
        except ConfigError as exc:
            lines = [line for line in str(exc).splitlines() if line.strip()]
            issues: list[ConfigIssue | None] = list(exc.issues)
            if len(issues) != len(lines):  # a message of several lines: placed, but shown as written
                issues = [None] * len(lines)
            return None, [_place(line, source, issue) for line, issue in zip(lines, issues, strict=True)]
        return cfg, []

    def errors_of(self, section: Section, index: int) -> list[FieldError]:
        return [e for e in self.validate()[1] if e.section == section and e.index == index]

    def save(self, *, force: bool = False) -> AppConfig:
        """Validate, then write atomically (0600, symlink refused). Refuses (nothing written) when the
        document does not load (:class:`ConfigInvalid`) or the file changed on disk since it was
        loaded (:class:`ConfigChangedOnDisk`; ``force`` overwrites it anyway)."""
        cfg, errors = self.validate()
        if errors:
            raise ConfigInvalid(errors)
        assert cfg is not None
        if not force and self.changed_on_disk():
            raise ConfigChangedOnDisk(
                f"{self.path}: the file changed on disk since it was opened here; nothing was written. "
                "Reload it (your edits here are lost) or save again to overwrite the other change"
            )
        payload = self.text().encode("utf-8")
        if self._bom:
            payload = b"\xef\xbb\xbf" + payload
        if not self.path.parent.exists():  # a first config in a new folder: made private (0700)
            ensure_private_dir(self.path.parent, ours=False)
        write_private_file(self.path, payload, "config file")
        self._loaded_digest = _digest(payload)
        return cfg


def _insert_table(aot: AoT, pos: int, table: Table) -> None:
    """Put ``table`` at ``pos``. The comments and blank lines that end the entry before it (they
    introduce what follows, e.g. ``# ---- profiles``) move to the end of the new entry, so they keep
    their place above the next header; the entry before ends with one blank line."""
    if pos > 0:
        prev = aot[pos - 1]
        body = prev.value.body
        cut = len(body)
        while cut > 0 and body[cut - 1][0] is None:
            cut -= 1
        tail = [item for _, item in body[cut:]]
        del body[cut:]
        prev.add(tomlkit.nl())
        if tail and tail[0].as_string() == "\n":
            tail = tail[1:]
        table.add(tomlkit.nl())
        for item in tail:
            table.value.append(None, item)
    aot.insert(pos, table)


def _place(line: str, source: str, issue: ConfigIssue | None = None) -> FieldError:
    rest = line.removeprefix(f"{source}: ")
    m = _LOC_RE.match(rest)
    if m is None:
        key_path, sep, text = rest.partition(": ")
        return FieldError(None, None, key_path if sep else None, text if sep else rest, line, issue)
    section: Section = m.group(1)  # type: ignore[assignment]
    text = rest[m.end():].removeprefix(": ")
    return FieldError(section, int(m.group(2)), m.group(3), text, line, issue)


@dataclass(frozen=True)
class LiveChanges:
    """What a saved config changes for a running console: what it can apply now, what needs a restart."""

    #: (profile, concurrency): API concurrency the scheduler applies live.
    concurrency: tuple[tuple[str, int], ...] = ()
    #: (account, enabled): the account switch, applied live.
    enabled: tuple[tuple[str, bool], ...] = ()
    #: (what, name, change) that take effect when the lanes restart: what is "endpoint", "profile"
    #: or "account"; change is "added", "removed" or "changed".
    restart: tuple[tuple[str, str, str], ...] = ()
    #: (profile, need_empty_prompt): applied live (the next task of the profile sends accordingly).
    empty_prompt: tuple[tuple[str, bool], ...] = ()
    #: (endpoint, concurrency): an explicit endpoint's gate, applied live.
    endpoint_concurrency: tuple[tuple[str, int], ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.concurrency or self.enabled or self.empty_prompt or self.endpoint_concurrency
                    or self.restart)


def live_changes(old: AppConfig, new: AppConfig) -> LiveChanges:
    """Sort the differences between two configs: API concurrency (a profile's or an endpoint's),
    ``need_empty_prompt`` and account enable are applied live; anything else in endpoints, profiles
    and accounts (added, removed or changed), and in ``[browser]``, needs a restart of the lanes."""
    conc: list[tuple[str, int]] = []
    enabled: list[tuple[str, bool]] = []
    empty: list[tuple[str, bool]] = []
    ep_conc: list[tuple[str, int]] = []
    restart: list[tuple[str, str, str]] = []
    old_p = {p.name: p for p in old.profiles}
    new_p = {p.name: p for p in new.profiles}
    for name in new_p.keys() - old_p.keys():
        restart.append(("profile", name, "added"))
    for name in old_p.keys() - new_p.keys():
        restart.append(("profile", name, "removed"))
    for name in sorted(old_p.keys() & new_p.keys()):
        a, b = old_p[name], new_p[name]
        if a.kind == b.kind == "api" and a.concurrency != b.concurrency and b.concurrency is not None:
            conc.append((name, b.concurrency))
        if a.need_empty_prompt != b.need_empty_prompt:
            empty.append((name, b.need_empty_prompt))
        live = {"concurrency": None, "need_empty_prompt": False}
        if a.model_copy(update=live) != b.model_copy(update=live) or (
            b.concurrency is None and a.concurrency is not None
        ):
            restart.append(("profile", name, "changed"))
    old_a = {a.name: a for a in old.accounts}
    new_a = {a.name: a for a in new.accounts}
    for name in new_a.keys() - old_a.keys():
        restart.append(("account", name, "added"))
    for name in old_a.keys() - new_a.keys():
        restart.append(("account", name, "removed"))
    for name in sorted(old_a.keys() & new_a.keys()):
        x, y = old_a[name], new_a[name]
        if x.enabled != y.enabled:
            enabled.append((name, y.enabled))
        if x.model_copy(update={"enabled": True}) != y.model_copy(update={"enabled": True}):
            restart.append(("account", name, "changed"))
    old_e = {e.name: e for e in old.endpoints}
    new_e = {e.name: e for e in new.endpoints}
    for name in sorted(old_e.keys() | new_e.keys()):
        was, now = old_e.get(name), new_e.get(name)
        if was is not None and now is not None and was.concurrency != now.concurrency:
            ep_conc.append((name, now.concurrency))
            was = was.model_copy(update={"concurrency": now.concurrency})
        if was != now:
            what = "added" if name not in old_e else "removed" if name not in new_e else "changed"
            restart.append(("endpoint", name, what))
    if old.browser != new.browser:  # the program, its flags or the sites folder: the web lanes start anew
        restart.append(("browser", "", "changed"))
    return LiveChanges(tuple(conc), tuple(enabled), tuple(sorted(restart)), tuple(empty), tuple(ep_conc))
