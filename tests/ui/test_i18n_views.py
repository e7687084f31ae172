"""With the shipped Chinese translation installed, config errors and task logs read in Chinese.

Real parts: the shipped ``resources/i18n/mediadesk_zh_CN.qm``, real config files on disk through the
real loader, a real task run by the scheduler against the API simulator (127.0.0.1), its log lines
written by the real store. Stored data and the CLI's text stay English; only the display changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, QTranslator

from mediadesk.config.model import ConfigError, load_config
from mediadesk.config.workspace import Workspace
from mediadesk.scheduler import Scheduler
from mediadesk.store import TaskReader
from mediadesk.ui.app.start import EXIT_OK, console_main
from mediadesk.ui.dialogs.setup_editor import SetupEditor
from mediadesk.ui.dialogs.welcome import WelcomePanel
from tests.ui.conftest import ARun, ConsoleEnv, open_window

BAD_CONFIG = """\
[retry]
max_retries = "3"

[[profiles]]
name = "writer"
kind = "api"
base_url = "http://127.0.0.1:9"
model = "m"
concurency = 2
"""


@pytest.fixture
def bad_config(tmp_path: Path) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text(BAD_CONFIG, encoding="utf-8")
    return path


def test_the_cli_text_of_a_config_error_stays_english(bad_config: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(bad_config)
    assert str(info.value) == (
        f'{bad_config}: retry.max_retries: expected an integer, got a string ("3") (write the number without quotes)\n'
        f"{bad_config}: profiles[0] (writer).concurency: unknown key (check the spelling; see the README for all keys)")
    assert [(i.key, i.message.template) for i in info.value.issues] == [
        ("retry.max_retries", "expected {expected}, got {got}{hint}"),
        ("profiles[0] (writer).concurency", "unknown key (check the spelling; see the README for all keys)")]


def test_welcome_panel_shows_a_bad_key_in_chinese_naming_the_key(
        zh_translator: QTranslator, bad_config: Path, tmp_path: Path, qtbot: Any) -> None:
    panel = WelcomePanel(tmp_path / "data" / "config.toml")
    qtbot.addWidget(panel)
    panel.show()
    panel.choose_file = lambda: bad_config
    panel.choose_open()
    text = panel.error_text()
    assert panel.choice is None  # not opened: the error stays on the panel
    assert f"{bad_config}: profiles[0] (writer).concurency: 未知的键（请检查拼写；全部键名见 README）" in text
    assert f'{bad_config}: retry.max_retries: 应为整数，实际是字符串（"3"）（数字不要加引号）' in text
    assert "unknown key" not in text and "expected" not in text
    assert text.startswith("无法加载配置：")  # the panel's own words are Chinese too


def test_console_start_with_a_bad_config_shows_it_in_chinese(
        zh_translator: QTranslator, bad_config: Path, qapp: Any, arun: ARun, qtbot: Any) -> None:
    seen: list[str] = []

    def on_welcome(panel: WelcomePanel) -> None:
        seen.append(panel.error_text())
        panel.close()  # the operator quits

    rc = arun(console_main(qapp, bad_config, welcome=True, on_welcome=on_welcome, tray_available=False),
              timeout=30)
    assert rc == EXIT_OK
    assert len(seen) == 1
    assert "profiles[0] (writer).concurency: 未知的键" in seen[0], seen[0]


def test_setup_editor_shows_field_errors_in_chinese(
        zh_translator: QTranslator, tmp_path: Path, qtbot: Any) -> None:
    cfg = tmp_path / "setup.toml"
    cfg.write_text('[[profiles]]\nname = "writer"\nkind = "api"\nbase_url = "http://127.0.0.1:9"\nmodel = "m"\n',
                   encoding="utf-8")
    dlg = SetupEditor(cfg, workspace=Workspace.resolve(data_dir=tmp_path / "data"))
    dlg.confirm_discard = lambda: True
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.select("profiles", 0)
    dlg.set_field("profiles", "concurrency", "9")
    assert dlg.error_text("profiles", "concurrency") == "值应小于或等于 5"
    dlg.set_field("profiles", "concurrency", "2")
    dlg.set_field("profiles", "base_url", "ftp://x")
    assert "base_url 必须以 http:// 或 https:// 开头" in dlg.error_text("profiles")
    assert not dlg.save_btn.isEnabled()


def test_a_real_task_log_reads_in_chinese_in_the_detail_pane_and_the_log_dock(
        zh_translator: QTranslator, console_scheduler: Scheduler, console_env: ConsoleEnv, arun: ARun, qtbot: Any,
        tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    with open_window(console_scheduler, arun, settings) as window:
        res = window.submission.submit_rows_from_text("你好 detail", "writer")
        assert res is not None and len(res.added) == 1
        tid = res.added[0]
        d = window.detail
        d.show_task(tid)
        qtbot.waitUntil(lambda: "成功，用时" in d.log_text(), timeout=15_000)
        log = d.log_text()
        assert "[api:writer] 第 1 次尝试开始" in log, log
        assert "[api:writer] POST /chat/completions stream=0 -> 200，用时" in log, log
        assert "attempt 1 started" not in log and "success in" not in log
        qtbot.waitUntil(lambda: any("POST /chat/completions stream=0 -> 200，用时" in ln
                                    for ln in window.log_dock.lines()), timeout=5_000)
    # stored data stays English (exports, the CLI)
    reader = TaskReader(console_env.workspace.db_path)
    try:
        stored = [ln.message for ln in reader.logs(tid)]
    finally:
        reader.close()
    assert "attempt 1 started" in stored
    assert any(m.startswith("success in ") for m in stored), stored


def test_library_and_cross_entry_messages_in_chinese(zh_translator: QTranslator) -> None:
    """pydantic's own checks and our checks across entries, through the console's renderer."""
    from mediadesk.config.model import parse_config
    from mediadesk.ui.dialogs.config_text import config_error_text

    cases = [
        ({"profiles": [{"name": "a", "kind": "chat"}]}, "c.toml: profiles[0] (a).kind: 值应为 'api' 或 'web'"),
        ({"profiles": [{"kind": "api"}]}, "c.toml: profiles[0].name: 缺少必填项"),
        ({"retry": {"backoff_base_s": 0}}, "c.toml: retry.backoff_base_s: 值应大于 0"),
        ({"accounts": [{"name": "x", "profile": "nope"}]}, "c.toml: accounts[0].profile: 没有名为 'nope' 的配置"),
        ({"endpoints": [], "profiles": [{"name": "a", "kind": "api", "endpoint": "e", "model": "m"}]},
         "c.toml: profiles[0] (a).endpoint: 没有名为 'e' 的端点（一个也未定义）"),
        ({"breaker": {"min_calls": 30, "window": 10}}, "c.toml: breaker: min_calls（30）不能大于 window（10）"),
    ]
    for data, shown in cases:
        with pytest.raises(ConfigError) as info:
            parse_config(data, source="c.toml")
        assert config_error_text(info.value) == shown
