"""Names that become file and folder names hold to Windows' rules on every system (a config moves between
machines): no device names, no trailing dot or space, no characters Windows refuses, and no two account or
site adapter names that differ only by case (one folder, one file on NTFS and APFS). Real config files."""

from __future__ import annotations

from pathlib import Path

import pytest

from mediadesk.config.model import ConfigError, load_config
from mediadesk.config.names import WINDOWS_RESERVED, case_twin, portable_name_problem

BASE = """
[[profiles]]
name = "writer"
kind = "api"
base_url = "http://127.0.0.1:8001/v1"
model = "m"
[[profiles]]
name = "chat"
kind = "web"
site = "simchat"
[[accounts]]
name = "Alice"
profile = "chat"
"""


def load(tmp_path: Path, text: str) -> str:
    """The ConfigError's text for ``text`` as a config file (fails the test when it loads)."""
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    message = str(exc.value)
    assert message.startswith(f"{path}: "), message
    return message


@pytest.mark.parametrize("name", ["CON", "con", "Nul", "nul.txt", "COM1", "com9.log", "LPT1", "lpt3.tar.gz", "AUX",
                                  "PRN", "PRN.x", "COM\u00b9", "conin$", "CON .txt"])
def test_windows_device_names_are_refused_in_any_case_with_any_extension(name: str) -> None:
    why = portable_name_problem(name)
    assert why is not None and "device name on Windows" in why.english() and repr(name) in why.english()


@pytest.mark.parametrize("name", ["CONSOLE", "con-1", "nul_", "COM10", "LPT", "my.con", "COMA", "acct.1", "写手"])
def test_names_near_the_device_names_pass(name: str) -> None:
    assert portable_name_problem(name) is None


@pytest.mark.parametrize(("name", "words"), [
    ("alice.", "must not end with a dot or a space"),
    ("alice ", "must not end with a dot or a space"),
    ("a<b", "'<' cannot be in a file or folder name on Windows"),
    ('a"b|c', "'\"' '|' cannot be in"),
    ("a:b", "':' cannot be in"),
    ("a/b\\c", "'/' '\\\\' cannot be in"),
    ("what?*", "'*' '?' cannot be in"),
    ("tab\there", "'\\t' cannot be in"),
])
def test_trailing_dots_spaces_and_windows_forbidden_characters(name: str, words: str) -> None:
    why = portable_name_problem(name)
    assert why is not None and words in why.english()


def test_case_twins() -> None:
    assert case_twin(["Alice", "bob", "ALICE"]) == (0, 2)
    assert case_twin(["alice", "alice", "Alice"]) == (0, 2)  # equal names are duplicates, the twin is the third
    assert case_twin(["alice", "bob", "alice"]) is None
    assert case_twin([]) is None
    assert {"CON", "NUL", "COM1", "LPT9", "COM0"} <= WINDOWS_RESERVED


@pytest.mark.parametrize(("table", "name", "key"), [
    ("accounts", "NUL", "accounts[1] (NUL).name"),
    ("accounts", "lpt1.profile", "accounts[1] (lpt1.profile).name"),
    ("accounts", "bob.", "accounts[1] (bob.).name"),
    ("profiles", "Con", "profiles[2] (Con).name"),
    ("endpoints", "aux", "endpoints[0] (aux).name"),
])
def test_a_config_refuses_them_naming_the_key(tmp_path: Path, table: str, name: str, key: str) -> None:
    extra = {
        "accounts": f'[[accounts]]\nname = "{name}"\nprofile = "chat"\n',
        "profiles": f'[[profiles]]\nname = "{name}"\nkind = "web"\nsite = "simchat"\n',
        "endpoints": f'[[endpoints]]\nname = "{name}"\nbase_url = "http://127.0.0.1:8002/v1"\n',
    }[table]
    message = load(tmp_path, BASE + extra)
    assert f": {key}: " in message, message
    assert "on Windows" in message or "dot or a space" in message


def test_a_site_adapter_name_is_a_file_name_too(tmp_path: Path) -> None:
    message = load(tmp_path, BASE.replace('site = "simchat"', 'site = "prn"'))
    assert ": profiles[1] (chat).site: " in message and "'prn' is a device name on Windows" in message


def test_accounts_that_differ_only_by_case_are_one_folder(tmp_path: Path) -> None:
    message = load(tmp_path, BASE + '[[accounts]]\nname = "bob"\nprofile = "chat"\n'
                                    '[[accounts]]\nname = "alice"\nprofile = "chat"\n')
    assert ": accounts[2].name: 'alice' and 'Alice' (accounts[0].name) differ only by case" in message, message
    assert "on Windows and macOS these are the same folder" in message


def test_site_adapters_that_differ_only_by_case_are_one_file(tmp_path: Path) -> None:
    message = load(tmp_path, BASE + '[[profiles]]\nname = "chat2"\nkind = "web"\nsite = "SimChat"\n')
    assert ": profiles[2] (chat2).site: 'SimChat' and 'simchat' (profiles[1] (chat).site) differ only by case" \
        in message, message
    assert "the same site adapter file" in message


def test_the_same_site_twice_and_distinct_names_still_load(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(BASE + '[[profiles]]\nname = "chat2"\nkind = "web"\nsite = "simchat"\n'
                           '[[accounts]]\nname = "alice-2"\nprofile = "chat2"\n', encoding="utf-8")
    cfg = load_config(path)
    assert [a.name for a in cfg.accounts] == ["Alice", "alice-2"]
