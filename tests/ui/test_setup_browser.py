"""Setup's Browser tab on real files and real programs: the browser found on this computer (name, path,
where it came from), a chosen program checked in a worker (its --version) before [browser] executable is
written, and the refusals in words: not a file, not executable, not a Chromium-family browser."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QFileDialog

from mediadesk.config.model import load_config
from mediadesk.config.workspace import Workspace
from mediadesk.ui.dialogs.setup.fields import ERROR_STYLE
from mediadesk.ui.dialogs.setup_editor import SetupEditor
from tests.ui.conftest import ARun

CONFIG = """\
# operator's config: keep this comment
[retry]
max_retries = 1
"""


def _program(path: Path, says: str, code: int = 0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho '{says}'\nexit {code}\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def found_chromium(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Chromium on PATH (first in Linux' order), and no Playwright browser."""
    registry = tmp_path / "ms-playwright"
    registry.mkdir()
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(registry))
    exe = _program(tmp_path / "bin" / "chromium", "Chromium 120.0.6099.224 built on Debian")
    monkeypatch.setenv("PATH", str(exe.parent))
    return exe


@pytest.fixture
def editor(tmp_path: Path, found_chromium: Path, qtbot: Any) -> SetupEditor:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG, encoding="utf-8")
    dlg = SetupEditor(path, workspace=Workspace.resolve(data_dir=tmp_path / "data"))
    dlg.confirm_discard = lambda: True
    qtbot.addWidget(dlg)
    dlg.show()
    return dlg


def _choose(editor: SetupEditor, arun: ARun, path: Path | str) -> None:
    task = editor.browser.choose(str(path))
    if task is not None:
        assert editor.browser.check.text().startswith("Checking ")
        assert not editor.browser.browse_btn.isEnabled()  # one check at a time; the window goes on
        arun(asyncio.wait_for(asyncio.shield(task), 20))
    assert editor.browser.browse_btn.isEnabled()


def test_the_found_browser_is_named_with_its_path_and_place(editor: SetupEditor, found_chromium: Path) -> None:
    tabs = [editor.tabs.tabText(i) for i in range(editor.tabs.count())]
    assert tabs[-1] == "Browser"
    assert editor.browser.found.text() == f"Chromium: {found_chromium} (found in PATH)"
    assert editor.browser.path_edit.text() == ""


def test_a_chosen_chromium_is_checked_then_written_and_saved(
    editor: SetupEditor, arun: ARun, tmp_path: Path
) -> None:
    chrome = _program(tmp_path / "Google" / "Chrome" / "chrome", "Google Chrome 120.0.6099.109")
    _choose(editor, arun, chrome)
    assert editor.browser.check.text() == "Google Chrome 120.0.6099.109: the web accounts use it once saved."
    assert editor.browser.path_edit.text() == str(chrome)
    assert editor.browser.found.text() == f"{chrome} (set here: [browser] executable)"
    assert editor.dirty and editor.save_btn.isEnabled()
    editor.save_btn.click()
    assert not editor.dirty
    text = editor.path.read_text(encoding="utf-8")
    assert text.startswith("# operator's config: keep this comment\n")
    assert load_config(editor.path).browser.executable == chrome

    _choose(editor, arun, "")  # empty: back to the browser found here
    assert editor.dirty and "executable" not in editor.doc.text()
    assert editor.browser.found.text().startswith("Chromium: ")
    editor.save_btn.click()
    assert load_config(editor.path).browser.executable is None


def test_the_browse_button_opens_the_dialog_and_checks_its_choice(
    editor: SetupEditor, qloop: asyncio.AbstractEventLoop, tmp_path: Path, found_chromium: Path,
    monkeypatch: pytest.MonkeyPatch, qtbot: Any
) -> None:
    edge = _program(tmp_path / "Edge" / "msedge", "Microsoft Edge 120.0.2210.91")
    asked: list[str] = []

    def pick(_parent: Any, caption: str, start: str) -> tuple[str, str]:
        asked.append(start)
        return str(edge), ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", pick)
    editor.browser.browse_btn.click()
    assert asked == [str(found_chromium.parent)]  # it opens where the found browser is
    qtbot.waitUntil(lambda: editor.browser.path_edit.text() == str(edge), timeout=20_000)
    assert editor.browser.check.text().startswith("Microsoft Edge 120.0.2210.91")


def test_a_file_that_is_not_executable_is_refused_in_words(editor: SetupEditor, arun: ARun, tmp_path: Path) -> None:
    document = tmp_path / "chrome.txt"
    document.write_text("not a program")
    document.chmod(0o644)
    _choose(editor, arun, document)
    assert editor.browser.check.text() == (
        f"{document} is not an executable program: choose the browser's program, not a shortcut or a document.")
    assert editor.browser.check.styleSheet() == ERROR_STYLE
    _choose(editor, arun, tmp_path)
    assert editor.browser.check.text() == f"{tmp_path} is not a file: choose the browser's program itself."
    assert editor.browser.path_edit.text() == ""  # what is in effect, not the refused path
    assert not editor.dirty and "browser" not in editor.doc.data()


def test_a_program_that_is_no_chromium_is_refused_in_words(editor: SetupEditor, arun: ARun, tmp_path: Path) -> None:
    firefox = _program(tmp_path / "firefox", "Mozilla Firefox 128.0")
    _choose(editor, arun, firefox)
    assert editor.browser.check.text() == (
        f"{firefox} is Mozilla Firefox 128.0, not a Chromium-family browser: choose Google Chrome, Microsoft Edge, "
        "Chromium or Brave.")
    mute = _program(tmp_path / "tool", "usage: tool FILE", code=2)
    _choose(editor, arun, mute)
    assert editor.browser.check.text() == (
        f"{mute} did not say which browser it is: not a Chromium-family browser MediaDesk can drive.")
    assert not editor.dirty and "browser" not in editor.doc.data()
