"""How the console writes numbers, times and states: durations, clock times, ETAs, labels.

Plain functions over plain values; the labels are translated (context ``Format``), so they
need a Qt application for a translation to apply, but no widget.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QCoreApplication, QLocale

from mediadesk.core.backend import HealthStatus
from mediadesk.core.errors import ErrorKind
from mediadesk.scheduler.events import CapacityView
from mediadesk.viewmodel import plain_errors
from mediadesk.viewmodel.plain_errors import Explained
from mediadesk.viewmodel.row_display import DISPLAY_STATES, STALLED

__all__ = [
    "error_kind_label",
    "error_line",
    "fmt_clock",
    "fmt_count",
    "fmt_eta",
    "fmt_rate",
    "fmt_seconds",
    "fmt_stamp",
    "fmt_tokens",
    "fmt_waits_until",
    "health_label",
    "key_source_text",
    "plain_error",
    "state_labels",
    "stopped_text",
]


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


def stopped_text(view: CapacityView) -> str:
    """A callee stopped until the operator acts (its key rejected, a TLS error): why, since when, and
    what to do (plain text: the reason is the endpoint's own words)."""
    since = fmt_clock(view.stopped_since)
    if view.stopped_kind == "auth":
        return QCoreApplication.translate(
            "Format", "stopped since {since}: {reason}; set the right API key, then Check and resume in Exceptions"
        ).format(
            since=since, reason=view.stopped or "")
    return QCoreApplication.translate(
        "Format", "stopped since {since}: {reason}; fix the config, then Check and resume in Exceptions").format(
        since=since, reason=view.stopped or "")


def key_source_text(env: str | None, keyring: str | None) -> str:
    """Where an endpoint's API key is read from, in words (never the key itself)."""
    if env and keyring:
        return QCoreApplication.translate(
            "Format", "environment variable {env} (or keyring entry {ring})").format(env=env, ring=keyring)
    if env:
        return QCoreApplication.translate("Format", "environment variable {env}").format(env=env)
    if keyring:
        return QCoreApplication.translate("Format", "keyring entry {ring}").format(ring=keyring)
    return QCoreApplication.translate(
        "Format", "nowhere (no api_key_env or api_key_keyring is set: no key was sent)")


def error_kind_labels() -> dict[str, str]:
    """Translated operator words per error kind (``needs_login`` -> "needs login"): the ONE mapping
    the Exceptions view, the detail pane and the notices show a kind through."""
    labels: dict[str, str] = {
        ErrorKind.TIMEOUT: QCoreApplication.translate("Format", "took too long"),
        ErrorKind.RATE_LIMITED: QCoreApplication.translate("Format", "refused: too many requests"),
        ErrorKind.SERVER_ERROR: QCoreApplication.translate("Format", "the service had an error"),
        ErrorKind.CONNECTION: QCoreApplication.translate("Format", "connection problem"),
        ErrorKind.HEARTBEAT_TIMEOUT: QCoreApplication.translate("Format", "stopped answering (no heartbeat)"),
        ErrorKind.OWNER_LOST: QCoreApplication.translate("Format", "interrupted: MediaDesk stopped"),
        ErrorKind.BROWSER_CRASH: QCoreApplication.translate("Format", "the browser crashed"),
        ErrorKind.SITE_ERROR: QCoreApplication.translate("Format", "the site showed an error"),
        ErrorKind.TRUNCATED_STREAM: QCoreApplication.translate("Format", "the answer was cut off"),
        ErrorKind.BAD_REQUEST: QCoreApplication.translate("Format", "the request was refused as invalid"),
        ErrorKind.AUTH: QCoreApplication.translate("Format", "API key refused or missing"),
        ErrorKind.NEEDS_LOGIN: QCoreApplication.translate("Format", "needs login"),
        ErrorKind.PROFILE_IN_USE: QCoreApplication.translate("Format", "browser profile in use elsewhere"),
        ErrorKind.CANCELED: QCoreApplication.translate("Format", "canceled"),
        ErrorKind.CONFIG: QCoreApplication.translate("Format", "setup problem"),
        ErrorKind.INTERNAL: QCoreApplication.translate("Format", "internal error (a bug in MediaDesk)"),
        ErrorKind.OUT_OF_CREDIT: QCoreApplication.translate("Format", "out of credit"),
        ErrorKind.EXPIRED: QCoreApplication.translate("Format", "waited too long to start"),
        ErrorKind.QUARANTINED: QCoreApplication.translate("Format", "set aside after repeated crashes"),
        ErrorKind.CONVERSATION_BROKEN: QCoreApplication.translate(
            "Format", "an earlier turn of its conversation failed"),
        ErrorKind.FALLBACK_EXHAUSTED: QCoreApplication.translate("Format", "every fallback profile failed"),
        ErrorKind.ANSWER_TOO_LARGE: QCoreApplication.translate("Format", "the answer was too long"),
        ErrorKind.CHALLENGE: QCoreApplication.translate("Format", "the site asks for a person (bot check)"),
        ErrorKind.ANSWER_NOT_FOUND: QCoreApplication.translate("Format", "no answer found on the page"),
        ErrorKind.EMPTY_ANSWER: QCoreApplication.translate("Format", "the site's answer was empty"),
        ErrorKind.ANSWER_CUT: QCoreApplication.translate(
            "Format", "no answer: the model spent its whole token limit thinking"),
        ErrorKind.PROMPT_TOO_LONG_FOR_SITE: QCoreApplication.translate(
            "Format", "the prompt is too long for the site (not sent)"),
    }
    assert set(labels) == {k.value for k in ErrorKind}
    return {str(k.value if isinstance(k, ErrorKind) else k): v for k, v in labels.items()}


def error_kind_label(kind: str | None) -> str:
    """A task's error kind in the operator's words (translated); an unknown kind as stored."""
    if not kind:
        return ""
    return error_kind_labels().get(kind, kind)


def plain_error(text: str | None) -> Explained:
    """An error text in the operator's words (translated), the text as stored in ``detail``
    (:func:`mediadesk.viewmodel.plain_errors.explain`)."""
    return plain_errors.explain(text or "", lambda s: QCoreApplication.translate(plain_errors.CONTEXT, s))


def error_line(kind: str | None, message: str | None) -> Explained:
    """"error: <kind in words>: <message in words>", and the stored kind and message as detail
    whenever either was reworded."""
    said = plain_error(message)
    summary = QCoreApplication.translate("Format", "error: {kind}: {message}").format(
        kind=error_kind_label(kind) or "?", message=said.summary)
    raw = f"{kind or '?'}: {message or ''}"
    reworded = said.has_detail or error_kind_label(kind) != (kind or "")
    return Explained(summary, raw if reworded else "")
