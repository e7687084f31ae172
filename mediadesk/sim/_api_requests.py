"""What the API simulator reads from a chat request: the OpenAI body and the ``[[sim:...]]`` markers.

Markers, anywhere in the last user message, make deterministic faults: ``[[sim:400]]``/``[[sim:401]]``,
``[[sim:hang]]``, ``[[sim:reset]]`` (abort the connection), ``[[sim:fail=CODExN]]`` (the first N requests with
that exact prompt fail that way: ``500x2``, ``resetx2``...), ``[[sim:sleep=SECONDS]]`` and the hostile answers
of :mod:`mediadesk.sim._api_hostile` (``endless``, ``huge[=CHARS]``, ``cut``, ``length``, ``steady=SECONDS``).
Marker faults are decided before the quota check (never counted in flight); random faults (``fail_rate``,
``hang_rate``, ``reset_rate``) hit admitted requests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mediadesk.sim._api_hostile import Hostile, hostile_marker

__all__ = ["MODEL_ID", "NO_MARKERS", "Markers", "parse_body", "parse_markers", "split"]

MODEL_ID = "mediadesk-sim"

_MARKER_RE = re.compile(r"\[\[sim:([^\]]*)\]\]")
_FAIL_RE = re.compile(r"^fail=(\d{3}|reset|hang)x(\d+)$")


@dataclass(frozen=True)
class Markers:
    status: int | None = None
    hang: bool = False
    reset: bool = False
    fail: tuple[str, int] | None = None
    sleep_s: float = 0.0
    hostile: Hostile | None = None


NO_MARKERS = Markers()


def parse_markers(prompt: str) -> Markers:
    status: int | None = None
    hang = reset = False
    fail: tuple[str, int] | None = None
    sleep_s = 0.0
    hostile: Hostile | None = None
    for token in _MARKER_RE.findall(prompt):
        token = token.strip()
        if token in ("400", "401"):
            status = int(token)
        elif token == "hang":
            hang = True
        elif token == "reset":
            reset = True
        elif token.startswith("sleep="):
            try:
                sleep_s = max(0.0, float(token[6:]))
            except ValueError:
                pass
        elif m := _FAIL_RE.match(token):
            fail = (m.group(1), int(m.group(2)))
        elif (h := hostile_marker(token)) is not None:
            hostile = h
    return Markers(status, hang, reset, fail, sleep_s, hostile)


def split(text: str, n: int) -> list[str]:
    """Split into at most ``n`` non-empty pieces of near-equal length (by code point)."""
    n = max(1, min(n, len(text)))
    size, extra = divmod(len(text), n)
    pieces, pos = [], 0
    for i in range(n):
        end = pos + size + (1 if i < extra else 0)
        pieces.append(text[pos:end])
        pos = end
    return pieces


def _text_of(content: Any) -> str | None:
    """Message content as text: a string, or OpenAI's list of ``{"type": "text", "text": ...}`` parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return None


def parse_body(body: Any) -> tuple[str, int, bool, str] | str:
    """(last user prompt, number of system messages, stream, model) or an error message."""
    if not isinstance(body, dict):
        return "request body must be a JSON object"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty list"
    prompt: str | None = None
    n_system = 0
    for msg in messages:
        if not isinstance(msg, dict):
            return "each message must be an object"
        role = msg.get("role")
        if role == "system":
            n_system += 1
        elif role == "user":
            prompt = _text_of(msg.get("content"))
    if prompt is None:
        return "no user message with text content"
    model = body.get("model")
    return prompt, n_system, bool(body.get("stream", False)), model if isinstance(model, str) else MODEL_ID
