"""PriorityPicker: weighted 5:1 sharing between adjacent channels, and the starvation bound."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mediadesk.core.picker import DEFAULT_WEIGHTS, Channel, PriorityPicker, channel_of

H, N, L = Channel.HIGH, Channel.NORMAL, Channel.LOW
ALL = frozenset(Channel)


def picks(picker: PriorityPicker, present: frozenset[Channel], n: int) -> list[Channel | None]:
    return [picker.pick(present) for _ in range(n)]


def test_channel_of_priority() -> None:
    assert [channel_of(p) for p in (5, 1, 0, -1, -9)] == [H, H, N, L, L]
    assert [c.value for c in Channel] == ["high", "normal", "low"]


@pytest.mark.parametrize(("weights", "limit", "match"),
                         [((5, 1), 20, r"^weights must be 3 positive integers"),
                          ((5, 0, 1), 20, r"^weights must be 3 positive integers"),
                          ((5, 1, -1), 20, r"^weights must be 3 positive integers"),
                          (DEFAULT_WEIGHTS, 1, r"^starvation_limit must be >= 2")])
def test_bad_parameters_are_refused(weights: tuple[int, ...], limit: int, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        PriorityPicker(weights, limit)  # type: ignore[arg-type]


def test_nothing_due_picks_nothing_one_channel_is_always_picked() -> None:
    p = PriorityPicker()
    assert p.pick(set()) is None
    assert picks(p, frozenset({L}), 50) == [L] * 50
    assert p.pick({"normal"}) is N  # type: ignore[arg-type]  # plain strings are accepted


def test_weighted_picks_interleave_evenly() -> None:
    p = PriorityPicker()
    assert picks(p, frozenset({H, N}), 12) == [H, H, H, H, H, N] * 2


def test_all_channels_busy_high_normal_is_five_to_one_and_low_gets_its_floor() -> None:
    p = PriorityPicker()
    seq = picks(p, ALL, 21 * 300)
    counts = Counter(seq)
    assert counts[H] / counts[N] == pytest.approx(5.0, abs=0.05)
    # Low's weighted share (1/31) is below the starvation floor: it gets exactly one pick in 21.
    assert counts[L] == 300
    assert all(L in seq[i : i + 21] for i in range(len(seq) - 20))


def test_normal_and_low_share_five_to_one() -> None:
    p = PriorityPicker()
    counts = Counter(picks(p, frozenset({N, L}), 600))
    assert counts[N] == 500 and counts[L] == 100


def test_high_and_low_low_is_picked_after_twenty_others() -> None:
    p = PriorityPicker(starvation_limit=20)
    seq = picks(p, frozenset({H, L}), 63)
    assert seq[20] is L and seq[41] is L and seq[62] is L
    assert p.last_forced
    assert seq.count(L) == 3


def test_a_channel_back_from_empty_has_banked_no_credit() -> None:
    p = PriorityPicker()
    picks(p, frozenset({H}), 200)  # normal had nothing due all that time
    counts = Counter(picks(p, frozenset({H, N}), 60))
    assert counts[N] == 10  # its weighted share, no burst


def test_an_emptied_channel_keeps_its_debt() -> None:
    p = PriorityPicker()
    picks(p, frozenset({H, N}), 6)  # ends with a normal pick
    p.pick({H})  # normal empty for one pick
    assert picks(p, frozenset({H, N}), 4) == [H] * 4  # no immediate second normal pick


present_sets = st.lists(
    st.sets(st.sampled_from(list(Channel))).map(frozenset), min_size=1, max_size=400
)


@settings(max_examples=300, deadline=None)
@given(
    weights=st.tuples(st.integers(1, 60), st.integers(1, 60), st.integers(1, 60)),
    limit=st.integers(2, 30),
    sets=present_sets,
)
def test_a_waiting_channel_is_picked_within_limit_plus_one_picks(
    weights: tuple[int, int, int], limit: int, sets: list[frozenset[Channel]]
) -> None:
    p = PriorityPicker(weights, limit)
    waited = dict.fromkeys(Channel, 0)  # consecutive picks a channel waited (was non-empty) unpicked
    for present in sets:
        chosen = p.pick(present)
        assert (chosen is None) == (not present)
        assert chosen is None or chosen in present
        for c in Channel:
            waited[c] = waited[c] + 1 if c in present and c != chosen else 0
            assert waited[c] <= limit


@settings(max_examples=100, deadline=None)
@given(limit=st.integers(2, 30), runs=st.lists(st.tuples(st.sets(st.sampled_from(list(Channel))), st.integers(1, 40))))
def test_continuously_busy_channel_appears_in_every_window(limit: int, runs: list[tuple[set[Channel], int]]) -> None:
    """The bound as a window statement: ``low`` kept busy throughout, other channels come and go."""
    p = PriorityPicker(starvation_limit=limit)
    seq = [p.pick(present | {L}) for present, n in runs for _ in range(n)]
    window = limit + 1
    assert all(L in seq[i : i + window] for i in range(max(0, len(seq) - window + 1)))


@settings(max_examples=50, deadline=None)
@given(rounds=st.integers(50, 200))
def test_ratio_converges_with_everything_busy(rounds: int) -> None:
    p = PriorityPicker()
    counts = Counter(picks(p, ALL, rounds * 6))
    assert counts[H] / counts[N] == pytest.approx(5.0, rel=0.05)
