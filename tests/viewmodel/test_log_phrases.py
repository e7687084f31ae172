"""The task-log phrase catalog knows every phrase the code writes, and renders lines with values kept.

``tests/log_phrase_scan.py`` reads the scheduler, providers, store and retry policy (AST) for every
message that can reach a task's log; each must have a template in ``mediadesk.viewmodel.log_phrases``
(same words, same places for values), so a new log phrase without a template fails here. The fix: add
the template to the catalog and its Chinese to ``resources/i18n/zh_CN_glossary.json`` (context
"LogPhrases"), then run ``packaging/i18n.py``, ``packaging/fill_zh.py``, ``packaging/i18n.py --release``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mediadesk.viewmodel import log_phrases
from mediadesk.viewmodel.log_phrases import PHRASES, LogPhrase, kind_of, match, translate_line
from tests.log_phrase_scan import SOURCES, Phrase, scan

_WORDS = re.compile(r"[A-Za-z]")
SUFFIX_STARTS = ("; ", ", ", " (")


def covered(shape: str, phrases: tuple[LogPhrase, ...] = PHRASES) -> bool:
    """A template has this shape, or one ending in a suffix placeholder (``{more}``) starts it and
    the rest is covered in turn. Only values and punctuation (``"{}: {}"``) need no template."""
    if not _WORDS.search(shape):
        return True
    for p in phrases:
        if p.shape == shape:
            return True
        if p.open_end:
            head = p.shape[:-2]
            rest = shape[len(head):]
            # a suffix must start as the catalog's suffix pattern expects ("; ", ", " or " (")
            if shape == head or (shape.startswith(head) and rest.startswith(SUFFIX_STARTS)
                                 and covered(rest, phrases)):
                return True
    return False


def test_the_suffix_pattern_takes_what_the_suffixes_start_with() -> None:
    opt = log_phrases._PATTERN["opt"]
    for start in SUFFIX_STARTS:
        assert re.fullmatch(opt, start + "x")
    assert re.fullmatch(opt, "") and not re.fullmatch(opt, ")x")


def _uncovered(found: list[Phrase]) -> list[str]:
    return [f"{'part' if p.part else 'line'} {p.shape!r} ({p.where})" for p in found if not covered(p.shape)]


def test_the_scan_reads_the_log_writers() -> None:
    found = scan()
    shapes = {p.shape for p in found}
    assert len(found) > 80, f"the scan found only {len(found)} phrases: is it reading {len(SOURCES)} files?"
    # one of each way a line is written: ctx.log, say(), launcher _log, store _log, log=, Outcome(why)
    for expected in ("answer {} chars; driver overhead {} ms", "automatic login: {} is logged in again",
                     "browser: started chromium pid {} on {}", "attempt {} started", "fallback: {}; moved to {}",
                     "retry {}/{} in {} s", "self-check: clean (removed stale {})", "{} -> not sent: {}",
                     "{} {}: probe ok ({})", "the trial task failed", "recorded by this MediaDesk", "HTTP {}"):
        assert expected in shapes, expected


def test_every_log_phrase_the_code_writes_has_a_template() -> None:
    missing = _uncovered(scan())
    assert not missing, (
        f"{len(missing)} task-log phrase(s) without a template in mediadesk/viewmodel/log_phrases.py "
        "(add one, and its Chinese to resources/i18n/zh_CN_glossary.json under contexts.LogPhrases):\n  "
        + "\n  ".join(missing))


def test_the_check_reports_a_new_log_phrase_with_its_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker itself: a phrase added to a backend is caught and named, as are its parts."""
    import tests.log_phrase_scan as scan_mod

    src = tmp_path / "new_backend.py"
    src.write_text(
        "async def run(task, ctx):\n"
        "    extra = ' (slow)' if task.slow else ''\n"
        "    ctx.log(f'warming up the model {task.model}{extra}')\n"
        "    ctx.log(f'attempt {task.attempt} started')\n",
        encoding="utf-8")
    monkeypatch.setattr(scan_mod, "ROOT", tmp_path)
    found = scan_mod.scan((src,))
    assert {(p.shape, p.part) for p in found} == {
        ("warming up the model {}{}", False), (" (slow)", True), ("attempt {} started", False)}
    missing = _uncovered(found)
    assert sorted(missing) == ["line 'warming up the model {}{}' (new_backend.py:3)",
                               "part ' (slow)' (new_backend.py:2)"]


def _sample(phrase: LogPhrase) -> str:
    values = {"num": "12", "text": "x-1", "phrase": "x-2", "opt": ""}
    return re.sub(r"\{([a-z_]+)\}", lambda m: values[kind_of(m.group(1))], phrase.template)


@pytest.mark.parametrize("phrase", PHRASES, ids=lambda p: p.template[:50])
def test_each_template_matches_its_own_lines_first(phrase: LogPhrase) -> None:
    """No earlier template shadows it (the first full match wins)."""
    found = match(_sample(phrase))
    assert found is not None and found[0] is phrase, (_sample(phrase), found and found[0].template)


def test_templates_are_unique() -> None:
    templates = [p.template for p in PHRASES]
    assert len(templates) == len(set(templates))
    assert log_phrases.CONTEXT == "LogPhrases"


def _mark(template: str) -> str:
    return "<" + template + ">"


@pytest.mark.parametrize(("line", "shown"), [
    ("attempt 3 started", "<attempt 3 started>"),
    # nested words of ours are translated; the error text from the server is kept as it came
    ("attempt 2 failed (timeout: attempt exceeded 60 s); retry 1/2 in 1.3 s",
     "<attempt 2 failed (timeout: attempt exceeded 60 s); <retry 1/2 in 1.3 s>>"),
    ("attempt 1 refused by the callee; attempt not charged (rate_limited: HTTP 429 (slow down)); "
     "endpoint paused 2.5 s; breaker open (3 refusals in 60 s), next probe in 9 s",
     "<attempt 1 <refused by the callee; attempt not charged> (rate_limited: HTTP 429 (slow down))"
     "<; <endpoint> paused 2.5 s<; breaker <open> (3 refusals in 60 s)<, next probe in 9 s>>>>"),
    ("POST /chat/completions stream=0 -> 200 in 0.12 s, 42 chars",
     "<<POST /chat/completions stream=0> -> 200 in 0.12 s, 42 chars>"),
    ("POST /chat/completions stream=1 -> 200 in 1.50 s, 9 chars (truncated: finish_reason=length)",
     "<<POST /chat/completions stream=1> -> 200 in 1.50 s, 9 chars< (truncated: finish_reason=length)>>"),
    ("success in 0.25 s", "<success in 0.25 s>"),
    ("canceled by operator while running", "<canceled <by operator> while running>"),
    ("(at lane start) self-check: clean", "<(at lane start) <self-check: clean>>"),
    ("fallback: api-a could not serve it (auth: HTTP 401); moved to web-b",
     "<fallback: <api-a could not serve it (auth: HTTP 401)>; moved to web-b>"),
    # capacity notices, with the breaker's state words and reason
    ("endpoint api-1: breaker closed -> open (3 of the last 5 calls failed)",
     "<<endpoint> api-1: breaker <closed> -> <open> (<3 of the last 5 calls failed>)>"),
    ("account account acct-a: probe failed (needs login: the login page is shown)",
     "<<account> account acct-a: probe failed (<needs login: the login page is shown>)>"),
    ("self-check: profile /p is in use by chromium pid 7; close it or wait (recorded by this MediaDesk)",
     "<self-check: profile /p is in use by chromium pid 7; close it or wait (<recorded by this MediaDesk>)>"),
    # not ours: shown as stored
    ("something a newer MediaDesk wrote", "something a newer MediaDesk wrote"),
    ("", ""),
])
def test_lines_render_with_values_verbatim(line: str, shown: str) -> None:
    assert translate_line(line, _mark) == shown


def test_the_suffix_chain_translates_each_piece() -> None:
    line = ("attempt 1 refused by the callee; attempt not charged (rate_limited: HTTP 429); "
            "callee paused 2.5 s; breaker open (refusals), next probe in 9 s")
    assert translate_line(line, _mark) == (
        "<attempt 1 <refused by the callee; attempt not charged> (rate_limited: HTTP 429)"
        "<; callee paused 2.5 s<; breaker <open> (refusals)<, next probe in 9 s>>>>")


def test_a_missing_translation_shows_the_english_template() -> None:
    assert translate_line("attempt 3 started", lambda _t: "") == "attempt 3 started"
