"""Error kinds are shown in the operator's words (one mapping), never as stored identifiers."""

from __future__ import annotations

from typing import Any

from mediadesk.core.errors import ErrorKind
from mediadesk.ui.format import error_kind_label, error_kind_labels, error_line


def test_every_kind_has_words_that_are_not_its_identifier(qapp: Any) -> None:
    labels = error_kind_labels()
    assert set(labels) == {k.value for k in ErrorKind}
    for kind, words in labels.items():
        assert words and "_" not in words, (kind, words)
    assert error_kind_label("needs_login") == "needs login"
    assert error_kind_label("site_error") == "the site showed an error"
    assert error_kind_label("from_a_newer_version") == "from_a_newer_version"  # unknown: as stored
    assert error_kind_label(None) == ""


def test_an_error_line_keeps_the_stored_kind_and_message_as_detail(qapp: Any) -> None:
    said = error_line("connection", "ConnectError: All connection attempts failed")
    assert said.summary.startswith("error: connection problem: could not reach the service")
    assert "ConnectError" not in said.summary
    assert said.detail == "connection: ConnectError: All connection attempts failed"
