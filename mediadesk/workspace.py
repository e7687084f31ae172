"""Where things live: the data dir (database, browser profiles, evidence, user site adapters)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import platformdirs


def resources_dir() -> Path:
    """The bundled ``resources/`` folder (site adapters, demo batch, icons, translations)."""
    here = Path(__file__).resolve().parent
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
        """``data_dir``: explicit, else $MEDIADESK_DATA_DIR, else the platform's user data dir."""
        if data_dir is None:
            env = os.environ.get("MEDIADESK_DATA_DIR")
            data_dir = Path(env) if env else Path(platformdirs.user_data_dir("mediadesk", appauthor=False))
        data_dir = data_dir.expanduser().resolve()
        db = (db_path.expanduser().resolve() if db_path else data_dir / "mediadesk.db")
        return cls(data_dir=data_dir, db_path=db)

    def ensure(self) -> Workspace:
        self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
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
