"""Fallback order: chain profiles once each in order, then the rule reply, then exhausted."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mediadesk.core.fallback import (
    SERVED_BY_OPERATOR,
    SERVED_BY_RULE_REPLY,
    FallbackStep,
    StepKind,
    fallback_order,
    next_step,
)


def test_first_untried_profile_in_chain_order() -> None:
    assert next_step(["b", "c"], None, ["a"]) == FallbackStep.to_profile("b")
    assert next_step(["b", "c"], None, ["a", "b"]) == FallbackStep.to_profile("c")
    assert next_step(["b", "c"], "sorry", ["a", "c"]) == FallbackStep.to_profile("b")  # order, not history


def test_rule_reply_after_the_profiles_then_exhausted() -> None:
    step = next_step(["b"], "We will get back to you.", ["a", "b"])
    assert step.kind is StepKind.RULE_REPLY and step.reply == "We will get back to you."
    assert step.served_by == SERVED_BY_RULE_REPLY == "rule_reply"
    done = next_step(["b"], "We will get back to you.", ["a", "b", SERVED_BY_RULE_REPLY])
    assert done.is_exhausted and done.served_by is None and done == FallbackStep.exhausted()


def test_no_chain_no_reply_is_exhausted_at_once() -> None:
    assert next_step([], None, ["a"]).is_exhausted
    assert next_step([], "   ", ["a"]).is_exhausted  # a blank rule reply is no reply


def test_cycles_duplicates_main_profile_and_reserved_names() -> None:
    chain = ["a", "b", "a", "", "b", SERVED_BY_OPERATOR, "c", "a"]
    order = fallback_order("a", chain, "fixed reply")
    assert [s.served_by for s in order] == ["b", "c", "rule_reply", None]
    assert order[-1].is_exhausted


def test_profile_step_served_by_is_its_name() -> None:
    step = FallbackStep.to_profile("gpt-main")
    assert step.kind is StepKind.PROFILE and step.served_by == "gpt-main" and not step.is_exhausted


names = st.sampled_from(["a", "b", "c", "d", "e"])


@given(main=names, chain=st.lists(names, max_size=12), reply=st.one_of(st.none(), st.just(""), st.just("R")))
def test_each_profile_once_in_chain_order_rule_reply_last(main: str, chain: list[str], reply: str | None) -> None:
    tried = [main]
    served: list[str] = []
    for _ in range(len(chain) + 3):  # more than enough: it must end by itself
        step = next_step(chain, reply, tried)
        if step.is_exhausted:
            break
        assert step.served_by is not None
        served.append(step.served_by)
        tried.append(step.served_by)
    else:
        raise AssertionError("the chain never ran out")
    expected = [name for i, name in enumerate(chain) if name != main and name not in chain[:i]]
    assert served == expected + (["rule_reply"] if reply else [])
    assert main not in served and len(set(served)) == len(served)
    assert next_step(chain, reply, tried).is_exhausted  # exhausted stays exhausted
    assert [s.served_by for s in fallback_order(main, chain, reply)] == [*served, None]
