"""Quiet hours: the local wall-clock windows in which a profile or account takes work.

``active_hours = "22:00-07:00"`` (several ranges: ``"09:00-12:00,14:00-18:00"``) says when a lane
may START a task; a running task is never cut when its window ends. The rules work on the local
wall clock (a naive :class:`~datetime.datetime`), so "22:00" means 22:00 on the clock on the wall
whatever daylight saving does; converting to and from epoch seconds goes through the time zone
(:func:`wall_of`, :func:`epoch_of`), where a start that falls into a spring-forward gap is the
first instant after it. No clock is read here: the caller passes ``now``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo

__all__ = ["HOURS_TEMPLATES", "ActiveHours", "HoursError", "epoch_of", "opens_at", "wall_of", "wall_span"]

_RANGE = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$")
_DAY = 24 * 60


class HoursError(ValueError):
    """``active_hours`` is not a list of ``HH:MM-HH:MM`` ranges; the message says what is wrong.
    ``template`` and ``params`` give it as data (the config shows it translated)."""

    def __init__(self, template: str, **params: str) -> None:
        super().__init__(template.format(**params))
        self.template = template
        self.params = params


#: The messages of :class:`HoursError` (the config's catalog lists them for translation).
HOURS_TEMPLATES = (
    "use HH:MM-HH:MM ranges separated by commas, e.g. \"22:00-07:00\" or \"09:00-12:00,14:00-18:00\"",
    "{part} is not a range HH:MM-HH:MM (e.g. \"22:00-07:00\")",
    "{time} is not a time of day (00:00-23:59, or 24:00 as an end)",
    "{part} is empty (start equals end); for all day leave active_hours out",
)


def _minute(hh: str, mm: str, *, end: bool) -> int:
    h, m = int(hh), int(mm)
    if m > 59 or h > 24 or (h == 24 and (m or not end)):
        raise HoursError(HOURS_TEMPLATES[2], time=f"{hh}:{mm}")
    return h * 60 + m


@dataclass(frozen=True)
class ActiveHours:
    """Windows as (start, end) minutes of the day; ``end < start`` crosses midnight, ``end`` may be
    1440 (24:00). ``text`` is the normalised form shown to the operator."""

    ranges: tuple[tuple[int, int], ...]

    @classmethod
    def parse(cls, text: str) -> ActiveHours:
        parts = text.split(",")
        if not text.strip() or any(not p.strip() for p in parts):
            raise HoursError(HOURS_TEMPLATES[0])
        out: list[tuple[int, int]] = []
        for part in parts:
            m = _RANGE.match(part)
            if m is None:
                raise HoursError(HOURS_TEMPLATES[1], part=repr(part.strip()))
            start = _minute(m[1], m[2], end=False)
            end = _minute(m[3], m[4], end=True)
            if start == end % _DAY:
                raise HoursError(HOURS_TEMPLATES[3], part=repr(part.strip()))
            out.append((start, end))
        return cls(tuple(out))

    @property
    def text(self) -> str:
        return ",".join(f"{_hm(s)}-{_hm(e)}" for s, e in self.ranges)

    def is_open(self, wall: datetime) -> bool:
        """Whether the wall-clock time ``wall`` lies inside one of the windows (start included,
        end excluded)."""
        m = wall.hour * 60 + wall.minute + (wall.second + wall.microsecond / 1e6) / 60
        for s, e in self.ranges:
            if s < e:
                if s <= m < e:
                    return True
            elif m >= s or m < e:
                return True
        return False

    def next_open(self, wall: datetime) -> datetime:
        """The wall-clock time of the next window start after ``wall`` (the caller asks only when
        it is closed; every window starts once a day, so the answer is within 24 hours)."""
        midnight = wall.replace(hour=0, minute=0, second=0, microsecond=0)
        starts = sorted(midnight + timedelta(days=d, minutes=s) for d in (0, 1) for s, _ in self.ranges)
        return next(t for t in starts if t > wall)

    def next_close(self, wall: datetime) -> datetime | None:
        """When the window ``wall`` is in ends (the caller asks only when it is open); None when
        the windows join into every hour of the day."""
        t = wall
        for _ in range(2 * len(self.ranges) + 2):
            ends = [self._end_after(t, s, e) for s, e in self.ranges if self._inside(t, s, e)]
            if not ends:
                return t
            t = max(ends)
            if t - wall >= timedelta(days=1):
                return None
        return None

    @staticmethod
    def _inside(wall: datetime, s: int, e: int) -> bool:
        return ActiveHours(((s, e),)).is_open(wall)

    @staticmethod
    def _end_after(wall: datetime, s: int, e: int) -> datetime:
        midnight = wall.replace(hour=0, minute=0, second=0, microsecond=0)
        end = midnight + timedelta(minutes=e)
        return end if end > wall else end + timedelta(days=1)


def _hm(minute: int) -> str:
    return f"{minute // 60:02d}:{minute % 60:02d}"


def wall_of(ts: float, tz: tzinfo | None = None) -> datetime:
    """Epoch seconds as the naive local wall-clock time (``tz``: a zone for tests; None = the
    system's)."""
    if tz is None:
        return datetime.fromtimestamp(ts)
    return datetime.fromtimestamp(ts, tz).replace(tzinfo=None)


def epoch_of(wall: datetime, tz: tzinfo | None = None) -> float:
    """A naive wall-clock time as epoch seconds. A time that does not exist (the hour skipped when
    clocks go forward) maps to the first instant after the gap, one that happens twice to the
    first of the two: a window never opens early, and never twice."""
    t = wall.timestamp() if tz is None else wall.replace(tzinfo=tz, fold=0).timestamp()
    if wall_of(t, tz) == wall:
        return t
    # skipped by a clock change: the first whole second whose wall time is at or past ``wall``
    lo, hi = t - 7200.0, t + 7200.0
    while hi - lo > 0.5:
        mid = (lo + hi) / 2
        if wall_of(mid, tz) >= wall:
            hi = mid
        else:
            lo = mid
    return float(int(hi + 0.5))


def opens_at(hours: ActiveHours | None, now: float, tz: tzinfo | None = None) -> float | None:
    """None when ``hours`` lets work start at ``now`` (or there are none); else the epoch second
    the next window opens."""
    if hours is None:
        return None
    wall = wall_of(now, tz)
    if hours.is_open(wall):
        return None
    return epoch_of(hours.next_open(wall), tz)


def wall_span(hours: ActiveHours | None, now: float, open_s: float, tz: tzinfo | None = None) -> float:
    """Seconds of wall time from ``now`` until ``open_s`` seconds of work inside the windows are
    done: the wait until the next opening plus every closed stretch the work runs into (an ETA's
    view; a task running when a window ends is not cut, so this slightly overstates)."""
    if hours is None or open_s <= 0 or not math.isfinite(open_s):
        return max(0.0, open_s)
    t, left = now, open_s
    for _ in range(400):  # a year of daily windows; the loop ends far sooner
        wall = wall_of(t, tz)
        if not hours.is_open(wall):
            t = max(t + 1.0, epoch_of(hours.next_open(wall), tz))
            continue
        close = hours.next_close(wall)
        if close is None:
            return t + left - now
        chunk = epoch_of(close, tz) - t
        if chunk >= left:
            return t + left - now
        left -= chunk
        t += chunk
    return t + left - now
