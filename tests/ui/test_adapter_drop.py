"""A site adapter file dropped on the console: a bad one shows the loader's words naming the key and
installs nothing; a good one is checked on the account chosen (real Chromium, the chat simulator) and
installed in the user sites folder, private (0600); an existing file is replaced only after a yes; a
symbolic link planted at the target is refused, never followed."""

from __future__ import annotations

import asyncio
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QMimeData, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QMessageBox

from mediadesk.config.workspace import resources_dir
from mediadesk.scheduler.adapter_install import AdapterFileError, read_adapter_file
from mediadesk.sim.web_server import WebSimServer
from mediadesk.ui.dialogs.adapter_drop import AdapterDropDialog
from mediadesk.ui.window.main_window import MainWindow
from tests.ui.conftest import ARun, open_window
from tests.ui.test_check_all_accounts import log_in, settings, sim, started_scheduler, web_setup

__all__ = ["settings", "sim"]  # the fixtures, shared with the check-all test

pytestmark = [pytest.mark.browser]


@pytest.fixture
def window(sim: WebSimServer, tmp_path: Path, arun: ARun, settings: QSettings) -> Iterator[MainWindow]:
    path, ws = web_setup(tmp_path, sim)
    s = started_scheduler(path, ws, arun)
    try:
        with open_window(s, arun, settings) as w:
            yield w
    finally:
        arun(s.stop(), timeout=60)


def drop(w: MainWindow, path: Path) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    w.dropEvent(QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
                           Qt.KeyboardModifier.NoModifier))


def dropped_dialog(w: MainWindow, path: Path) -> AdapterDropDialog:
    drop(w, path)
    dlgs = [d for d in w.findChildren(AdapterDropDialog) if d.isVisible() and d.adapter.path == path]
    assert len(dlgs) == 1
    return dlgs[0]


def adapter_file(path: Path, sim: WebSimServer, version: str) -> Path:
    """The simulator's adapter at this simulator's URLs, as an operator's own file."""
    text = (resources_dir() / "sites" / "simchat.toml").read_text(encoding="utf-8")
    text = text.replace("http://127.0.0.1:8002/chat", sim.chat_url).replace("http://127.0.0.1:8002/login",
                                                                            sim.login_url)
    path.write_text(text + f'version = "{version}"\n', encoding="utf-8")
    return path


def no_check(dlg: AdapterDropDialog) -> None:
    dlg.account.setCurrentIndex(dlg.account.count() - 1)
    assert dlg.account.currentData() is None and dlg.go_button.text() == "Install without a check"


def test_a_bad_adapter_file_says_which_key_and_installs_nothing(window: MainWindow, tmp_path: Path,
                                                               qtbot: Any) -> None:
    bad = tmp_path / "broken.toml"
    bad.write_text('url = "http://127.0.0.1:9/chat"\nprompt = "textarea"\nsettle_ms = "fast"\n', encoding="utf-8")
    drop(window, bad)
    boxes = [b for b in window.findChildren(QMessageBox) if b.objectName() == "adapterFileProblems"]
    assert len(boxes) == 1 and boxes[0].isVisible()
    text = boxes[0].text()
    assert "is not a usable site adapter, so nothing was installed" in text and "settle_ms" in text, text
    assert "Traceback" not in text
    assert boxes[0].textFormat() == Qt.TextFormat.PlainText
    assert not window.findChildren(AdapterDropDialog)
    sites = window.scheduler.workspace.sites_dir
    assert not sites.exists() or not any(sites.iterdir())
    boxes[0].close()


def test_a_good_adapter_file_is_checked_then_installed_privately(window: MainWindow, sim: WebSimServer,
                                                                tmp_path: Path, arun: ARun) -> None:
    ws = window.scheduler.workspace
    log_in(tmp_path / "config.toml", ws, sim, "acct-a", arun)
    src = adapter_file(tmp_path / "mysim.toml", sim, "2026-12-01")
    dlg = dropped_dialog(window, src)
    assert "is a valid site adapter: mysim, version 2026-12-01." in dlg.about.text()
    assert dlg.account.currentData() == "acct-a" and dlg.go_button.text() == "Check, then install"
    task = dlg.go()
    assert task is not None and not dlg.go_button.isEnabled()
    arun(asyncio.wait_for(asyncio.shield(task), 150), timeout=160)
    target = ws.sites_dir / "mysim.toml"
    assert dlg.installed == target, dlg.summary.text()
    assert dlg.summary.text() == f"OK: the adapter fits the page.\nInstalled as {target}."
    assert "Opening the site… " + sim.chat_url in dlg.progress.toPlainText()
    assert target.read_bytes() == src.read_bytes()
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    report = dlg.show_report()
    assert report is not None and "OK: the adapter fits the page." in report.summary.text()
    assert sim.stats()["concurrent_violations"] == 0
    dlg.close()
    # dropped again, changed: the installed file is replaced only after a yes
    newer = adapter_file(tmp_path / "mysim.toml", sim, "2026-12-02")
    asked: list[Path] = []
    again = dropped_dialog(window, newer)
    again.confirm_replace = lambda p: asked.append(p) or False
    no_check(again)
    again.go_button.click()
    assert asked == [target] and again.installed is None
    assert "Not installed:" in again.summary.text() and "kept as it is" in again.summary.text()
    assert 'version = "2026-12-01"' in target.read_text(encoding="utf-8")
    again.confirm_replace = lambda p: True
    again.go_button.click()
    assert again.installed == target and 'version = "2026-12-02"' in target.read_text(encoding="utf-8")
    assert again.summary.text() == f"Installed as {target}, without a check."
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    again.close()


def test_a_symlink_planted_at_the_target_is_not_followed(window: MainWindow, sim: WebSimServer,
                                                         tmp_path: Path) -> None:
    sites = window.scheduler.workspace.sites_dir
    sites.mkdir(mode=0o700)
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("theirs\n", encoding="utf-8")
    (sites / "planted.toml").symlink_to(outside)
    dlg = dropped_dialog(window, adapter_file(tmp_path / "planted.toml", sim, "2026-12-01"))
    dlg.confirm_replace = lambda p: True  # even a yes does not write through the link
    no_check(dlg)
    dlg.go_button.click()
    assert dlg.installed is None
    assert "symbolic link" in dlg.summary.text(), dlg.summary.text()
    assert outside.read_text(encoding="utf-8") == "theirs\n"
    assert (sites / "planted.toml").is_symlink()
    dlg.close()


def test_an_adapter_file_named_as_a_windows_device_is_refused(tmp_path: Path) -> None:
    """``con.toml`` would install as a file no Windows can hold: refused in words, before any check."""
    bad = tmp_path / "con.toml"
    bad.write_text('url = "http://127.0.0.1:9/chat"\n', encoding="utf-8")
    with pytest.raises(AdapterFileError) as info:
        read_adapter_file(bad)
    assert "the file name 'con'" in str(info.value) and "device name on Windows" in str(info.value)
    good = tmp_path / "con-chat.toml"
    good.write_text('url = "http://127.0.0.1:9/chat"\n', encoding="utf-8")
    assert read_adapter_file(good).name == "con-chat"
