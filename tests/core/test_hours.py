"""Quiet hours: windows across midnight, several ranges, the next opening, and daylight saving."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from mediadesk.core.hours import ActiveHours, HoursError, epoch_of, opens_at, wall_of, wall_span

BERLIN = ZoneInfo("Europe/Berlin")


def at(hh: int, mm: int = 0, day: int = 10) -> datetime:
    return datetime(2026, 6, day, hh, mm)


def test_a_window_across_midnight() -> None:
    h = ActiveHours.parse("22:00-07:00")
    assert h.is_open(at(22)) and h.is_open(at(23, 59)) and h.is_open(at(0)) and h.is_open(at(6, 59))
    assert not h.is_open(at(7)) and not h.is_open(at(12)) and not h.is_open(at(21, 59))
    assert h.next_open(at(12)) == at(22)
    assert h.next_open(at(7)) == at(22)
    assert h.next_close(at(23)) == at(7, day=11)
    assert h.next_close(at(3)) == at(7)


def test_several_ranges_and_the_next_one() -> None:
    h = ActiveHours.parse("09:00-12:00, 14:00-18:00")
    assert h.text == "09:00-12:00,14:00-18:00"
    assert h.is_open(at(9)) and not h.is_open(at(12)) and h.is_open(at(15)) and not h.is_open(at(18))
    assert h.next_open(at(12, 30)) == at(14)
    assert h.next_open(at(19)) == at(9, day=11)
    assert h.next_open(at(3)) == at(9)
    assert h.next_close(at(10)) == at(12)


def test_joined_windows_and_24_00() -> None:
    h = ActiveHours.parse("00:00-12:00,12:00-24:00")
    assert h.is_open(at(23, 59)) and h.next_close(at(5)) is None
    assert ActiveHours.parse("20:00-24:00").next_close(at(21)) == at(0, day=11)


@pytest.mark.parametrize(("text", "words"), [
    ("", "HH:MM-HH:MM"),
    ("22:00", "is not a range"),
    ("25:00-07:00", "not a time of day"),
    ("22:60-07:00", "not a time of day"),
    ("24:00-07:00", "not a time of day"),
    ("08:00-08:00", "is empty"),
    ("08:00-09:00,", "HH:MM-HH:MM"),
])
def test_bad_text_says_what_is_wrong(text: str, words: str) -> None:
    with pytest.raises(HoursError, match=words):
        ActiveHours.parse(text)


def test_opens_at_is_none_inside_and_the_opening_outside() -> None:
    h = ActiveHours.parse("22:00-07:00")
    inside = epoch_of(at(23), BERLIN)
    assert opens_at(h, inside, BERLIN) is None
    assert opens_at(None, inside, BERLIN) is None
    noon = epoch_of(at(12), BERLIN)
    assert opens_at(h, noon, BERLIN) == noon + 10 * 3600


def test_daylight_saving_keeps_the_wall_clock() -> None:
    # Berlin springs forward on 2026-03-29 at 02:00 (to 03:00) and falls back on 2026-10-25 at 03:00.
    h = ActiveHours.parse("22:00-07:00")
    before = epoch_of(datetime(2026, 3, 28, 12, 0), BERLIN)
    opening = opens_at(h, before, BERLIN)
    assert opening is not None and wall_of(opening, BERLIN) == datetime(2026, 3, 28, 22, 0)
    # 07:00 the next morning is 8 hours of real time later, not 9: the window follows the clock
    close = epoch_of(h.next_close(wall_of(opening, BERLIN)) or datetime.min, BERLIN)
    assert close - opening == 8 * 3600
    autumn = epoch_of(datetime(2026, 10, 24, 22, 0), BERLIN)
    close = epoch_of(h.next_close(datetime(2026, 10, 24, 22, 0)) or datetime.min, BERLIN)
    assert close - autumn == 10 * 3600


def test_a_start_skipped_by_the_clock_change_opens_when_the_clock_passes_it() -> None:
    h = ActiveHours.parse("02:30-05:00")
    evening = epoch_of(datetime(2026, 3, 28, 23, 0), BERLIN)
    opening = opens_at(h, evening, BERLIN)
    assert opening is not None and wall_of(opening, BERLIN) == datetime(2026, 3, 29, 3, 0)
    assert opens_at(h, opening, BERLIN) is None  # and it is open then
    assert opens_at(h, opening - 1, BERLIN) == opening


def test_wall_span_adds_the_wait_and_the_closed_stretches() -> None:
    h = ActiveHours.parse("22:00-07:00")
    noon = epoch_of(at(12), BERLIN)
    assert wall_span(None, noon, 600) == 600
    assert wall_span(h, noon, 600, BERLIN) == 10 * 3600 + 600       # waits until 22:00
    late = epoch_of(at(6), BERLIN)
    # one hour of work left at 06:00: 07:00 closes, 22:00 reopens
    assert wall_span(h, late, 7200, BERLIN) == 3600 + 15 * 3600 + 3600
    assert wall_span(h, epoch_of(at(23), BERLIN), 600, BERLIN) == 600  # inside: no change


def test_kind_eta_counts_the_wait_until_the_window_opens() -> None:
    from dataclasses import dataclass

    from mediadesk.core.eta import EtaGroup, kind_eta

    @dataclass
    class Load:
        durations: tuple[float, ...] = (10.0, 10.0, 10.0, 10.0)
        running: tuple[object, ...] = ()
        capacity: int = 1
        paused: bool = False
        health: str = "ready"
        active_hours: str | None = None

    now = epoch_of(at(12))  # the system's zone: kind_eta reads the wall clock there
    open_now = kind_eta([EtaGroup(3, [Load()])], now).eta
    assert open_now is not None and open_now.p50_s == 30.0
    waiting = kind_eta([EtaGroup(3, [Load(active_hours="22:00-07:00")])], now).eta
    assert waiting is not None and waiting.p50_s == epoch_of(at(22)) - now + 30.0
