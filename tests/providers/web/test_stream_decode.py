"""The stream decoder as pure logic: framings, JSON paths, end markers, each site's named decoder.

Sample bodies are written here from the public descriptions cited in the module (no captured traffic):
the answer is Markdown with a code block, a table, Chinese punctuation and emoji, and must come out
byte-exact; the thinking must stay apart from it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mediadesk.providers.web.stream_decode import (
    DECODERS,
    Decoded,
    StreamSpec,
    StreamSpecError,
    decode_body,
    decode_messages,
    parse_stream_spec,
)

ANSWER = (
    "## 结果：对比表 📊\n\n"
    "| 语言 | 用途 |\n|---|---|\n| Python | 脚本、数据 |\n| Rust | 系统🦀 |\n\n"
    "```python\ndef greet(name: str) -> str:\n    return f\"你好，{name}！\"\n```\n\n"
    "注意：“引号”与（括号）保持原样。✅ 👨‍👩‍👧\n"
)
THINKING = "用户要一个表格……先想格式。\nThen the code 🤔"
PROMPT = "比较 Python 和 Rust"
OPENAI_KEYS = StreamSpec(text="choices/0/delta/content", reasoning="choices/0/delta/reasoning_content")
HYPOTHESIS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def pieces(text: str, size: int = 7) -> list[str]:
    """The text cut into deltas of ``size`` code points (cuts land inside words, lines and table rows)."""
    return [text[i:i + size] for i in range(0, len(text), size)]


def js(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def sse(*events: tuple[str | None, Any], newline: str = "\n") -> bytes:
    """An SSE body; each event is (name or None, data as a JSON-able value or a raw string)."""
    out = []
    for name, data in events:
        lines = [f"event: {name}"] if name else []
        lines.append(f"data: {data if isinstance(data, str) else js(data)}")
        out.append(newline.join(lines) + newline + newline)
    return "".join(out).encode()


def openai_chunk(content: str | None = None, reasoning: str | None = None, finish: str | None = None) -> dict[str, Any]:
    delta = {k: v for k, v in (("content", content), ("reasoning_content", reasoning)) if v is not None}
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def openai_body(newline: str = "\n") -> bytes:
    events: list[tuple[str | None, Any]] = [(None, openai_chunk(reasoning=p)) for p in pieces(THINKING)]
    events += [(None, openai_chunk(content=p)) for p in pieces(ANSWER)]
    events += [(None, openai_chunk(finish="stop")), (None, "[DONE]")]
    return sse(*events, newline=newline)


def connect_frame(payload: bytes, flags: int = 0) -> bytes:
    return bytes([flags]) + len(payload).to_bytes(4, "big") + payload


# --- framings -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_sse_any_line_end(newline: str) -> None:
    got = decode_body(OPENAI_KEYS, openai_body(newline))
    assert (got.text, got.reasoning, got.ended) == (ANSWER, THINKING, True)
    assert got.frames == len(pieces(THINKING)) + len(pieces(ANSWER)) + 2
    assert got.matched == len(pieces(THINKING)) + len(pieces(ANSWER))


def test_sse_multiline_data_comments_bom_and_no_final_blank_line() -> None:
    body = (
        "\ufeff: a comment line\n"
        "retry: 1000\n"
        "id: 7\n"
        "data: {\"choices\": [{\"delta\":\n"
        "data:{\"content\": \"a\\nb\"}}]}\n"
        "\n"
        ":keep-alive\n\n"
        "event: noise\n\n"                      # no data: not dispatched (WHATWG)
        "data: {\"choices\": [{\"delta\": {\"content\": \"!\"}}]}"   # the last event, no blank line
    ).encode()
    got = decode_body(StreamSpec(text="choices/0/delta/content"), body)
    assert (got.text, got.frames, got.matched, got.ended) == ("a\nb!", 2, 2, False)


def test_sse_frame_split_mid_utf8_and_mid_crlf() -> None:
    body = openai_body("\r\n")
    emoji = body.index("📊".encode())
    crlf = body.index(b"\r\n")
    for cut in (emoji + 1, emoji + 2, emoji + 3, crlf + 1):
        got = decode_messages(OPENAI_KEYS, [body[:cut], body[cut:]])
        assert got == decode_body(OPENAI_KEYS, body), cut
    one_byte = decode_messages(OPENAI_KEYS, [body[i:i + 1] for i in range(len(body))])
    assert one_byte.text == ANSWER and one_byte.reasoning == THINKING


def test_ndjson() -> None:
    lines = [js(openai_chunk(content=p)) for p in pieces(ANSWER)] + ["", "not json", js(openai_chunk(finish="stop"))]
    spec = StreamSpec(framing="ndjson", text="choices/0/delta/content", end_path="choices/0/finish_reason",
                      end_value="stop")
    got = decode_body(spec, "\r\n".join(lines).encode())
    assert (got.text, got.ended, got.frames, got.matched) == (ANSWER, True, len(pieces(ANSWER)) + 2,
                                                            len(pieces(ANSWER)))


def test_json_values_back_to_back_and_streamed_array() -> None:
    spec = StreamSpec(framing="json", text="delta")
    values = [{"delta": p} for p in pieces(ANSWER)]
    glued = "".join(js(v) for v in values).encode()
    assert decode_body(spec, glued).text == ANSWER
    seq = "".join("\x1e" + js(v) + "\n" for v in values).encode()  # application/json-seq
    assert decode_body(spec, seq).text == ANSWER
    array = ("[" + ",\n".join(js(v) for v in values) + "]").encode()
    assert decode_body(spec, array).text == ANSWER
    truncated = array[:-12]  # an array still streaming: the last element is cut off
    got = decode_body(spec, truncated)
    assert ANSWER.startswith(got.text) and got.text and got.frames == got.matched + 1


def test_json_replace_op_keeps_the_last_whole_text() -> None:
    spec = StreamSpec(framing="json", text="message/content", text_op="replace")
    snapshots = [ANSWER[:i] for i in range(1, len(ANSWER) + 1, 9)] + [ANSWER]
    got = decode_body(spec, "\n".join(js({"message": {"content": s}}) for s in snapshots).encode())
    assert got.text == ANSWER and got.matched == len(snapshots)


def test_connect_frames_header_first_even_when_a_length_byte_is_0x7b() -> None:
    spec = StreamSpec(framing="connect", text="block/text/content")
    head = js({"block": {"text": {"content": "{"}}, "pad": ""}).encode()
    first = js({"block": {"text": {"content": "{"}}, "pad": "x" * (0x7B - len(head))}).encode()
    assert len(first) == 0x7B  # header 00 00 00 00 7B, then a payload that starts with "{"
    base = js({"block": {"text": {"content": "}" + "y" * 40}}, "pad": ""}).encode()
    second = js({"block": {"text": {"content": "}" + "y" * 40}}, "pad": "z" * (0x7B7B - len(base))}).encode()
    assert len(second).to_bytes(4, "big") == b"\x00\x00{{"  # length bytes that read as "{{"
    body = connect_frame(first) + connect_frame(second) + connect_frame(b"{}", flags=0x02)
    got = decode_body(spec, body)
    assert (got.text, got.ended, got.frames, got.matched) == ("{}" + "y" * 40, True, 3, 2)


def test_connect_truncated_compressed_and_grpc_web_trailer() -> None:
    spec = StreamSpec(framing="connect", text="t")
    ok = connect_frame(b'{"t": "a"}')
    compressed = connect_frame(b"\x1f\x8b...", flags=0x01)
    trailer = connect_frame(b"grpc-status: 0\r\ngrpc-message: \r\n", flags=0x80 | 0x02)
    got = decode_body(spec, ok + compressed + ok + trailer + ok[:7])
    assert (got.text, got.ended, got.frames, got.matched) == ("aa", True, 5, 2)


def test_websocket_messages_text_and_binary() -> None:
    spec = StreamSpec(framing="ws", text="choices/0/delta/content", end_path="done", end_value="true")
    messages: list[str | bytes] = [js(openai_chunk(content=p)) for p in pieces(ANSWER)]
    messages[3] = messages[3].encode()  # a binary message that is UTF-8
    messages += [b"\xff\xfe not utf-8", "2probe", js({"done": True})]
    got = decode_messages(spec, messages)
    assert (got.text, got.ended, got.frames, got.matched) == (ANSWER, True, len(pieces(ANSWER)) + 3,
                                                            len(pieces(ANSWER)))


# --- JSON paths and end markers -------------------------------------------------------------------------


def test_paths_with_last_index_and_event_filter() -> None:
    spec = StreamSpec(text="items/-1/text", reasoning="items/-1/thought", event="delta", end_event="done")
    body = sse(("delta", {"items": [{"text": "x"}, {"text": "A"}]}),
               ("other", {"items": [{"text": "ignored"}]}),
               ("delta", {"items": [{"thought": "T"}]}),
               ("delta", {"items": []}),
               ("done", "bye"))
    got = decode_body(spec, body)
    assert (got.text, got.reasoning, got.ended, got.frames, got.matched) == ("A", "T", True, 5, 2)


def test_event_filter_default_name_is_message() -> None:
    spec = StreamSpec(text="t", event="message")
    assert decode_body(spec, sse((None, {"t": "a"}), ("message", {"t": "b"}), ("x", {"t": "c"}))).text == "ab"


@pytest.mark.parametrize(("end_value", "value", "ended"), [
    ("stop", "stop", True), ("stop", "length", False), ("true", True, True), ("2", 2, True),
    (None, "anything", True), (None, False, False), (None, None, False),
])
def test_end_by_path_value(end_value: str | None, value: Any, ended: bool) -> None:
    spec = StreamSpec(text="t", end_path="meta/finish", end_value=end_value)
    assert decode_body(spec, sse((None, {"t": "x", "meta": {"finish": value}}))).ended is ended


def test_end_by_done_marker_and_not_without_one() -> None:
    assert decode_body(OPENAI_KEYS, sse((None, openai_chunk(content="x")), (None, "[DONE]"))).ended
    assert not decode_body(OPENAI_KEYS, sse((None, openai_chunk(content="x")))).ended


def test_garbage_frame_is_skipped_and_counted() -> None:
    body = sse((None, openai_chunk(content="a")), (None, "{not json"), (None, openai_chunk(content="b")),
               (None, "[1, 2"), (None, '"just a string"'))
    got = decode_body(OPENAI_KEYS, body)
    assert (got.text, got.frames, got.matched) == ("ab", 5, 2)


def test_non_string_deltas_are_ignored() -> None:
    body = sse((None, {"choices": [{"delta": {"content": 5}}]}), (None, {"choices": [{"delta": {"content": None}}]}),
               (None, {"choices": "no list"}), (None, openai_chunk(content="ok")))
    got = decode_body(OPENAI_KEYS, body)
    assert (got.text, got.matched) == ("ok", 1)


# --- named decoders: one realistic body each ------------------------------------------------------------


def deepseek_body() -> bytes:
    think, answer = pieces(THINKING, 5), pieces(ANSWER, 6)
    events: list[tuple[str | None, Any]] = [
        ("ready", {"request_message_id": 1, "response_message_id": 2}),
        ("update_session", {"updated_at": 1763793566.47}),
        (None, {"v": {"response": {"message_id": 2, "role": "ASSISTANT", "thinking_enabled": True,
                                   "status": "WIP", "fragments": []}}}),
        (None, {"v": [{"v": False, "p": "has_pending_fragment"},
                      {"v": [{"id": 1, "type": "THINK", "content": think[0]}], "p": "fragments", "o": "APPEND"}],
                "p": "response", "o": "BATCH"}),
        (None, {"v": think[1], "p": "response/fragments/-1/content", "o": "APPEND"}),
        *[(None, {"v": p}) for p in think[2:]],
        (None, {"v": [{"id": 2, "type": "RESPONSE", "content": answer[0]}], "p": "response/fragments",
                "o": "APPEND"}),
        (None, {"v": answer[1], "p": "response/fragments/-1/content", "o": "APPEND"}),
        *[(None, {"v": p}) for p in answer[2:]],
        (None, {"v": [{"v": "FINISHED", "p": "status"}, {"v": 115, "p": "accumulated_token_usage"}],
                "p": "response", "o": "BATCH"}),
        ("finish", {}),
        ("title", {"content": "对比"}),
        ("close", {"click_behavior": "none"}),
    ]
    return sse(*events)


def chatgpt_body() -> bytes:
    user = {"message": {"id": "u1", "author": {"role": "user"}, "content": {"content_type": "text",
                                                                          "parts": [PROMPT]}},
            "conversation_id": "c1"}
    thoughts = {"message": {"id": "t1", "author": {"role": "assistant"}, "recipient": "all", "channel": "analysis",
                            "content": {"content_type": "thoughts", "thoughts": [
                                {"summary": "格式", "content": THINKING, "finished": True}]},
                            "status": "finished_successfully"}, "conversation_id": "c1"}
    answer = pieces(ANSWER, 5)
    start = {"message": {"id": "a1", "author": {"role": "assistant"}, "recipient": "all", "channel": "final",
                         "content": {"content_type": "text", "parts": [""]}, "status": "in_progress",
                         "metadata": {}}, "conversation_id": "c1"}
    events: list[tuple[str | None, Any]] = [
        ("delta_encoding", '"v1"'),
        (None, {"type": "resume_conversation_token", "token": "x", "conversation_id": "c1"}),
        ("delta", {"p": "", "o": "add", "v": user, "c": 0}),
        (None, {"type": "input_message", "input_message": user["message"]}),
        ("delta", {"p": "", "o": "add", "v": thoughts, "c": 1}),
        ("delta", {"p": "", "o": "add", "v": start, "c": 2}),
        ("delta", {"p": "/message/content/parts/0", "o": "append", "v": answer[0]}),
        *[("delta", {"v": p}) for p in answer[1:-1]],
        ("delta", {"p": "", "o": "patch", "v": [
            {"p": "/message/content/parts/0", "o": "append", "v": answer[-1]},
            {"p": "/message/status", "o": "replace", "v": "finished_successfully"},
            {"p": "/message/end_turn", "o": "replace", "v": True},
            {"p": "/message/metadata", "o": "append", "v": {"finish_details": {"type": "stop"}}}]}),
        (None, {"type": "message_marker", "marker": "last_token", "event": "last"}),
        (None, {"type": "title_generation", "title": "对比", "conversation_id": "c1"}),
        (None, {"type": "message_stream_complete", "conversation_id": "c1"}),
        (None, "[DONE]"),
    ]
    return sse(*events)


def claude_body() -> bytes:
    def ev(kind: str, **data: Any) -> tuple[str, Any]:
        return kind, {"type": kind, **data}

    events = [
        ev("message_start", message={"id": "m", "role": "assistant", "content": []}),
        ev("content_block_start", index=0, content_block={"type": "thinking", "thinking": ""}),
        *[ev("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": p})
          for p in pieces(THINKING)],
        ev("content_block_delta", index=0, delta={"type": "signature_delta", "signature": "sig"}),
        ev("content_block_stop", index=0),
        ev("ping"),
        ev("content_block_start", index=1, content_block={"type": "text", "text": ""}),
        *[ev("content_block_delta", index=1, delta={"type": "text_delta", "text": p}) for p in pieces(ANSWER)],
        ev("content_block_stop", index=1),
        ev("message_delta", delta={"stop_reason": "end_turn"}),
        ev("message_stop"),
    ]
    return sse(*events)


def doubao_block(text: str, block_type: int = 10000, finish: bool = False) -> dict[str, Any]:
    return {"block_type": block_type, "block_id": "b1", "content": {"text_block": {"text": text}},
            "is_finish": finish, "patch_type": 1}


def doubao_body() -> bytes:
    answer = pieces(ANSWER, 8)
    events: list[tuple[str | None, Any]] = [
        ("SSE_HEARTBEAT", {}),
        ("SSE_ACK", {"query_list": [{"question_id": "q1"}]}),
        ("FULL_MSG_NOTIFY", {"message": {"user_type": 1, "content_block": [doubao_block(PROMPT)]}}),
        *[("STREAM_CHUNK", {"message_id": "m", "patch_op": [
            {"patch_object": 1, "patch_type": 1, "patch_value": {"content_block": [doubao_block(p)]}}]})
          for p in pieces(THINKING)],
        ("STREAM_CHUNK", {"message_id": "m", "patch_op": [
            {"patch_object": 1, "patch_type": 1, "patch_value": {"content_block": [
                {"block_type": 10040, "content": {"text_block": {}}, "is_finish": True}]}}]}),
        ("STREAM_MSG_NOTIFY", {"content": {"content_block": [doubao_block(answer[0])], "content_status": 100},
                               "meta": {"user_type": 2}}),
        *[("STREAM_CHUNK", {"message_id": "m", "patch_op": [
            {"patch_object": 1, "patch_type": 1, "patch_value": {"content_block": [doubao_block(p)]}},
            {"patch_object": 111, "patch_type": 1, "patch_value": {"tts_content": p}}]}) for p in answer[1:]],
        ("STREAM_CHUNK", {"patch_op": [{"patch_object": 1, "patch_value": {"content_block": [
            doubao_block("", finish=True)]}}]}),
        ("SSE_REPLY_END", {"end_type": 1, "msg_finish_attr": {"brief": ANSWER[:20]}}),
        ("STREAM_CHUNK", {"patch_op": [{"patch_object": 50, "patch_value": {"ext": {"sp_v2": "[]"}}}]}),
        ("SSE_REPLY_END", {"end_type": 3}),
    ]
    return sse(*events)


def doubao_samantha_body() -> bytes:
    def message(content_type: int, content: dict[str, Any], **extra: Any) -> dict[str, Any]:
        data = {"message": {"content_type": content_type, "content": js(content), "id": "x"}, "is_delta": True,
                **extra}
        return {"event_data": js(data), "event_id": "1", "event_type": 2001}

    events: list[tuple[str | None, Any]] = [
        (None, {"event_data": js({"message_id": "1", "conversation_id": "2"}), "event_type": 2002}),
        *[(None, message(2001, {"text": p})) for p in pieces(ANSWER)],
        (None, message(2001, {}, is_finish=True)),
        (None, message(2002, {"suggest": "再来一个？"})),
        (None, {"event_data": "{}", "event_id": "14", "event_type": 2003}),
    ]
    return sse(*events)


def kimi_body() -> bytes:
    def frame(obj: dict[str, Any]) -> bytes:
        return connect_frame(js(obj).encode())

    think, answer = pieces(THINKING, 4), pieces(ANSWER, 9)
    frames = [
        frame({"op": "set", "chat": {"id": "c1", "name": "未命名会话"}}),
        frame({"op": "set", "message": {"id": "m1", "role": "user", "status": "MESSAGE_STATUS_COMPLETED"}}),
        frame({"op": "set", "block": {"id": "b0", "text": {"content": PROMPT}}}),
        frame({"op": "set", "message": {"id": "m2", "role": "assistant", "status": "MESSAGE_STATUS_GENERATING"}}),
        frame({"op": "set", "block": {"id": "b1", "think": {"content": think[0]}}}),
        *[frame({"op": "append", "block": {"id": "b1", "think": {"content": p}}}) for p in think[1:]],
        frame({"heartbeat": {}}),
        frame({"op": "set", "block": {"id": "b2", "text": {"content": ""}}}),
        *[frame({"op": "append", "mask": "block.text", "block": {"id": "b2", "text": {"content": p}}})
          for p in answer],
        frame({"op": "set", "message": {"id": "m2", "role": "assistant", "status": "MESSAGE_STATUS_COMPLETED"}}),
        frame({"done": {}}),
        connect_frame(b"{}", flags=0x02),
    ]
    return b"".join(frames)


def qwen_body() -> bytes:
    def delta(content: str, phase: str, status: str = "typing") -> dict[str, Any]:
        return {"choices": [{"delta": {"role": "assistant", "content": content, "phase": phase, "status": status}}]}

    events: list[tuple[str | None, Any]] = [
        (None, {"response.created": {"chat_id": "c", "response_id": "r"}}),
        *[(None, delta(p, "think")) for p in pieces(THINKING)],
        (None, delta("", "think", "finished")),
        *[(None, delta(p, "answer")) for p in pieces(ANSWER)],
        (None, delta("", "answer", "finished")),
    ]
    return sse(*events)


def chatglm_body() -> bytes:
    def event(think: str, text: str, status: str) -> dict[str, Any]:
        content = [{"type": "think", "think": think, "status": "finish" if text else "init"}]
        if text:
            content.append({"type": "text", "text": text, "status": status})
        return {"id": "e1", "conversation_id": "c1", "status": status, "parts": [
            {"id": "p1", "logic_id": "l1", "role": "assistant", "content": content, "status": status}]}

    think_steps = [THINKING[:i] for i in range(4, len(THINKING), 6)] + [THINKING]
    text_steps = [ANSWER[:i] for i in range(5, len(ANSWER), 11)] + [ANSWER]
    events: list[tuple[str | None, Any]] = [
        *[(None, event(t, "", "init")) for t in think_steps],
        *[(None, event(THINKING, t, "init")) for t in text_steps],
        (None, event(THINKING, ANSWER, "finish")),
    ]
    return sse(*events)


def gemini_body(final: bool = True) -> bytes:
    def chunk(text: str, thoughts: str | None, done: bool) -> str:
        candidate: list[Any] = [None] * 38
        candidate[0], candidate[1] = "rc_1", [text]
        candidate[37] = [[thoughts]] if thoughts else None
        candidate[8] = [2] if done else [1]
        inner = [None, ["c_1", "r_1"], None, None, [candidate]]
        parts = js([["wrb.fr", None, js(inner)]])
        return f"{len(parts)}\n{parts}\n"

    steps = [ANSWER[:i] for i in range(3, len(ANSWER), 17)]
    body = ")]}'\n\n" + chunk("", THINKING[:10], False) + chunk("", THINKING, False)
    body += "".join(chunk(s, THINKING, False) for s in steps)
    body += chunk(ANSWER, THINKING, final)
    body += '25\n[["di",59],["af.httprm",58,"-1",6]]\n'
    if final:
        body += '27\n[["e",4,null,null,1234]]\n'
    return body.encode()


SITE_BODIES = {
    "deepseek": deepseek_body,
    "chatgpt": chatgpt_body,
    "claude": claude_body,
    "doubao": doubao_body,
    "kimi": kimi_body,
    "qwen": qwen_body,
    "chatglm": chatglm_body,
    "gemini": gemini_body,
}


def test_every_named_decoder_has_a_sample() -> None:
    assert set(SITE_BODIES) == set(DECODERS)


@pytest.mark.parametrize("site", sorted(SITE_BODIES))
def test_named_decoder_reads_its_site(site: str) -> None:
    spec = parse_stream_spec({"decoder": site})
    got = decode_body(spec, SITE_BODIES[site]())
    assert got.text == ANSWER, site
    assert got.reasoning == THINKING, site
    assert got.ended, site
    assert 0 < got.matched <= got.frames


@pytest.mark.parametrize("site", sorted(SITE_BODIES))
def test_named_decoder_without_end_marker_is_not_ended(site: str) -> None:
    spec = parse_stream_spec({"decoder": site})
    body = SITE_BODIES[site]()
    got = decode_body(spec, body[:len(body) * 2 // 3])
    assert not got.ended, site
    assert PROMPT not in got.text and THINKING not in got.text


def test_sse_decoders_read_the_same_from_any_split() -> None:
    for site in ("deepseek", "chatgpt", "claude", "doubao", "qwen", "chatglm"):
        spec = parse_stream_spec({"decoder": site})
        body = SITE_BODIES[site]()
        whole = decode_body(spec, body)
        for cut in range(1, len(body), max(1, len(body) // 37)):
            assert decode_messages(spec, [body[:cut], body[cut:]]) == whole, (site, cut)


def test_doubao_samantha_stream_nested_json_strings() -> None:
    got = decode_body(parse_stream_spec({"decoder": "doubao"}), doubao_samantha_body())
    assert (got.text, got.reasoning, got.ended) == (ANSWER, "", True)


def test_deepseek_without_thinking_and_older_choices_format() -> None:
    spec = parse_stream_spec({"decoder": "deepseek"})
    plain = sse((None, {"v": {"response": {"fragments": [], "status": "WIP"}}}),
                (None, {"v": [{"id": 1, "type": "RESPONSE", "content": "你好"}], "p": "response/fragments",
                        "o": "APPEND"}),
                (None, {"v": "！", "p": "response/fragments/0/content", "o": "APPEND"}),
                (None, {"v": "😊"}),
                (None, {"p": "response/status", "o": "SET", "v": "FINISHED"}))
    got = decode_body(spec, plain)
    assert (got.text, got.reasoning, got.ended) == ("你好！😊", "", True)
    older = sse((None, {"choices": [{"delta": {"content": "想", "type": "thinking"}}]}),
                (None, {"choices": [{"delta": {"content": "答", "type": "text"}, "finish_reason": "stop"}]}))
    got = decode_body(spec, older)
    assert (got.text, got.reasoning, got.ended) == ("答", "想", True)


def test_chatgpt_legacy_whole_messages_and_websocket_handoff() -> None:
    spec = parse_stream_spec({"decoder": "chatgpt"})

    def whole(text: str, status: str) -> dict[str, Any]:
        return {"message": {"id": "a1", "author": {"role": "assistant"}, "recipient": "all",
                            "content": {"content_type": "text", "parts": [text]}, "status": status},
                "conversation_id": "c1", "error": None}

    legacy = sse((None, whole(ANSWER[:10], "in_progress")), (None, whole(ANSWER, "finished_successfully")),
                 (None, "[DONE]"))
    got = decode_body(spec, legacy)
    assert (got.text, got.ended) == (ANSWER, True)

    def item(n: int, sse_text: bytes) -> str:
        return js({"type": "message", "topic_id": "conversation-turn-1", "payload": {
            "type": "conversation-turn-stream",
            "payload": {"type": "stream-item", "stream_item_id": f"s{n}", "encoded_item": sse_text.decode()}}})

    body = chatgpt_body()
    events = body.split(b"\n\n")
    half = len(events) // 2
    first, second = b"\n\n".join(events[:half]) + b"\n\n", b"\n\n".join(events[half:])
    ws = parse_stream_spec({"decoder": "chatgpt", "framing": "ws"})
    got = decode_messages(ws, [item(1, first), item(1, first), item(2, second),
                               js({"type": "message", "payload": {"payload": {"type": "done"}}})])
    assert (got.text, got.reasoning, got.ended) == (ANSWER, THINKING, True)


def test_chatgpt_skips_tool_and_hidden_messages() -> None:
    def add(msg: dict[str, Any]) -> tuple[None, dict[str, Any]]:
        return None, {"p": "", "o": "add", "v": {"message": {"author": {"role": "assistant"}, **msg}}}

    body = sse(add({"recipient": "python", "content": {"content_type": "code", "text": "print(1)"}}),
               add({"recipient": "all", "metadata": {"is_visually_hidden_from_conversation": True},
                    "content": {"content_type": "text", "parts": ["hidden"]}}),
               add({"recipient": "all", "content": {"content_type": "text", "parts": ["answer"]}}),
               add({"recipient": "all", "content": {"content_type": "reasoning_recap", "content": "Thought 3s"}}))
    got = decode_body(parse_stream_spec({"decoder": "chatgpt"}), body)
    assert (got.text, got.reasoning) == ("answer", "")


def test_gemini_empty_late_candidate_keeps_the_text_and_card_link_alternative() -> None:
    def part(text: str, alt: str | None = None) -> str:
        candidate: list[Any] = [None] * 23
        candidate[1] = [text]
        candidate[22] = [alt] if alt else None
        chunk = js([["wrb.fr", None, js([None, None, None, None, [candidate]])]])
        return f"{len(chunk)}\n{chunk}\n"

    spec = parse_stream_spec({"decoder": "gemini"})
    assert decode_body(spec, (")]}'\n" + part("答案") + part("")).encode()).text == "答案"
    card = "http://googleusercontent.com/card_content/0"
    assert decode_body(spec, (")]}'\n" + part(card, "表格 📊")).encode()).text == "表格 📊"


# --- parse_stream_spec ----------------------------------------------------------------------------------


def test_parse_stream_spec_defaults_and_decoder_framing() -> None:
    assert parse_stream_spec({"text": "choices/0/delta/content"}) == StreamSpec(text="choices/0/delta/content")
    assert parse_stream_spec({"decoder": "kimi"}).framing == "connect"
    assert parse_stream_spec({"decoder": "gemini"}).framing == "json"
    assert parse_stream_spec({"decoder": "chatgpt", "framing": "ws"}).framing == "ws"
    spec = parse_stream_spec({"framing": "ndjson", "text": "/a/b", "text_op": "replace", "end_path": "done",
                              "end_value": True})
    assert (spec.text_op, spec.end_value) == ("replace", "true")


@pytest.mark.parametrize(("table", "key", "words"), [
    ({"txt": "a"}, "txt", "did you mean 'text'"),
    ({"text": "a", "framing": "sse2"}, "framing", "sse2"),
    ({"text": "a", "text_op": "prepend"}, "text_op", "prepend"),
    ({"decoder": "deepsek"}, "decoder", "did you mean 'deepseek'"),
    ({"decoder": ["kimi"]}, "decoder", "unknown decoder"),
    ({"decoder": "kimi", "text": "a"}, "text", "not both"),
    ({"decoder": "claude", "end_event": "done"}, "end_event", "not both"),
    ({}, "text", "missing"),
    ({"text": "a//b"}, "text", "empty segment"),
    ({"text": ""}, "text", "JSON path"),
    ({"text": 3}, "text", "JSON path"),
    ({"text": "a", "reasoning": "/"}, "reasoning", "JSON path"),
    ({"text": "a", "end_value": "stop"}, "end_value", "end_path"),
    ({"text": "a", "end_path": "x", "end_value": ["stop"]}, "end_value", "string, number or boolean"),
    ({"text": "a", "framing": "ndjson", "event": "delta"}, "event", "only with framing 'sse'"),
    ({"text": "a", "end_event": " "}, "end_event", "non-empty"),
])
def test_parse_stream_spec_errors_name_the_key(table: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(StreamSpecError) as info:
        parse_stream_spec(table)
    assert info.value.key == key
    assert words in str(info.value) and f"[stream] {key}:" in str(info.value)


# --- hostile input --------------------------------------------------------------------------------------

ALL_SPECS = [
    *(StreamSpec(framing=f, text="a/0/b", reasoning="-1/r", end_path="e", end_event="x" if f == "sse" else None)
      for f in ("sse", "ndjson", "json", "connect", "ws")),
    *(StreamSpec(framing=f, decoder=name) for name in DECODERS for f in ("sse", "json", "connect", "ws")),
]
HOSTILE = st.one_of(
    st.binary(max_size=400),
    st.lists(st.sampled_from([b"data: ", b"event: ", b"\n", b"\r", b"{", b"}", b"[", b"]", b'"v"', b":", b",",
                              b'"p": "response/fragments/-1/content"', b'"o": "BATCH"', b"\x00\x00\x00\x00\x7b",
                              b"\x02", b"[DONE]", b"\xf0\x9f", b"-1", b"1e999", b"9" * 5000, b"[" * 3000]),
             max_size=60).map(b"".join),
)


@HYPOTHESIS
@given(body=HOSTILE, spec=st.sampled_from(ALL_SPECS))
def test_any_body_never_raises(body: bytes, spec: StreamSpec) -> None:
    got = decode_body(spec, body)
    assert isinstance(got, Decoded) and 0 <= got.matched <= got.frames


@HYPOTHESIS
@given(messages=st.lists(st.one_of(st.text(max_size=60), HOSTILE), max_size=8), spec=st.sampled_from(ALL_SPECS))
def test_any_messages_never_raise(messages: list[str | bytes], spec: StreamSpec) -> None:
    got = decode_messages(spec, messages)
    assert isinstance(got, Decoded) and 0 <= got.matched <= got.frames


def test_deep_nesting_and_huge_numbers_never_raise() -> None:
    deep = b"data: " + b"[" * 100_000 + b"\n\n" + b'data: {"v": ' + b"9" * 10_000 + b"}\n\n"
    for spec in ALL_SPECS:
        got = decode_body(spec, deep)
        assert got.text == "" and got.matched == 0


SSE_LINE = st.one_of(
    st.builds(lambda v: f"data: {js(v)}", st.dictionaries(st.sampled_from(["t", "r", "x"]), st.text(max_size=12),
                                                          max_size=3)),
    st.builds(lambda t: f"data:{t}", st.text(max_size=12)),
    st.builds(lambda t: f"event: {t}", st.sampled_from(["delta", "done", "message", ""])),
    st.builds(lambda t: f": {t}", st.text(max_size=8)),
    st.just(""),
    st.just("data: [DONE]"),
)


@HYPOTHESIS
@given(lines=st.lists(st.tuples(SSE_LINE, st.sampled_from(["\n", "\r\n", "\r"])), max_size=30),
       bom=st.booleans(), cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=12))
def test_sse_rechunking_never_changes_the_result(lines: list[tuple[str, str]], bom: bool, cuts: list[int]) -> None:
    body = (("\ufeff" if bom else "") + "".join(line + end for line, end in lines)).encode()
    points = sorted({c % (len(body) + 1) for c in cuts})
    chunks = [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]
    for spec in (StreamSpec(text="t", reasoning="r", end_event="done"), StreamSpec(text="t", event="delta"),
                 StreamSpec(decoder="deepseek"), StreamSpec(decoder="chatgpt")):
        assert decode_messages(spec, chunks) == decode_body(spec, body)


@HYPOTHESIS
@given(body=st.binary(max_size=300), cuts=st.lists(st.integers(min_value=0, max_value=300), max_size=8))
def test_sse_rechunking_of_arbitrary_bytes(body: bytes, cuts: list[int]) -> None:
    points = sorted({c % (len(body) + 1) for c in cuts})
    chunks = [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]
    spec = StreamSpec(text="t")
    assert decode_messages(spec, chunks) == decode_body(spec, body)
