"""The console's language, chosen inside the app (View > Language) and kept in QSettings.

"" (the default) follows the system's locale; otherwise one of :data:`LANGUAGES`. The console
builds its texts once, when each widget is made, so a new choice applies at the next start (the
menu says so); :func:`chosen_locale` is what the start reads.
"""

from __future__ import annotations

from PySide6.QtCore import QLocale, QSettings

__all__ = ["LANGUAGES", "LANGUAGE_KEY", "chosen_language", "chosen_locale", "set_language"]

#: The settings key.
LANGUAGE_KEY = "ui/language"
#: (code, the language's name in itself): the names are not translated, so anyone finds theirs.
LANGUAGES: tuple[tuple[str, str], ...] = (("en", "English"), ("zh_CN", "简体中文"))


def chosen_language(settings: QSettings) -> str:
    """The chosen language's code, or "" to follow the system."""
    value = settings.value(LANGUAGE_KEY, "")
    code = value if isinstance(value, str) else ""
    return code if code in dict(LANGUAGES) else ""


def set_language(settings: QSettings, code: str) -> None:
    """Keep ``code`` ("" = the system's) for the next start."""
    settings.setValue(LANGUAGE_KEY, code if code in dict(LANGUAGES) else "")
    settings.sync()


def chosen_locale(settings: QSettings) -> QLocale | None:
    """The locale to start the console in, or None to follow the system."""
    code = chosen_language(settings)
    return QLocale(code) if code else None
