"""When a task is quarantined: it keeps crashing the browser, the page, or timing out whole runs.

Such a task (a prompt that hangs the chat page, say) would otherwise take down one account after
another on every retry. Only failures that hurt the runner count; a refusal or a bad request is
the endpoint's or the task's own business and is handled by retries and breakers.
"""

from __future__ import annotations

from mediadesk.core.errors import ErrorKind

__all__ = ["QUARANTINE_KINDS", "counts_toward_quarantine", "should_quarantine"]

#: ``timeout`` is the whole-run deadline (the lane's attempt timeout; the API backend also uses it
#: for an HTTP read timeout, which then counts too).
QUARANTINE_KINDS = frozenset({ErrorKind.BROWSER_CRASH, ErrorKind.TIMEOUT, ErrorKind.HEARTBEAT_TIMEOUT})


def counts_toward_quarantine(kind: ErrorKind) -> bool:
    return kind in QUARANTINE_KINDS


def should_quarantine(crash_attempts: int, threshold: int) -> bool:
    """Quarantine once ``crash_attempts`` reach ``threshold``; a threshold <= 0 disables quarantine."""
    return threshold > 0 and crash_attempts >= threshold
