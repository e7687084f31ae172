"""The config editor core on real files: comments and order kept, the loader's messages placed per
entry and key, refusals (invalid document, changed on disk, symlink), private atomic saves."""

from __future__ import annotations

import difflib
import os
import stat
from pathlib import Path

import pytest

from mediadesk.config.edit import (
    ConfigChangedOnDisk,
    ConfigDoc,
    ConfigInvalid,
    live_changes,
)
from mediadesk.config.model import load_config
from mediadesk.files.safe import UnsafePathError

COMMENTED = """\
# MediaDesk config — the operator's notes stay
data_dir = "data"   # relative to this file

[retry]
max_retries = 3

# ---- endpoints -------------------------------------------------------------
[[endpoints]]
name = "local"              # the simulator
base_url = "http://127.0.0.1:9"
concurrency = 2

# ---- profiles --------------------------------------------------------------
[[profiles]]
name = "writer"
kind = "api"
endpoint = "local"
model = "sim-1"   # cheap model
concurrency = 2   # raise carefully: quota

[[profiles]]
# the chat site, driven by Chromium
name = "chat"
kind = "web"
site = "simchat"

[[accounts]]
name = "chat-1"
profile = "chat"
enabled = true  # first account
"""


@pytest.fixture
def cfg_path(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(COMMENTED, encoding="utf-8")
    return path


def _diff(a: str, b: str) -> list[str]:
    return [ln for ln in difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0)
            if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]


def test_untouched_round_trip_is_byte_for_byte(cfg_path: Path) -> None:
    doc = ConfigDoc.load(cfg_path)
    assert doc.text() == COMMENTED
    doc.update("profiles", 0, doc.entry("profiles", 0))  # same values: nothing rewritten
    doc.save()
    assert cfg_path.read_text(encoding="utf-8") == COMMENTED


def test_one_key_changed_diff_shows_only_that_line(cfg_path: Path) -> None:
    doc = ConfigDoc.load(cfg_path)
    doc.update("profiles", 0, {"concurrency": 4})
    doc.save()
    after = cfg_path.read_text(encoding="utf-8")
    assert _diff(COMMENTED, after) == [
        "-concurrency = 2   # raise carefully: quota",
        "+concurrency = 4   # raise carefully: quota",
    ]
    assert load_config(cfg_path).profile("writer").concurrency == 4


def test_list_add_duplicate_remove_keep_the_rest(cfg_path: Path) -> None:
    doc = ConfigDoc.load(cfg_path)
    assert doc.names("profiles") == ["writer", "chat"]
    assert doc.names("endpoints") == ["local"]
    i = doc.add("profiles", {"name": "direct", "kind": "api", "base_url": "http://127.0.0.1:9/v1",
                             "model": "m", "api_key_env": None})
    assert i == 2
    j = doc.duplicate("accounts", 0)
    assert doc.names("accounts") == ["chat-1", "chat-1-copy"]
    assert doc.duplicate("accounts", 0) == 1 and doc.names("accounts") == ["chat-1", "chat-1-copy2", "chat-1-copy"]
    doc.remove("accounts", j)
    doc.save()
    cfg = load_config(cfg_path)
    assert [p.name for p in cfg.profiles] == ["writer", "chat", "direct"]
    assert [a.name for a in cfg.accounts] == ["chat-1", "chat-1-copy"]
    text = cfg_path.read_text(encoding="utf-8")
    for kept in ("# MediaDesk config — the operator's notes stay", "# the chat site, driven by Chromium",
                 "# ---- profiles ---", "model = \"sim-1\"   # cheap model", "enabled = true  # first account"):
        assert kept in text
    assert "api_key_env" not in text  # None means "not written"
    # the original lines all still come first, in order
    assert [ln for ln in _diff(COMMENTED, text) if ln.startswith("-")] == []


def test_removing_a_key_and_adding_one_keeps_the_entry_shape(cfg_path: Path) -> None:
    doc = ConfigDoc.load(cfg_path)
    doc.update("profiles", 1, {"url": "http://127.0.0.1:9/chat", "timeout_s": 30.0})
    doc.update("profiles", 0, {"concurrency": None})
    doc.save()
    text = cfg_path.read_text(encoding="utf-8")
    assert "concurrency = 2   # raise carefully: quota" not in text
    chat = text.split("# the chat site, driven by Chromium")[1].split("[[accounts]]")[0]
    assert chat.strip().splitlines()[-2:] == ['url = "http://127.0.0.1:9/chat"', "timeout_s = 30.0"]
    cfg = load_config(cfg_path)
    assert cfg.profile("writer").concurrency is None and cfg.profile("chat").timeout_s == 30.0


def test_validation_messages_are_the_loaders_placed_per_entry(cfg_path: Path) -> None:
    doc = ConfigDoc.load(cfg_path)
    doc.update("profiles", 0, {"concurrency": 9})
    doc.update("accounts", 0, {"profile": "writer"})
    cfg, errors = doc.validate()
    assert cfg is None
    by_place = {(e.section, e.index, e.key): e for e in errors}
    conc = by_place[("profiles", 0, "concurrency")]
    assert conc.line == f"{cfg_path}: profiles[0] (writer).concurrency: {conc.message}"
    assert "less than or equal to 5" in conc.message
    # the same text the loader prints
    cfg_path.write_text(doc.text(), encoding="utf-8")
    with pytest.raises(Exception, match="less than or equal to 5") as info:
        load_config(cfg_path)
    assert conc.line in str(info.value)


def test_entry_level_error_has_no_key(cfg_path: Path) -> None:
    doc = ConfigDoc.load(cfg_path)
    doc.add("profiles", {"name": "half", "kind": "api"})
    errs = doc.errors_of("profiles", 2)
    assert [(e.key, e.message) for e in errs] == [
        (None, "an api profile needs base_url and model (or endpoint and model)")]


def test_duplicate_names_refused_and_nothing_written(cfg_path: Path) -> None:
    doc = ConfigDoc.load(cfg_path)
    doc.duplicate("profiles", 0, name="chat")
    with pytest.raises(ConfigInvalid) as info:
        doc.save()
    assert [(e.section, e.index, e.key) for e in info.value.errors] == [("profiles", 2, "name")]
    assert "duplicate profile name 'chat'" in info.value.errors[0].message
    assert cfg_path.read_text(encoding="utf-8") == COMMENTED


def test_change_on_disk_is_detected_and_not_overwritten(cfg_path: Path) -> None:
    doc = ConfigDoc.load(cfg_path)
    doc.update("profiles", 0, {"concurrency": 1})
    other = COMMENTED.replace("max_retries = 3", "max_retries = 4")
    cfg_path.write_text(other, encoding="utf-8")
    assert doc.changed_on_disk()
    with pytest.raises(ConfigChangedOnDisk, match="changed on disk"):
        doc.save()
    assert cfg_path.read_text(encoding="utf-8") == other
    doc.save(force=True)  # the operator chose to overwrite
    assert load_config(cfg_path).profile("writer").concurrency == 1
    assert not doc.changed_on_disk()


def test_saved_file_is_private_whatever_the_umask(cfg_path: Path) -> None:
    os.chmod(cfg_path, 0o644)
    old = os.umask(0)
    try:
        doc = ConfigDoc.load(cfg_path)
        doc.update("profiles", 0, {"concurrency": 3})
        doc.save()
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(cfg_path).st_mode) == 0o600
    assert [p.name for p in cfg_path.parent.iterdir()] == ["config.toml"]  # no temp file left


def test_symlinked_config_is_refused(tmp_path: Path, cfg_path: Path) -> None:
    link = tmp_path / "link.toml"
    link.symlink_to(cfg_path)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        ConfigDoc.load(link)
    # a link planted after loading is refused at save, and its target untouched
    doc = ConfigDoc.load(cfg_path)
    doc.update("profiles", 0, {"concurrency": 1})
    victim = tmp_path / "victim.toml"
    victim.write_text(COMMENTED, encoding="utf-8")
    cfg_path.unlink()
    cfg_path.symlink_to(victim)
    with pytest.raises((UnsafePathError, ConfigChangedOnDisk)):
        doc.save(force=True)
    assert victim.read_text(encoding="utf-8") == COMMENTED


def test_new_file_is_created_private(tmp_path: Path) -> None:
    path = tmp_path / "new-workspace" / "fresh.toml"
    doc = ConfigDoc.load(path)
    assert not doc.exists and doc.entries("profiles") == []
    doc.add("endpoints", {"name": "sim", "base_url": "http://127.0.0.1:9/v1"})
    doc.add("profiles", {"name": "p", "kind": "api", "endpoint": "sim", "model": "m"})
    doc.save()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    cfg = load_config(path)
    assert cfg.profile("p").endpoint == "sim"


def test_live_changes_sorts_live_from_restart(cfg_path: Path) -> None:
    old = load_config(cfg_path)
    doc = ConfigDoc.load(cfg_path)
    doc.update("profiles", 0, {"concurrency": 4})
    doc.update("accounts", 0, {"enabled": False})
    doc.duplicate("accounts", 0)
    new, errors = doc.validate()
    assert errors == [] and new is not None
    ch = live_changes(old, new)
    assert ch.concurrency == (("writer", 4),)
    assert ch.enabled == (("chat-1", False),)
    assert ch.restart == (("account", "chat-1-copy", "added"),)
    doc.update("profiles", 0, {"model": "sim-2"})
    new2, _ = doc.validate()
    assert new2 is not None and ("profile", "writer", "changed") in live_changes(old, new2).restart


def test_a_browser_change_restarts_the_lanes(cfg_path: Path) -> None:
    old = load_config(cfg_path)
    new = old.model_copy(update={"browser": old.browser.model_copy(update={"executable": Path("/opt/chrome")})})
    assert live_changes(old, new).restart == (("browser", "", "changed"),)
    assert live_changes(old, old).restart == ()


def test_empty_prompt_and_an_endpoints_concurrency_are_live_not_restart(cfg_path: Path) -> None:
    old = load_config(cfg_path)
    doc = ConfigDoc.load(cfg_path)
    doc.update("profiles", 0, {"need_empty_prompt": True})
    doc.update("endpoints", 0, {"concurrency": 1})
    new, errors = doc.validate()
    assert errors == [] and new is not None
    ch = live_changes(old, new)
    assert ch.empty_prompt == (("writer", True),)
    assert ch.endpoint_concurrency == ((old.endpoints[0].name, 1),)
    assert ch.restart == ()
    assert not ch.empty
