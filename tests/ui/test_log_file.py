"""The console's log file (Help > Open the logs folder): private, appended to, never written
through a planted link, started afresh (the old one kept) past its size."""

from __future__ import annotations

import logging
import stat
from pathlib import Path

import pytest

from mediadesk.ui.app import log_file
from mediadesk.ui.app.log_file import LOG_NAME, install_log_file, remove_log_file


def test_warnings_go_to_a_private_file(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    handler = install_log_file(folder)
    try:
        logging.getLogger("mediadesk.test").warning("something the operator should find later")
        logging.getLogger("mediadesk.test").info("not kept: below a warning")
    finally:
        remove_log_file(handler)
    path = folder / LOG_NAME
    text = path.read_text(encoding="utf-8")
    assert "something the operator should find later" in text and "not kept" not in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_a_planted_link_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir(mode=0o700)
    target = tmp_path / "victim.txt"
    target.write_text("keep me\n", encoding="utf-8")
    (folder / LOG_NAME).symlink_to(target)
    assert install_log_file(folder) is None
    assert target.read_text(encoding="utf-8") == "keep me\n"


def test_a_large_log_starts_afresh_and_the_old_one_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_file, "KEEP_BYTES", 10)
    folder = tmp_path / "logs"
    folder.mkdir(mode=0o700)
    (folder / LOG_NAME).write_text("an old session's lines\n", encoding="utf-8")
    remove_log_file(install_log_file(folder))
    assert (folder / (LOG_NAME + ".1")).read_text(encoding="utf-8") == "an old session's lines\n"
    assert (folder / LOG_NAME).read_text(encoding="utf-8") == ""
