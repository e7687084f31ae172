"""Telling a chat site's "busy" refusal from a failure: pure text rules, no page, no clock.

A busy or rate-limited account ("too many messages", "请求过于频繁") is the site's capacity speaking: the run
costs no attempt and the account pauses. The driver reads the refusal from a banner (``busy_selector``), an
error text or the "answer" itself and asks a :class:`BusyMatcher`; :func:`parse_wait` reads a stated wait,
:func:`rest_until` a usage limit's reset far enough away to make the account rest until then.
Patterns are Python regular expressions, matched case-insensitively anywhere in the text.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterable, Sequence

__all__ = [
    "BUILTIN_BUSY_TEXT",
    "MAX_BUSY_ANSWER_CHARS",
    "MAX_LEFT_SHARE",
    "REST_MIN_S",
    "USAGE_LIMIT_TEXT",
    "BusyMatcher",
    "parse_reset",
    "parse_wait",
    "rest_until",
]

#: The built-in busy wordings (English and Chinese), used unless an adapter turns them off with
#: ``busy_text_builtin = false``; an adapter's own ``busy_text`` patterns are added to them.
BUILTIN_BUSY_TEXT: tuple[str, ...] = (
    r"too many (?:requests|messages|attempts|prompts|conversations)",
    r"rate[ -]?limit(?:ed|s)?\b",
    r"(?:you(?:'ve| have)|you've) (?:reached|hit|exceeded) (?:the|your|our)\b.{0,40}?\blimit",
    r"\blimit (?:reached|exceeded)\b",
    r"please wait\b",
    # A stated wait, not a bare "try again later": that is also how generic site errors end.
    r"try again (?:in a (?:moment|minute|few (?:seconds|minutes))"
    r"|(?:in|after) (?:about )?\d+(?:\.\d+)? ?(?:s|sec|secs|seconds?|m|min|mins|minutes?|h|hr|hrs|hours?)\b)",
    r"already (?:generating|responding|answering|running)",
    r"another (?:generation|response|reply|message|answer|request) is (?:already )?"
    r"(?:in progress|running|being generated|underway)",
    r"(?:is|are) (?:currently |still )?(?:generating|busy)\b",
    r"wait (?:for|until) the (?:current|previous|other) (?:response|reply|answer|generation|message)",
    r"at capacity\b",
    r"请稍后(?:再试|重试)",
    r"请稍候",
    r"请求(?:过于|太)频繁",
    r"(?:操作|发送|提问|消息)(?:过于|太)频繁",
    r"(?:正在|仍在)(?:生成|回答|回复|输出)",
    r"(?:已达到?|达到了?|超过了?|超出了?)(?:[^，。,.!！]{0,10})(?:上限|限制|限额)",
    r"\d+(?:\.\d+)?\s*(?:秒钟?|分钟|小时)\s*(?:后|之后|以后)(?:再试|重试)?",
)

#: Usage-limit wordings (a quota that resets at a time, not a momentary overload); part of the
#: built-in busy wordings, so such a banner, error or whole answer is a refusal. With a reset time
#: (:func:`parse_reset`) the account rests until then.
USAGE_LIMIT_TEXT: tuple[str, ...] = (
    r"usage (?:limit|cap|quota)",
    r"(?:daily|hourly|weekly|monthly|message|messages|request|conversation|plan|free[- ]tier) (?:limit|cap|quota)",
    r"quota (?:(?:is|has been|was) )?(?:used up|exhausted)",
    r"out of (?:messages|credits|quota)",
    r"limit (?:resets|will reset|is reset)",
    r"come back (?:tomorrow|later today|in)",
    r"额度(?:已经?)?(?:用完|用尽|耗尽|不足)",
    r"(?:次数|条数|配额)(?:已经?)?(?:用完|用尽|耗尽)",
    r"明天再来|明日再来",
    r"请(?:于|在).{0,12}(?:之后|以后|后)再(?:试|来)",
)
BUILTIN_BUSY_TEXT = (*BUILTIN_BUSY_TEXT, *USAGE_LIMIT_TEXT)

#: A stated reset at least this far away makes the account rest until then; a shorter wait is a
#: pause of the refusal kind (the account's gate), as before.
REST_MIN_S = 60.0

#: Longer answers are never taken for a busy notice (real notices are a sentence or two).
MAX_BUSY_ANSWER_CHARS = 300
#: An answer is a busy notice only if at most this share of its letters is left after taking out the
#: busy phrases, the stated wait and filler words.
MAX_LEFT_SHARE = 0.25

_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0}
_EN_UNIT = r"(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h)\b"
_EN_PART = rf"(\d+(?:\.\d+)?)\s*{_EN_UNIT}"
#: "in 20 seconds", "after 2 minutes", "wait 30s", "in 1 minute and 30 seconds".
_EN_WAIT = re.compile(
    rf"\b(?:in|after|wait(?:ing)?(?:\s+for)?|within|for)\s+(?:about\s+|approximately\s+|~\s*)?"
    rf"({_EN_PART}(?:\s*(?:,|and)?\s*{_EN_PART})*)",
    re.IGNORECASE,
)
_EN_PARTS = re.compile(_EN_PART, re.IGNORECASE)
_ZH_UNIT = {"秒": 1.0, "秒钟": 1.0, "分": 60.0, "分钟": 60.0, "小时": 3600.0, "个小时": 3600.0}
#: "20 秒后", "2分钟后", "请等待 30 秒", "1 分钟 30 秒后".
_ZH_PART = r"(\d+(?:\.\d+)?)\s*(秒钟|秒|分钟|分|个小时|小时)"
_ZH_WAIT = re.compile(rf"((?:{_ZH_PART}\s*)+)(?:后|之后|以后)|(?:等待|等|稍等)\s*((?:{_ZH_PART}\s*)+)")
_ZH_PARTS = re.compile(_ZH_PART)

_FILLER_EN = re.compile(
    r"\b(?:sorry|oops|apologies|unfortunately|please|kindly|you|you've|you're|your|we|we're|our|i|i'm|it|"
    r"it's|this|that|there|here|the|a|an|is|are|was|were|has|have|had|been|be|will|would|can|could|may|"
    r"might|just|now|right|currently|still|at|moment|again|later|shortly|soon|for|to|in|of|on|and|or|"
    r"with|too|many|much|sent|send|sending|request|requests|message|messages|try|retry|wait|waiting|"
    r"limit|limits|reached|exceeded|hit|while|until|account|conversation|chat|another|one|new|high|demand|due|"
    r"capacity|busy|server|servers|more|few|minute|minutes|second|seconds|hour|hours|per|hourly|daily|"
    r"time|back|come|thank|thanks|patience|generating|response|reply|answer|already|progress|running|"
    r"after|before|other|current|previous)\b",
    re.IGNORECASE,
)
_FILLER_ZH = re.compile(
    r"抱歉|对不起|不好意思|您|你|的|了|请|稍后|稍候|再|试|重试|当前|目前|现在|太多|过多|次数|消息|请求|"
    r"已经|已|达到|上限|限制|账号|账户|会话|对话|个|一下|中|后|等待|正在|生成|回答|回复|频繁|过于"
)
_LETTERS = re.compile(r"\w", re.UNICODE)
_SPACE = re.compile(r"\s+")


def _sum_parts(parts: Iterable[tuple[str, str]], unit_of: dict[str, float] | None = None) -> float:
    total = 0.0
    for number, unit in parts:
        if unit_of is not None:
            total += float(number) * unit_of[unit]
        else:
            total += float(number) * _UNITS[unit[0].lower()]
    return total


def parse_wait(text: str) -> float | None:
    """The wait a busy notice states, in seconds ("in 20 seconds" -> 20, "2 minutes" -> 120,
    "20 秒后" -> 20, "in 1 minute and 30 seconds" -> 90), or None when it states none."""
    if not text:
        return None
    found: list[tuple[int, float]] = []
    if m := _EN_WAIT.search(text):
        found.append((m.start(), _sum_parts(_EN_PARTS.findall(m.group(1)))))
    if m := _ZH_WAIT.search(text):
        chunk = m.group(1) or m.group(4) or ""
        found.append((m.start(), _sum_parts(_ZH_PARTS.findall(chunk), _ZH_UNIT)))
    if not found:
        return None
    seconds = min(found)[1]  # the first one the text states
    return seconds if seconds > 0 else None


_AMPM = r"(a\.?m\.?|p\.?m\.?)"
#: "resets at 14:30", "available again at 2:30 PM", "until 09:00:15", "at 3 pm".
_EN_CLOCK = re.compile(
    rf"\b(?:at|until|till|after|by|from)\s+(\d{{1,2}})(?::(\d{{2}})(?::(\d{{2}}))?)?\s*{_AMPM}?(?![\d:])",
    re.IGNORECASE,
)
#: "14:30 重置", "将于 14:30 恢复", "下午3点后再来", "明天 9:00 恢复".
_ZH_CLOCK = re.compile(
    r"(上午|早上|中午|下午|晚上|凌晨)?\s*(\d{1,2})\s*(?:[:：](\d{2})(?:[:：](\d{2}))?|点(?:(\d{1,2})分?|半)?)"
    r"\s*(?:后|之后|以后|重置|恢复|再来|再试|可用|刷新)"
)
_TOMORROW = re.compile(r"\btomorrow\b|明天|明日", re.IGNORECASE)
_AN_HOUR = re.compile(r"\b(?:in|after)\s+(?:about\s+)?(half an|an|one|a few|a couple of)\s+hours?\b", re.IGNORECASE)
_AN_HOUR_S = {"half an": 1800.0, "an": 3600.0, "one": 3600.0, "a few": 3 * 3600.0, "a couple of": 2 * 3600.0}


#: A stated reset time this recent is one that has just passed (the banner was read a moment after it
#: was written, or the site's clock is a little behind ours): not a reset at that time tomorrow.
JUST_PASSED_S = 900.0


def _next_clock(now: float, hour: int, minute: int, second: int) -> float | None:
    """The next local time ``hour:minute:second`` at or after ``now`` (today, else tomorrow); a time
    that passed less than :data:`JUST_PASSED_S` ago is returned as it is (in the past: no rest)."""
    if not (0 <= hour <= 24 and 0 <= minute < 60 and 0 <= second < 60):
        return None
    base = _dt.datetime.fromtimestamp(now)
    day = base.replace(hour=0, minute=0, second=0, microsecond=0)
    at = day + _dt.timedelta(hours=hour, minutes=minute, seconds=second)
    if at.timestamp() < now - JUST_PASSED_S:
        at += _dt.timedelta(days=1)
    return at.timestamp()


def _clock_in(text: str) -> tuple[int, int, int] | None:
    if m := _EN_CLOCK.search(text):
        hour, minute, second, ampm = int(m.group(1)), int(m.group(2) or 0), int(m.group(3) or 0), m.group(4)
        if m.group(2) is not None or ampm is not None:  # "at 3" alone is no clock time
            if ampm:
                if not 1 <= hour <= 12:
                    return None
                pm = ampm.lower().startswith("p")
                hour = (hour % 12) + (12 if pm else 0)
            return hour, minute, second
    if m := _ZH_CLOCK.search(text):
        part, hour = m.group(1), int(m.group(2))
        minute = int(m.group(3) or m.group(5) or 0)
        if m.group(0).find("半") >= 0:
            minute = 30
        second = int(m.group(4) or 0)
        if (part in ("下午", "晚上") and hour < 12) or (part == "中午" and hour < 11):
            hour += 12
        return hour, minute, second
    return None


def _reset(text: str, now: float) -> tuple[float, bool] | None:
    """(when, stated as a time of day or "tomorrow") or None; see :func:`parse_reset`."""
    if not text:
        return None
    if (clock := _clock_in(text)) is not None:
        at = _next_clock(now, *clock)
        return None if at is None else (at, True)
    if (wait := parse_wait(text)) is not None:
        return now + wait, False
    if m := _AN_HOUR.search(text):
        return now + _AN_HOUR_S[m.group(1).lower()], False
    if _TOMORROW.search(text):
        at = _next_clock(now, 0, 0, 0)
        return None if at is None else (at, True)
    return None


def parse_reset(text: str, now: float) -> float | None:
    """When a limit the site states resets, as a wall-clock time (seconds since the epoch), or None.

    In order: a clock time ("resets at 14:30", "until 2:30 PM", "14:30 重置", "下午3点后再来"; the next
    such local time, so "at 09:00" said at 22:00 is tomorrow), a stated wait ("try again in 3 hours",
    "in an hour", "2小时后再试"), or "tomorrow" / "明天" alone (the next local midnight)."""
    found = _reset(text, now)
    return None if found is None else found[0]


def rest_until(text: str, now: float, *, min_rest_s: float = REST_MIN_S) -> float | None:
    """The wall-clock time a refused account should rest until, or None for an ordinary refusal
    pause: a reset stated as a time of day ("resets at 14:30") or "tomorrow" is a quota's reset, so
    the account rests until then however near it is; a stated wait rests only when it is at least
    ``min_rest_s`` ("try again in 3 hours"; "try again in 20 seconds" is a pause)."""
    found = _reset(text, now)
    if found is None:
        return None
    at, is_time = found
    if at <= now or (not is_time and at - now < min_rest_s):
        return None
    return at


class BusyMatcher:
    """The busy patterns of one site adapter, compiled (case-insensitive)."""

    def __init__(self, patterns: Sequence[str]) -> None:
        self.patterns = tuple(patterns)
        self._compiled = tuple(re.compile(p, re.IGNORECASE) for p in self.patterns)

    @classmethod
    def for_site(cls, extra: Sequence[str] = (), *, builtin: bool = True) -> BusyMatcher:
        return cls([*(BUILTIN_BUSY_TEXT if builtin else ()), *extra])

    def matches(self, text: str | None) -> bool:
        """A banner or error text: any busy phrase makes it a refusal."""
        return bool(text) and any(p.search(text or "") for p in self._compiled)

    def is_busy_answer(self, text: str | None) -> bool:
        """The whole answer is a busy notice: short (<= :data:`MAX_BUSY_ANSWER_CHARS`), matching a pattern, and
        with at most :data:`MAX_LEFT_SHARE` of its letters left once busy phrases, a stated wait and filler words
        are taken out. "Sorry, you've sent too many messages. Please try again in 2 minutes." is one; a real answer
        that merely mentions a busy phrase is not."""
        t = _SPACE.sub(" ", text or "").strip()
        if not t or len(t) > MAX_BUSY_ANSWER_CHARS or not self.matches(t):
            return False
        total = len(_LETTERS.findall(t))
        rest = t
        for p in self._compiled:
            rest = p.sub(" ", rest)
        rest = _EN_WAIT.sub(" ", rest)
        rest = _ZH_WAIT.sub(" ", rest)
        rest = _FILLER_EN.sub(" ", rest)
        rest = _FILLER_ZH.sub(" ", rest)
        left = len(_LETTERS.findall(rest))
        return left <= MAX_LEFT_SHARE * total
