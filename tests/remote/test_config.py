"""``[remote]`` in the config: checked up front like every other table, errors naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from mediadesk.config.model import ConfigError, load_config, parse_config


@pytest.mark.parametrize(("remote", "key", "words"), [
    ({"tls_cert": "c.pem"}, "remote", "tls_cert and tls_key go together"),
    ({"token_env": "not a name"}, "remote.token_env", "NAME of an environment variable"),
    ({"token_keyring": "nocolon"}, "remote.token_keyring", "service:username"),
    ({"port": 70000}, "remote.port", "65535"),
    ({"webhooks": [{"url": "ftp://x", "events": ["batch_done"]}]}, "remote.webhooks[0].url", "http"),
    ({"webhooks": [{"url": "http://127.0.0.1:9/h", "events": ["batch_dnoe"]}]}, "remote.webhooks[0].events", ""),
    ({"commands": [{"program": "notify-send hi", "events": ["batch_done"]}]}, "remote.commands[0].program", ""),
    ({"tokn_env": "X"}, "remote.tokn_env", ""),
])
def test_a_bad_remote_table_names_its_key(remote: dict, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config({"remote": remote}, "cfg.toml")
    text = str(err.value)
    assert key in text and words in text, text


def test_tls_paths_are_relative_to_the_config_file(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('[remote]\ntls_cert = "tls/cert.pem"\ntls_key = "/abs/key.pem"\n'
                   '[[remote.commands]]\nprogram = ["true"]\nevents = ["batch_done"]\n', encoding="utf-8")
    remote = load_config(cfg).remote
    assert (remote.tls_cert, remote.tls_key) == (tmp_path / "tls" / "cert.pem", Path("/abs/key.pem"))
    assert (remote.enabled, remote.host, remote.port) == (False, "127.0.0.1", 8765)
    assert remote.commands[0].program == ("true",)
