"""Config validation: every user error names the file and the key, no traceback material."""

from __future__ import annotations

from pathlib import Path

import pytest

from mediadesk.config.model import ConfigError, load_config

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
        ('[[profiles]]\nname = "x"\nkind = "api"\nbase_url = "http://h"\nmodel = "m"\nactive_hours = "22-7"\n',
         "profiles[2] (x).active_hours", "'22-7' is not a range HH:MM-HH:MM"),
        ('[[accounts]]\nname = "b"\nprofile = "chat"\nactive_hours = "09:00-25:00"\n', "accounts[1] (b).active_hours",
         "25:00 is not a time of day"),
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


# ------------------------------------------------------------------------ strict types (issue 9, item 16)
WRITER = '[[profiles]]\nname = "writer"\nkind = "api"\nbase_url = "http://127.0.0.1:8001/v1"\nmodel = "m"\n'


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        # before: silently converted to 3 / true / 2
        (WRITER + 'concurrency = "3"\n', "profiles[0] (writer).concurrency",
         'expected an integer, got a string ("3") (write the number without quotes)'),
        (WRITER + "concurrency = true\n", "profiles[0] (writer).concurrency", "expected an integer, got a boolean"),
        (WRITER + "concurrency = 3.0\n", "profiles[0] (writer).concurrency", "expected an integer, got a float"),
        (WRITER + "stream = 1\n", "profiles[0] (writer).stream", "expected true or false, got an integer (1)"),
        (WRITER + 'stream = "true"\n', "profiles[0] (writer).stream", "write true without quotes"),
        (WRITER + "timeout_s = true\n", "profiles[0] (writer).timeout_s", "expected a number, got a boolean"),
        (WRITER + 'max_answer_chars = "5"\n', "profiles[0] (writer).max_answer_chars", "expected an integer"),
        (WRITER + "max_answer_chars = 0\n", "profiles[0] (writer).max_answer_chars", "greater than or equal to 1"),
        (WRITER + "max_run_s = 0\n", "profiles[0] (writer).max_run_s", "greater than 0"),
        (WRITER + 'fallback = ["writer2", 3]\n', "profiles[0] (writer).fallback[1]", "expected a string"),
        ('[retry]\nmax_retries = "2"\n', "retry.max_retries", "expected an integer"),
        ("[heartbeat]\ninterval_s = false\n", "heartbeat.interval_s", "expected a number"),
        ('[browser]\nheadless = "no"\n', "browser.headless", "expected true or false"),
        ('[browser]\nextra_args = ["--a", 2]\n', "browser.extra_args[1]", "expected a string"),
        ("[browser]\nexecutable = 5\n", "browser.executable", "expected a path"),
        ('[rates]\nper_domain = { "h" = "60" }\n', "rates.per_domain.h", "expected a number"),
        ('[[endpoints]]\nname = "e"\nbase_url = "http://h"\nconcurrency = "2"\n', "endpoints[0] (e).concurrency",
         "expected an integer"),
        ('[[endpoints]]\nname = "e"\nbase_url = "http://h"\nadaptive = 0\n', "endpoints[0] (e).adaptive",
         "expected true or false"),
        ('[[profiles]]\nname = "c"\nkind = "web"\nsite = "s"\n'
         '[[accounts]]\nname = "a"\nprofile = "c"\nenabled = "yes"\n',
         "accounts[0] (a).enabled", "expected true or false"),
        ('[[profiles]]\nname = "c"\nkind = "web"\nsite = "s"\nmax_answer_chars = 10\n', "profiles[0] (c)",
         "max_answer_chars is for api profiles only"),
        ('profiles = "writer"\n', "profiles", "expected a list"),
    ],
)
def test_strict_types_name_the_key_and_the_expected_type(tmp_path: Path, text: str, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as exc:
        load_config(write(tmp_path, text))
    msg = str(exc.value)
    assert f"{tmp_path / 'config.toml'}: {key}: " in msg, msg
    assert words in msg, msg
    assert "Traceback" not in msg


def test_numbers_and_defaults_of_the_new_keys(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, WRITER + "timeout_s = 60\n"  # a float key takes an integer
                            + WRITER.replace('"writer"', '"w2"') + "max_answer_chars = 1000\nmax_run_s = 90\n"
                            + '[[profiles]]\nname = "c"\nkind = "web"\nsite = "s"\nmax_run_s = 300\n'))
    writer, w2, chat = cfg.profile("writer"), cfg.profile("w2"), cfg.profile("c")
    assert writer.timeout_s == 60.0 and isinstance(writer.timeout_s, float)
    assert (writer.max_answer_chars, writer.api_max_run_s) == (200_000, 600.0)  # defaults
    assert (w2.max_answer_chars, w2.api_max_run_s) == (1000, 90.0)
    assert chat.max_run_s == 300.0


def test_missing_api_keys_only_for_the_profiles_asked(tmp_path: Path) -> None:
    from mediadesk.config.model import missing_api_keys

    cfg = load_config(write(tmp_path, """
[[endpoints]]
name = "x"
base_url = "http://127.0.0.1:8001/v1"
api_key_env = "X_KEY"
[[endpoints]]
name = "ring"
base_url = "http://127.0.0.1:8003/v1"
api_key_env = "RING_KEY"
api_key_keyring = "svc:user"
[[profiles]]
name = "a"
kind = "api"
endpoint = "x"
model = "m"
[[profiles]]
name = "b"
kind = "api"
endpoint = "x"
model = "m"
[[profiles]]
name = "c"
kind = "api"
base_url = "http://127.0.0.1:8002/v1"
model = "m"
api_key_env = "C_KEY"
[[profiles]]
name = "r"
kind = "api"
endpoint = "ring"
model = "m"
[[profiles]]
name = "local"
kind = "api"
base_url = "http://127.0.0.1:8004/v1"
model = "m"
"""))
    missing = missing_api_keys(cfg, ["b", "a", "r", "local"], environ={"C_KEY": "sk-1"})
    assert [(m.env, m.profiles) for m in missing] == [("X_KEY", ("a", "b"))]  # config order; keyring may hold R
    assert "export X_KEY=..." in missing[0].message() and "a, b" in missing[0].message()
    assert missing_api_keys(cfg, ["c"], environ={})[0].env == "C_KEY"
    assert missing_api_keys(cfg, ["c"], environ={"C_KEY": "  "})[0].env == "C_KEY"  # blank is unset
    assert missing_api_keys(cfg, ["c", "local"], environ={"C_KEY": "sk-1"}) == []
    assert missing_api_keys(cfg, [], environ={}) == []


def test_active_hours_are_kept_normalised(tmp_path: Path) -> None:
    text = GOOD.replace('site = "simchat"', 'site = "simchat"\nactive_hours = "9:00-12:00, 22:00-07:00"')
    cfg = load_config(write(tmp_path, text))
    hours = cfg.profile("chat").hours
    assert cfg.profile("chat").active_hours == "09:00-12:00,22:00-07:00"
    assert hours is not None and hours.ranges == ((540, 720), (1320, 420))
    assert cfg.profile("writer").hours is None


def test_every_hours_message_is_in_the_catalog() -> None:
    from mediadesk.config.messages import TEMPLATES
    from mediadesk.core.hours import HOURS_TEMPLATES

    assert set(HOURS_TEMPLATES) <= set(TEMPLATES)
