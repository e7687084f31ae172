"""mediadesk.platform.files on this (POSIX) machine for real, and the Windows way's choices where
they are pure logic (``mode_bits=False``: the made-up modes Windows reports are not checked)."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from mediadesk.files.safe import UnsafePathError, ensure_private_dir
from mediadesk.platform.files import (
    DIR_MODE,
    FILE_MODE,
    MODE_BITS,
    current_uid,
    fchmod,
    is_private,
    mode_text,
    open_binary_readonly,
    open_to_all,
    owned_by_us,
    read_only_fs,
    user_name,
    user_runtime_dir,
)
from tests.support import skip_unless

#: The tests of the POSIX way; the module still collects on Windows
posix = skip_unless(MODE_BITS, "the POSIX way: modes and owner uids")


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@posix
def test_fchmod_makes_a_readable_file_private(tmp_path: Path) -> None:
    path = tmp_path / "secret"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        os.fchmod(fd, 0o644)  # whatever the umask: readable by all, as an older version left it
        assert not is_private(os.fstat(fd))
        fchmod(fd, FILE_MODE, path)
        assert is_private(os.fstat(fd))
    finally:
        os.close(fd)
    assert (_mode(path), mode_text(os.stat(path))) == (0o600, "0600")


@posix
def test_a_folder_every_user_may_write_is_refused_here(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    st = os.stat(shared)
    assert (open_to_all(st), is_private(st), mode_text(st)) == (True, False, "1777")
    with pytest.raises(UnsafePathError, match="every user of this machine may write"):
        ensure_private_dir(shared, what="browser profile", user_chosen=True)
    assert _mode(shared) == 0o1777  # the user's folder: never chmod-ed


def test_the_windows_way_skips_the_mode_checks(tmp_path: Path) -> None:
    """What Windows reports for every folder (0777) and file (0666) is neither shared nor readable by
    others when the modes are not the privacy (``mode_bits=False``): the inherited ACL is."""
    folder, file = tmp_path / "folder", tmp_path / "file"
    folder.mkdir()
    folder.chmod(0o777)
    file.write_bytes(b"")
    file.chmod(0o666)
    as_reported = {"folder": os.stat(folder), "file": os.stat(file)}
    assert {k: (open_to_all(st, mode_bits=True), is_private(st, mode_bits=True))
            for k, st in as_reported.items()} == {
        "folder": (True, False), "file": (True, False)}
    assert {k: (open_to_all(st, mode_bits=False), is_private(st, mode_bits=False))
            for k, st in as_reported.items()} == {"folder": (False, True), "file": (False, True)}


@posix
def test_ours_and_the_owner_name(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x")
    import pwd

    assert current_uid() == os.geteuid()
    assert owned_by_us(os.stat(path))
    assert user_name(os.geteuid()) == pwd.getpwuid(os.geteuid()).pw_name
    unused = max(p.pw_uid for p in pwd.getpwall()) + 12345
    assert user_name(unused) is None


@posix
def test_binary_reads_give_the_bytes_as_they_are(tmp_path: Path) -> None:
    path = tmp_path / "db"
    data = b"SQLite format 3\x00\r\n\x1a\n\x00end"
    path.write_bytes(data)
    fd = open_binary_readonly(path, getattr(os, "O_NOFOLLOW", 0))
    try:
        assert os.read(fd, 100) == data
        assert not os.get_inheritable(fd)  # a browser started meanwhile does not keep the database open
    finally:
        os.close(fd)
    link = tmp_path / "link"
    link.symlink_to(path)
    with pytest.raises(OSError, match="Too many levels of symbolic links"):
        os.close(open_binary_readonly(link, os.O_NOFOLLOW))


@posix
def test_a_writable_folder_is_not_on_a_read_only_file_system(tmp_path: Path) -> None:
    assert read_only_fs(tmp_path) is False
    assert read_only_fs(tmp_path / "missing") is False  # cannot be told: not read-only


@posix
def test_the_runtime_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    assert user_runtime_dir("mediadesk") == tmp_path / "run" / "mediadesk"
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    fallback = user_runtime_dir("mediadesk")
    assert fallback == tmp_path / f"mediadesk-{os.getuid()}"
    assert ensure_private_dir(fallback) == fallback and _mode(fallback) == DIR_MODE
