"""Bounded reads of what an API server sends: a hostile or broken server never makes the lane hold
more than a cap (answer bodies, SSE lines and events, error bodies), and a malformed answer is a
classified failure, not an exception from deep inside a parser.
"""

from __future__ import annotations

import json
import re

import httpx

from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.core.usage import Usage, usage_of_json
from mediadesk.providers.api.failures import Scrubber, excerpt_of, provider_error

__all__ = [
    "BODY_SLACK",
    "BYTES_PER_CHAR",
    "ERROR_BODY_BYTES",
    "EventTooLong",
    "SseDecoder",
    "error_text",
    "parse_completion",
    "read_capped",
    "too_large",
]

#: Bytes of an error body (non-2xx) read at most: only an excerpt is ever shown.
ERROR_BODY_BYTES = 64 * 1024
#: Bytes a JSON/SSE encoding may spend on one answer character (a non-BMP character escaped as a
#: surrogate pair is 12), plus room for the rest of the body: a body or SSE line past
#: ``max_answer_chars * BYTES_PER_CHAR + BODY_SLACK`` cannot hold an acceptable answer.
BYTES_PER_CHAR = 12
BODY_SLACK = 1024 * 1024
_NEWLINE = re.compile(rb"\r\n|\r|\n")


def parse_completion(raw: bytes, scrub: Scrubber) -> tuple[str, str | None, Usage | None]:
    """(``choices[0].message.content``, ``finish_reason``, ``usage``) of a non-streamed answer; anything
    malformed is a server error (a missing or malformed ``usage`` is None: the lane estimates it)."""
    text = raw.decode("utf-8", errors="replace")
    try:
        obj = json.loads(text)
    except ValueError:
        raise TaskFailure(ErrorKind.SERVER_ERROR, f"malformed JSON answer: {excerpt_of(text, scrub)}") from None
    if isinstance(obj, dict) and obj.get("error"):
        raise provider_error(obj["error"], scrub)
    try:
        choice = obj["choices"][0]
        content = choice["message"]["content"]
    except (KeyError, IndexError, TypeError):
        content = None
    if not isinstance(content, str):
        raise TaskFailure(
            ErrorKind.SERVER_ERROR, f"answer has no choices[0].message.content: {excerpt_of(text, scrub)}"
        )
    reason = choice.get("finish_reason") if isinstance(choice, dict) else None
    return content, (reason if isinstance(reason, str) else None), usage_of_json(obj.get("usage"))


def too_large(cap: int, what: str) -> TaskFailure:
    return TaskFailure(
        ErrorKind.ANSWER_TOO_LARGE,
        f"the answer passed max_answer_chars={cap} ({what}); reading stopped and the connection was closed",
    )


async def read_capped(resp: httpx.Response, limit: int) -> bytes | None:
    """The body, or None as soon as it passes ``limit`` bytes (declared or read): never more than
    ``limit`` plus one network chunk is held. The caller closes the response."""
    declared = resp.headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        return None
    buf = bytearray()
    async for chunk in resp.aiter_bytes():
        buf += chunk
        if len(buf) > limit:
            return None
    return bytes(buf)


async def error_text(resp: httpx.Response) -> str:
    """The start of an error body (at most ``ERROR_BODY_BYTES``), for the excerpt."""
    buf = bytearray()
    async for chunk in resp.aiter_bytes():
        buf += chunk
        if len(buf) >= ERROR_BODY_BYTES:
            break
    return bytes(buf[:ERROR_BODY_BYTES]).decode(resp.encoding or "utf-8", errors="replace")


class EventTooLong(Exception):
    """An SSE line or event passed the byte cap."""


class SseDecoder:
    """Server-sent events from bytes, bounded: a line (or an event's data) longer than
    ``max_bytes`` raises :class:`EventTooLong` instead of growing a buffer without end (a server
    that never sends a newline). Yields each event's data; comments and other fields are skipped."""

    __slots__ = ("_after_cr", "_buf", "_data", "_data_len", "_max")

    def __init__(self, max_bytes: int) -> None:
        self._buf = bytearray()
        self._data: list[str] = []
        self._data_len = 0
        self._max = max_bytes
        #: The last chunk ended with CR: a LF at the start of the next one belongs to it.
        self._after_cr = False

    def feed(self, chunk: bytes) -> list[str]:
        buf = self._buf
        buf += chunk
        events: list[str] = []
        pos = 1 if self._after_cr and buf[:1] == b"\n" else 0
        if buf:
            self._after_cr = False
        while True:
            m = _NEWLINE.search(buf, pos)
            if m is None:
                break
            data = self._line(bytes(buf[pos:m.start()]))
            if data is not None:
                events.append(data)
            pos = m.end()
            if m.group() == b"\r" and pos == len(buf):
                self._after_cr = True  # maybe the first half of a CRLF split across chunks
        del buf[:pos]
        if len(buf) > self._max:
            raise EventTooLong
        return events

    def _line(self, raw: bytes) -> str | None:
        if not raw:  # a blank line ends an event
            if not self._data:
                return None
            data, self._data, self._data_len = "\n".join(self._data), [], 0
            return data
        line = raw.decode("utf-8", errors="replace")
        if line.startswith(":"):
            return None  # comment (keep-alive)
        name, _, value = line.partition(":")
        if name == "data":
            value = value[1:] if value.startswith(" ") else value
            self._data_len += len(raw)
            if self._data_len > self._max:
                raise EventTooLong
            self._data.append(value)
        return None
