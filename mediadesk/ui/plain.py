"""Text from outside shown as text, never as HTML.

A QLabel, a QMessageBox and a tooltip guess the text format (``Qt.AutoText``): anything that looks like
HTML is rendered, so a server's error body (``<h1>``, ``<img src="file:///...">``, links), a task id
or a prompt from a batch file would be formatted, could load local images and plant links. Every
widget that shows such text is made plain text here, once, at construction.
"""

from __future__ import annotations

import html
from typing import TypeVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox

__all__ = ["plain", "plain_tip"]

_W = TypeVar("_W", QLabel, QMessageBox)


def plain(widget: _W) -> _W:
    """``widget`` showing its text as plain text (returned, to wrap a constructor call)."""
    widget.setTextFormat(Qt.TextFormat.PlainText)
    return widget


def plain_tip(text: str | None) -> str:
    """A tooltip for outside text: tooltips have no plain-text switch, so the text is escaped and
    wrapped as rich text that shows it literally (line breaks kept)."""
    if not text:
        return ""
    return "<p style='white-space:pre-wrap'>" + html.escape(text) + "</p>"
