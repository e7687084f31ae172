"""Read a chat site's answer out of its own network stream: bytes in, (answer text, reasoning) out.

Pure and fast; nothing here touches a browser. Two layers: a *framing* cuts the raw bytes into frames (SSE
events, NDJSON lines, back-to-back JSON values, Connect / gRPC-web frames, WebSocket messages), then a
*decoder* reads each frame: either the adapter's JSON paths (:class:`StreamSpec`'s ``text`` / ``reasoning``
keys) or a named decoder in code (:data:`DECODERS`) for formats that keys cannot say. A site's thinking goes
to ``reasoning``, never into ``text``.

Hostile input never raises: a frame that does not parse is skipped and counted in ``frames``; a handler
that trips over an odd frame only loses that frame.
"""

from __future__ import annotations

import codecs
import difflib
import functools
import json
import logging
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, get_args

__all__ = [
    "DECODERS",
    "Decoded",
    "Frame",
    "Framing",
    "StreamSpec",
    "StreamSpecError",
    "decode_body",
    "decode_messages",
    "parse_stream_spec",
]

log = logging.getLogger(__name__)

Framing = Literal["sse", "ndjson", "json", "connect", "ws"]
TextOp = Literal["append", "replace"]
_FRAMINGS: tuple[str, ...] = get_args(Framing)
_TEXT_OPS: tuple[str, ...] = get_args(TextOp)
#: How deep a patch may nest (a BATCH in a BATCH ...) before the rest is ignored.
_MAX_PATCH_DEPTH = 8


@dataclass(frozen=True)
class StreamSpec:
    """How to read an answer out of a site's stream (the adapter's [stream] table)."""

    framing: Framing = "sse"        # sse: text/event-stream; ndjson: one JSON per line; json: JSON values
                                    # back to back (chunked JSON, a ")]}'" prefix and length lines skipped);
                                    # connect: 5-byte length-prefixed frames (flag byte + uint32 big-endian
                                    # length, Connect RPC / gRPC-web); ws: each WebSocket message is one JSON
    decoder: str | None = None      # a named decoder in code (see DECODERS) for what keys cannot say
    text: str | None = None         # JSON path of the answer delta, "/"-separated, "-1" = last element,
                                    # e.g. "choices/0/delta/content"
    text_op: TextOp = "append"      # append: concatenate deltas; replace: the value is the whole text so far
    reasoning: str | None = None    # JSON path of the thinking delta (same op as text)
    event: str | None = None        # SSE only: only events of this name carry deltas (None: any)
    end_event: str | None = None    # an SSE event name that marks the end
    end_path: str | None = None     # ... or a JSON path whose value equals end_value
    end_value: str | None = None    # (None: any value but null, false, "" ends the stream)


@dataclass(frozen=True)
class Decoded:
    """What a stream said: the answer, the thinking, whether it ended, and how much was read."""

    text: str          # the answer as the model wrote it (Markdown), "" when nothing matched
    reasoning: str     # the thinking, "" when none
    ended: bool        # the stream's own end marker was seen
    frames: int        # frames/events read
    matched: int       # frames that gave a text or reasoning delta


class StreamSpecError(ValueError):
    """A [stream] table is unusable; ``key`` names the bad key, the message is meant for the operator."""

    def __init__(self, key: str, message: str) -> None:
        self.key = key
        self.message = message
        super().__init__(f"[stream] {key}: {message}")


@dataclass(frozen=True)
class Frame:
    """One frame of a stream: its SSE event name ("" elsewhere), raw text and parsed JSON value.

    ``ok`` is False for a frame whose payload did not parse (``value`` is then None); ``end`` marks a
    framing-level end (SSE ``data: [DONE]``, a Connect end-of-stream frame).
    """

    event: str
    data: str
    value: Any
    ok: bool = True
    end: bool = False


# ----------------------------------------------------------------------------------------------------------
# small JSON helpers


def _loads(text: str) -> tuple[bool, Any]:
    """(True, value) for JSON text, (False, None) otherwise; never raises (deep nesting, huge ints)."""
    try:
        return True, json.loads(text)
    except (ValueError, RecursionError):
        return False, None


def _json_frame(text: str, event: str = "") -> Frame:
    ok, value = _loads(text)
    return Frame(event, text, value, ok)


@functools.lru_cache(maxsize=256)
def _segments(path: str) -> tuple[str, ...]:
    """A "/"-separated path as its segments (a leading "/" as in a JSON pointer is allowed)."""
    return tuple(path.strip("/").split("/")) if path.strip("/") else ()


_MISSING = object()
_INDEX = re.compile(r"-?\d{1,9}")


def _index(seq: list[Any], seg: str) -> int | None:
    """A list index from a segment ("-1" = last), or None when it is not one or out of range."""
    if not _INDEX.fullmatch(seg):
        return None
    i = int(seg)
    if i < 0:
        i += len(seq)
    return i if 0 <= i < len(seq) else None


def _get(value: Any, segs: Sequence[str]) -> Any:
    """The value at a path, or _MISSING."""
    for seg in segs:
        if isinstance(value, dict):
            value = value.get(seg, _MISSING)
        elif isinstance(value, list):
            i = _index(value, seg)
            value = _MISSING if i is None else value[i]
        else:
            return _MISSING
        if value is _MISSING:
            return _MISSING
    return value


def _dig(value: Any, *keys: str | int) -> Any:
    """Nested lookup by keys and list indexes; None for anything missing or of the wrong shape."""
    for key in keys:
        if isinstance(key, int) and isinstance(value, list):
            value = value[key] if -len(value) <= key < len(value) else None
        elif isinstance(key, str) and isinstance(value, dict):
            value = value.get(key)
        else:
            return None
    return value


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _scalar_text(value: Any) -> str:
    """A JSON scalar as adapter text: true/false/null as in JSON, numbers and strings as written."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return ""


def _parent(root: Any, segs: Sequence[str], create: bool) -> tuple[Any, str] | None:
    """The container holding the path's last segment (dicts created on the way when ``create``)."""
    if not segs:
        return None
    node = root
    for seg in segs[:-1]:
        if isinstance(node, dict):
            nxt = node.get(seg, _MISSING)
            if nxt is _MISSING or nxt is None:
                if not create:
                    return None
                nxt = node[seg] = {}
            node = nxt
        elif isinstance(node, list):
            i = _index(node, seg)
            if i is None:
                return None
            node = node[i]
        else:
            return None
    return node, segs[-1]


def _patch(root: Any, segs: Sequence[str], op: str, value: Any) -> bool:
    """Apply one patch operation (set/add/replace, append, remove, truncate) in place; False when it could not."""
    found = _parent(root, segs, create=op in ("set", "add", "replace", "append"))
    if found is None:
        return False
    node, seg = found
    i: int | None = None
    if isinstance(node, dict):
        current = node.get(seg, _MISSING)
    elif isinstance(node, list):
        i = _index(node, seg)
        current = _MISSING if i is None else node[i]
    else:
        return False
    if op == "remove":
        if current is not _MISSING:
            node.pop(seg if i is None else i)
        return current is not _MISSING
    if op == "append" and current is not _MISSING:
        value = _appended(current, value)
    elif op == "truncate":
        if not isinstance(value, int) or not isinstance(current, str | list):
            return False
        value = current[:value]
    elif op not in ("set", "add", "replace", "append"):
        return False
    if isinstance(node, dict):
        node[seg] = value
    elif i is not None:
        node[i] = value
    elif seg in ("-", str(len(node))):
        node.append(value)
    else:
        return False
    return True


def _appended(current: Any, value: Any) -> Any:
    """``current`` with ``value`` appended: strings concatenate, lists extend, objects merge."""
    if isinstance(current, str) and isinstance(value, str):
        return current + value
    if isinstance(current, list):
        return current + (value if isinstance(value, list) else [value])
    if isinstance(current, dict) and isinstance(value, dict):
        return {**current, **value}
    return value


# ----------------------------------------------------------------------------------------------------------
# framings: bytes -> frames


class _SseReader:
    """Incremental text/event-stream parser (WHATWG): feed bytes in any pieces, get the same events.

    Handles CRLF/CR/LF line ends (a CR at a piece's end waits for a possible LF), multi-line data joined
    by "\\n", comments, a BOM, UTF-8 split across pieces; at :meth:`close` a final event without its blank
    line is still dispatched (the body is whole).
    """

    _LINE_END = re.compile(r"\r\n|\r|\n")

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buf = ""
        self._started = False
        self._event = ""
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[Frame]:
        return self._take(self._decoder.decode(chunk), final=False)

    def close(self) -> list[Frame]:
        out = self._take(self._decoder.decode(b"", final=True), final=True)
        if self._buf:
            out.extend(self._line(self._buf))
            self._buf = ""
        out.extend(self._dispatch())
        return out

    def _take(self, text: str, final: bool) -> list[Frame]:
        if not self._started and text:
            self._started = True
            text = text.removeprefix("\ufeff")
        buf = self._buf + text
        out: list[Frame] = []
        pos = 0
        for m in self._LINE_END.finditer(buf):
            if m.group() == "\r" and m.end() == len(buf) and not final:
                break  # maybe the CR of a CRLF whose LF is in the next piece
            out.extend(self._line(buf[pos:m.start()]))
            pos = m.end()
        self._buf = buf[pos:]
        return out

    def _line(self, line: str) -> list[Frame]:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return []
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        return []

    def _dispatch(self) -> list[Frame]:
        event, data = self._event, self._data
        self._event, self._data = "", []
        if not data:
            return []
        text = "\n".join(data)
        if text.strip() == "[DONE]":
            return [Frame(event, text, None, ok=True, end=True)]
        return [_json_frame(text, event)]


def _sse_frames(chunks: Iterable[bytes]) -> Iterator[Frame]:
    """SSE events (WHATWG), from a body given in any number of pieces."""
    reader = _SseReader()
    for chunk in chunks:
        yield from reader.feed(chunk)
    yield from reader.close()


def _ndjson_frames(data: bytes) -> Iterator[Frame]:
    """One JSON value per line; blank lines skipped."""
    for raw in data.split(b"\n"):
        line = raw.strip().decode("utf-8", "replace")
        if line:
            yield _json_frame(line)


_JSON_GAP = " \t\r\n\x1e,"     # whitespace, the json-seq record separator, a streamed array's commas
_LENGTH_LINE = re.compile(r"\d+[ \t]*\r?\n")
_DECODER = json.JSONDecoder()


def _json_frames(data: bytes) -> Iterator[Frame]:
    """JSON values back to back (chunked JSON), read with ``raw_decode``.

    Skipped between values: whitespace, record separators, commas, a leading ")]}'" (XSSI guard) and
    length lines (a number alone on its line, as Google's chunked envelope has). A streamed array of
    objects ("[{...},{...}") is read element by element, a complete one too. Garbage up to the next line
    end is one bad frame.
    """
    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    pos, n = 0, len(text)
    guard = text.find(")]}'")
    if guard != -1 and not text[:guard].strip():
        pos = guard + 4
    while True:
        while pos < n and text[pos] in _JSON_GAP:
            pos += 1
        if pos >= n:
            return
        m = _LENGTH_LINE.match(text, pos)
        if m:
            pos = m.end()
            continue
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except (ValueError, RecursionError):
            if text[pos] == "[" and text[pos + 1:pos + 64].lstrip().startswith("{"):
                pos += 1  # an array of objects still streaming: read its elements
                continue
            nl = text.find("\n", pos + 1)
            end = n if nl == -1 else nl
            yield Frame("", text[pos:end], None, ok=False)
            pos = end
            continue
        if isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
            for item in value:
                yield Frame("", "", item)
        else:
            yield Frame("", text[pos:end], value)
        pos = end


def _connect_frames(data: bytes) -> Iterator[Frame]:
    """Connect / gRPC-web envelopes: flag byte, uint32 big-endian length, message.

    The header is always read first (a length byte of 0x7B looks like "{"). Flag 0x02 is the end-of-stream
    trailer (a JSON with maybe an error, or gRPC-web trailer text); flag 0x01 (compressed) cannot be read.
    """
    pos, n = 0, len(data)
    while pos < n:
        if n - pos < 5:
            yield Frame("", "", None, ok=False)
            return
        flags = data[pos]
        start = pos + 5
        end = start + int.from_bytes(data[pos + 1:start], "big")
        if end > n:
            yield Frame("", "", None, ok=False)  # truncated message
            return
        payload = data[start:end].decode("utf-8", "replace")
        pos = end
        if flags & 0x01:
            yield Frame("", "", None, ok=False, end=bool(flags & 0x02))
            continue
        ok, value = _loads(payload)
        yield Frame("", payload, value, ok=ok, end=bool(flags & 0x02))


def _ws_frames(messages: Iterable[str | bytes]) -> Iterator[Frame]:
    """Each WebSocket message is one JSON value (binary ones when they are UTF-8)."""
    for message in messages:
        if isinstance(message, bytes | bytearray):
            try:
                message = bytes(message).decode("utf-8")
            except UnicodeDecodeError:
                yield Frame("", "", None, ok=False)
                continue
        yield _json_frame(message)


def _frames(framing: str, chunks: Sequence[bytes]) -> Iterator[Frame]:
    """The frames of a body given as consecutive pieces."""
    if framing == "sse":
        return _sse_frames(chunks)
    body = b"".join(chunks)
    if framing == "connect":
        return _connect_frames(body)
    if framing == "json":
        return _json_frames(body)
    return _ndjson_frames(body)  # ndjson; a ws body read whole is one message per line


# ----------------------------------------------------------------------------------------------------------
# decoding: frames -> Decoded


@dataclass
class _Run:
    """The running result of one decode: answer and thinking pieces, the end flag, the counts."""

    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    ended: bool = False
    frames: int = 0
    matched: int = 0

    def add(self, text: Any = None, reasoning: Any = None, replace: bool = False) -> bool:
        """Add string deltas (or, with ``replace``, the whole text so far); True when one was a string."""
        hit = False
        for parts, value in ((self.text, text), (self.reasoning, reasoning)):
            if isinstance(value, str):
                if replace:
                    parts[:] = [value]
                else:
                    parts.append(value)
                hit = True
        return hit

    def feed(self, frames: Iterable[Frame], on: Callable[[Frame], bool]) -> None:
        """Count every frame, note framing ends, let ``on`` read it (True = it gave a delta)."""
        for frame in frames:
            self.frames += 1
            self.ended = self.ended or frame.end
            try:
                hit = on(frame)
            except Exception:  # hostile input must never raise: that frame is lost, the rest is read
                log.debug("stream frame skipped: %.200r", frame.data, exc_info=True)
                continue
            self.matched += bool(hit)

    def decoded(self) -> Decoded:
        return Decoded("".join(self.text), "".join(self.reasoning), self.ended, self.frames, self.matched)


def _decode_keys(spec: StreamSpec, frames: Iterable[Frame]) -> Decoded:
    """The adapter's keys: JSON paths for the deltas and the end; SSE event names."""
    run = _Run()
    text_segs = _segments(spec.text) if spec.text else None
    reasoning_segs = _segments(spec.reasoning) if spec.reasoning else None
    end_segs = _segments(spec.end_path) if spec.end_path else None

    def on(frame: Frame) -> bool:
        if spec.end_event is not None and frame.event == spec.end_event:
            run.ended = True
        if not frame.ok or frame.value is None:
            return False
        if end_segs is not None:
            end = _get(frame.value, end_segs)
            if end is not _MISSING and (
                    _scalar_text(end) == spec.end_value if spec.end_value is not None
                    else end not in (None, False, "")):
                run.ended = True
        if spec.event is not None and (frame.event or "message") != spec.event:
            return False
        text = _get(frame.value, text_segs) if text_segs is not None else None
        reasoning = _get(frame.value, reasoning_segs) if reasoning_segs is not None else None
        return run.add(text, reasoning, replace=spec.text_op == "replace")

    run.feed(frames, on)
    return run.decoded()


# Named decoders. Each rests on PUBLIC DESCRIPTIONS of a site's traffic (captures and write-ups people
# published, cited by what they showed and when); facts only, no code copied from any adapter.


# deepseek (chat.deepseek.com, POST /api/v0/chat/completion, SSE). Public description: a capture published
# 2025-11-21 (terminail/chromai-extension, __tests__/request_response/deepseek) and issue threads of
# 2026-02/2026-07 (xiaoY233/DeepSeek-Free-API#6, sums001/Deepseek-API#4). Events are patch operations
# {"p": path, "o": op, "v": value} on a document {"response": {...}}; a bare {"v": ...} continues the last
# path and op, the very first bare {"v": {"response": ...}} is the whole document; "BATCH" holds operations
# relative to its path. Text is appended to "response/fragments/-1/content"; a new fragment arrives appended
# to "response/fragments" with its "type" (THINK vs RESPONSE; SEARCH/TOOL_* are neither) and first content.
# The end: "response/status" set to "FINISHED", then `event: finish` and `event: close`. Older streams used
# "response/content" / "response/thinking_content" and, before that, OpenAI-like choices with
# delta.type "thinking"/"text"; both still read.
def _decode_deepseek(frames: Iterable[Frame]) -> Decoded:
    """DeepSeek: patch operations on a response document; THINK fragments are the reasoning."""
    run = _Run()
    doc: dict[str, Any] = {}
    last: list[Any] = [None, None]  # the last path and op, for bare {"v": ...}

    def apply(segs: Sequence[str], op: str, value: Any, depth: int) -> bool:
        if op == "batch":
            if not isinstance(value, list) or depth >= _MAX_PATCH_DEPTH:
                return False
            hits = [apply((*segs, *_segments(_str(sub.get("p")))), _str(sub.get("o")).lower() or "set",
                          sub.get("v"), depth + 1) for sub in value if isinstance(sub, dict)]
            return any(hits)
        changed = _patch(doc, segs, op, value)
        return changed and ("fragments" in segs or segs[-1:] in (("content",), ("thinking_content",)))

    def on(frame: Frame) -> bool:
        if frame.event in ("finish", "close"):
            run.ended = True
        v = frame.value
        if not isinstance(v, dict):
            return False
        if isinstance(v.get("choices"), list):
            return _deepseek_choices(run, v["choices"])
        if "v" not in v:
            return False
        if "p" in v:
            path, op = _str(v["p"]), _str(v.get("o")).lower() or "set"
        elif last[0] is None:
            if isinstance(v["v"], dict):
                doc.update(v["v"])
                return bool(_dig(doc, "response", "fragments"))
            return False
        else:
            path, op = last[0], _str(v.get("o")).lower() or last[1]
        last[:] = [path, op]
        return apply(_segments(path), op, v["v"], 0)

    run.feed(frames, on)
    response = doc.get("response")
    if isinstance(response, dict):
        run.ended = run.ended or response.get("status") == "FINISHED"
        if not run.text and not run.reasoning:
            run.text, run.reasoning = _deepseek_fragments(response)
    return run.decoded()


def _deepseek_fragments(response: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(answer, thinking) of a DeepSeek response document: its fragments, else the older two fields."""
    text: list[str] = []
    thinking: list[str] = []
    fragments = response.get("fragments")
    for frag in fragments if isinstance(fragments, list) else ():
        content = _str(_dig(frag, "content"))
        kind = _str(_dig(frag, "type")).upper()
        if kind in ("THINK", "THINKING"):
            thinking.append(content)
        elif kind in ("RESPONSE", "TEMPLATE_RESPONSE", ""):
            text.append(content)
    text = ["\n\n".join(t for t in text if t)]
    thinking = ["\n\n".join(t for t in thinking if t)]
    if not text[0] and not thinking[0]:
        return [_str(response.get("content"))], [_str(response.get("thinking_content"))]
    return text, thinking


def _deepseek_choices(run: _Run, choices: list[Any]) -> bool:
    """DeepSeek's older OpenAI-like events: delta.content with delta.type "thinking" or "text"."""
    hit = False
    for choice in choices:
        delta = _dig(choice, "delta")
        content = _dig(delta, "content")
        if _str(_dig(delta, "type")) == "thinking":
            hit = run.add(reasoning=content) or hit
        else:
            hit = run.add(text=content) or hit
        run.ended = run.ended or bool(_dig(choice, "finish_reason"))
    return hit


# chatgpt (chatgpt.com, POST /backend-api/f/conversation, SSE "delta v1"). Public description: a browser
# extension's design notes of 2026-09 (docs of a chatgpt.com bridge: "SSE / delta-v1 reducer") and test
# fixtures of several public clients (2024-10 .. 2026-08). `event: delta_encoding` / `data: "v1"`, then
# {"p": "", "o": "add", "v": {"message": {...}}} starts a message; {"p": "/message/content/parts/0",
# "o": "append", "v": "..."} adds text; a bare {"v": "..."} reuses the last path and op; "patch" carries a
# list of operations; ops add/replace/append/remove/truncate. Typed events (message_stream_complete = the
# end, title_generation, message_marker ...) carry no text; data [DONE] ends. Legacy streams sent whole
# {"message": {...}} frames. The answer is the last assistant message to all with content_type text
# (channel "final" or none); "thoughts" messages (content.thoughts[].content) and the "analysis" channel
# are the thinking. A stream handed off to a WebSocket sends {"type": "message", "payload": {"payload":
# {"type": "stream-item", "encoded_item": "<SSE text>"}}} and ends with payload type "done".
def _decode_chatgpt(frames: Iterable[Frame]) -> Decoded:
    """ChatGPT: delta-v1 patches on messages; the answer is the last final assistant text."""
    run = _Run()
    docs: list[dict[str, Any]] = []
    last: list[Any] = ["", "append"]
    seen_items: set[str] = set()

    def apply(op: dict[str, Any], depth: int, inherit: bool) -> bool:
        if inherit and "p" not in op and "o" not in op and isinstance(_dig(op, "v", "message"), dict):
            docs.append(op["v"])  # {"v": {"message": ...}}: a new message
            return _chatgpt_has_content(op["v"])
        if inherit and "p" not in op:
            path, kind = last[0], _str(op.get("o")).lower() or last[1]
        else:
            path, kind = _str(op.get("p")), _str(op.get("o")).lower() or "replace"
        value = op.get("v")
        if kind == "patch":
            if not isinstance(value, list) or depth >= _MAX_PATCH_DEPTH:
                return False
            return any([apply(sub, depth + 1, False) for sub in value if isinstance(sub, dict)])
        last[:] = [path, kind]
        if not path and isinstance(value, dict) and "message" in value and kind in ("add", "replace", "set"):
            docs.append(value)
            return _chatgpt_has_content(value)
        if not docs:
            return False
        return _patch(docs[-1], _segments(path), kind, value) and "/content" in path

    def on(frame: Frame, depth: int = 0) -> bool:
        v = frame.value
        if not isinstance(v, dict):
            return False
        kind = v.get("type")
        if kind == "message_stream_complete":
            run.ended = True
        if kind == "message" and isinstance(_dig(v, "payload", "payload"), dict) and depth == 0:
            return handoff(v["payload"]["payload"])
        if "v" in v or "p" in v or "o" in v:
            return apply(v, 0, inherit=True)
        if isinstance(v.get("message"), dict) and kind is None:
            msg_id = _dig(v, "message", "id")
            for i, doc in enumerate(docs):
                if msg_id is not None and _dig(doc, "message", "id") == msg_id:
                    docs[i] = v
                    break
            else:
                docs.append(v)
            return _chatgpt_has_content(v)
        return False

    def handoff(item: dict[str, Any]) -> bool:
        if item.get("type") in ("done", "error"):
            run.ended = True
        encoded, item_id = item.get("encoded_item"), _str(item.get("stream_item_id"))
        if not isinstance(encoded, str) or (item_id and item_id in seen_items):
            return False
        seen_items.add(item_id)
        inner = list(_sse_frames([encoded.encode("utf-8", "replace")]))
        run.ended = run.ended or any(f.end for f in inner)
        return any([on(f, 1) for f in inner])

    run.feed(frames, on)
    answer, thinking = _chatgpt_answer(docs)
    run.text, run.reasoning = [answer], [thinking]
    return run.decoded()


def _chatgpt_has_content(doc: dict[str, Any]) -> bool:
    return any(isinstance(p, str) and p for p in _dig(doc, "message", "content", "parts") or ())


def _chatgpt_answer(docs: list[dict[str, Any]]) -> tuple[str, str]:
    """(answer, thinking) from the messages of a ChatGPT stream."""
    final: str | None = None
    unlabeled: str | None = None
    thinking: list[str] = []
    for doc in docs:
        msg = _dig(doc, "message")
        if _dig(msg, "author", "role") != "assistant":
            continue
        content = _dig(msg, "content")
        ctype = _dig(content, "content_type")
        if ctype == "thoughts":
            for thought in _dig(content, "thoughts") or ():
                piece = _str(_dig(thought, "content")) or _str(_dig(thought, "summary"))
                if piece:
                    thinking.append(piece)
            continue
        if ctype not in ("text", "multimodal_text") or _dig(msg, "recipient") not in (None, "", "all"):
            continue
        if _dig(msg, "metadata", "is_visually_hidden_from_conversation"):
            continue
        text = "".join(p for p in _dig(content, "parts") or () if isinstance(p, str))
        channel = _dig(msg, "channel")
        if channel == "analysis" or _dig(msg, "metadata", "is_thinking_preamble_message"):
            if text:
                thinking.append(text)
        elif channel == "final":
            final = text
        elif channel is None:
            unlabeled = text
    return (final if final is not None else unlabeled or ""), "\n\n".join(thinking)


# claude (claude.ai, SSE). Public description: Anthropic's Messages streaming documentation (current as of
# 2026) and public captures of claude.ai's completion stream, which uses the same events: content_block_start
# (content_block.type "text" or "thinking"), content_block_delta with delta.type "text_delta" (delta.text)
# or "thinking_delta" (delta.thinking), message_stop at the end. Older claude.ai streams (2023-2024) sent
# {"type": "completion", "completion": "...", "stop_reason": ...}; still read.
def _decode_claude(frames: Iterable[Frame]) -> Decoded:
    """Claude: content block deltas, text_delta to the answer, thinking_delta to the reasoning."""
    run = _Run()

    def on(frame: Frame) -> bool:
        v = frame.value
        if not isinstance(v, dict):
            return False
        kind = _str(v.get("type")) or frame.event
        if kind == "message_stop":
            run.ended = True
        elif kind == "content_block_start":
            block = _dig(v, "content_block")
            if _dig(block, "type") == "thinking":
                return run.add(reasoning=_dig(block, "thinking") or None)
            if _dig(block, "type") == "text":
                return run.add(text=_dig(block, "text") or None)
        elif kind == "content_block_delta":
            delta = _dig(v, "delta")
            if _dig(delta, "type") == "text_delta":
                return run.add(text=_dig(delta, "text"))
            if _dig(delta, "type") == "thinking_delta":
                return run.add(reasoning=_dig(delta, "thinking"))
        elif kind == "completion":
            run.ended = run.ended or bool(v.get("stop_reason"))
            return run.add(text=v.get("completion"))
        return False

    run.feed(frames, on)
    return run.decoded()


# doubao (www.doubao.com, POST /chat/completion or /samantha/chat/completion, SSE). Public description:
# two captures published 2025-11-21 (terminail/chromai-extension, __tests__/request_response/doubao and
# doubao-samantha) and a public client's test fixtures of 2026 (deep-think mode). Current stream: named
# events; STREAM_MSG_NOTIFY {"content": {"content_block": [...]}} opens the bot's reply, STREAM_CHUNK
# {"patch_op": [{"patch_object": 1, "patch_value": {"content_block": [...]}}]} adds to it; a block of
# block_type 10000 carries content.text_block.text (a delta); FULL_MSG_NOTIFY echoes the user's message
# (ignored); SSE_REPLY_END ends. Older "samantha" stream: {"event_type": 2001, "event_data": "<JSON>"} whose
# message.content is itself a JSON string {"text": "..."} (content_type 2001 = answer; 2002 = suggestions),
# event_type 2003 ends. THIN: thinking. The 2026 fixtures show deep-think text streaming as ordinary 10000
# blocks until a block of type 10040 with is_finish (the thinking's end), so text before such a block is
# moved to reasoning; blocks whose content holds a "think"/"reasoning" object with text are reasoning too.
def _decode_doubao(frames: Iterable[Frame]) -> Decoded:
    """Doubao: content blocks of STREAM_MSG_NOTIFY / STREAM_CHUNK, or the older nested-JSON stream."""
    run = _Run()

    def block(b: Any) -> bool:
        content = _dig(b, "content")
        if not isinstance(content, dict):
            return False
        if _dig(b, "block_type") == 10040 and _dig(b, "is_finish") and run.text:
            run.reasoning.extend(run.text)
            run.text.clear()
        for key, sub in content.items():
            if ("think" in key or "reason" in key) and isinstance(sub, dict):
                return run.add(reasoning=_str(sub.get("text")) or _str(sub.get("content")) or None)
        if _dig(b, "block_type") in (None, 10000):
            return run.add(text=_dig(content, "text_block", "text") or None)
        return False

    def on(frame: Frame) -> bool:
        if frame.event == "SSE_REPLY_END":
            run.ended = True
        v = frame.value
        if not isinstance(v, dict):
            return False
        if "event_type" in v:
            return _doubao_samantha(run, v)
        blocks: list[Any] = []
        if isinstance(_dig(v, "content", "content_block"), list):
            blocks = v["content"]["content_block"]
        for op in v.get("patch_op") or ():
            if _dig(op, "patch_object") in (None, 1) and isinstance(_dig(op, "patch_value", "content_block"), list):
                blocks.extend(op["patch_value"]["content_block"])
        return any([block(b) for b in blocks])

    run.feed(frames, on)
    return run.decoded()


def _doubao_samantha(run: _Run, v: dict[str, Any]) -> bool:
    """Doubao's older stream: event_data and message.content are JSON inside JSON strings."""
    if v.get("event_type") == 2003:
        run.ended = True
    if v.get("event_type") != 2001 or not isinstance(v.get("event_data"), str):
        return False
    _, data = _loads(v["event_data"])
    message = _dig(data, "message")
    if _dig(message, "content_type") != 2001 or not isinstance(_dig(message, "content"), str):
        return False
    _, content = _loads(message["content"])
    if not isinstance(content, dict):
        return False
    thinking = _str(content.get("think")) or _str(content.get("reasoning_content"))
    return run.add(text=_str(content.get("text")) or None, reasoning=thinking or None)


# kimi (www.kimi.com, POST /apiv2/kimi.gateway.chat.v1.ChatService/Chat, Connect RPC with
# application/connect+json). Public description: public clients' type definitions and readers of 2025-2026
# (a Connect RPC client's ConnectMessage type; a provider's frame encoder): 5-byte envelopes (flag, uint32
# big-endian length) of JSON messages {"op": "set"|"append", "chat": {...}, "message": {"id", "role",
# "status"}, "block": {"id", "text": {"content": "..."}}, "heartbeat": {}, "done": {}}. "set" gives a block's
# whole content, "append" adds to it; {"done": {}} ends (then the end-of-stream envelope). Messages of role
# "user" (the echoed prompt) are skipped. THIN: thinking; read as a block's "think" (or "thinking") object
# with its content, which no public capture shows in full.
def _decode_kimi(frames: Iterable[Frame]) -> Decoded:
    """Kimi: Connect messages whose blocks are set or appended; the echoed user message is skipped."""
    run = _Run()
    blocks: dict[str, dict[str, str]] = {}
    role: list[str] = [""]

    def on(frame: Frame) -> bool:
        v = frame.value
        if not isinstance(v, dict):
            return False
        if "done" in v:
            run.ended = True
        if isinstance(_dig(v, "message", "role"), str):
            role[0] = v["message"]["role"]
        b = v.get("block")
        if not isinstance(b, dict) or role[0] == "user":
            return False
        state = blocks.setdefault(_scalar_text(b.get("id")), {"text": "", "think": ""})
        hit = False
        for kind, keys in (("text", ("text",)), ("think", ("think", "thinking"))):
            for key in keys:
                piece = _dig(b, key, "content")
                if isinstance(piece, str):
                    state[kind] = piece if v.get("op") == "set" else state[kind] + piece
                    hit = True
        return hit

    run.feed(frames, on)
    run.text = [s["text"] for s in blocks.values()]
    run.reasoning = ["\n\n".join(s["think"] for s in blocks.values() if s["think"])]
    return run.decoded()


# qwen (chat.qwen.ai, SSE; tongyi.com / qianwen). Public description: public clients and PRs of 2025-2026
# (e.g. Rfym21/Qwen2API#121, 2026-05, "reasoning tokens (phase === 'think')") and DashScope's documented
# stream: chat.qwen.ai sends {"choices": [{"delta": {"role", "content", "phase": "think"|"answer",
# "status": "typing"|"finished"}}]} (content is a delta; phase says thinking or answer); DashScope-style
# bodies carry output.text or output.choices[].message.content. THIN: Tongyi's web stream
# {"contents": [{"contentType": "text"|"think", "content": "<whole text so far>"}], "msgStatus": "finished"}
# is described only in passing; read with replace semantics.
def _decode_qwen(frames: Iterable[Frame]) -> Decoded:
    """Qwen / Tongyi: deltas whose phase tells thinking from answer; whole-text fields replace."""
    run = _Run()

    def on(frame: Frame) -> bool:
        v = frame.value
        if not isinstance(v, dict):
            return False
        hit = False
        for choice in v.get("choices") or ():
            delta = _dig(choice, "delta") or _dig(choice, "message")
            phase = _str(_dig(delta, "phase"))
            thinking = "think" in phase or "reason" in phase
            content = _dig(delta, "content")
            if thinking:
                hit = run.add(reasoning=content) or hit
            elif phase in ("", "answer"):
                hit = run.add(text=content) or hit
            hit = run.add(reasoning=_dig(delta, "reasoning_content")) or hit
            finish = _dig(choice, "finish_reason")
            done = _dig(delta, "status") == "finished" and phase == "answer"
            run.ended = run.ended or done or (bool(finish) and finish != "null")
        output = v.get("output")
        if isinstance(output, dict):
            hit = run.add(text=output.get("text"), replace=True) or hit
            finish = output.get("finish_reason")
            run.ended = run.ended or (bool(finish) and finish != "null")
        for item in v.get("contents") or ():
            kind = _dig(item, "contentType")
            if kind == "text":
                hit = run.add(text=_dig(item, "content"), replace=True) or hit
            elif kind in ("think", "thinking"):
                hit = run.add(reasoning=_dig(item, "content"), replace=True) or hit
        run.ended = run.ended or v.get("msgStatus") == "finished"
        return hit

    run.feed(frames, on)
    return run.decoded()


# chatglm (chatglm.cn, POST /chatglm/backend-api/assistant/stream, SSE). Public description: public clients
# of 2024-2026 (a multi-site relay's reader notes "parts are full snapshots"): each event carries
# {"parts": [{"logic_id", "role": "assistant", "content": [{"type": "text", "text": "..."}], "status"}],
# "status": "init"|"finish"}; every part holds its whole content so far (replace semantics); status
# "finish" ends. THIN: thinking; read as content items of type "think" (their "think", "text" or "content"
# field), which public descriptions name but do not show in full.
def _decode_chatglm(frames: Iterable[Frame]) -> Decoded:
    """ChatGLM: each event holds every part's whole content so far; "think" items are the reasoning."""
    run = _Run()
    parts: dict[str, tuple[str, str]] = {}

    def on(frame: Frame) -> bool:
        v = frame.value
        if not isinstance(v, dict):
            return False
        run.ended = run.ended or v.get("status") == "finish"
        hit = False
        for i, part in enumerate(v.get("parts") or ()):
            if not isinstance(part, dict) or part.get("role") not in (None, "assistant"):
                continue
            text: list[str] = []
            think: list[str] = []
            for item in part.get("content") or ():
                kind = _dig(item, "type")
                if kind == "text":
                    text.append(_str(_dig(item, "text")))
                elif kind == "think":
                    think.append(_str(_dig(item, "think")) or _str(_dig(item, "text"))
                                 or _str(_dig(item, "content")))
            key = _scalar_text(part.get("logic_id") or part.get("id") or i)
            snapshot = ("".join(text), "".join(think))
            if parts.get(key, ("", "")) != snapshot:
                parts[key] = snapshot
                hit = True
        return hit

    run.feed(frames, on)
    run.text = [t for t, _ in parts.values()]
    run.reasoning = ["\n\n".join(r for _, r in parts.values() if r)]
    return run.decoded()


_CARD_LINK = re.compile(r"http://googleusercontent\.com/card_content/\d+")


# gemini (gemini.google.com, POST .../BardChatUi/data/assistant.lamda.BardFrontendService/StreamGenerate).
# Public description: several public clients' readers of 2025-2026 (e.g. nicobailon/pi-web-access#54,
# 2026-05): Google's envelope, a ")]}'" line then length-prefixed chunks, each a JSON array of parts;
# a part ["wrb.fr", null, "<JSON string>"] holds an array whose [4] lists candidates; a candidate's [1][0]
# is the whole text so far (replace semantics), [37][0][0] the thoughts, [22][0] an alternative text when
# [1][0] is only a card link. THIN: the end; read as a candidate with [8][0] == 2 or a part ["e", ...]
# (the envelope's end chunk).
def _decode_gemini(frames: Iterable[Frame]) -> Decoded:
    """Gemini: the first candidate's whole text so far, from the JSON inside each "wrb.fr" part."""
    run = _Run()

    def on(frame: Frame) -> bool:
        hit = False
        for part in frame.value if isinstance(frame.value, list) else ():
            if _dig(part, 0) == "e":
                run.ended = True
            if _dig(part, 0) != "wrb.fr" or not isinstance(_dig(part, 2), str):
                continue
            _, inner = _loads(part[2])
            candidate = _dig(inner, 4, 0)
            if not isinstance(candidate, list):
                continue
            text = _dig(candidate, 1, 0)
            if isinstance(text, str) and _CARD_LINK.match(text):
                text = _dig(candidate, 22, 0) or text
            # an empty text never wipes a longer one (tool and link answers stream an empty candidate)
            hit = run.add(text=text or None, reasoning=_dig(candidate, 37, 0, 0) or None, replace=True) or hit
            run.ended = run.ended or _dig(candidate, 8, 0) == 2
        return hit

    run.feed(frames, on)
    return run.decoded()


DECODERS: Mapping[str, Callable[[Iterable[Frame]], Decoded]] = MappingProxyType({
    "deepseek": _decode_deepseek,
    "chatgpt": _decode_chatgpt,
    "claude": _decode_claude,
    "doubao": _decode_doubao,
    "kimi": _decode_kimi,
    "qwen": _decode_qwen,
    "chatglm": _decode_chatglm,
    "gemini": _decode_gemini,
})

#: The framing each named decoder reads when the adapter does not say.
_DECODER_FRAMING: Mapping[str, Framing] = MappingProxyType({
    "deepseek": "sse", "chatgpt": "sse", "claude": "sse", "doubao": "sse", "kimi": "connect",
    "qwen": "sse", "chatglm": "sse", "gemini": "json",
})


def _decode(spec: StreamSpec, frames: Iterable[Frame]) -> Decoded:
    if spec.decoder is not None:
        decoder = DECODERS.get(spec.decoder)
        if decoder is not None:
            return decoder(frames)
        log.warning("unknown stream decoder %r: reading by keys", spec.decoder)
    return _decode_keys(spec, frames)


def decode_body(spec: StreamSpec, body: bytes) -> Decoded:
    """Decode an HTTP response body, whole. Never raises."""
    return _decode(spec, _frames(spec.framing, [bytes(body)]))


def decode_messages(spec: StreamSpec, messages: Sequence[str | bytes]) -> Decoded:
    """Decode WebSocket messages (framing "ws": one JSON each). Never raises.

    With another framing the messages are consecutive pieces of one body (SSE text split anywhere, even
    inside a UTF-8 character, reads the same as the whole).
    """
    if spec.framing == "ws":
        return _decode(spec, _ws_frames(messages))
    chunks = [m.encode("utf-8", "replace") if isinstance(m, str) else bytes(m) for m in messages]
    return _decode(spec, _frames(spec.framing, chunks))


# ----------------------------------------------------------------------------------------------------------
# the adapter's [stream] table

_SPEC_KEYS = ("framing", "decoder", "text", "text_op", "reasoning", "event", "end_event", "end_path",
              "end_value")


def _hint(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _check_path(key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip("/"):
        raise StreamSpecError(key, f"must be a JSON path such as 'choices/0/delta/content', got {value!r}")
    if any(not seg for seg in value.strip("/").split("/")):
        raise StreamSpecError(key, f"has an empty segment (two '/' in a row): {value!r}")
    return value


def _check_name(key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise StreamSpecError(key, f"must be a non-empty string, got {value!r}")
    return value


def parse_stream_spec(table: Mapping[str, Any]) -> StreamSpec:
    """Validate an adapter's [stream] table; raises :class:`StreamSpecError` naming the bad key."""
    for key in table:
        if key not in _SPEC_KEYS:
            raise StreamSpecError(str(key), f"unknown key{_hint(str(key), _SPEC_KEYS)}")
    decoder = table.get("decoder")
    if decoder is not None and (not isinstance(decoder, str) or decoder not in DECODERS):
        raise StreamSpecError("decoder", f"unknown decoder {decoder!r}{_hint(str(decoder), DECODERS)}; "
                                         f"known: {', '.join(DECODERS)}")
    framing = table.get("framing", _DECODER_FRAMING.get(decoder, "sse") if decoder else "sse")
    if framing not in _FRAMINGS:
        raise StreamSpecError("framing", f"must be one of {', '.join(_FRAMINGS)}, got {framing!r}")
    text_op = table.get("text_op", "append")
    if text_op not in _TEXT_OPS:
        raise StreamSpecError("text_op", f"must be 'append' or 'replace', got {text_op!r}")
    if decoder is not None:
        for key in ("text", "reasoning", "text_op", "event", "end_event", "end_path", "end_value"):
            if key in table:
                raise StreamSpecError(key, f"the named decoder {decoder!r} reads the stream and its end "
                                           f"itself; set either 'decoder' or the JSON paths, not both")
    elif "text" not in table:
        raise StreamSpecError("text", "missing: set 'text' (the JSON path of the answer) or 'decoder'")
    paths = {key: _check_path(key, table[key]) for key in ("text", "reasoning", "end_path") if key in table}
    names = {key: _check_name(key, table[key]) for key in ("event", "end_event") if key in table}
    if names and framing != "sse":
        raise StreamSpecError(next(iter(names)), f"event names exist only with framing 'sse', not {framing!r}")
    end_value = table.get("end_value")
    if end_value is not None:
        if "end_path" not in table:
            raise StreamSpecError("end_value", "needs 'end_path' (the JSON path whose value it is)")
        if not isinstance(end_value, str | int | float | bool):
            raise StreamSpecError("end_value", f"must be a string, number or boolean, got {end_value!r}")
        end_value = _scalar_text(end_value)
    return StreamSpec(framing=framing, decoder=decoder, text=paths.get("text"), text_op=text_op,
                      reasoning=paths.get("reasoning"), event=names.get("event"),
                      end_event=names.get("end_event"), end_path=paths.get("end_path"), end_value=end_value)
