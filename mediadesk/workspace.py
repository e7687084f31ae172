"""Where things live: the data dir (database, browser profiles, evidence, user site adapters)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from mediadesk.safefiles import ensure_private_dir


def resources_dir() -> Path:
    """The bundled ``resources/`` folder (site adapters, demo batch, icons, translations)."""
    here = Path(__file__).resolve().parent
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
    db_path: Path

    @classmethod
    def resolve(cls, *, data_dir: Path | None = None, db_path: Path | None = None) -> Workspace:
        """``data_dir``: explicit, else $MEDIADESK_DATA_DIR, else the platform's user data dir.

        The data dir may be a link of the user's (it is resolved); the database file itself is not resolved,
        so a link there is seen, and refused, when the store opens it."""
        if data_dir is None:
            env = os.environ.get("MEDIADESK_DATA_DIR")
            data_dir = Path(env) if env else Path(platformdirs.user_data_dir("mediadesk", appauthor=False))
        data_dir = data_dir.expanduser().resolve()
        if db_path:
            db_path = db_path.expanduser()
            db = db_path.parent.resolve() / db_path.name
        else:
            db = data_dir / "mediadesk.db"
        return cls(data_dir=data_dir, db_path=db)

    def ensure(self) -> Workspace:
        """Create the folders, private (0700) whatever the umask: the data dir, ``profiles/`` and
        ``evidence/`` (tightened when older versions left them 0755), and the folder of ``--db``.
        An existing data dir is the user's: checked (a folder of theirs), not chmod-ed.
        Raises :class:`~mediadesk.safefiles.UnsafePathError` for a link, a file, or another user's folder."""
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

    def account_profile_dir(self, account: str, configured: Path | None = None) -> Path:
        return configured if configured is not None else self.profiles_dir / account
