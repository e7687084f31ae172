"""What needs the operator, kept until it is seen or handled (no Qt; shown by the Notices dock, the
window title, status bar and tray icon).

A **condition** (account needs a person, endpoint stopped, key refused, database failed) lasts while
it holds and clears itself; an **event** (batch finished) stays until cleared. An item counts as
"needs you" until marked seen; a condition met again after clearing is a new, unseen item. Items
carry facts (kind, subject, detail, counts), not sentences: the face words them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

__all__ = ["KINDS", "AttentionBoard", "AttentionItem"]

#: Every kind of item, in the order of their urgency.
KINDS = ("storage", "login", "challenge", "key_rejected", "stopped", "batch_done")
_CONDITIONS = frozenset({"storage", "login", "challenge", "key_rejected", "stopped"})

#: Account healths that end a "login" / "challenge" item (the account can serve, or the operator
#: switched it off: either way nobody is waited for).
_HEALTHY = frozenset({"ready", "busy", "resting", "disabled"})


@dataclass(frozen=True)
class AttentionItem:
    key: str
    kind: str                 # one of KINDS
    subject: str              # the account, the callee ("endpoint api-x"), the lane, the database file
    detail: str = ""          # the reason as the scheduler said it (shown as plain text)
    ts: float = 0.0
    seen: bool = False
    #: batch_done: (succeeded, failed, canceled).
    counts: tuple[int, ...] = field(default=())

    @property
    def condition(self) -> bool:
        """Stays while its condition lasts, and goes when it clears."""
        return self.kind in _CONDITIONS


class AttentionBoard:
    """The items, newest first; :meth:`count` is what needs the operator (the unseen ones)."""

    def __init__(self) -> None:
        self._items: dict[str, AttentionItem] = {}
        self._batches = 0

    # ------------------------------------------------------------------ reading
    def items(self) -> list[AttentionItem]:
        return sorted(self._items.values(), key=lambda i: i.ts, reverse=True)

    def count(self) -> int:
        return sum(1 for i in self._items.values() if not i.seen)

    def get(self, key: str) -> AttentionItem | None:
        return self._items.get(key)

    # ------------------------------------------------------------------ the operator
    def mark_seen(self, keys: Iterable[str] | None = None) -> bool:
        """Mark ``keys`` (default: all) seen; returns whether anything changed."""
        changed = False
        for key in list(self._items) if keys is None else keys:
            item = self._items.get(key)
            if item is not None and not item.seen:
                self._items[key] = replace(item, seen=True)
                changed = True
        return changed

    def clear_seen(self) -> bool:
        """Remove the seen events (a seen condition stays until it clears)."""
        gone = [k for k, i in self._items.items() if i.seen and not i.condition]
        for key in gone:
            del self._items[key]
        return bool(gone)

    # ------------------------------------------------------------------ raised and cleared
    def raise_item(self, kind: str, subject: str, detail: str, ts: float, *, key: str | None = None,
                   counts: tuple[int, ...] = ()) -> bool:
        """Add an item unless the same condition is already listed; returns whether one was added."""
        key = key or f"{kind}:{subject}"
        if key in self._items:
            return False
        self._items[key] = AttentionItem(key, kind, subject, detail, ts, counts=counts)
        return True

    def clear(self, key: str) -> bool:
        """The condition of ``key`` cleared (handled): the item goes."""
        return self._items.pop(key, None) is not None

    # ------------------------------------------------------------------ from the scheduler's events
    def on_account(self, account: str, health: str, last_error: str | None, ts: float) -> bool:
        if health == "needs_login":
            changed = self.clear(f"challenge:{account}")
            return self.raise_item("login", account, last_error or "", ts) or changed
        if health == "challenge":
            changed = self.clear(f"login:{account}")
            return self.raise_item("challenge", account, last_error or "", ts) or changed
        if health in _HEALTHY:
            return self.clear(f"login:{account}") | self.clear(f"challenge:{account}")
        return False

    def on_callee(self, callee: str, breaker: str, reason: str | None, ts: float) -> bool:
        """``callee``: "endpoint NAME" / "account NAME"; an open breaker stops it taking tasks."""
        if breaker == "open":
            return self.raise_item("stopped", callee, reason or "", ts)
        if breaker == "closed":
            return self.clear(f"stopped:{callee}")
        return False  # half-open: probing, the item stays as it is

    def on_task(self, lane: str | None, state: str, error_kind: str | None, error: str | None, ts: float) -> bool:
        """A key refused (HTTP 401/403) on a lane; a success there again clears it."""
        if lane is None:
            return False
        if state == "failed" and error_kind == "auth":
            return self.raise_item("key_rejected", lane, error or "", ts)
        if state == "success":
            return self.clear(f"key_rejected:{lane}")
        return False

    def on_batch_done(self, ok: int, failed: int, canceled: int, ts: float) -> bool:
        self._batches += 1
        return self.raise_item("batch_done", "", "", ts, key=f"batch_done:{self._batches}",
                               counts=(ok, failed, canceled))

    def on_storage_failed(self, path: str, detail: str, ts: float) -> bool:
        return self.raise_item("storage", path, detail, ts)
