"""The site personas' streams: how each real chat site the simulator can play (``deepseek``, ``claude``,
``kimi``, ``chatgpt``...) asks for an answer and streams it back, as one registry (:data:`SITE_STREAMS`).

A site is one :class:`SiteStream`: the route its page POSTs to (the real site's path, so a pack adapter's
``[stream] url`` pattern matches the simulator too), how its request body maps to the simulator's generate
body (``{prompt, conversation_id, request_id}``), the content type of its answer, and a per-run converter
from the simulator's NDJSON generation events (``start``, ``think``, ``token``, ``done``, ``stopped``,
``error``, ``ping``) to the site's bytes. :class:`~mediadesk.sim._web_transports.Transports` serves every
entry with one handler. The page side of each site (its request, a decoder of its stream back into the
NDJSON events, its DOM landmarks) is ``web_assets/sites.js``.

The formats follow the decoders of ``mediadesk.providers.web.stream_decode`` (their comments name the public
descriptions), which are the ground truth here: a persona streams what its decoder reads.
"""

from __future__ import annotations

import json
import struct
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol
from urllib.parse import parse_qs

__all__ = ["SITE_STREAMS", "SSE", "Converter", "DeepSeekEvents", "SiteStream", "connect_frame"]

SSE = "text/event-stream; charset=utf-8"
_CONNECT_HEAD = struct.Struct(">BI")
#: Connect's end-of-stream flag (the last frame of a response).
CONNECT_END = 0x02


class Converter(Protocol):
    """One run's converter: the site's bytes for one generation event (b"" for none)."""

    def convert(self, event: dict[str, Any]) -> bytes: ...


def _sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n".encode()


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def connect_frame(payload: bytes, flags: int = 0) -> bytes:
    """One Connect envelope: a flag byte, the payload's length (uint32 big-endian), the payload."""
    return _CONNECT_HEAD.pack(flags, len(payload)) + payload


def _connect_payload(body: bytes) -> bytes:
    """The first message of a Connect request body (the whole body when it is not enveloped)."""
    if len(body) >= 5 and body[0] in (0, CONNECT_END):
        (_, n) = _CONNECT_HEAD.unpack_from(body)
        if 5 + n <= len(body):
            return body[5 : 5 + n]
    return body


@dataclass(frozen=True)
class SiteStream:
    """One site's stream. ``generate_body``: the site's request (raw body, the route's match info) as the
    simulator's generate body, None when it is not one; ``converter``: a new run's converter, given the
    personas in force and the generate body."""

    route: str
    content_type: str
    generate_body: Callable[[bytes, Mapping[str, str]], dict[str, Any] | None]
    converter: Callable[[tuple[str, ...], dict[str, Any]], Converter]


def _json_body(body: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _generate(prompt: Any, conversation: Any, request: Any) -> dict[str, Any]:
    return {"prompt": prompt, "conversation_id": str(conversation or ""), "request_id": str(request or "")}


# --- deepseek -------------------------------------------------------------------------------------------


class DeepSeekEvents:
    """One run's NDJSON generation events as DeepSeek's chat SSE (as chat.deepseek.com streams it).

    ``event: ready`` first; the answer is a document ``{"response": {...}}`` changed by patch events: the
    first ``{"v": {"response": ...}}`` is the whole document with a THINK fragment holding the first piece
    of thinking; ``{"p": "response/fragments/-1/content", "o": "APPEND", "v": "..."}`` appends to the last
    fragment and a bare ``{"v": "..."}`` continues the last path; a RESPONSE fragment is appended to
    ``response/fragments`` with the first piece of the answer; the end is a BATCH on ``response`` setting
    ``status`` to FINISHED (INCOMPLETE when stopped), then ``event: finish``, ``update_session``, ``title``
    and ``event: close``. ``new_format``: the same run in a format of another shape (``{"choice": {"delta":
    {"kind": "reasoning" | "answer", "chunk": "..."}}}``, then ``{"choice": {"finished": true}}``), as a site
    that changed its stream."""

    def __init__(self, *, new_format: bool = False) -> None:
        self.new_format = new_format
        self._kind: str | None = None  # the last fragment's type: "THINK" | "RESPONSE"
        self._path: str | None = None  # the path the last patch event named
        self._tokens = 0

    def convert(self, event: dict[str, Any]) -> bytes:
        """The SSE bytes for one generation event (b"" for none)."""
        kind = event.get("t")
        if kind == "start":
            return (_sse({"request_message_id": 1, "response_message_id": 2}, "ready")
                    + _sse({"updated_at": time.time()}, "update_session"))
        if kind == "ping":
            return b": keep-alive\n\n"
        if kind in ("think", "token"):
            self._tokens += 1
            text = str(event.get("d", ""))
            if self.new_format:
                delta = {"kind": "reasoning" if kind == "think" else "answer", "chunk": text}
                return _sse({"choice": {"delta": delta}})
            return self._piece("THINK" if kind == "think" else "RESPONSE", text)
        if kind in ("done", "stopped"):
            if self.new_format:
                return _sse({"choice": {"finished": kind == "done"}}) + _sse({}, "close")
            status = "FINISHED" if kind == "done" else "INCOMPLETE"
            batch = {"p": "response", "o": "BATCH",
                     "v": [{"p": "accumulated_token_usage", "v": self._tokens}, {"p": "status", "v": status}]}
            return (_sse(batch) + _sse({}, "finish") + _sse({"updated_at": time.time()}, "update_session")
                    + _sse({"content": "SimChat"}, "title")
                    + _sse({"click_behavior": "none", "auto_resume": False}, "close"))
        if kind == "error":
            return _sse({"code": event.get("code"), "message": event.get("message")}, "error")
        return b""

    def _piece(self, kind: str, text: str) -> bytes:
        content = "response/fragments/-1/content"
        fragment: dict[str, Any] = {"id": 1 if kind == "THINK" else 2, "type": kind, "content": text,
                                    "references": [], "stage_id": 1}
        if kind == "THINK":
            fragment["elapsed_secs"] = None
        if self._kind is None:  # the first piece: the whole document
            self._kind, self._path = kind, None
            return _sse({"v": {"response": {
                "message_id": 2, "parent_id": 1, "model": "", "role": "ASSISTANT", "thinking_enabled": True,
                "ban_edit": False, "ban_regenerate": False, "status": "WIP", "accumulated_token_usage": 0,
                "files": [], "tips": [], "inserted_at": time.time(), "search_enabled": False,
                "search_status": None, "search_results": None, "fragments": [fragment]}}})
        if kind != self._kind:  # the thinking is over: its time, then the answer's fragment
            self._kind, self._path = kind, "response/fragments"
            return (_sse({"p": "response/fragments/-1/elapsed_secs", "o": "SET", "v": 1.5})
                    + _sse({"p": "response/fragments", "o": "APPEND", "v": [fragment]}))
        if self._path != content:
            self._path = content
            return _sse({"p": content, "o": "APPEND", "v": text})
        return _sse({"v": text})


def _deepseek_body(body: bytes, _match: Mapping[str, str]) -> dict[str, Any] | None:
    """DeepSeek's request (``chat_session_id``, ``prompt``, ...; the page adds ``client_stream_id``, the
    run's id its stop names)."""
    asked = _json_body(body)
    if asked is None:
        return None
    return _generate(asked.get("prompt"), asked.get("chat_session_id"), asked.get("client_stream_id"))


# --- claude ---------------------------------------------------------------------------------------------


class ClaudeEvents:
    """One run as claude.ai's completion SSE (the Messages streaming events): ``message_start``; a thinking
    block (``content_block_start`` of type ``thinking``, ``content_block_delta`` with ``thinking_delta``,
    ``content_block_stop``), then a text block the same way with ``text_delta``; ``message_delta`` with
    the stop reason (``end_turn``; ``user_canceled`` when stopped) and ``message_stop``. Keep-alives are
    ``event: ping``; an error is ``event: error`` with ``{"type": "error", "error": {"type", "message"}}``."""

    def __init__(self) -> None:
        self._block: str | None = None  # the open block's type
        self._index = -1

    def convert(self, event: dict[str, Any]) -> bytes:
        kind = event.get("t")
        if kind == "start":
            message: dict[str, Any] = {"id": f"chatcompl_{uuid.uuid4().hex[:24]}", "type": "message",
                                       "role": "assistant", "model": "", "content": [], "stop_reason": None,
                                       "stop_sequence": None}
            return _sse({"type": "message_start", "message": message}, "message_start")
        if kind == "ping":
            return _sse({"type": "ping"}, "ping")
        if kind in ("think", "token"):
            block = "thinking" if kind == "think" else "text"
            out = b"" if self._block == block else self._stop() + self._start(block)
            delta = ({"type": "thinking_delta", "thinking": event.get("d", "")} if kind == "think"
                     else {"type": "text_delta", "text": event.get("d", "")})
            return out + _sse({"type": "content_block_delta", "index": self._index, "delta": delta},
                              "content_block_delta")
        if kind in ("done", "stopped"):
            reason = "end_turn" if kind == "done" else "user_canceled"
            return (self._stop() + _sse({"type": "message_delta", "delta": {"stop_reason": reason,
                                         "stop_sequence": None}}, "message_delta")
                    + _sse({"type": "message_stop"}, "message_stop"))
        if kind == "error":
            error = {"type": event.get("code"), "message": event.get("message")}
            return _sse({"type": "error", "error": error}, "error")
        return b""

    def _start(self, block: str) -> bytes:
        self._block, self._index = block, self._index + 1
        content = {"type": block, block: ""}
        return _sse({"type": "content_block_start", "index": self._index, "content_block": content},
                    "content_block_start")

    def _stop(self) -> bytes:
        if self._block is None:
            return b""
        self._block = None
        return _sse({"type": "content_block_stop", "index": self._index}, "content_block_stop")


def _claude_body(body: bytes, match: Mapping[str, str]) -> dict[str, Any] | None:
    """claude.ai's request: the conversation in the URL, ``{"prompt", "turn_message_uuids": {
    "assistant_message_uuid"}, ...}`` in the body (the assistant message's id is the run's id)."""
    asked = _json_body(body)
    if asked is None:
        return None
    turn = asked.get("turn_message_uuids")
    rid = turn.get("assistant_message_uuid") if isinstance(turn, dict) else None
    return _generate(asked.get("prompt"), match.get("conversation"), rid)


# --- kimi -----------------------------------------------------------------------------------------------

#: A Kimi frame padded to this payload length: its length header then holds the byte 0x7B ("{"), which a
#: reader that looks for "{" to find the JSON would take for the payload's start.
_KIMI_BRACE_LENGTH = 0x7B


class KimiEvents:
    """One run as Kimi's Connect RPC stream (``application/connect+json``): 5-byte envelopes (flag,
    uint32 big-endian length) of JSON messages. ``start``: the chat (padded to a payload of exactly 123
    bytes, a length byte of 0x7B), the echoed user message with its block, then the assistant message;
    thinking in block ``"0"`` (``{"op": "set", "block": {"id", "think": {"content"}}}`` first, then
    ``"append"``), the answer in block ``"1"`` (``"text"``) the same way; ``{"heartbeat": {}}`` while idle;
    the end: the message's status (``completed``, ``cancelled`` when stopped), ``{"done": {}}``, then the
    end-of-stream envelope (flag 0x02) holding ``{}``, or ``{"error": {"code", "message"}}`` on an error."""

    def __init__(self, body: dict[str, Any]) -> None:
        self._body = body
        self._chat = str(body.get("conversation_id") or uuid.uuid4())
        self._message = uuid.uuid4().hex
        self._blocks: set[str] = set()

    def convert(self, event: dict[str, Any]) -> bytes:
        kind = event.get("t")
        if kind == "start":
            user = {"id": uuid.uuid4().hex, "role": "user", "status": "completed"}
            return (self._frame(self._padded({"op": "set", "chat": {"id": self._chat, "name": "SimChat"}}))
                    + self._frame({"op": "set", "message": user})
                    + self._frame({"op": "set", "block": {"id": "u0", "text": {"content": self._body.get("prompt")}}})
                    + self._frame({"op": "set", "message": self._status("generating")}))
        if kind == "ping":
            return self._frame({"heartbeat": {}})
        if kind in ("think", "token"):
            block_id, key = ("0", "think") if kind == "think" else ("1", "text")
            op = "append" if block_id in self._blocks else "set"
            self._blocks.add(block_id)
            return self._frame({"op": op, "block": {"id": block_id, key: {"content": event.get("d", "")}}})
        if kind in ("done", "stopped"):
            status = "completed" if kind == "done" else "cancelled"
            return (self._frame({"op": "set", "message": self._status(status)}) + self._frame({"done": {}})
                    + connect_frame(b"{}", CONNECT_END))
        if kind == "error":
            error = {"code": event.get("code"), "message": event.get("message")}
            return connect_frame(_json({"error": error}), CONNECT_END)
        return b""

    def _status(self, status: str) -> dict[str, Any]:
        return {"id": self._message, "role": "assistant", "status": status}

    @staticmethod
    def _padded(message: dict[str, Any]) -> dict[str, Any]:
        """``message`` with a ``trace`` field that makes its JSON exactly :data:`_KIMI_BRACE_LENGTH` bytes."""
        room = _KIMI_BRACE_LENGTH - len(_json({**message, "trace": ""}))
        return {**message, "trace": "0" * max(room, 0)}

    @staticmethod
    def _frame(message: dict[str, Any]) -> bytes:
        return connect_frame(_json(message))


def _kimi_body(body: bytes, _match: Mapping[str, str]) -> dict[str, Any] | None:
    """Kimi's Connect request: one envelope of ``{"chat_id", "message": {"id", "role", "blocks": [{"text":
    {"content"}}]}, ...}`` (the message's id is the run's id)."""
    asked = _json_body(_connect_payload(body))
    message = asked.get("message") if asked else None
    if asked is None or not isinstance(message, dict):
        return None
    blocks = message.get("blocks")
    first = blocks[0] if isinstance(blocks, list) and blocks and isinstance(blocks[0], dict) else {}
    text = first.get("text")
    return _generate(text.get("content") if isinstance(text, dict) else None, asked.get("chat_id"), message.get("id"))


# --- chatgpt --------------------------------------------------------------------------------------------


class ChatGPTEvents:
    """One run as chatgpt.com's SSE "delta v1": ``event: delta_encoding`` / ``data: "v1"``; a message starts
    with ``{"p": "", "o": "add", "v": {"message": ...}}`` (the empty path: the whole document): the thinking
    as a ``thoughts`` message whose ``/message/content/thoughts/0/content`` is appended to, then the answer
    as a text message of channel ``final`` whose ``/message/content/parts/0`` is appended to; a bare
    ``{"v": "..."}`` continues the last path. The end: a ``patch`` of the status
    (``finished_successfully``, ``finished_partial_completion`` when stopped), ``message_stream_complete``
    and ``data: [DONE]``. An error: ``{"type": "error", "error": {"code", "message"}}``."""

    def __init__(self, body: dict[str, Any]) -> None:
        self._conversation = str(body.get("conversation_id") or "")
        self._kind: str | None = None  # the open message: "think" | "token"
        self._path: str | None = None

    def convert(self, event: dict[str, Any]) -> bytes:
        kind = event.get("t")
        if kind == "start":
            return _sse("v1", "delta_encoding") + _sse({"type": "resume_conversation_token",
                                                         "conversation_id": self._conversation})
        if kind == "ping":
            return b": ping\n\n"
        if kind in ("think", "token"):
            text = str(event.get("d", ""))
            if self._kind != kind:
                self._kind, self._path = kind, None
                return self._end("finished_successfully") + self._message(kind) + self._append(kind, text)
            return self._append(kind, text)
        if kind in ("done", "stopped"):
            status = "finished_successfully" if kind == "done" else "finished_partial_completion"
            return (self._end(status)
                    + _sse({"type": "message_stream_complete", "conversation_id": self._conversation})
                    + b"data: [DONE]\n\n")
        if kind == "error":
            return _sse({"type": "error", "error": {"code": event.get("code"), "message": event.get("message")}})
        return b""

    def _message(self, kind: str) -> bytes:
        content: dict[str, Any] = ({"content_type": "thoughts", "thoughts": [{"summary": "", "content": ""}]}
                                   if kind == "think" else {"content_type": "text", "parts": [""]})
        message = {"id": str(uuid.uuid4()), "author": {"role": "assistant", "name": None, "metadata": {}},
                   "create_time": time.time(), "content": content, "status": "in_progress", "end_turn": None,
                   "metadata": {}, "recipient": "all", "channel": "analysis" if kind == "think" else "final"}
        return _sse({"p": "", "o": "add", "v": {"message": message, "conversation_id": self._conversation},
                     "c": 0 if kind == "think" else 1})

    def _append(self, kind: str, text: str) -> bytes:
        path = "/message/content/thoughts/0/content" if kind == "think" else "/message/content/parts/0"
        if self._path == path:
            return _sse({"v": text})
        self._path = path
        return _sse({"p": path, "o": "append", "v": text})

    def _end(self, status: str) -> bytes:
        """The open message's end (nothing when none is open)."""
        if self._path is None:
            return b""
        self._path = None
        return _sse({"p": "", "o": "patch", "v": [{"p": "/message/status", "o": "replace", "v": status},
                                                   {"p": "/message/end_turn", "o": "replace",
                                                    "v": self._kind == "token"}]})


def _chatgpt_body(body: bytes, _match: Mapping[str, str]) -> dict[str, Any] | None:
    """chatgpt.com's request: ``{"action": "next", "messages": [{"id", "author", "content": {"parts"}}],
    "conversation_id", ...}`` (the user message's id is the run's id)."""
    asked = _json_body(body)
    messages = asked.get("messages") if asked else None
    if asked is None or not isinstance(messages, list) or not messages or not isinstance(messages[0], dict):
        return None
    content = messages[0].get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    prompt = parts[0] if isinstance(parts, list) and parts else None
    return _generate(prompt, asked.get("conversation_id"), messages[0].get("id"))


# --- doubao ---------------------------------------------------------------------------------------------


class DoubaoEvents:
    """One run as www.doubao.com's chat SSE (named events). ``start``: ``SSE_ACK``, ``FULL_MSG_NOTIFY``
    echoing the user's message (its content a JSON string, no content blocks) and ``STREAM_MSG_NOTIFY``
    opening the reply with a deep-think block (``block_type`` 10040, ``is_finish`` false). Then
    ``STREAM_CHUNK`` events ``{"patch_op": [{"patch_object": 1, "patch_value": {"content_block": [...]}}]}``
    of text blocks (``block_type`` 10000, ``content.text_block.text`` a delta): the thinking first, then the
    10040 block with ``is_finish`` true (the text before it was the thinking), then the answer.
    ``SSE_HEARTBEAT`` while idle; ``SSE_REPLY_END`` ends (``end_type`` 1, 2 when stopped); an error is
    ``STREAM_ERROR`` with ``{"error_code", "error_msg"}``."""

    def __init__(self, body: dict[str, Any]) -> None:
        self._body = body
        self._message = str(uuid.uuid4().int >> 64)
        self._thinking = True  # the deep-think block is open

    def convert(self, event: dict[str, Any]) -> bytes:
        kind = event.get("t")
        conversation = self._body.get("conversation_id")
        if kind == "start":
            user = {"conversation_id": conversation, "message_id": str(uuid.uuid4().int >> 64), "user_type": 1,
                    "content_type": 2001, "content": json.dumps({"text": self._body.get("prompt")}, ensure_ascii=False)}
            meta = {"conversation_id": conversation, "message_id": self._message, "user_type": 2}
            return (_sse({"ack_client_meta": {"local_message_id": self._body.get("request_id"),
                                              "conversation_id": conversation}}, "SSE_ACK")
                    + _sse({"message": user}, "FULL_MSG_NOTIFY")
                    + _sse({"meta": meta, "content": {"content_block": [self._think_block(False)]}},
                           "STREAM_MSG_NOTIFY"))
        if kind == "ping":
            return _sse({}, "SSE_HEARTBEAT")
        if kind in ("think", "token"):
            out = b""
            if kind == "token" and self._thinking:
                self._thinking = False
                out = self._chunk(self._think_block(True))
            text = {"block_type": 10000, "block_id": "think" if kind == "think" else "answer",
                    "content": {"text_block": {"text": event.get("d", "")}}, "is_finish": False}
            return out + self._chunk(text)
        if kind in ("done", "stopped"):
            return _sse({"end_type": 1 if kind == "done" else 2}, "SSE_REPLY_END")
        if kind == "error":
            return _sse({"error_code": event.get("code"), "error_msg": event.get("message")}, "STREAM_ERROR")
        return b""

    @staticmethod
    def _think_block(finished: bool) -> dict[str, Any]:
        return {"block_type": 10040, "block_id": "deep_think", "content": {"thinking_block": {}},
                "is_finish": finished}

    @staticmethod
    def _chunk(block: dict[str, Any]) -> bytes:
        return _sse({"patch_op": [{"patch_object": 1, "patch_type": 1, "patch_value": {"content_block": [block]}}]},
                    "STREAM_CHUNK")


def _first_message(asked: dict[str, Any] | None) -> dict[str, Any] | None:
    """The first of a request's ``messages`` when it is an object, else None."""
    messages = asked.get("messages") if asked else None
    first = messages[0] if isinstance(messages, list) and messages else None
    return first if isinstance(first, dict) else None


def _doubao_body(body: bytes, _match: Mapping[str, str]) -> dict[str, Any] | None:
    """Doubao's request: ``{"messages": [{"content": "{\\"text\\": ...}", "content_type": 2001}],
    "local_conversation_id", "local_message_id", ...}`` (the local message's id is the run's id)."""
    asked = _json_body(body)
    message = _first_message(asked)
    if asked is None or message is None:
        return None
    content = message.get("content")
    text = _json_body(content.encode()) if isinstance(content, str) else None
    prompt = text.get("text") if text else None
    return _generate(prompt, asked.get("local_conversation_id"), asked.get("local_message_id"))


# --- qwen -----------------------------------------------------------------------------------------------


class QwenEvents:
    """One run as chat.qwen.ai's SSE: ``{"response.created": {"chat_id", "parent_id", "response_id"}}``
    first, then deltas ``{"choices": [{"delta": {"role": "assistant", "content", "phase", "status"}}]}``:
    phase ``think`` (the thinking) then ``answer``, status ``typing``; a phase ends with an empty delta of
    status ``finished`` (the answer's is the end; ``stopped`` when stopped). ``: ping`` comments while
    idle; an error is ``{"success": false, "data": {"code", "details"}}``."""

    def __init__(self, body: dict[str, Any]) -> None:
        self._chat = str(body.get("conversation_id") or "")
        self._response = str(uuid.uuid4())
        self._phase: str | None = None

    def convert(self, event: dict[str, Any]) -> bytes:
        kind = event.get("t")
        if kind == "start":
            created = {"chat_id": self._chat, "parent_id": None, "response_id": self._response}
            return _sse({"response.created": created})
        if kind == "ping":
            return b": ping\n\n"
        if kind in ("think", "token"):
            phase = "think" if kind == "think" else "answer"
            out = self._delta("", "finished") if self._phase == "think" and phase == "answer" else b""
            self._phase = phase
            return out + self._delta(str(event.get("d", "")), "typing")
        if kind in ("done", "stopped"):
            self._phase = "answer"
            return self._delta("", "finished" if kind == "done" else "stopped")
        if kind == "error":
            error = {"code": event.get("code"), "details": event.get("message")}
            return _sse({"success": False, "request_id": self._response, "data": error})
        return b""

    def _delta(self, content: str, status: str) -> bytes:
        delta = {"role": "assistant", "content": content, "phase": self._phase, "status": status}
        return _sse({"choices": [{"delta": delta}], "response_id": self._response})


def _qwen_body(body: bytes, _match: Mapping[str, str]) -> dict[str, Any] | None:
    """chat.qwen.ai's request: ``{"chat_id", "messages": [{"fid", "role": "user", "content", ...}], ...}``
    (the user message's ``fid`` is the run's id)."""
    asked = _json_body(body)
    message = _first_message(asked)
    if asked is None or message is None:
        return None
    return _generate(message.get("content"), asked.get("chat_id"), message.get("fid"))


# --- chatglm --------------------------------------------------------------------------------------------


class ChatGLMEvents:
    """One run as chatglm.cn's assistant SSE (``event: message``): every event is the reply's whole state
    so far, ``{"id", "conversation_id", "parts": [{"id", "logic_id", "role": "assistant", "content":
    [{"type": "think", "think"}, {"type": "text", "text"}], "status"}], "status": "init"}``: each part holds
    its whole content (snapshots). The end: ``status`` ``finish`` (the part's status ``finish``,
    ``interrupted`` when stopped); an error: ``status`` ``error`` with ``last_error: {"code", "message"}``;
    ``: ping`` comments while idle."""

    def __init__(self, body: dict[str, Any]) -> None:
        self._conversation = str(body.get("conversation_id") or "")
        self._id = uuid.uuid4().hex
        self._think = ""
        self._text = ""

    def convert(self, event: dict[str, Any]) -> bytes:
        kind = event.get("t")
        if kind == "start":
            return self._state([], "init")
        if kind == "ping":
            return b": ping\n\n"
        if kind == "think":
            self._think += str(event.get("d", ""))
            return self._state([self._part("init")], "init")
        if kind == "token":
            self._text += str(event.get("d", ""))
            return self._state([self._part("init")], "init")
        if kind in ("done", "stopped"):
            return self._state([self._part("finish" if kind == "done" else "interrupted")], "finish")
        if kind == "error":
            return self._state([], "error", {"code": event.get("code"), "message": event.get("message")})
        return b""

    def _part(self, status: str) -> dict[str, Any]:
        content = ([{"type": "think", "think": self._think}] if self._think else []) + (
            [{"type": "text", "text": self._text}] if self._text else [])
        return {"id": f"{self._id}-0", "logic_id": f"{self._id}-logic", "role": "assistant", "content": content,
                "model": "chatglm-all-tools", "recipient": "all", "status": status}

    def _state(self, parts: list[dict[str, Any]], status: str, error: dict[str, Any] | None = None) -> bytes:
        return _sse({"id": self._id, "conversation_id": self._conversation, "assistant_id": _GLM_ASSISTANT,
                     "parts": parts, "status": status, "last_error": error or {}}, "message")


#: chatglm.cn's general assistant (the id public clients send in ``assistant_id``).
_GLM_ASSISTANT = "65940acff94777010aa6b796"


def _chatglm_body(body: bytes, _match: Mapping[str, str]) -> dict[str, Any] | None:
    """chatglm.cn's request: ``{"assistant_id", "conversation_id", "meta_data": {...}, "messages": [{"role":
    "user", "content": [{"type": "text", "text"}]}]}`` (the run's id rides in ``meta_data.request_id``)."""
    asked = _json_body(body)
    message = _first_message(asked)
    if asked is None or message is None:
        return None
    content = message.get("content")
    first = content[0] if isinstance(content, list) and content and isinstance(content[0], dict) else {}
    meta = asked.get("meta_data")
    return _generate(first.get("text"), asked.get("conversation_id"),
                     meta.get("request_id") if isinstance(meta, dict) else None)


# --- gemini ---------------------------------------------------------------------------------------------

#: Google's guard against JSON hijacking, the first line of a batchexecute response.
_XSSI_GUARD = ")]}'\n"
#: The candidate array's size: the thoughts are at index 37.
_GEMINI_CANDIDATE = 38


class GeminiEvents:
    """One run as gemini.google.com's StreamGenerate response: Google's batchexecute envelope (``)]}'``,
    then chunks, each a length line and a JSON array of parts). A part ``["wrb.fr", null, "<JSON>"]`` holds
    ``[null, [conversation, response], ..., [[candidate]]]`` (the candidates at [4]): the candidate's
    [1][0] is the whole answer so far, [37][0][0] the whole thinking so far, [8][0] its status (2 when
    finished). ``start``: the metadata part (no candidate); ``done``: the finished candidate, then
    ``["di", ...]``, ``["af.httprm", ...]`` and the end part ``["e", ...]``; ``stopped``: only the end part
    (no finished candidate before it). An error: a ``wrb.fr`` part without its JSON whose [5] holds a
    BardErrorInfo (here with the simulator's code and message). No keep-alives."""

    def __init__(self, body: dict[str, Any]) -> None:
        self._conversation = str(body.get("conversation_id") or "")
        self._response = f"r_{uuid.uuid4().hex[:16]}"
        self._candidate = f"rc_{uuid.uuid4().hex[:16]}"
        self._think = ""
        self._text = ""
        self._chunks = 0

    def convert(self, event: dict[str, Any]) -> bytes:
        kind = event.get("t")
        if kind == "start":
            return self._part([None, [self._conversation, self._response], {"18": self._response}])
        if kind == "think":
            self._think += str(event.get("d", ""))
            return self._part(self._inner(1))
        if kind == "token":
            self._text += str(event.get("d", ""))
            return self._part(self._inner(1))
        if kind in ("done", "stopped"):
            out = self._part(self._inner(2)) if kind == "done" else b""
            end = self._chunk([["di", 120], ["af.httprm", 119, "-1", 7]]) + self._chunk([["e", 4, None, None, 1]])
            return out + end
        if kind == "error":
            info = ["type.googleapis.com/assistant.boq.bard.application.BardErrorInfo",
                    [event.get("code"), event.get("message")]]
            return self._chunk([["wrb.fr", None, None, None, None, [3, None, [info]]]])
        return b""

    def _inner(self, status: int) -> list[Any]:
        candidate: list[Any] = [None] * _GEMINI_CANDIDATE
        candidate[0], candidate[1], candidate[8] = self._candidate, [self._text], [status]
        if self._think:
            candidate[37] = [[self._think]]
        return [None, [self._conversation, self._response], None, None, [candidate]]

    def _part(self, inner: list[Any]) -> bytes:
        return self._chunk([["wrb.fr", None, json.dumps(inner, ensure_ascii=False, separators=(",", ":"))]])

    def _chunk(self, parts: list[Any]) -> bytes:
        """One chunk: its length (UTF-16 code units of the JSON and its line end, as the page counts), the
        JSON; the guard line before the first."""
        text = json.dumps(parts, ensure_ascii=False, separators=(",", ":")) + "\n"
        head = _XSSI_GUARD + "\n" if not self._chunks else ""
        self._chunks += 1
        return f"{head}{len(text.encode('utf-16-le')) // 2}\n{text}".encode()


def _gemini_body(body: bytes, _match: Mapping[str, str]) -> dict[str, Any] | None:
    """Gemini's request: a form with ``f.req`` = ``[null, "<JSON>"]`` whose inner array holds the prompt at
    [0][0], the conversation's ids at [2] (its id first) and a client-made id at [59] (the run's id)."""
    try:
        outer = json.loads(parse_qs(body.decode("utf-8"))["f.req"][0])
        inner = json.loads(outer[1])
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    if not isinstance(inner, list) or len(inner) < 60:
        return None
    prompt, ids = inner[0], inner[2]
    return _generate(prompt[0] if isinstance(prompt, list) and prompt else None,
                     ids[0] if isinstance(ids, list) and ids else None, inner[59])


#: The site personas' streams, by persona name. A persona of this registry makes the page one real site.
SITE_STREAMS: Mapping[str, SiteStream] = MappingProxyType({
    "deepseek": SiteStream("/api/v0/chat/completion", SSE, _deepseek_body,
                           lambda personas, _body: DeepSeekEvents(new_format="ds_new_format" in personas)),
    "claude": SiteStream("/api/organizations/{org}/chat_conversations/{conversation}/completion", SSE,
                         _claude_body, lambda _personas, _body: ClaudeEvents()),
    "kimi": SiteStream("/apiv2/kimi.gateway.chat.v1.ChatService/Chat", "application/connect+json", _kimi_body,
                       lambda _personas, body: KimiEvents(body)),
    "chatgpt": SiteStream("/backend-api/f/conversation", SSE, _chatgpt_body,
                          lambda _personas, body: ChatGPTEvents(body)),
    "doubao": SiteStream("/samantha/chat/completion", SSE, _doubao_body, lambda _personas, body: DoubaoEvents(body)),
    "qwen": SiteStream("/api/v2/chat/completions", SSE, _qwen_body, lambda _personas, body: QwenEvents(body)),
    "chatglm": SiteStream("/chatglm/backend-api/assistant/stream", SSE, _chatglm_body,
                          lambda _personas, body: ChatGLMEvents(body)),
    # Google's batchexecute answers are application/json (the JSON after the guard line), chunked.
    "gemini": SiteStream("/_/BardChatUi/data/assistant.lamda.BardFrontendService/StreamGenerate",
                         "application/json; charset=utf-8", _gemini_body, lambda _personas, body: GeminiEvents(body)),
})
