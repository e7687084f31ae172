"""Config validation: every user error names the file and the key, no traceback material."""

from __future__ import annotations

from pathlib import Path

import pytest

from mediadesk.config import ConfigError, load_config

GOOD = """
data_dir = "work"
[retry]
max_retries = 2
[heartbeat]
interval_s = 0.5
stale_after_s = 3
[browser]
sites_dir = "sites"
[[profiles]]
name = "writer"
kind = "api"
base_url = "http://127.0.0.1:8001/v1"
model = "m"
api_key_env = "WRITER_KEY"
[[profiles]]
name = "chat"
kind = "web"
site = "simchat"
[[accounts]]
name = "acct-a"
profile = "chat"
profile_dir = "profiles/a"
"""


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "config.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_good_config_defaults_and_relative_paths(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, GOOD))
    assert cfg.profile("writer").api_concurrency == 3  # default
    assert cfg.retry.max_retries == 2 and cfg.heartbeat.stale_after_s == 3
    assert cfg.data_dir == (tmp_path / "work").resolve()
    assert cfg.browser.sites_dir == (tmp_path / "sites").resolve()
    assert cfg.accounts[0].profile_dir == (tmp_path / "profiles/a").resolve()


@pytest.mark.parametrize(
    ("extra", "key", "words"),
    [
        ('[[profiles]]\nname = "x"\nkind = "api"\nbase_url = "http://h"\nmodel = "m"\nconcurrency = 6\n',
         "profiles[2] (x).concurrency", "less than or equal to 5"),
        ('[[profiles]]\nname = "x"\nkind = "api"\nbase_url = "http://h"\nmodel = "m"\nconcurency = 2\n',
         "profiles[2] (x).concurency", "unknown key"),
        ('[[profiles]]\nname = "x"\nkind = "web"\nsite = "s"\nconcurrency = 2\n',
         "profiles[2] (x)", "one task per account"),
        ('[[profiles]]\nname = "writer"\nkind = "api"\nbase_url = "http://h"\nmodel = "m"\n',
         "profiles[2].name", "duplicate profile name"),
        ('[[accounts]]\nname = "b"\nprofile = "writer"\n', "accounts[1].profile", "api profile"),
        ('[[accounts]]\nname = "b"\nprofile = "nope"\n', "accounts[1].profile", "no profile named"),
        ('[[profiles]]\nname = "x"\nkind = "api"\nbase_url = "h"\nmodel = "m"\napi_key_env = "sk-123 secret"\n',
         "profiles[2] (x).api_key_env", "NAME of an environment variable"),
        ('[scheduler]\npoll_interval_s = -1\n', "scheduler.poll_interval_s", "greater than 0"),
    ],
)
def test_bad_values_name_the_key(tmp_path: Path, extra: str, key: str, words: str) -> None:
    text = GOOD.replace('[[accounts]]', extra + '\n[[accounts]]', 1) if extra.startswith("[[profiles]]") \
        else GOOD + "\n" + extra
    with pytest.raises(ConfigError) as exc:
        load_config(write(tmp_path, text))
    msg = str(exc.value)
    assert f"{tmp_path / 'config.toml'}: {key}" in msg, msg
    assert words in msg


def test_heartbeat_stale_must_exceed_interval(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="heartbeat: stale_after_s"):
        load_config(write(tmp_path, GOOD.replace("stale_after_s = 3", "stale_after_s = 0.2")))


def test_toml_syntax_error_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(write(tmp_path, "[retry\nmax_retries = 2"))
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "nope.toml")
