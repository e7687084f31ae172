"""Where the task store lives: an SQLite file (the embedded default) or a PostgreSQL database (team mode).

``--db`` and the config's ``db_url`` are parsed here: ``postgresql://...`` / ``postgres://...`` is a
PostgreSQL database, anything else a file path. A password written in the URL is never shown:
:attr:`PgLocation.display` (used by every message and ``repr``) masks it; prefer ``PGPASSWORD`` or
``~/.pgpass``, which libpq reads by itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

__all__ = ["PG_SCHEMES", "PgLocation", "SqliteLocation", "StoreLocation", "as_location", "mask_url",
           "parse_location", "password_in_argv_message"]

PG_SCHEMES = ("postgresql", "postgres")


_QUERY_PASSWORD = re.compile(r"(?i)((?:^|&)\s*password\s*=)[^&]*")


def mask_url(url: str) -> str:
    """``url`` with the password (if any: ``user:PASSWORD@`` or libpq's ``?password=``) replaced by
    ``***``; the rest as written."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
    except ValueError:
        return "<an invalid database URL>"
    if parts.query and _QUERY_PASSWORD.search(parts.query):
        parts = parts._replace(query=_QUERY_PASSWORD.sub(r"\1***", parts.query))
        url = urlunsplit(parts)
    if "@" not in netloc:
        return url
    userinfo, _, hostinfo = netloc.rpartition("@")
    if ":" not in userinfo:
        return url
    user = userinfo.split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{hostinfo}"))


def password_in_argv_message(text: str | None) -> str | None:
    """Why a ``--db`` value cannot be used as given, when it is a PostgreSQL URL holding a password
    (``user:secret@`` or ``?password=``): a command line is visible to every local user (``ps``,
    ``/proc/PID/cmdline``) for the whole run. None when there is nothing to refuse."""
    if not text or not is_pg_url(text):
        return None
    try:
        parts = urlsplit(text)
        has_password = parts.password is not None or any(
            key.strip().lower() == "password" for key, _ in parse_qsl(parts.query, keep_blank_values=True))
    except ValueError:
        return None  # not a URL we can read: the store says so when it opens it
    if not has_password:
        return None
    shown = mask_url(text)
    return (f"--db {shown} holds a password, and a command line is visible to every user of this machine "
            "(ps) for the whole run: remove it from the URL and give it to libpq another way, in the "
            "PGPASSWORD environment variable or in ~/.pgpass (mode 0600), or in the config's db_url")


@dataclass(frozen=True)
class SqliteLocation:
    path: Path
    dialect: Literal["sqlite"] = "sqlite"

    @property
    def display(self) -> str:
        return str(self.path)

    def __str__(self) -> str:
        return self.display


@dataclass(frozen=True)
class PgLocation:
    #: the URL as given (it may hold a password: never print it, use :attr:`display`)
    url: str = field(repr=False)
    dialect: Literal["postgresql"] = "postgresql"

    def __post_init__(self) -> None:
        parts = urlsplit(self.url)
        if parts.scheme not in PG_SCHEMES:
            raise ValueError(f"not a PostgreSQL URL: {mask_url(self.url)}")

    @property
    def display(self) -> str:
        """The URL with its password masked: safe for messages and logs."""
        return mask_url(self.url)

    @property
    def password(self) -> str | None:
        pw = urlsplit(self.url).password
        return unquote(pw) if pw else None

    @property
    def host_port(self) -> str:
        """``host:port`` as libpq will use it (defaults: the local socket, 5432)."""
        parts = urlsplit(self.url)
        try:
            port = parts.port or 5432
        except ValueError:
            port = 5432
        return f"{parts.hostname or 'localhost'}:{port}"

    @property
    def dbname(self) -> str:
        return unquote(urlsplit(self.url).path.lstrip("/")) or (urlsplit(self.url).username or "")

    def __repr__(self) -> str:
        return f"PgLocation({self.display!r})"

    def __str__(self) -> str:
        return self.display


StoreLocation = SqliteLocation | PgLocation


def is_pg_url(text: str) -> bool:
    return text.split("://", 1)[0].lower() in PG_SCHEMES and "://" in text


def parse_location(text: str | Path) -> StoreLocation:
    """``postgresql://user@host[:port]/db`` (or ``postgres://``) -> :class:`PgLocation`; anything else is
    the path of an SQLite file (``~`` expanded; the file itself is not resolved, so a link there is seen
    and refused when the store opens it)."""
    if isinstance(text, str) and is_pg_url(text):
        scheme, rest = text.split("://", 1)
        return PgLocation(f"{scheme.lower()}://{rest}")
    path = Path(text).expanduser()
    return SqliteLocation(path.parent.resolve() / path.name)


def as_location(where: StoreLocation | Path | str) -> StoreLocation:
    """A location from what callers pass (a location, a path, or ``--db`` text)."""
    if isinstance(where, SqliteLocation | PgLocation):
        return where
    if isinstance(where, str) and is_pg_url(where):
        return parse_location(where)
    return SqliteLocation(Path(where))
