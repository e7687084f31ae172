"""What an attempt used, in tokens, and the estimate where no provider counted them.

A backend that knows the provider's count (the API's ``usage`` object) reports it; a web run, or a
server that sends no ``usage``, is estimated from characters (:func:`estimate_tokens`) and marked so,
everywhere it is shown or exported. Pure: no I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["LATIN_CHARS_PER_TOKEN", "Usage", "estimate_tokens", "estimate_usage", "usage_of_json"]

#: Latin-script text runs at about four characters per token in the common tokenizers.
LATIN_CHARS_PER_TOKEN = 4.0


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one attempt. ``estimated``: MediaDesk's estimate, not the provider's count."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    #: The part of ``prompt_tokens`` the provider served from its prompt cache.
    cached_tokens: int | None = None
    estimated: bool = False
    #: The part of ``completion_tokens`` the model spent thinking (``completion_tokens_details.reasoning_tokens``).
    reasoning_tokens: int | None = None

    @property
    def total(self) -> int:
        """Prompt plus completion tokens (an unknown count as 0)."""
        return (self.prompt_tokens or 0) + (self.completion_tokens or 0)


def _is_wide(ch: str) -> bool:
    """CJK ideographs, kana, hangul and full-width forms: about one token each."""
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7AF or 0xF900 <= o <= 0xFAFF
            or 0xFF00 <= o <= 0xFFEF or 0x20000 <= o <= 0x3134F)


def estimate_tokens(text: str) -> int:
    """An estimate of ``text``'s tokens: one per CJK character, one per ~4 other characters (at
    least 1 for a non-empty text). A rough estimate, never a bill."""
    if not text:
        return 0
    wide = sum(1 for ch in text if _is_wide(ch))
    rest = len(text) - wide
    return max(1, wide + round(rest / LATIN_CHARS_PER_TOKEN))


def estimate_usage(prompt: str, answer: str, *, system: str | None = None,
                   history: tuple[tuple[str, str], ...] = ()) -> Usage:
    """An estimated :class:`Usage` of one exchange (system prompt and earlier turns count as prompt)."""
    sent = sum(estimate_tokens(q) + estimate_tokens(a) for q, a in history)
    sent += estimate_tokens(prompt) + estimate_tokens(system or "")
    return Usage(prompt_tokens=sent, completion_tokens=estimate_tokens(answer), estimated=True)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def usage_of_json(obj: Any) -> Usage | None:
    """The provider's ``usage`` object (OpenAI style) as a :class:`Usage`; None when it is absent or
    holds no count. Cached tokens from ``prompt_tokens_details.cached_tokens``, thinking tokens from
    ``completion_tokens_details.reasoning_tokens``."""
    if not isinstance(obj, dict):
        return None
    prompt, completion = _count(obj.get("prompt_tokens")), _count(obj.get("completion_tokens"))
    if prompt is None and completion is None:
        return None
    details = obj.get("prompt_tokens_details")
    cached = _count(details.get("cached_tokens")) if isinstance(details, dict) else None
    out_details = obj.get("completion_tokens_details")
    reasoning = _count(out_details.get("reasoning_tokens")) if isinstance(out_details, dict) else None
    return Usage(prompt_tokens=prompt, completion_tokens=completion, cached_tokens=cached,
                 reasoning_tokens=reasoning)
