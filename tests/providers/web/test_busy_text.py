"""A chat site's "busy" refusal told apart from a failure and from a real answer (pure logic), the
adapter keys that configure it, and how the lane reads the refusal (never charged)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mediadesk.core.errors import ErrorKind
from mediadesk.core.policy import RetryPolicy, Verdict
from mediadesk.providers.web.adapter import AdapterError, load_adapter
from mediadesk.providers.web.backend import task_failure
from mediadesk.providers.web.busy import BUILTIN_BUSY_TEXT, MAX_BUSY_ANSWER_CHARS, BusyMatcher, parse_wait
from mediadesk.providers.web.errors import SiteBusy
from mediadesk.scheduler.capacity import Signal, signal_of

ROOT = Path(__file__).resolve().parents[3]
MINIMAL = """\
url = "http://127.0.0.1:8002/chat"
logged_in = ".avatar"
prompt = "textarea"
send = "button.send"
answer = ".assistant .content"
busy = ".stop"
"""

BUILTIN = BusyMatcher.for_site()

# Banners and error messages real sites show when an account is busy or rate limited.
BUSY_NOTICES = [
    "Too many requests. Please try again in 20 seconds.",
    "Sorry, you've sent too many messages. Please try again in 2 minutes.",
    "You've reached the limit for now. Please wait.",
    "You have reached our limit of messages per hour. Please try again later.",
    "Rate limit exceeded.",
    "Another response is already being generated for this account. Please wait until it finishes.",
    "another generation is in progress",
    "The assistant is already generating a reply in another tab.",
    "请求过于频繁，请稍后再试。",
    "请求太频繁了，请 20 秒后再试",
    "另一个回答正在生成中，请稍候",
    "您已达到今日使用上限",
    "发送过于频繁，请2分钟后重试",
]


@pytest.mark.parametrize("text", BUSY_NOTICES)
def test_busy_notices_are_refusals_as_banner_error_or_whole_answer(text: str) -> None:
    assert BUILTIN.matches(text)
    assert BUILTIN.is_busy_answer(text)


@pytest.mark.parametrize(
    "text",
    [
        "Something went wrong, please try again later.",  # a generic site error stays a site error
        "something went wrong, please retry (site error)",
        "connection lost",
        "session expired",
        "",
    ],
)
def test_generic_errors_are_not_refusals(text: str) -> None:
    assert not BUILTIN.matches(text)
    assert not BUILTIN.is_busy_answer(text)


@pytest.mark.parametrize(
    "answer",
    [
        "Please wait for the paint to dry before you put on the second coat.",
        "HTTP 429 means Too Many Requests: the server asks the client to slow down.",
        "The answer is 42. Please wait while I explain: rate limits protect servers from too many requests.",
        "请稍后再试一下这个方法，如果还不行就重启电脑。",
        "Step 1: boil the water. Step 2: please wait 3 minutes. Step 3: pour it over the tea leaves.",
        "好的，这是对「please wait」的回答 🚀 完毕 ✅",
        # long: a real answer that quotes a busy notice somewhere in it
        "Here is the log you asked about. " * 10 + "Too many requests. Please try again in 20 seconds.",
    ],
)
def test_a_real_answer_mentioning_busy_words_is_kept(answer: str) -> None:
    assert BUILTIN.matches(answer)  # it does mention one...
    assert not BUILTIN.is_busy_answer(answer)  # ...but it is not nothing but a busy notice


def test_long_answers_are_never_busy_notices() -> None:
    notice = "Too many requests. Please try again in 20 seconds. "
    text = notice * (MAX_BUSY_ANSWER_CHARS // len(notice) + 1)
    assert len(text.strip()) > MAX_BUSY_ANSWER_CHARS
    assert not BUILTIN.is_busy_answer(text)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("Too many requests. Please try again in 20 seconds.", 20.0),
        ("try again in 2 minutes", 120.0),
        ("Please try again after 1 hour.", 3600.0),
        ("please wait 30s", 30.0),
        ("try again in 5 sec", 5.0),
        ("Try again in 1 minute and 30 seconds.", 90.0),
        ("You can send more messages in about 3 minutes", 180.0),
        ("请 20 秒后再试", 20.0),
        ("请求过于频繁，请2分钟后重试", 120.0),
        ("请等待 30 秒", 30.0),
        ("1 分钟 30 秒后再试", 90.0),
        ("Please wait.", None),
        ("请求过于频繁，请稍后再试", None),
        ("rate limit exceeded", None),
        ("", None),
    ],
)
def test_the_stated_wait_is_parsed(text: str, seconds: float | None) -> None:
    assert parse_wait(text) == seconds


def test_patterns_are_case_insensitive_and_adapter_patterns_add_to_the_builtins() -> None:
    assert BUILTIN.matches("TOO MANY REQUESTS")
    own = BusyMatcher.for_site([r"model is overloaded"])
    assert own.matches("The model is OVERLOADED right now") and own.matches("rate limited")
    only = BusyMatcher.for_site([r"model is overloaded"], builtin=False)
    assert only.matches("model is overloaded") and not only.matches("rate limited")
    assert only.patterns == ("model is overloaded",)
    assert len(BUILTIN.patterns) == len(BUILTIN_BUSY_TEXT)


def write(tmp_path: Path, extra: str) -> Path:
    p = tmp_path / "site.toml"
    p.write_text(MINIMAL + extra, encoding="utf-8")
    return p


def test_adapter_busy_keys(tmp_path: Path) -> None:
    a = load_adapter(write(tmp_path, ""))
    assert (a.busy_selector, a.busy_text, a.busy_text_builtin) == (None, (), True)
    assert a.busy_matcher().matches("too many requests")
    b = load_adapter(write(tmp_path, 'busy_selector = ".limit-banner"\nbusy_text = ["quota used up", "配额已用完"]\n'
                                     "busy_text_builtin = false\n"))
    assert b.busy_selector == ".limit-banner" and b.busy_text == ("quota used up", "配额已用完")
    m = b.busy_matcher()
    assert m.matches("Your QUOTA USED UP for today") and m.matches("配额已用完") and not m.matches("too many requests")
    simchat = load_adapter(ROOT / "resources" / "sites" / "simchat.toml")
    assert simchat.busy_selector == ".notice.busy"


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ('busy_text = "too many"\n', "'busy_text' must be a list"),
        ('busy_text = ["ok", "(unclosed"]\n', "busy_text[1] '(unclosed' is not a valid regular expression"),
        ('busy_text = [""]\n', "busy_text[0] must be a non-empty string"),
        ("busy_text = [3]\n", "busy_text[0] must be a non-empty string"),
        ('busy_text_builtin = "no"\n', "'busy_text_builtin' must be true or false"),
        ('busy_selector = ""\n', "'busy_selector' must not be empty"),
        ('busy_selecter = ".x"\n', "did you mean 'busy_selector'"),
    ],
)
def test_adapter_busy_key_mistakes_name_the_key(tmp_path: Path, extra: str, fragment: str) -> None:
    path = write(tmp_path, extra)
    with pytest.raises(AdapterError) as info:
        load_adapter(path)
    assert str(path) in str(info.value) and fragment in str(info.value)


def test_a_busy_site_is_a_refusal_that_costs_no_attempt() -> None:
    err = SiteBusy("Too many requests. Please try again in 20 seconds.", where="error message", wait_s=20.0)
    failure = task_failure(err)
    assert (failure.kind, failure.refusal, failure.retry_after_s) == (ErrorKind.RATE_LIMITED, True, 20.0)
    assert "try again in 20 seconds" in failure.message and "wait 20 s" in failure.message
    assert signal_of(failure) is Signal.REFUSAL  # pauses the account's capacity
    outcome = RetryPolicy(max_retries=2).decide(failure, attempts_in_budget=3)  # even with no retries left
    assert outcome.verdict is Verdict.REQUEUE and not outcome.charged
    no_wait = task_failure(SiteBusy("请求过于频繁，请稍后再试", where="answer"))
    assert no_wait.refusal and no_wait.retry_after_s is None
