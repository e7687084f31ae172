"""Task-log lines as data: every phrase renders with its values, in English and through a translation,
and a line survives the trip through JSON (the form the store keeps) with its nested words."""

from __future__ import annotations

import re

import pytest

from mediadesk.core.log_lines import CONTEXT, LOG, PHRASES, LogText, Phrase, breaker_word, callee_word, english


def _mark(template: str) -> str:
    return "<" + template + ">"


@pytest.mark.parametrize("phrase", PHRASES.values(), ids=lambda p: p.id)
def test_every_phrase_renders_its_values(phrase: Phrase) -> None:
    values = {name: f"v-{name}" for name in phrase.names}
    text = phrase(**values)
    filled = re.sub(r"\{([a-z_]+)\}", lambda m: values[m.group(1)], phrase.template)
    assert text.known and text.english() == filled
    assert text.render(_mark) == "<" + filled + ">"  # the template goes through the translation
    assert LogText.from_json(text.to_json()) == text


def test_ids_are_the_attribute_names_and_templates_are_unique() -> None:
    assert all(getattr(LOG, pid) is p for pid, p in PHRASES.items())
    templates = [p.template for p in PHRASES.values()]
    assert len(templates) == len(set(templates))
    assert CONTEXT == "LogPhrases"


def test_a_missing_or_unknown_value_fails_at_the_call() -> None:
    with pytest.raises(TypeError, match="attempt_started"):
        LOG.attempt_started()
    with pytest.raises(TypeError, match="attempt_started"):
        LOG.attempt_started(attempt=1, extra="x")


def test_nested_words_are_translated_and_values_kept_verbatim() -> None:
    line = LOG.attempt_requeued(
        attempt=1, why=LOG.refused_not_charged(), error="rate_limited: HTTP 429 (slow down)",
        more=(LOG.named_callee_paused(callee=callee_word("endpoint"), seconds="2.5", more=""),
              LOG.breaker_now(breaker=breaker_word("open"), reason="3 refusals in 60 s",
                              more=LOG.next_probe_in(seconds="9"))))
    assert line.english() == (
        "attempt 1 refused by the callee; attempt not charged (rate_limited: HTTP 429 (slow down)); "
        "endpoint paused 2.5 s; breaker open (3 refusals in 60 s), next probe in 9 s")
    assert line.render(_mark) == (
        "<attempt 1 <refused by the callee; attempt not charged> (rate_limited: HTTP 429 (slow down))"
        "<; <endpoint> paused 2.5 s><; breaker <open> (3 refusals in 60 s)<, next probe in 9 s>>>")
    assert str(line) == line.english()
    back = LogText.from_stored(line.id, line.params_json())
    assert back == line and back.render(_mark) == line.render(_mark)


def test_a_missing_translation_shows_the_english_template() -> None:
    assert LOG.attempt_started(attempt=3).render(lambda _t: "") == "attempt 3 started"


def test_a_phrase_this_version_does_not_know_is_not_known() -> None:
    newer = LogText.from_json('{"id": "a_phrase_from_a_newer_mediadesk", "params": {"n": 2}}')
    assert not newer.known
    assert not LOG.not_run(why=newer).known
    assert LOG.not_run(why="plain words").known


def test_values_round_trip_with_their_types() -> None:
    text = LOG.retry_in(n=1, max=2, seconds="1.3")
    assert text.english() == "retry 1/2 in 1.3 s"
    assert LogText.from_json(text.to_json()).values == {"n": 1, "max": 2, "seconds": "1.3"}
    # a character no database holds as text stays in the JSON as an ASCII escape
    odd = LOG.failed(error="bad \ud800 and \x00")
    assert odd.params_json().isascii() and LogText.from_stored(odd.id, odd.params_json()) == odd
    assert english(("a", LOG.by_operator(), 3)) == "aby operator3"
