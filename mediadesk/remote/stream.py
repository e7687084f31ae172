"""``GET /v1/events``: the events as Server-Sent Events, for a script that wants them pushed without
running a webhook receiver.

The stream carries the webhook events (``batch_done``, ``task_failed``, ``account_needs_person``,
``endpoint_stopped``) and ``task_changed`` (every task state change: id, state, attempt, lane, error
kind). It opens with an ``event: ready`` line once the subscription is live, so a script can act
(submit a batch) without missing what follows; ``limit`` ends it after that many events (``0``:
only ``ready``). A client too slow to read gets ``event: overflow`` and the end of the stream,
never a growing queue; a comment line every :data:`KEEPALIVE_S` keeps idle proxies from closing it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable

from mediadesk.remote.outbound import Envelope, envelope
from mediadesk.scheduler.events import Event, TaskChanged

STREAM_KINDS = ("batch_done", "task_failed", "account_needs_person", "endpoint_stopped", "task_changed")
QUEUE_MAX = 1000
KEEPALIVE_S = 15.0
_OVERFLOW: Envelope = {"event": "overflow"}


class EventStreams:
    """The open streams; :meth:`offer` fans an envelope out to those that asked for its kind."""

    def __init__(self) -> None:
        self._subs: dict[asyncio.Queue[Envelope], frozenset[str]] = {}
        self.closing = asyncio.Event()

    def offer(self, env: Envelope) -> None:
        for q, kinds in list(self._subs.items()):
            if env["event"] not in kinds:
                continue
            if q.qsize() >= QUEUE_MAX - 1:
                q.put_nowait(_OVERFLOW)
                del self._subs[q]
            else:
                q.put_nowait(env)

    def on_bus(self, ev: Event) -> None:
        if isinstance(ev, TaskChanged) and any("task_changed" in k for k in self._subs.values()):
            self.offer(envelope("task_changed", {
                "task_id": ev.task_id, "state": ev.state, "attempt": ev.attempt, "lane": ev.lane,
                "account": ev.account, "error_kind": ev.error_kind,
            }))

    async def stream(self, kinds: frozenset[str], limit: int | None,
                     is_disconnected: Callable[[], object]) -> AsyncIterator[bytes]:
        q: asyncio.Queue[Envelope] = asyncio.Queue()
        self._subs[q] = kinds
        try:
            yield b"event: ready\ndata: {}\n\n"
            sent = 0
            while limit is None or sent < limit:
                getter = asyncio.ensure_future(q.get())
                closing = asyncio.ensure_future(self.closing.wait())
                try:
                    done, _ = await asyncio.wait({getter, closing}, timeout=KEEPALIVE_S,
                                                 return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for f in (getter, closing):
                        if not f.done():
                            f.cancel()
                            with contextlib.suppress(asyncio.CancelledError):
                                await f
                if getter in done:
                    env = getter.result()
                    if env is _OVERFLOW:
                        yield b"event: overflow\ndata: {}\n\n"
                        return
                    data = json.dumps(env, ensure_ascii=False, separators=(",", ":"))
                    yield f"id: {env['id']}\nevent: {env['event']}\ndata: {data}\n\n".encode()
                    sent += 1
                elif self.closing.is_set():
                    return
                else:
                    if await _maybe_await(is_disconnected()):
                        return
                    yield b": keepalive\n\n"
        finally:
            self._subs.pop(q, None)


async def _maybe_await(value: object) -> bool:
    if asyncio.iscoroutine(value):
        return bool(await value)
    return bool(value)
