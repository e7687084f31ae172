"""The attention board (no Qt): conditions stay until they clear, events until cleared; the count
is what is unseen (issue 20, item 2)."""

from __future__ import annotations

from mediadesk.viewmodel.attention import AttentionBoard


def test_a_login_stays_until_the_account_is_ready_and_counts_until_seen() -> None:
    b = AttentionBoard()
    assert b.on_account("acct-a", "needs_login", "logged out", 1.0)
    assert not b.on_account("acct-a", "needs_login", "logged out", 2.0)  # once per condition
    assert b.count() == 1 and [i.key for i in b.items()] == ["login:acct-a"]
    assert b.mark_seen()
    assert b.count() == 0 and len(b.items()) == 1  # seen, still listed: the account still waits
    assert not b.clear_seen() and len(b.items()) == 1  # a lasting condition is not cleared by hand
    assert b.on_account("acct-a", "ready", None, 3.0)  # handled: it goes by itself
    assert b.items() == [] and b.count() == 0
    assert b.on_account("acct-a", "needs_login", None, 4.0)  # again: a new, unseen item
    assert b.count() == 1


def test_a_bot_check_replaces_the_login_and_a_disabled_account_needs_nobody() -> None:
    b = AttentionBoard()
    b.on_account("acct-a", "needs_login", None, 1.0)
    b.on_account("acct-a", "challenge", "captcha", 2.0)
    assert [i.kind for i in b.items()] == ["challenge"]
    assert b.on_account("acct-a", "disabled", None, 3.0)
    assert b.items() == []


def test_an_open_breaker_stays_while_half_open_and_goes_when_closed() -> None:
    b = AttentionBoard()
    assert b.on_callee("endpoint api-x", "open", "HTTP 503", 1.0)
    assert not b.on_callee("endpoint api-x", "half_open", None, 2.0)
    assert [i.detail for i in b.items()] == ["HTTP 503"]
    assert b.on_callee("endpoint api-x", "closed", None, 3.0)
    assert b.items() == []


def test_a_refused_key_goes_with_the_next_success_on_its_lane() -> None:
    b = AttentionBoard()
    assert b.on_task("api:writer", "failed", "auth", "HTTP 401", 1.0)
    assert not b.on_task("api:other", "success", None, None, 2.0)
    assert b.on_task("api:writer", "success", None, None, 3.0)
    assert b.items() == []


def test_batches_finished_stay_until_cleared_newest_first() -> None:
    b = AttentionBoard()
    b.on_batch_done(2, 1, 0, 1.0)
    b.on_storage_failed("/d/mediadesk.db", "disk full", 2.0)
    b.on_batch_done(5, 0, 1, 3.0)
    assert [i.kind for i in b.items()] == ["batch_done", "storage", "batch_done"]
    assert [i.counts for i in b.items() if i.kind == "batch_done"] == [(5, 0, 1), (2, 1, 0)]
    assert b.count() == 3
    b.mark_seen([b.items()[0].key])
    assert b.count() == 2
    assert b.clear_seen()
    assert [i.counts for i in b.items() if i.kind == "batch_done"] == [(2, 1, 0)]
