"""Where things live: the data dir (database, browser profiles, evidence, user site adapters)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from mediadesk.config.location import PgLocation, SqliteLocation, StoreLocation, parse_location
from mediadesk.core.paths import evidence_name
from mediadesk.files.safe import ensure_private_dir


def resources_dir() -> Path:
    """The bundled ``resources/`` folder (site adapters, demo batch, icons, translations)."""
    here = Path(__file__).resolve().parents[1]  # the mediadesk package (this file is mediadesk/config/workspace.py)
    frozen = getattr(sys, "_MEIPASS", None) if getattr(sys, "frozen", False) else None
    if frozen:  # the packaged app (PyInstaller, packaging/mediadesk.spec): <_internal>/resources
        bundled = Path(frozen) / "resources"
        if bundled.is_dir():
            return bundled
    for cand in (here.parent / "resources", here / "resources", Path(sys.prefix) / "share" / "mediadesk" / "resources"):
        if cand.is_dir():
            return cand
    return here.parent / "resources"


@dataclass(frozen=True)
class Workspace:
    data_dir: Path
    #: the SQLite file (the embedded default store; unused when :attr:`db_url` is set)
    db_path: Path
    #: team mode: a PostgreSQL database instead of the SQLite file (``--db postgresql://...`` or the
    #: config's ``db_url``); the data dir still holds browser profiles and evidence
    db_url: PgLocation | None = None

    @property
    def location(self) -> StoreLocation:
        """Where the task store lives (what ``open_store``, ``TaskReader`` and exports take)."""
        return self.db_url if self.db_url is not None else SqliteLocation(self.db_path)

    @classmethod
    def resolve(
        cls, *, data_dir: Path | None = None, db_path: Path | None = None, db: str | Path | None = None,
        db_url: str | None = None,
    ) -> Workspace:
        """``data_dir``: explicit, else $MEDIADESK_DATA_DIR, else the platform's user data dir.
        ``db``: ``--db`` as given (a file path, or a ``postgresql://`` URL); else ``db_path``; else
        ``db_url`` (the config's); else ``<data dir>/mediadesk.db``.

        The data dir may be a link of the user's (it is resolved); the database file itself is not resolved,
        so a link there is seen, and refused, when the store opens it."""
        pg: PgLocation | None = None
        if db is not None:
            loc = parse_location(db)
            if isinstance(loc, PgLocation):
                pg = loc
            else:
                db_path = loc.path
        elif db_path is None and db_url is not None:
            loc = parse_location(db_url)
            if not isinstance(loc, PgLocation):
                raise ValueError("db_url must be a postgresql:// URL")
            pg = loc
        if data_dir is None:
            env = os.environ.get("MEDIADESK_DATA_DIR")
            data_dir = Path(env) if env else Path(platformdirs.user_data_dir("mediadesk", appauthor=False))
        data_dir = data_dir.expanduser().resolve()
        if db_path:
            db_path = db_path.expanduser()
            file = db_path.parent.resolve() / db_path.name
        else:
            file = data_dir / "mediadesk.db"
        return cls(data_dir=data_dir, db_path=file, db_url=pg)

    def ensure(self) -> Workspace:
        """Create the folders, private (0700) whatever the umask: the data dir, ``profiles/`` and
        ``evidence/`` (tightened when older versions left them 0755), and the folder of ``--db``.
        An existing data dir is the user's: checked (a folder of theirs), not chmod-ed.
        Raises :class:`~mediadesk.files.safe.UnsafePathError` for a link, a file, or another user's folder."""
        ensure_private_dir(self.data_dir, tighten=False, what="data dir")
        ensure_private_dir(self.profiles_dir, what="browser profiles folder")
        ensure_private_dir(self.evidence_dir, what="evidence folder")
        ensure_private_dir(self.db_path.parent, ours=False)
        return self

    @property
    def profiles_dir(self) -> Path:
        return self.data_dir / "profiles"

    @property
    def evidence_dir(self) -> Path:
        return self.data_dir / "evidence"

    @property
    def sites_dir(self) -> Path:
        return self.data_dir / "sites"

    def user_sites_dir(self, chosen: Path | None) -> Path:
        """Where the operator's site adapters live: the config's ``browser.sites_dir`` (``chosen``), else
        :attr:`sites_dir`."""
        return chosen or self.sites_dir

    def account_evidence_dir(self, account: str) -> Path:
        """An account's own evidence (not a task's): the screenshot of the bot check it waits on. The
        ``accounts~`` folder is a name no task's evidence folder can have (see ``evidence_name``)."""
        return self.evidence_dir / "accounts~" / evidence_name(account)

    def challenge_screenshot(self, account: str) -> Path:
        """Where the screenshot of the bot check ``account`` waits on is kept (the latest one)."""
        return self.account_evidence_dir(account) / "challenge.png"

    def account_profile_dir(self, account: str, configured: Path | None = None) -> Path:
        return configured if configured is not None else self.profiles_dir / account
