"""The site's own capacity signals, as pure text rules: usage-limit resets (en + zh), final error
wordings, bot-check signals, connection-level failures, and how each reaches the retry policy."""

from __future__ import annotations

import datetime as dt

import pytest

from mediadesk.core.errors import ErrorKind
from mediadesk.core.policy import RetryPolicy, Verdict
from mediadesk.providers.web.adapter import AdapterError, parse_adapter
from mediadesk.providers.web.backend import task_failure
from mediadesk.providers.web.busy import BusyMatcher, parse_reset, rest_until
from mediadesk.providers.web.errors import ChallengeShown, FinalSiteError, SiteDown, UsageLimit
from mediadesk.providers.web.signals import ChallengeMatcher, FinalErrorMatcher, connection_failure, reach
from mediadesk.sim.web_server import WebSimServer

#: 10:00:00 local time on a fixed day: every expected reset is given as local wall-clock time too.
NOW = dt.datetime(2026, 3, 10, 10, 0, 0).timestamp()


def at(hour: int, minute: int = 0, second: int = 0, *, days: int = 0) -> float:
    return (dt.datetime(2026, 3, 10, hour, minute, second) + dt.timedelta(days=days)).timestamp()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("You've reached your limit. Your limit resets at 14:30.", at(14, 30)),
        ("You've reached the message limit for GPT-X. It resets at 2:30 PM.", at(14, 30)),
        ("Usage cap reached; available again at 9 am", at(9, days=1)),  # 09:00 has passed: tomorrow
        ("limit reached until 10:00:15", at(10, 0, 15)),
        ("You have hit your daily limit. Try again after 18:05", at(18, 5)),
        ("Usage limit reached. Try again in 3 hours.", NOW + 3 * 3600),
        ("too many messages, try again in 1 hour and 30 minutes", NOW + 5400),
        ("Your quota is exhausted; it comes back in an hour", NOW + 3600),
        ("Come back tomorrow for more messages", at(0, days=1)),
        ("额度已用完，明天再来", at(0, days=1)),
        ("今日额度已用完，将于 14:30 重置", at(14, 30)),
        ("次数已用尽，下午3点后再来", at(15)),
        ("提问次数已达上限，请 2 小时后再试", NOW + 7200),
        ("已达到使用上限，20 分钟后重试", NOW + 1200),
        ("请于 9:30 之后再试", at(9, 30, days=1)),
        ("已达上限，晚上8点半恢复", at(20, 30)),
    ],
)
def test_parse_reset_reads_the_reset_time_of_many_wordings(text: str, expected: float) -> None:
    assert parse_reset(text, NOW) == pytest.approx(expected)
    assert rest_until(text, NOW) == pytest.approx(expected)  # each of these rests the account
    assert BusyMatcher.for_site().matches(text), text  # and each is a refusal, never a failure


@pytest.mark.parametrize(
    "text",
    [
        "Too many requests. Please try again in 20 seconds.",  # a short stated wait: an ordinary pause
        "请求过于频繁，请 30 秒后再试",
        "Another response is already being generated. Please wait.",  # no time at all
        "rate limited",
    ],
)
def test_short_or_no_waits_are_a_pause_not_a_rest(text: str) -> None:
    assert rest_until(text, NOW) is None


def test_no_clock_time_is_read_into_ordinary_numbers() -> None:
    assert parse_reset("you may send at 3 messages per hour", NOW) is None
    assert parse_reset("version 2.5 of the model", NOW) is None
    assert parse_reset("", NOW) is None


def test_a_reset_time_that_has_just_passed_is_no_rest_until_tomorrow() -> None:
    # the banner was read a moment after its reset time (a loaded machine, a site clock a little
    # behind): the limit is over, not a rest of almost a day
    assert parse_reset("Your limit resets at 09:59:50.", NOW) == pytest.approx(at(9, 59, 50))
    assert rest_until("Your limit resets at 09:59:50.", NOW) is None
    assert rest_until("Your limit resets at 09:40.", NOW) == pytest.approx(at(9, 40, days=1))  # long past


def test_a_clock_time_rests_however_near_it_is() -> None:
    # a quota's reset said as a time of day, 4 s away, still rests until then (not a backoff guess)
    assert rest_until("Your limit resets at 10:00:04.", NOW) == pytest.approx(at(10, 0, 4))


@pytest.mark.parametrize(
    "text",
    [
        "Error 400: This model's maximum context length is 4096 tokens",
        "400 Bad Request",
        "HTTP 404: model not found",
        "invalid_request_error: messages too long",
        "The model `gpt-x` does not exist",
        "context_length_exceeded",
        "Your request was rejected as a result of our safety system: content policy",
        "Unknown model: foo",
        "请求参数错误",
        "超出最大上下文长度",
        "模型不存在",
        "内容违规，无法生成",
    ],
)
def test_built_in_final_error_wordings(text: str) -> None:
    assert FinalErrorMatcher.for_site().matches(text), text


@pytest.mark.parametrize(
    "text", ["something went wrong, please retry (site error)", "connection lost", "HTTP 502", "network error",
             "session expired", "Error 500: internal server error"],
)
def test_ordinary_site_errors_are_not_final(text: str) -> None:
    assert not FinalErrorMatcher.for_site().matches(text), text


def test_adapter_final_error_text_adds_to_or_replaces_the_built_ins() -> None:
    base = {"url": "http://127.0.0.1:1/chat", "logged_in": ".a", "prompt": "textarea", "answer": ".x",
            "busy": ".b", "send": "button"}
    extra = parse_adapter({**base, "final_error_text": [r"quota of the model owner"]}, "t.toml")
    assert extra.final_error_matcher().matches("the quota of the model owner is gone")
    assert extra.final_error_matcher().matches("400 Bad Request")
    only = parse_adapter({**base, "final_error_text": ["nope"], "final_error_text_builtin": False}, "t.toml")
    assert not only.final_error_matcher().matches("400 Bad Request")
    assert parse_adapter({**base, "challenge_text": ["prove it"]}, "t.toml").challenge_matcher().judge(
        {"dialogs": ["Please prove it"]}) is not None
    with pytest.raises(AdapterError, match="final_error_text"):
        parse_adapter({**base, "final_error_text": ["("]}, "t.toml")


def test_challenge_signals_frames_widgets_dialogs_and_pages_without_a_prompt_box() -> None:
    m = ChallengeMatcher.for_site()
    assert m.judge({"frames": ["https://challenges.cloudflare.com/cdn-cgi/x/turnstile/if/ov2"]}) is not None
    assert m.judge({"mark": ".g-recaptcha"}) is not None
    assert m.judge({"title": "Just a moment..."}) is not None
    assert m.judge({"dialogs": ["We noticed unusual activity from your account."]}) is not None
    assert m.judge({"body": "请确认您是真人", "prompt": False}) is not None
    # the chat page itself (prompt box present: the script sends no body text) is no challenge
    assert m.judge({"frames": [], "mark": None, "dialogs": [], "body": "", "title": "SimChat", "prompt": True}) is None
    assert m.judge({"dialogs": ["What's new in 0.12: faster answers"]}) is None
    assert m.judge(None) is None


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/chat", "ERR_CONNECTION_REFUSED"),
        ("net::ERR_NAME_NOT_RESOLVED", "ERR_NAME_NOT_RESOLVED"),
        ("net::ERR_ADDRESS_UNREACHABLE", "ERR_ADDRESS_UNREACHABLE"),
        ("net::ERR_INCOMPLETE_CHUNKED_ENCODING", "ERR_INCOMPLETE_CHUNKED_ENCODING"),
        ("net::ERR_CONNECTION_RESET", "ERR_CONNECTION_RESET"),
        ("net::ERR_ABORTED", None),  # the page closed its own request (a stop click): not an outage
        ("Timeout 5000ms exceeded", None),
    ],
)
def test_connection_failures(text: str, code: str | None) -> None:
    assert connection_failure(text) == code


def test_each_signal_reaches_the_retry_policy_uncharged_or_final() -> None:
    policy = RetryPolicy()
    down = task_failure(SiteDown("net::ERR_CONNECTION_REFUSED"))
    assert down.unavailable and policy.decide(down, 1).verdict is Verdict.REQUEUE
    limit = task_failure(UsageLimit("resets at 14:30", where="banner", until=NOW + 60, now=NOW))
    assert limit.refusal and policy.decide(limit, 1).verdict is Verdict.REQUEUE
    challenge = task_failure(ChallengeShown("verify you are human"))
    assert challenge.kind is ErrorKind.CHALLENGE and policy.decide(challenge, 1).verdict is Verdict.REQUEUE
    final = task_failure(FinalSiteError("400 Bad Request"))
    assert final.kind is ErrorKind.BAD_REQUEST and policy.decide(final, 1).verdict is Verdict.FAIL


async def test_reach_is_one_plain_get_that_tells_a_down_site_from_one_that_answers() -> None:
    async with WebSimServer() as sim:
        up = await reach(sim.chat_url)
        assert up.up and up.what == "HTTP 200"  # the logged-out page: the site is there
        sim.set_outage("502")
        gateway = await reach(sim.chat_url)
        assert not gateway.up and "502" in gateway.what
        sim.set_outage("refuse")
        refused = await reach(sim.chat_url)
        assert not refused.up and "ConnectError" in refused.what
        sim.set_outage(None)
        sim.set_challenge("turnstile")  # a bot check is the site answering, not an outage
        assert (await reach(sim.chat_url)).up
