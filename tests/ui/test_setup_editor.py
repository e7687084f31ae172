"""The Setup editor on real files: the form edits the TOML (comments kept), the loader's messages show
inline and refuse Save, duplicate / remove, live apply through the main window; "Test" against the API
simulator, a closed port, and (real Chromium) the chat simulator logged out then logged in."""

from __future__ import annotations

import asyncio
import secrets
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from PySide6.QtWidgets import QCheckBox, QLineEdit, QWidget

from mediadesk.config.model import load_config
from mediadesk.config.workspace import Workspace
from mediadesk.providers.web import find_our_residue
from mediadesk.scheduler import Scheduler
from mediadesk.sim.api_server import ApiSimConfig, ApiSimServer
from mediadesk.sim.web_server import WebSimConfig, WebSimServer
from mediadesk.ui.dialogs.setup_editor import SetupEditor, site_choices
from mediadesk.ui.window.main_window import MainWindow
from tests.support import require
from tests.ui.conftest import ARun, ConsoleEnv, open_window

CONFIG = """\
# operator's config: keep this comment
[retry]
max_retries = 1

[[endpoints]]
name = "sim"   # the local simulator
base_url = "{url}"

[[profiles]]
name = "writer"
kind = "api"
endpoint = "sim"
model = "sim-model"   # cheap
"""


@pytest.fixture
def cfg_file(tmp_path: Path, api_sim: ApiSimServer) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG.format(url=api_sim.base_url), encoding="utf-8")
    return path


@pytest.fixture
def editor(cfg_file: Path, tmp_path: Path, qtbot: Any) -> SetupEditor:
    ws = Workspace.resolve(data_dir=tmp_path / "data")
    dlg = SetupEditor(cfg_file, workspace=ws)
    dlg.confirm_discard = lambda: True  # pytest-qt closes it at teardown: no modal question there
    qtbot.addWidget(dlg)
    dlg.show()
    return dlg


def test_add_api_profile_through_the_form_and_save(editor: SetupEditor, cfg_file: Path) -> None:
    before = cfg_file.read_text(encoding="utf-8")
    idx = editor.entries.add_entry("profiles")
    assert editor.entries.current_index("profiles") == idx == 1
    # a new api profile needs a model: the loader's entry-level message shows above the form
    assert "an api profile needs" in editor.error_text("profiles")
    assert not editor.save_btn.isEnabled()
    editor.set_field("profiles", "name", "summarizer")
    editor.set_field("profiles", "endpoint", "sim")
    editor.set_field("profiles", "model", "sim-model")
    editor.set_field("profiles", "concurrency", "2")
    editor.set_field("profiles", "stream", True)
    assert editor.error_text("profiles") == ""
    assert editor.save_btn.isEnabled()
    assert editor.saver.save()
    cfg = load_config(cfg_file)
    p = cfg.profile("summarizer")
    assert (p.kind, p.endpoint, p.model, p.concurrency, p.stream) == ("api", "sim", "sim-model", 2, True)
    after = cfg_file.read_text(encoding="utf-8")
    assert after.startswith(before)  # every line the operator wrote, comments included, untouched
    assert "Saved" in editor.status.text()
    assert editor.pages["profiles"].list.item(1).text() == "summarizer"


def test_invalid_concurrency_shows_the_loaders_message_inline_and_refuses_save(
    editor: SetupEditor, cfg_file: Path
) -> None:
    before = cfg_file.read_text(encoding="utf-8")
    editor.select("profiles", "writer")
    editor.set_field("profiles", "concurrency", "9")
    msg = editor.error_text("profiles", "concurrency")
    assert msg == "Input should be less than or equal to 5"
    # the very text the loader prints for that file
    cfg_file.with_name("check.toml").write_text(editor.doc.text(), encoding="utf-8")
    with pytest.raises(Exception, match=r"profiles\[0\] \(writer\)\.concurrency: " + msg):
        load_config(cfg_file.with_name("check.toml"))
    assert not editor.save_btn.isEnabled()
    assert "problem" in editor.status.text()
    assert not editor.saver.save()
    assert cfg_file.read_text(encoding="utf-8") == before
    editor.set_field("profiles", "concurrency", "three")
    assert 'expected an integer, got a string ("three")' in editor.error_text("profiles", "concurrency")
    editor.set_field("profiles", "concurrency", "4")
    assert editor.error_text("profiles", "concurrency") == ""
    assert editor.saver.save()
    text = cfg_file.read_text(encoding="utf-8")
    assert 'model = "sim-model"   # cheap\nconcurrency = 4\n' in text
    assert load_config(cfg_file).profile("writer").concurrency == 4


def test_duplicate_and_remove(editor: SetupEditor, cfg_file: Path) -> None:
    editor.select("profiles", "writer")
    new = editor.entries.duplicate_entry("profiles")
    assert [editor.pages["profiles"].list.item(i).text() for i in range(2)] == ["writer", "writer-copy"]
    assert editor.entries.current_index("profiles") == new
    # renaming the copy to an existing name: the loader's duplicate message, on the name field
    editor.set_field("profiles", "name", "writer")
    assert "duplicate profile name 'writer'" in editor.error_text("profiles", "name")
    assert not editor.saver.save()
    editor.set_field("profiles", "name", "writer-2")
    editor.select("endpoints", "sim")
    editor.entries.duplicate_entry("endpoints")
    editor.entries.remove_entry("endpoints")  # the copy goes again
    assert editor.doc.names("endpoints") == ["sim"]
    assert editor.saver.save()
    cfg = load_config(cfg_file)
    assert [p.name for p in cfg.profiles] == ["writer", "writer-2"]
    assert cfg.profile("writer-2").endpoint == "sim"
    editor.select("profiles", "writer")
    editor.entries.remove_entry("profiles")
    assert editor.saver.save()
    assert [p.name for p in load_config(cfg_file).profiles] == ["writer-2"]
    assert "# operator's config: keep this comment" in cfg_file.read_text(encoding="utf-8")


def test_web_profile_form_and_site_picker(editor: SetupEditor, cfg_file: Path, tmp_path: Path) -> None:
    user_sites = tmp_path / "data" / "sites"
    user_sites.mkdir(parents=True)
    (user_sites / "mychat.toml").write_text("# a user adapter\n", encoding="utf-8")
    names = dict(site_choices(None, editor.workspace))
    assert names["simchat"] == "built-in" and names["mychat"] == "user"
    editor.entries.add_entry("profiles")
    editor.set_field("profiles", "kind", "web")
    form = editor.pages["profiles"].form
    assert not form.editors["model"].isVisibleTo(form) and form.editors["site"].isVisibleTo(form)
    combo = form.editors["site"]
    labels = [combo.itemText(i) for i in range(combo.count())]  # type: ignore[attr-defined]
    assert "simchat (built-in)" in labels and "mychat (user)" in labels
    assert "a web profile needs site" in editor.error_text("profiles")
    editor.set_field("profiles", "site", "simchat")
    editor.set_field("profiles", "name", "chat")
    editor.entries.add_entry("accounts")
    assert editor.doc.entry("accounts", 0)["profile"] == "chat"
    assert editor.saver.save()
    cfg = load_config(cfg_file)
    assert cfg.profile("chat").site == "simchat" and cfg.accounts_of("chat")[0].name == "account-1"
    # the account form: enabled unchecked writes enabled = false; checked again writes true
    editor.select("accounts", 0)
    editor.set_field("accounts", "enabled", False)
    assert editor.saver.save()
    assert load_config(cfg_file).accounts[0].enabled is False


def test_change_on_disk_is_not_overwritten_silently(editor: SetupEditor, cfg_file: Path) -> None:
    editor.select("profiles", "writer")
    editor.set_field("profiles", "concurrency", "2")
    other = cfg_file.read_text(encoding="utf-8").replace("max_retries = 1", "max_retries = 3")
    cfg_file.write_text(other, encoding="utf-8")
    asked: list[str] = []
    editor.saver.confirm_overwrite = lambda message: asked.append(message) is not None  # says no
    assert not editor.saver.save()
    assert asked and "changed on disk" in asked[0]
    assert cfg_file.read_text(encoding="utf-8") == other
    assert "changed on disk" in editor.status.text()
    editor.saver.confirm_overwrite = lambda message: True
    assert editor.saver.save()
    assert load_config(cfg_file).profile("writer").concurrency == 2


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_endpoint_test_shows_latency_or_the_error(editor: SetupEditor, arun: ARun, api_sim: ApiSimServer) -> None:
    editor.select("endpoints", "sim")
    task = editor.tester.test_current("endpoints")
    assert task is not None
    assert not editor.test_buttons["endpoints"].isEnabled()  # one test at a time
    arun(asyncio.wait_for(asyncio.shield(task), 20))
    text = editor.test_results["endpoints"].text()
    assert text.startswith("OK: the key works (a one-token answer, HTTP 200) in ") and text.endswith(" ms"), text
    assert editor.test_buttons["endpoints"].isEnabled()
    # a closed port: the connection error, named
    editor.set_field("endpoints", "base_url", f"http://127.0.0.1:{_closed_port()}/v1")
    task = editor.tester.test_current("endpoints")
    assert task is not None
    arun(asyncio.wait_for(asyncio.shield(task), 20))
    text = editor.test_results["endpoints"].text()
    # in the operator's words; the library's own words (ConnectError...) one hover away
    assert text.startswith("Failed after ") and "could not reach the service" in text, text
    assert "ConnectError" not in text
    assert "ConnectError" in editor.test_results["endpoints"].toolTip()
    # the API profile's Test goes through its endpoint
    editor.set_field("endpoints", "base_url", api_sim.base_url)
    editor.select("profiles", "writer")
    task = editor.tester.test_current("profiles")
    assert task is not None
    arun(asyncio.wait_for(asyncio.shield(task), 20))
    said = editor.test_results["profiles"].text()
    assert said.startswith("OK: the key works"), said


def test_a_wrong_key_is_rejected_where_models_answers_anyone(
    tmp_path: Path, qtbot: Any, arun: ARun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: Test asked ``GET /models``, which the server answers without checking keys, and said
    "OK: HTTP 200" to a wrong key."""
    key = "sk-ui-" + secrets.token_hex(8)
    sim = ApiSimServer(ApiSimConfig(api_key=key))
    arun(sim.start())
    try:
        path = tmp_path / "config.toml"
        path.write_text(CONFIG.format(url=sim.base_url).replace('name = "sim"   # the local simulator',
                                                                'name = "sim"\napi_key_env = "MD_UI_KEY"'),
                        encoding="utf-8")
        dlg = SetupEditor(path, workspace=Workspace.resolve(data_dir=tmp_path / "data"))
        dlg.confirm_discard = lambda: True
        qtbot.addWidget(dlg)
        dlg.select("endpoints", "sim")
        said = []
        for value in ("sk-ui-wrong", key):
            monkeypatch.setenv("MD_UI_KEY", value)
            task = dlg.tester.test_current("endpoints")
            assert task is not None
            arun(asyncio.wait_for(asyncio.shield(task), 20))
            said.append(dlg.test_results["endpoints"].text())
        rejected, works = said
        assert rejected.startswith("Key rejected: ") and "HTTP 401" in rejected, rejected
        assert "environment variable MD_UI_KEY" in rejected, rejected
        assert works.startswith("OK: the key works"), works
        assert not any("sk-ui-" in text for text in said)  # never the key itself
        assert sim.stats()["models_requests"] == 0
    finally:
        arun(sim.stop())


@pytest.mark.browser
def test_web_account_test_reports_logged_out_then_logged_in(
    tmp_path: Path, qtbot: Any, arun: ARun, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mediadesk.providers.web import BrowserNotFoundError, find_browser

    try:
        find_browser(probe_version=False)
    except BrowserNotFoundError as exc:
        require(False, f"no Chromium on this machine: {exc}")
    password = "pw-" + secrets.token_hex(8)
    monkeypatch.setenv("MD_TEST_SITE_USER", "acct-a")
    monkeypatch.setenv("MD_TEST_SITE_PASSWORD", password)
    sim = WebSimServer(WebSimConfig(time_scale=0.005, answer_tokens=4, password=password))
    arun(sim.start())
    try:
        path = tmp_path / "config.toml"
        path.write_text(
            f'[[profiles]]\nname = "chat"\nkind = "web"\nsite = "simchat"\nurl = "{sim.chat_url}"\n\n'
            '[[accounts]]\nname = "acct-a"\nprofile = "chat"\n', encoding="utf-8")
        ws = Workspace.resolve(data_dir=tmp_path / "data")
        dlg = SetupEditor(path, workspace=ws)
        dlg.confirm_discard = lambda: True
        qtbot.addWidget(dlg)
        dlg.show()
        dlg.select("accounts", "acct-a")
        task = dlg.tester.test_current("accounts")
        assert task is not None
        arun(asyncio.wait_for(asyncio.shield(task), 90), timeout=100)
        out = dlg.test_results["accounts"].text()
        assert "logged out" in out, out
        # the operator's words, not the adapter's key and selector (those are in the tooltip)
        assert "logged_out" not in out and "a.login-link" not in out, out
        assert "a.login-link" in dlg.test_results["accounts"].toolTip()
        # stored credentials, typed into the form: the account logs itself in and the Test says so
        dlg.set_field("accounts", "login_user_env", "MD_TEST_SITE_USER")
        dlg.set_field("accounts", "login_password_env", "MD_TEST_SITE_PASSWORD")
        assert dlg.error_text("accounts") == ""
        task = dlg.tester.test_current("accounts")
        assert task is not None
        arun(asyncio.wait_for(asyncio.shield(task), 90), timeout=100)
        out = dlg.test_results["accounts"].text()
        assert out == "acct-a: logged in", out
        assert sim.stats()["logins"] == 1
        assert password not in path.read_text(encoding="utf-8")
    finally:
        arun(sim.stop())
    assert find_our_residue(tmp_path) == []  # the Test's browser is gone


@pytest.fixture
def window(console_scheduler: Scheduler, arun: ARun, tmp_path: Path) -> Iterator[MainWindow]:
    from PySide6.QtCore import QSettings

    with open_window(console_scheduler, arun, QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)) as w:
        yield w


def test_main_window_setup_applies_live_changes_and_names_restart_ones(
    window: MainWindow, console_env: ConsoleEnv, console_scheduler: Scheduler
) -> None:
    # the file the running scheduler was started from
    console_env.config_path.write_text(_running_config(console_env), encoding="utf-8")
    window.config_path = console_env.config_path
    assert window.act_setup in window.main_toolbar.actions()
    window.act_setup.trigger()
    dlg = window.setup_editor
    assert dlg is not None and dlg.path == console_env.config_path
    assert window.open_setup_editor() is dlg  # one at a time
    dlg.select("profiles", "writer")
    dlg.set_field("profiles", "concurrency", "1")
    dlg.select("profiles", "reasoner")
    dlg.entries.duplicate_entry("profiles")
    dlg.select("accounts", "acct-b")
    dlg.set_field("accounts", "enabled", False)
    assert dlg.saver.save()
    assert console_scheduler.profile_view("writer").concurrency == 1
    assert console_scheduler.account_states()["acct-b"][0] is False
    status = dlg.status.text()
    assert "Applied now: writer concurrency 1, acct-b disabled." in status, status
    assert status.endswith("Applies at the next start: profile reasoner-copy added."), status
    assert load_config(console_env.config_path).profile("writer").concurrency == 1
    # unsaved edits: closing asks first; "no" keeps the dialog open
    dlg.set_field("profiles", "timeout_s", "30")
    dlg.confirm_discard = lambda: False
    assert not dlg.close() and window.setup_editor is dlg
    dlg.confirm_discard = lambda: True
    assert dlg.close()


def _running_config(console_env: ConsoleEnv) -> str:
    url = console_env.sim.base_url
    return f"""\
[[profiles]]
name = "writer"
kind = "api"
base_url = "{url}"
model = "sim-model"
concurrency = 3
instructions = "be brief"

[[profiles]]
name = "reasoner"
kind = "api"
base_url = "{url}"
model = "sim-model"
concurrency = 2
need_empty_prompt = true

[[profiles]]
name = "chat"
kind = "web"
site = "sim"

[[accounts]]
name = "acct-a"
profile = "chat"

[[accounts]]
name = "acct-b"
profile = "chat"
"""


def _text(editor: QWidget) -> str:
    return editor.text() if isinstance(editor, QLineEdit) else ""


def test_setup_shows_the_values_in_effect_and_applies_the_empty_prompt_live(
    window: MainWindow, console_env: ConsoleEnv, console_scheduler: Scheduler
) -> None:
    """Changed in the console (profiles tab, accounts switch) after the file was written: Setup
    shows what is in effect, Save writes it through; need_empty_prompt applies without a restart."""
    console_env.config_path.write_text(_running_config(console_env), encoding="utf-8")
    s = console_scheduler
    s.set_profile_setting("writer", concurrency=1)
    s.set_profile_setting("writer", need_empty_prompt=True)
    s.set_account_enabled("acct-a", False)
    window.config_path = console_env.config_path
    dlg = window.open_setup_editor()
    assert dlg is not None
    dlg.confirm_discard = lambda: True
    dlg.select("profiles", "writer")
    assert _text(dlg.field("profiles", "concurrency")) == "1"
    assert cast(QCheckBox, dlg.field("profiles", "need_empty_prompt")).isChecked()
    dlg.select("accounts", "acct-a")
    assert not cast(QCheckBox, dlg.field("accounts", "enabled")).isChecked()
    status = dlg.status.text()
    assert "values in effect" in status and "writer concurrency 1" in status and "acct-a disabled" in status, status
    # an empty-prompt switch in Setup is applied now, not "at the next start"
    dlg.select("profiles", "reasoner")
    dlg.set_field("profiles", "need_empty_prompt", False)
    assert dlg.saver.save()
    assert s.profile_view("reasoner").need_empty_prompt is False
    status = dlg.status.text()
    assert "reasoner empty prompt off" in status and "next start" not in status, status
    assert not dlg.restart_button.isVisible()
    cfg = load_config(console_env.config_path)  # what was in effect is in the file now
    assert cfg.profile("writer").concurrency == 1 and cfg.profile("writer").need_empty_prompt
    assert not next(a for a in cfg.accounts if a.name == "acct-a").enabled
    assert dlg.close()
