"""The account's SESSION cookies, kept across our own browser restarts.

Chromium drops session cookies (no Expires/Max-Age) whenever it closes, so a site that keeps its login in one
would log the account out on every recycle. The jar (:data:`JAR_NAME`, a private file in the profile, written
atomically) is saved after a login check, after runs (debounced) and at close, and put back right after a
launch, before the first navigation. Only session cookies: Chromium persists the others, and our copy must not
overwrite a newer value. Not Chromium's own session restore: it loses what it had not flushed when the browser
is killed, and reopens old tabs. Cookie values are secrets: never logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import json
import logging
import os
import secrets
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mediadesk.core.log_lines import LOG, LogText
from mediadesk.files.safe import create_private_file
from mediadesk.platform.files import is_private, mode_text, open_binary_readonly, owned_by_us

__all__ = ["JAR_NAME", "SAVE_MIN_INTERVAL_S", "CookieJar", "read_jar", "session_cookies", "write_jar"]

log = logging.getLogger(__name__)

#: The jar, inside the account's profile dir (Chromium's user-data-dir, 0700).
JAR_NAME = ".mediadesk-session-cookies.json"
#: After a run, cookies are read from the browser at most this often (a login check or a close
#: always reads them).
SAVE_MIN_INTERVAL_S = 5.0
_MAX_JAR_BYTES = 4 * 1024 * 1024
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
#: What ``BrowserContext.add_cookies`` takes back, of what ``BrowserContext.cookies`` gives.
_FIELDS = ("name", "value", "domain", "path", "expires", "httpOnly", "secure", "sameSite")
_SAME_SITE = ("Strict", "Lax", "None")


def session_cookies(cookies: list[Any]) -> list[dict[str, Any]]:
    """The session cookies (``expires == -1``) among Playwright cookies, reduced to the fields
    ``add_cookies`` accepts, in a stable order."""
    out: list[dict[str, Any]] = []
    for c in cookies:
        if not isinstance(c, dict) or c.get("expires", -1) != -1:
            continue
        name, domain = c.get("name"), c.get("domain")
        if not isinstance(name, str) or not name or not isinstance(domain, str) or not domain:
            continue
        kept = {k: c[k] for k in _FIELDS if k in c}
        kept["expires"] = -1
        kept.setdefault("path", "/")
        if kept.get("sameSite") not in _SAME_SITE:
            kept.pop("sameSite", None)
        out.append(kept)
    out.sort(key=lambda c: (c["domain"], c["path"], c["name"]))
    return out


def _fingerprint(cookies: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(cookies, sort_keys=True).encode("utf-8")).hexdigest()


def write_jar(profile_dir: Path, cookies: list[dict[str, Any]]) -> Path:
    """Replace the jar atomically: a fresh private temp file beside it (``O_EXCL|O_NOFOLLOW``, 0600
    whatever the umask), fsynced, then renamed over the old one (a rename never follows a link)."""
    path = Path(profile_dir) / JAR_NAME
    tmp = path.with_name(f"{JAR_NAME}.{secrets.token_hex(6)}.tmp")
    data = json.dumps({"version": 1, "saved_at": time.time(), "cookies": cookies}, ensure_ascii=False)
    fd = create_private_file(tmp)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return path


def read_jar(profile_dir: Path) -> list[dict[str, Any]]:
    """The saved session cookies; [] when there is no jar. A jar that is a symlink, not a regular
    file, not ours, readable by others or not valid is ignored (with a warning) and replaced at the
    next save."""
    path = Path(profile_dir) / JAR_NAME
    try:
        fd = open_binary_readonly(path, _O_NOFOLLOW)
    except FileNotFoundError:
        return []
    except OSError as exc:
        why = "it is a symbolic link" if exc.errno == errno.ELOOP else (exc.strerror or str(exc))
        log.warning("ignoring the session-cookie jar %s: %s", path, why)
        return []
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        problem = None
        if not stat.S_ISREG(st.st_mode):
            problem = "not a regular file"
        elif not owned_by_us(st):
            problem = f"owned by uid {st.st_uid}, not by us"
        elif not is_private(st):
            problem = f"mode {mode_text(st)} lets others read it"
        elif st.st_size > _MAX_JAR_BYTES:
            problem = f"{st.st_size} bytes is too large"
        if problem is None:
            try:
                data = json.loads(fh.read().decode("utf-8"))
                cookies = data["cookies"] if isinstance(data, dict) else None
                if isinstance(cookies, list):
                    return session_cookies(cookies)
                problem = "no cookie list in it"
            except (ValueError, KeyError, UnicodeDecodeError):
                problem = "not valid JSON"
    log.warning("ignoring the session-cookie jar %s: %s", path, problem)
    return []


def _domains(cookies: list[dict[str, Any]]) -> str:
    return ", ".join(sorted({str(c["domain"]).lstrip(".") for c in cookies})) or "-"


class CookieJar:
    """The jar of one profile, bound to one browser's context while it runs."""

    def __init__(self, profile_dir: Path, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.profile_dir = Path(profile_dir)
        self._clock = clock
        self._saved: str | None = None  # fingerprint of what the file holds
        self._read_at: float | None = None

    @property
    def path(self) -> Path:
        return self.profile_dir / JAR_NAME

    async def restore(self, context: Any, say: Callable[[LogText], None]) -> int:
        """Put the saved session cookies into ``context`` (before its first navigation); how many."""
        cookies = await asyncio.to_thread(read_jar, self.profile_dir)
        self._read_at = self._clock()
        if not cookies:
            return 0
        try:
            await context.add_cookies(cookies)
        except Exception as exc:  # a malformed entry: better logged out than no browser
            say(LOG.cookies_not_restored(n=len(cookies), file=self.path.name, error=type(exc).__name__))
            return 0
        self._saved = _fingerprint(cookies)
        say(LOG.cookies_restored(n=len(cookies), domains=_domains(cookies), file=self.path.name))
        return len(cookies)

    async def save(self, context: Any, say: Callable[[LogText], None], *, force: bool = False) -> bool:
        """Read the context's session cookies and write them when they changed; True if written.
        Without ``force`` the browser is asked at most every :data:`SAVE_MIN_INTERVAL_S`."""
        now = self._clock()
        if not force and self._read_at is not None and now - self._read_at < SAVE_MIN_INTERVAL_S:
            return False
        self._read_at = now
        cookies = session_cookies(await context.cookies())
        fingerprint = _fingerprint(cookies)
        if fingerprint == self._saved or (not cookies and self._saved is None and not self.path.exists()):
            self._saved = fingerprint
            return False
        try:
            await asyncio.to_thread(write_jar, self.profile_dir, cookies)  # an fsync: off the event loop
        except OSError as exc:
            say(LOG.cookies_not_saved_to(file=str(self.path), error=str(exc.strerror or exc)))
            return False
        self._saved = fingerprint
        log.debug("saved %d session cookie(s) (%s) to %s", len(cookies), _domains(cookies), self.path)
        return True
