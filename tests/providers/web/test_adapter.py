"""Site adapter files: valid ones load, every user mistake names the file and the key."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mediadesk.providers.web.adapter import (
    AdapterError,
    SiteAdapter,
    compose_prompt,
    load_adapter,
    load_adapters,
    with_url,
)

ROOT = Path(__file__).resolve().parents[3]
PAGES = Path(__file__).parent / "pages"

MINIMAL = """\
url = "http://127.0.0.1:8002/chat"
logged_in = ".avatar"
prompt = "textarea"
send = "button.send"
answer = ".assistant .content"
busy = ".stop"
"""


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    p.write_text(text, encoding="utf-8")
    return p


def error_of(path: Path) -> AdapterError:
    with pytest.raises(AdapterError) as info:
        load_adapter(path)
    assert str(path) in str(info.value)
    return info.value


def test_minimal_adapter_gets_the_documented_defaults(tmp_path: Path) -> None:
    a = load_adapter(write(tmp_path, "mysite.toml", MINIMAL))
    assert a.name == "mysite"
    assert a.send == "button.send" and a.send_key is None
    assert (a.settle_ms, a.max_run_s, a.start_timeout_s, a.page_load_timeout_s) == (800, 600.0, 20.0, 30.0)
    assert (a.answer_format, a.instructions_mode) == ("text", "prepend")
    assert a.effective_login_url == a.url
    assert a.stop_selector == ".stop"  # stop defaults to busy
    assert a.source == str(tmp_path / "mysite.toml")


def test_all_optional_keys(tmp_path: Path) -> None:
    text = (
        MINIMAL.replace('send = "button.send"\n', 'send_key = "Enter"\n')
        + """
name = "Mine"
settle_ms = 50
max_run_s = 1.5
login_url = "https://example.test/login"
new_chat = "a.new"
error = ".err"
answer_format = "html"
logged_out = "a.login"
start_timeout_s = 2
instructions_mode = "none"
stop = "button.stop"
page_load_timeout_s = 5
"""
    )
    a = load_adapter(write(tmp_path, "x.toml", text))
    assert a.send is None and a.send_key == "Enter"
    assert a.name == "Mine" and a.settle_ms == 50 and a.max_run_s == 1.5
    assert isinstance(a.start_timeout_s, float) and a.start_timeout_s == 2.0
    assert a.effective_login_url == "https://example.test/login"
    assert a.stop_selector == "button.stop" and a.answer_format == "html"


def test_shipped_example_and_test_sites_are_valid(tmp_path: Path) -> None:
    example = ROOT / "resources" / "sites" / "EXAMPLE.toml.txt"
    copy = tmp_path / "example.toml"
    shutil.copy(example, copy)
    a = load_adapter(copy)
    assert a.settle_ms == 800 and a.send == "button.send"
    # Every optional key is documented in the example (commented out or set).
    text = example.read_text(encoding="utf-8")
    for key in (
        "name",
        "login_url",
        "send_key",
        "new_chat",
        "error",
        "answer_format",
        "logged_out",
        "start_timeout_s",
        "instructions_mode",
        "stream_url",
        "stop",
        "page_load_timeout_s",
        "dismiss",
        "send_click",
        "fallbacks",
        "final_error_text",
        "final_error_text_builtin",
        "challenge_text",
    ):
        assert f"# {key} = " in text or f"\n{key} = " in text, key
    for site in ("site_a", "site_b"):
        assert isinstance(load_adapter(PAGES / f"{site}.toml"), SiteAdapter)


def test_unknown_key_is_named_with_a_suggestion(tmp_path: Path) -> None:
    p = write(tmp_path, "typo.toml", MINIMAL + "setle_ms = 500\n")
    err = error_of(p)
    assert "unknown key 'setle_ms'" in str(err) and "did you mean 'settle_ms'" in str(err)


def test_missing_required_key(tmp_path: Path) -> None:
    p = write(tmp_path, "m.toml", 'login_url = "http://127.0.0.1:8002/login"\n')
    assert "missing required key 'url'" in str(error_of(p))


def test_url_alone_is_an_adapter_whose_parts_are_found_by_role(tmp_path: Path) -> None:
    a = load_adapter(write(tmp_path, "bare.toml", 'url = "http://127.0.0.1:8002/chat"\n'))
    assert (a.prompt, a.send, a.send_key, a.answer, a.busy, a.logged_in) == (None,) * 6
    assert a.fallbacks is True and a.dismiss == ()


def test_strict_adapter_needs_its_selectors(tmp_path: Path) -> None:
    p = write(tmp_path, "strict.toml", 'url = "http://127.0.0.1:8002/chat"\nfallbacks = false\nprompt = "textarea"\n')
    err = str(error_of(p))
    assert "with fallbacks = false these keys are required" in err
    assert "'logged_in'" in err and "'answer'" in err and "'busy'" in err and "'prompt'" not in err


def test_selector_keys_take_lists(tmp_path: Path) -> None:
    text = MINIMAL.replace('prompt = "textarea"', 'prompt = ["#composer textarea", "textarea"]')
    a = load_adapter(write(tmp_path, "lists.toml", text + 'dismiss = ["dialog button.close", ".cookie .accept"]\n'))
    assert a.prompt == ("#composer textarea", "textarea")
    assert a.selectors("prompt") == ["#composer textarea", "textarea"]
    assert a.selectors("busy") == [".stop"] and a.selectors("new_chat") == []
    assert a.dismiss == ("dialog button.close", ".cookie .accept")
    for bad, expected in (('prompt = []', "'prompt' must not be an empty list"),
                          ('answer = ["ok", ""]', "answer[1] must be a non-empty string"),
                          ('dismiss = 3', "'dismiss' must be a string or a list")):
        base = MINIMAL.replace('prompt = "textarea"\n', "").replace('answer = ".assistant .content"\n', "")
        p = write(tmp_path, "bad.toml", base + bad + "\n")
        assert expected in str(error_of(p))


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('settle_ms = "800"', "'settle_ms' must be an integer"),
        ("settle_ms = 800.0", "'settle_ms' must be an integer"),
        ("settle_ms = 10", "'settle_ms' must be between 50 and 60000, got 10"),
        ("settle_ms = 70000", "'settle_ms' must be between 50 and 60000, got 70000"),
        ("max_run_s = true", "'max_run_s' must be a number"),
        ("max_run_s = 0", "'max_run_s' must be greater than 0"),
        ("start_timeout_s = -1", "'start_timeout_s' must be greater than 0"),
        ('answer_format = "rich"', "'answer_format' must be one of text, html, markdown"),
        ('instructions_mode = "append"', "'instructions_mode' must be one of prepend, none"),
        ("new_chat = 3", "'new_chat' must be a string"),
        ('error = "  "', "'error' must not be empty"),
        ('login_url = "ftp://x"', "'login_url' must be an http(s) URL"),
    ],
)
def test_bad_values_name_the_key(tmp_path: Path, line: str, expected: str) -> None:
    p = write(tmp_path, "bad.toml", MINIMAL + line + "\n")
    assert expected in str(error_of(p))


def test_send_and_send_key_are_exclusive(tmp_path: Path) -> None:
    both = write(tmp_path, "both.toml", MINIMAL + 'send_key = "Enter"\n')
    assert "got both" in str(error_of(both))
    assert "at most one of 'send'" in str(error_of(both))
    neither = load_adapter(write(tmp_path, "neither.toml", MINIMAL.replace('send = "button.send"\n', "")))
    assert neither.send is None and neither.send_key is None  # found by role on the page


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    p = write(
        tmp_path, "many.toml", MINIMAL.replace('url = "http://127.0.0.1:8002/chat"\n', "") + "settle_ms = 5\nfoo = 1\n"
    )
    err = error_of(p)
    assert len(err.problems) == 3
    assert "missing required key 'url'" in str(err) and "'settle_ms'" in str(err) and "'foo'" in str(err)


def test_invalid_toml_and_missing_file(tmp_path: Path) -> None:
    p = write(tmp_path, "broken.toml", 'url = "http://x\n')
    assert "not valid TOML" in str(error_of(p))
    assert "cannot be read" in str(error_of(tmp_path / "absent.toml"))


def test_user_folder_overrides_builtin_by_stem(tmp_path: Path) -> None:
    builtin, user = tmp_path / "builtin", tmp_path / "user"
    write(builtin, "alpha.toml", MINIMAL)
    write(builtin, "beta.toml", MINIMAL)
    write(builtin, "notes.txt", "not an adapter")
    write(user, "alpha.toml", MINIMAL + "settle_ms = 1234\n")
    write(user, "gamma.toml", MINIMAL + 'name = "Gamma"\n')
    adapters = load_adapters(builtin, user)
    assert sorted(adapters) == ["alpha", "beta", "gamma"]
    assert adapters["alpha"].settle_ms == 1234 and adapters["alpha"].source.startswith(str(user))
    assert adapters["beta"].settle_ms == 800 and adapters["gamma"].name == "Gamma"
    assert load_adapters(builtin, tmp_path / "missing-user-dir").keys() == {"alpha", "beta"}


def test_broken_file_raises_or_is_collected(tmp_path: Path) -> None:
    builtin, user = tmp_path / "builtin", tmp_path / "user"
    write(builtin, "alpha.toml", MINIMAL)
    write(builtin, "beta.toml", MINIMAL)
    bad = write(user, "alpha.toml", MINIMAL + "settle_ms = 1\n")
    with pytest.raises(AdapterError, match="settle_ms"):
        load_adapters(builtin, user)
    errors: list[AdapterError] = []
    adapters = load_adapters(builtin, user, errors=errors)
    # The broken override does not silently fall back to the built-in file.
    assert list(adapters) == ["beta"]
    assert len(errors) == 1 and errors[0].source == str(bad)


def test_with_url(tmp_path: Path) -> None:
    a = load_adapter(write(tmp_path, "s.toml", MINIMAL))
    b = with_url(a, "http://127.0.0.1:9999/other")
    assert b.url == "http://127.0.0.1:9999/other" and b.effective_login_url == b.url
    assert a.url == "http://127.0.0.1:8002/chat"
    # A login page on the same origin moves with the URL; one on another origin stays.
    same = load_adapter(write(tmp_path, "t.toml", MINIMAL + 'login_url = "http://127.0.0.1:8002/login?x=1"\n'))
    assert with_url(same, "http://127.0.0.1:4567/chat").login_url == "http://127.0.0.1:4567/login?x=1"
    other = load_adapter(write(tmp_path, "u.toml", MINIMAL + 'login_url = "https://auth.example/login"\n'))
    assert with_url(other, "http://127.0.0.1:4567/chat").login_url == "https://auth.example/login"
    with pytest.raises(AdapterError, match="must be an http"):
        with_url(a, "not a url")


def test_compose_prompt(tmp_path: Path) -> None:
    a = load_adapter(write(tmp_path, "s.toml", MINIMAL))
    assert compose_prompt(a, "What is 2+2?", "Be brief.\n") == "Be brief.\n\nWhat is 2+2?"
    assert compose_prompt(a, "What is 2+2?", None) == "What is 2+2?"  # need_empty_prompt
    assert compose_prompt(a, "What is 2+2?", "   ") == "What is 2+2?"
    none = load_adapter(write(tmp_path, "n.toml", MINIMAL + 'instructions_mode = "none"\n'))
    assert compose_prompt(none, "What is 2+2?", "Be brief.") == "What is 2+2?"
