"""The session-cookie jar as a file: private, atomic, never through a planted link, debounced."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from mediadesk.providers.web.cookies import (
    JAR_NAME,
    SAVE_MIN_INTERVAL_S,
    CookieJar,
    read_jar,
    session_cookies,
    write_jar,
)

SESSION = {"name": "sid", "value": "s3cr3t-value", "domain": "127.0.0.1", "path": "/", "expires": -1,
           "httpOnly": True, "secure": False, "sameSite": "Lax"}
PERSISTENT = {**SESSION, "name": "remember", "expires": 1_900_000_000}


class FakeContext:
    """Stands in for a BrowserContext's two cookie calls (pure logic under test)."""

    def __init__(self, cookies: list[dict[str, Any]]) -> None:
        self.jar = cookies
        self.reads = 0
        self.added: list[dict[str, Any]] = []

    async def cookies(self) -> list[dict[str, Any]]:
        self.reads += 1
        return list(self.jar)

    async def add_cookies(self, cookies: list[dict[str, Any]]) -> None:
        self.added += cookies


def test_only_session_cookies_are_kept_with_the_fields_add_cookies_takes() -> None:
    kept = session_cookies([PERSISTENT, {**SESSION, "partitionKey": "x", "sameSite": "weird"}, {"name": ""}])
    assert kept == [{k: v for k, v in SESSION.items() if k != "sameSite"}]


def test_written_private_and_read_back(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        path = write_jar(tmp_path, [SESSION])
    finally:
        os.umask(old)
    assert path == tmp_path / JAR_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_jar(tmp_path) == [SESSION]
    assert [p.name for p in tmp_path.iterdir()] == [JAR_NAME]  # no temp file left behind


def test_a_planted_symlink_is_neither_read_nor_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.json"
    target.write_text(json.dumps({"cookies": [SESSION]}), encoding="utf-8")
    target.chmod(0o600)
    profile = tmp_path / "profile"
    profile.mkdir()
    (profile / JAR_NAME).symlink_to(target)
    assert read_jar(profile) == []  # O_NOFOLLOW: the link is refused
    write_jar(profile, [])
    assert not (profile / JAR_NAME).is_symlink()  # replaced by our own file ...
    assert json.loads(target.read_text(encoding="utf-8"))["cookies"] == [SESSION]  # ... the target untouched


def test_a_jar_others_can_read_or_that_is_broken_is_ignored(tmp_path: Path) -> None:
    path = write_jar(tmp_path, [SESSION])
    path.chmod(0o644)
    assert read_jar(tmp_path) == []
    path.chmod(0o600)
    path.write_text("{not json", encoding="utf-8")
    assert read_jar(tmp_path) == []
    assert read_jar(tmp_path / "missing") == []


async def test_save_is_debounced_and_writes_only_changes(tmp_path: Path) -> None:
    now = [100.0]
    jar = CookieJar(tmp_path, clock=lambda: now[0])
    said: list[object] = []
    ctx = FakeContext([])
    assert await jar.save(ctx, said.append, force=True) is False  # nothing to keep: no file is created
    assert not jar.path.exists()
    ctx.jar = [PERSISTENT, SESSION]
    assert await jar.save(ctx, said.append) is False  # asked again too soon: the browser is not even asked
    assert ctx.reads == 1
    now[0] += SAVE_MIN_INTERVAL_S
    assert await jar.save(ctx, said.append) is True
    assert read_jar(tmp_path) == [SESSION]
    now[0] += SAVE_MIN_INTERVAL_S
    assert await jar.save(ctx, said.append) is False  # unchanged: not rewritten
    assert await jar.save(ctx, said.append, force=True) is False
    ctx.jar = []  # the site logged the account out: the jar follows
    assert await jar.save(ctx, said.append, force=True) is True
    assert read_jar(tmp_path) == []
    fresh = FakeContext([])
    write_jar(tmp_path, [SESSION])
    assert await CookieJar(tmp_path).restore(fresh, said.append) == 1
    assert fresh.added == [SESSION]
    assert all("s3cr3t" not in str(line) and "s3cr3t" not in repr(line) for line in said)  # never a value in a message
    assert any("restored 1" in str(line) for line in said)


@pytest.mark.parametrize("mode", [0o640, 0o604])
def test_group_or_world_bits_make_the_jar_untrusted(tmp_path: Path, mode: int) -> None:
    write_jar(tmp_path, [SESSION]).chmod(mode)
    assert read_jar(tmp_path) == []
