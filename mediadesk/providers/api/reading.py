"""Bounded reads of what an API server sends: a hostile or broken server never makes the lane hold
more than a cap (answer bodies, SSE lines and events, error bodies), and a malformed answer is a
classified failure, not an exception from deep inside a parser.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

import httpx

from mediadesk.core.errors import ErrorKind, TaskFailure
from mediadesk.core.usage import Usage, usage_of_json
from mediadesk.providers.api.failures import Scrubber, excerpt_of, provider_error

__all__ = [
    "BODY_SLACK",
    "BYTES_PER_CHAR",
    "ERROR_BODY_BYTES",
    "Completion",
    "EventTooLong",
    "SseDecoder",
    "ThinkSplitter",
    "error_text",
    "joined_reasoning",
    "parse_completion",
    "read_capped",
    "reasoning_field",
    "split_think",
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


class Completion(NamedTuple):
    """A non-streamed answer: its text (without a leading ``<think>`` block), why it ended, the provider's
    usage, and the model's thinking (``message.reasoning_content`` / ``reasoning`` and the block; None: none)."""

    content: str
    finish_reason: str | None
    usage: Usage | None
    reasoning: str | None


def parse_completion(raw: bytes, scrub: Scrubber) -> Completion:
    """``choices[0].message.content`` of a non-streamed answer, split from the model's thinking, with
    its ``finish_reason`` and ``usage``; anything malformed is a server error (a missing or malformed
    ``usage`` is None: the lane estimates it)."""
    text = raw.decode("utf-8", errors="replace")
    try:
        obj = json.loads(text)
    except ValueError:
        raise TaskFailure(ErrorKind.SERVER_ERROR, f"malformed JSON answer: {excerpt_of(text, scrub)}") from None
    if isinstance(obj, dict) and obj.get("error"):
        raise provider_error(obj["error"], scrub)
    try:
        choice = obj["choices"][0]
        message = choice["message"]
        content = message["content"]
    except (KeyError, IndexError, TypeError):
        message = content = None
    if content is None and isinstance(message, dict) and reasoning_field(message) is not None:
        content = ""  # a reasoning model cut while thinking: no content at all, only its thinking
    if not isinstance(content, str):
        raise TaskFailure(
            ErrorKind.SERVER_ERROR, f"answer has no choices[0].message.content: {excerpt_of(text, scrub)}"
        )
    reason = choice.get("finish_reason") if isinstance(choice, dict) else None
    answer, thought = split_think(content)
    return Completion(answer, (reason if isinstance(reason, str) else None), usage_of_json(obj.get("usage")),
                      joined_reasoning(reasoning_field(message), thought))


def reasoning_field(message: Any) -> str | None:
    """The thinking a message or a stream delta carries in its own field (``reasoning_content``, as
    DeepSeek and vLLM send it, or ``reasoning``, as OpenRouter and Ollama do); None: none."""
    if not isinstance(message, dict):
        return None
    for name in ("reasoning_content", "reasoning"):
        value = message.get(name)
        if isinstance(value, str):
            return value
    return None


def joined_reasoning(*parts: str | None) -> str | None:
    """The thinking from its sources (a field, a ``<think>`` block) as one text, blank lines around each
    left out; None when there is none."""
    found = [p.strip() for p in parts if p and p.strip()]
    return "\n\n".join(found) if found else None


#: The tags of a reasoning model's thinking at the start of its content (DeepSeek-R1, QwQ, Qwen3 served
#: by vLLM or llama.cpp without a reasoning parser).
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"


class ThinkSplitter:
    """A ``<think>…</think>`` block at the very start of an answer's content (whitespace before it
    allowed), taken apart from the answer as the content streams in: a tag may be split across chunks,
    so what could still be the start of one is held back until the next piece says. A ``<think>``
    anywhere later is the model's own text and stays. A block never closed (the model was cut while
    thinking) is all thinking."""

    __slots__ = ("_held", "_state")

    def __init__(self) -> None:
        #: start: nothing but whitespace and part of "<think>" seen; think: inside the block; gap: after
        #: "</think>", whitespace dropped; text: the answer, passed through.
        self._state = "start"
        self._held = ""

    @property
    def thinking(self) -> bool:
        """Inside a block not (yet) closed."""
        return self._state == "think"

    def feed(self, piece: str) -> tuple[str, str]:
        """(answer text, thinking) that ``piece`` releases."""
        if self._state == "text":
            return piece, ""
        buf, self._held = self._held + piece, ""
        thought = ""
        if self._state == "start":
            head = buf.lstrip()
            if THINK_OPEN.startswith(head):  # only whitespace so far, or part of the tag: wait
                self._held = buf
                return "", ""
            if not head.startswith(THINK_OPEN):
                self._state = "text"
                return buf, ""
            self._state, buf = "think", head[len(THINK_OPEN):]
        if self._state == "think":
            end = buf.find(THINK_CLOSE)
            if end < 0:
                keep = _partial_suffix(buf, THINK_CLOSE)
                self._held = buf[len(buf) - keep:]
                return "", buf[:len(buf) - keep]
            thought, buf, self._state = buf[:end], buf[end + len(THINK_CLOSE):], "gap"
        rest = buf.lstrip()  # gap: the blank lines between the block and the answer are neither
        if rest:
            self._state = "text"
        return rest, thought

    def end(self) -> tuple[str, str]:
        """(answer text, thinking) held back when the content ends."""
        held, self._held = self._held, ""
        if self._state == "start":
            self._state = "text"
            return held, ""
        return "", (held if self._state == "think" else "")


def _partial_suffix(text: str, tag: str) -> int:
    """The length of the longest end of ``text`` that is a beginning of ``tag`` (shorter than ``tag``)."""
    for n in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:n]):
            return n
    return 0


def split_think(content: str) -> tuple[str, str]:
    """(answer, thinking) of a whole content: a leading ``<think>…</think>`` block taken apart."""
    splitter = ThinkSplitter()
    text, thought = splitter.feed(content)
    more_text, more_thought = splitter.end()
    return text + more_text, thought + more_thought


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
