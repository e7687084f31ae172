"""Technical error texts in the operator's words, the stored text kept as the detail."""

from __future__ import annotations

import pytest

from mediadesk.viewmodel.plain_errors import RULES, explain


@pytest.mark.parametrize(("stored", "shown", "gone"), [
    ("ConnectError: All connection attempts failed",
     "could not reach the service (nothing answered at its address: is it running, is the address right?)",
     "ConnectError"),
    ("attempt 1 failed (ConnectError: All connection attempts failed); retry in 2 s",
     "attempt 1 failed (could not reach the service", "All connection attempts"),
    ("needs login: simchat: not logged in (the page shows logged_out 'a.login-link')",
     "needs login: simchat: not logged in (the site shows its login link)", "a.login-link"),
    ("chat: not logged in (the page lacks logged_in '.avatar')",
     "chat: not logged in (the page shows no sign of a logged-in account)", ".avatar"),
    ("logged in, prompt box ready", "logged in and ready for a prompt", "prompt box"),
    ("ReadTimeout after 30.0 s", "no answer within 30.0 s", "ReadTimeout"),
    ("TLS error ... Check base_url (http:// or https://, the port)", "Check the Base URL", "base_url"),
    ("profile writer: max_pending 100 reached", "“Most pending tasks” 100 reached", "max_pending"),
    ("the model spent its whole max_tokens (16) thinking (16 reasoning tokens) and wrote no answer: raise max_tokens "
     "for this profile", "whole answer budget (max_tokens = 16) thinking and wrote no answer: raise this profile's "
     "max_tokens in config.toml", "spent its whole"),
])
def test_known_fragments_are_reworded_and_the_original_is_the_detail(stored: str, shown: str, gone: str) -> None:
    said = explain(stored)
    assert shown in said.summary, said.summary
    assert gone not in said.summary
    assert said.detail == stored and said.has_detail


def test_a_text_of_no_known_fragment_is_shown_as_it_is() -> None:
    said = explain("HTTP 500: the upstream model is overloaded (server_busy)")
    assert said.summary == "HTTP 500: the upstream model is overloaded (server_busy)"
    assert said.detail == "" and not said.has_detail
    assert explain("").summary == ""


def test_the_translation_is_applied_to_the_phrase_and_values_are_kept() -> None:
    zh = {"no answer within {seconds} s": "{seconds} 秒内没有回答"}
    said = explain("ReadTimeout after 12.5 s", lambda s: zh.get(s, s))
    assert said.summary == "12.5 秒内没有回答"


def test_every_rule_compiles_and_names_only_its_own_groups() -> None:
    import re

    for pattern, phrase in RULES:
        groups = set(re.compile(pattern).groupindex)
        assert set(re.findall(r"\{([a-z_]+)\}", phrase)) <= groups, (pattern, phrase)
