"""Counters of the API simulator, as a test reads them from the callee's side.

They count chat requests only, unless said otherwise; outage, token and batch counters are in
``_api_outages``, ``_api_tokens`` and ``_api_batches``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ChatStats"]


class ChatStats:
    """Counters that :meth:`ApiSimServer.reset_stats` replaces; live state (in flight) carries over."""

    __slots__ = (
        "in_flight",
        "max_concurrent",
        "max_in_flight_per_key",
        "models_requests",
        "per_task",
        "refused_429",
        "refused_429_per_key",
        "requests_total",
        "status_counts",
        "system_messages",
    )

    def __init__(self, in_flight: int = 0, key_in_flight: dict[str, int] | None = None) -> None:
        #: Also reported as ``chat_requests_total``.
        self.requests_total = 0
        self.in_flight = in_flight
        self.max_concurrent = in_flight
        #: Status as a string ("200", "429", ...), plus "reset" and "hang" for requests that got no HTTP
        #: response. A connect refused by the kernel (``refuse`` outage) never reaches us: not counted.
        self.status_counts: dict[str, int] = {}
        #: Every 429 sent (quota, per key, injected, outage); ``refused_429_per_key``: the per-key ones.
        self.refused_429 = 0
        self.refused_429_per_key = 0
        #: Per task key; ``last_answer`` is the exact text sent.
        self.per_task: dict[str, dict[str, Any]] = {}
        self.system_messages = 0
        #: ``GET /v1/models`` requests (health probes).
        self.models_requests = 0
        #: ``key_hash`` label -> most concurrent chat requests of that key (raw keys are never kept).
        #: Starts from the requests in flight, as ``max_concurrent`` does after a reset.
        self.max_in_flight_per_key: dict[str, int] = dict(key_in_flight or {})

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests_total": self.requests_total,
            "chat_requests_total": self.requests_total,
            "models_requests": self.models_requests,
            "max_concurrent": self.max_concurrent,
            "in_flight": self.in_flight,
            "max_in_flight_per_key": dict(self.max_in_flight_per_key),
            "status_counts": dict(self.status_counts),
            "refused_429": self.refused_429,
            "refused_429_per_key": self.refused_429_per_key,
            "per_task": {key: dict(task) for key, task in self.per_task.items()},
            "system_messages": self.system_messages,
        }
