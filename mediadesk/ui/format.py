"""How the console writes numbers, times and states: durations, clock times, ETAs, labels.

Plain functions over plain values; the labels are translated (context ``Format``), so they
need a Qt application for a translation to apply, but no widget.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QCoreApplication, QLocale

from mediadesk.core.backend import HealthStatus
from mediadesk.viewmodel.row_display import DISPLAY_STATES, STALLED

__all__ = ["fmt_clock", "fmt_count", "fmt_eta", "fmt_rate", "fmt_seconds", "fmt_stamp", "fmt_tokens",
           "fmt_waits_until", "health_label", "state_labels"]


def fmt_count(n: int) -> str:
    """A count as the user's locale writes it: ``12,345`` (en, zh), ``12.345`` (de); no grouping in C."""
    return QLocale().toString(int(n))


def fmt_tokens(n: int) -> str:
    """A token count, short: ``950``, ``12.3k``, ``4.56M`` (digits in the user's locale)."""
    if n < 10_000:
        return fmt_count(n)
    if n < 1_000_000:
        return fmt_rate(n / 1000, 1) + "k"
    return fmt_rate(n / 1_000_000, 2) + "M"


def fmt_rate(x: float, decimals: int = 1) -> str:
    """A fractional figure (a rate) in the user's locale: ``1,234.5`` (en, zh), ``1.234,5`` (de)."""
    return QLocale().toString(float(x), "f", decimals)


def fmt_seconds(s: float | None) -> str:
    """Compact duration: ``850 ms``, ``12.3 s``, ``4:05``, ``1:02:03``; ``""`` for None."""
    if s is None:
        return ""
    if s < 0:
        s = 0.0
    if s < 1:
        return f"{s * 1000:.0f} ms"
    if s < 60:
        return f"{fmt_rate(s)} s"
    m, sec = divmod(int(s), 60)
    if m < 60:
        return f"{m}:{sec:02d}"
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{sec:02d}"


def fmt_clock(t: float | None) -> str:
    """A timestamp in a table cell: ``14:03:12`` today, ``03-18 09:41`` on another day; ``""`` for None."""
    if t is None:
        return ""
    lt = time.localtime(t)
    if time.localtime().tm_yday == lt.tm_yday:
        return time.strftime("%H:%M:%S", lt)
    return time.strftime("%m-%d %H:%M", lt)


def fmt_waits_until(t: float, now: float | None = None) -> str:
    """Quiet hours: ``waits until 22:00`` (``waits until 12-03 22:00`` when not on ``now``'s date)."""
    lt = time.localtime(t)
    same_day = time.localtime(time.time() if now is None else now)[:3] == lt[:3]
    when = time.strftime("%H:%M" if same_day else "%m-%d %H:%M", lt)
    return QCoreApplication.translate("Format", "waits until {t}").format(t=when)


def fmt_stamp(t: float, *, millis: bool = False) -> str:
    """A log line's time of day: ``14:03:12`` (``14:03:12.250`` with ``millis``)."""
    stamp = time.strftime("%H:%M:%S", time.localtime(t))
    return stamp + f".{int(t * 1000) % 1000:03d}" if millis else stamp


def fmt_eta(seconds: float) -> str:
    """``20 s``, ``4 min``, ``1 h 05 min`` (an ETA is a rough figure: no false precision)."""
    if seconds < 60:
        return QCoreApplication.translate("Format", "{n} s").format(n=f"{seconds:.0f}")
    if seconds < 3600:
        return QCoreApplication.translate("Format", "{n} min").format(n=f"{seconds / 60:.0f}")
    h, m = divmod(int(seconds // 60), 60)
    return QCoreApplication.translate("Format", "{h} h {m} min").format(h=fmt_count(h), m=f"{m:02d}")


def state_labels() -> dict[str, str]:
    """Translated label per displayed task state (``stalled`` included)."""
    # Literal translate("Format", "...") calls: lupdate finds strings in those only.
    labels = {
        "pending": QCoreApplication.translate("Format", "pending"),
        "running": QCoreApplication.translate("Format", "running"),
        STALLED: QCoreApplication.translate("Format", "stalled"),
        "success": QCoreApplication.translate("Format", "success"),
        "failed": QCoreApplication.translate("Format", "failed"),
        "canceled": QCoreApplication.translate("Format", "canceled"),
    }
    assert set(labels) == set(DISPLAY_STATES)
    return labels


def health_label(health: str) -> str:
    """Translated text for an account's or a lane's health value."""
    labels: dict[str, str] = {
        HealthStatus.READY: QCoreApplication.translate("Format", "ready"),
        HealthStatus.BUSY: QCoreApplication.translate("Format", "busy"),
        HealthStatus.NEEDS_LOGIN: QCoreApplication.translate("Format", "needs login"),
        HealthStatus.DISABLED: QCoreApplication.translate("Format", "disabled"),
        HealthStatus.ERROR: QCoreApplication.translate("Format", "error"),
        HealthStatus.STARTING: QCoreApplication.translate("Format", "starting"),
        HealthStatus.CHALLENGE: QCoreApplication.translate("Format", "needs a person (bot check)"),
        HealthStatus.RESTING: QCoreApplication.translate("Format", "resting (usage limit)"),
    }
    return labels.get(health, health)
