"""First run: no config anywhere -> the welcome panel (demo / open / create), config errors shown
there with their key, and the CLI's one line. Real files, real scheduler, offscreen."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer

from mediadesk.config.model import load_config
from mediadesk.config.template import default_config_path, template_text, write_config_template
from mediadesk.ui.app.start import EXIT_CONFIG, EXIT_OK, console_main
from mediadesk.ui.dialogs.welcome import WelcomePanel
from mediadesk.ui.window.main_window import MainWindow
from tests.ui.conftest import ARun, ConsoleEnv

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def fresh_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A machine that never ran MediaDesk: HOME and XDG_* in a tmp dir, no MEDIADESK_DATA_DIR."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var, sub in (("XDG_DATA_HOME", ".local/share"), ("XDG_CONFIG_HOME", ".config"),
                     ("XDG_STATE_HOME", ".local/state"), ("XDG_CACHE_HOME", ".cache")):
        monkeypatch.setenv(var, str(home / sub))
    monkeypatch.delenv("MEDIADESK_DATA_DIR", raising=False)
    return home


def _later(fn: Callable[[], object]) -> None:
    QTimer.singleShot(0, fn)


def _close_when_loaded(w: MainWindow) -> None:
    """Close once the table is loaded (as an operator would): no worker thread outlives the test's loop."""
    if w.feed.is_loaded:
        QTimer.singleShot(100, w.close)
    else:
        QTimer.singleShot(50, lambda: _close_when_loaded(w))


def test_first_run_shows_the_welcome_panel_and_create_writes_a_private_config_the_console_loads(
    fresh_home: Path, qapp: Any, arun: ARun, qtbot: Any,
) -> None:
    expected = fresh_home / ".local/share/mediadesk/config.toml"
    assert default_config_path() == expected
    seen: dict[str, Any] = {"opened": []}

    def on_welcome(panel: WelcomePanel) -> None:
        seen["panel"] = panel
        seen["intro"] = panel.intro.text()
        seen["error"] = panel.error_text()
        panel.open_editor = seen["opened"].append
        _later(panel.create_button.click)

    def on_window(w: MainWindow) -> None:
        seen["window"] = w
        seen["data_dir"] = w.scheduler.workspace.data_dir
        seen["profiles"] = w.scheduler.profile_names()

        def close_when_editing() -> None:
            if w.setup_editor is not None and w.feed.is_loaded:
                seen["setup_visible"] = w.setup_editor.isVisible()
                w.setup_editor.close()
                QTimer.singleShot(100, w.close)
            else:
                QTimer.singleShot(50, close_when_editing)

        _later(close_when_editing)

    rc = arun(console_main(qapp, None, welcome=True, on_welcome=on_welcome, on_window=on_window,
                           tray_available=False), timeout=30)
    assert rc == EXIT_OK
    assert str(expected) in seen["intro"] and "no configuration was found" in seen["intro"]
    assert seen["error"] == ""  # the first run is no error
    assert seen["opened"] == [expected]  # the editor hook got the written file
    assert seen["setup_visible"]  # and the console opened it in its Setup editor
    assert expected.is_file()
    assert stat.S_IMODE(expected.stat().st_mode) == 0o600
    assert stat.S_IMODE(expected.parent.stat().st_mode) == 0o700
    assert expected.read_text(encoding="utf-8") == template_text()
    cfg = load_config(expected)  # valid TOML for our loader: an empty workspace
    assert cfg.profiles == ()
    assert seen["data_dir"] == expected.parent and seen["profiles"] == []
    assert (expected.parent / "mediadesk.db").is_file()  # the console really opened that workspace


def test_template_sections_are_all_there_commented() -> None:
    text = template_text()
    for section in ("[retry]", "[heartbeat]", "[scheduler]", "[browser]", "[breaker]", "[rates]",
                    "[[endpoints]]", "[[profiles]]", "[[accounts]]"):
        assert f"# {section}" in text, section
    assert all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines())


def test_create_never_writes_over_an_existing_file_or_a_planted_link(tmp_path: Path, qtbot: Any) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("not yours", encoding="utf-8")
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    os.symlink(target, data / "config.toml")
    with pytest.raises(FileExistsError):
        write_config_template(data / "config.toml")
    assert target.read_text(encoding="utf-8") == "not yours"

    # the panel asks before opening what is there, and writes nothing
    panel = WelcomePanel(data / "config.toml")
    qtbot.addWidget(panel)
    asked: list[Path] = []
    opened: list[Path] = []
    panel.open_editor = opened.append

    def refuse(p: Path) -> bool:
        asked.append(p)
        return False

    panel.confirm_open_existing = refuse
    panel.create_button.click()
    assert asked == [data / "config.toml"] and opened == [] and panel.choice is None
    assert target.read_text(encoding="utf-8") == "not yours"


def test_a_bad_config_shows_its_key_in_the_panel_and_open_loads_a_good_one(
    fresh_home: Path, console_env: ConsoleEnv, qapp: Any, arun: ARun, qtbot: Any,
) -> None:
    cfg_path = default_config_path()
    cfg_path.parent.mkdir(parents=True)
    cfg_path.write_text('[[profiles]]\nname = "x"\nkind = "api"\nconcurency = 3\n', encoding="utf-8")
    bad_other = fresh_home / "other.toml"
    bad_other.write_text("[retry]\nmax_retries = \"3\"\n", encoding="utf-8")
    picks = [None, bad_other, console_env.config_path]
    seen: dict[str, Any] = {"errors": []}

    def on_welcome(panel: WelcomePanel) -> None:
        seen["errors"].append(panel.error_text())
        panel.choose_file = lambda: picks.pop(0)

        def step() -> None:
            panel.open_button.click()
            seen["errors"].append(panel.error_text())
            if panel.choice is None:
                _later(step)

        _later(step)

    def on_window(w: MainWindow) -> None:
        seen["profiles"] = w.scheduler.profile_names()
        _close_when_loaded(w)

    rc = arun(console_main(qapp, None, welcome=True,
                           on_welcome=on_welcome, on_window=on_window, tray_available=False), timeout=30)
    assert rc == EXIT_OK
    first = seen["errors"][0]
    assert "concurency" in first and "unknown key" in first and str(cfg_path) in first
    assert "Fix that key" in first  # what to do next
    # a dialog cancelled: the error stays; a bad file chosen: its key is shown instead
    assert "concurency" in seen["errors"][1]
    assert "max_retries" in seen["errors"][2] and "without quotes" in seen["errors"][2]
    assert seen["profiles"] == ["writer", "reasoner"]


def test_closing_the_welcome_panel_exits_cleanly(fresh_home: Path, qapp: Any, arun: ARun) -> None:
    rc = arun(console_main(qapp, None, welcome=True, on_welcome=lambda p: _later(p.close)), timeout=30)
    assert rc == EXIT_OK
    assert not default_config_path().exists()


def test_without_a_screen_a_missing_config_still_exits_2(fresh_home: Path, qapp: Any, arun: ARun,
                                                         capsys: Any) -> None:
    rc = arun(console_main(qapp, None, welcome=False), timeout=30)
    assert rc == EXIT_CONFIG
    assert "config file not found" in capsys.readouterr().err


def _cli_env(home: Path) -> dict[str, str]:
    return {"PYTHONPATH": str(REPO), "HOME": str(home), "XDG_DATA_HOME": str(home / "xdg-data"),
            "XDG_CONFIG_HOME": str(home / "xdg-config"), "PATH": "/usr/bin:/bin"}


def test_cli_run_without_a_config_says_the_choices_in_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    batch = tmp_path / "b.jsonl"
    batch.write_text('{"profile": "writer", "prompt": "hi"}\n', encoding="utf-8")
    env = _cli_env(home)
    proc = subprocess.run([sys.executable, "-m", "mediadesk", "run", str(batch)],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    where = home / "xdg-data/mediadesk/config.toml"
    for part in (str(where), "mediadesk demo", "--config FILE", "mediadesk init"):
        assert part in lines[0]

    init = subprocess.run([sys.executable, "-m", "mediadesk", "init"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert init.returncode == 0, init.stderr
    assert stat.S_IMODE(where.stat().st_mode) == 0o600
    where.write_text(where.read_text(encoding="utf-8") + "# mine\n", encoding="utf-8")
    again = subprocess.run([sys.executable, "-m", "mediadesk", "init"], capture_output=True, text=True,
                           env=env, timeout=60)
    assert again.returncode == 2 and "already exists" in again.stderr
    assert where.read_text(encoding="utf-8").endswith("# mine\n")  # never written over
    # now `run` finds it: an empty workspace, so the batch's profile is unknown (not "no config")
    found = subprocess.run([sys.executable, "-m", "mediadesk", "run", str(batch)],
                           capture_output=True, text=True, env=env, timeout=60)
    assert found.returncode == 2
    assert "no config found" not in found.stderr and "unknown profile 'writer'" in found.stderr


def test_try_the_demo_opens_the_demo_workspace(fresh_home: Path, tmp_path: Path, qapp: Any, arun: ARun) -> None:
    """The --demo path, from the panel (both simulators, the demo's web accounts in real Chromium)."""
    seen: dict[str, Any] = {}

    def on_window(w: MainWindow) -> None:
        seen["demo_batch"] = w.submission.demo_batch
        seen["profiles"] = sorted(w.scheduler.profile_names())
        _close_when_loaded(w)

    rc = arun(console_main(qapp, None, data_dir=tmp_path / "demo", welcome=True,
                           on_welcome=lambda p: _later(p.demo_button.click), on_window=on_window,
                           tray_available=False), timeout=90)
    assert rc == EXIT_OK
    assert seen["demo_batch"] is not None and seen["demo_batch"].is_file()
    assert seen["profiles"] == ["chat", "reasoner", "writer"]
    assert not default_config_path().exists()  # the demo writes nothing into the real data dir


def test_the_template_uncommented_is_a_valid_config(tmp_path: Path) -> None:
    """Every key the template shows is a real key with a valid value: uncommented, it loads."""
    import re

    lines = []
    for line in template_text().splitlines():
        body = line[2:] if line.startswith("# ") else None
        if body is not None and re.match(r"^(\[|[a-z_]+ = )", body):
            lines.append(body)
    text = "\n".join(lines) + "\n"
    assert "[[accounts]]" in text and "concurrency = 3" in text
    path = tmp_path / "full.toml"
    path.write_text(text, encoding="utf-8")
    cfg = load_config(path)
    assert [p.name for p in cfg.profiles] == ["writer", "chat"]
    assert [a.name for a in cfg.accounts] == ["account-a"]
    assert cfg.endpoints[0].api_key_env == "EXAMPLE_API_KEY"
