"""Config errors in the console's language (the CLI prints the same errors in English).

:class:`~mediadesk.config.model.ConfigError` carries its problems as data (file, key, message template
and values: :class:`~mediadesk.config.messages.ConfigIssue`); here each is shown through the
installed translator (context ``ConfigIssues``). Key paths, file names and values stay as written.
An error without that data (a plain text from elsewhere) is shown as it is.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from mediadesk.config.messages import CONTEXT, ConfigIssue, Msg
from mediadesk.config.model import ConfigError

__all__ = ["config_error_text", "config_issue_line", "config_message_text"]


def _translate(template: str) -> str:
    return QCoreApplication.translate(CONTEXT, template)


def config_message_text(message: Msg) -> str:
    """The message alone (no file, no key), translated."""
    return message.render(_translate)


def config_issue_line(issue: ConfigIssue) -> str:
    """``<file>: <key>: <message>`` with the message translated."""
    return issue.line(_translate)


def config_error_text(error: BaseException | str) -> str:
    """All lines of a config error, translated where it carries its problems as data."""
    if isinstance(error, ConfigError) and error.issues:
        return "\n".join(config_issue_line(i) for i in error.issues)
    return str(error)
